import itertools
import math

import numpy as np
import pytest

from eqbench_nb import load_questions, score_question
from eqbench_nb.eqbench.scoring import ADJUST_CONST, fullscale_penalty, score_v1


def test_penalty_values_match_spec():
    assert fullscale_penalty(0) == 0
    for d, expected in [(1, 0.1729), (2, 0.5406), (3, 1.5046), (4, 3.25), (5, 4.9954)]:
        assert fullscale_penalty(d) == pytest.approx(expected, abs=5e-5)
        assert fullscale_penalty(-d) == fullscale_penalty(d)
    assert fullscale_penalty(6) == 6 and fullscale_penalty(10) == 10


def test_perfect_and_worst_v2_scores():
    ref = {"A": 0, "B": 10, "C": 5, "D": 0}
    assert score_question(ref, ref) == 10
    worst = {"A": 10, "B": 0, "C": 0, "D": 10}
    assert score_question(worst, ref) == pytest.approx(10 - ADJUST_CONST * (10 + 10 + 4.9954 + 10), abs=1e-3)


def test_unparseable_answers_score_none():
    ref = {"A": 1, "B": 2, "C": 3, "D": 4}
    assert score_question({"A": 1, "B": 2, "C": 3}, ref) is None
    assert score_question({"A": 1, "B": 2, "C": 3, "D": 4, "E": 5}, ref) is None
    assert score_question({"a": 1, "B": 2, "C": 3, "D": 4}, ref) is None  # case-sensitive, as upstream
    assert score_question({}, ref) is None and score_question(None, ref) is None
    assert score_question({"A": float("nan"), "B": 2, "C": 3, "D": 4}, ref) is None


def test_v1_normalises_and_rejects_all_zero():
    ref = {"A": 2, "B": 3, "C": 0, "D": 5}
    assert score_v1({"A": 4, "B": 6, "C": 0, "D": 10}, ref) == pytest.approx(10)
    assert score_v1({"A": 0, "B": 0, "C": 0, "D": 0}, ref) is None
    # all-zero is still a valid (bad) v2 answer: only v1 rejects it
    assert score_question({"A": 0, "B": 0, "C": 0, "D": 0}, ref, "v2") is not None


def test_score_question_accepts_question_and_upstream_dicts():
    q = load_questions("v2")[0]
    answer = dict(q.reference)
    assert score_question(answer, q) == 10
    upstream = {f"emotion{i}": e for i, e in enumerate(q.emotions, 1)} | {
        f"emotion{i}_score": str(int(q.reference[e])) for i, e in enumerate(q.emotions, 1)
    }
    assert score_question(answer, upstream) == 10
    with pytest.raises(ValueError):
        score_question(answer, q, scale="v3")


def _expected_random_score(questions, const):
    """Exact expectation over uniform integer answers 0..10, per emotion independently."""
    total = 0.0
    for q in questions:
        expected_tally = sum(np.mean([fullscale_penalty(a - r) for a in range(11)]) for r in q.reference.values())
        total += 10 - const * expected_tally
    return 10 * total / len(questions)  # run score units (0-100)


def test_random_answers_do_not_score_zero_with_upstream_constant():
    qs = load_questions("v2")
    expected = _expected_random_score(qs, ADJUST_CONST)
    assert expected == pytest.approx(1.435, abs=0.001)
    # the constant that makes random answers exactly zero
    mean_tally = np.mean(
        [sum(np.mean([fullscale_penalty(a - r) for a in range(11)]) for r in q.reference.values()) for q in qs]
    )
    zero_const = 10 / mean_tally
    assert zero_const == pytest.approx(0.7586, abs=0.0001)
    assert _expected_random_score(qs, zero_const) == pytest.approx(0, abs=1e-9)


def test_enumeration_agrees_with_full_product_on_one_question():
    # the per-emotion independence used above is exact: check it against all 11**4 answers
    q = load_questions("v2")[0]
    scores = [score_question(dict(zip(q.emotions, a)), q) for a in itertools.product(range(11), repeat=4)]
    per_emotion = 10 - ADJUST_CONST * sum(
        np.mean([fullscale_penalty(a - r) for a in range(11)]) for r in q.reference.values()
    )
    assert math.isclose(np.mean(scores), per_emotion, abs_tol=1e-9)
