"""Interval estimates and correlations for the analysis notebooks.

Small pure functions on arrays, in the spirit of google-research/rliable: every function takes
plain numbers (NumPy arrays, or anything ``np.asarray`` accepts), returns plain numbers or a
small pandas table, and draws its random numbers from ``np.random.default_rng(seed)`` so that
the same call always gives the same answer.

Two kinds of resampling are used:

* **over questions** (a run's score is a mean over questions; resample the questions to get the
  interval of that mean). Scores of several models are held as a *score matrix*
  ``(n_models, n_questions)`` with ``NaN`` where a question was left out (the official
  convention leaves unparseable answers out of the mean). Resampling draws the *same*
  questions for every model, so differences between models are paired.
* **over models** (a correlation between two benchmarks is a statistic of the model set;
  resample the models to get the interval of ``r``).

Intervals are at ``level`` (default 95 %).

**Small samples.** Below :data:`SMALL_N` units a percentile bootstrap interval is too narrow: it resamples an
empirical distribution that has not yet shown its tails, and for a correlation near 1 its skew (simulated in
tests/test_stats.py at nominal 0.95: a Pearson r at n = 11 and rho = 0.9 is covered about 0.89 of the time, Fisher's
z about 0.95; the mean of 10 normal values about 0.91, Student's t about 0.96). The interval functions
therefore refuse a percentile bootstrap below that n unless it is asked for by name (``interval="percentile"``,
raising :class:`SmallSampleError` otherwise), and the functions that choose for the caller
(:func:`correlation_summary`, :func:`mean_interval`) use closed forms there: Fisher's z for a Pearson r, the
Bonett–Wright variant for a Spearman rho, Student's t for a mean. This follows Miller (2024, "Adding Error Bars
to Evals", arXiv 2411.00640): standard errors from the central limit theorem with t quantiles for small n,
clustered at the unit that was sampled; rliable (Agarwal et al. 2021) defaults to a stratified percentile
bootstrap but offers BCa, for aggregates over many runs and tasks, which is not the small-n case here.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any


class _ImportedOnFirstUse:
    """Stands for a module in this module's globals until one of its attributes is read; the module is then
    imported and takes its place. Importing this module for a constant (:data:`SMALL_N`) or a declaration that
    names a function (a benchmark's, which the command line's parser imports) costs no numpy, pandas or scipy
    (tests/test_import_cost.py); every function here reads them at call time."""

    def __init__(self, alias: str, module: str) -> None:
        self._alias, self._module = alias, module

    def __getattr__(self, attribute: str) -> Any:
        module = importlib.import_module(self._module)
        globals()[self._alias] = module
        return getattr(module, attribute)


if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from scipy import stats as _sps
else:
    np = _ImportedOnFirstUse("np", "numpy")
    pd = _ImportedOnFirstUse("pd", "pandas")
    _sps = _ImportedOnFirstUse("_sps", "scipy.stats")

DEFAULT_REPS = 2000
DEFAULT_LEVEL = 0.95
#: Below this many resampled units a percentile bootstrap is refused unless asked for by name (see above).
SMALL_N = 30
#: How each interval is described in tables and headlines.
PERCENTILE = "percentile bootstrap"
FISHER = "Fisher z"
T_INTERVAL = "Student t"


class SmallSampleError(ValueError):
    """A percentile bootstrap was asked for (by default, not by name) over fewer than :data:`SMALL_N` units."""


def refuse_small_percentile(n: int, interval: str | None, what: str, instead: str) -> None:
    """Raise :class:`SmallSampleError` when a percentile bootstrap would run by default over ``n`` < :data:`SMALL_N`
    units. ``interval`` is what the caller named (None: nothing named); ``instead`` says what to use."""
    if interval is None and n < SMALL_N:
        raise SmallSampleError(
            f"{what}: a percentile bootstrap over n = {n} < {SMALL_N} units is too narrow; use {instead}, or ask "
            "for it by name (interval='percentile') and say so beside the interval"
        )


# ---------------------------------------------------------------------------------------------
# resampling helpers
# ---------------------------------------------------------------------------------------------


def bootstrap_counts(n: int, reps: int = DEFAULT_REPS, seed: int | None = 0) -> np.ndarray:
    """How often each of ``n`` items is drawn in each of ``reps`` resamples with replacement.

    Returns an integer array of shape ``(reps, n)`` whose rows each sum to ``n``. A weighted mean
    with these counts as weights is the mean of a bootstrap resample.
    """
    if n < 1:
        raise ValueError("need at least one item to resample")
    rng = np.random.default_rng(seed)
    return rng.multinomial(n, np.full(n, 1.0 / n), size=reps)


def bootstrap_indices(n: int, reps: int = DEFAULT_REPS, seed: int | None = 0) -> np.ndarray:
    """Indices of ``reps`` resamples of ``n`` items with replacement, shape ``(reps, n)``."""
    if n < 1:
        raise ValueError("need at least one item to resample")
    return np.random.default_rng(seed).integers(0, n, size=(reps, n))


def percentile_interval(samples, level: float = DEFAULT_LEVEL, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The central ``level`` percentile interval of bootstrap ``samples`` along ``axis`` (NaN-aware): the one
    percentile interval of the package (resamples, null draws, simulated runs), so that every figure computes its
    bounds at the same quantiles. Below :data:`SMALL_N` resampled units, call :func:`refuse_small_percentile` first.

    The quantiles are ``alpha`` and ``1 - alpha`` with ``alpha = (1 - level) / 2`` as computed in floating point
    (0.025000000000000022 at 95 %, not the literal 0.025): every bound the project has published was computed so,
    and changing it would move the last digits of some of them.
    """
    alpha = (1.0 - level) / 2.0
    s = np.asarray(samples, dtype=float)
    q = np.quantile if not np.isnan(s).any() else np.nanquantile  # nanquantile is much slower
    lo, hi = q(s, [alpha, 1.0 - alpha], axis=axis)
    return lo, hi


# ---------------------------------------------------------------------------------------------
# means over questions
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Interval:
    """A point estimate with its interval; ``method`` names how the interval was computed (empty: a percentile
    bootstrap, the default of the resampling functions)."""

    estimate: float
    low: float
    high: float
    n: int
    method: str = ""

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2.0

    def as_tuple(self) -> tuple[float, float]:
        return (self.low, self.high)


