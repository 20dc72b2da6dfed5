"""Judgemark v1: a judge's statistics from its scores of the 19 writer models, under each named formula.

A judge scores the test set's 360 pieces (19 writers × 19 prompts, one missing); each writer's score is
:func:`eqbench_nb.judged.creative_writing.writer_score` of its pieces. From those per-writer scores upstream derives
(``calculate_metrics``) the mean, range, sample SD, CV (SD / mean), the SD of the top 5 writers, and Pearson and
Kendall (tau-b) correlations with reference benchmarks per writer (Arena Elo, EQ-Bench, MAGI), each over the writers
that have the reference (``dropna``), matched on the name after the last ``/``. Three versions of the formula are
named here (:data:`VERSIONS`), as the protocols name theirs:

- ``"d28c60c"`` (EQ-bench/EQ-Bench ``lib/run_bench.py``, the pinned pipeline): references Arena, EQ-Bench and MAGI
  from that commit; Judgemark = 100 × mean of range/60, SD/10, top-5 SD/2, CV/0.4, mean Kendall and mean Pearson,
  each clipped to [0, 1].
- ``"31bd53b"`` (C-4-5-3/EQ-Bench ``lib/judgemark.py``, "judgemark updates"): references Arena and EQ-Bench from
  that file (later Elo values); correlations also over the top 8 writers by this judge's score; Judgemark = 100 ×
  mean of mean Kendall (4 values), mean Pearson (4), SD/15.
- ``"38a29f8"`` (same file, "Judgemark update"): as ``31bd53b`` plus the ANOVA F of the per-item scores, F/28:
  Judgemark = 100 × mean of mean Kendall, mean Pearson, SD/15 and F/28. The published board (eqbench.com
  ``judgemark.js``) comes from this version. The F needs per-item scores: pass it (``anova_f``) or the items.

Undefined stays undefined: a judge that gives every writer the same score has NaN correlations (no order to
correlate), so its Judgemark is NaN under every version, printed "undefined" by :func:`fmt`, never as a number.
Upstream's ``None`` (fewer than two writers with a reference) is NaN here too.

Self and family bias (``31bd53b`` on, :func:`self_and_family_bias`): the judge's score of each writer is fitted by a
quadratic in the mean score the other judges of a fixed panel (upstream's table of 8 judges, one ignored) gave that
writer; self bias is the judge's score of itself minus the fit's prediction, family bias the mean of that residual
over the writers of its family (upstream's 9-model family map).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy import stats as sps

from ..analysis.stats import pearson_r, t_mean_ci
from ..paths import tables_dir

VERSIONS: tuple[str, ...] = ("d28c60c", "31bd53b", "38a29f8")
#: The version that reproduces the published board.
BOARD_VERSION = "38a29f8"
REFERENCES_TABLE = "judgemark_v1_references.csv"
PANEL_TABLE = "judgemark_v1_self_bias_panel.csv"
#: Which commit's reference numbers each version correlates with (31bd53b's equal 38a29f8's).
REFERENCE_SET = {"d28c60c": "d28c60c", "31bd53b": "38a29f8", "38a29f8": "38a29f8"}
REFERENCE_BENCHMARKS = {
    "d28c60c": ("arena_elo", "eq_bench", "magi"),
    "31bd53b": ("arena_elo", "eq_bench"),
    "38a29f8": ("arena_elo", "eq_bench"),
}
TOP_N = 8
TOP_SPREAD_N = 5

#: Upstream's family map (``model_families`` at 31bd53b/38a29f8): only these writers have a family.
MODEL_FAMILIES: dict[str, str] = {
    "mistralai/Mixtral-8x7B-Instruct-v0.1": "Mistral",
    "mistral-small": "Mistral",
    "mistral-medium": "Mistral",
    "mistral-large-2402": "Mistral",
    "gpt-4-0125-preview": "OpenAI",
    "gpt-3.5-turbo-0301": "OpenAI",
    "claude-3-opus-20240229": "Anthropic",
    "claude-3-sonnet-20240229": "Anthropic",
    "claude-3-haiku-20240307": "Anthropic",
}
#: Judges upstream leaves out of the bias panel (and never computes a bias for).
BIAS_IGNORED: tuple[str, ...] = ("gpt-3.5-turbo-0125",)


def _check_version(version: str) -> None:
    if version not in VERSIONS:
        raise ValueError(f"unknown Judgemark version {version!r}; choose from {', '.join(VERSIONS)}")


def fmt(value: float | None, digits: int = 2) -> str:
    """A statistic as printed: rounded, or "undefined" for NaN/None (never a number that was not computed)."""
    if value is None or not math.isfinite(value):
        return "undefined"
    return f"{value:.{digits}f}"


@lru_cache(maxsize=1)
def _references_table() -> pd.DataFrame:
    return pd.read_csv(tables_dir() / REFERENCES_TABLE, dtype={"references": str})


def references(version: str) -> pd.DataFrame:
    """The reference benchmarks a version correlates with, one row per model (short name), NaN where missing."""
    _check_version(version)
    return _references(REFERENCE_SET[version]).copy()


@lru_cache(maxsize=4)
def _references(reference_set: str) -> pd.DataFrame:
    """A reference set's table, built once: a board of 270 judges asks for it 810 times (never modified here)."""
    t = _references_table()
    t = t[t["references"] == reference_set]
    return t.set_index("model")[["arena_elo", "eq_bench", "magi"]].astype(float)


