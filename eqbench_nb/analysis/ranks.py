"""Ranks, pairwise comparisons, performance profiles and power over a score matrix, knowing no benchmark.

Pure functions in the style of google-research/rliable. The input is a *score matrix* ``(n_subjects, n_items)``
(runs x questions, say; NaN where an item is left out of a subject's mean); ``scale`` x a row's mean is the subject's
score. Every interval is a percentile bootstrap over **items** in which the same resampled items are used for every
subject (:func:`eqbench_nb.analysis.stats.bootstrap_counts`), so comparisons between subjects are paired, unless a
docstring says otherwise. Split out of EQ-Bench's :mod:`eqbench_nb.eqbench.study.ranking` (issue 39), which keeps what
needs EQ-Bench's runs (conventions, labels).

- :func:`rank_intervals`: each subject's rank (1 = best) with its interval
- :func:`probability_of_improvement`: P(X > Y): how often X beats Y on a random item
- :func:`pairwise_comparisons`: every pair: score difference and P(X > Y), intervals and p-values
- :func:`benjamini_hochberg`: the false-discovery-rate correction of many p-values
- :func:`pooled_run_sd`: run-to-run SD from pairs of repeated runs, with its chi-square interval
- :func:`performance_profiles`: share of items scored at least tau, per subject
- :func:`required_questions`: items needed to detect a difference (paired design)
- :func:`required_iterations`: repeats needed to detect a difference on a fixed item set
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as _sps

from .stats import DEFAULT_LEVEL, DEFAULT_REPS, Interval, bootstrap_counts, bootstrap_means, percentile_interval

__all__ = [
    "PairwiseComparisons",
    "benjamini_hochberg",
    "bootstrap_p_value",
    "pair_difference_sd",
    "paired_power",
    "pairwise_comparisons",
    "performance_profiles",
    "pooled_run_sd",
    "probability_of_improvement",
    "rank_intervals",
    "ranks",
    "required_iterations",
    "required_questions",
]


# ---------------------------------------------------------------------------------------------
# ranks
# ---------------------------------------------------------------------------------------------


def ranks(scores, axis: int = -1) -> np.ndarray:
    """Ranks along ``axis`` with 1 = the highest score and ties averaged; NaN ranks last."""
    s = np.asarray(scores, dtype=float)
    return _sps.rankdata(np.where(np.isnan(s), np.inf, -s), axis=axis)


def rank_intervals(
    matrix,
    labels: Sequence[str] | None = None,
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
    scale: float = 10.0,
) -> pd.DataFrame:
    """Each run's rank among the rows of ``matrix`` with its percentile interval, questions resampled.

    One resample of the questions is drawn and used for every run (so every resample is a
    complete ranking); each resample's scores are ranked (1 = best, ties averaged) and the
    ``level`` percentile interval of each run's rank is taken. Returns one row per run, in the
    order of ``matrix``: ``label, score, rank, rank_low, rank_high, width`` (``rank_high -
    rank_low``), ``p_top`` (share of resamples in which the run ranks first).
    """
    m = np.atleast_2d(np.asarray(matrix, dtype=float))
    boot = bootstrap_means(m, reps, seed)
    r = ranks(boot, axis=1)
    lo, hi = percentile_interval(r, level)
    score = scale * np.nanmean(m, axis=1)
    return pd.DataFrame(
        {
            "label": list(labels) if labels is not None else list(range(m.shape[0])),
            "score": score,
            "rank": ranks(score),
            "rank_low": lo,
            "rank_high": hi,
            "width": hi - lo,
            "p_top": (r == 1).mean(axis=0),
        }
    )


# ---------------------------------------------------------------------------------------------
# pairwise comparisons
# ---------------------------------------------------------------------------------------------


def probability_of_improvement(x, y) -> float:
    """P(X > Y): the share of questions on which ``x`` scores higher than ``y``, ties counting half.

    ``x`` and ``y`` are two runs' scores on the same questions; a question where either is NaN
    is left out. 0.5 means neither run is better on a typical question; it is rliable's
    "probability of improvement" with questions in the place of tasks.
    """
    a, b = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(a) & np.isfinite(b)
    if not ok.any():
        return float("nan")
    return float(np.mean((a[ok] > b[ok]) + 0.5 * (a[ok] == b[ok])))


def bootstrap_p_value(estimate, boot, null: float = 0.0) -> np.ndarray:
    """Two-sided p-value of ``estimate == null`` from the bootstrap standard error (normal approximation).

    ``boot`` holds the bootstrap replicates along axis 0. Unlike counting replicates beyond the
    null, this p-value is not floored at ``1 / reps``, so it can be corrected for thousands of
    comparisons. A zero standard error gives 1 when the estimate equals the null, else 0.
    """
    est = np.asarray(estimate, float)
    se = np.nanstd(np.asarray(boot, float), axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(est - null) / se
    p = 2.0 * _sps.norm.sf(z)
    p = np.where(se > 0, p, np.where(np.isclose(est, null), 1.0, 0.0))
    return np.asarray(p, dtype=float)


def benjamini_hochberg(p_values, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Benjamini–Hochberg step-up procedure: ``(rejected, adjusted p-values)``, same shape as the input.

    Controls the false discovery rate at ``alpha`` for independent or positively dependent
    tests. The adjusted p-value of the i-th smallest of m p-values is
    ``min_{j >= i} p_(j) m / j`` (capped at 1); a hypothesis is rejected when its adjusted
    p-value is at most ``alpha``. NaN p-values are neither counted nor rejected.
    """
    p = np.asarray(p_values, dtype=float)
    flat = p.ravel()
    ok = np.isfinite(flat)
    adj = np.full(flat.shape, np.nan)
    q = flat[ok]
    m = len(q)
    if m:
        order = np.argsort(q, kind="stable")
        scaled = q[order] * m / np.arange(1, m + 1)
        scaled = np.minimum.accumulate(scaled[::-1])[::-1]
        out = np.empty(m)
        out[order] = np.minimum(scaled, 1.0)
        adj[ok] = out
    adjusted = adj.reshape(p.shape)
    return (np.where(np.isfinite(adjusted), adjusted, np.inf) <= alpha), adjusted


