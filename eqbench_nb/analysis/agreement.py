"""Agreement between two raters on an ordinal scale: weighted kappa with its z and p, Spearman with its Fisher
interval, the confusion matrix, Krippendorff's alpha and Gwet's AC1/AC2.

Generic: it knows no benchmark. The weighted kappa is computed as Kumar et al. (2025) computed theirs
(``statsmodels.stats.inter_rater.cohens_kappa(table, wt="quadratic")``): the categories are the values either rater
used, sorted, and the disagreement weight of two categories is the squared difference of their *positions* in that
list (so a crowd's mean rating of 2.33 sits one step from 2.67, whatever the gap). Its standard error is the
large-sample one under the alternative (Fleiss, Cohen & Everitt 1969, as the SAS manual and statsmodels'
``var_kappa`` give it), its z is kappa / se and its p two-sided normal, again as the authors computed them. With
``categories`` given (a full scale, e.g. 1..3), unused categories count as positions too, which is what
``sklearn.metrics.cohen_kappa_score(..., labels=..., weights="quadratic")`` does.

Gwet's AC1/AC2 are here for the paradox kappa has when most ratings fall in one category (W&P's Good): kappa can be
near zero while raters agree on nearly every item.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

#: The normal quantile of Kumar et al.'s Fisher interval (they wrote 1.96, not the exact 97.5 % quantile).
FISHER_Z = 1.96


@dataclass(frozen=True)
class Kappa:
    """A weighted kappa with its large-sample standard error, z = kappa / se and two-sided normal p."""

    kappa: float
    se: float
    z: float
    p: float
    n: int


@dataclass(frozen=True)
class Spearman:
    """Spearman's rho, its p (scipy's t approximation) and the Fisher-z interval ``tanh(atanh(r) ± 1.96/√(n−3))``."""

    rho: float
    p: float
    low: float
    high: float
    n: int


def paired(a: object, b: object) -> tuple[np.ndarray, np.ndarray]:
    """Two ratings as float arrays with every item either rater left blank (NaN) dropped."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"ratings: two equal-length 1-d sequences expected, got shapes {x.shape} and {y.shape}")
    keep = ~(np.isnan(x) | np.isnan(y))
    return x[keep], y[keep]


def confusion_matrix(a: object, b: object, categories: object = None) -> tuple[np.ndarray, np.ndarray]:
    """(categories, counts): ``counts[i, j]`` items rater ``a`` put in ``categories[i]`` and ``b`` in
    ``categories[j]``. ``categories`` default: every value either rater used, sorted."""
    x, y = paired(a, b)
    cats = np.unique(np.concatenate([x, y])) if categories is None else np.asarray(categories, dtype=float)
    index = {float(c): i for i, c in enumerate(cats)}
    counts = np.zeros((len(cats), len(cats)))
    for u, v in zip(x, y, strict=True):
        if float(u) not in index or float(v) not in index:
            raise ValueError(f"ratings: {u if float(u) not in index else v} is not one of the categories {cats}")
        counts[index[float(u)], index[float(v)]] += 1
    return cats, counts


def kappa_from_table(table: np.ndarray, weights: Literal["quadratic", "linear", "none"] = "quadratic") -> Kappa:
    """Cohen's kappa of a confusion matrix, weighted by the categories' positions; se under the alternative."""
    t = np.asarray(table, dtype=float)
    n = t.sum()
    q = t.shape[0]
    if q < 2 or n == 0:
        return Kappa(math.nan, math.nan, math.nan, math.nan, int(n))
    pos = np.arange(q, dtype=float)
    gap = np.abs(pos[:, None] - pos) / (q - 1)
    disagreement = {"quadratic": gap**2, "linear": gap, "none": (gap > 0).astype(float)}[weights]
    agreement = 1.0 - disagreement
    p = t / n
    rows, cols = p.sum(1), p.sum(0)
    expected = rows[:, None] * cols
    observed_w, expected_w = (agreement * p).sum(), (agreement * expected).sum()
    if expected_w == 1.0:
        return Kappa(math.nan, math.nan, math.nan, math.nan, int(n))
    kappa = (observed_w - expected_w) / (1.0 - expected_w)
    # Fleiss, Cohen & Everitt (1969): the variance under the alternative, as statsmodels' var_kappa.
    w_row = (cols * agreement).sum(1)
    w_col = (rows[:, None] * agreement).sum(0)
    term = (p * (agreement - (w_col + w_row[:, None]) * (1 - kappa)) ** 2).sum()
    var = (term - (kappa - expected_w * (1 - kappa)) ** 2) / ((1 - expected_w) ** 2 * n)
    se = math.sqrt(var) if var > 0 else math.nan
    z = kappa / se if se and not math.isnan(se) else math.nan
    pval = 2 * stats.norm.sf(abs(z)) if not math.isnan(z) else math.nan
    return Kappa(float(kappa), se, z, float(pval), int(n))


