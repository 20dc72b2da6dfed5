"""Scoring one EQ-Bench question (SPEC §6). Every scoring rule of the benchmark lives here.

A question's answer is a mapping emotion -> rating (0-10). It is *parseable* when it names
exactly the four reference emotions (names compared exactly, as upstream does); otherwise
scoring returns ``None``.

- v2 ("fullscale", the version everyone reports): per emotion d = |answer - reference|, a
  sigmoid penalty f(d), and ``10 - ADJUST_CONST * sum f(d)``. Range -19.908 .. 10.
- v1 ("normalised", the paper's): the answer is rescaled to sum to 10 and compared with the
  normalised key; ``10 - sum |u - ref|``. All-zero answers are rejected (they cannot be rescaled).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

#: The upstream adjustment constant, "chosen such that answering randomly produces a score of
#: zero". On the released 171 questions it does not quite (see :func:`eqbench_nb.metric`).
ADJUST_CONST = 0.7477

#: Scales: "v2" fullscale scoring (v2 and German sets), "v1" normalised scoring (the paper).
SCALES = ("v2", "v1")


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


def _as_reference(reference: Any, scale: str) -> dict[str, float]:
    """Accept a Question, an upstream reference dict (emotion1..4 + scores) or emotion -> score."""
    if hasattr(reference, "reference_for"):  # a Question
        return reference.reference_for(scale)
    if isinstance(reference, Mapping) and "emotion1" in reference:
        return {str(reference[f"emotion{i}"]): float(reference[f"emotion{i}_score"]) for i in range(1, 5)}
    if isinstance(reference, Mapping):
        return {str(k): float(v) for k, v in reference.items()}
    raise TypeError(f"reference must be a Question or a mapping, not {type(reference).__name__}")


def _as_ratings(answer: Mapping[str, Any] | None, emotions: set[str]) -> dict[str, float] | None:
    """The answer as emotion -> float, or None when it does not name exactly the 4 emotions."""
    if not answer or len(answer) != 4 or set(answer) != emotions:
        return None
    try:
        ratings = {k: float(v) for k, v in answer.items()}
    except (TypeError, ValueError):
        return None
    if any(math.isnan(v) or math.isinf(v) for v in ratings.values()):
        return None
    return ratings


def score_v2(answer: Mapping[str, Any] | None, reference: Mapping[str, float]) -> float | None:
    """v2 fullscale score of one answer against the raw 0-10 reference; None if unparseable."""
    ratings = _as_ratings(answer, set(reference))
    if ratings is None:
        return None
    tally = sum(fullscale_penalty(ratings[e] - reference[e]) for e in reference)
    return 10.0 - ADJUST_CONST * tally


def score_v1(answer: Mapping[str, Any] | None, reference: Mapping[str, float]) -> float | None:
    """v1 normalised score against the sums-to-10 reference; None if unparseable or sum <= 0."""
    ratings = _as_ratings(answer, set(reference))
    if ratings is None:
        return None
    total = sum(ratings.values())
    if total <= 0:
        return None
    return 10.0 - sum(abs(ratings[e] / total * 10.0 - reference[e]) for e in reference)


def score_question(answer: Mapping[str, Any] | None, reference: Any, scale: str = "v2") -> float | None:
    """Score one answer: a float, or None when the answer is not parseable.

    ``reference`` is a :class:`~eqbench_nb.questions.Question` (the key matching ``scale`` is
    used), an upstream reference dict (``emotion1`` .. ``emotion4_score``) or emotion -> score.
    ``scale`` is "v2" (fullscale sigmoid scoring) or "v1" (normalised scoring).
    """
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, not {scale!r}")
    ref = _as_reference(reference, scale)
    return score_v2(answer, ref) if scale == "v2" else score_v1(answer, ref)


def attempt_succeeded(answer: Mapping[str, Any] | None, reference_normalised: Mapping[str, float]) -> bool:
    """The official pipeline's retry test: an attempt fails when the v1 scorer returns nothing.

    So an all-zero answer is retried even in a v2 run (SPEC §4).
    """
    return score_v1(answer, reference_normalised) is not None
