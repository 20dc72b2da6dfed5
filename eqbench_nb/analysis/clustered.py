"""Cluster-robust intervals for a mean, a difference of means and a ratio of totals, where items come in clusters
(the ratings of one rater, the items of one prompt block) and so are not independent.

The variance is the sandwich (CR1) one: ``G/(G−1) Σ_g e_g²``, ``e_g`` the cluster's summed linearized residual over
n, G clusters; the interval is ``estimate ± z·se`` with the normal quantile of ``level``. With one item per cluster
it is the usual (n/(n−1)-corrected) standard error of a mean.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats


@dataclass(frozen=True)
class ClusteredEstimate:
    """An estimate with its cluster-robust se and interval, and the numbers of items and clusters behind it."""

    estimate: float
    se: float
    low: float
    high: float
    n: int
    clusters: int


def _interval(estimate: float, residual: np.ndarray, clusters: object, level: float) -> ClusteredEstimate:
    """The CR1 interval of ``estimate`` from each item's linearized residual (already divided by n)."""
    groups = pd.Series(residual).groupby(np.asarray(clusters)).sum().to_numpy()
    g = len(groups)
    if g < 2:
        return ClusteredEstimate(estimate, math.nan, math.nan, math.nan, len(residual), g)
    se = math.sqrt(g / (g - 1) * float((groups**2).sum()))
    z = float(stats.norm.ppf(0.5 + level / 2))
    return ClusteredEstimate(estimate, se, estimate - z * se, estimate + z * se, len(residual), g)


def clustered_mean(values: object, clusters: object, level: float = 0.95) -> ClusteredEstimate:
    """Mean of ``values`` (a share, for 0/1 values) with a cluster-robust interval."""
    y = np.asarray(values, dtype=float)
    if len(y) == 0:
        raise ValueError("values: no items to average")
    mean = float(y.mean())
    return _interval(mean, (y - mean) / len(y), clusters, level)


def clustered_ratio(numerator: object, denominator: object, clusters: object, level: float = 0.95) -> ClusteredEstimate:
    """``Σ numerator / Σ denominator − 1`` (a relative increase) with a delta-method cluster-robust interval:
    residual ``(a_i − R·b_i) / Σ b``, R the ratio."""
    a, b = np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)
    total = b.sum()
    if total == 0:
        raise ValueError("denominator: its total is zero, the ratio is undefined")
    ratio = a.sum() / total
    return _interval(float(ratio - 1), (a - ratio * b) / total, clusters, level)
