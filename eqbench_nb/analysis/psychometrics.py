"""EQ-Bench as a test: reliability, items, an item-response model, a short form, validity.

Pure functions in the style of google-research/rliable. The input is a *score matrix*
``(n_runs, n_questions)``: runs are the test's subjects and questions its items. Reliability
and item statistics need a complete matrix; :func:`complete_matrix` fills the official
convention's left-out (unparseable) answers with 0, as lm-evaluation-harness does.

Intervals are percentile bootstraps; each docstring says what is resampled (runs for statistics
of the run sample, questions for a run's score, models or base-model clusters for correlations
between benchmarks).

- :func:`cronbach_alpha`: internal consistency, with :func:`cronbach_alpha_interval`
- :func:`split_half`: split-half reliability, Spearman–Brown corrected
- :func:`item_rest_correlations`: each question against the sum of the others
- :func:`ceiling_questions`: questions the best runs (nearly) all get right
- :func:`fit_2pl`: a two-parameter logistic IRT model on pass/fail question scores
- :func:`short_form_cv`: a k-question short form, chosen and validated across runs
- :func:`partial_correlation`: r(x, y | z), with :func:`incremental_r2` and
- :func:`capability_control`: both with plain and base-model-clustered bootstrap intervals
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize as _opt
from scipy import special as _spec

from .stats import (
    DEFAULT_LEVEL,
    DEFAULT_REPS,
    PERCENTILE,
    SMALL_N,
    Interval,
    bootstrap_counts,
    fisher_z_ci,
    jackknife_t_interval,
    percentile_interval,
    rowwise_pearson,
    t_quantile,
    weighted_pearson,
)

__all__ = [
    "ShortForm",
    "TwoPL",
    "capability_control",
    "ceiling_questions",
    "ceiling_verdict",
    "cluster_bootstrap_weights",
    "complete_matrix",
    "cronbach_alpha",
    "cronbach_alpha_interval",
    "fit_2pl",
    "fit_short_form",
    "full_score_se",
    "incremental_r2",
    "interval_calibrated",
    "item_rest_correlations",
    "item_rest_intervals",
    "partial_correlation",
    "partial_r_verdict",
    "select_short_form",
    "short_form_cv",
    "short_form_validation",
    "short_form_verdict",
    "spearman_brown",
    "split_half",
    "variance_share",
    "variance_share_interval",
]


def complete_matrix(matrix, fill: float = 0.0) -> np.ndarray:
    """The matrix as floats with every NaN replaced by ``fill`` (0: an unparseable answer scores 0)."""
    return np.nan_to_num(np.asarray(matrix, dtype=float), nan=fill)


# ---------------------------------------------------------------------------------------------
# reliability
# ---------------------------------------------------------------------------------------------


def _weighted_moments(counts: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap sample mean and variance (ddof 1) of the columns of ``x`` for each row of ``counts``."""
    n = counts.sum(1, keepdims=True)
    mean = counts @ x / n
    var = (counts @ (x * x) - n * mean**2) / (n - 1)
    return mean, var


def cronbach_alpha(matrix) -> float:
    """Cronbach's α of a complete subjects x items matrix: ``k/(k-1) (1 - Σ var(item) / var(total))``.

    Variances with ddof 1. For k parallel items with inter-item correlation ρ, α equals the
    Spearman–Brown reliability ``k ρ / (1 + (k - 1) ρ)``.
    """
    x = np.asarray(matrix, dtype=float)
    if np.isnan(x).any():
        raise ValueError("α needs a complete matrix: fill left-out answers first (complete_matrix)")
    n, k = x.shape
    if k < 2 or n < 2:
        return float("nan")
    item_var = x.var(axis=0, ddof=1).sum()
    total_var = x.sum(axis=1).var(ddof=1)
    return float(k / (k - 1) * (1.0 - item_var / total_var))


def _subject_weights(
    n: int, reps: int, seed: int | None, clusters: Sequence | None
) -> tuple[np.ndarray, int | None, str]:
    """Weights over the ``n`` subjects (rows) under which a statistic is recomputed, by the house rule:
    ``(weights, None, how)`` for a percentile bootstrap (of the subjects, or of whole ``clusters`` of them from
    :data:`~.stats.SMALL_N` clusters on), or ``(weights, k, how)`` with one row per cluster leaving it out
    (k < SMALL_N clusters: a jackknife for :func:`~.stats.jackknife_t_interval`)."""
    if clusters is None:
        return bootstrap_counts(n, reps, seed).astype(float), None, f"{PERCENTILE} over runs, {reps:,} resamples"
    codes = pd.factorize(pd.Series([str(c) for c in clusters]))[0]
    if len(codes) != n:
        raise ValueError("clusters needs one label per subject (row)")
    k = int(codes.max()) + 1
    if k >= SMALL_N:
        return cluster_bootstrap_weights(codes, reps, seed), None, f"{PERCENTILE} over {k} lineages, {reps:,} resamples"
    jack = (codes[None, :] != np.arange(k)[:, None]).astype(float)
    return jack, k, f"Student t on {k - 1} df, SE from leaving out one of {k} lineages (jackknife)"


def _subject_interval(est, values: np.ndarray, k: int | None, level: float):
    """The interval of a statistic from its values under :func:`_subject_weights` (axis 0)."""
    if k is None:
        return percentile_interval(values, level)
    from scipy import stats as _sps

    v = np.asarray(values, float)
    se = np.sqrt((k - 1) / k * np.nansum((v - np.nanmean(v, axis=0)) ** 2, axis=0))
    half = _sps.t.ppf(0.5 + level / 2, k - 1) * se
    return np.asarray(est) - half, np.asarray(est) + half


