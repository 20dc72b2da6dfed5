"""Bradley–Terry ratings from pairwise verdicts, raw and with style control (a length-difference covariate).

The length-controlled rating is Chatbot Arena's *style control*: the probability that ``a`` beats ``b`` is

    P(a ≻ b) = σ(θ_a − θ_b + x_ab · β)

where ``x_ab`` holds the battle's style features (here the normalised length difference
``(len_a − len_b) / (len_a + len_b)``, z-scored over the battles) and ``β`` their coefficients. The ratings θ are
then what the verdicts say once the judge's taste for length is taken out; the raw rating is the same model with
no features. Beside the raw rating, never instead of it: the two answer different questions.

The objective is that of ``arena_rank.models.contextual_bradley_terry.ContextualBradleyTerry`` (LMArena's
``arena-rank`` 0.1.1, read from its code), so the two agree (``tests/test_bradley_terry.py`` pins ours to a
recorded output of theirs):

- loss = − mean_i w_i [y_i z_i − log(1 + e^{z_i})] + ½ · reg · ‖β‖², with ``z_i`` the logit above, ``y_i`` 1 / 0 /
  ½ (a tie), ``w_i`` the battle weights (1 each unless given);
- the L2 penalty ``reg`` (default 1.0) falls on the feature coefficients only, never on the ratings;
- the ratings, identified only up to a shift, are those summing to zero (arena-rank starts them at zero and its
  gradient steps keep their sum), reported as ``1000 + θ · 400 / ln 10`` (Elo points);
- features are z-scored with the population SD (an all-equal column is left at SD 1), as its
  ``ContextualPairDataset.from_pandas(normalize_features=True)`` does.

The raw rating (:func:`bradley_terry`) is the same objective with no features, as arena-rank's ``BradleyTerry``
(mean log-likelihood, no penalty).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: arena-rank's defaults: Elo scale, base and offset; the L2 penalty on style coefficients.
SCALE, BASE, INIT_RATING, REG = 400.0, 10.0, 1000.0, 1.0
ALPHA = SCALE / math.log(BASE)


@dataclass(frozen=True)
class BTFit:
    """Ratings (Elo points, in ``competitors`` order), the style coefficients (per z-scored feature, on the logit
    scale), the battles fitted and whether the optimiser converged."""

    competitors: tuple[str, ...]
    ratings: np.ndarray
    coeffs: np.ndarray
    battles: int
    converged: bool

    def as_dict(self) -> dict[str, float]:
        return {c: float(r) for c, r in zip(self.competitors, self.ratings, strict=True)}


def length_feature(len_a: Sequence[float], len_b: Sequence[float]) -> np.ndarray:
    """Arena's style-control length feature: ``(len_a − len_b) / (len_a + len_b)`` per battle (0 when both are
    empty). Lengths must be finite and non-negative."""
    a, b = np.asarray(len_a, float), np.asarray(len_b, float)
    if a.shape != b.shape:
        raise ValueError("len_a and len_b must have the same length")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b)) and np.all(a >= 0) and np.all(b >= 0)):
        raise ValueError("answer lengths must be finite and non-negative")
    total = a + b
    return np.divide(a - b, total, out=np.zeros_like(total), where=total > 0)


def zscore(features: np.ndarray) -> np.ndarray:
    """Each column centred and divided by its population SD (SD 0 read as 1), as arena-rank normalises."""
    f = np.asarray(features, float)
    sd = f.std(axis=0)
    return (f - f.mean(axis=0)) / np.where(sd == 0, 1.0, sd)


def _index(model_a: Sequence[str], model_b: Sequence[str]) -> tuple[tuple[str, ...], np.ndarray]:
    """The competitors sorted by name (as arena-rank's ``pd.factorize(sort=True)``) and each battle's two indices."""
    competitors = tuple(sorted(set(map(str, model_a)) | set(map(str, model_b))))
    where = {c: i for i, c in enumerate(competitors)}
    pairs = np.array([[where[str(a)], where[str(b)]] for a, b in zip(model_a, model_b, strict=True)], int)
    return competitors, pairs.reshape(-1, 2)


def _check_outcomes(outcomes: Sequence[float]) -> np.ndarray:
    y = np.asarray(outcomes, float)
    if not np.all(np.isin(y, (0.0, 0.5, 1.0))):
        raise ValueError("outcomes must be 1 (a wins), 0 (b wins) or 0.5 (a tie)")
    return y


def contextual_bradley_terry(
    model_a: Sequence[str],
    model_b: Sequence[str],
    outcomes: Sequence[float],
    features: np.ndarray | None = None,
    *,
    reg: float = REG,
    weights: Sequence[float] | None = None,
    normalize: bool = True,
) -> BTFit:
    """The Bradley–Terry fit of battles ``model_a`` vs ``model_b`` with outcome 1 / 0 / ½ for ``a``, with the
    per-battle ``features`` (an ``(n, k)`` array; None: the raw rating) as covariates whose coefficients carry an L2
    penalty ``reg``. The objective is minimised exactly (Newton steps on a convex loss, ratings held to sum zero)."""
    competitors, pairs = _index(model_a, model_b)
    y = _check_outcomes(outcomes)
    n, m = len(y), len(competitors)
    if n == 0 or len(pairs) != n:
        raise ValueError("need at least one battle, each with two models and an outcome")
    x = np.zeros((n, 0)) if features is None else np.asarray(features, float).reshape(n, -1)
    if not np.all(np.isfinite(x)):
        raise ValueError("features must be finite")
    if normalize and x.shape[1]:
        x = zscore(x)
    w = np.ones(n) if weights is None else np.asarray(weights, float)
    if w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be one finite, non-negative number per battle")
    k = x.shape[1]
    # the design: +1 for a's rating, -1 for b's, then the features; the ratings' sum is pinned by a projection
    design = np.zeros((n, m + k))
    design[np.arange(n), pairs[:, 0]] += 1.0
    design[np.arange(n), pairs[:, 1]] -= 1.0
    design[:, m:] = x
    penalty = np.concatenate([np.zeros(m), np.full(k, reg)])
    centre = np.eye(m + k)
    centre[:m, :m] -= 1.0 / m  # projection onto ratings summing to zero (features untouched)
    params = np.zeros(m + k)
    converged = False
    for _ in range(100):
        z = design @ params
        p = 1.0 / (1.0 + np.exp(-z))
        grad = -(design.T @ (w * (y - p))) / n + penalty * params
        hess = (design.T * (w * p * (1 - p))) @ design / n + np.diag(penalty)
        # Newton step restricted to the zero-sum subspace (the loss is flat along a common shift of the ratings)
        h = centre @ hess @ centre
        g = centre @ grad
        step = -np.linalg.lstsq(h, g, rcond=None)[0]
        step = centre @ step
        params = params + step
        if np.max(np.abs(step)) < 1e-12:
            converged = True
            break
    theta = params[:m] - params[:m].mean()
    return BTFit(competitors, INIT_RATING + ALPHA * theta, params[m:].copy(), n, converged)


def bradley_terry(
    model_a: Sequence[str], model_b: Sequence[str], outcomes: Sequence[float], weights: Sequence[float] | None = None
) -> BTFit:
    """The raw Bradley–Terry rating (no covariates, no penalty): :func:`contextual_bradley_terry` with none."""
    return contextual_bradley_terry(model_a, model_b, outcomes, None, weights=weights)


def length_controlled(
    model_a: Sequence[str],
    model_b: Sequence[str],
    outcomes: Sequence[float],
    len_a: Sequence[float],
    len_b: Sequence[float],
    reg: float = REG,
) -> BTFit:
    """The style-controlled rating with the one length feature of :func:`length_feature`; its coefficient (logit
    per SD of the normalised length difference) says how much the verdicts follow length."""
    return contextual_bradley_terry(model_a, model_b, outcomes, length_feature(len_a, len_b)[:, None], reg=reg)


__all__ = [
    "ALPHA",
    "REG",
    "BTFit",
    "bradley_terry",
    "contextual_bradley_terry",
    "length_controlled",
    "length_feature",
    "zscore",
]
