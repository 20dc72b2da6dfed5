import contextlib
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


# ---------------------------------------------------------------- the scoring's fast path against the plain rules


def _plain_keyed(answer, emotions, match):
    """scoring._keyed as it was before its fast path (a copy, the oracle of the test below)."""
    from eqbench_nb.eqbench.scoring import _is_float, _names
    from eqbench_nb.model_numbers import is_finite_number

    if not answer:
        return None, "no 'Emotion: rating' pair read"
    if len(answer) != 4:
        return None, f"{_names(len(answer))} read, not the key's 4"
    names = list(emotions)
    if match == "exact":
        if set(answer) != set(names):
            return None, f"names not in the key as written: {', '.join(sorted(set(map(str, answer)) - set(names)))}"
        pairs = list(answer.items())
    else:
        by_lower = {e.lower(): e for e in names}
        pairs = [(by_lower.get(str(k).lower(), ""), v) for k, v in answer.items()]
        if {k for k, _ in pairs} != set(names):
            unknown = sorted(str(k) for k in answer if str(k).lower() not in by_lower)
            if unknown:
                return None, f"names not in the key in any case: {', '.join(unknown)}"
            return None, "a key name written twice (in two cases), another missing"
    try:
        ratings = {k: float(v) for k, v in pairs}
    except (TypeError, ValueError):
        bad = next(v for _, v in pairs if not _is_float(v))
        return None, f"rating {bad!r} is not a number float() reads"
    bad = [k for k, v in ratings.items() if not is_finite_number(v)]
    if bad:
        return None, f"the rating of {bad[0]} is {ratings[bad[0]]:g}, not a finite number"
    return ratings, None


def _plain_score(answer, reference, scale, match):
    """scoring.score_question as it was before its fast path: the key copied, every penalty computed."""
    ref = dict(reference.reference_for(scale)) if hasattr(reference, "reference_for") else dict(reference)
    ratings = _plain_keyed(answer, ref, match)[0]
    if ratings is None:
        return None
    if scale == "v2":
        return 10.0 - ADJUST_CONST * sum(fullscale_penalty(ratings[e] - ref[e]) for e in ref)
    total = sum(ratings.values())
    if total <= 0:
        return None
    return 10.0 - sum(abs(ratings[e] / total * 10.0 - ref[e]) for e in ref)


def _random_answer(rng, names):
    """An answer as parsers and people write them: mostly whole numbers, sometimes anything else a rating can be."""
    values = [0, 10, 3, 7.0, 2.5, -0.0, -1.0, 11, 1e-9, 4.000000001, float("nan"), float("inf"), 1e200, "7", "7,5",
              " 8", "x", None, True, np.float64(6.0), np.float32(5.5), np.int64(9), 10**400]  # fmt: skip
    labels = list(names)
    kind = rng.integers(10)
    if kind == 1:
        labels[rng.integers(4)] = labels[rng.integers(4)].lower()  # a name in another case (maybe twice)
    elif kind == 2:
        labels = labels[: rng.integers(5)]  # too few
    elif kind == 3:
        labels = [*labels, "Extra"]
    elif kind == 4:
        labels[rng.integers(4)] = labels[rng.integers(4)].upper()
    rng.shuffle(labels)
    whole = kind >= 5  # half the answers: whole numbers 0-10 only, as the official parser reads them
    return {n: (int(rng.integers(11)) if whole else values[rng.integers(len(values))]) for n in labels}


def test_fast_scoring_equals_the_plain_rules_to_the_bit_on_random_answers():
    from eqbench_nb.eqbench.scoring import keyed_answer, unparseable_reason

    rng = np.random.default_rng(2026)
    questions = load_questions("v2")
    compared = parseable = 0
    for _ in range(20000):
        q = questions[rng.integers(len(questions))]
        answer = _random_answer(rng, q.emotions)
        scale, match = ("v2", "v1")[rng.integers(2)], ("exact", "casefold")[rng.integers(2)]
        for reference in (q, q.reference_for(scale)):
            try:
                expected = _plain_score(answer, reference, scale, match)
            except OverflowError:  # float(10**400): the rules raise, and so must the fast path
                with pytest.raises(OverflowError):
                    score_question(answer, reference, scale, match)
                continue
            got = score_question(answer, reference, scale, match)
            assert (got is None) == (expected is None), (answer, scale, match)
            if got is not None:
                assert got.hex() == expected.hex(), (answer, scale, match)  # the same float, bit for bit
                parseable += 1
            compared += 1
        with contextlib.suppress(OverflowError):  # float(10**400) raises in both, checked above
            key = q.reference_for(scale)
            assert keyed_answer(answer, key, match) == _plain_keyed(answer, key, match)[0]
            assert unparseable_reason(answer, key, match) == _plain_keyed(answer, key, match)[1]
    assert compared > 30000 and parseable > 15000  # most answers scored, many of them not whole numbers
