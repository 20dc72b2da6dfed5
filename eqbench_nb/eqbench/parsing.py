"""Turning a model's text into ratings: the upstream parsers, each pinned to the pipeline it reproduces.

Each parser and its rule (upstream: EQ-bench/EQ-Bench ``lib/scoring.py``):

- ``official``: v2.3 (d28c60c) ``parse_answers``: ``(\\w+):\\s+(\\d+)`` over the text. A repeated name keeps the last
  value; "7.5" reads as 7; ``"Angry:7"`` (no space) does not match; ``"**Angry**: 7"`` does not match either (no
  markdown stripped).
- ``v2.4``: v2.4 (92e4a8f) ``parse_answers``: every ``*`` and ``#`` removed first, then the same.
- ``evalscope``: evalscope's ``parse_answers`` (``answer_validation.py``): v2.4's, expression for expression; its
  adapter always reads the whole text (``REVISE=False``, :mod:`.conventions`).
- ``de``: v2.3 ``parse_answers_de``: labels ``[a-zA-ZäöüßÄÖÜ\\s]+`` (trimmed), ``:``, optional ``**`` around the number;
  a decimal comma is kept as written ("7,5"), so the answer fails later where upstream's ``float("7,5")`` fails.
- ``de-v2.4``: v2.4 ``parse_answers_de``: every ``*`` and ``#`` removed first, then as ``de``.
- ``pl``: v2.4 ``parse_answers_pl``: ``*`` and ``#`` removed; labels ``[\\w ]+`` (not trimmed), ``:``, spaces, optional
  ``<``, digits, optional ``>``.

Names are kept exactly as written: whether "angry" counts for "Angry" is a rule of scoring (the pipeline's
name matching), not of parsing. With revision the text is split: the first pass lies between the two
headings (both must appear), the revised pass after the second.

Every parser runs in time linear in the text, with results identical to upstream's regular expressions.
Those expressions are quadratic on adversarial text (one unbroken 80 KB word took 28 s): a pair can only
start at the first character of a maximal run of label characters, because a label must reach the end of
its run to meet the colon, so each run is tried once instead of once per character. The headings are found
with plain substring search for the same reason. tests/test_parsing.py checks the equivalence on ordinary
text against the upstream expressions.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..model_numbers import number_or_text

PARSERS = ("official", "v2.4", "evalscope", "de", "de-v2.4", "pl")

#: A rating as read: a number, or the text as written when upstream's float() would fail on it ("7,5").
Rating = float | str
Ratings = dict[str, Rating]


@dataclass(frozen=True)
class ParsedAnswer:
    """Ratings read from one response: first pass, and revised (empty unless the text is split)."""

    first_pass: Ratings = field(default_factory=dict)
    revised: Ratings = field(default_factory=dict)


# ---------------------------------------------------------------- pairs, in linear time


@dataclass(frozen=True)
class _PairRule:
    label_char: re.Pattern[str]  # one character a label may hold
    after: re.Pattern[str]  # what follows the label: the colon, then the rating
    pair_at: re.Pattern[str]  # the upstream pair expression, matched where a label starts
    trim_label: bool
    comma_decimals: bool


_EN = _PairRule(re.compile(r"\w"), re.compile(r":\s+\d"), re.compile(r"(\w+):\s+(\d+)"), False, False)
_DE = _PairRule(
    re.compile(r"[a-zA-ZäöüßÄÖÜ\s]"),
    re.compile(r":\s*\**\d"),
    re.compile(r"([a-zA-ZäöüßÄÖÜ\s]+):\s*\**(\d+(?:,\d+)?)\**"),
    trim_label=True,
    comma_decimals=True,
)
_PL = _PairRule(re.compile(r"[\w ]"), re.compile(r": *<?\d"), re.compile(r"([\w ]+): *<?(\d+)>?"), False, False)


def find_pairs(text: str, rule: _PairRule = _EN) -> list[tuple[str, str]]:
    """What ``re.findall(rule.pair_at, text)`` returns, found in time linear in the text.

    Every pair has a colon followed by its rating (``rule.after``): those are found first, by one scan of the
    text, and only there is a label looked for. A label must run to the end of its maximal run of label
    characters to meet the colon, so the match findall would find starts where that run starts (or where the
    previous match ended, inside it): the run is walked back from the colon, each character once, and the
    upstream expression is matched there. Prose of 5 MB with a few ratings at its end costs one scan, not a
    regular-expression call per word.
    """
    pairs: list[tuple[str, str]] = []
    done = 0  # where the last match ended: findall's matches never overlap
    for colon in rule.after.finditer(text):
        start = colon.start()
        if start < done:
            continue
        while start > done and rule.label_char.match(text, start - 1):
            start -= 1
        if start == colon.start():
            continue  # no label before this colon
        hit = rule.pair_at.match(text, start)
        if hit is not None:
            pairs.append((hit.group(1), hit.group(2)))
            done = hit.end()
    return pairs


def _ratings(text: str, rule: _PairRule) -> Ratings:
    """A dict built from the pairs as upstream builds it: a repeated label keeps its last value."""
    out: Ratings = {}
    for label, value in find_pairs(text, rule):
        key = label.strip() if rule.trim_label else label
        # the one reader of model numbers: a rating too large to compute with stays the text it was written as
        out[key] = value if (rule.comma_decimals and "," in value) else number_or_text(value)
    return out


# ---------------------------------------------------------------- the revision headings, in linear time


def _between(text: str, start: str, end: str) -> str | None:
    """``re.search(start + "(.*?)" + end, text, re.DOTALL)``'s group 1, by substring search."""
    head = _find(text, start, 0, ignore_case=False)
    if head is None:
        return None
    tail = _find(text, end, head[1], ignore_case=False)
    return text[head[1] : tail[0]] if tail is not None else None


