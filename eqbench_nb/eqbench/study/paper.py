"""The paper (Paech, arXiv 2312.06281), figure by figure: each figure and table rebuilt beside what it printed.

Small pure functions for notebook 07. Tables in, tidy tables out; every bootstrap draws from
``np.random.default_rng(seed)`` (through :mod:`eqbench_nb.analysis.stats`).

**Where the printed values come from.** The paper's full text was not available when the tables
under ``data/`` were gathered, so most printed values come from secondary sources; each row keeps its
source, and :func:`source_tag` shortens it to a tag:

- P: the paper's abstract (arXiv 2312.06281v2), the only primary source for a number
- SEC1: an LLM-written public review of arXiv 2312.06281v2 (secondary)
- SEC2: a public Chinese summary of the paper (secondary)
- PwC: the Papers-with-Code results listing of the paper (secondary, truncated)
- CH: the repository's score chart ``images/eq_bench_scores_chart.png`` (EQ-bench/EQ-Bench)
- README: the EQ-Bench repository README (EQ-bench/EQ-Bench @ d28c60c, the author's own words)
- code: the EQ-Bench pipeline code (EQ-bench/EQ-Bench ``lib/``)

**Agreement wording** (:func:`agreement`). A regenerated value ``ours`` (with a 95 % interval
``[low, high]`` where one exists) is set beside the printed value ``p``:

- ``"matches"``: ``|ours - p| <= tol``. ``tol`` is what rounding alone can explain, half a unit of the last
  printed digit: :data:`TOL_R` = 0.005 for a correlation printed with two decimals (0.97 rounds from
  [0.965, 0.975)), :data:`TOL_SCORE` = 0.005 for a score printed with two decimals. A match says the value *can*
  be the printed one, not that it is: the paper's own models and snapshots are not known.
- ``"inside our interval"``: further apart than ``tol``, but ``p`` lies in ``[low, high]``: the data
  cannot tell the two apart.
- ``"outside our interval"``: ``p`` lies outside ``[low, high]``.
- ``"differs"``: further apart than ``tol`` and no interval to judge by.
- ``"no printed value"`` / ``"not computable"``: one side is missing.

**"Weaker models gain more"** (:func:`trend_verdict`) is judged on the Spearman correlation between a
run's strength and its revision gain, with a bootstrap interval over runs: supported when the whole
interval is below 0, contradicted when it is above 0, otherwise not shown beyond noise. Strength is
the mean of the first-pass and revised scores (as in a Bland-Altman plot): correlating the gain with
the first-pass score alone is biased towards "weaker gain more", because the first pass's own noise
enters the gain with a minus sign (regression to the mean). Both are reported.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as _sps

from ...analysis import stats as S
from ..conventions import REVISED_MIN_PARSEABLE_RATIO, official_iteration_score, records_by_iteration
from ..questions import Question
from ..runs import EqBenchRun
from .published import data_dir

#: Tolerances of :func:`agreement`: a correlation or a score printed with two decimals.
TOL_R = 0.005
TOL_SCORE = 0.005

#: Source tags, tried in this order on a source text (case-insensitive regular expressions).
SOURCE_TAGS: tuple[tuple[str, str], ...] = (
    ("P", r"\babstract\b"),
    ("SEC1", r"markdown review"),
    ("SEC2", r"chinese"),
    ("PwC", r"papers-with-code results|paperswithcode2\.com/paper|hyper\.ai"),
    ("CH", r"eq_bench_scores_chart"),
    ("README", r"readme\.md"),
    ("code", r"lib/\w+\.py"),
)

#: What each tag of :data:`SOURCE_TAGS` is, in a word a legend can carry: only the abstract is the paper itself.
SOURCE_KINDS: dict[str, str] = {
    "P": "the paper's abstract",
    "SEC1": "an LLM-written review, not checked against the paper",
    "SEC2": "a secondary summary, not checked against the paper",
    "PwC": "Papers-with-Code's listing",
    "CH": "the repository's score chart",
    "README": "the EQ-Bench README",
    "code": "the upstream code",
}


def reported_label(tags_to_items: dict[str, list[str]]) -> str:
    """A legend entry for reported values by source: "reported: MMLU in the paper's abstract (P); Arena Elo, … in an
    LLM-written review, not checked against the paper (SEC1)". Values from a secondary source are not called
    "printed in the paper"."""
    parts = [f"{', '.join(items)} in {SOURCE_KINDS.get(tag, tag)} ({tag})" for tag, items in tags_to_items.items()]
    return "reported: " + "; ".join(parts)


#: Table 3: each benchmark as ``paper_correlations.csv`` names it -> the ``paper_scores.csv`` columns that
#: hold paper-era values for it, as ``(label, column)``. MMLU has two sources; SECEU has none.
TABLE3_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "MMLU": (("MMLU (OLLB, Sept/Oct 2023)", "ollb_mmlu"), ("MMLU (LMSys, 2023-12-06)", "mmlu_lmsys_20231206")),
    "Chatbot Arena Elo": (("Arena Elo (LMSys, 2023-12-06)", "arena_elo_20231206"),),
    "HellaSwag": (("HellaSwag (OLLB, 2023)", "ollb_hellaswag"),),
    "AlpacaEval": (("AlpacaEval v1 win rate", "alpacaeval_v1_winrate"),),
    "MT-Bench": (("MT-Bench (LMSys, 2023-12-06)", "mt_bench_20231206"),),
    "ARC": (("ARC (OLLB, 2023)", "ollb_arc"),),
    "TruthfulQA": (("TruthfulQA (OLLB, 2023)", "ollb_truthfulqa"),),
    "SECEU": (),
}


# ---------------------------------------------------------------------------------------------
# sources and agreement
# ---------------------------------------------------------------------------------------------


def source_tag(source: str | float | None) -> str:
    """The tags of :data:`SOURCE_TAGS` found in a source text, comma-separated ("" when none)."""
    if not isinstance(source, str):
        return ""
    return ", ".join(tag for tag, pattern in SOURCE_TAGS if re.search(pattern, source, re.IGNORECASE))


def agreement(
    printed: float | None, ours: float | None, low: float | None = None, high: float | None = None, tol: float = TOL_R
) -> str:
    """How a regenerated value stands beside a printed one (wording and thresholds: module docstring)."""
    p = np.nan if printed is None else float(printed)
    o = np.nan if ours is None else float(ours)
    if not np.isfinite(p):
        return "no printed value"
    if not np.isfinite(o):
        return "not computable"
    if abs(o - p) <= tol + 1e-9:  # 1e-9: decimal values such as 0.87 - 0.85 are not exact in binary
        return "matches"
    lo = np.nan if low is None else float(low)
    hi = np.nan if high is None else float(high)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "differs"
    return "inside our interval" if lo <= p <= hi else "outside our interval"


#: A verdict of :func:`agreement` as the end of a sentence whose subject is the printed value.
AGREEMENT_PHRASES = {
    "matches": "matches ours within the rounding tolerance",
    "inside our interval": "lies inside our 95 % interval but does not match",
    "outside our interval": "lies outside our 95 % interval",
    "differs": "differs from ours (no interval to judge by)",
    "not computable": "has nothing to compare with here",
    "no printed value": "was not printed",
}


def printed_tolerance(printed: str | float) -> float:
    """Half a unit in the last printed decimal place: what rounding alone can explain.

    ``"9.3"`` -> 0.05, ``"8"`` -> 0.5, ``"2.95"`` -> 0.005. A float is read through ``repr`` (so ``8.0``
    counts one decimal); pass the printed text where it is known.
    """
    text = str(printed).strip()
    decimals = len(text.split(".", 1)[1]) if "." in text else 0
    return 0.5 * 10.0**-decimals


def _names(labels: Sequence[str]) -> str:
    labels = list(labels)
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def agreement_sentence(
    table: pd.DataFrame, label_col: str, verdict_col: str = "verdict", what: str = "values", max_names: int = 6
) -> str:
    """One sentence counting the verdicts of :func:`agreement` in ``table`` and naming the rows of each.

    Verdicts are listed in a fixed order (matches, inside, outside, differs, not computable, no printed
    value); a verdict no row has is left out. At most ``max_names`` rows are named per verdict; when every
    row has the same verdict, none is named ("All 16 ... match ...").
    """
    order = [  # verdict, (verb for one row, verb for several)
        ("matches", ("matches", "match"), "within the rounding tolerance"),
        ("inside our interval", ("lies", "lie"), "inside our 95 % interval without matching"),
        ("outside our interval", ("lies", "lie"), "outside our 95 % interval"),
        ("differs", ("differs", "differ"), "with no interval to judge by"),
        ("not computable", ("cannot", "cannot"), "be computed from the data"),
        ("no printed value", ("has", "have"), "no printed number to compare"),
    ]
    n = len(table)
    parts = []
    for verdict, (one, many), rest in order:
        rows = table[table[verdict_col] == verdict]
        k = len(rows)
        if not k:
            continue
        labels = [str(x) for x in rows[label_col]]
        if k == n:
            return (
                f"{'Both' if n == 2 else f'All {n}'} {what} {many} {rest}."
                if n > 1
                else f"The one {what} {one} {rest}."
            )
        shown = labels if k <= max_names else labels[:max_names] + [f"{k - max_names} more"]
        parts.append(f"{k} {one if k == 1 else many} {rest} ({_names(shown)})")
    if not parts:
        return f"No {what} to compare."
    body = parts[0] if len(parts) == 1 else "; ".join(parts[:-1]) + "; and " + parts[-1]
    return f"Of the {n} {what}, {body}."


# ---------------------------------------------------------------------------------------------
# Figure 1 and Table 1: the v1 scores
# ---------------------------------------------------------------------------------------------


def figure1_table(
    paper_scores: pd.DataFrame,
    chart: str = "eqbench_v1_chart_20231211",
    earlier: str = "eqbench_v1_chart_20231203",
    leaderboard: str = "eqbench_v1",
) -> pd.DataFrame:
    """The models on the ``chart`` (best first) with the earlier chart and the leaderboard beside it.

    Columns: ``model, chart, earlier_chart, leaderboard, minus_earlier, minus_leaderboard`` (the chart
    value minus each other value; NaN where the model is not on the other).
    """
    t = paper_scores.loc[paper_scores[chart].notna(), ["model", chart, earlier, leaderboard]]
    t = t.rename(columns={chart: "chart", earlier: "earlier_chart", leaderboard: "leaderboard"}).astype(
        {"chart": float, "earlier_chart": float, "leaderboard": float}
    )
    t["minus_earlier"] = t["chart"] - t["earlier_chart"]
    t["minus_leaderboard"] = t["chart"] - t["leaderboard"]
    return t.sort_values("chart", ascending=False, kind="stable").reset_index(drop=True)


def paper_table1_listing() -> pd.DataFrame:
    """The Papers-with-Code listing of the paper's scores (``data/paper_table1_listing.csv``, 16 rows).

    As the listing prints them: ``listed_name, score``; ``model`` is the row of ``paper_scores.csv`` it
    was matched to (``match_note`` explains a non-identical name); ``source`` names the listing page.
    """
    return pd.read_csv(data_dir() / "paper_table1_listing.csv")


def table1_comparison(listing: pd.DataFrame, paper_scores: pd.DataFrame, tol: float = TOL_SCORE) -> pd.DataFrame:
    """The printed Table 1 scores beside the v1-era leaderboard's (``eqbench_v1``), best first.

    Columns: ``listed_name, model, printed, ours, difference (ours - printed), verdict, source_tag``.
    A listed model with no leaderboard row gets ``ours`` NaN and the verdict "not computable".
    """
    ours = paper_scores.set_index("model")["eqbench_v1"].astype(float)
    t = pd.DataFrame(
        {
            "listed_name": listing["listed_name"],
            "model": listing["model"],
            "printed": listing["score"].astype(float),
            "ours": listing["model"].map(ours),
        }
    )
    t["difference"] = t["ours"] - t["printed"]
    t["verdict"] = [agreement(p, o, tol=tol) for p, o in zip(t["printed"], t["ours"])]
    t["source_tag"] = listing["source"].map(source_tag)
    return t.sort_values("printed", ascending=False, kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------------------------------------
# Figure 2: the example question
# ---------------------------------------------------------------------------------------------


def reference_keys(questions: Mapping[str, Question]) -> pd.DataFrame:
    """The reference answers of one dialogue in several question sets: emotions x keys.

    ``questions`` maps a label to a :class:`Question`; for each, two columns are made: ``"<label>
    normalised"`` (the v1 key, sums to 10) and ``"<label> raw"`` (the 0-10 fullscale key). All questions
    must rate the same four emotions.
    """
    items = list(questions.items())
    emotions = items[0][1].emotions
    cols: dict[str, list[float]] = {}
    for label, q in items:
        if set(q.emotions) != set(emotions):
            raise ValueError(f"{label} rates {q.emotions}, not {emotions}")
        cols[f"{label} normalised"] = [q.reference_normalised[e] for e in emotions]
        cols[f"{label} raw"] = [q.reference[e] for e in emotions]
    return pd.DataFrame(cols, index=pd.Index(list(emotions), name="emotion"))


# ---------------------------------------------------------------------------------------------
# Figure 3: first pass against revised
# ---------------------------------------------------------------------------------------------

GAIN_COLUMNS = [
    "model",
    "run_id",
    "iterations",
    "first_pass",
    "revised",
    "n_first",
    "n_revised",
    "gain",
    "relative_gain_pct",
    "strength",
    "revised_eligible",
    "revised_used",
]


def revision_gains(runs: Iterable[EqBenchRun]) -> pd.DataFrame:
    """First-pass against revised score, one row per run that used revision.

    Per iteration, each pass scores ``10 x`` the mean of its parseable questions (as upstream's
    ``calculate_score`` does for each pass before picking one); a run's values are means over its
    iterations. Columns (:data:`GAIN_COLUMNS`): ``first_pass``, ``revised``; ``n_first``, ``n_revised``
    (parseable answers per iteration); ``gain = revised - first_pass`` (points); ``relative_gain_pct =
    100 gain / first_pass`` (NaN unless first_pass > 0); ``strength = (first_pass + revised) / 2``;
    ``revised_eligible``: the revised pass keeps >= 95 % of the first pass's parseable answers in every
    iteration; ``revised_used``: share of iterations whose official score is the revised pass. Runs with
    no revised answer at all are left out.
    """
    rows = []
    for run in runs:
        per_it = [recs for recs in records_by_iteration(run).values() if recs]
        if not run.revise or not any(r.revised_score is not None for recs in per_it for r in recs):
            continue
        firsts, reviseds, n_f, n_r, eligible, used = [], [], [], [], [], []
        for recs in per_it:
            f = [r.first_pass_score for r in recs if r.first_pass_score is not None]
            v = [r.revised_score for r in recs if r.revised_score is not None]
            firsts.append(10 * statistics.fmean(f) if f else 0.0)
            reviseds.append(10 * statistics.fmean(v) if v else 0.0)
            n_f.append(len(f))
            n_r.append(len(v))
            eligible.append(len(v) >= REVISED_MIN_PARSEABLE_RATIO * len(f))
            used.append(official_iteration_score(recs)[2])
        first, revised = statistics.fmean(firsts), statistics.fmean(reviseds)
        gain = revised - first
        rows.append(
            (
                run.model,
                run.run_id,
                len(per_it),
                first,
                revised,
                statistics.fmean(n_f),
                statistics.fmean(n_r),
                gain,
                100.0 * gain / first if first > 0 else np.nan,
                (first + revised) / 2.0,
                all(eligible),
                statistics.fmean(used),
            )
        )
    return pd.DataFrame(rows, columns=GAIN_COLUMNS)


REVISION_STATISTICS = {
    "mean_relative_gain_pct": "mean over runs of 100 (revised - first) / first, %",
    "mean_gain_points": "mean over runs of revised - first, points",
    "pooled_relative_gain_pct": "100 (mean revised / mean first - 1), %",
    "share_improved_pct": "runs whose revised score is above the first pass, %",
    "share_revised_used_pct": "iterations the official rule scores with the revised pass, %",
}


def revision_summary(
    gains: pd.DataFrame, reps: int = S.DEFAULT_REPS, level: float = S.DEFAULT_LEVEL, seed: int | None = 0
) -> pd.DataFrame:
    """The statistics of :data:`REVISION_STATISTICS` over the runs of :func:`revision_gains`, each with
    a percentile bootstrap interval in which the runs are resampled; the share of runs improved, a proportion,
    with Wilson's score interval instead (:func:`~eqbench_nb.analysis.stats.wilson_interval`).

    Columns: ``statistic, description, value, low, high, n`` (n = runs). A run whose relative gain is
    undefined (first pass <= 0) is left out of the relative mean only.
    """
    first = gains["first_pass"].to_numpy(float)
    revised = gains["revised"].to_numpy(float)
    gain = revised - first
    rel = gains["relative_gain_pct"].to_numpy(float)
    used = gains["revised_used"].to_numpy(float)
    n = len(gains)
    if n == 0:
        raise ValueError("no runs with revision")

    def stat(idx: np.ndarray) -> np.ndarray:
        r = rel[idx]
        with np.errstate(invalid="ignore", divide="ignore"):
            rel_mean = np.where(np.isfinite(r), r, 0).sum(-1) / np.isfinite(r).sum(-1)
        return np.stack(
            [
                rel_mean,
                gain[idx].mean(-1),
                100.0 * (revised[idx].mean(-1) / first[idx].mean(-1) - 1.0),
                100.0 * (gain[idx] > 0).mean(-1),
                100.0 * used[idx].mean(-1),
            ],
            axis=-1,
        )

    point = stat(np.arange(n)[None, :])[0]
    boot = stat(S.bootstrap_indices(n, reps, seed))
    lo, hi = S.percentile_interval(boot, level)
    # The share of runs improved is a proportion (k of n): Wilson's interval, which covers near its level for a
    # small k, where the percentile bootstrap of 5 of 62 is too narrow and unbalanced (issue 38).
    share = list(REVISION_STATISTICS).index("share_improved_pct")
    w_lo, w_hi = S.wilson_interval(int((gain > 0).sum()), n, level)
    lo[share], hi[share] = 100.0 * w_lo, 100.0 * w_hi
    return pd.DataFrame(
        {
            "statistic": list(REVISION_STATISTICS),
            "description": list(REVISION_STATISTICS.values()),
            "value": point,
            "low": lo,
            "high": hi,
            "n": n,
        }
    )


#: Which statistic of :func:`revision_summary` a revision claim of ``paper_claims.csv`` states, found by a
#: pattern on its ``claim`` text, and the sign that turns the printed number into a change (``"lower ... by
#: 2.95"`` is a change of -2.95).
REVISION_CLAIM_STATISTICS: tuple[tuple[str, str, int], ...] = (
    (r"improves scores on average", "mean_relative_gain_pct", +1),
    (r"only this share of the time", "share_improved_pct", +1),
    (r"lower than the first-pass score by", "mean_relative_gain_pct", -1),
)


def paper_figure3_claims() -> pd.DataFrame:
    """The paper's qualitative Figure 3 claims (``data/paper_figure3_claims.csv``; secondary sources)."""
    return pd.read_csv(data_dir() / "paper_figure3_claims.csv")


