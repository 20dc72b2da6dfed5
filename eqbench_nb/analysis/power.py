"""Could a test have seen the effect? Power of the checks that notebooks use to say "X does not matter".

A correlation whose interval includes 0 is *absence of evidence* unless the test had the power to
see the effect that theory predicts. These functions compute that power and choose the sentence.

Half-width against parse count
------------------------------
A run's score is a mean over its parseable answers, so with the per-question spread held fixed its
bootstrap half-width scales as ``1 / sqrt(parsed)``: a run that parses ``k`` of ``n`` questions has
an interval ``sqrt(n / k)`` times wider. :func:`halfwidth_parse_power` simulates the half-widths
that this effect plus the observed residual noise would give, and counts how often the same test
(Pearson r with parsed count, Fisher z interval excluding 0) detects it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as _sps

from .stats import rowwise_pearson


@dataclass(frozen=True)
class ParseEffectPower:
    """What the parse-count check could detect: the predicted effect, the noise, and the power."""

    max_widening: float  # predicted relative widening of the run that parses fewest (sqrt(n / k_min) - 1)
    max_widening_points: float  # the same in points of half-width, at the median half-width
    residual_sd: float  # SD of the half-widths around their fit on the score
    power: float  # share of simulated data sets in which the test detects the predicted effect
    n_runs: int
    n_full: int  # runs that parse every question


def halfwidth_parse_power(
    half_width,
    parsed,
    score,
    n_questions: int,
    reps: int = 4000,
    alpha: float = 0.05,
    seed: int | None = 0,
) -> ParseEffectPower:
    """Power of "r(half-width, parsed) excludes 0" to detect the widening that fewer answers imply.

    Model of the null-is-false world: ``half_width_i = a + b * score_i + e_i`` (fitted by least
    squares; ``e`` normal with the residual SD), times ``sqrt(n_questions / parsed_i)`` for the
    parse effect. The test is the one the notebook uses: Pearson r between half-width and parsed
    count, two-sided Fisher z at ``alpha``.
    """
    hw, k, s = (np.asarray(v, float) for v in (half_width, parsed, score))
    if not (hw.shape == k.shape == s.shape) or len(hw) < 4:
        raise ValueError("need one half-width, parse count and score per run, at least 4 runs")
    b, a = np.polyfit(s, hw, 1)
    fit = a + b * s
    resid_sd = float(np.std(hw - fit, ddof=2))
    factor = np.sqrt(n_questions / k)
    rng = np.random.default_rng(seed)
    sims = (fit[None, :] + rng.normal(0.0, resid_sd, size=(reps, len(hw)))) * factor[None, :]
    kc = k - k.mean()
    r = rowwise_pearson(sims, np.broadcast_to(k, sims.shape))
    z_crit = _sps.norm.ppf(1 - alpha / 2)
    detected = np.abs(np.arctanh(np.clip(r, -0.999999, 0.999999))) * np.sqrt(len(hw) - 3) > z_crit
    widening = float(factor.max() - 1)
    return ParseEffectPower(
        max_widening=widening,
        max_widening_points=widening * float(np.median(hw)),
        residual_sd=resid_sd,
        power=float(np.mean(detected)) if kc @ kc > 0 else 0.0,
        n_runs=len(hw),
        n_full=int((k >= n_questions).sum()),
    )


def effect_verdict(interval_excludes_zero: bool, power: float, adequate: float = 0.8) -> str:
    """The sentence a check of "does X matter?" supports.

    Null: X has no effect. ``"detected"`` when the test rejects it; ``"no effect"`` only when it
    does not *and* the test had at least ``adequate`` power for the effect theory predicts;
    otherwise ``"absence of evidence"``: the test could not have seen the effect.
    """
    if interval_excludes_zero:
        return "detected"
    return "no effect" if power >= adequate else "absence of evidence"
