"""How much repeated scores of one subject vary: CV, the SD with its interval and sensitivity, ICC(2,1).

Pure functions over plain arrays, knowing no benchmark; split out of EQ-Bench's
:mod:`eqbench_nb.eqbench.study.repeatability` (issue 39), which applies them to EQ-Bench's runs and iterations.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats as _sps

from .stats import (
    DEFAULT_LEVEL,
    DEFAULT_REPS,
    Interval,
    bootstrap_indices,
    percentile_interval,
)

__all__ = [
    "coefficient_of_variation",
    "cv_undefined_reason",
    "icc_2_1",
    "icc_interval",
    "one_score_drives_sd",
    "rank_among",
    "sd_interval",
    "sd_sensitivity",
    "summarise_scores",
]


def cv_undefined_reason(scores: Sequence[float] | np.ndarray) -> str | None:
    """Why a coefficient of variation of ``scores`` would mean nothing, or None when it is defined.

    A CV (SD over mean) needs a ratio scale: positive values measured from a true zero. An
    EQ-Bench run score is 10 x a mean of question scores that run from -19.9 to 10, so it can be
    0 or negative (the official convention leaves no floor); dividing by a mean near or below 0
    gives a number that is large, negative or undefined for no reason to do with repeatability.
    """
    s = np.asarray(scores, dtype=float)
    s = s[np.isfinite(s)]
    if len(s) < 2:
        return "fewer than two scores"
    if (s <= 0).any():
        return (
            f"{int((s <= 0).sum())} of {len(s)} scores are zero or negative: the score scale crosses 0 there, "
            "so an SD divided by the mean is meaningless; read the SD in points"
        )
    return None


def coefficient_of_variation(scores: Sequence[float] | np.ndarray) -> float:
    """Sample SD over mean, in percent (the paper's repeatability statistic).

    NaN whenever :func:`cv_undefined_reason` gives a reason: fewer than two scores, or any score
    at or below 0 (the CV is only defined for positive scores).
    """
    s = np.asarray(scores, dtype=float)
    s = s[np.isfinite(s)]
    if cv_undefined_reason(s) is not None:
        return float("nan")
    return float(100.0 * s.std(ddof=1) / s.mean())


def sd_interval(scores: Sequence[float] | np.ndarray, level: float = DEFAULT_LEVEL) -> Interval:
    """Sample SD (ddof 1) of repeated scores with its chi-square interval.

    With k scores drawn from a normal distribution, (k - 1) s^2 / sigma^2 follows a chi-square
    with k - 1 degrees of freedom, so the ``level`` interval of sigma is
    ``s sqrt((k - 1) / chi2.ppf(1 - a/2, k - 1))`` to ``s sqrt((k - 1) / chi2.ppf(a/2, k - 1))``
    (a = 1 - level). Exact for normal scores; it is not a bootstrap (with a handful of runs a
    bootstrap over runs is biased low). NaNs are left out; ``n`` is the number of scores.
    """
    s = np.asarray(scores, dtype=float)
    s = s[np.isfinite(s)]
    k = len(s)
    if k < 2:
        return Interval(float("nan"), float("nan"), float("nan"), k)
    sd = float(s.std(ddof=1))
    alpha = 1.0 - level
    lo = sd * np.sqrt((k - 1) / _sps.chi2.ppf(1.0 - alpha / 2.0, k - 1))
    hi = sd * np.sqrt((k - 1) / _sps.chi2.ppf(alpha / 2.0, k - 1))
    return Interval(sd, float(lo), float(hi), k)


def sd_sensitivity(scores: Sequence[float] | np.ndarray, level: float = DEFAULT_LEVEL) -> dict:
    """How much one score carries an SD: the SD with all scores, without the most influential one, and a robust SD.

    Returns ``all`` and ``without`` (:func:`sd_interval` with every score, and without the score
    whose removal lowers the SD most), ``dropped`` (that score), and ``mad_sd`` (1.4826 x the
    median absolute deviation: the SD that normal scores would give, barely moved by one wild
    score) and ``scores`` (the finite scores). The chi-square interval assumes normal scores;
    one far-out score breaks that, so a reader needs both SDs.
    """
    s = np.asarray(scores, dtype=float)
    s = s[np.isfinite(s)]
    if len(s) < 3:
        raise ValueError("need at least 3 scores to drop one and keep an SD")
    loo = np.array([np.delete(s, i).std(ddof=1) for i in range(len(s))])
    i = int(np.argmin(loo))
    return {
        "all": sd_interval(s, level),
        "without": sd_interval(np.delete(s, i), level),
        "dropped": float(s[i]),
        "scores": s,
        "mad_sd": float(1.4826 * np.median(np.abs(s - np.median(s)))),
    }


def one_score_drives_sd(sensitivity: dict, alpha: float = 0.05) -> bool:
    """Null: the scores are normal, so no single one stands apart. Grubbs' two-sided test at ``alpha``
    of the score farthest from the mean (the one :func:`sd_sensitivity` drops): True when it rejects,
    i.e. one score is further out than ``alpha`` of normal samples of this size put their farthest."""
    s = np.asarray(sensitivity["scores"], dtype=float)
    n = len(s)
    g = np.max(np.abs(s - s.mean())) / s.std(ddof=1)
    t = _sps.t.ppf(1 - alpha / (2 * n), n - 2)
    g_crit = (n - 1) / np.sqrt(n) * np.sqrt(t**2 / (n - 2 + t**2))
    return bool(g > g_crit)


def summarise_scores(scores: Sequence[float]) -> dict[str, float]:
    """n, mean, SD (ddof 1) with its 95 % chi-square interval, range and CV % of repeated run scores.

    The CV is NaN when it is undefined (see :func:`cv_undefined_reason`).
    """
    s = np.asarray(scores, dtype=float)
    sd = sd_interval(s)
    return {
        "n": len(s),
        "mean": float(np.mean(s)),
        "sd": sd.estimate,
        "sd_low": sd.low,
        "sd_high": sd.high,
        "min": float(np.min(s)),
        "max": float(np.max(s)),
        "cv_percent": coefficient_of_variation(s),
    }


def rank_among(scores: Sequence[float] | np.ndarray, others: Sequence[float] | np.ndarray) -> np.ndarray:
    """The rank (1 = best) each of ``scores`` would take if it were added alone to ``others``.

    Ties go to the score being placed (``1 + number of others strictly above it``); NaNs in
    ``others`` are ignored.
    """
    o = np.asarray(others, dtype=float)
    o = np.sort(o[np.isfinite(o)])
    s = np.asarray(scores, dtype=float)
    return 1 + len(o) - np.searchsorted(o, s, side="right")


def icc_2_1(matrix) -> float:
    """ICC(2,1) of Shrout & Fleiss: two-way random effects, absolute agreement, single measurement.

    ``matrix`` is targets (questions) x raters (iterations); rows with any NaN are dropped.
    1 means every iteration gives every question the same score; 0 means the question explains
    none of the variation between scores.
    """
    m = np.asarray(matrix, dtype=float)
    m = m[np.isfinite(m).all(axis=1)]
    n, k = m.shape
    if n < 2 or k < 2:
        return float("nan")
    grand = m.mean()
    ss_rows = k * ((m.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((m.mean(axis=0) - grand) ** 2).sum()
    ss_err = ((m - grand) ** 2).sum() - ss_rows - ss_cols
    msr, msc, mse = ss_rows / (n - 1), ss_cols / (k - 1), ss_err / ((n - 1) * (k - 1))
    denom = msr + (k - 1) * mse + k * (msc - mse) / n
    return float((msr - mse) / denom) if denom else float("nan")


def icc_interval(matrix, reps: int = DEFAULT_REPS, seed: int | None = 0) -> Interval:
    """ICC(2,1) with a percentile bootstrap interval over questions (rows)."""
    m = np.asarray(matrix, dtype=float)
    m = m[np.isfinite(m).all(axis=1)]
    if len(m) < 3 or m.shape[1] < 2:  # too few complete questions to resample
        return Interval(icc_2_1(m), float("nan"), float("nan"), len(m))
    idx = bootstrap_indices(len(m), reps, seed)
    boots = np.array([icc_2_1(m[i]) for i in idx])
    lo, hi = percentile_interval(boots)
    return Interval(icc_2_1(m), float(lo), float(hi), len(m))
