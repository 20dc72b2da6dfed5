"""Scoring one EQ-Bench question. Every per-question scoring rule of the benchmark lives here.

Upstream: EQ-bench/EQ-Bench ``lib/scoring.py`` at d28c60c (v2.3) and 92e4a8f (v2.4), functions
``calculate_score_fullscale`` (v2) and ``calculate_score`` (v1).

An answer is a mapping emotion -> rating. It is *parseable* when it names exactly the four reference
emotions under the pipeline's name matching; otherwise scoring returns ``None``:

- ``match="exact"`` (v2.3, lm-evaluation-harness): the four names exactly as in the key.
- ``match="casefold"`` (v2.4, evalscope): exactly four names as written, which match the key's four
  names when lower-cased ("Annoyed" and "annoyed" are two names: such an answer is unparseable).

Scales:

- v2 ("fullscale", the version everyone reports): per emotion d = |answer - reference|, a sigmoid
  penalty f(d), and ``10 - ADJUST_CONST * sum f(d)``. Range -19.908 .. 10 for ratings in 0-10.
- v1 ("normalised", the paper's): the answer is rescaled to sum to 10 and compared with the normalised
  key; ``10 - sum |u - ref|``. All-zero answers are rejected (they cannot be rescaled).

The official pipelines also run upstream's v1 scorer on every attempt, v2 runs included, to decide
whether it is retried: :func:`upstream_v1_score` reproduces it at each commit, quirks included. At v2.4
(92e4a8f) it checks each of the four names as written against the key lower-cased (so "Resigned" and
"resigned" together pass), rescales all four ratings, but adds the error only for names in the key's exact
case ("angry: 9" costs nothing). :func:`score_v1` is the v1 scale this toolkit scores v1 answers with
(v1 runs are read with exact names, where the two agree).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from ..model_numbers import is_finite_number

#: The upstream adjustment constant, "chosen such that answering randomly produces a score of
#: zero". On the released 171 questions it does not quite (see :mod:`eqbench_nb.eqbench.study.metric`).
ADJUST_CONST = 0.7477

#: Scales: "v2" fullscale scoring (v2, German and Polish sets), "v1" normalised scoring (the paper).
SCALES = ("v2", "v1")
#: How an answer's emotion names are matched to the key's (see the module docstring).
MATCHES = ("exact", "casefold")


def fullscale_penalty(d: float) -> float:
    """f(d): the v2 penalty for an absolute error d on one emotion.

    0 for an exact answer, a sigmoid ``6.5 / (1 + exp(-1.2 (d - 4)))`` for 0 < d <= 5 (small
    errors cost little, errors near 4-5 cost almost linearly), and d itself beyond 5.
    """
    d = abs(float(d))
    if d == 0:
        return 0.0
    if d <= 5:
        return 6.5 / (1.0 + math.exp(-1.2 * (d - 4.0)))
    return d


#: f(d) of every whole-number error: the only errors the official parser's whole-number ratings make against the
#: integer keys, looked up instead of computed (each value is :func:`fullscale_penalty`'s own, so to the bit).
_WHOLE_ERROR_PENALTY = {float(d): fullscale_penalty(d) for d in range(-10, 11)}


def _penalty(d: float) -> float:
    """:func:`fullscale_penalty` of an error, from the table when it is a whole number (most of the scoring's time
    was the exponential of the same few errors)."""
    known = _WHOLE_ERROR_PENALTY.get(d)
    return fullscale_penalty(d) if known is None else known


def _as_reference(reference: Any, scale: str) -> Mapping[str, float]:
    """Accept a Question, an upstream reference dict (emotion1..4 + scores) or emotion -> score."""
    if hasattr(reference, "reference_for"):  # a Question: its key itself, only read (no copy per answer scored)
        return reference.reference_for(scale)
    if isinstance(reference, Mapping) and "emotion1" in reference:
        return {str(reference[f"emotion{i}"]): float(reference[f"emotion{i}_score"]) for i in range(1, 5)}
    if isinstance(reference, Mapping):
        return {str(k): float(v) for k, v in reference.items()}
    raise TypeError(f"reference must be a Question or a mapping, not {type(reference).__name__}")


def keyed_answer(answer: Mapping[str, Any] | None, emotions: Any, match: str = "exact") -> dict[str, float] | None:
    """The answer keyed by the key's emotion names, as floats; None when it is not parseable.

    Not parseable: not exactly four names, names that do not match the key's four under ``match``, or a
    rating that is not a finite number (a German "7,5", which upstream's float() rejects).
    """
    return _keyed(answer, emotions, match)[0]


def unparseable_reason(answer: Mapping[str, Any] | None, emotions: Any, match: str = "exact") -> str | None:
    """Why :func:`keyed_answer` finds the answer unparseable, in one line (None when it is parseable)."""
    return _keyed(answer, emotions, match)[1]


def _keyed(answer: Mapping[str, Any] | None, emotions: Any, match: str) -> tuple[dict[str, float] | None, str | None]:
    """(the keyed ratings, None) or (None, why not): the parseability rule and its explanation, in one place."""
    if match not in MATCHES:
        raise ValueError(f"match must be one of {MATCHES}, not {match!r}")
    if not answer:
        return None, "no 'Emotion: rating' pair read"
    if len(answer) != 4:
        return None, f"{_names(len(answer))} read, not the key's 4"
    if match == "exact":
        names = set(emotions)
        if set(answer) != names:
            return None, f"names not in the key as written: {', '.join(sorted(set(map(str, answer)) - names))}"
        pairs: Iterable[tuple[Any, Any]] = answer.items()
    else:
        key = list(emotions)
        names = set(key)
        by_lower = {e.lower(): e for e in key}
        pairs = [(by_lower.get(str(k).lower(), ""), v) for k, v in answer.items()]
        if {k for k, _ in pairs} != names:  # four names as written, four distinct key names
            unknown = sorted(str(k) for k in answer if str(k).lower() not in by_lower)
            if unknown:
                return None, f"names not in the key in any case: {', '.join(unknown)}"
            return None, "a key name written twice (in two cases), another missing"
    try:
        ratings = {k: float(v) for k, v in pairs}
    except (TypeError, ValueError):
        bad = next(v for _, v in pairs if not _is_float(v))
        return None, f"rating {bad!r} is not a number float() reads"
    if all(map(is_finite_number, ratings.values())):  # the common case, in C: no list, no frame per answer
        return ratings, None
    bad = next(k for k, v in ratings.items() if not is_finite_number(v))  # NaN, inf, or too large to square
    return None, f"the rating of {bad} is {ratings[bad]:g}, not a finite number"


def _names(n: int) -> str:
    return f"{n} name" + ("" if n == 1 else "s")


def _is_float(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def score_v2(answer: Mapping[str, Any] | None, reference: Mapping[str, float], match: str = "exact") -> float | None:
    """v2 fullscale score of one answer against the raw 0-10 reference; None if unparseable."""
    ratings = keyed_answer(answer, reference, match)
    if ratings is None:
        return None
    tally = sum([_penalty(ratings[e] - reference[e]) for e in reference])
    return 10.0 - ADJUST_CONST * tally


def score_v1(answer: Mapping[str, Any] | None, reference: Mapping[str, float], match: str = "exact") -> float | None:
    """v1 normalised score against the sums-to-10 reference; None if unparseable or sum <= 0."""
    ratings = keyed_answer(answer, reference, match)
    if ratings is None:
        return None
    total = sum(ratings.values())
    if total <= 0:
        return None
    return 10.0 - sum(abs(ratings[e] / total * 10.0 - reference[e]) for e in reference)


def score_question(
    answer: Mapping[str, Any] | None, reference: Any, scale: str = "v2", match: str = "exact"
) -> float | None:
    """Score one answer: a float, or None when the answer is not parseable.

    ``reference`` is a :class:`~eqbench_nb.eqbench.questions.Question` (the key matching ``scale`` is
    used), an upstream reference dict (``emotion1`` .. ``emotion4_score``) or emotion -> score.
    ``scale`` is "v2" (fullscale sigmoid scoring) or "v1" (normalised scoring); ``match`` how names
    are matched ("exact" as v2.3, "casefold" as v2.4).
    """
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, not {scale!r}")
    ref = _as_reference(reference, scale)
    return score_v2(answer, ref, match) if scale == "v2" else score_v1(answer, ref, match)


def upstream_v1_score(answer: Mapping[str, Any], reference_normalised: Mapping[str, float], match: str) -> float | None:
    """What the official pipeline's v1 scorer (``calculate_score``) returns for an answer, exactly.

    ``match="exact"``: v2.3 (d28c60c) and v1.1, where the four names must be the key's as written, and the
    value is :func:`score_v1`'s. ``match="casefold"``: v2.4 (92e4a8f), where each of four names as written
    must equal some key name lower-cased, repeats in another case allowed ("Resigned" and "resigned" pass);
    all four ratings are rescaled to sum to 10, but only names in the key's exact case add their error.
    None where upstream returns None: not four names, a name matching no key name, ratings summing to <= 0.

    Raises ``ValueError`` where upstream's ``float()`` raises (a German "7,5" among four matching names):
    upstream then fails the whole attempt, revised pass included, with no partial answer kept.
    """
    return _upstream_v1(answer, reference_normalised, match)[0]


def upstream_v1_problem(answer: Mapping[str, Any], reference_normalised: Mapping[str, float], match: str) -> str | None:
    """Why the official pipeline's v1 scorer returns None for an answer, in one line (None when it returns a
    number); raises ``ValueError`` where upstream's ``float()`` raises, as :func:`upstream_v1_score` does."""
    return _upstream_v1(answer, reference_normalised, match)[1]


