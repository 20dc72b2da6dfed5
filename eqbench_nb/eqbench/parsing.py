"""Turning a model's text into ratings (SPEC §5). Three named parsers; none ever raises.

- ``official``: the v2.3 pipeline. ``(\\w+):\\s+(\\d+)`` over the text; a repeated name keeps the
  last value; "7.5" reads as 7; "Angry:7" (no space) does not match; names case-sensitive.
- ``v2.4``: the later upstream parser, also used by evalscope: every ``*`` and ``#`` removed
  first, then the same pattern, names matched case-insensitively.
- ``evalscope``: ``v2.4`` plus a range check: a rating outside 0-10 is dropped (so the
  answer no longer names four emotions and is unparseable).
- ``de``: the German parser: labels ``[a-zA-ZäöüßÄÖÜ\\s]+``, optional ``**`` around the number;
  a decimal comma ("7,5") makes that rating invalid.

With revision the text is split: first pass between the two headings, revised after the second.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

PARSERS = ("official", "v2.4", "evalscope", "de")

_PAIR = re.compile(r"(\w+):\s+(\d+)")
_PAIR_DE = re.compile(r"([a-zA-ZäöüßÄÖÜ\s]+):\s*\**(\d+(?:,\d+)?)\**")
_FIRST_EN = re.compile(r"First pass scores:(.*?)Revised scores:", re.DOTALL)
_REVISED_EN = re.compile(r"Revised scores:(.*?)$", re.DOTALL)
_FIRST_DE = re.compile(r"(Erste.*?):\s*(.*?)(?=Überarbeitete|$)", re.IGNORECASE | re.DOTALL)
_REVISED_DE = re.compile(r"(Überarbeitete.*?):\s*(.*)", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class ParsedAnswer:
    """Ratings read from one response: first pass, and revised (empty unless revising)."""

    first_pass: dict[str, float] = field(default_factory=dict)
    revised: dict[str, float] = field(default_factory=dict)


def _pairs(text: str) -> dict[str, float]:
    return {name: float(value) for name, value in _PAIR.findall(text)}


def _pairs_de(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for label, value in _PAIR_DE.findall(text):
        label = label.strip()
        if "," in value:  # decimal comma: upstream's float() fails on it, so the rating is lost
            out.pop(label, None)
            continue
        out[label] = float(value)
    return out


def _canonical(ratings: dict[str, float], emotions: Iterable[str] | None) -> dict[str, float]:
    """Case-insensitive matching: rename keys to the reference's spelling where they match."""
    if emotions is None:
        return ratings
    by_lower = {e.lower(): e for e in emotions}
    out: dict[str, float] = {}
    for name, value in ratings.items():  # later duplicates win, as in a dict built from pairs
        out[by_lower.get(name.lower(), name)] = value
    return out


def _in_range(ratings: dict[str, float]) -> dict[str, float]:
    return {k: v for k, v in ratings.items() if 0 <= v <= 10}


def parse_answer(
    text: str | None, revise: bool = False, parser: str = "official", emotions: Iterable[str] | None = None
) -> ParsedAnswer:
    """Parse one response with the named parser. Never raises on any text.

    ``emotions`` (the reference names) lets the case-insensitive parsers report names in the
    reference's spelling; the official parser ignores it (it is case-sensitive).
    """
    if parser not in PARSERS:
        raise ValueError(f"parser must be one of {PARSERS}, not {parser!r}")
    text = text if isinstance(text, str) else ""
    if parser == "de":
        text = text.replace("*", "").replace("#", "")
        if not revise:
            return ParsedAnswer(_pairs_de(text))
        first = _FIRST_DE.search(text)
        revised = _REVISED_DE.search(text)
        return ParsedAnswer(_pairs_de(first.group(2)) if first else {}, _pairs_de(revised.group(2)) if revised else {})
    if parser != "official":
        text = text.replace("*", "").replace("#", "")
    if revise:
        first = _FIRST_EN.search(text)
        revised = _REVISED_EN.search(text)
        result = ParsedAnswer(_pairs(first.group(1)) if first else {}, _pairs(revised.group(1)) if revised else {})
    else:
        result = ParsedAnswer(_pairs(text))
    if parser == "official":
        return result
    fix = (
        (lambda r: _in_range(_canonical(r, emotions))) if parser == "evalscope" else (lambda r: _canonical(r, emotions))
    )
    return ParsedAnswer(fix(result.first_pass), fix(result.revised))


def default_parser(version: str) -> str:
    """The parser the official pipeline uses for a question set."""
    return "de" if version == "de" else "official"