def cronbach_alpha_interval(
    matrix, reps: int = DEFAULT_REPS, level: float = DEFAULT_LEVEL, seed: int | None = 0, clusters=None
) -> Interval:
    """α with its interval, the **subjects (runs)** as the units; ``n`` = subjects. With ``clusters`` (each run's
    lineage) the lineages are the units (:func:`_subject_weights` chooses by their number; ``n`` = lineages)."""
    x = np.asarray(matrix, dtype=float)
    n, k = x.shape
    est = cronbach_alpha(x)
    counts, jack, how = _subject_weights(n, reps, seed, clusters)
    _, item_var = _weighted_moments(counts, x)
    _, total_var = _weighted_moments(counts, x.sum(1, keepdims=True))
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = k / (k - 1) * (1.0 - item_var.sum(1) / total_var[:, 0])
    lo, hi = _subject_interval(est, boot[np.isfinite(boot)], jack, level)
    units = n if clusters is None else len(set(map(str, clusters)))
    return Interval(est, float(lo), min(float(hi), 1.0), units, how)  # α cannot exceed 1


def spearman_brown(r, factor: float = 2.0):
    """Reliability of a test ``factor`` times as long as one with reliability ``r``."""
    r = np.asarray(r, dtype=float)
    return factor * r / (1.0 + (factor - 1.0) * r)


