"""Prediction-powered inference for a mean (a share, for 0/1 labels), confusion-matrix calibration of a judge's
shares to the human scale, and the coverage demonstration.

PPI (Angelopoulos et al. 2023, Science; the power-tuned PPI++ of Angelopoulos, Duchi & Zrnic 2023, arXiv
2311.01453): from n human labels ``y`` with the judge's labels ``yhat`` on the same items, and the judge's labels
``yhat_unlabeled`` on N other items, the estimate ``λ·mean(yhat_unlabeled) + mean(y − λ·yhat)`` is unbiased for the
human mean whatever the judge's quality, with the normal interval of variance
``var(λ·yhat_unlabeled)/N + var(y − λ·yhat)/n``. ``λ = 1`` is plain PPI, ``λ = 0`` the human-only (classical)
interval, and ``λ = None`` chooses it from the data as ``ppi_py.ppi_mean_ci`` does (clipped to [0, 1]).

This follows ``ppi_py.ppi_mean_ci`` of ``ppi-python`` 0.2.3 formula for formula (variances with ddof 0, the
power-tuning λ from the labelled and unlabelled judge labels together) and is tested against values that function
gave. ``ppi-python`` is not a dependency: it requires numba (and llvmlite) and gdown at import, and its resolver
downgrades numpy, scipy and pandas below this project's pins.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class PPIInterval:
    """A prediction-powered estimate of a mean, its interval and the power-tuning λ used."""

    estimate: float
    low: float
    high: float
    lam: float

    @property
    def width(self) -> float:
        return self.high - self.low


def power_tuning(y: np.ndarray, yhat: np.ndarray, yhat_unlabeled: np.ndarray) -> float:
    """PPI++'s λ for a mean: ``cov(y, yhat) / ((1 + n/N) var(yhat ∪ yhat_unlabeled))``, clipped to [0, 1] (the
    covariance around the plain-PPI estimate, which centring removes; var with ddof 1 as ``np.cov``)."""
    n, big_n = len(y), len(yhat_unlabeled)
    cov = float(((y - y.mean()) * (yhat - yhat.mean())).sum() / n)
    var = float(np.var(np.concatenate([yhat, yhat_unlabeled]), ddof=1))
    if var == 0:
        return 0.0
    return float(np.clip(cov / ((1 + n / big_n) * var), 0.0, 1.0))


def ppi_mean_ci(
    y: Sequence[float] | np.ndarray,
    yhat: Sequence[float] | np.ndarray,
    yhat_unlabeled: Sequence[float] | np.ndarray,
    alpha: float = 0.1,
    lam: float | None = None,
) -> PPIInterval:
    """The prediction-powered (1 − alpha) interval for the mean of ``y`` (module docstring). ``alpha`` defaults to
    0.1 as ``ppi_py``'s does; pass 0.05 for a 95 % interval."""
    y_, yh, yu = (np.asarray(v, dtype=float) for v in (y, yhat, yhat_unlabeled))
    if len(y_) != len(yh) or len(y_) < 2 or len(yu) < 1:
        raise ValueError(
            f"y, yhat: equal lengths of at least 2 labelled items and some unlabelled ones expected, got {len(y_)}, "
            f"{len(yh)} and {len(yu)}"
        )
    if not 0 < alpha < 1:
        raise ValueError(f"alpha: {alpha} is not in (0, 1)")
    lam_ = power_tuning(y_, yh, yu) if lam is None else float(lam)
    estimate = float(lam_ * yu.mean() + (y_ - lam_ * yh).mean())
    se = math.sqrt(float(np.var(lam_ * yu)) / len(yu) + float(np.var(y_ - lam_ * yh)) / len(y_))
    z = _two_sided_z(alpha)
    return PPIInterval(estimate, estimate - z * se, estimate + z * se, lam_)


@functools.lru_cache(maxsize=64)
def _two_sided_z(alpha: float) -> float:
    """The normal quantile of a two-sided (1 - alpha) interval, computed once per alpha: scipy's ppf costs about
    0.1 ms a call, and :func:`coverage_demo` builds 12,000 intervals at one alpha (a tenth of notebook 14)."""
    return float(stats.norm.ppf(1 - alpha / 2))


def classical_mean_ci(y: Sequence[float] | np.ndarray, alpha: float = 0.1) -> PPIInterval:
    """The human-only interval PPI is compared with: ``ppi_mean_ci`` with λ = 0 (normal, var with ddof 0)."""
    y_ = np.asarray(y, dtype=float)
    return ppi_mean_ci(y_, np.zeros_like(y_), np.zeros(1), alpha=alpha, lam=0.0)


