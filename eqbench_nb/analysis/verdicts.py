"""The one place where an interval that touches its null becomes a sentence.

An interval that includes the null value (0 for a difference or a correlation; a threshold such as 0.9 for a
reliability) says that the data have not settled the question. It does not say that there is no effect, that
an association is "confounded", or that a correlation "rests on" some of its points: each of those is a
claim of its own, and this project has printed all three from an interval that merely touched 0 (issue 30).

:func:`interval_verdict` decides, :func:`describe` writes the sentence. "no effect" is chosen only when the
caller supplies the power the test had to see the effect one expects and that power is adequate (as
:func:`eqbench_nb.analysis.power.effect_verdict`); otherwise an interval that includes the null is
"inconclusive", and the sentence says how many units could not settle it. Notebooks phrase such results
through these functions, and ``tests/test_verdicts.py`` checks both that and the functions' null behaviour.
"""

from __future__ import annotations

import math

#: The labels :func:`interval_verdict` returns.
ABOVE, BELOW, NO_EFFECT, INCONCLUSIVE = "above", "below", "no effect", "inconclusive"


def interval_side(low: float, high: float, null: float = 0.0) -> str:
    """Where the interval ``[low, high]`` lies against ``null``: "above", "below" or "includes" (also when a
    bound is missing: an interval that cannot be computed settles nothing)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return "includes"
    if low > null:
        return "above"
    if high < null:
        return "below"
    return "includes"


def interval_verdict(
    low: float, high: float, null: float = 0.0, power: float | None = None, adequate: float = 0.8
) -> str:
    """Null: the true value is ``null``. "above" / "below" when the interval excludes it; when it includes it,
    "no effect" only if ``power`` (the test's power against the effect one expects) is at least ``adequate``,
    and "inconclusive" otherwise."""
    side = interval_side(low, high, null)
    if side != "includes":
        return side
    return NO_EFFECT if power is not None and power >= adequate else INCONCLUSIVE


def _fmt(x: float, digits: int) -> str:
    return f"{x:.{digits}f}" if math.isfinite(x) else "n/a"


def describe(
    estimate: float,
    low: float,
    high: float,
    *,
    what: str,
    n: int | None = None,
    unit: str = "",
    null: float = 0.0,
    power: float | None = None,
    adequate: float = 0.8,
    digits: int = 2,
    precise_to: float | None = None,
) -> str:
    """One sentence for an estimate and its interval against ``null``, chosen by :func:`interval_verdict`.

    ``what`` names the estimate ("r without the two LLaMA-2 models"); ``n`` and ``unit`` say what the interval
    rests on ("7", "models"). The inconclusive sentence says that this many units cannot settle it; it never
    says "no effect" unless :func:`interval_verdict` returned it. With ``precise_to``, an interval that excludes
    the null but is wider than that is said to leave the size unsettled.
    """
    verdict = interval_verdict(low, high, null, power, adequate)
    base = f"{what} is {_fmt(estimate, digits)} [{_fmt(low, digits)}, {_fmt(high, digits)}]"
    count = f"{n} {unit}".strip() if n is not None else "these data"
    null_text = f"{null:g}"
    if verdict in (ABOVE, BELOW):
        wide = precise_to is not None and high - low > precise_to
        return f"{base}, {verdict} {null_text}" + (f", but {count} cannot settle its size" if wide else "")
    if verdict == NO_EFFECT:
        return (
            f"{base}, an interval that includes {null_text}; the test had {power:.0%} power to see the effect "
            "expected, so this is evidence of no effect of that size"
        )
    power_text = f" (the test had {power:.0%} power for the effect expected)" if power is not None else ""
    return f"{base}, an interval that includes {null_text}: {count} cannot settle it{power_text}"


__all__ = ["ABOVE", "BELOW", "INCONCLUSIVE", "NO_EFFECT", "describe", "interval_side", "interval_verdict"]