def split_half(
    matrix,
    splits: int = 200,
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
) -> dict[str, float]:
    """Split-half reliability, Spearman–Brown corrected, of a complete subjects x items matrix.

    ``odd_even``: items split by position (1st, 3rd, … vs 2nd, 4th, …). ``random``: the mean over
    ``splits`` random halves (drawn with ``seed``) of the corrected correlation of the two half
    sums; ``low``/``high``: its percentile interval with the **subjects** resampled (the same
    splits in every resample). ``n`` = subjects.
    """
    x = np.asarray(matrix, dtype=float)
    if np.isnan(x).any():
        raise ValueError("split-half needs a complete matrix (complete_matrix)")
    n, k = x.shape
    rng = np.random.default_rng(seed)
    masks = np.zeros((k, splits + 1))
    masks[::2, 0] = 1.0  # the odd-even split first
    for s in range(1, splits + 1):
        masks[rng.permutation(k)[: k // 2], s] = 1.0
    h1 = x @ masks
    h2 = x.sum(1, keepdims=True) - h1
    r = np.array([np.corrcoef(h1[:, s], h2[:, s])[0, 1] for s in range(splits + 1)])
    sb = spearman_brown(r)
    counts = bootstrap_counts(n, reps, seed).astype(float)
    m1, v1 = _weighted_moments(counts, h1[:, 1:])
    m2, v2 = _weighted_moments(counts, h2[:, 1:])
    nn = counts.sum(1, keepdims=True)
    cov = (counts @ (h1[:, 1:] * h2[:, 1:]) - nn * m1 * m2) / (nn - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = spearman_brown(cov / np.sqrt(v1 * v2)).mean(axis=1)
    lo, hi = percentile_interval(boot[np.isfinite(boot)], level)
    return {"odd_even": float(sb[0]), "random": float(sb[1:].mean()), "low": float(lo), "high": float(hi), "n": n}


# ---------------------------------------------------------------------------------------------
# items
# ---------------------------------------------------------------------------------------------


def item_rest_correlations(matrix) -> np.ndarray:
    """For each item, the Pearson r across subjects of its score with the sum of the *other* items.

    Needs a complete matrix. NaN for an item constant across subjects.
    """
    x = np.asarray(matrix, dtype=float)
    if np.isnan(x).any():
        raise ValueError("item-rest correlations need a complete matrix (complete_matrix)")
    rest = x.sum(1, keepdims=True) - x
    return rowwise_pearson(x.T, rest.T)  # one row per item: the subjects paired


def item_rest_intervals(
    matrix, reps: int = DEFAULT_REPS, level: float = DEFAULT_LEVEL, seed: int | None = 0, clusters=None
) -> pd.DataFrame:
    """Item–rest correlations with intervals, **subjects** resampled (with ``clusters``, each subject's lineage:
    the lineages as the units, as :func:`cronbach_alpha_interval`).

    Returns ``item`` (column position), ``r``, ``low``, ``high``, ``mean`` (item mean score),
    ``sd`` (its SD across subjects); ``attrs["method"]`` says how the intervals were made.
    """
    x = np.asarray(matrix, dtype=float)
    r = item_rest_correlations(x)
    rest = x.sum(1, keepdims=True) - x
    counts, jack, how = _subject_weights(x.shape[0], reps, seed, clusters)
    mx, vx = _weighted_moments(counts, x)
    mr, vr = _weighted_moments(counts, rest)
    nn = counts.sum(1, keepdims=True)
    cov = (counts @ (x * rest) - nn * mx * mr) / (nn - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = cov / np.sqrt(vx * vr)
    lo, hi = np.clip(_subject_interval(r, boot, jack, level), -1.0, 1.0)
    out = pd.DataFrame(
        {"item": np.arange(x.shape[1]), "r": r, "low": lo, "high": hi, "mean": x.mean(0), "sd": x.std(0, ddof=1)}
    )
    out.attrs["method"] = how
    return out


def ceiling_questions(
    matrix,
    scores,
    top: int = 10,
    threshold: float = 9.0,
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
    interval: str | None = None,
) -> tuple[np.ndarray, Interval]:
    """Questions whose mean score over the ``top`` best runs (by ``scores``) is at least ``threshold``.

    Means ignore NaN (left-out answers). Returns the boolean mask over questions and the count as an
    :class:`Interval` whose bounds come from resampling the ``top`` runs with replacement (how
    the count moves with which strong runs happen to be on the board); ``n`` = ``top``. With fewer than
    :data:`~eqbench_nb.analysis.stats.SMALL_N` runs that percentile bootstrap must be asked for by name
    (``interval="percentile"``): over 10 runs it is indicative only.
    """
    from .stats import refuse_small_percentile

    refuse_small_percentile(top, interval, "ceiling_questions", "a statement of the count without an interval")
    m = np.asarray(matrix, dtype=float)
    best = np.argsort(-np.asarray(scores, float), kind="stable")[:top]
    sub = m[best]
    mask = np.nanmean(sub, axis=0) >= threshold
    fin = np.isfinite(sub)
    counts = bootstrap_counts(top, reps, seed).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (counts @ np.where(fin, sub, 0.0)) / (counts @ fin.astype(float))
    boot = (means >= threshold).sum(1)
    lo, hi = percentile_interval(boot, level)
    return mask, Interval(float(mask.sum()), float(lo), float(hi), top)


# ---------------------------------------------------------------------------------------------
# item response: two-parameter logistic model
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TwoPL:
    """A fitted 2PL model: P(pass) = logistic(a_j (θ_i - b_j)).

    ``theta`` (subjects) is standardised to mean 0 and SD 1 after fitting; ``a`` (discrimination)
    and ``b`` (difficulty, on the θ scale) are transformed with it, so the likelihood is unchanged.
    """

    theta: np.ndarray
    a: np.ndarray
    b: np.ndarray
    log_posterior: float
    converged: bool

    def probabilities(self) -> np.ndarray:
        return _spec.expit(self.a[None, :] * (self.theta[:, None] - self.b[None, :]))


def fit_2pl(
    responses,
    prior_sd_theta: float = 1.0,
    prior_sd_log_a: float = 0.5,
    prior_sd_b: float = 2.0,
    max_iter: int = 500,
) -> TwoPL:
    """Fit a 2PL model to a subjects x items 0/1 matrix (NaN = not observed) by joint MAP estimation.

    All parameters are estimated together (L-BFGS with analytic gradients) with weak normal
    priors — θ ~ N(0, prior_sd_theta²), log a ~ N(0, prior_sd_log_a²), b ~ N(0, prior_sd_b²) —
    which keep an item that every subject passes (or fails) at a finite difficulty and make
    the joint estimate well defined with few subjects. Joint estimation shrinks extreme
    parameters; rank orders of a and b are what it recovers best.
    """
    y = np.asarray(responses, dtype=float)
    obs = np.isfinite(y)
    y0 = np.where(obs, y, 0.0)
    n, k = y.shape

    def unpack(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return p[:n], p[n : n + k], p[n + k :]

    def objective(p: np.ndarray) -> tuple[float, np.ndarray]:
        theta, log_a, b = unpack(p)
        a = np.exp(log_a)
        eta = a[None, :] * (theta[:, None] - b[None, :])
        loglik = np.where(obs, y0 * eta - np.logaddexp(0.0, eta), 0.0).sum()
        resid = np.where(obs, y0 - _spec.expit(eta), 0.0)  # d loglik / d eta
        g_theta = (resid * a[None, :]).sum(1) - theta / prior_sd_theta**2
        g_log_a = (resid * (theta[:, None] - b[None, :])).sum(0) * a - log_a / prior_sd_log_a**2
        g_b = -(resid * a[None, :]).sum(0) - b / prior_sd_b**2
        logpost = (
            loglik
            - 0.5 * (theta**2).sum() / prior_sd_theta**2
            - 0.5 * (log_a**2).sum() / prior_sd_log_a**2
            - 0.5 * (b**2).sum() / prior_sd_b**2
        )
        return -logpost, -np.concatenate([g_theta, g_log_a, g_b])

    # start: θ from standardised pass rates of subjects, b from item pass rates
    with np.errstate(invalid="ignore", divide="ignore"):
        ps = np.clip(np.nanmean(np.where(obs, y, np.nan), axis=1), 0.02, 0.98)
        pi = np.clip(np.nanmean(np.where(obs, y, np.nan), axis=0), 0.02, 0.98)
    t0 = _spec.logit(ps)
    t0 = (t0 - t0.mean()) / (t0.std() or 1.0)
    p0 = np.concatenate([t0, np.zeros(k), -_spec.logit(pi) / 1.7])
    res = _opt.minimize(objective, p0, jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
    theta, log_a, b = unpack(res.x)
    a = np.exp(log_a)
    mu, sd = theta.mean(), theta.std() or 1.0
    return TwoPL((theta - mu) / sd, a * sd, (b - mu) / sd, float(-res.fun), bool(res.success))


# ---------------------------------------------------------------------------------------------
# short form
# ---------------------------------------------------------------------------------------------


def _nan_rowmean(m: np.ndarray) -> np.ndarray:
    fin = np.isfinite(m)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(fin, m, 0.0).sum(1) / fin.sum(1)


def _corr_columns(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each column of ``x`` with ``y`` (NaN rows of a column left out)."""
    ok = np.isfinite(x)
    if ok.all():  # the common case, without the masking
        xc, yc = x - x.mean(0), y - y.mean()
        with np.errstate(invalid="ignore", divide="ignore"):
            return (yc @ xc) / np.sqrt((xc * xc).sum(0) * (yc @ yc))
    yy = np.where(ok, y[:, None], 0.0)
    xx = np.where(ok, x, 0.0)
    n = ok.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx, my = xx.sum(0) / n, yy.sum(0) / n
        cov = (xx * yy).sum(0) / n - mx * my
        vx = (xx * xx).sum(0) / n - mx**2
        vy = (yy * yy).sum(0) / n - my**2
        return cov / np.sqrt(vx * vy)


def select_short_form(matrix, k: int, method: str = "greedy", seed: int | None = 0, target=None) -> np.ndarray:
    """Positions of ``k`` questions chosen on the rows of ``matrix`` (NaN = left out).

    ``target`` is each row's full score (default: the NaN-ignoring row mean). Methods:
    ``"greedy"`` — forward selection, each step adding the question that most raises the Pearson
    r between the short-form mean and the target; ``"item_rest"`` — the k questions with the
    highest item–rest correlation (left-out answers as 0); ``"random"`` — k questions at random.
    The greedy order is kept, so the first j positions are the greedy choice for j questions.
    """
    m = np.asarray(matrix, dtype=float)
    _, q = m.shape  # a matrix: anything else fails here, as before
    if not 1 <= k <= q:
        raise ValueError(f"k must be between 1 and {q}")
    if method == "random":
        return np.random.default_rng(seed).choice(q, size=k, replace=False)
    if method == "item_rest":
        r = item_rest_correlations(complete_matrix(m))
        return np.argsort(-np.nan_to_num(r, nan=-np.inf), kind="stable")[:k]
    if method != "greedy":
        raise ValueError("method must be 'greedy', 'item_rest' or 'random'")
    y = _nan_rowmean(m) if target is None else np.asarray(target, float)
    return _greedy_order(m, k, y)


_MAX_FLOAT = np.finfo(float).max


def _greedy_order(m: np.ndarray, k: int, y: np.ndarray) -> np.ndarray:
    """The greedy forward selection of :func:`select_short_form`.

    It runs tens of thousands of times in notebook 08 on small matrices, so the time is numpy's
    per-call overhead: what does not change between steps (the centred target, its sum of squares)
    is computed once, the error state is set once, and the reductions call the ufuncs directly.
    Every floating-point operation on each element is the one :func:`_corr_columns` does, in the
    same order, so the choice is the same to the bit (tests/test_psychometrics_speed.py).
    """
    n, q = m.shape
    fin = np.isfinite(m)
    x0 = np.where(fin, m, 0.0)
    yc = y - y.mean()
    yy = yc @ yc
    s, c = np.zeros(n), np.zeros(n)
    chosen: list[int] = []
    taken = np.zeros(q, dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        for _ in range(k):
            cand = (s[:, None] + x0) / (c[:, None] + fin)
            if np.isfinite(cand).all():  # _corr_columns' unmasked case, with the target's part done once
                xc = cand - np.add.reduce(cand, axis=0) / n
                r = (yc @ xc) / np.sqrt(np.add.reduce(xc * xc, axis=0) * yy)
            else:
                r = _corr_columns(cand, y)
            # as np.nan_to_num(r, nan=-inf) after r[taken] = -inf: taken and -inf end at -max, NaN below them
            np.clip(r, -_MAX_FLOAT, _MAX_FLOAT, out=r)
            r[taken] = -_MAX_FLOAT
            r[np.isnan(r)] = -np.inf
            j = int(r.argmax())
            chosen.append(j)
            taken[j] = True
            s += x0[:, j]
            c += fin[:, j]
    return np.array(chosen)


def short_form_cv(
    matrix,
    ks: Sequence[int] = (20, 40, 60),
    methods: Sequence[str] = ("greedy", "item_rest", "random"),
    folds: int = 5,
    repeats: int = 10,
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
    scale: float = 10.0,
) -> pd.DataFrame:
    """Cross-validated short forms: k questions chosen on training runs, judged on held-out runs.

    For each of ``repeats`` random partitions of the runs into ``folds`` folds, each fold is
    held out in turn: the questions are chosen on the other runs (:func:`select_short_form`), a
    line mapping the short-form score (``scale`` x NaN-ignoring mean over the k questions) to the
    full score (the same over all questions) is fitted on them, and the held-out runs' full
    scores are predicted. Held-out ``r`` (Pearson) and ``rmse`` (points) are computed per repeat
    over all runs and averaged over repeats; ``r_low/high`` and ``rmse_low/high`` are percentile
    bootstrap intervals with the **runs** resampled (the same resample applied to every repeat's
    held-out predictions). Also ``raw_rmse``: RMSE of the uncalibrated short-form score.
    """
    m = np.asarray(matrix, dtype=float)
    n = m.shape[0]
    y = scale * _nan_rowmean(m)
    rng = np.random.default_rng(seed)
    kmax = max(ks)
    pred = {(meth, k): np.full((repeats, n), np.nan) for meth in methods for k in ks}
    raw = {key: np.full((repeats, n), np.nan) for key in pred}
    for rep in range(repeats):
        fold_of = rng.permutation(n) % folds
        for f in range(folds):
            test, train = fold_of == f, fold_of != f
            for meth in methods:
                order = (
                    select_short_form(m[train], kmax, meth, seed=int(rng.integers(1 << 31)), target=y[train])
                    if meth != "random"
                    else None
                )
                for k in ks:
                    cols = order[:k] if order is not None else rng.choice(m.shape[1], size=k, replace=False)
                    short = scale * _nan_rowmean(m[:, cols])
                    ok = train & np.isfinite(short)
                    slope, icpt = np.polyfit(short[ok], y[ok], 1)
                    fill = np.where(np.isfinite(short), short, np.nanmean(short[train]))
                    pred[(meth, k)][rep, test] = slope * fill[test] + icpt
                    raw[(meth, k)][rep, test] = fill[test]
    counts = bootstrap_counts(n, reps, seed).astype(float)  # reps x runs; the same resample for every repeat
    cy, cyy = counts @ y, counts @ (y * y)
    rows = []
    for (meth, k), p in pred.items():
        r_rep = np.array([np.corrcoef(p[i], y)[0, 1] for i in range(repeats)])
        rmse_rep = np.sqrt(((p - y) ** 2).mean(1))
        cp, cpp, cpy = counts @ p.T, counts @ (p * p).T, counts @ (p * y).T  # reps x repeats
        cov = cpy / n - (cp / n) * (cy / n)[:, None]
        var_p = cpp / n - (cp / n) ** 2
        var_y = (cyy / n - (cy / n) ** 2)[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            r_boot = (cov / np.sqrt(var_p * var_y)).mean(1)
        rmse_boot = np.sqrt(counts @ ((p - y) ** 2).T / n).mean(1)
        rlo, rhi = percentile_interval(r_boot, level)
        elo, ehi = percentile_interval(rmse_boot, level)
        rows.append(
            {
                "method": meth,
                "k": k,
                "r": float(r_rep.mean()),
                "r_low": float(rlo),
                "r_high": float(rhi),
                "r_mc_se": float(r_rep.std(ddof=1) / np.sqrt(repeats)) if repeats > 1 else np.nan,
                "rmse_mc_se": float(rmse_rep.std(ddof=1) / np.sqrt(repeats)) if repeats > 1 else np.nan,
                "rmse": float(rmse_rep.mean()),
                "rmse_low": float(elo),
                "rmse_high": float(ehi),
                "raw_rmse": float(np.sqrt(((raw[(meth, k)] - y) ** 2).mean(1)).mean()),
                "n_runs": n,
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# is it just general capability?
# ---------------------------------------------------------------------------------------------


def _residualise(v: np.ndarray, z: np.ndarray) -> np.ndarray:
    design = np.column_stack([np.ones(len(z)), z])
    coef, *_ = np.linalg.lstsq(design, v, rcond=None)
    return v - design @ coef


def _r2(y: np.ndarray, design: np.ndarray) -> float:
    d = np.column_stack([np.ones(len(y)), design])
    coef, *_ = np.linalg.lstsq(d, y, rcond=None)
    resid = y - d @ coef
    return float(1.0 - (resid @ resid) / ((y - y.mean()) @ (y - y.mean())))


def partial_correlation(x, y, z) -> float:
    """Pearson r of ``x`` and ``y`` after each is regressed (with intercept) on ``z`` (1-D or columns)."""
    x, y, z = np.asarray(x, float), np.asarray(y, float), np.asarray(z, float)
    rx, ry = _residualise(x, z), _residualise(y, z)
    return float(rx @ ry / np.sqrt((rx @ rx) * (ry @ ry)))


def incremental_r2(y, base, added) -> float:
    """R² of ``y`` on ``base`` and ``added`` together minus R² of ``y`` on ``base`` alone (OLS, intercept)."""
    y, base, added = np.asarray(y, float), np.asarray(base, float), np.asarray(added, float)
    return _r2(y, np.column_stack([base, added])) - _r2(y, base.reshape(len(y), -1))


def cluster_bootstrap_weights(clusters: Sequence, reps: int = DEFAULT_REPS, seed: int | None = 0) -> np.ndarray:
    """Row weights of a bootstrap that resamples whole **clusters**: shape ``(reps, n_rows)``.

    ``clusters`` labels each row. Each replicate draws as many clusters as there are, with
    replacement; a row's weight is how often its cluster was drawn (a cluster drawn twice
    contributes its rows twice). With every row its own cluster this is the ordinary bootstrap.
    """
    codes, uniq = pd.factorize(pd.Series([str(c) for c in clusters]))
    drawn = bootstrap_counts(len(uniq), reps, seed).astype(float)  # reps x clusters
    return drawn[:, codes]


def _control_stats(r_xy, r_xz, r_yz) -> dict[str, np.ndarray]:
    """r, partial r(x, y | z), incremental R² of x over z for y, and R²(y ~ z), from the three correlations."""
    r_xy, r_xz, r_yz = (np.asarray(v, float) for v in (r_xy, r_xz, r_yz))
    with np.errstate(invalid="ignore", divide="ignore"):
        partial = (r_xy - r_xz * r_yz) / np.sqrt((1 - r_xz**2) * (1 - r_yz**2))
        r2_full = (r_yz**2 + r_xy**2 - 2 * r_xy * r_xz * r_yz) / (1 - r_xz**2)
    return {"r": r_xy, "partial_r": partial, "incremental_r2": r2_full - r_yz**2, "r2_control_only": r_yz**2}


def capability_control(
    df: pd.DataFrame,
    eq: str,
    outcome: str,
    control: str,
    cluster: str | None = None,
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Does ``eq`` tell anything about ``outcome`` beyond ``control``? Partial r and incremental R².

    Over the rows of ``df`` with all three columns finite: ``r`` (eq with outcome), ``partial_r``
    (the same with ``control`` partialled out of both), ``incremental_r2`` (R² of outcome on
    control and eq minus R² on control alone; OLS with intercept) and ``r2_control_only``. Each has
    an interval with the rows (models) as the units (``low``, ``high``, ``method``) and, when ``cluster``
    names a column, one with the clusters as the units (``cluster_low``, ``cluster_high``, ``cluster_method``):
    fine-tunes of one base model then enter or leave together. Either follows the house rule by its number of
    units k: from :data:`~.stats.SMALL_N` on a percentile bootstrap over them (whole clusters drawn); below, the
    closed forms with k as n: Fisher's z for r (n = k) and for the partial r (n = k - 1, one variable
    partialled out), and for the R² statistics, which have no such closed form, a Student t interval with the
    standard error from leaving out one unit at a time (:func:`~.stats.jackknife_t_interval`, clipped to [0, 1]).
    """
    cols = [eq, outcome, control] + ([cluster] if cluster else [])
    d = df.dropna(subset=[eq, outcome, control])[cols].reset_index(drop=True)
    x, y, z = (d[c].to_numpy(float) for c in (eq, outcome, control))
    est = {
        "r": float(np.corrcoef(x, y)[0, 1]),
        "partial_r": partial_correlation(x, y, z),
        "incremental_r2": incremental_r2(y, z, x),
        "r2_control_only": _r2(y, z[:, None]),
    }

    def boot(weights: np.ndarray) -> dict[str, np.ndarray]:
        return _control_stats(*(weighted_pearson(a, b, weights) for a, b in ((x, y), (x, z), (y, z))))

    def intervals(labels: Sequence) -> dict[str, tuple[float, float, str]]:
        """Each statistic's interval with the rows grouped by ``labels`` as the resampled units (the house rule
        by their number k: a percentile bootstrap from SMALL_N on; below, Fisher's z with n = k for r and
        n = k - 1 for the partial r, a leave-one-unit-out Student t clipped to [0, 1] for the R² statistics)."""
        codes = pd.factorize(pd.Series([str(v) for v in labels]))[0]
        k = int(codes.max()) + 1
        if k >= SMALL_N:
            b = boot(cluster_bootstrap_weights(codes, reps, seed))
            how = f"{PERCENTILE} over {k} units, {reps:,} resamples"
            bounds = {m: percentile_interval(b[m][np.isfinite(b[m])], level) for m in est}
            return {m: (float(lo), float(hi), how) for m, (lo, hi) in bounds.items()}
        jack = boot((codes[None, :] != np.arange(k)[:, None]).astype(float))  # every unit left out once
        out: dict[str, tuple[float, float, str]] = {}
        for m, value in est.items():
            if m in ("r", "partial_r"):
                n_eff = k - (m == "partial_r")
                lo, hi = fisher_z_ci(value, n_eff, level)
                out[m] = (
                    lo,
                    hi,
                    f"Fisher z with n = {n_eff} ({k} units" + (", one partialled out)" if n_eff < k else ")"),
                )
            else:
                lo, hi = jackknife_t_interval(value, jack[m], level)
                out[m] = (
                    max(lo, 0.0),
                    min(hi, 1.0),
                    f"Student t, SE from leaving out one of {k} units, clipped to [0, 1]",
                )
        return out

    plain = intervals(range(len(d)))
    clustered = intervals(d[cluster].tolist()) if cluster else None
    rows = []
    for name, value in est.items():
        lo, hi, how = plain[name]
        row = {"statistic": name, "estimate": value, "low": lo, "high": hi, "n": len(d), "method": how}
        if clustered is not None:
            clo, chi, chow = clustered[name]
            row |= {
                "cluster_low": clo,
                "cluster_high": chi,
                "n_clusters": int(d[cluster].nunique()),
                "cluster_method": chow.replace("units", "clusters"),
            }
        rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# the short form, validated on questions it does not contain
# ---------------------------------------------------------------------------------------------


def _line_with_interval(x_tr: np.ndarray, y_tr: np.ndarray, x_new: np.ndarray, level: float):
    """OLS line of y on x: predictions at ``x_new`` and their prediction-interval half-widths (t, n - 2)."""
    from scipy import stats as _sps

    n = len(x_tr)
    slope, icpt = np.polyfit(x_tr, y_tr, 1)
    resid = y_tr - (slope * x_tr + icpt)
    s = np.sqrt(resid @ resid / (n - 2))
    sxx = ((x_tr - x_tr.mean()) ** 2).sum()
    half = _sps.t.ppf(0.5 + level / 2, n - 2) * s * np.sqrt(1 + 1 / n + (x_new - x_tr.mean()) ** 2 / sxx)
    return slope * x_new + icpt, half, (slope, icpt, s)


def _question_se(m: np.ndarray, scale: float) -> np.ndarray:
    """Per row: the standard error of ``scale`` x its NaN-ignoring mean, questions as the sample."""
    fin = np.isfinite(m)
    k = fin.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return scale * np.nanstd(m, axis=1, ddof=1) / np.sqrt(k)


@dataclass(frozen=True)
class ShortForm:
    """A short form fitted on some runs: its questions and the line from its score to a target score.

    ``questions``: column positions, in the order chosen. ``slope``, ``intercept``: target ≈ intercept +
    slope x form score (both ``scale`` x mean question score). ``sd``: the cross-validated SD of that
    prediction on runs the line was not fitted on (:func:`fit_short_form`); ``n_runs``: runs fitted on.
    """

    questions: np.ndarray
    slope: float
    intercept: float
    sd: float
    n_runs: int

    def predict(self, form_score, level: float = DEFAULT_LEVEL) -> tuple[np.ndarray, np.ndarray]:
        """Predicted target score and the half-width of its ``level`` prediction interval (t, n - 2)."""
        x = np.asarray(form_score, dtype=float)
        # the cached quantile (the same ppf call): short_form_validation predicts 1,050 times with the same n
        half = t_quantile(level, self.n_runs - 2) * self.sd * np.sqrt(1 + 1 / self.n_runs)
        return self.intercept + self.slope * x, np.full(x.shape, half)


def _form_line(m: np.ndarray, y: np.ndarray, pool: np.ndarray, k: int, method: str, seed: int, scale: float):
    order = pool[select_short_form(m[:, pool], k, method, seed=seed, target=y)]
    x = scale * _nan_rowmean(m[:, order])
    x = np.where(np.isfinite(x), x, np.nanmean(x))
    slope, icpt = np.polyfit(x, y, 1)
    return order, float(slope), float(icpt)


def _form_score(m: np.ndarray, cols: np.ndarray, scale: float, fill: float) -> np.ndarray:
    x = scale * _nan_rowmean(m[:, cols])
    return np.where(np.isfinite(x), x, fill)


def fit_short_form(
    matrix,
    target,
    k: int,
    pool=None,
    method: str = "greedy",
    inner_folds: int = 5,
    seed: int | None = 0,
    scale: float = 10.0,
) -> ShortForm:
    """Choose a k-question form from ``pool`` (default: all questions) and fit the line to ``target``.

    ``target`` is each run's score to predict (``scale`` x mean over questions *not* in the pool, when
    the form is to be judged on new questions). The prediction SD is **cross-validated**: the whole
    procedure (choice and line) is repeated on ``inner_folds`` - 1 folds of the runs and the RMS error
    on the left-out fold is the SD. A greedy choice fits its own runs too well, so the residual SD of
    the final line would be too small (in :func:`short_form_validation` its interval covered about
    three quarters of new runs instead of 95 %).
    """
    m = np.asarray(matrix, dtype=float)
    y = np.asarray(target, dtype=float)
    n, q = m.shape
    pool = np.arange(q) if pool is None else np.asarray(pool)
    rng = np.random.default_rng(seed)
    fold_of = rng.permutation(n) % inner_folds
    err = np.empty(n)
    for f in range(inner_folds):
        test, train = fold_of == f, fold_of != f
        order, slope, icpt = _form_line(m[train], y[train], pool, k, method, int(rng.integers(1 << 31)), scale)
        x = _form_score(m, order, scale, float(np.nanmean(scale * _nan_rowmean(m[train][:, order]))))
        err[test] = icpt + slope * x[test] - y[test]
    order, slope, icpt = _form_line(m, y, pool, k, method, int(rng.integers(1 << 31)), scale)
    return ShortForm(order, slope, icpt, float(np.sqrt(np.mean(err**2))), n)


def short_form_validation(
    matrix,
    ks: Sequence[int] = (20, 40, 60),
    methods: Sequence[str] = ("greedy", "random"),
    folds: int = 5,
    repeats: int = 10,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
    scale: float = 10.0,
    split_questions: bool = True,
    reps: int = DEFAULT_REPS,
) -> pd.DataFrame:
    """A short form judged on **runs and questions it was not chosen on**, like with like.

    Each repeat draws a random half of the questions as the *pool* and keeps the other half as the
    *target*, and splits the runs into ``folds``. For each held-out fold, :func:`fit_short_form` chooses
    k questions from the pool on the training runs only (its target: their score on the target
    questions) and fits the line and its cross-validated SD there; the held-out runs' target scores are
    then predicted with a ``level`` prediction interval. No held-out run and no target question enters
    the choice of the form. Per (method, k), over all held-out predictions:

    - ``rmse_target``: RMSE (points) against the score on the target questions;
    - ``se_target``: the root mean square of the target score's own standard error over its
      questions (the target is itself a sample of questions);
    - ``rmse_universe``: ``sqrt(rmse_target² - se_target²)``, the error against the score on all
      possible questions — an SD, comparable with the full score's standard error (NaN without
      ``split_questions``, where the target contains the form);
    - ``coverage``: the share of held-out target scores inside their prediction interval (nominal
      ``level``), and ``pi_half_width``, the median half-width of that interval;
    - ``rmse_universe_low``/``_high``: its ``level`` percentile bootstrap interval, the runs resampled (``reps``
      resamples; every held-out prediction of a drawn run comes along);
    - ``rmse_universe_mc_se``: the Monte-Carlo error of ``rmse_universe`` (from the spread over repeats of the
      difference of mean squares it is the root of, by the delta method), and ``rmse_universe_repeat_low``/
      ``_high``: the range of the same quantity computed repeat by repeat (what one repeat alone could have shown).

    With ``split_questions=False`` the pool is every question and the target the full score (the form's
    own questions included): the form as it is used, cross-validated over runs only.
    """
    m = np.asarray(matrix, dtype=float)
    n, q = m.shape
    rng = np.random.default_rng(seed)
    acc: dict[tuple[str, int], dict[str, list]] = {
        (meth, k): {"err": [], "se": [], "inside": [], "half": [], "rep": []} for meth in methods for k in ks
    }
    for rep in range(repeats):
        perm = rng.permutation(q)
        pool, target = np.sort(perm[: q // 2]), np.sort(perm[q // 2 :])
        if not split_questions:
            pool = target = np.arange(q)
        y = scale * _nan_rowmean(m[:, target])
        se_y = _question_se(m[:, target], scale)
        fold_of = rng.permutation(n) % folds
        for f in range(folds):
            test, train = fold_of == f, fold_of != f
            for meth in methods:
                for k in ks:
                    form = fit_short_form(
                        m[train], y[train], k, pool, meth, seed=int(rng.integers(1 << 31)), scale=scale
                    )
                    fill = float(np.nanmean(scale * _nan_rowmean(m[train][:, form.questions])))
                    pred, half = form.predict(_form_score(m[test], form.questions, scale, fill), level)
                    a = acc[(meth, k)]
                    a["err"].append(pred - y[test])
                    a["se"].append(se_y[test])
                    a["inside"].append(np.abs(pred - y[test]) <= half)
                    a["half"].append(half)
                    a["rep"].append(np.full(len(pred), rep))
                    a.setdefault("run", []).append(np.flatnonzero(test))
    counts = bootstrap_counts(n, reps, seed).astype(float)  # runs resampled, the same draws for every form
    rows = []
    for (meth, k), a in acc.items():
        err, se = np.concatenate(a["err"]), np.concatenate(a["se"])
        rmse, se_rms = float(np.sqrt(np.mean(err**2))), float(np.sqrt(np.mean(se**2)))
        rep_of = np.concatenate(a["rep"])
        # per repeat, the difference of mean squares that the pooled value is the root of; its spread over the
        # repeats gives the pooled value's Monte-Carlo error (delta method: SE(sqrt D) = SE(D) / (2 sqrt D))
        d_rep = np.array([np.mean(err[rep_of == r] ** 2) - np.mean(se[rep_of == r] ** 2) for r in range(repeats)])
        per_repeat = np.sqrt(np.maximum(d_rep, 0.0))
        pooled = np.sqrt(max(rmse**2 - se_rms**2, 0.0))
        mc_se = float(d_rep.std(ddof=1) / np.sqrt(repeats) / (2 * pooled)) if repeats > 1 and pooled > 0 else np.nan
        run_of = np.concatenate(a["run"])  # per run: its predictions' squared errors and squared target SEs
        e2 = np.bincount(run_of, weights=err**2, minlength=n)
        s2 = np.bincount(run_of, weights=se**2, minlength=n)
        k_run = np.bincount(run_of, minlength=n).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            boot = np.sqrt(np.maximum((counts @ e2 - counts @ s2) / (counts @ k_run), 0.0))
        u_lo, u_hi = percentile_interval(boot, level)
        rows.append(
            {
                "method": meth,
                "k": k,
                "rmse_target": rmse,
                "se_target": se_rms,
                # only with disjoint questions is the target's own error independent of the prediction's
                "rmse_universe": float(np.sqrt(max(rmse**2 - se_rms**2, 0.0))) if split_questions else np.nan,
                "rmse_universe_low": float(u_lo) if split_questions else np.nan,
                "rmse_universe_high": float(u_hi) if split_questions else np.nan,
                "rmse_universe_mc_se": mc_se if split_questions else np.nan,
                "rmse_universe_repeat_low": float(per_repeat.min()) if split_questions else np.nan,
                "rmse_universe_repeat_high": float(per_repeat.max()) if split_questions else np.nan,
                "coverage": float(np.mean(np.concatenate(a["inside"]))),
                "pi_half_width": float(np.median(np.concatenate(a["half"]))),
                "n_predictions": len(err),
                "repeats": repeats,
            }
        )
    return pd.DataFrame(rows)


def full_score_se(matrix, scale: float = 10.0) -> np.ndarray:
    """Each run's standard error of its full score (``scale`` x mean), questions as the sample."""
    return _question_se(np.asarray(matrix, dtype=float), scale)


def interval_calibrated(coverage: float, level: float, n_runs: int) -> bool:
    """Is a cross-validated coverage within two binomial standard errors of ``level``, with the runs as n?"""
    return bool(abs(coverage - level) <= 2.0 * np.sqrt(level * (1.0 - level) / n_runs))


def short_form_verdict(coverage: float, level: float, n_runs: int, rmse_form: float, rmse_random: float) -> str:
    """Does a short form survive validation? Its null: *its interval does not have the stated coverage, or
    random questions do as well*.

    "supported" when the cross-validated coverage is within two binomial standard errors of ``level``
    (the runs, not the repeated predictions, as the sample size: repeats of one run are not independent)
    **and** the form's error against new questions is below that of ``rmse_random`` (a random form of the
    same k); "interval miscalibrated" when the coverage is off; otherwise "no better than random questions".
    """
    if not interval_calibrated(coverage, level, n_runs):
        return "interval miscalibrated"
    if not rmse_form < rmse_random:
        return "no better than random questions"
    return "supported"


def variance_share(matrix, mask) -> float:
    """Share of the variance of the total score (sum over items) carried by the items in ``mask``.

    ``var(total) = Σ_j cov(x_j, total)``, so the items' covariances with the total, summed over the
    mask and divided by var(total), give a share that adds to 1 over all items (an item that moves
    with the total carries more than its 1/k).
    """
    x = np.asarray(matrix, dtype=float)
    if np.isnan(x).any():
        raise ValueError("variance_share needs a complete matrix (complete_matrix)")
    t = x.sum(1)
    cov = ((x - x.mean(0)) * (t - t.mean())[:, None]).sum(0) / (len(t) - 1)
    return float(cov[np.asarray(mask, bool)].sum() / t.var(ddof=1))


def ceiling_verdict(share_low: float, share_high: float, item_share: float) -> str:
    """Do ceiling questions carry less of the score variance than their share of the items (the null)?

    From an interval of :func:`variance_share` over resampled runs: "less than their share" when it
    lies below ``item_share``, "more than their share" when above, else "not distinguishable from their share"
    (an interval that includes the null settles nothing: :mod:`eqbench_nb.analysis.verdicts`).
    """
    from .verdicts import interval_side

    side = interval_side(share_low, share_high, item_share)
    return {"below": "less than their share", "above": "more than their share"}.get(
        side, "not distinguishable from their share"
    )


def variance_share_interval(
    matrix, mask, reps: int = DEFAULT_REPS, level: float = DEFAULT_LEVEL, seed: int | None = 0
) -> Interval:
    """:func:`variance_share` with a percentile bootstrap interval, the **subjects (runs)** resampled."""
    x = np.asarray(matrix, dtype=float)
    est = variance_share(x, mask)
    idx = np.random.default_rng(seed).integers(0, len(x), size=(reps, len(x)))
    boot = np.array([variance_share(x[i], mask) for i in idx])
    lo, hi = percentile_interval(boot[np.isfinite(boot)], level)
    return Interval(est, float(lo), float(hi), len(x))


def partial_r_verdict(low: float, high: float, cluster_low: float, cluster_high: float) -> str:
    """How many of the two intervals of a partial correlation (models, lineages resampled) exclude the null
    of *no information beyond the control* (0): "both", "one" or "none" (both must lie above 0 to count)."""
    return {2: "both", 1: "one", 0: "none"}[int(low > 0) + int(cluster_low > 0)]