def calibration_matrix(
    human: Sequence[int] | np.ndarray, judge: Sequence[int] | np.ndarray, categories: Sequence[int]
) -> np.ndarray:
    """``P(human = k | judge = j)`` estimated on items both rated: rows j (the judge's category), columns k. A
    category the judge never used keeps the identity row (no evidence to move it)."""
    h, j = np.asarray(human), np.asarray(judge)
    q = len(categories)
    m = np.eye(q)
    for row, cj in enumerate(categories):
        mask = j == cj
        if mask.any():
            m[row] = [(h[mask] == ck).mean() for ck in categories]
    return m


def calibrated_shares(judge: Sequence[int] | np.ndarray, matrix: np.ndarray, categories: Sequence[int]) -> np.ndarray:
    """A judge's category shares on some items, moved to the human scale: ``Σ_j share_j · P(human = k | judge = j)``
    (assumes the judge's confusion with people is the same on these items as where it was estimated)."""
    j = np.asarray(judge)
    raw = np.array([(j == c).mean() for c in categories])
    return np.asarray(raw @ matrix)


def label_shift_shares(
    judge: Sequence[int] | np.ndarray, given_human: np.ndarray, categories: Sequence[int]
) -> np.ndarray:
    """The human category shares that explain a judge's shares through ``P(judge = j | human = k)`` (rows k, as
    :func:`calibration_matrix` gives with its arguments swapped): solve ``shares @ given_human = raw`` by least
    squares, clipped at 0 and renormalized. Unlike :func:`calibrated_shares` it assumes only that the judge's
    errors *given the human rating* carry over, so it survives a change in how often people say Good (label shift)."""
    j = np.asarray(judge)
    raw = np.array([(j == c).mean() for c in categories])
    x = np.clip(np.linalg.lstsq(np.asarray(given_human).T, raw, rcond=None)[0], 0.0, None)
    return np.asarray(x / x.sum()) if x.sum() > 0 else raw


@dataclass(frozen=True)
class CoverageRow:
    """The coverage demonstration at one n: how often each interval covered the truth, and their widths, over
    ``reps`` seeded resamples, each with its Monte-Carlo standard error."""

    n: int
    reps: int
    ppi_coverage: float
    ppi_coverage_mc: float
    classical_coverage: float
    classical_coverage_mc: float
    ppi_width: float
    classical_width: float
    width_ratio: float  # mean PPI width / mean classical width (below 1: PPI is narrower)
    width_ratio_mc: float
    mean_lam: float


def coverage_demo(
    y_all: Sequence[float] | np.ndarray,
    yhat_all: Sequence[float] | np.ndarray,
    ns: Sequence[int] = (50, 100, 200),
    reps: int = 1000,
    alpha: float = 0.05,
    seed: int = 0,
) -> list[CoverageRow]:
    """Pretend only n human labels are known: for each n, ``reps`` times draw n items (seeded, without
    replacement) as the labelled ones, the rest unlabelled with only the judge's labels, and check whether PPI's and
    the human-only interval cover the mean of ``y_all`` (the full truth). Monte-Carlo errors: ``√(c(1−c)/reps)``
    for a coverage, the delta method for the ratio of mean widths."""
    y, yh = np.asarray(y_all, dtype=float), np.asarray(yhat_all, dtype=float)
    truth = float(y.mean())
    rng = np.random.default_rng(seed)
    rows = []
    for n in ns:
        if not 2 <= n < len(y):
            raise ValueError(f"ns: {n} human labels is not between 2 and {len(y) - 1}")
        hit_p, hit_c, w_p, w_c, lams = [], [], [], [], []
        for _ in range(reps):
            mask = np.zeros(len(y), dtype=bool)
            mask[rng.choice(len(y), size=n, replace=False)] = True
            p = ppi_mean_ci(y[mask], yh[mask], yh[~mask], alpha=alpha)
            c = classical_mean_ci(y[mask], alpha=alpha)
            hit_p.append(p.low <= truth <= p.high)
            hit_c.append(c.low <= truth <= c.high)
            w_p.append(p.width)
            w_c.append(c.width)
            lams.append(p.lam)
        cp, cc = float(np.mean(hit_p)), float(np.mean(hit_c))
        wp, wc = np.asarray(w_p), np.asarray(w_c)
        ratio = float(wp.mean() / wc.mean())
        # delta method for a ratio of two means of paired draws
        resid = (wp - ratio * wc) / wc.mean()
        rows.append(
            CoverageRow(
                n,
                reps,
                cp,
                math.sqrt(cp * (1 - cp) / reps),
                cc,
                math.sqrt(cc * (1 - cc) / reps),
                float(wp.mean()),
                float(wc.mean()),
                ratio,
                float(resid.std(ddof=1) / math.sqrt(reps)),
                float(np.mean(lams)),
            )
        )
    return rows
