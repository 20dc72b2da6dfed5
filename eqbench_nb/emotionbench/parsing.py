"""Reading a model's PANAS answer: one rating per listed item, in whatever shape it comes; never raises.

Two readers (``PARSERS``):

- ``"robust"`` (this project's, the default). Markdown emphasis (``*``, ``_``, backticks, ``#``) is dropped,
  then three readings are tried and the first that finds a rating for every item wins:
  1. by name: each item's word followed by a rating (``7. Scared: 3``, ``Scared - 3``, ``**Scared**: 3``,
     ``Interested: 4, Distressed: 1, …`` on one line), matched whole-word and in any case;
  2. by line: each line holding a number gives one rating, the last number on it, after a leading
     enumeration (``7.``, ``7)``, ``- 7:``) is taken off (``3``, ``7. 3``); a line with only an enumeration and
     words (``7. Scared``) is an item listed without a rating;
  3. inline: all numbers of the text, when there are exactly as many as items (``3, 1, 4, …``), or twice as
     many with the odd ones counting 1, 2, … (``1. 3, 2. 1, …``); a number that enumerates a word
     (``1. Interested``) is not a rating.
  A rating must lie on the scale (1-5 for PANAS). When no reading is complete the answer is ``incomplete``
  (some ratings found), ``refused`` (none found and the text says it cannot feel: "As an AI, I don't have
  feelings"), or ``unreadable``; a request that returned no text is ``no answer``. Only ``complete`` answers
  are scored; the others are counted, never averaged in.
- ``"upstream"`` (EmotionBench @ 48f6e1b, ``example_generator.convert_results``): the text is stripped, and each
  non-blank line's last character is read as an integer; any line ending in another character blanks the whole
  answer. Upstream then writes the list into its sheet, which fails (and stops upstream's run) unless there is
  exactly one value per item; here such an answer is ``unreadable`` instead. A value off the scale (a line
  ending in 9) is kept as upstream keeps it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..model_numbers import read_model_number

PARSERS = ("robust", "upstream")
STATUSES = ("complete", "incomplete", "refused", "unreadable", "no answer")

_MARKDOWN = re.compile(r"[*_`#]")
_NUMBER = re.compile(r"(?<![\d.])\d+(?![\d])")
_ENUMERATION = re.compile(r"^\W*?\d+\s*[.):]\s*")
_LISTED_ITEM = re.compile(r"(?<![\d.])\d+\s*[.):]\s*(?=[^\W\d_])")
_REFUSAL = re.compile(
    r"as an ai|language model|i (?:do not|don't|cannot|can't|am unable to|am not able to) "
    r"(?:have|experience|feel|possess|provide)|(?:my|any) own (?:feelings|emotions)|i'm sorry|i am sorry|"
    r"(?:have|experience) (?:personal )?(?:feelings|emotions) (?:like|as) (?:a )?humans?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ParsedAnswer:
    """Ratings in the order the items were asked (None where none was read) and what the reader made of it."""

    ratings: tuple[int | None, ...]
    status: str
    refusal: bool = False  # the text contains a refusal phrase (also when every rating was read)

    @property
    def complete(self) -> bool:
        return self.status == "complete"


def says_refusal(text: str) -> bool:
    """Whether the text says the model has or reports no feelings ("As an AI, I don't have feelings")."""
    return bool(_REFUSAL.search(text))


def _in_scale(value: str, scale: tuple[int, int]) -> int | None:
    """A rating within its scale, else None (the one reader of model numbers reads it: four digits or more are no
    rating on a 1-5 or 0-10 scale, and are never read as a number at all)."""
    if len(value) > 3:
        return None
    n = read_model_number(value, "a rating")
    return int(n) if scale[0] <= n <= scale[1] and n == int(n) else None


def _by_name(text: str, names: Sequence[str], scale: tuple[int, int]) -> list[int | None]:
    out: list[int | None] = []
    for name in names:
        pattern = re.compile(
            r"(?<![A-Za-z])" + re.escape(name.strip()) + r"(?![A-Za-z])[^\S\n]*[:=\-–—(]?[^\S\n]*(\d+)", re.IGNORECASE
        )
        found = None
        for m in pattern.finditer(text):
            found = _in_scale(m.group(1), scale)
            if found is not None:
                break
        out.append(found)
    return out


def _by_line(text: str, scale: tuple[int, int]) -> list[int | None]:
    out: list[int | None] = []
    for line in text.splitlines():
        numbers = _NUMBER.findall(line)
        if not numbers:
            continue
        rest = _ENUMERATION.sub("", line, count=1)
        tail = _NUMBER.findall(rest)
        if tail:
            out.append(_in_scale(tail[-1], scale))
        else:  # "7. Scared" lists an item without its rating; a lone "3." is the rating
            out.append(None if rest.strip() else _in_scale(numbers[-1], scale))
    return out


def _inline(text: str, n: int, scale: tuple[int, int]) -> list[int | None]:
    numbers = _NUMBER.findall(_LISTED_ITEM.sub(" ", text))  # "1. Interested" numbers an item, it rates nothing
    if len(numbers) == 2 * n and all(numbers[2 * i] == str(i + 1) for i in range(n)):
        numbers = numbers[1::2]
    if len(numbers) != n:
        return []
    return [_in_scale(v, scale) for v in numbers]


def parse_robust(text: str | None, names: Sequence[str], scale: tuple[int, int] = (1, 5)) -> ParsedAnswer:
    """This project's reader (see the module docstring); ``names`` are the items' words in the order asked."""
    n = len(names)
    if text is None:
        return ParsedAnswer((None,) * n, "no answer")
    clean = _MARKDOWN.sub("", text)
    refusal = says_refusal(clean)
    best: list[int | None] = []
    for reading in (_by_name(clean, names, scale), _by_line(clean, scale), _inline(clean, n, scale)):
        if len(reading) == n and all(r is not None for r in reading):
            return ParsedAnswer(tuple(reading), "complete", refusal)
        if sum(r is not None for r in reading[:n]) > sum(r is not None for r in best):
            best = reading[:n]
    ratings = tuple(best) + (None,) * (n - len(best))
    if any(r is not None for r in ratings):
        return ParsedAnswer(ratings, "incomplete", refusal)
    return ParsedAnswer(ratings, "refused" if refusal else "unreadable", refusal)


def parse_upstream(text: str | None, n: int) -> ParsedAnswer:
    """Upstream's reader: each non-blank line's last character as an integer (see the module docstring)."""
    if text is None:
        return ParsedAnswer((None,) * n, "no answer")
    refusal = says_refusal(text)
    try:
        values = [int(line.strip()[-1]) for line in text.strip().split("\n") if line.strip()]
    except ValueError:
        values = []
    if len(values) != n:
        return ParsedAnswer((None,) * n, "refused" if refusal else "unreadable", refusal)
    return ParsedAnswer(tuple(values), "complete", refusal)


def parse_answer(
    text: str | None, names: Sequence[str], parser: str = "robust", scale: tuple[int, int] = (1, 5)
) -> ParsedAnswer:
    """The ratings of one answer under the named reader (``PARSERS``)."""
    if parser == "upstream":
        return parse_upstream(text, len(names))
    if parser == "robust":
        return parse_robust(text, names, scale)
    raise ValueError(f"unknown EmotionBench parser {parser!r}; choose one of {', '.join(PARSERS)}")