def bootstrap_mean_ci(
    values,
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
    scale: float = 1.0,
    interval: str | None = None,
) -> Interval:
    """Percentile bootstrap interval of the mean of ``values`` (NaNs are left out of the mean).

    The NaN positions are resampled too, as the official convention does when it leaves an
    unparseable question out: the interval reflects how many questions count as well as their
    scores. ``scale`` multiplies the result (use 10 to turn EQ-Bench question scores into a run
    score). Below :data:`SMALL_N` values it is refused unless ``interval="percentile"`` is named
    (:func:`mean_interval` chooses Student's t there).
    """
    v = np.asarray(values, dtype=float)
    refuse_small_percentile(len(v), interval, "bootstrap_mean_ci", "t_mean_ci or mean_interval")
    scores = bootstrap_means(v[None, :], reps=reps, seed=seed)[:, 0]
    lo, hi = percentile_interval(scores, level)
    return Interval(
        scale * float(np.nanmean(v)), scale * float(lo), scale * float(hi), int(np.isfinite(v).sum()), PERCENTILE
    )


@functools.lru_cache(maxsize=256)
def t_quantile(level: float, df: float) -> float:
    """Student's t quantile of a two-sided ``level`` interval with ``df`` degrees of freedom (cached: a table of
    many intervals over the same n asks for the same few)."""
    return float(_sps.t.ppf(0.5 + level / 2.0, df))


def t_mean_ci(values, level: float = DEFAULT_LEVEL, scale: float = 1.0) -> Interval:
    """Student's t interval of the mean of the finite ``values`` (mean ± t(n - 1) SD / sqrt(n))."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    n = len(v)
    if n < 2:
        est = float(v.mean()) if n else float("nan")
        return Interval(scale * est, float("nan"), float("nan"), n, T_INTERVAL)
    half = t_quantile(level, n - 1) * float(v.std(ddof=1)) / np.sqrt(n)
    m = float(v.mean())
    return Interval(scale * m, scale * (m - half), scale * (m + half), n, T_INTERVAL)


def wilson_interval(successes: float, n: int, level: float = DEFAULT_LEVEL) -> tuple[float, float]:
    """Wilson's score interval of a proportion ``successes / n`` (a tie counted half is a fractional success):
    it keeps within 0-1 and covers near its level for small n, where a percentile bootstrap is too narrow."""
    if n <= 0:
        return float("nan"), float("nan")
    z = float(_sps.norm.ppf(0.5 + level / 2.0))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(max(0.0, centre - half)), float(min(1.0, centre + half))


def mean_interval(
    values, reps: int = DEFAULT_REPS, level: float = DEFAULT_LEVEL, seed: int | None = 0, scale: float = 1.0
) -> Interval:
    """The mean with the interval its n calls for: Student's t below :data:`SMALL_N` values, a percentile
    bootstrap from there on (:func:`bootstrap_mean_ci`). ``method`` of the result says which."""
    v = np.asarray(values, dtype=float)
    if len(v) < SMALL_N:
        return t_mean_ci(v, level, scale)
    return bootstrap_mean_ci(v, reps, level, seed, scale)


def bootstrap_means(matrix, reps: int = DEFAULT_REPS, seed: int | None = 0) -> np.ndarray:
    """Bootstrap means of every row of a score matrix over its columns (questions).

    ``matrix`` has shape ``(n_models, n_questions)``, NaN where a question is left out. The same
    resampled questions are used for every row (a paired bootstrap). Returns an array of shape
    ``(reps, n_models)``; a resample in which a row has no finite value gives NaN.
    """
    m = np.atleast_2d(np.asarray(matrix, dtype=float))
    finite = np.isfinite(m)
    counts = bootstrap_counts(m.shape[1], reps, seed).astype(float)
    total = counts @ np.where(finite, m, 0.0).T
    n = counts @ finite.T.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / n


def run_score_intervals(
    matrix,
    labels=None,
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
    scale: float = 10.0,
    interval: str | None = None,
) -> pd.DataFrame:
    """Each row's score (``scale`` x mean over questions) with its bootstrap interval over questions.

    Returns a table with columns ``label, score, low, high, half_width, n_questions``, in the
    order of the rows of ``matrix``.
    """
    m = np.atleast_2d(np.asarray(matrix, dtype=float))
    refuse_small_percentile(m.shape[1], interval, "run_score_intervals", "more questions")
    boot = bootstrap_means(m, reps, seed) * scale
    lo, hi = percentile_interval(boot, level)
    est = scale * np.nanmean(m, axis=1)
    labels = list(labels) if labels is not None else list(range(m.shape[0]))
    return pd.DataFrame(
        {
            "label": labels,
            "score": est,
            "low": lo,
            "high": hi,
            "half_width": (hi - lo) / 2.0,
            "n_questions": np.isfinite(m).sum(axis=1),
        }
    )


# ---------------------------------------------------------------------------------------------
# paired differences
# ---------------------------------------------------------------------------------------------


def paired_bootstrap_diff_ci(
    a,
    b,
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
    scale: float = 1.0,
    interval: str | None = None,
) -> Interval:
    """Interval of ``mean(a) - mean(b)`` where ``a`` and ``b`` are scores on the same questions.

    Both means are taken over the same resampled questions (each ignoring its own NaNs), so the
    question-to-question variation the two share cancels out. Refused below :data:`SMALL_N`
    questions unless ``interval="percentile"`` is named.
    """
    refuse_small_percentile(len(np.asarray(a)), interval, "paired_bootstrap_diff_ci", "a paired t interval")
    boot = bootstrap_means(np.vstack([np.asarray(a, float), np.asarray(b, float)]), reps, seed)
    d = scale * (boot[:, 0] - boot[:, 1])
    lo, hi = percentile_interval(d, level)
    est = scale * (np.nanmean(np.asarray(a, float)) - np.nanmean(np.asarray(b, float)))
    n = int((np.isfinite(np.asarray(a, float)) & np.isfinite(np.asarray(b, float))).sum())
    return Interval(float(est), float(lo), float(hi), n, PERCENTILE)


def pairwise_separation(
    matrix, reps: int = DEFAULT_REPS, level: float = DEFAULT_LEVEL, seed: int | None = 0
) -> np.ndarray:
    """Which pairs of rows differ beyond noise: a boolean ``(n_models, n_models)`` matrix.

    Entry ``[i, j]`` is True when the ``level`` paired bootstrap interval of
    ``mean(row i) - mean(row j)`` (same resampled questions for both) excludes 0. The diagonal
    is False. Each pair is a separate test at ``level``: no correction for multiple comparisons.
    """
    return separated_pairs(bootstrap_means(matrix, reps, seed), level)


def separated_pairs(boot: np.ndarray, level: float = DEFAULT_LEVEL) -> np.ndarray:
    """Which columns of bootstrap replicates ``boot`` (reps x k) differ beyond noise: entry ``[i, j]`` is True
    when the ``level`` percentile interval of ``boot[:, i] - boot[:, j]`` excludes 0 (the diagonal False).

    The same decision as :func:`percentile_interval` of every difference, in a fraction of its time: the
    interval's end is linearly interpolated between two order statistics, so counting the differences at or
    below 0 (at or above, for the upper end) decides the sign of all but the pairs whose 0 falls between
    those two; only those are interpolated exactly. (1,000 runs: a few seconds instead of twenty.)"""
    boot = np.asarray(boot, dtype=float)
    reps, k = boot.shape
    sep = np.zeros((k, k), dtype=bool)
    if k < 2:
        return sep
    exact_only = np.isnan(boot).any()  # nanquantile drops NaNs per pair: count nothing, interpolate everything
    below = int(np.floor((1.0 - level) / 2.0 * (reps - 1)))  # the lower end lies between these order statistics
    for i in range(k - 1):
        diff = boot[:, [i]] - boot[:, i + 1 :]
        if exact_only:
            lo, hi = percentile_interval(diff, level)
            s = (lo > 0) | (hi < 0)
        else:
            at_most_0, at_least_0 = (diff <= 0).sum(axis=0), (diff >= 0).sum(axis=0)
            s = (at_most_0 <= below) | (at_least_0 <= below)
            unsure = (at_most_0 == below + 1) | (at_least_0 == below + 1)
            if unsure.any():
                lo, hi = percentile_interval(diff[:, unsure], level)
                s[unsure] = (lo > 0) | (hi < 0)
        sep[i, i + 1 :] = s
        sep[i + 1 :, i] = s
    return sep


def share_pairs_separated(
    matrix, reps: int = DEFAULT_REPS, level: float = DEFAULT_LEVEL, seed: int | None = 0
) -> float:
    """Share of the ``k (k-1) / 2`` model pairs whose paired bootstrap difference excludes 0."""
    sep = pairwise_separation(matrix, reps, level, seed)
    k = sep.shape[0]
    if k < 2:
        return float("nan")
    return float(sep[np.triu_indices(k, 1)].mean())


def adjacent_separation(
    matrix, order=None, reps: int = DEFAULT_REPS, level: float = DEFAULT_LEVEL, seed: int | None = 0
) -> np.ndarray:
    """For rows sorted by ``order`` (default: by mean), whether each neighbour pair is separated.

    Returns a boolean array of length ``n_models - 1``: entry ``i`` compares the rows ranked
    ``i`` and ``i + 1``.
    """
    m = np.atleast_2d(np.asarray(matrix, float))
    order = np.argsort(np.nanmean(m, axis=1)) if order is None else np.asarray(order)
    sep = pairwise_separation(m[order], reps, level, seed)
    return np.array([sep[i, i + 1] for i in range(len(order) - 1)], dtype=bool)


# ---------------------------------------------------------------------------------------------
# correlations over models
# ---------------------------------------------------------------------------------------------


def _paired_finite(x, y) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.shape != y.shape:
        raise ValueError("x and y must have the same length")
    ok = np.isfinite(x) & np.isfinite(y)
    return x[ok], y[ok]


def rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row of ``x`` with the same row of ``y`` (the last axis paired; NaN where either row is
    constant): the one row-wise correlation every resampling uses."""
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (xc * yc).sum(-1) / np.sqrt((xc**2).sum(-1) * (yc**2).sum(-1))


