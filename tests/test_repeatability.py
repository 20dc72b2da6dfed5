import numpy as np
import pandas as pd
import pytest

from eqbench_nb import load_questions
from eqbench_nb.repeatability import (coefficient_of_variation, icc_2_1, icc_interval, iteration_scores,
                                      published_pairs, iteration_score_matrix, single_run_interval)
from eqbench_nb.runs import Run, RunRecord, score_record


def test_cv_by_hand():
    assert coefficient_of_variation([9, 10, 11]) == pytest.approx(10.0)
    assert np.isnan(coefficient_of_variation([5]))


def test_icc_extremes_and_a_known_value():
    rng = np.random.default_rng(0)
    truth = rng.normal(0, 1, 200)
    same = np.column_stack([truth] * 3)
    assert icc_2_1(same) == pytest.approx(1.0)
    noise = rng.normal(0, 1, (2000, 3))
    assert abs(icc_2_1(noise)) < 0.05
    # true-score variance 1, error variance 1: ICC = 0.5
    half = truth[:, None] + rng.normal(0, 1, (200, 3))
    assert icc_2_1(half) == pytest.approx(0.5, abs=0.12)
    iv = icc_interval(half, reps=300)
    assert iv.low < 0.5 < iv.high


def _two_iteration_run():
    qs = load_questions("v2")[:20]
    recs = []
    for it in (1, 2):
        for i, q in enumerate(qs):
            answer = dict(q.reference) if (i + it) % 2 else {e: 0.0 for e in q.emotions}
            recs.append(score_record(RunRecord("m", "r", it, q.id, first_pass=answer), q))
    return Run({"model": "m", "run_id": "r", "version": "v2", "n_questions": 20, "iterations": 2}, recs)


def test_iteration_scores_and_matrix_from_a_run():
    run = _two_iteration_run()
    scores = iteration_scores(run)
    assert list(scores.iteration) == [1, 2] and (scores.parseable == 20).all()
    m = iteration_score_matrix(run)
    assert m.shape == (20, 2)
    for it in (1, 2):
        assert scores.set_index("iteration").score[it] == pytest.approx(10 * m[it].mean())
    iv = single_run_interval(run, 1, reps=500)
    assert iv.low < iv.estimate < iv.high and iv.n == 20


def test_published_pairs():
    t = pd.DataFrame({"model": ["a", "a", "b", "c", "c"], "score": [50.0, 52.0, 40.0, 10.0, None]})
    p = published_pairs(t)
    assert list(p.model) == ["a"] and p.gap[0] == 2.0