def revision_claims_comparison(claims: pd.DataFrame, summary: pd.DataFrame) -> pd.DataFrame:
    """The revision claims with a number (``paper_claims.csv``) beside the statistic of :func:`revision_summary`
    that tests them, with the verdict of :func:`agreement` at the printed precision (:func:`printed_tolerance`).

    Columns: ``scope, claim, printed (as a signed change or share, %), source_tag, statistic, ours, low,
    high, n, difference, verdict``. A claim matching no pattern of :data:`REVISION_CLAIM_STATISTICS` is
    left out.
    """
    by_stat = summary.set_index("statistic")
    rows = []
    for _, c in claims.iterrows():
        if pd.isna(c["value"]):
            continue
        match = [(st, sign) for pat, st, sign in REVISION_CLAIM_STATISTICS if re.search(pat, str(c["claim"]))]
        if not match:
            continue
        statistic, sign = match[0]
        printed = sign * float(c["value"])
        ours = by_stat.loc[statistic]
        rows.append(
            {
                "scope": c["scope"],
                "claim": c["claim"],
                "printed": printed,
                "source_tag": source_tag(c["source"]),
                "statistic": statistic,
                "ours": float(ours["value"]),
                "low": float(ours["low"]),
                "high": float(ours["high"]),
                "n": int(ours["n"]),
                "difference": float(ours["value"]) - printed,
                "verdict": agreement(printed, ours["value"], ours["low"], ours["high"], printed_tolerance(c["value"])),
            }
        )
    return pd.DataFrame(rows)