def pearson_r(x, y) -> float:
    """Pearson correlation of the pairs where both ``x`` and ``y`` are finite."""
    x, y = _paired_finite(x, y)
    return float(rowwise_pearson(x, y)) if len(x) > 1 else float("nan")


def spearman_r(x, y) -> float:
    """Spearman rank correlation (average ranks for ties) of the finite pairs."""
    x, y = _paired_finite(x, y)
    return pearson_r(_sps.rankdata(x), _sps.rankdata(y)) if len(x) > 1 else float("nan")


def _corr_resamples(x, y, method: str, reps: int, seed: int | None) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """(finite x, finite y, the correlation, its ``reps`` bootstrap replicates): pairs (models) resampled with
    replacement, ranks recomputed inside every resample for Spearman; a constant resample gives NaN."""
    if method not in ("pearson", "spearman"):
        raise ValueError("method must be 'pearson' or 'spearman'")
    x, y = _paired_finite(x, y)
    if len(x) < 3:
        return x, y, float("nan"), np.full(reps, np.nan)
    idx = bootstrap_indices(len(x), reps, seed)
    bx, by = x[idx], y[idx]
    if method == "spearman":
        bx, by = _sps.rankdata(bx, axis=1), _sps.rankdata(by, axis=1)
    est = pearson_r(x, y) if method == "pearson" else spearman_r(x, y)
    return x, y, est, rowwise_pearson(bx, by)


def bootstrap_corr_ci(
    x,
    y,
    method: str = "pearson",
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
    interval: str | None = None,
) -> Interval:
    """Correlation of the finite ``(x, y)`` pairs with its percentile bootstrap interval.

    Models (pairs) are resampled with replacement. ``method`` is "pearson" or "spearman" (the
    ranks are recomputed inside every resample). Resamples with a constant column give NaN and
    are ignored. Below :data:`SMALL_N` pairs it is refused unless ``interval="percentile"`` is
    named: use :func:`fisher_z_ci` (or :func:`correlation_summary`, which does).
    """
    x, y = _paired_finite(x, y)
    if len(x) >= 3:
        refuse_small_percentile(len(x), interval, "bootstrap_corr_ci", "fisher_z_ci or correlation_summary")
    x, y, est, boot = _corr_resamples(x, y, method, reps, seed)
    if len(x) < 3:
        return Interval(float("nan"), float("nan"), float("nan"), len(x), PERCENTILE)
    lo, hi = percentile_interval(boot, level)
    return Interval(est, float(lo), float(hi), len(x), PERCENTILE)


