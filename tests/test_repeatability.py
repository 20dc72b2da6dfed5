import numpy as np
import pandas as pd
import pytest

from eqbench_nb import load_questions
from eqbench_nb.analysis.repeatability import (
    coefficient_of_variation,
    first_temperature,
    icc_2_1,
    icc_interval,
    identical_first_attempts,
    iteration_score_matrix,
    iteration_scores,
    published_pairs,
    single_run_interval,
)
from eqbench_nb.eqbench.runs import Run, RunRecord, score_record


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


def test_iteration_scores_under_each_convention():
    run = _two_iteration_run()  # every answer parseable: half perfect, half all-zero
    official = iteration_scores(run).score.to_numpy()
    lm_eval = iteration_scores(run, "lm-eval").score.to_numpy()
    evalscope = iteration_scores(run, "evalscope").score.to_numpy()
    assert official == pytest.approx(lm_eval)  # nothing unparseable: the two agree
    assert (evalscope > official).all()  # evalscope clamps the negative questions to 0
    clamped = (iteration_score_matrix(run).clip(0, 10) * 10).mean()  # per iteration, on 0-100
    assert evalscope == pytest.approx(clamped.to_numpy())


def test_first_temperature_reads_the_header():
    run = _two_iteration_run()
    assert first_temperature(run) is None
    run.header["temperatures"] = [0.7, 0.85, 1.0]  # as the runner writes with --temperature 0.7
    assert first_temperature(run) == 0.7
    assert iteration_scores(run).temperature.tolist() == [0.7, 0.7]


def test_identical_first_attempts_counts_questions_answered_the_same_every_time():
    run = _two_iteration_run()
    for r in run.records:  # two questions of 20 get a different first text in iteration 2
        changed = r.iteration == 2 and r.question_id in {run.records[0].question_id, run.records[1].question_id}
        r.attempts = [{"text": f"{r.question_id}-{'b' if changed else 'a'}"}]
    assert identical_first_attempts(run) == pytest.approx(18 / 20)
    one_iteration = Run(run.header, [r for r in run.records if r.iteration == 1])
    assert np.isnan(identical_first_attempts(one_iteration))


def test_icc_interval_with_too_few_questions_is_undefined_not_an_error():
    iv = icc_interval(np.array([[1.0, 2.0], [np.nan, 1.0]]))
    assert iv.n == 1 and np.isnan(iv.low) and np.isnan(iv.high)


def test_published_pairs():
    t = pd.DataFrame({"model": ["a", "a", "b", "c", "c"], "score": [50.0, 52.0, 40.0, 10.0, None]})
    p = published_pairs(t)
    assert list(p.model) == ["a"] and p.gap[0] == 2.0