def worse_after_revision(gains: pd.DataFrame) -> dict[str, float]:
    """How many runs score lower after revision, and how strong they are beside those that gain.

    Keys: ``n_runs``, ``n_worse`` (gain < 0), ``n_better`` (gain > 0), ``median_strength_worse``,
    ``median_strength_better`` (NaN when a group is empty), ``share_worse_in_top_half``: of the runs that
    lose, the share whose strength is above the median strength of all runs.
    """
    worse, better = gains[gains["gain"] < 0], gains[gains["gain"] > 0]
    med = float(gains["strength"].median())
    return {
        "n_runs": len(gains),
        "n_worse": len(worse),
        "n_better": len(better),
        "median_strength_worse": float(worse["strength"].median()) if len(worse) else float("nan"),
        "median_strength_better": float(better["strength"].median()) if len(better) else float("nan"),
        "share_worse_in_top_half": float((worse["strength"] > med).mean()) if len(worse) else float("nan"),
    }


def worse_verdict(worse: Mapping[str, float]) -> str:
    """What :func:`worse_after_revision` says about "some models get worse, a few of the strongest".

    "no run scores worse"; "most runs score worse" when more than half do; otherwise "a few runs score
    worse, and they are stronger than those that gain" (or "not stronger"), by their median strengths.
    """
    if worse["n_worse"] == 0:
        return "no run scores worse"
    if worse["n_worse"] > worse["n_runs"] / 2:
        return "most runs score worse"
    stronger = worse["median_strength_worse"] > worse["median_strength_better"]
    return f"a few runs score worse, and they are {'' if stronger else 'not '}stronger than those that gain"