def fisher_z_ci(r: float, n: int, level: float = DEFAULT_LEVEL, spearman: bool = False) -> tuple[float, float]:
    """Closed-form interval of a Pearson r from Fisher's z transform (normal data assumed).

    With ``spearman`` the standard error of z is Bonett and Wright's (2000) for a Spearman rho,
    ``sqrt((1 + rho² / 2) / (n - 3))``, instead of ``1 / sqrt(n - 3)``.
    """
    if n < 4 or not np.isfinite(r):
        return (float("nan"), float("nan"))
    z = np.arctanh(np.clip(r, -0.999999, 0.999999))
    se = np.sqrt((1.0 + r * r / 2.0) / (n - 3)) if spearman else 1.0 / np.sqrt(n - 3)
    half = _sps.norm.ppf(0.5 + level / 2.0) * se
    return (float(np.tanh(z - half)), float(np.tanh(z + half)))


def correlation_summary(
    x,
    y,
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
    interval: str | None = None,
    clusters=None,
    unit: str = "clusters",
) -> dict:
    """Pearson and Spearman r of the finite pairs, each with an interval, and n.

    ``interval`` None chooses by n: a percentile bootstrap over the pairs from :data:`SMALL_N` on,
    Fisher's z below (Bonett–Wright for Spearman). ``"percentile"`` or ``"fisher"`` asks for one by
    name. ``interval_method`` names the one used.

    With ``clusters`` (a label per pair, e.g. each model's base-model lineage) the clusters are the units:
    :func:`cluster_corr_ci` gives both intervals, ``n_clusters`` counts them and ``unit`` names them.
    """
    if clusters is not None:
        p = cluster_corr_ci(x, y, clusters, "pearson", reps, level, seed)
        s = cluster_corr_ci(x, y, clusters, "spearman", reps, level, seed)
        return {
            "n": p.n,
            "n_clusters": _n_finite_clusters(x, y, clusters),
            "pearson": p.estimate,
            "pearson_low": p.low,
            "pearson_high": p.high,
            "spearman": s.estimate,
            "spearman_low": s.low,
            "spearman_high": s.high,
            "interval_method": p.method.replace("clusters", unit),
        }
    xs, ys = _paired_finite(x, y)
    n = len(xs)
    if interval not in (None, "percentile", "fisher"):
        raise ValueError("interval must be None, 'percentile' or 'fisher'")
    use = interval or ("fisher" if n < SMALL_N else "percentile")
    if use == "fisher":
        pr, sr = (pearson_r(xs, ys), spearman_r(xs, ys)) if n > 1 else (float("nan"), float("nan"))
        plo, phi = fisher_z_ci(pr, n, level)
        slo, shi = fisher_z_ci(sr, n, level, spearman=True)
        p, s = Interval(pr, plo, phi, n, FISHER), Interval(sr, slo, shi, n, FISHER)
    else:
        p = bootstrap_corr_ci(xs, ys, "pearson", reps, level, seed, interval="percentile")
        s = bootstrap_corr_ci(xs, ys, "spearman", reps, level, seed, interval="percentile")
    return {
        "n": p.n,
        "pearson": p.estimate,
        "pearson_low": p.low,
        "pearson_high": p.high,
        "spearman": s.estimate,
        "spearman_low": s.low,
        "spearman_high": s.high,
        "interval_method": interval_method_text(use, reps, "models"),
    }


def interval_method_text(use: str, reps: int = DEFAULT_REPS, unit: str = "models") -> str:
    """How a correlation interval was computed, as a table or headline states it."""
    if use == "fisher":
        return "Fisher z (Bonett–Wright for Spearman)"
    return f"{PERCENTILE} over {unit}, {reps:,} resamples"


def correlation_table(
    df: pd.DataFrame,
    pairs,
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
    interval: str | None = None,
    cluster: str | None = None,
    unit: str = "clusters",
) -> pd.DataFrame:
    """:func:`correlation_summary` for several column pairs of ``df``.

    ``pairs`` is an iterable of ``(label, x_column, y_column)`` or ``(label, x_column, y_column,
    row_mask)``; the mask (boolean Series aligned with ``df``) picks a subset of models.
    Returns one row per pair with ``label, x, y`` and the summary columns (``interval_method`` says,
    row by row, whether the interval is a bootstrap or Fisher's z: that depends on each row's n).
    ``cluster`` names a column of ``df`` whose labels are the resampled units (``unit`` names them,
    e.g. "lineages"); every row then also has ``n_clusters``.
    """
    rows = []
    for p in pairs:
        label, xc, yc = p[:3]
        sub = df[p[3]] if len(p) > 3 and p[3] is not None else df
        if cluster is not None and sub.loc[sub[xc].notna() & sub[yc].notna(), cluster].isna().any():
            raise ValueError(f"{label}: a model without a {cluster!r} label")
        labels = sub[cluster].to_numpy(object) if cluster is not None else None
        xs, ys = sub[xc].to_numpy(float), sub[yc].to_numpy(float)
        rows.append(
            {
                "label": label,
                "x": xc,
                "y": yc,
                **correlation_summary(xs, ys, reps, level, seed, interval, clusters=labels, unit=unit),
            }
        )
    return pd.DataFrame(rows)


def linear_fit(x, y) -> tuple[float, float]:
    """Least-squares ``(slope, intercept)`` of ``y`` on ``x`` over the finite pairs."""
    x, y = _paired_finite(x, y)
    slope, intercept = np.polyfit(x, y, 1)
    return float(slope), float(intercept)


def largest_residuals(x, y, k: int = 5) -> np.ndarray:
    """Positions (in the original arrays) of the ``k`` points farthest from the least-squares line.

    Points where ``x`` or ``y`` is not finite are never returned. Sorted by decreasing |residual|.
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.flatnonzero(np.isfinite(x) & np.isfinite(y))
    slope, intercept = linear_fit(x, y)
    resid = np.abs(y[ok] - (slope * x[ok] + intercept))
    return ok[np.argsort(-resid, kind="stable")[:k]]


def spread(values) -> tuple[float, float]:
    """``(min, max)`` of the finite values."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    return (float(v.min()), float(v.max()))


# ---------------------------------------------------------------------------------------------
# a correlation against a published value (issue 10): BCa, Fisher z test, influence, clusters
# ---------------------------------------------------------------------------------------------