@dataclass(frozen=True)
class PairwiseComparisons:
    """Every pair ``i < j`` of runs: score difference and P(run i > run j), with intervals.

    ``table`` has one row per pair: ``i, j, diff, diff_low, diff_high, p_diff`` (difference of
    run scores, ``scale`` x mean, with its paired bootstrap interval and p-value) and ``poi,
    poi_low, poi_high, p_poi`` (P(X > Y) with its interval and the p-value of P = 0.5).
    ``poi`` is the full ``(n_runs, n_runs)`` matrix of P(row > column) (0.5 on the diagonal).
    """

    table: pd.DataFrame
    poi: np.ndarray

    def share_separated(self, test: str = "diff", alpha: float = 0.05, correction: str | None = None) -> float:
        """Share of pairs whose ``test`` ("diff" or "poi") p-value is below ``alpha``; ``correction="bh"``
        applies :func:`benjamini_hochberg` over all pairs first."""
        p = self.table[f"p_{test}"].to_numpy()
        if correction == "bh":
            return float(benjamini_hochberg(p, alpha)[0].mean())
        if correction is not None:
            raise ValueError("correction must be None or 'bh'")
        return float((p < alpha).mean())


def pairwise_comparisons(
    matrix, reps: int = DEFAULT_REPS, level: float = DEFAULT_LEVEL, seed: int | None = 0, scale: float = 10.0
) -> PairwiseComparisons:
    """Score differences and probabilities of improvement for every pair of rows of ``matrix``.

    Both use one resample of the questions for every run. The difference of two runs' scores
    is taken as each run's own (NaN-ignoring) mean, as the official convention does; P(X > Y)
    uses the questions both runs answered. p-values come from :func:`bootstrap_p_value`.
    """
    m = np.atleast_2d(np.asarray(matrix, dtype=float))
    k, n = m.shape
    i, j = np.triu_indices(k, 1)
    counts = bootstrap_counts(n, reps, seed).astype(float)

    boot = bootstrap_means(m, reps, seed) * scale
    d_boot = boot[:, i] - boot[:, j]
    d_est = scale * (np.nanmean(m, axis=1)[i] - np.nanmean(m, axis=1)[j])
    d_lo, d_hi = percentile_interval(d_boot, level)

    a, b = m[i], m[j]  # (pairs, questions)
    both = np.isfinite(a) & np.isfinite(b)
    win = np.where(both, (a > b) + 0.5 * (a == b), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        poi_est = win.sum(1) / both.sum(1)
        poi_boot = (counts @ win.T) / (counts @ both.T.astype(float))
    p_lo, p_hi = percentile_interval(poi_boot, level)

    poi = np.full((k, k), 0.5)
    poi[i, j], poi[j, i] = poi_est, 1.0 - poi_est
    table = pd.DataFrame(
        {
            "i": i,
            "j": j,
            "diff": d_est,
            "diff_low": d_lo,
            "diff_high": d_hi,
            "p_diff": bootstrap_p_value(d_est, d_boot, 0.0),
            "poi": poi_est,
            "poi_low": p_lo,
            "poi_high": p_hi,
            "p_poi": bootstrap_p_value(poi_est, poi_boot, 0.5),
        }
    )
    return PairwiseComparisons(table, poi)


# ---------------------------------------------------------------------------------------------
# run-to-run spread
# ---------------------------------------------------------------------------------------------


def pooled_run_sd(first, second, level: float = DEFAULT_LEVEL) -> Interval:
    """Run-to-run SD of a score from pairs of repeated runs, with its chi-square interval.

    Each pair ``(first[i], second[i])`` is two scores of one model; with normal run-to-run noise
    of SD σ, ``d_i = first - second`` has variance 2σ², so σ² is estimated by ``Σ d² / (2 m)``
    with m degrees of freedom and the interval is ``sqrt(Σ d² / (2 χ²_m))`` at the two tails.
    ``n`` = pairs.
    """
    a, b = np.asarray(first, float), np.asarray(second, float)
    ok = np.isfinite(a) & np.isfinite(b)
    d2 = float(((a[ok] - b[ok]) ** 2).sum())
    m = int(ok.sum())
    if m == 0:
        return Interval(float("nan"), float("nan"), float("nan"), 0)
    alpha = 1.0 - level
    lo = np.sqrt(d2 / (2.0 * _sps.chi2.ppf(1.0 - alpha / 2.0, m)))
    hi = np.sqrt(d2 / (2.0 * _sps.chi2.ppf(alpha / 2.0, m)))
    return Interval(float(np.sqrt(d2 / (2.0 * m))), float(lo), float(hi), m)


# ---------------------------------------------------------------------------------------------
# performance profiles
# ---------------------------------------------------------------------------------------------


def performance_profiles(
    matrix,
    taus,
    reps: int = 0,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
) -> dict[str, np.ndarray]:
    """Share of each run's questions scored at least ``tau``, for every ``tau``: rliable's profile per run.

    NaN (left-out) questions are left out of the share. Returns ``{"taus", "profile"}`` with
    ``profile`` of shape ``(n_runs, n_taus)``; with ``reps > 0`` also ``"low"`` and ``"high"``,
    the percentile interval with the questions resampled (the same resample for every run).
    """
    m = np.atleast_2d(np.asarray(matrix, dtype=float))
    t = np.asarray(taus, dtype=float)
    fin = np.isfinite(m)
    hit = (np.where(fin, m, -np.inf)[:, :, None] >= t[None, None, :]).astype(float)  # runs, questions, taus
    n_ok = fin.sum(1).astype(float)
    out = {"taus": t, "profile": hit.sum(1) / n_ok[:, None]}
    if reps > 0:
        counts = bootstrap_counts(m.shape[1], reps, seed).astype(float)
        r, q, nt = hit.shape
        num = (counts @ hit.transpose(1, 0, 2).reshape(q, r * nt)).reshape(-1, r, nt)
        den = counts @ fin.T.astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = num / den[:, :, None]
        lo, hi = percentile_interval(share, level)
        out["low"], out["high"] = lo, hi
    return out


# ---------------------------------------------------------------------------------------------
# power
# ---------------------------------------------------------------------------------------------


def pair_difference_sd(matrix) -> np.ndarray:
    """For every pair ``i < j`` of rows, the SD (ddof 1) across questions of ``row i - row j``.

    Questions where either run is NaN are left out. This is the per-question spread of a paired
    difference, the quantity that sets how many questions a comparison needs.
    """
    m = np.atleast_2d(np.asarray(matrix, dtype=float))
    i, j = np.triu_indices(m.shape[0], 1)
    d = m[i] - m[j]
    return np.asarray(np.nanstd(d, axis=1, ddof=1), dtype=float)


def _z_sum(alpha: float, power: float) -> float:
    return float(_sps.norm.ppf(1.0 - alpha / 2.0) + _sps.norm.ppf(power))


def paired_power(
    delta: float,
    n_questions: float,
    sd_question: float,
    iterations: float = 1,
    sd_iteration: float = 0.0,
    alpha: float = 0.05,
    scale: float = 10.0,
) -> float:
    """Power of a two-sided paired test of two models' score difference (normal approximation).

    The run score is ``scale`` x the mean over ``n_questions`` questions. ``sd_question`` is the SD
    across questions of the true per-question difference between the two models (question
    sampling); ``sd_iteration`` the SD of one model's score on one question from one iteration to
    the next (run-to-run noise), averaged over ``iterations`` per model. The difference has
    variance ``scale² (sd_question² + 2 sd_iteration² / iterations) / n_questions``.
    """
    se = scale * np.sqrt((sd_question**2 + 2.0 * sd_iteration**2 / iterations) / n_questions)
    z = _sps.norm.ppf(1.0 - alpha / 2.0)
    d = abs(delta) / se
    return float(_sps.norm.sf(z - d) + _sps.norm.cdf(-z - d))


def required_questions(
    delta, sd_diff: float, alpha: float = 0.05, power: float = 0.8, scale: float = 10.0
) -> np.ndarray:
    """Questions needed to detect a run-score difference ``delta`` at ``power`` (two-sided ``alpha``).

    Paired design: both models answer the same questions and ``sd_diff`` is the SD across
    questions of their per-question score difference (:func:`pair_difference_sd`). The run
    score is ``scale`` x the question mean, so ``n = (z_{1-α/2} + z_power)² scale² sd_diff² / delta²``
    (rounded up). An unpaired design is the same formula with ``sqrt(sd_a² + sd_b²)`` in place
    of ``sd_diff``.
    """
    d = np.abs(np.asarray(delta, dtype=float))
    return np.ceil((_z_sum(alpha, power) * scale * sd_diff / d) ** 2)


def required_iterations(delta, sd_run: float, alpha: float = 0.05, power: float = 0.8) -> np.ndarray:
    """Iterations per model needed to detect a run-score difference ``delta`` on a *fixed* question set.

    With the questions fixed, the only noise is run to run: one iteration's score has SD
    ``sd_run`` (points), the mean of r iterations ``sd_run / sqrt(r)``, and the difference of two
    models' means ``sd_run sqrt(2 / r)``, so ``r = 2 (z_{1-α/2} + z_power)² sd_run² / delta²``,
    rounded up, at least 1.
    """
    d = np.abs(np.asarray(delta, dtype=float))
    return np.maximum(1.0, np.ceil(2.0 * (_z_sum(alpha, power) * sd_run / d) ** 2))