#: A verdict of :func:`trend_verdict` as what it says of the claim "weaker models gain more".
TREND_PHRASES = {
    "weaker models gain more": "supported (the interval lies below 0)",
    "stronger models gain more": "contradicted (the interval lies above 0: stronger models gain more)",
    "no trend beyond noise": "not shown (the interval includes 0)",
    "not computable": "not computable",
}


def trend_verdict(low: float, high: float) -> str:
    """The "weaker models gain more" verdict from a correlation's interval (module docstring)."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return "not computable"
    if high < 0:
        return "weaker models gain more"
    if low > 0:
        return "stronger models gain more"
    return "no trend beyond noise"


def gain_strength_correlations(
    gains: pd.DataFrame, reps: int = S.DEFAULT_REPS, level: float = S.DEFAULT_LEVEL, seed: int | None = 0
) -> pd.DataFrame:
    """Spearman ρ between a run's strength and its revision gain, with bootstrap intervals over runs.

    Four rows: gain in points or in %, against strength = mean of the two passes (the unbiased choice,
    module docstring) or the first pass alone. Columns: ``gain, strength, rho, low, high, n, verdict``
    (:func:`trend_verdict`).
    """
    rows = []
    for gain_col, gain_name in (("gain", "points"), ("relative_gain_pct", "%")):
        for strength_col, strength_name in (("strength", "mean of both passes"), ("first_pass", "first pass")):
            ci = S.bootstrap_corr_ci(gains[strength_col], gains[gain_col], "spearman", reps, level, seed)
            rows.append((gain_name, strength_name, ci.estimate, ci.low, ci.high, ci.n, trend_verdict(ci.low, ci.high)))
    return pd.DataFrame(rows, columns=["gain", "strength", "rho", "low", "high", "n", "verdict"])


# ---------------------------------------------------------------------------------------------
# Table 2: distribution statistics (SECEU cannot be rebuilt)
# ---------------------------------------------------------------------------------------------


def minmax_rescale(values) -> np.ndarray:
    """Finite values mapped linearly onto 0-100 (lowest -> 0, highest -> 100); NaN stays NaN."""
    v = np.asarray(values, float)
    lo, hi = np.nanmin(v), np.nanmax(v)
    if not hi > lo:
        raise ValueError("need at least two different values to rescale")
    return 100.0 * (v - lo) / (hi - lo)


DISTRIBUTION_STATISTICS = ("n", "mean", "sd", "min", "q1", "median", "q3", "max", "iqr", "skewness")


def _distribution(v: np.ndarray) -> np.ndarray:
    """The statistics of :data:`DISTRIBUTION_STATISTICS` of each row of ``v`` (finite values only)."""
    q1, med, q3 = np.quantile(v, [0.25, 0.5, 0.75], axis=-1)
    n = v.shape[-1]
    return np.stack(
        [
            np.full(v.shape[:-1], float(n)),
            v.mean(-1),
            v.std(-1, ddof=1),
            v.min(-1),
            q1,
            med,
            q3,
            v.max(-1),
            q3 - q1,
            _sps.skew(v, axis=-1, bias=False),
        ],
        axis=-1,
    )


def distribution_stats(
    values, reps: int = S.DEFAULT_REPS, level: float = S.DEFAULT_LEVEL, seed: int | None = 0
) -> pd.DataFrame:
    """Summary statistics of a score distribution over models, with bootstrap intervals over models.

    Columns: ``statistic, value, low, high``; rows :data:`DISTRIBUTION_STATISTICS` (quartiles by
    linear interpolation, ``sd`` with n - 1, ``skewness`` the adjusted Fisher-Pearson coefficient).
    ``n``, ``min`` and ``max`` get no interval (a resample cannot say more about them).
    """
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if len(v) < 3:
        raise ValueError("need at least 3 finite values")
    point = _distribution(v[None, :])[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = _distribution(v[S.bootstrap_indices(len(v), reps, seed)])
    lo, hi = S.percentile_interval(boot, level)
    no_interval = np.isin(np.array(DISTRIBUTION_STATISTICS), ["n", "min", "max"])
    return pd.DataFrame(
        {
            "statistic": list(DISTRIBUTION_STATISTICS),
            "value": point,
            "low": np.where(no_interval, np.nan, lo),
            "high": np.where(no_interval, np.nan, hi),
        }
    )


def table2_substitute(
    scores, reps: int = S.DEFAULT_REPS, level: float = S.DEFAULT_LEVEL, seed: int | None = 0
) -> pd.DataFrame:
    """Table 2's EQ-Bench half only: the distribution of ``scores`` on its own scale and min-max rescaled.

    The paper set SECEU beside EQ-Bench, both rescaled to 0-100; no SECEU scores exist in this project,
    so the ``seceu`` column says so. Columns: ``statistic, seceu, native, native_low, native_high,
    minmax, minmax_low, minmax_high``.
    """
    native = distribution_stats(scores, reps, level, seed)
    minmax = distribution_stats(minmax_rescale(scores), reps, level, seed)
    return pd.DataFrame(
        {
            "statistic": native["statistic"],
            "seceu": "not available",
            "native": native["value"],
            "native_low": native["low"],
            "native_high": native["high"],
            "minmax": minmax["value"],
            "minmax_low": minmax["low"],
            "minmax_high": minmax["high"],
        }
    )


# ---------------------------------------------------------------------------------------------
# Table 3: the correlations
# ---------------------------------------------------------------------------------------------


def correlation_matrix(df: pd.DataFrame, columns: Mapping[str, str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pearson r and n of every pair of columns, each over the rows where both are finite.

    ``columns`` maps a label to a column of ``df``; both results are labelled by it. The diagonal is r = 1
    and n = the column's finite count; a pair with fewer than 3 common rows gets r NaN.
    """
    labels = list(columns)
    data = {lab: df[col].to_numpy(float) for lab, col in columns.items()}
    r = pd.DataFrame(np.nan, index=labels, columns=labels)
    n = pd.DataFrame(0, index=labels, columns=labels)
    for i, a in enumerate(labels):
        for b in labels[i:]:
            ok = np.isfinite(data[a]) & np.isfinite(data[b])
            k = int(ok.sum())
            val = 1.0 if a == b and k else (S.pearson_r(data[a][ok], data[b][ok]) if k >= 3 else np.nan)
            r.loc[a, b] = r.loc[b, a] = val
            n.loc[a, b] = n.loc[b, a] = k
    return r, n