# Why hand-written rather than scipy.stats.bootstrap: the runtime draws one resample matrix (bootstrap_counts /
# bootstrap_indices) and evaluates many statistics on it in one vectorised pass (every pair of runs, every
# question, every benchmark column), which scipy would redraw call by call. The results are pinned to
# scipy.stats.bootstrap(method="BCa") on the project's data in tests/test_reference_implementations.py.
def bca_interval(estimate: float, boot, jack, level: float = DEFAULT_LEVEL) -> tuple[float, float]:
    """Bias-corrected and accelerated (BCa) bootstrap interval (Efron 1987) from its ingredients.

    ``boot`` holds the statistic over bootstrap resamples (NaNs are left out), ``jack`` the
    statistic with each observation (or cluster) left out in turn. The bias correction ``z0``
    comes from the share of resamples below ``estimate`` (ties count half); the acceleration
    ``a`` from the skewness of the jackknife values. With ``z0 = a = 0`` it is the percentile
    interval. Returns ``(low, high)``.
    """
    b = np.asarray(boot, float)
    b = b[np.isfinite(b)]
    j = np.asarray(jack, float)
    j = j[np.isfinite(j)]
    if len(b) < 2 or len(j) < 2 or not np.isfinite(estimate):
        return (float("nan"), float("nan"))
    share = (np.sum(b < estimate) + 0.5 * np.sum(b == estimate)) / len(b)
    z0 = _sps.norm.ppf(np.clip(share, 1.0 / (2 * len(b)), 1.0 - 1.0 / (2 * len(b))))
    d = j.mean() - j
    denom = 6.0 * np.sum(d**2) ** 1.5
    a = float(np.sum(d**3) / denom) if denom > 0 else 0.0
    alpha = (1.0 - level) / 2.0
    z = _sps.norm.ppf([alpha, 1.0 - alpha])
    adj = _sps.norm.cdf(z0 + (z0 + z) / (1.0 - a * (z0 + z)))
    lo, hi = np.quantile(b, adj)
    return (float(lo), float(hi))


def leave_one_out_corr(x, y, method: str = "pearson") -> np.ndarray:
    """The correlation with each pair left out in turn (the jackknife values), aligned with ``x``.

    Entry ``i`` is r of all finite pairs but pair ``i``; NaN where pair ``i`` is not finite.
    ``estimate - result`` is each point's influence on r.
    """
    if method not in ("pearson", "spearman"):
        raise ValueError("method must be 'pearson' or 'spearman'")
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.flatnonzero(np.isfinite(x) & np.isfinite(y))
    corr = pearson_r if method == "pearson" else spearman_r
    out = np.full(len(x), np.nan)
    for i in ok:
        keep = ok[ok != i]
        out[i] = corr(x[keep], y[keep])
    return out


def bootstrap_corr_bca(
    x, y, method: str = "pearson", reps: int = DEFAULT_REPS, level: float = DEFAULT_LEVEL, seed: int | None = 0
) -> Interval:
    """Correlation of the finite pairs with its BCa bootstrap interval (models resampled).

    Uses the same resamples as :func:`bootstrap_corr_ci` with the same ``seed``, so the two
    intervals differ only in how the resampled values are turned into an interval.
    """
    x, y, est, boot = _corr_resamples(x, y, method, reps, seed)
    if len(x) < 3:
        return Interval(float("nan"), float("nan"), float("nan"), len(x), "BCa bootstrap")
    lo, hi = bca_interval(est, boot, leave_one_out_corr(x, y, method), level)
    return Interval(est, lo, hi, len(x), "BCa bootstrap")


def fisher_z_test(r: float, n: int, r0: float, n0: int | None = None, *, clusters=None) -> tuple[float, float]:
    """Two-sided Fisher z test that a Pearson ``r`` from ``n`` pairs agrees with ``r0``.

    With ``clusters`` (a label per pair, e.g. each model's lineage: ``n`` labels) the clusters are the sampled
    units and the test uses their number as n, as :func:`cluster_corr_ci` does for the interval.

    With ``n0`` the reference ``r0`` is itself an estimate from ``n0`` independent pairs (two
    independent samples: ``se = sqrt(1/(n-3) + 1/(n0-3))``); without it ``r0`` is taken as the
    exact population value (``se = 1/sqrt(n-3)``). Returns ``(z, p)``; NaN when an n is below 4.
    Samples that share models are positively correlated, which the two-sample form ignores: its
    p-value is then too large, and the one-sample p-value is the other bound.
    """
    if clusters is not None:
        labels = np.asarray(clusters, dtype=object)
        if len(labels) != n or pd.isna(labels).any():
            raise ValueError(f"fisher_z_test: clusters needs one label per pair ({n}), got {len(labels)}")
        n = len(set(labels.astype(str)))
    if n < 4 or (n0 is not None and n0 < 4) or not (np.isfinite(r) and np.isfinite(r0)):
        return (float("nan"), float("nan"))
    var = 1.0 / (n - 3) + (1.0 / (n0 - 3) if n0 is not None else 0.0)
    z = float(
        (np.arctanh(np.clip(r, -0.999999, 0.999999)) - np.arctanh(np.clip(r0, -0.999999, 0.999999))) / np.sqrt(var)
    )
    return (z, float(2.0 * _sps.norm.sf(abs(z))))


