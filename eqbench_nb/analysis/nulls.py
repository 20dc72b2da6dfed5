"""Null models that a verdict about ratings can be tested against.

The clipped-noise null
----------------------
EQ-Bench ratings are whole numbers on 0–10. A rater with *no* systematic distortion but some
noise still looks biased at the ends of the scale: at a reference of 0 every error is >= 0, at 10
every error is <= 0, so the mean signed error is positive near 0, negative near 10, and the slope
of rating on reference is below 1. Those end biases are *mechanical*. Before calling the models'
ratings "compressed toward the middle", compare them with what this mechanism alone produces.

Noise model (:func:`clipped_noise_null`):

    rating = clip(round(reference + e), 0, 10),   e ~ Normal(0, sigma^2), independent per rating

``sigma`` is chosen so that the null's mean absolute error over the *observed* references equals
the observed mean absolute error (:func:`fit_noise_sd`). Rounding makes the noise symmetric on the
integers; clipping is the only source of bias. On the 86 published v2 runs (mean absolute error
1.83) this gives sigma about 3.19 and reproduces the observed share of exactly right ratings
(28.7 %) without being fitted to it.

The null assumes an error-free key
------------------------------------
The references are one author's judgements, not the truth. If the key itself is noisy (reference = true
intensity + error), the slope of ratings on the key is attenuated by the key's reliability, as any regression on an
error-prone predictor is, even when the raters compress nothing. A first reckoning divides the observed slope by the
null's (:func:`key_reliability_to_explain`). But key error also raises the error against the key, to which the
null's noise is fitted, so the exact model (:func:`key_error_null`: true intensities, a key with independent
rounded and clipped noise, raters with no compression, the null refitted on the key) is the honest yardstick:
:func:`key_error_floor` gives the lowest observed / null ratio that independent key error can produce while leaving
room for the observed error. A ratio below that floor is compression relative to the key beyond clipping *and*
beyond independent key error; it can still come from a key whose own ratings are more extreme than the truth
(errors that are not independent of it), which these data cannot tell from raters that compress. The share of exact
ratings is a weak check of the noise model: over plausible noise sizes the null's share moves little
(:func:`exact_share_range`).

Everything about the null is available exactly (the probabilities of each rating follow from the
normal CDF: :func:`rating_probabilities`), and :func:`clipped_noise_null` also draws simulated
ratings, for statistics that are easier to compute on draws (a regression slope per draw, a
statistic with the observed design's structure).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .stats import percentile_interval, rowwise_pearson

SCALE_LOW, SCALE_HIGH = 0, 10  # the EQ-Bench rating scale


def rating_probabilities(reference, sigma: float, low: int = SCALE_LOW, high: int = SCALE_HIGH) -> np.ndarray:
    """P(rating = k) for k = low..high under the clipped-noise null, one row per reference.

    rating = clip(round(reference + e), low, high), e ~ N(0, sigma^2). Returns shape
    ``(len(reference), high - low + 1)``; rows sum to 1. ``sigma`` = 0 means no noise.
    """
    ref = np.atleast_1d(np.asarray(reference, dtype=float))
    ks = np.arange(low, high + 1, dtype=float)
    if sigma <= 0:
        return (np.clip(np.rint(ref), low, high)[:, None] == ks[None, :]).astype(float)
    upper = np.append(ks[:-1] + 0.5, np.inf)  # a rating k collects reference + e in [k - .5, k + .5)
    lower = np.insert(ks[1:] - 0.5, 0, -np.inf)
    # scipy is imported where it is used: a notebook importing this module (or the plots that do) pays for it only
    # when it computes a null
    from scipy.special import ndtr as cdf  # what norm.cdf computes for a standard normal, without its checks

    return cdf((upper[None, :] - ref[:, None]) / sigma) - cdf((lower[None, :] - ref[:, None]) / sigma)


def expected_rating(reference, sigma: float, low: int = SCALE_LOW, high: int = SCALE_HIGH) -> np.ndarray:
    """E[rating | reference] under the clipped-noise null (exact)."""
    p = rating_probabilities(reference, sigma, low, high)
    return p @ np.arange(low, high + 1, dtype=float)


def expected_abs_error(reference, sigma: float, low: int = SCALE_LOW, high: int = SCALE_HIGH) -> np.ndarray:
    """E[|rating - reference| | reference] under the clipped-noise null (exact)."""
    ref = np.atleast_1d(np.asarray(reference, dtype=float))
    p = rating_probabilities(ref, sigma, low, high)
    ks = np.arange(low, high + 1, dtype=float)
    return (p * np.abs(ks[None, :] - ref[:, None])).sum(axis=1)


def expected_exact_share(reference, sigma: float, low: int = SCALE_LOW, high: int = SCALE_HIGH) -> float:
    """Share of ratings exactly equal to the reference under the null (exact), over all references."""
    ref = np.atleast_1d(np.asarray(reference, dtype=float))
    p = rating_probabilities(ref, sigma, low, high)
    ks = np.arange(low, high + 1, dtype=float)
    return float((p * (ks[None, :] == ref[:, None])).sum(axis=1).mean())


def fit_noise_sd(reference, target_mae: float, low: int = SCALE_LOW, high: int = SCALE_HIGH) -> float:
    """The noise SD whose clipped-noise null has mean absolute error ``target_mae`` over ``reference``.

    The null's mean absolute error rises monotonically with sigma, from 0 to the error of ratings
    piled on the two ends; a target outside that range raises ``ValueError``.
    """
    from scipy.optimize import brentq

    ref, counts = np.unique(np.asarray(reference, dtype=float), return_counts=True)
    weights = counts / counts.sum()

    def gap(s: float) -> float:
        return float(weights @ expected_abs_error(ref, s, low, high)) - target_mae

    hi = 100.0
    if target_mae <= 0 or gap(hi) < 0:
        raise ValueError(f"a mean absolute error of {target_mae} cannot come from clipped noise on these references")
    return float(brentq(gap, 1e-6, hi, xtol=1e-10))


@dataclass(frozen=True)
class ClippedNoiseNull:
    """The clipped-noise null for a set of references: its noise SD and simulated ratings.

    ``ratings`` has shape ``(n_sim, len(reference))``: ``n_sim`` independent draws of every rating.
    The exact methods (``bias``, ``slope``) use the normal CDF, the ``sim_*`` ones the draws.
    """

    reference: np.ndarray
    sigma: float
    target_mae: float | None
    ratings: np.ndarray = field(repr=False)
    low: int = SCALE_LOW
    high: int = SCALE_HIGH

    @property
    def errors(self) -> np.ndarray:
        """Simulated signed errors, rating - reference, shape ``(n_sim, n)``."""
        return self.ratings - self.reference[None, :]

    def bias(self, mask=None) -> float:
        """Exact expected mean signed error over the references selected by ``mask`` (all if None)."""
        ref = self.reference if mask is None else self.reference[np.asarray(mask, bool)]
        return float(np.mean(expected_rating(ref, self.sigma, self.low, self.high) - ref))

    def slope(self) -> float:
        """Exact least-squares slope of rating on reference expected under the null.

        With no clipping it is 1; clipping alone pulls it below 1. (The slope of a regression on
        the reference depends only on E[rating | reference], so this is exact, not simulated.)
        """
        ref = self.reference
        m = expected_rating(ref, self.sigma, self.low, self.high)
        return float(np.cov(ref, m, bias=True)[0, 1] / np.var(ref))

    def exact_share(self) -> float:
        """Exact expected share of ratings equal to the reference."""
        return expected_exact_share(self.reference, self.sigma, self.low, self.high)

    def sim_bias(self, mask=None) -> np.ndarray:
        """Mean signed error over ``mask`` in each simulated draw (shape ``(n_sim,)``)."""
        e = self.errors if mask is None else self.errors[:, np.asarray(mask, bool)]
        return e.mean(axis=1)

    def sim_slope(self) -> np.ndarray:
        """Least-squares slope of rating on reference in each simulated draw (shape ``(n_sim,)``)."""
        x = self.reference - self.reference.mean()
        return (self.ratings - self.ratings.mean(axis=1, keepdims=True)) @ x / (x @ x)


def clipped_noise_null(
    reference,
    target_mae: float | None = None,
    *,
    sigma: float | None = None,
    n_sim: int = 20,
    seed: int | None = 0,
    low: int = SCALE_LOW,
    high: int = SCALE_HIGH,
) -> ClippedNoiseNull:
    """Ratings with no distortion but noise, clipped to the scale: the null for "compressed ratings".

    Noise model: ``rating = clip(round(reference + e), low, high)`` with ``e ~ Normal(0, sigma^2)``
    drawn independently for every rating; symmetric noise, so clipping at ``low`` and ``high`` is
    the only thing that biases the ratings. Give either ``target_mae`` (the observed mean absolute
    error; ``sigma`` is then fitted so the null's mean absolute error over these references equals
    it, :func:`fit_noise_sd`) or ``sigma`` itself. ``n_sim`` draws of every rating are simulated
    with ``np.random.default_rng(seed)``.

    Draws are independent per rating, so spreads computed from ``sim_*`` are Monte Carlo spreads of
    an independent design: they are not intervals for clustered data (models, questions).
    """
    ref = np.asarray(reference, dtype=float).ravel()
    if (sigma is None) == (target_mae is None):
        raise ValueError("give exactly one of target_mae and sigma")
    if sigma is None:
        assert target_mae is not None
        sigma = fit_noise_sd(ref, target_mae, low, high)
    if sigma < 0:
        raise ValueError("sigma must be >= 0")
    rng = np.random.default_rng(seed)
    ratings = np.clip(np.rint(ref[None, :] + rng.normal(0.0, sigma, size=(n_sim, len(ref)))), low, high)
    return ClippedNoiseNull(ref, float(sigma), target_mae, ratings, low, high)


def key_reliability_to_explain(observed_slope: float, null_slope: float) -> float:
    """The first reckoning: the key reliability that would attenuate the null's slope to ``observed_slope`` if the
    null's slope stayed where it is (``observed / null``). It ignores that key error also raises the error the
    null's noise is fitted to; :func:`key_error_floor` does not (tests/test_verdict_nulls.py shows the difference).
    """
    return float(observed_slope / null_slope) if null_slope else float("nan")


@dataclass(frozen=True)
class KeyErrorNull:
    """Raters with no compression, judged against a noisy key: what the clipped-noise comparison then shows.

    True intensities T follow the references' distribution; the key is ``K = clip(round(T + u))``,
    ``u ~ N(0, key_sd²)``; ratings are ``clip(round(T + e))`` with ``e ~ N(0, rater_sd²)``, ``rater_sd`` set so that
    the mean absolute error against the *key* equals the observed one. ``observed_slope`` is the slope of ratings on
    the key, ``null_slope`` what the clipped-noise null fitted on the key gives, ``ratio`` their quotient (what the
    data show as observed / null), ``reliability`` the key's attenuation factor cov(T, K) / var(K). All exact.
    """

    key_sd: float
    rater_sd: float
    observed_slope: float
    null_slope: float
    ratio: float
    reliability: float


def key_error_null(reference, target_mae: float, key_sd: float, low: int = SCALE_LOW, high: int = SCALE_HIGH):
    """:class:`KeyErrorNull` for key noise ``key_sd`` on the distribution of ``reference`` (exact)."""
    from scipy.optimize import brentq

    values, counts = np.unique(np.asarray(reference, dtype=float), return_counts=True)
    p_t = counts / counts.sum()
    ks = np.arange(low, high + 1, dtype=float)
    p_k = rating_probabilities(values, key_sd, low, high)  # P(K = k | T)

    def joint(rater_sd: float) -> np.ndarray:  # P(K = k, R = r)
        p_r = rating_probabilities(values, rater_sd, low, high)
        return np.einsum("t,tk,tr->kr", p_t, p_k, p_r)

    def mae(rater_sd: float) -> float:
        return float((joint(rater_sd) * np.abs(ks[:, None] - ks[None, :])).sum())

    if mae(1e-6) > target_mae or mae(100.0) < target_mae:
        raise ValueError(f"no rater noise gives a mean absolute error of {target_mae} against this key")
    rater_sd = float(brentq(lambda s: mae(s) - target_mae, 1e-6, 100.0, xtol=1e-8))
    j = joint(rater_sd)
    pk = j.sum(1)
    mean_k = pk @ ks
    var_k = pk @ (ks - mean_k) ** 2
    observed = float(((ks - mean_k)[:, None] * ks[None, :] * j).sum() / var_k)
    null = _weighted_null_slope(ks, pk, target_mae, low, high)  # the clipped-noise null, fitted on the key
    mean_t = p_t @ values
    cov_tk = float(np.einsum("t,tk->", p_t * (values - mean_t), p_k * (ks - mean_k)[None, :]))
    return KeyErrorNull(key_sd, rater_sd, observed, null, observed / null, cov_tk / var_k)


def _weighted_null_slope(values: np.ndarray, weights: np.ndarray, target_mae: float, low: int, high: int) -> float:
    """The clipped-noise null's exact slope on references ``values`` with probabilities ``weights``, its noise SD
    fitted to ``target_mae`` (as :func:`fit_noise_sd` and :meth:`ClippedNoiseNull.slope` on a weighted sample)."""
    from scipy.optimize import brentq

    sigma = float(brentq(lambda s: float(weights @ expected_abs_error(values, s, low, high)) - target_mae, 1e-6, 100.0))
    m = expected_rating(values, sigma, low, high)
    mean_v, mean_m = weights @ values, weights @ m
    return float((weights @ ((values - mean_v) * (m - mean_m))) / (weights @ (values - mean_v) ** 2))


def _largest_key_sd(reference, target_mae: float, low: int, high: int) -> float:
    """The largest key noise that leaves room for ``target_mae``: perfect raters against a key this noisy are
    already ``target_mae`` off it (E|K - T| = target), so any more noise is incompatible with the observed error."""
    from scipy.optimize import brentq

    values, counts = np.unique(np.asarray(reference, dtype=float), return_counts=True)
    p_t = counts / counts.sum()

    def key_alone_mae(sd: float) -> float:
        return float(p_t @ expected_abs_error(values, sd, low, high))

    if key_alone_mae(50.0) <= target_mae:
        return 50.0
    return 0.999 * float(brentq(lambda sd: key_alone_mae(sd) - target_mae, 1e-6, 50.0))


def key_error_floor(reference, target_mae: float, low: int = SCALE_LOW, high: int = SCALE_HIGH) -> KeyErrorNull:
    """The lowest observed / null slope ratio that independent key error can produce with raters that compress
    nothing, given the observed mean absolute error (:func:`key_error_null` at the largest key noise that leaves
    room for it; the ratio falls as key noise grows). True intensities are taken to follow the references'
    distribution."""
    return key_error_null(reference, target_mae, _largest_key_sd(reference, target_mae, low, high), low, high)


def key_error_to_explain(
    reference, target_mae: float, observed_ratio: float, low: int = SCALE_LOW, high: int = SCALE_HIGH
) -> KeyErrorNull | None:
    """The key noise at which raters with **no** compression would show ``observed_ratio`` (observed / null slope),
    found exactly (:func:`key_error_null`); None when no key noise that leaves room for the observed error gets
    that low (the ratio is below :func:`key_error_floor`)."""
    from scipy.optimize import brentq

    sd_max = _largest_key_sd(reference, target_mae, low, high)

    def gap(sd: float) -> float:
        return key_error_null(reference, target_mae, sd, low, high).ratio - observed_ratio

    if gap(1e-6) < 0 or gap(sd_max) > 0:
        return None
    sd = float(brentq(gap, 1e-6, sd_max, xtol=1e-6))
    return key_error_null(reference, target_mae, sd, low, high)


def exact_share_range(reference, sigmas=(2.5, 3.5), low: int = SCALE_LOW, high: int = SCALE_HIGH) -> dict[float, float]:
    """The clipped-noise null's share of exactly right ratings at each noise SD in ``sigmas``: how far the check
    "the null reproduces the observed exact share" could move. A share that barely changes over plausible sigmas
    makes that check one that can hardly fail."""
    return {float(s): expected_exact_share(reference, float(s), low, high) for s in sigmas}


# ---------------------------------------------------------------------------------------------
# selection on the outcome: the correlation within the top half
# ---------------------------------------------------------------------------------------------


def selected_half_correlation_null(
    rho: float, n: int, n_selected: int | None = None, reps: int = 4000, seed: int | None = 0, top: bool = True
) -> np.ndarray:
    """Pearson r within the half of a sample selected on the outcome, when one relation holds throughout.

    Null model: ``n`` pairs from a bivariate normal with correlation ``rho``; keep the
    ``n_selected`` (default ``n // 2``) with the largest outcome ``y`` (the smallest when ``top`` is
    False) and compute r within them. Selecting on the outcome narrows its range, so this r is below
    ``rho`` even though nothing differs between the halves: a subset's r must be compared with this
    distribution, not with the pooled r. Returns ``reps`` draws.
    """
    if not -1 < rho < 1:
        raise ValueError("rho must lie strictly between -1 and 1")
    k = n // 2 if n_selected is None else n_selected
    if not 3 <= k <= n:
        raise ValueError("need at least 3 selected pairs, and no more than n")
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((reps, n))
    y = rho * x + np.sqrt(1 - rho**2) * rng.standard_normal((reps, n))
    order = np.argsort(y, axis=1)
    keep = order[:, -k:] if top else order[:, :k]
    xs, ys = np.take_along_axis(x, keep, 1), np.take_along_axis(y, keep, 1)
    return rowwise_pearson(xs, ys)


def against_null_draws(observed: float, draws, level: float = 0.95) -> str:
    """Where ``observed`` falls in the central ``level`` range of a null's draws.

    Returns ``"below"`` (below the range: the null is rejected, observed smaller), ``"above"``, or
    ``"within"`` (the null explains it).
    """
    lo, hi = percentile_interval(draws, level)
    return "below" if observed < lo else "above" if observed > hi else "within"


def p_range_verdict(p_values, alpha: float = 0.05) -> str:
    """The verdict on a value tested under several plausible assumptions, each giving a p-value.

    Null: the tested value is the truth. ``"consistent"`` when no p is below ``alpha`` (no
    assumption rejects it), ``"rejected"`` when every p is, and ``"inconclusive"`` when the
    assumptions disagree: the data do not settle it until the assumption is known.
    """
    p = np.asarray(p_values, float)
    if p.size == 0 or not np.isfinite(p).all():
        raise ValueError("need at least one finite p-value")
    if (p >= alpha).all():
        return "consistent"
    return "rejected" if (p < alpha).all() else "inconclusive"
