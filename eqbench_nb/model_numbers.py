"""The one reader of numbers a model (or a server) wrote: finite, and in range or flagged.

Python's ``json`` reads ``NaN``, ``Infinity``, ``-Infinity`` and ``1e309`` (as inf), and ``float()`` reads a
400-digit rating as inf; ``1e308`` is finite but becomes inf once multiplied by 5 or squared. Every number a model
supplies (an EQ-Bench rating, an EQ-Bench 3 judge's criterion score, ...) passes :func:`read_model_number`:

- **Not finite** (NaN, ±inf, or a magnitude above :data:`MAX_MAGNITUDE`, whose square or small multiple is no
  longer finite): :class:`NotFinite`, a ValueError. The caller says so and leaves the number out, as upstream
  leaves out what it cannot read (a criterion without a number, a rating float() rejects).
- **Finite but outside its scale** (a 25 on a 0-20 criterion, a -5): kept, as upstream keeps it, and
  :func:`out_of_range` says so, for ``score``, ``runs`` and the viewer to flag it.

Every file this project writes is strict JSON (``allow_nan=False``): a number that got past this reader would fail
the write rather than put a bare ``NaN`` token into a file jq and ``JSON.parse`` cannot read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_MAGNITUDE",
    "NotFinite",
    "Scale",
    "finite_json",
    "is_finite_number",
    "number_or_text",
    "out_of_range",
    "read_model_number",
    "reads_not_finite",
]

#: The largest magnitude read as a number: its square (a variance, a correlation) is still finite, and so is any
#: sum of a billion of them times 100. Beyond it a number is as unusable as inf.
MAX_MAGNITUDE = 1e150


class NotFinite(ValueError):
    """A model's number that is NaN, infinite, or too large to compute with: said and left out."""


@dataclass(frozen=True)
class Scale:
    """The range a number is asked for (a criterion's 0-20, a rating's 0-10)."""

    low: float
    high: float

    def __str__(self) -> str:
        return f"{self.low:g}-{self.high:g}"


def is_finite_number(value: Any) -> bool:
    """Whether ``value`` is a real number (not a bool) that :func:`read_model_number` accepts."""
    if type(value) is float:  # the common case, called for every rating scored: the same test without the checks
        return math.isfinite(value) and abs(value) <= MAX_MAGNITUDE
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float
        return False
    return math.isfinite(number) and abs(number) <= MAX_MAGNITUDE


def read_model_number(value: Any, what: str = "the number") -> float:
    """``value`` (a number, or text ``float()`` reads) as a float; :class:`NotFinite` naming ``what`` when it is
    not finite (module docstring). Text that is not a number at all is a plain ValueError, as ``float()``'s."""
    if isinstance(value, str):
        number = float(value)  # a 400-digit text reads as inf, never an OverflowError
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} is not a number: {value!r}")
    else:
        try:
            number = float(value)
        except OverflowError:
            number = math.inf if value > 0 else -math.inf
    if not (math.isfinite(number) and abs(number) <= MAX_MAGNITUDE):
        shown = value if isinstance(value, str) and len(value) <= 24 else f"{number:g}"
        raise NotFinite(f"{what} is {shown}, not a finite number")
    return number


def number_or_text(value: str) -> float | str:
    """A rating a model wrote, as a record stores it: its number when :func:`read_model_number` reads it as finite,
    else the text as written (a 400-digit rating, a German "7,5"). The text keeps the record strict JSON and the
    reply's number as it came; the scoring finds it unparseable, as it finds any rating it cannot compute with."""
    try:
        return read_model_number(value)
    except ValueError:  # NotFinite, or not a number at all
        return value


def reads_not_finite(value: Any) -> bool:
    """Whether ``value`` is a number, or text ``float()`` reads as one, that is not finite (what
    :func:`number_or_text` keeps as text: a 400-digit rating)."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return False
    return isinstance(value, (int, float)) and not isinstance(value, bool) and not is_finite_number(value)


def out_of_range(value: float, scale: Scale) -> bool:
    """Whether a finite number lies outside its scale (kept, and flagged)."""
    return not scale.low <= value <= scale.high


def finite_json(value: Any, where: str = "") -> tuple[Any, list[str]]:
    """(a JSON value a model wrote, with every number that is not finite as None; where each was, as
    ``key.key[0]``): a judge's object kept whole in a run file stays strict JSON."""
    if isinstance(value, float) and not is_finite_number(value):
        return None, [f"{where or 'the value'} {value:g}"]
    if isinstance(value, int) and not isinstance(value, bool) and not is_finite_number(value):
        return None, [f"{where or 'the value'} (an integer of {len(str(abs(value)))} digits)"]
    if isinstance(value, dict):
        out, said = {}, []
        for k, v in value.items():
            out[k], found = finite_json(v, f"{where}.{k}" if where else str(k))
            said += found
        return out, said
    if isinstance(value, list):
        items, said = [], []
        for i, v in enumerate(value):
            item, found = finite_json(v, f"{where}[{i}]")
            items.append(item)
            said += found
        return items, said
    return value, []