def short_name(writer: str) -> str:
    """The name upstream matches references on: after the last ``/``."""
    return writer.split("/")[-1]


def normalize(value: float, low: float, high: float) -> float:
    """Upstream's ``normalize_score``: 0 at or below ``low``, 1 at or above ``high``, linear between; NaN stays NaN."""
    if value is None or not math.isfinite(value):
        return math.nan
    if value >= high:
        return 1.0
    if value <= low:
        return 0.0
    return (value - low) / (high - low)


#: Up to this many pairs :func:`kendall_tau` counts every pair of pairs itself (n² signs, exact integers); above it,
#: scipy's O(n log n) count. Both give the same integers, so the same tau to the bit.
PAIRWISE_KENDALL_MAX = 200


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b of the finite pairs (scipy's default, as upstream); NaN for a constant side or < 2 pairs."""
    xa, ya = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(xa) & np.isfinite(ya)
    if ok.sum() < 2:
        return math.nan
    if ok.sum() <= PAIRWISE_KENDALL_MAX:
        return _pairwise_tau_b(xa[ok], ya[ok])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on a constant input and returns NaN, which is what we want
        return float(sps.kendalltau(xa[ok], ya[ok]).statistic)


def _pairwise_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """scipy's tau-b from the same exact integers (concordant minus discordant, ties in x, ties in y) by the same
    float steps: scipy's p-value, which nothing here reads, was most of a board's time (810 taus a 270-judge file)."""
    upper = np.triu_indices(len(x), k=1)
    sx, sy = np.sign(np.subtract.outer(x, x))[upper], np.sign(np.subtract.outer(y, y))[upper]
    con_minus_dis = int((sx * sy).sum())
    tot = len(sx)
    xtie, ytie = int((sx == 0).sum()), int((sy == 0).sum())
    if xtie == tot or ytie == tot:
        return math.nan
    tau = con_minus_dis / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    return float(np.minimum(1.0, max(-1.0, tau)))


def _frame(writer_scores: Mapping[str, float], version: str) -> pd.DataFrame:
    """Writers in the judge's order with its score and the references (upstream's left merge on the short name)."""
    models = [short_name(w) for w in writer_scores]
    refs = _references(REFERENCE_SET[version]).reindex(models)  # a left merge on a unique key, without merge's cost
    scores = np.asarray(list(writer_scores.values()), float)
    return pd.DataFrame({"model": models, "judgemark": scores, **{c: refs[c].to_numpy() for c in refs.columns}})


def _largest(df: pd.DataFrame, n: int) -> pd.DataFrame:
    """``df.nlargest(n, "judgemark")`` (ties keep the first, rows in its order) by one stable sort where every score
    is finite; pandas' own (NaN last) otherwise."""
    scores = df["judgemark"].to_numpy()
    if not np.isfinite(scores).all():
        return df.nlargest(n, "judgemark")
    return df.iloc[np.argsort(-scores, kind="stable")[:n]]


def _correlations(df: pd.DataFrame, benchmarks: Sequence[str], tag: str = "") -> dict[str, float]:
    out = {}
    for b in benchmarks:
        out[f"pearson_{tag}{b}"] = pearson_r(df["judgemark"], df[b])
        out[f"kendall_{tag}{b}"] = kendall_tau(df["judgemark"], df[b])
    return out


def statistics(
    writer_scores: Mapping[str, float], version: str = BOARD_VERSION, anova_f: float | None = None
) -> dict[str, float]:
    """Every statistic upstream prints for a judge under ``version``, and ``Judgemark``, from its writer scores.

    ``writer_scores`` maps the test set's writer names (in the judge's order: ties in the top 5 / top 8 keep the
    first, as pandas' ``nlargest``) to the judge's score of each. ``anova_f`` is required by ``38a29f8`` (its
    ``Judgemark`` is NaN without it); compute it with :func:`anova_f` from per-item scores, or take it as published.
    """
    _check_version(version)
    df = _frame(writer_scores, version)
    s = df["judgemark"]
    sd = float(s.std())  # pandas: ddof=1
    out: dict[str, float] = {
        "mean_score": float(s.mean()),
        "range": float(s.max() - s.min()),
        "std_dev": sd,
        "CV": sd / float(s.mean()) if float(s.mean()) != 0 else math.nan,
        "std_dev_top_5": float(_largest(df, TOP_SPREAD_N)["judgemark"].std()),
    }
    bench = REFERENCE_BENCHMARKS[version]
    out.update(_correlations(df, bench))
    if version != "d28c60c":
        out.update(_correlations(_largest(df, TOP_N), bench, f"top_{TOP_N}_"))
    kendalls = [v for k, v in out.items() if k.startswith("kendall_")]
    pearsons = [v for k, v in out.items() if k.startswith("pearson_")]
    avg_k, avg_p = float(np.mean(kendalls)), float(np.mean(pearsons))  # NaN if any is NaN, as upstream's sum
    out["avg_kendalls"], out["avg_pearsons"] = avg_k, avg_p  # what the score's correlation parts are made of
    parts = [normalize(avg_k, 0, 1), normalize(avg_p, 0, 1)]
    if version == "d28c60c":
        parts += [
            normalize(out["range"], 0, 60),
            normalize(sd, 0, 10),
            normalize(out["std_dev_top_5"], 0, 2),
            normalize(out["CV"], 0, 0.4),
        ]
    else:
        parts.append(normalize(sd, 0, 15))
        if version == "38a29f8":
            out["anova_f"] = math.nan if anova_f is None else float(anova_f)
            parts.append(normalize(out["anova_f"], 0, 28))
    out["Judgemark"] = 100.0 * float(np.mean(parts))
    return out


def judgemark(writer_scores: Mapping[str, float], version: str = BOARD_VERSION, anova_f: float | None = None) -> float:
    """The Judgemark score alone (NaN when undefined)."""
    return statistics(writer_scores, version, anova_f)["Judgemark"]


# ---------------------------------------------------------------------------------------------------------------
# per-item statistics (need the judge's score of every piece: never published)
# ---------------------------------------------------------------------------------------------------------------


def anova_f(item_scores_by_writer: Mapping[str, Sequence[float]]) -> tuple[float, float]:
    """One-way ANOVA (F, p) across writers of their per-item scores, as ``38a29f8``: every writer's list is first
    cut to the shortest list's length (the writer with 18 pieces cuts everyone's last piece)."""
    lists = [list(v) for v in item_scores_by_writer.values()]
    if len(lists) < 2:
        return math.nan, math.nan
    n = min(len(v) for v in lists)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant groups: F is NaN (or inf), which the caller prints as undefined
        res = sps.f_oneway(*[np.asarray(v[:n], float) for v in lists])
    return float(res.statistic), float(res.pvalue)


def average_ci_width(item_scores_by_writer: Mapping[str, Sequence[float]], level: float = 0.95) -> float:
    """``38a29f8``'s "Avg 95% CI": the mean over writers of the width of the t interval of the mean item score.

    As upstream's ``scipy.stats.t.interval(..., scale=sem)``, a writer whose items are all equal (SEM 0) or who has
    fewer than 2 items has no interval (NaN), and then neither has the average."""
    widths = []
    for v in item_scores_by_writer.values():
        a = np.asarray(v, float)
        ci = t_mean_ci(a, level=level)
        widths.append(ci.high - ci.low if len(a) > 1 and float(a.std()) > 0 else math.nan)
    return float(np.mean(widths)) if widths else math.nan


def separation(
    writer_scores: Mapping[str, float], item_scores_by_writer: Mapping[str, Sequence[float]]
) -> tuple[float, float]:
    """``38a29f8``'s ``calculate_separation_metric``, which it prints and leaves out of the score: (overlapping
    range, non-overlapping range) of the writers' t intervals of their item scores, taken in the order of their
    scores (NumPy's default ``argsort``, as upstream), each neighbour pair adding its overlap or its gap. A writer
    without items gets upstream's placeholder interval (0, 0); one whose items are all equal has no interval (NaN,
    as scipy gives it), and a NaN then stays in the sum that meets it, as upstream's does."""
    models = list(writer_scores)
    order = np.argsort([float(writer_scores[m]) for m in models])
    cis: list[tuple[float, float]] = []
    for i in order:
        items = item_scores_by_writer.get(models[i])
        if items is None:
            cis.append((0.0, 0.0))
            continue
        a = np.asarray(items, float)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            low, high = sps.t.interval(0.95, len(a) - 1, loc=float(np.mean(a)), scale=float(sps.sem(a)))
        cis.append((float(low), float(high)))
    overlapping = non_overlapping = 0.0
    for current, nxt in itertools.pairwise(cis):
        if current[1] > nxt[0]:
            overlapping += min(current[1], nxt[1]) - nxt[0]
        else:
            non_overlapping += nxt[0] - current[1]
    return overlapping, non_overlapping


# ---------------------------------------------------------------------------------------------------------------
# self and family bias
# ---------------------------------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _panel_table() -> pd.DataFrame:
    return pd.read_csv(tables_dir() / PANEL_TABLE)


def bias_panel() -> dict[str, dict[str, float]]:
    """Upstream's fixed panel for the bias fits: ``{judge: {writer: score}}`` (8 judges, writers in table order)."""
    return {judge: dict(scores) for judge, scores in _bias_panel().items()}


@lru_cache(maxsize=1)
def _bias_panel() -> dict[str, dict[str, float]]:
    """The panel, built once (a board's every judge is fitted against it); :func:`bias_fit` copies what it changes."""
    t = _panel_table()
    panel: dict[str, dict[str, float]] = {}
    for judge, writer, score in t[["judge", "writer", "score"]].itertuples(index=False):
        panel.setdefault(str(judge), {})[str(writer)] = float(score)
    return panel


@dataclass(frozen=True)
class BiasFit:
    """A judge's bias fit: self and family bias (NaN where not derivable), the fit's residual SD (n - 3 degrees of
    freedom: the scale a bias can be read against; upstream gives none) and the number of writers fitted."""

    self_bias: float
    family_bias: float
    residual_sd: float
    n_writers: int


def bias_fit(
    judge: str,
    writer_scores: Mapping[str, float],
    panel: Mapping[str, Mapping[str, float]] | None = None,
    families: Mapping[str, str] = MODEL_FAMILIES,
    ignored: Sequence[str] = BIAS_IGNORED,
    degree: int = 2,
) -> BiasFit:
    """Self and family bias of ``judge`` as ``31bd53b``/``38a29f8`` compute them; NaN where not derivable.

    The judge's scores replace (or join) its column of the panel. Over the writers other than the judge and the
    ignored ones, the judge's score is fitted by a degree-2 polynomial (least squares) in the mean score the other
    non-ignored panel judges gave the writer. Self bias: the judge's score of itself minus the fit at the others'
    mean score of it (NaN unless the judge is one of the writers). Family bias: the mean residual over the writers
    in the judge's family (NaN when the family map has no family for the judge). An ignored judge gets neither.
    """
    data = {j: dict(v) for j, v in (panel if panel is not None else _bias_panel()).items()}
    data[judge] = dict(writer_scores)
    if judge in ignored:
        return BiasFit(math.nan, math.nan, math.nan, 0)
    judges = list(data)
    writers = list(data[judges[0]])
    others = [j for j in judges if j != judge and j not in ignored]
    included = [w for w in writers if w not in ignored and w != judge]
    x = np.array([np.mean([data[j][w] for j in others]) for w in included])
    y = np.array([data[judge][w] for w in included])
    coeffs = np.polyfit(x, y, degree)
    residuals = y - np.polyval(coeffs, x)
    self_bias = math.nan
    if judge in writers:
        judge_mean = float(np.mean([data[j][judge] for j in others]))
        self_bias = float(data[judge][judge] - np.polyval(coeffs, judge_mean))
    family = families.get(judge)
    in_family = [float(r) for r, w in zip(residuals, included) if family is not None and families.get(w) == family]
    dof = len(included) - (degree + 1)
    return BiasFit(
        self_bias=self_bias,
        family_bias=float(np.mean(in_family)) if in_family else math.nan,
        residual_sd=float(np.sqrt((residuals**2).sum() / dof)) if dof > 0 else math.nan,
        n_writers=len(included),
    )


def self_and_family_bias(judge: str, writer_scores: Mapping[str, float], **kwargs) -> tuple[float, float]:
    """(self bias, family bias) of :func:`bias_fit`."""
    fit = bias_fit(judge, writer_scores, **kwargs)
    return fit.self_bias, fit.family_bias


#: The project's one family table (its developer, per model name, each row with its source): read by notebook 11
#: (:func:`eqbench_nb.judgemark_v2.published.families`) and here. Name fragments matched "llama" before "deepseek" and
#: put DeepSeek's Llama distillation in Meta (issue 49, Wrong 2): a name is looked up, never guessed.
FAMILY_TABLE = "model_families.csv"


@lru_cache(maxsize=1)
def _family_table() -> dict[str, str]:
    import csv

    from ..paths import tables_dir

    with open(tables_dir() / FAMILY_TABLE, encoding="utf-8", newline="") as fh:
        return {row["model"]: row["family"] for row in csv.DictReader(fh)}


def vendor_family(model: str) -> str:
    """The vendor family (developer) of a judge or writer model, from ``data/model_families.csv``
    (:data:`FAMILY_TABLE`). Coarser than upstream's :data:`MODEL_FAMILIES`, which the bias fits use: this one groups
    judges across boards. A name the table lacks is refused (``ValueError``): add its row, with a source."""
    family = _family_table().get(model)
    if family is None:
        raise ValueError(f"model {model!r} is not in data/{FAMILY_TABLE}: add its family with a source")
    return family