def weighted_kappa(
    a: object,
    b: object,
    categories: object = None,
    weights: Literal["quadratic", "linear", "none"] = "quadratic",
) -> Kappa:
    """Weighted Cohen's kappa of two raters' ratings (NaN items dropped), with se, z and p (module docstring)."""
    _, table = confusion_matrix(a, b, categories)
    return kappa_from_table(table, weights)


def spearman_fisher(a: object, b: object, z_crit: float = FISHER_Z) -> Spearman:
    """Spearman's rho with scipy's p and the Fisher-z interval (NaN below n = 4, where it is undefined)."""
    x, y = paired(a, b)
    n = len(x)
    if n < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return Spearman(math.nan, math.nan, math.nan, math.nan, n)
    res = stats.spearmanr(x, y)
    rho, p = float(res.statistic), float(res.pvalue)
    if n <= 3:
        return Spearman(rho, p, math.nan, math.nan, n)
    z, half = math.atanh(min(max(rho, -1 + 1e-15), 1 - 1e-15)), z_crit / math.sqrt(n - 3)
    return Spearman(rho, p, math.tanh(z - half), math.tanh(z + half), n)


def gwet_ac(
    a: object, b: object, categories: object = None, weights: Literal["identity", "quadratic"] = "identity"
) -> float:
    """Gwet's agreement coefficient of two raters: AC1 (``identity`` weights) or AC2 (``quadratic``, weighted by
    the categories' values as irrCAC does). Chance agreement ``pe = T_w/(q(q−1)) Σ π_k(1−π_k)``, π_k the two
    raters' mean share of category k, T_w the sum of the weights: robust where most ratings fall in one category."""
    cats, table = confusion_matrix(a, b, categories)
    q = len(cats)
    if q < 2:
        return math.nan
    if weights == "identity":
        w = np.eye(q)
    else:
        w = 1.0 - (cats[:, None] - cats) ** 2 / (cats.max() - cats.min()) ** 2
    p = table / table.sum()
    pi = (p.sum(1) + p.sum(0)) / 2
    pa = (w * p).sum()
    pe = w.sum() / (q * (q - 1)) * (pi * (1 - pi)).sum()
    return float((pa - pe) / (1 - pe))


def krippendorff_alpha(
    ratings: object, level: Literal["nominal", "ordinal", "interval"] = "interval", categories: object = None
) -> float:
    """Krippendorff's alpha of a raters × units matrix (NaN: not rated), from the coincidence matrix. Ordinal
    distances use the marginal counts of the categories (``categories`` default: the values used, sorted)."""
    r = np.asarray(ratings, dtype=float)
    if r.ndim != 2:
        raise ValueError(f"ratings: a raters × units matrix expected, got shape {r.shape}")
    cats = np.unique(r[~np.isnan(r)]) if categories is None else np.asarray(categories, dtype=float)
    index = {float(c): i for i, c in enumerate(cats)}
    q = len(cats)
    o = np.zeros((q, q))
    for unit in r.T:
        vals = [index[float(v)] for v in unit[~np.isnan(unit)]]
        m = len(vals)
        if m < 2:
            continue
        for i, u in enumerate(vals):
            for j, v in enumerate(vals):
                if i != j:
                    o[u, v] += 1.0 / (m - 1)
    n_c = o.sum(1)
    n = n_c.sum()
    if n <= 1:
        return math.nan
    if level == "nominal":
        d = 1.0 - np.eye(q)
    elif level == "interval":
        d = (cats[:, None] - cats) ** 2
    else:
        cum = np.cumsum(n_c)
        d = np.zeros((q, q))
        for k in range(q):
            for l_ in range(q):
                lo, hi = min(k, l_), max(k, l_)
                d[k, l_] = (cum[hi] - cum[lo] + n_c[lo] - (n_c[k] + n_c[l_]) / 2) ** 2 if k != l_ else 0.0
    expected = (n_c[:, None] * n_c - np.diag(n_c)) / (n - 1)
    de = (expected * d).sum()
    return math.nan if de == 0 else float(1.0 - (o * d).sum() / de)


def bootstrap_kappa_ci(
    a: object,
    b: object,
    categories: object = None,
    weights: Literal["quadratic", "linear", "none"] = "quadratic",
    reps: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile interval of the weighted kappa over items resampled with replacement (seeded): the items are the
    sampled unit (a conversation, a response). The categories are fixed from the full data, so a resample that
    misses one keeps its position. Resamples where kappa is undefined are dropped."""
    x, y = paired(a, b)
    cats = np.unique(np.concatenate([x, y])) if categories is None else np.asarray(categories, dtype=float)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(x), size=(reps, len(x)))
    ks = np.array([weighted_kappa(x[d], y[d], cats, weights).kappa for d in draws])
    ks = ks[~np.isnan(ks)]
    if len(ks) == 0:
        return math.nan, math.nan
    lo, hi = np.percentile(ks, [50 * (1 - level), 50 * (1 + level)])
    return float(lo), float(hi)