def _upstream_v1(
    answer: Mapping[str, Any], reference_normalised: Mapping[str, float], match: str
) -> tuple[float | None, str | None]:
    if match not in MATCHES:
        raise ValueError(f"match must be one of {MATCHES}, not {match!r}")
    if len(answer) != 4:
        return None, ("no 'Emotion: rating' pair read" if not answer else f"{_names(len(answer))} read, not 4")
    lower = {e.lower() for e in reference_normalised}
    known = (lambda k: k in reference_normalised) if match == "exact" else (lambda k: str(k).lower() in lower)
    unknown = [k for k in answer if not known(k)]
    if unknown:
        return None, f"a name matching no key name ({', '.join(map(str, unknown))})"
    total = sum(float(v) for v in answer.values())  # float() raises as upstream's does
    if total <= 0:
        return None, "the ratings sum to 0 (an all-zero answer cannot be rescaled)"
    rescaled = {k: float(v) / total * 10 for k, v in answer.items()}
    score = 10 - sum(abs(u - reference_normalised[k]) for k, u in rescaled.items() if k in reference_normalised)
    return score, None


def upstream_v1_accepts(answer: Mapping[str, Any], reference_normalised: Mapping[str, float], match: str) -> bool:
    """The official pipeline's retry test: does its v1 scorer return a number (:func:`upstream_v1_score`)?

    An attempt is retried when it does not, so an all-zero answer is retried even in a v2 run. At v2.4 the
    name check is looser than the fullscale scorer's ("Annoyed" and "annoyed" pass here and fail fullscale
    scoring). Raises ``ValueError`` where upstream's ``float()`` raises.
    """
    return _upstream_v1(answer, reference_normalised, match)[1] is None