def weighted_pearson(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Pearson r of ``x, y`` under each row of weights ``w`` (shape ``(reps, n)``): the one weighted correlation,
    for bootstrap counts or cluster weights as the weights."""
    sw = w.sum(axis=1, keepdims=True)
    mx, my = (w * x).sum(1, keepdims=True) / sw, (w * y).sum(1, keepdims=True) / sw
    xc, yc = x - mx, y - my
    with np.errstate(invalid="ignore", divide="ignore"):
        return (w * xc * yc).sum(1) / np.sqrt((w * xc**2).sum(1) * (w * yc**2).sum(1))


def cluster_bootstrap_corr_ci(
    x,
    y,
    clusters,
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
    interval: str | None = None,
    method: str = "pearson",
) -> Interval:
    """Pearson (or Spearman) r with a bootstrap interval that resamples whole clusters (e.g. fine-tunes of one
    base model).

    Clusters are drawn with replacement and every pair of a drawn cluster comes along, so pairs
    that move together are not counted as independent evidence. ``interval`` is "percentile" or
    "bca" (acceleration from leaving out one cluster at a time); None means a percentile interval,
    refused below :data:`SMALL_N` clusters (the clusters are the sample). ``n`` of the result counts
    pairs; the number of clusters is ``len(set(clusters))`` over the finite pairs. For Spearman the
    ranks are recomputed in every resample (mid-ranks of the resample, ties and repeats counted).
    """
    if interval not in (None, "percentile", "bca"):
        raise ValueError("interval must be 'percentile' or 'bca'")
    if method not in ("pearson", "spearman"):
        raise ValueError("method must be 'pearson' or 'spearman'")
    x, y = np.asarray(x, float), np.asarray(y, float)
    c = np.asarray(clusters, dtype=object)
    if not (len(x) == len(y) == len(c)):
        raise ValueError("x, y and clusters must have the same length")
    ok = np.isfinite(x) & np.isfinite(y)
    x, y, c = x[ok], y[ok], c[ok]
    labels, code = np.unique(c.astype(str), return_inverse=True)
    k = len(labels)
    refuse_small_percentile(k, interval, "cluster_bootstrap_corr_ci", "interval='bca' or 'percentile' by name")
    corr = pearson_r if method == "pearson" else spearman_r
    est = corr(x, y)
    if k < 3:
        return Interval(est, float("nan"), float("nan"), len(x))
    w = bootstrap_counts(k, reps, seed)[:, code].astype(float)  # how often each pair's cluster is drawn
    if method == "pearson":
        boot = weighted_pearson(x, y, w)
    else:
        boot = weighted_pearson(_weighted_midranks(x, w), _weighted_midranks(y, w), w)
    if interval == "bca":
        jack = _leave_one_cluster_out(x, y, code, k, corr)
        lo, hi = bca_interval(est, boot, jack, level)
    else:
        plo, phi = percentile_interval(boot[np.isfinite(boot)], level)
        lo, hi = float(plo), float(phi)
    return Interval(est, lo, hi, len(x), f"{'BCa bootstrap' if interval == 'bca' else PERCENTILE} over {k} clusters")


def _weighted_midranks(v: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Mid-ranks of ``v`` in each resample that holds value ``i`` ``w[r, i]`` times: shape ``(reps, n)``."""
    below = (v[None, :] < v[:, None]).astype(float)  # below[i, j]: v_j < v_i
    same = (v[None, :] == v[:, None]).astype(float)
    return w @ below.T + (w @ same.T + 1.0) / 2.0


def _leave_one_cluster_out(x: np.ndarray, y: np.ndarray, code: np.ndarray, k: int, corr) -> np.ndarray:
    """``corr`` of the pairs with each of the ``k`` clusters left out in turn (the cluster jackknife)."""
    return np.array([corr(x[code != g], y[code != g]) for g in range(k)])


def _n_finite_clusters(x, y, clusters) -> int:
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    return len(set(np.asarray(clusters, dtype=object)[ok].astype(str)))


def jackknife_t_interval(estimate: float, jack, level: float = DEFAULT_LEVEL) -> tuple[float, float]:
    """Student-t interval from the leave-one-cluster-out values ``jack`` of ``k`` clusters: a standard error at the
    sampled unit with t quantiles on k - 1 degrees of freedom (Miller 2024), SE² = (k - 1) / k · Σ (θ₍₋g₎ - mean)².

    For statistics with no closed form at small n (an R², say); a correlation uses :func:`fisher_z_ci` instead.
    Returns ``(low, high)``; NaN below 3 clusters.
    """
    j = np.asarray(jack, float)
    j = j[np.isfinite(j)]
    k = len(j)
    if k < 3 or not np.isfinite(estimate):
        return (float("nan"), float("nan"))
    se = float(np.sqrt((k - 1) / k * np.sum((j - j.mean()) ** 2)))
    half = float(_sps.t.ppf(0.5 + level / 2.0, k - 1)) * se
    return (float(estimate) - half, float(estimate) + half)


#: How a clustered correlation interval is described below SMALL_N clusters; "clusters" is replaced by the caller's
#: unit name.
CLUSTER_FISHER = "Fisher z with n = {k} clusters (Bonett–Wright for Spearman)"


def cluster_corr_ci(
    x,
    y,
    clusters,
    method: str = "pearson",
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
) -> Interval:
    """A correlation with its interval when the resampled units are **clusters** of pairs (models of one lineage).

    The house rule at the cluster level: from :data:`SMALL_N` clusters on, :func:`cluster_bootstrap_corr_ci`
    (percentile, clusters resampled); below, where a bootstrap over so few units is too narrow, the house's closed
    form :func:`fisher_z_ci` with the number of **clusters** as n: each cluster counts as one independent
    observation, the most a cluster of near-copies can be worth. (A Student t on Fisher's z with a leave-one-cluster-out
    standard error was tried and rejected: it breaks down when leaving a cluster out gives r = ±1, as a Spearman ρ
    over ten models can.) ``method`` of the result says which, with the number of clusters.
    """
    xs, ys = np.asarray(x, float), np.asarray(y, float)
    c = np.asarray(clusters, dtype=object)
    ok = np.isfinite(xs) & np.isfinite(ys)
    if len(c) != len(xs) or pd.isna(c[ok]).any():
        raise ValueError("cluster_corr_ci: every pair needs a cluster label")
    k = _n_finite_clusters(xs, ys, c)
    if k >= SMALL_N:
        r = cluster_bootstrap_corr_ci(xs, ys, c, reps, level, seed, interval="percentile", method=method)
        return Interval(r.estimate, r.low, r.high, r.n, f"{PERCENTILE} over {k} clusters, {reps:,} resamples")
    est = pearson_r(xs, ys) if method == "pearson" else spearman_r(xs, ys)
    lo, hi = fisher_z_ci(est, k, level, spearman=method == "spearman")
    return Interval(est, lo, hi, int(ok.sum()), CLUSTER_FISHER.format(k=k))


# ---------------------------------------------------------------------------------------------
# two-way bootstrap (rows and columns resampled, e.g. models and questions) and shrinkage
# ---------------------------------------------------------------------------------------------


def two_way_weights(
    n_rows: int, n_cols: int, reps: int = DEFAULT_REPS, seed: int | None = 0, row_strata=None
) -> tuple[np.ndarray, np.ndarray]:
    """Independent bootstrap counts for rows and for columns: ``(W, V)`` of shapes ``(reps, n_rows)``
    and ``(reps, n_cols)``.

    With ``row_strata`` (a label per row) rows are resampled within each stratum, which keeps
    each stratum's size (e.g. models within the bottom and the top third).
    """
    rng = np.random.default_rng(seed)
    if row_strata is None:
        w = rng.multinomial(n_rows, np.full(n_rows, 1.0 / n_rows), size=reps)
    else:
        strata = np.asarray(row_strata, dtype=object).astype(str)
        if len(strata) != n_rows:
            raise ValueError("row_strata needs one label per row")
        w = np.zeros((reps, n_rows), dtype=np.int64)
        for s in np.unique(strata):
            rows = np.flatnonzero(strata == s)
            w[:, rows] = rng.multinomial(len(rows), np.full(len(rows), 1.0 / len(rows)), size=reps)
    v = rng.multinomial(n_cols, np.full(n_cols, 1.0 / n_cols), size=reps)
    return w, v


@dataclass(frozen=True)
class TwoWayDesign:
    """Row and column weights for a statistic of a rows x columns table (models x questions) and the rule that turns
    the statistic's values under them into an interval: see :func:`two_way_design`."""

    w: np.ndarray  # (reps, n_rows)
    v: np.ndarray  # (reps, n_cols)
    n_units: int  # resampled row units: rows, or clusters of rows
    jackknife: bool  # True: the first n_units weight rows leave out one unit each, the rest one column each
    method: str

    def interval(self, values, estimate, level: float = DEFAULT_LEVEL) -> tuple[np.ndarray, np.ndarray]:
        """The interval of a statistic from its ``values`` under :attr:`w`, :attr:`v` (axis 0)."""
        if not self.jackknife:
            return percentile_interval(values, level)
        half = _sps.t.ppf(0.5 + level / 2.0, self.n_units - 1) * self.se(values)
        est = np.asarray(estimate, float)
        return est - half, est + half

    def se(self, values) -> np.ndarray:
        """Standard error: the spread of bootstrap values, or the two-way jackknife's (rows' and columns'
        leave-one-out variances added, each scaled by (g - 1) / g)."""
        x = np.asarray(values, float)
        if not self.jackknife:
            return np.nanstd(x, axis=0, ddof=1)
        var = 0.0
        for part in (x[: self.n_units], x[self.n_units :]):
            g = len(part)
            var = var + (g - 1) / g * np.nansum((part - np.nanmean(part, axis=0)) ** 2, axis=0)
        return np.sqrt(var)


def two_way_design(
    n_rows: int,
    n_cols: int,
    reps: int = DEFAULT_REPS,
    seed: int | None = 0,
    row_clusters=None,
    unit: str = "clusters",
) -> TwoWayDesign:
    """How a statistic of a models x questions table gets its interval when the models come in **clusters**
    (``row_clusters``: a label per row, e.g. its lineage; None: every row its own unit).

    The house rule by the number k of row units: from :data:`SMALL_N` on a two-way percentile bootstrap
    (:func:`two_way_weights`, whole clusters drawn, the columns drawn independently); below, a Student t interval on
    k - 1 degrees of freedom with a two-way jackknife standard error (leave out one cluster, then separately one
    column, and add the two variances), since a bootstrap over so few units is too narrow.
    """
    if row_clusters is None:
        w, v = two_way_weights(n_rows, n_cols, reps, seed)
        return TwoWayDesign(w, v, n_rows, False, f"two-way {PERCENTILE} (models and questions), {reps:,} resamples")
    labels = [str(c) for c in row_clusters]
    if len(labels) != n_rows or any(c in ("None", "nan") for c in labels):
        raise ValueError("two_way_design: every row needs a cluster label")
    codes = pd.factorize(pd.Series(labels))[0]
    k = int(codes.max()) + 1
    if k >= SMALL_N:
        w, v = two_way_weights(k, n_cols, reps, seed)
        how = f"two-way {PERCENTILE} ({k} {unit} and {n_cols} questions resampled), {reps:,} resamples"
        return TwoWayDesign(w[:, codes], v, k, False, how)
    w = np.vstack([(codes[None, :] != np.arange(k)[:, None]).astype(float), np.ones((n_cols, n_rows))])
    v = np.vstack([np.ones((k, n_cols)), 1.0 - np.eye(n_cols)])
    how = f"Student t on {k - 1} df, two-way jackknife SE (one of {k} {unit}, then one of {n_cols} questions, left out)"
    return TwoWayDesign(w, v, k, True, how)


def weighted_ratio(sums, counts, w, v, chunk: int = 100) -> np.ndarray:
    """``sum_rc w_r v_c sums[r, c, k] / sum_rc w_r v_c counts[r, c, k]`` for each resample.

    ``sums`` and ``counts`` have shape ``(n_rows, n_cols, n_cats)`` (e.g. models x questions x
    emotion families: the sum of a value and the number of ratings in each cell); ``w`` and ``v``
    are row and column weights from :func:`two_way_weights`. Returns ``(reps, n_cats)``, NaN where
    a resample holds no rating of a category. Weights of ones give the plain ratio of totals.
    """
    s, c = np.asarray(sums, float), np.asarray(counts, float)
    w, v = np.atleast_2d(np.asarray(w, float)), np.atleast_2d(np.asarray(v, float))
    m, q, k = s.shape
    both = np.concatenate([s, c], axis=2).reshape(m, q * 2 * k)  # one pass for sums and counts
    out = np.empty((w.shape[0], k))
    for start in range(0, w.shape[0], chunk):
        rows = (w[start : start + chunk] @ both).reshape(-1, q, 2 * k)  # rows weighted first (one GEMM)
        tot = np.matmul(v[start : start + chunk, None, :], rows)[:, 0, :]  # then the columns
        num, den = tot[:, :k], tot[:, k:]
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start : start + chunk] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out


