"""Adjusted p-values for a family of tests: Holm's step-down (family-wise error) and Benjamini-Hochberg's step-up
(false discovery rate). NaN p-values (tests refused, e.g. too few items) stay NaN and do not count in the family."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _finite(p_values: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(p_values, dtype=float)
    return p, np.flatnonzero(~np.isnan(p))


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm-adjusted p-values: the k-th smallest of m times (m − k + 1), made monotone, capped at 1."""
    p, idx = _finite(p_values)
    out = np.full(p.shape, np.nan)
    order = idx[np.argsort(p[idx], kind="stable")]
    m = len(order)
    adjusted = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out[order] = adjusted
    return out


def benjamini_hochberg(p_values: Sequence[float]) -> np.ndarray:
    """Benjamini-Hochberg-adjusted p-values (q-values): the k-th smallest times m / k, made monotone from the top."""
    p, idx = _finite(p_values)
    out = np.full(p.shape, np.nan)
    order = idx[np.argsort(p[idx], kind="stable")]
    m = len(order)
    scaled = p[order] * m / np.arange(1, m + 1)
    out[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return out