def table3_comparison(
    paper_scores: pd.DataFrame,
    paper_correlations: pd.DataFrame,
    columns: Mapping[str, Sequence[tuple[str, str]]] = TABLE3_COLUMNS,
    x: str = "eqbench_v1",
    reps: int = S.DEFAULT_REPS,
    level: float = S.DEFAULT_LEVEL,
    seed: int | None = 0,
    tol: float = TOL_R,
    *,
    lineages: object = None,
) -> pd.DataFrame:
    """The v1 correlations the paper printed beside the same correlations regenerated from ``paper_scores``.

    The models' **lineages** are the sampled units (``lineages``: a map model → lineage,
    :func:`~eqbench_nb.eqbench.study.published.lineage_map`; refused without one, :func:`~eqbench_nb.analysis.stats.
    lineage_units`): the interval is :func:`~eqbench_nb.analysis.stats.cluster_corr_ci` (Fisher z with n = lineages
    below 30 lineages), ``n_lineages`` counts them.

    One row per v1 row of ``paper_correlations`` and per column :data:`TABLE3_COLUMNS` maps it to (one row with NaN when
    it maps to none). Our r is Pearson (the paper's type of r is not stated; Pearson is the usual reading). Its interval
    ``[low, high]`` is **Fisher's z** (:func:`~eqbench_nb.analysis.stats.fisher_z_ci`): at n = 5 to 40 with r near 1 a
    percentile bootstrap is too narrow (a resample of few models that all lie near a line gives r near 1 again), while
    Fisher z keeps its coverage for bivariate normal data. The BCa bootstrap interval over models (``bca_low``,
    ``bca_high``) is shown beside it as a check; the verdict follows the Fisher z interval. Spearman ρ is given beside
    r. Columns:
    ``benchmark, printed, source_tag, data, r, low, high, bca_low, bca_high, n, spearman, difference
    (r - printed), verdict`` (:func:`agreement` with ``tol``).
    """
    pc = paper_correlations[paper_correlations["eqbench_version"].astype(str).str.startswith("v1")]
    models = paper_scores.get("model", paper_scores.index).to_numpy(object)
    S.lineage_units([], lineages, "table3_comparison")  # no map: refused before any work
    rows = []
    for _, row in pc.iterrows():
        printed = float(row["r"]) if pd.notna(row["r"]) else np.nan
        tag = source_tag(row["source"])
        targets: list[tuple[str, str | None]] = list(columns.get(str(row["benchmark"]), ()))
        targets = targets or [(f"no {row['benchmark']} scores", None)]
        for label, col in targets:
            if col is None:
                r = lo = hi = blo = bhi = sp = np.nan
                n = k = 0
            else:
                xs, ys = paper_scores[x].to_numpy(float), paper_scores[col].to_numpy(float)
                bca = S.bootstrap_corr_bca(xs, ys, "pearson", reps, level, seed)
                r, n, blo, bhi, sp = bca.estimate, bca.n, bca.low, bca.high, S.spearman_r(xs, ys)
                keep = np.isfinite(xs) & np.isfinite(ys)  # only the models a correlation uses need a lineage
                units = S.lineage_units(models[keep], lineages, "table3_comparison")
                clustered = S.cluster_corr_ci(xs[keep], ys[keep], units, "pearson", reps, level, seed)
                lo, hi, k = clustered.low, clustered.high, len(set(units))
            rows.append(
                {
                    "benchmark": row["benchmark"],
                    "printed": printed,
                    "source_tag": tag,
                    "data": label,
                    "r": r,
                    "low": lo,
                    "high": hi,
                    "bca_low": blo,
                    "bca_high": bhi,
                    "n": n,
                    "n_lineages": k,
                    "spearman": sp,
                    "difference": r - printed,
                    "verdict": agreement(printed, r, lo, hi, tol),
                }
            )
    return pd.DataFrame(rows)