def empirical_bayes_shrink(estimates, se) -> pd.DataFrame:
    """Normal–normal empirical Bayes: shrink noisy estimates toward their precision-weighted mean.

    Model: ``estimate_i ~ N(theta_i, se_i^2)``, ``theta_i ~ N(mu, tau^2)``. ``tau^2`` is the
    DerSimonian–Laird moment estimate (0 when the spread is no larger than the noise), ``mu`` the
    mean weighted by ``1 / (se^2 + tau^2)``. Each estimate moves toward ``mu`` by the factor
    ``B_i = se_i^2 / (se_i^2 + tau^2)``: noisy ones (few questions) far, precise ones little, so
    the extremes of a ranking are no longer the luckiest draws. Returns columns ``estimate, se,
    shrunk, shrunk_low, shrunk_high`` (95 % posterior interval, treating ``mu`` and ``tau^2`` as
    known) and ``shrinkage`` (B); ``attrs`` holds ``mu`` and ``tau2``.
    """
    est, s = np.asarray(estimates, float), np.asarray(se, float)
    if est.shape != s.shape or (s <= 0).any() or not np.isfinite(s).all():
        raise ValueError("need one positive, finite standard error per estimate")
    w = 1.0 / s**2
    mu_fe = np.sum(w * est) / np.sum(w)
    q = np.sum(w * (est - mu_fe) ** 2)
    tau2 = max(0.0, (q - (len(est) - 1)) / (np.sum(w) - np.sum(w**2) / np.sum(w)))
    w_star = 1.0 / (s**2 + tau2)
    mu = float(np.sum(w_star * est) / np.sum(w_star))
    b = s**2 / (s**2 + tau2)
    post = mu + (1.0 - b) * (est - mu)
    post_sd = np.sqrt((1.0 - b) * s**2)
    half = _sps.norm.ppf(0.975) * post_sd
    out = pd.DataFrame(
        {
            "estimate": est,
            "se": s,
            "shrunk": post,
            "shrunk_low": post - half,
            "shrunk_high": post + half,
            "shrinkage": b,
        }
    )
    out.attrs.update(mu=mu, tau2=float(tau2))
    return out


