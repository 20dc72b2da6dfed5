"""Kumar et al.'s ratings, their two published agreement tables re-derived, and the expert band a judge is held to.

The rules, read from the authors' ``analysis.ipynb`` (cells 2-5), which this module follows with its own code:

- Each rater's file is sorted by the framework's id column; raters are aligned on that id.
- **"experts"** is the per-conversation *median* of the three experts' ratings.
- **"llm"** is the file ``gemini_ratings.csv`` (Gemini 2.5 Pro) alone: the notebook lists the files
  ``expert1, expert2, expert3, gemini, gpt, claude, crowd`` against the method names
  ``expert1, expert2, expert3, llm, gpt, claude, crowd``, so its "experts–llm" and "llm–crowd" rows are Gemini's.
- **"crowd"** is the crowd file as given (EmpatheticDialogues' and Lend an Ear's crowd ratings are means, so they
  take values like 3.5 or 2.33).
- Kappa: ratings × 100, rounded; the categories are the values either side used, weighted by their positions
  (:mod:`eqbench_nb.analysis.agreement`); z = kappa / se, p two-sided normal. Spearman: scipy, Fisher interval with
  1.96. Printed to 2 decimals (rho, interval, kappa) and 3 (p values, z).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..analysis.agreement import spearman_fisher, weighted_kappa
from .files import read_csv

#: Framework folder → (the authors' display name, id column, dimensions in the authors' order).
FRAMEWORKS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "empatheticdialogues": ("Empathetic Dialogues", "conv_id", ("empathy", "relevance", "fluency")),
    "epitome": (
        "EPITOME",
        "sp_id",
        ("level_emotional_reactions", "level_explorations", "level_interpretations"),
    ),
    "perceived_empathy": (
        "Perceived Empathy",
        "id",
        tuple(
            f"m_{d}"
            for d in ("understood", "validated", "affirmed", "seen", "accepted", "caredfor", "emotional", "practical")
        )
        + ("m_motivation",),
    ),
    "lend_an_ear": (
        "Lend an Ear",
        "conversation_id",
        (
            "validating_emotions",
            "encouraging_elaboration",
            "demonstrating_understanding",
            "advice_giving",
            "self_oriented",
            "dismissing_emotions",
        ),
    ),
}
RATER_FILES = {"expert1": "expert1", "expert2": "expert2", "expert3": "expert3", "crowd": "crowd"}
RATER_FILES.update(gpt="gpt", claude="claude", gemini="gemini", llm="gemini")
EXPERT_PAIRS = (("expert1", "expert2"), ("expert2", "expert3"), ("expert3", "expert1"))
#: The six pairs of both tables, in the authors' order.
PAIRS = (("experts", "llm"), ("experts", "crowd"), ("llm", "crowd"), *EXPERT_PAIRS)
SPEARMAN_TABLE = "annotations/all_annotator_pairs_spearman_kappa.csv"
KAPPA_TABLE = "annotations/table_kappa.csv"


def ratings(framework: str, path: str | None = None) -> pd.DataFrame:
    """One framework's ratings, long: ``id``, ``dimension``, ``rater`` (expert1-3, experts, crowd, gpt, claude,
    gemini, llm), ``rating`` (NaN where a file has none)."""
    if framework not in FRAMEWORKS:
        raise ValueError(f"framework: {framework!r} is not one of {sorted(FRAMEWORKS)}")
    _, id_col, dims = FRAMEWORKS[framework]
    wide: dict[str, pd.DataFrame] = {}
    for rater, stem in RATER_FILES.items():
        df = read_csv(f"annotations/{framework}/{stem}_ratings.csv", path)
        df = df.drop_duplicates(subset=[id_col]).set_index(id_col).sort_index()
        wide[rater] = df[list(dims)].apply(pd.to_numeric, errors="coerce")
    ids = wide["expert1"].index
    for rater, df in wide.items():
        if not df.index.equals(ids):
            raise ValueError(f"{framework}: {rater}'s conversation ids differ from expert1's")
    wide["experts"] = pd.DataFrame(
        np.median(np.stack([wide[e].to_numpy() for e in ("expert1", "expert2", "expert3")]), axis=0),
        index=ids,
        columns=list(dims),
    )
    frames = [
        df.rename_axis("id").reset_index().melt(id_vars="id", var_name="dimension", value_name="rating").assign(rater=r)
        for r, df in wide.items()
    ]
    return pd.concat(frames, ignore_index=True)[["id", "dimension", "rater", "rating"]]


def all_ratings(path: str | None = None) -> pd.DataFrame:
    """:func:`ratings` of all four frameworks, with a ``dataset`` column (the authors' names)."""
    return pd.concat([ratings(f, path).assign(dataset=FRAMEWORKS[f][0]) for f in FRAMEWORKS], ignore_index=True)


def pair_row(long: pd.DataFrame, dimension: str, pair: tuple[str, str]) -> dict[str, float]:
    """Every statistic of one pair on one dimension, unrounded (the authors' kappa on ratings × 100, rounded)."""
    one = long[long["dimension"] == dimension].pivot(index="id", columns="rater", values="rating")
    a, b = one[pair[0]].to_numpy(), one[pair[1]].to_numpy()
    s = spearman_fisher(a, b)
    k = weighted_kappa(np.round(a * 100), np.round(b * 100))
    return {
        "Spearman Correlation": s.rho,
        "Spearman P-value": s.p,
        "Fisher CI Lower": s.low,
        "Fisher CI Upper": s.high,
        "Weighted Cohen's Kappa": k.kappa,
        "Kappa Z-statistic": k.z,
        "Kappa P-value": k.p,
        "n": float(s.n),
    }


#: The digits each column is printed to in the published tables.
DIGITS = {
    "Spearman Correlation": 2,
    "Spearman P-value": 3,
    "Fisher CI Lower": 2,
    "Fisher CI Upper": 2,
    "Weighted Cohen's Kappa": 2,
    "Kappa Z-statistic": 3,
    "Kappa P-value": 3,
}


def printed(value: float, digits: int) -> str:
    """A value as the authors printed it (``nan`` as pandas writes a NaN the notebook formatted)."""
    return "nan" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def rederived(path: str | None = None) -> pd.DataFrame:
    """The 126 rows (21 dimensions × 6 pairs) re-derived, unrounded, keyed as the published tables are."""
    long = all_ratings(path)
    rows = []
    for dataset, dimension in long[["dataset", "dimension"]].drop_duplicates().itertuples(index=False):
        sub = long[long["dimension"] == dimension]
        for pair in PAIRS:
            rows.append(
                {"Dataset": dataset, "Dimension": dimension, "Annotator Pair": str(pair)}
                | pair_row(sub, dimension, pair)
            )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Comparison:
    """A published table against its re-derivation: rows whose every printed cell matches, and the differences."""

    table: str
    rows: int
    matching: int
    differences: pd.DataFrame  # one line per differing cell: key, column, published, re-derived (unrounded)

    def headline(self) -> str:
        return f"{self.table}: {self.matching} of {self.rows} rows re-derive to the printed digits"


def compare(table: str, path: str | None = None, ours: pd.DataFrame | None = None) -> Comparison:
    """Compare :func:`rederived` with a published table (:data:`KAPPA_TABLE` or :data:`SPEARMAN_TABLE`), cell by
    cell at the digits printed. A published ``-0.00`` equals a re-derived value that prints as ``0.00`` or
    ``-0.00`` (the sign of a value rounded to zero is noise)."""
    published = read_csv(table, path, dtype=str, keep_default_na=False)
    ours = rederived(path) if ours is None else ours
    key = ["Dataset", "Dimension", "Annotator Pair"]
    merged = published.merge(ours, on=key, how="left", suffixes=("", " ours"), indicator=True)
    columns = [c for c in DIGITS if c in published.columns]
    diffs = []
    matching = 0
    for row in merged.to_dict("records"):
        bad = []
        for col in columns:
            mine = row[f"{col} ours"]
            want = str(row[col]).lower()
            got = printed(float(mine), DIGITS[col]) if row["_merge"] == "both" else "missing"
            if got.lstrip("-") != want.lstrip("-") or (want not in ("0.00", "-0.00", "0.000") and got != want):
                bad.append({**{k: row[k] for k in key}, "column": col, "published": row[col], "rederived": mine})
        diffs.extend(bad)
        matching += not bad
    return Comparison(table, len(published), matching, pd.DataFrame(diffs))


@dataclass(frozen=True)
class ExpertBand:
    """The three expert–expert kappas of a dimension: their median and range."""

    dimension: str
    median: float
    low: float
    high: float


def expert_bands(table: pd.DataFrame) -> dict[str, ExpertBand]:
    """Per dimension, the median and range of the three expert-pair kappas in a re-derived or published table."""
    experts = table[table["Annotator Pair"].isin([str(p) for p in EXPERT_PAIRS])]
    bands = {}
    for dim, grp in experts.groupby("Dimension", sort=False):
        k = pd.to_numeric(grp["Weighted Cohen's Kappa"], errors="coerce").dropna()
        bands[str(dim)] = ExpertBand(str(dim), float(k.median()), float(k.min()), float(k.max()))
    return bands


def verdict(judge_low: float, judge_high: float, band: ExpertBand) -> str:
    """Whether a judge's kappa against the experts reaches the expert band, from its interval
    ``[judge_low, judge_high]`` (e.g. a conversation-clustered 95 % interval).

    Rule: "reaches the expert band" when the interval's upper end is at or above the band's median *and* its lower
    end is at or above the band's lowest expert pair (the judge is no worse than the weakest expert pair, and could
    be as good as the typical one); "below the expert band" when the upper end is below the band's lowest pair (even
    its most favourable value is worse than every expert pair); otherwise "cannot tell at this n".
    """
    if any(math.isnan(x) for x in (judge_low, judge_high, band.median, band.low)):
        return "cannot tell at this n"
    if judge_high < band.low:
        return "below the expert band"
    if judge_low >= band.low and judge_high >= band.median:
        return "reaches the expert band"
    return "cannot tell at this n"


def headlines(path: str | None = None) -> list[str]:
    """One line per published table: how many of its 126 rows re-derive to the printed digits, then each differing
    cell (table, dataset, dimension, pair, column: published vs re-derived)."""
    ours = rederived(path)
    lines = []
    for table in (KAPPA_TABLE, SPEARMAN_TABLE):
        c = compare(table, path, ours)
        lines.append(c.headline())
        lines += [
            f"  {d['Dataset']} {d['Dimension']} {d['Annotator Pair']} {d['column']}: published {d['published']}, "
            f"re-derived {d['rederived']!r}"
            for d in c.differences.to_dict("records")
        ]
    return lines


#: The three published LLM judges, by their files.
JUDGES = ("gpt", "claude", "gemini")


def judge_verdicts(judge: str, path: str | None = None, reps: int = 2000, seed: int = 0) -> pd.DataFrame:
    """A judge against the experts' median, per dimension: its kappa (the authors' rule), a conversation-bootstrap
    95 % interval, the expert band (median and range of the three expert pairs) and :func:`verdict`.

    As the paper compares them: the judge against the experts' *median*, the band from *single* expert pairs. The
    median of three is less noisy than one expert, which favours the judge a little; a judge against each expert
    separately is the like-for-like comparison (:func:`pair_row` with ``("expert1", judge)``)."""
    if judge not in RATER_FILES:
        raise ValueError(f"judge: {judge!r} is not one of {sorted(RATER_FILES)}")
    from ..analysis.agreement import bootstrap_kappa_ci

    long = all_ratings(path)
    bands = expert_bands(rederived(path))
    rows = []
    for dataset, dimension in long[["dataset", "dimension"]].drop_duplicates().itertuples(index=False):
        one = long[long["dimension"] == dimension].pivot(index="id", columns="rater", values="rating")
        a, b = np.round(one["experts"].to_numpy() * 100), np.round(one[judge].to_numpy() * 100)
        k = weighted_kappa(a, b).kappa
        low, high = bootstrap_kappa_ci(a, b, reps=reps, seed=seed)
        band = bands[dimension]
        rows.append(
            {
                "Dataset": dataset,
                "Dimension": dimension,
                "kappa": k,
                "low": low,
                "high": high,
                "expert median": band.median,
                "expert low": band.low,
                "expert high": band.high,
                "verdict": verdict(low, high, band),
            }
        )
    return pd.DataFrame(rows)
