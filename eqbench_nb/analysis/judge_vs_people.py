"""A judge's ratings against one person's on the same items: weighted kappa and Spearman with intervals from a
bootstrap over clusters (the sampled unit: a conversation; a prompt block rated by one rater), and the confusion
matrix.

Generic: it knows no benchmark. The kappa follows Kumar et al.'s rule (:mod:`eqbench_nb.analysis.agreement`):
ratings × 100 rounded, the categories the values either side used, weighted by their positions, so a panel's mean
rating (2.5) is a category of its own, as the study's crowd means are. The bootstrap draws whole clusters with
replacement (seeded); the categories stay those of the full data, so a resample that misses one keeps its position.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .agreement import kappa_from_table, spearman_fisher

#: Bootstrap resamples of the clusters behind every interval here.
REPS = 1000


@dataclass(frozen=True)
class Agreement:
    """A judge against one person on ``n`` items in ``clusters`` clusters: kappa and Spearman with 95 % cluster
    bootstrap intervals, and the confusion matrix (rows the person's categories, columns the judge's)."""

    n: int
    clusters: int
    kappa: float
    kappa_low: float
    kappa_high: float
    spearman: float
    spearman_low: float
    spearman_high: float
    categories: tuple[float, ...]
    confusion: tuple[tuple[int, ...], ...]


def _codes(person: np.ndarray, judge: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Both raters' ratings × 100 rounded, as positions in the categories either used."""
    a, b = np.round(person * 100), np.round(judge * 100)
    cats = np.unique(np.concatenate([a, b]))
    return cats / 100, np.searchsorted(cats, a), np.searchsorted(cats, b)


def _onehot(codes: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros((len(codes), width))
    out[np.arange(len(codes)), codes] = 1.0
    return out


def _kappas(weights: np.ndarray, a: np.ndarray, b: np.ndarray, q: int) -> np.ndarray:
    """The quadratic-weighted kappa of two raters' category positions under each row of item ``weights`` (a
    resample's multiplicities), as :func:`~eqbench_nb.analysis.agreement.kappa_from_table` computes it (NaN where
    it is undefined)."""
    if q < 2:
        return np.full(len(weights), math.nan)
    tables = (weights @ _onehot(a * q + b, q * q)).reshape(-1, q, q)
    n = tables.sum(axis=(1, 2))
    p = tables / np.where(n == 0, 1, n)[:, None, None]
    pos = np.arange(q, dtype=float)
    agree = 1.0 - ((pos[:, None] - pos) / (q - 1)) ** 2
    observed = (agree * p).sum(axis=(1, 2))
    expected = np.einsum("ri,rj,ij->r", p.sum(2), p.sum(1), agree)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((expected < 1.0) & (n > 0), (observed - expected) / (1.0 - expected), math.nan)


def _ranks(weights: np.ndarray, codes: np.ndarray, q: int) -> np.ndarray:
    """Each item's average rank (ties shared) in each weighted resample: a category's items are one block."""
    counts = weights @ _onehot(codes, q)
    return ((np.cumsum(counts, axis=1) - counts) + (counts + 1) / 2)[:, codes]


def _spearmans(weights: np.ndarray, a: np.ndarray, b: np.ndarray, q: int) -> np.ndarray:
    """Spearman's rho of the category positions under each row of ``weights`` (ranks keep the order, so the
    positions' rho is the ratings'); NaN where a side is constant."""
    x, y = _ranks(weights, a, q), _ranks(weights, b, q)
    n = weights.sum(1, keepdims=True)
    x = x - (weights * x).sum(1, keepdims=True) / n
    y = y - (weights * y).sum(1, keepdims=True) / n
    den = np.sqrt((weights * x * x).sum(1) * (weights * y * y).sum(1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 1e-12, (weights * x * y).sum(1) / den, math.nan)


def cluster_weights(clusters: object, reps: int = REPS, seed: int = 0) -> np.ndarray:
    """``reps`` × items: how many times each item is in each resample that draws as many whole clusters as there
    are, with replacement (seeded)."""
    _, inverse = np.unique(np.asarray(clusters), return_inverse=True)
    g = int(inverse.max()) + 1 if len(inverse) else 0
    picks = np.random.default_rng(seed).integers(0, max(g, 1), size=(reps, g))
    counts = np.bincount((picks + np.arange(reps)[:, None] * g).ravel(), minlength=reps * g).reshape(reps, g)
    return counts[:, inverse].astype(float)


def _percentile(values: np.ndarray) -> tuple[float, float]:
    kept = values[~np.isnan(values)]
    if len(kept) == 0:
        return math.nan, math.nan
    low, high = np.percentile(kept, [2.5, 97.5])
    return float(low), float(high)


def agreement(person: object, judge: object, clusters: object, reps: int = REPS, seed: int = 0) -> Agreement:
    """The judge against the person on the items both rated (NaN: not rated), module docstring."""
    x, y, c = np.asarray(person, dtype=float), np.asarray(judge, dtype=float), np.asarray(clusters)
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y, c = x[keep], y[keep], c[keep]
    if len(x) == 0:
        nan = math.nan
        return Agreement(0, 0, nan, nan, nan, nan, nan, nan, (), ())
    cats, a, b = _codes(x, y)
    q = len(cats)
    weights = cluster_weights(c, reps, seed)
    table = np.bincount(a * q + b, minlength=q * q).reshape(q, q)
    k_low, k_high = _percentile(_kappas(weights, a, b, q))
    s_low, s_high = _percentile(_spearmans(weights, a, b, q))
    confusion = tuple(tuple(int(v) for v in row) for row in table)
    return Agreement(len(x), len(np.unique(c)), kappa_from_table(table).kappa, k_low, k_high,
                     spearman_fisher(x, y).rho, s_low, s_high, tuple(float(v) for v in cats), confusion)  # fmt: skip


def mean_kappa_interval(
    people: Sequence[object], judge: object, clusters: object, reps: int = REPS, seed: int = 0
) -> tuple[float, float, float]:
    """The judge's mean kappa against several people (each on the items both rated) with a cluster bootstrap
    interval, the same resamples for all: the like-for-like figure beside the people's pairwise kappas."""
    y = np.asarray(judge, dtype=float)
    weights = cluster_weights(clusters, reps, seed)
    points, draws = [], []
    for person in people:
        x = np.asarray(person, dtype=float)
        keep = ~(np.isnan(x) | np.isnan(y))
        if not keep.any():
            return math.nan, math.nan, math.nan
        cats, a, b = _codes(x[keep], y[keep])
        q = len(cats)
        points.append(kappa_from_table(np.bincount(a * q + b, minlength=q * q).reshape(q, q)).kappa)
        draws.append(_kappas(weights[:, keep], a, b, q))
    low, high = _percentile(np.mean(draws, axis=0))
    return float(np.mean(points)), low, high