def bonferroni_level(level: float, k: int) -> float:
    """Per-interval level that makes ``k`` intervals hold jointly at ``level`` (Bonferroni)."""
    if k < 1:
        raise ValueError("k must be at least 1")
    return 1.0 - (1.0 - level) / k


# ---------------------------------------------------------------------------------------------
# many tests: a family of p-values is reported with a named correction
# ---------------------------------------------------------------------------------------------

#: The corrections :func:`correct_family` applies, by name.
CORRECTIONS = {"holm": "Holm (family-wise error)", "bh": "Benjamini–Hochberg (false discovery rate)"}


@dataclass(frozen=True)
class FamilyCorrection:
    """A family of ``m`` tests after a named correction: the raw and adjusted p-values (in the order given), which
    the correction rejects at ``alpha``, and how many of the family would reject by chance alone when every null
    holds (``alpha · m``)."""

    method: str
    alpha: float
    labels: tuple[str, ...]
    raw: np.ndarray
    adjusted: np.ndarray
    reject: np.ndarray

    @property
    def m(self) -> int:
        return len(self.raw)

    @property
    def raw_rejections(self) -> int:
        return int((self.raw < self.alpha).sum())

    @property
    def expected_by_chance(self) -> float:
        return self.alpha * self.m

    def text(self, what: str = "tests") -> str:
        """One sentence: raw rejections, what chance alone gives, and what survives the correction."""
        kept = [lab for lab, r in zip(self.labels, self.reject, strict=True) if r]
        return (
            f"{self.raw_rejections} of {self.m} {what} have p < {self.alpha:g} before correction, where about "
            f"{self.expected_by_chance:.1f} would by chance alone if none had an effect; after "
            f"{CORRECTIONS[self.method]} {len(kept)} remain" + (f" ({', '.join(kept)})" if kept else "")
        )


def correct_family(
    p_values: Sequence[float], method: str, alpha: float = 0.05, labels: Sequence[str] | None = None
) -> FamilyCorrection:
    """Adjust a family of p-values by ``method`` ("holm": Holm's step-down, controlling the family-wise error; "bh":
    Benjamini–Hochberg's step-up, controlling the false discovery rate); the method is always named, never implied.
    The adjusted p-values are those of statsmodels' ``multipletests`` (tests/test_review5_rules.py checks them)."""
    if method not in CORRECTIONS:
        raise ValueError(f"method: one of {sorted(CORRECTIONS)}, not {method!r}")
    p = np.asarray(p_values, dtype=float)
    if p.ndim != 1 or len(p) < 1 or not np.all((p >= 0) & (p <= 1)):
        raise ValueError("p_values: one or more p-values between 0 and 1")
    names = tuple(str(x) for x in (labels if labels is not None else range(1, len(p) + 1)))
    if len(names) != len(p):
        raise ValueError("labels: one per p-value")
    m = len(p)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if method == "holm":
        adj_sorted = np.maximum.accumulate(np.minimum((m - np.arange(m)) * ranked, 1.0))
    else:
        adj_sorted = np.minimum.accumulate((m / np.arange(m, 0, -1)) * ranked[::-1])[::-1]
        adj_sorted = np.minimum(adj_sorted, 1.0)
    adjusted = np.empty(m)
    adjusted[order] = adj_sorted
    return FamilyCorrection(method, float(alpha), names, p, adjusted, adjusted < alpha)


def expected_false_exclusions(m: int, level: float = DEFAULT_LEVEL) -> float:
    """How many of a family of ``m`` intervals at ``level`` would exclude the null by chance alone if none had an
    effect: (1 - level) × m. The intervals-only counterpart of :attr:`FamilyCorrection.expected_by_chance`, so a
    family reported by its intervals (no p-values) states its chance count by the same rule."""
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 0:
        raise ValueError(f"m: the number of intervals in the family, a whole number >= 0, not {m!r}")
    if not 0 < level < 1:
        raise ValueError(f"level: the intervals' coverage, between 0 and 1, not {level!r}")
    return (1 - level) * int(m)


# ---------------------------------------------------------------------------------------------
# the sampled unit: models of one lineage are not independent draws
# ---------------------------------------------------------------------------------------------


class SampledUnitError(ValueError):
    """A function that resamples or tests models was called without the lineage map, or with a model it lacks."""


class _NoLineages:
    """The explicit statement that the data have no lineage map (synthetic data, or units that are not models)."""

    def __repr__(self) -> str:
        return "NO_LINEAGES"


#: Pass as ``lineages=`` to say that the data have no lineage map: each row is then its own unit.
NO_LINEAGES: object = _NoLineages()


def lineage_units(models: Sequence[str], lineages: object, what: str) -> np.ndarray:
    """The sampled unit of each of ``models``: its lineage from ``lineages`` (a mapping model → lineage, e.g.
    ``eqbench_nb.eqbench.study.published.lineage_map()``), or each model its own unit under :data:`NO_LINEAGES`.
    Refuses (:class:`SampledUnitError`, naming ``what``) a call without a map (``None``) and a model the map lacks:
    fine-tunes of one base model are one draw, and resampling or testing them as several makes an interval too
    narrow and a p-value too small."""
    names = [str(m) for m in models]
    if lineages is NO_LINEAGES:
        return np.asarray(names, dtype=object)
    if lineages is None or not hasattr(lineages, "get"):
        raise SampledUnitError(
            f"{what}: resampling or testing models needs the lineage map (lineages=published.lineage_map()); pass "
            "lineages=NO_LINEAGES only for data that have none"
        )
    missing = sorted({m for m in names if lineages.get(m) is None})
    if missing:
        raise SampledUnitError(f"{what}: no lineage for {len(missing)} model(s), e.g. {missing[:3]}")
    return np.asarray([str(lineages.get(m)) for m in names], dtype=object)
