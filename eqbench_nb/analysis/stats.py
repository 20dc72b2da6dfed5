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

All intervals are percentile bootstrap intervals at ``level`` (default 95 %).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as _sps

DEFAULT_REPS = 2000
DEFAULT_LEVEL = 0.95


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
    """The central ``level`` percentile interval of bootstrap ``samples`` along ``axis`` (NaN-aware)."""
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
    """A point estimate with its percentile bootstrap interval."""

    estimate: float
    low: float
    high: float
    n: int

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2.0

    def as_tuple(self) -> tuple[float, float]:
        return (self.low, self.high)


def bootstrap_mean_ci(
    values, reps: int = DEFAULT_REPS, level: float = DEFAULT_LEVEL, seed: int | None = 0, scale: float = 1.0
) -> Interval:
    """Percentile bootstrap interval of the mean of ``values`` (NaNs are left out of the mean).

    The NaN positions are resampled too, as the official convention does when it leaves an
    unparseable question out: the interval reflects how many questions count as well as their
    scores. ``scale`` multiplies the result (use 10 to turn EQ-Bench question scores into a run
    score).
    """
    scores = bootstrap_means(np.asarray(values, dtype=float)[None, :], reps=reps, seed=seed)[:, 0]
    v = np.asarray(values, dtype=float)
    lo, hi = percentile_interval(scores, level)
    return Interval(scale * float(np.nanmean(v)), scale * float(lo), scale * float(hi), int(np.isfinite(v).sum()))


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
) -> pd.DataFrame:
    """Each row's score (``scale`` x mean over questions) with its bootstrap interval over questions.

    Returns a table with columns ``label, score, low, high, half_width, n_questions``, in the
    order of the rows of ``matrix``.
    """
    m = np.atleast_2d(np.asarray(matrix, dtype=float))
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
    a, b, reps: int = DEFAULT_REPS, level: float = DEFAULT_LEVEL, seed: int | None = 0, scale: float = 1.0
) -> Interval:
    """Interval of ``mean(a) - mean(b)`` where ``a`` and ``b`` are scores on the same questions.

    Both means are taken over the same resampled questions (each ignoring its own NaNs), so the
    question-to-question variation the two share cancels out.
    """
    boot = bootstrap_means(np.vstack([np.asarray(a, float), np.asarray(b, float)]), reps, seed)
    d = scale * (boot[:, 0] - boot[:, 1])
    lo, hi = percentile_interval(d, level)
    est = scale * (np.nanmean(np.asarray(a, float)) - np.nanmean(np.asarray(b, float)))
    n = int((np.isfinite(np.asarray(a, float)) & np.isfinite(np.asarray(b, float))).sum())
    return Interval(float(est), float(lo), float(hi), n)


def pairwise_separation(
    matrix, reps: int = DEFAULT_REPS, level: float = DEFAULT_LEVEL, seed: int | None = 0
) -> np.ndarray:
    """Which pairs of rows differ beyond noise: a boolean ``(n_models, n_models)`` matrix.

    Entry ``[i, j]`` is True when the ``level`` paired bootstrap interval of
    ``mean(row i) - mean(row j)`` (same resampled questions for both) excludes 0. The diagonal
    is False. Each pair is a separate test at ``level``: no correction for multiple comparisons.
    """
    boot = bootstrap_means(matrix, reps, seed)
    k = boot.shape[1]
    sep = np.zeros((k, k), dtype=bool)
    for i in range(k - 1):
        lo, hi = percentile_interval(boot[:, [i]] - boot[:, i + 1 :], level)
        s = (lo > 0) | (hi < 0)
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


def _rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (xc * yc).sum(-1) / np.sqrt((xc**2).sum(-1) * (yc**2).sum(-1))


def pearson_r(x, y) -> float:
    """Pearson correlation of the pairs where both ``x`` and ``y`` are finite."""
    x, y = _paired_finite(x, y)
    return float(_rowwise_pearson(x, y)) if len(x) > 1 else float("nan")


def spearman_r(x, y) -> float:
    """Spearman rank correlation (average ranks for ties) of the finite pairs."""
    x, y = _paired_finite(x, y)
    return pearson_r(_sps.rankdata(x), _sps.rankdata(y)) if len(x) > 1 else float("nan")


def bootstrap_corr_ci(
    x, y, method: str = "pearson", reps: int = DEFAULT_REPS, level: float = DEFAULT_LEVEL, seed: int | None = 0
) -> Interval:
    """Correlation of the finite ``(x, y)`` pairs with its percentile bootstrap interval.

    Models (pairs) are resampled with replacement. ``method`` is "pearson" or "spearman" (the
    ranks are recomputed inside every resample). Resamples with a constant column give NaN and
    are ignored.
    """
    if method not in ("pearson", "spearman"):
        raise ValueError("method must be 'pearson' or 'spearman'")
    x, y = _paired_finite(x, y)
    n = len(x)
    if n < 3:
        return Interval(float("nan"), float("nan"), float("nan"), n)
    idx = bootstrap_indices(n, reps, seed)
    bx, by = x[idx], y[idx]
    if method == "spearman":
        bx, by = _sps.rankdata(bx, axis=1), _sps.rankdata(by, axis=1)
        est = spearman_r(x, y)
    else:
        est = pearson_r(x, y)
    lo, hi = percentile_interval(_rowwise_pearson(bx, by), level)
    return Interval(est, float(lo), float(hi), n)


def fisher_z_ci(r: float, n: int, level: float = DEFAULT_LEVEL) -> tuple[float, float]:
    """Closed-form interval of a Pearson r from Fisher's z transform (normal data assumed)."""
    if n < 4 or not np.isfinite(r):
        return (float("nan"), float("nan"))
    z = np.arctanh(np.clip(r, -0.999999, 0.999999))
    half = _sps.norm.ppf(0.5 + level / 2.0) / np.sqrt(n - 3)
    return (float(np.tanh(z - half)), float(np.tanh(z + half)))


def correlation_summary(x, y, reps: int = DEFAULT_REPS, level: float = DEFAULT_LEVEL, seed: int | None = 0) -> dict:
    """Pearson and Spearman r of the finite pairs, each with a bootstrap interval, and n."""
    p = bootstrap_corr_ci(x, y, "pearson", reps, level, seed)
    s = bootstrap_corr_ci(x, y, "spearman", reps, level, seed)
    return {
        "n": p.n,
        "pearson": p.estimate,
        "pearson_low": p.low,
        "pearson_high": p.high,
        "spearman": s.estimate,
        "spearman_low": s.low,
        "spearman_high": s.high,
    }


def correlation_table(
    df: pd.DataFrame, pairs, reps: int = DEFAULT_REPS, level: float = DEFAULT_LEVEL, seed: int | None = 0
) -> pd.DataFrame:
    """:func:`correlation_summary` for several column pairs of ``df``.

    ``pairs`` is an iterable of ``(label, x_column, y_column)`` or ``(label, x_column, y_column,
    row_mask)``; the mask (boolean Series aligned with ``df``) picks a subset of models.
    Returns one row per pair with ``label, x, y`` and the summary columns.
    """
    rows = []
    for p in pairs:
        label, xc, yc = p[:3]
        sub = df[p[3]] if len(p) > 3 and p[3] is not None else df
        rows.append(
            {
                "label": label,
                "x": xc,
                "y": yc,
                **correlation_summary(sub[xc].to_numpy(float), sub[yc].to_numpy(float), reps, level, seed),
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