def _after(text: str, start: str) -> str | None:
    """``re.search(start + "(.*?)$", text, re.DOTALL)``'s group 1: up to the end, or a final newline."""
    head = _find(text, start, 0, ignore_case=False)
    if head is None:
        return None
    stop = len(text) - 1 if text.endswith("\n") and len(text) - 1 >= head[1] else len(text)
    return text[head[1] : stop]


def _find(text: str, literal: str, pos: int, ignore_case: bool) -> tuple[int, int] | None:
    if ignore_case:
        m = re.compile(re.escape(literal), re.IGNORECASE).search(text, pos)
        return (m.start(), m.end()) if m else None
    i = text.find(literal, pos)
    return (i, i + len(literal)) if i >= 0 else None


_SPACE = re.compile(r"\s*")


def _german_first(text: str) -> str | None:
    """``re.search(r'(Erste.*?):\\s*(.*?)(?=Überarbeitete|$)', text, re.I | re.S)``'s group 2."""
    head = _find(text, "Erste", 0, ignore_case=True)
    colon = text.find(":", head[1]) if head else -1
    if colon < 0:  # no colon after the first "Erste": none after any later one either
        return None
    start = _SPACE.match(text, colon + 1).end()  # type: ignore[union-attr]  # \s* always matches
    stop = len(text) - 1 if text.endswith("\n") and len(text) - 1 >= start else len(text)
    nxt = _find(text, "Überarbeitete", start, ignore_case=True)
    return text[start : min(stop, nxt[0]) if nxt else stop]


def _german_revised(text: str) -> str | None:
    """``re.search(r'(Überarbeitete.*?):\\s*(.*)', text, re.I | re.S)``'s group 2."""
    head = _find(text, "Überarbeitete", 0, ignore_case=True)
    colon = text.find(":", head[1]) if head else -1
    if colon < 0:
        return None
    return text[_SPACE.match(text, colon + 1).end() :]  # type: ignore[union-attr]


# ---------------------------------------------------------------- the parsers


@dataclass(frozen=True)
class _Parser:
    strip_markdown: bool
    rule: _PairRule
    first: Callable[[str], str | None]
    revised: Callable[[str], str | None]


def _en_first(text: str) -> str | None:
    return _between(text, "First pass scores:", "Revised scores:")


def _en_revised(text: str) -> str | None:
    return _after(text, "Revised scores:")


_PARSERS: dict[str, _Parser] = {
    "official": _Parser(False, _EN, _en_first, _en_revised),
    "v2.4": _Parser(True, _EN, _en_first, _en_revised),
    "evalscope": _Parser(True, _EN, _en_first, _en_revised),  # evalscope's copy of v2.4's parse_answers
    "de": _Parser(False, _DE, _german_first, _german_revised),
    "de-v2.4": _Parser(True, _DE, _german_first, _german_revised),
    "pl": _Parser(
        True, _PL, lambda t: _between(t, "Pierwsze oceny:", "Zmienione oceny:"), lambda t: _after(t, "Zmienione oceny:")
    ),
}


def parse_answer(text: str | None, revise: bool = False, parser: str = "official") -> ParsedAnswer:
    """Parse one response with the named parser; ``revise`` splits it into first and revised passes.

    Never raises on any text (``None``, an empty or a hostile string give empty answers). The last answers parsed
    are remembered (the viewer and the scoring conventions read each answer several times): each call gets its
    own copy of the ratings.
    """
    if parser not in _PARSERS:
        raise ValueError(f"parser must be one of {', '.join(PARSERS)}, not {parser!r}")
    parsed = _parse_cached(text if isinstance(text, str) else "", bool(revise), parser)
    return ParsedAnswer(dict(parsed.first_pass), dict(parsed.revised))


# Room for every answer of the published runs under the two harness conventions (86 runs x 171 questions x 2):
# rescoring them, notebook 02 read each text about three times, and 256 entries missed nearly every one.
@functools.lru_cache(maxsize=1 << 15)
def _parse_cached(text: str, revise: bool, parser: str) -> ParsedAnswer:
    p = _PARSERS[parser]
    if p.strip_markdown:
        text = text.replace("*", "").replace("#", "")
    if not revise:
        return ParsedAnswer(_ratings(text, p.rule))
    first, revised = p.first(text), p.revised(text)
    return ParsedAnswer(
        _ratings(first, p.rule) if first is not None else {},
        _ratings(revised, p.rule) if revised is not None else {},
    )


def default_parser(version: str) -> str:
    """The parser the official (v2.3) pipeline uses for a question set; Polish exists only in v2.4."""
    return {"de": "de", "pl": "pl"}.get(version, "official")
