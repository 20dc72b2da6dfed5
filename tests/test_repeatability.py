import numpy as np
import pandas as pd
import pytest

from eqbench_nb import load_questions
from eqbench_nb.analysis.spread import (
    coefficient_of_variation,
    cv_undefined_reason,
    icc_2_1,
    icc_interval,
    rank_among,
    sd_interval,
    summarise_scores,
)
from eqbench_nb.eqbench.runs import EqBenchRun, RunRecord, score_record
from eqbench_nb.eqbench.study.repeatability import (
    complete_iterations,
    complete_run,
    first_temperature,
    flip_effect,
    flip_effect_summary,
    flip_summary,
    identical_first_attempts,
    iteration_score_matrix,
    iteration_scores,
    parse_counts,
    published_pairs,
    single_run_interval,
    uncertainty_decomposition,
)


def test_cv_by_hand():
    assert coefficient_of_variation([9, 10, 11]) == pytest.approx(10.0)
    assert cv_undefined_reason([9, 10, 11]) is None
    assert np.isnan(coefficient_of_variation([5]))


def test_cv_is_refused_when_the_scale_crosses_zero():
    for scores in ([-47.0, -50.0, -44.0], [-1.0, 2.0, 3.0], [0.0, 1.0]):
        assert np.isnan(coefficient_of_variation(scores))
        assert "zero or negative" in cv_undefined_reason(scores)
    assert np.isnan(summarise_scores([-47.0, -50.0, -44.0])["cv_percent"])


def test_sd_interval_by_hand_and_by_simulated_coverage():
    iv = sd_interval([1.0, 2.0, 3.0])  # s = 1, k = 3: sqrt(2 / chi2(0.975, 2)) .. sqrt(2 / chi2(0.025, 2))
    assert iv.estimate == pytest.approx(1.0) and iv.n == 3
    assert iv.low == pytest.approx(np.sqrt(2 / 7.377759), rel=1e-5)
    assert iv.high == pytest.approx(np.sqrt(2 / 0.0506356), rel=1e-5)
    assert np.isnan(sd_interval([4.0]).low)
    rng = np.random.default_rng(1)
    for k in (3, 10):
        covered = [(lambda v: v.low <= 2.0 <= v.high)(sd_interval(rng.normal(-40, 2.0, k))) for _ in range(4000)]
        assert 0.935 < np.mean(covered) < 0.965, k


def test_rank_among_counts_the_scores_strictly_above():
    assert rank_among([5.0, 0.0, 100.0], [10.0, 5.0, 1.0, np.nan]).tolist() == [2, 4, 1]


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
    return EqBenchRun({"model": "m", "run_id": "r", "version": "v2", "n_questions": 20, "iterations": 2}, recs)


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
    run.header = run.header.replace(temperatures=[0.7, 0.85, 1.0])  # as the runner writes with --temperature 0.7
    assert first_temperature(run) == 0.7
    assert iteration_scores(run).temperature.tolist() == [0.7, 0.7]


def test_identical_first_attempts_counts_questions_answered_the_same_every_time():
    run = _two_iteration_run()
    for r in run.records:  # two questions of 20 get a different first text in iteration 2
        changed = r.iteration == 2 and r.question_id in {run.records[0].question_id, run.records[1].question_id}
        r.attempts = [{"text": f"{r.question_id}-{'b' if changed else 'a'}"}]
    assert identical_first_attempts(run) == pytest.approx(18 / 20)
    one_iteration = EqBenchRun(run.header, [r for r in run.records if r.iteration == 1])
    assert np.isnan(identical_first_attempts(one_iteration))


def test_icc_interval_with_too_few_questions_is_undefined_not_an_error():
    iv = icc_interval(np.array([[1.0, 2.0], [np.nan, 1.0]]))
    assert iv.n == 1 and np.isnan(iv.low) and np.isnan(iv.high)


def test_published_pairs():
    t = pd.DataFrame({"model": ["a", "a", "b", "c", "c"], "score": [50.0, 52.0, 40.0, 10.0, None]})
    p = published_pairs(t)
    assert list(p.model) == ["a"] and p.gap[0] == 2.0


def test_published_pairs_keep_where_each_score_comes_from():
    t = pd.DataFrame(
        {"model": ["a", "a", "b"], "run": ["leaderboard", "results_json", "leaderboard"], "score": [50.0, 52.0, 4.0]}
    )
    p = published_pairs(t)
    assert p.loc[0, ["run_a", "run_b"]].tolist() == ["leaderboard", "results_json"]


def test_complete_run_drops_a_partial_last_iteration():
    run = _two_iteration_run()
    run.header = run.header.replace(iterations=3)
    run.records += [r for r in _two_iteration_run().records if r.iteration == 1][:5]
    for r in run.records[-5:]:
        r.iteration = 3
    assert complete_iterations(run) == [1, 2]
    kept = complete_run(run)
    assert kept.iterations == [1, 2] and len(kept.records) == 40 and kept.header["iterations_planned"] == 3


# A questions x iterations matrix whose flips are known: question scores never change across iterations,
# only whether they parse. Question 0 always parses, 1 never, 2 parses in iterations 1 and 3, 3 only in 2.
FLIPS = pd.DataFrame(
    [[5.0, 5.0, 5.0], [np.nan, np.nan, np.nan], [-5.0, np.nan, -5.0], [np.nan, 1.0, np.nan]],
    columns=[1, 2, 3],
)


def test_parse_counts_and_flip_summary_of_known_flips():
    counts = parse_counts(FLIPS)
    assert counts.parsed.tolist() == [3, 0, 2, 1]
    assert counts.kind.tolist() == ["always", "never", "flips", "flips"]
    s = flip_summary(FLIPS)
    assert (s["always"], s["never"], s["flips"]) == (1, 1, 2)
    assert s["parsed_per_iteration"] == pytest.approx(2.0)
    assert s["flip_parse_share"] == pytest.approx((2 / 3 + 1 / 3) / 2)
    # pairs (1,2), (1,3), (2,3): question 2 differs in 2 pairs, question 3 in 2 -> 4 / 3 per pair
    assert s["discordant_per_pair"] == pytest.approx(4 / 3)
    assert s["score_always"] == pytest.approx(50.0) and s["score_flips"] == pytest.approx(10 * (-10 + 1) / 3)


def test_flip_effect_when_only_the_parsed_set_changes():
    eff = flip_effect(FLIPS)
    assert eff.official.tolist() == pytest.approx([0.0, 30.0, 0.0])  # 10 x mean of the parsed questions
    assert eff.fixed_set.tolist() == pytest.approx([50.0, 50.0, 50.0])  # only question 0 parses every time
    assert eff.fixed_values.tolist() == pytest.approx(eff.official.tolist())  # values never change
    summary = flip_effect_summary(FLIPS).set_index("variant")
    assert summary.sd["fixed_set"] == 0.0
    assert summary.variance_ratio["fixed_values"] == pytest.approx(1.0)


def test_flip_effect_without_flips_moves_only_with_the_scores():
    rng = np.random.default_rng(0)
    m = pd.DataFrame(rng.normal(0, 1, (30, 4)), columns=[1, 2, 3, 4])
    m.iloc[:5] = np.nan  # five questions never parse: no flips
    assert flip_summary(m)["flips"] == 0
    eff = flip_effect(m)
    assert eff.fixed_set.tolist() == pytest.approx(eff.official.tolist())
    assert np.ptp(eff.fixed_values) == pytest.approx(0.0)


def test_uncertainty_decomposition_recovers_known_sds():
    # question effects SD 2, decoding noise SD 1, 400 questions, 40 iterations (question-score units):
    # run to run the iteration score (x 10) moves by 10 x 1 / sqrt(400) = 0.5; the bootstrap over one
    # iteration's questions sees both, 10 x sqrt(2^2 + 1^2) / sqrt(400) = 1.118.
    rng = np.random.default_rng(3)
    m = rng.normal(0, 2, (400, 1)) + rng.normal(0, 1, (400, 40))
    d = uncertainty_decomposition(pd.DataFrame(m), reps=1000).set_index("source")
    assert d.sd["run to run"] == pytest.approx(0.5, rel=0.25)
    assert d.sd_low["run to run"] < 0.5 < d.sd_high["run to run"]
    assert d.sd["question sampling"] == pytest.approx(np.sqrt(5) / 2, rel=0.1)
    assert "variance_share" not in d.columns  # two "what ifs", not two parts of one variance (issue 30)
    assert d.n["run to run"] == 40 and d.n["question sampling"] == 400


def test_one_score_drives_sd_rejects_at_its_nominal_rate_on_normal_scores():
    """Claim false: ten normal iteration scores; 'the SD is driven by one iteration' must be rare."""
    from eqbench_nb.analysis.spread import one_score_drives_sd, sd_sensitivity

    rng = np.random.default_rng(0)
    rate = np.mean([one_score_drives_sd(sd_sensitivity(rng.normal(-54, 5, 10))) for _ in range(1000)])
    assert rate < 0.08


def test_one_score_drives_sd_is_chosen_with_one_wild_iteration():
    from eqbench_nb.analysis.spread import one_score_drives_sd, sd_sensitivity

    rng = np.random.default_rng(1)
    hits = [one_score_drives_sd(sd_sensitivity(np.append(rng.normal(-50, 4, 9), -80))) for _ in range(200)]
    assert np.mean(hits) > 0.9
    sens = sd_sensitivity([-75.2, -60.5, -58.2, -51.0, -50.5, -50.0, -49.3, -48.0, -47.2, -46.0])
    assert sens["dropped"] == -75.2 and sens["without"].estimate < sens["all"].low


def _flip_matrix(shift: float, seed: int = 0) -> pd.DataFrame:
    """Questions x iterations; 60 always parse, 60 flip (parse half the time); flipping ones score ``shift`` lower."""
    rng = np.random.default_rng(seed)
    q = np.concatenate([rng.normal(-5, 3, 60), rng.normal(-5 - shift, 3, 60)])
    m = q[:, None] + rng.normal(0, 0.3, (120, 10))
    m[60:][rng.random((60, 10)) < 0.5] = np.nan
    return pd.DataFrame(m)


def test_flip_score_difference_includes_zero_when_flipping_questions_score_like_the_rest():
    """Claim 'each flip moves the run score' false: flipping questions score like the others."""
    from eqbench_nb.eqbench.study.repeatability import flip_score_difference

    iv = flip_score_difference(_flip_matrix(0.0))
    assert iv.low < 0 < iv.high


def test_flip_score_difference_excludes_zero_when_flipping_questions_score_lower():
    from eqbench_nb.eqbench.study.repeatability import flip_score_difference

    iv = flip_score_difference(_flip_matrix(4.0))
    assert iv.high < 0


def test_flip_score_difference_refuses_a_percentile_bootstrap_over_fewer_than_small_n_questions_of_a_kind():
    """The house's small-n rule (issue 39): 20 flipping and 20 always-parsed questions are too few for a percentile
    bootstrap by default; named, it is given, and from SMALL_N questions of each kind on it needs no name."""
    from eqbench_nb.analysis.stats import SMALL_N, SmallSampleError
    from eqbench_nb.eqbench.study.repeatability import flip_score_difference

    full = _flip_matrix(4.0)
    few = full.iloc[[*range(20), *range(60, 80)]]
    with pytest.raises(SmallSampleError, match="flip_score_difference"):
        flip_score_difference(few)
    named = flip_score_difference(few, interval="percentile")
    assert named.n == 20 and named.low < named.estimate < named.high
    enough = full.iloc[[*range(SMALL_N), *range(60, 60 + SMALL_N)]]
    assert flip_score_difference(enough).n == SMALL_N


def test_the_real_model_anchor_is_the_four_gpt35_runs_of_one_day():
    """Issue 30, rule 6: the upstream results hold four near-identical gpt-3.5-turbo endpoints run on 2024-01-14;
    their official scores (rescored) differ by a few tenths of a point, against a question-sampling SE near 2."""
    from eqbench_nb.analysis.spread import sd_interval
    from eqbench_nb.eqbench.study.repeatability import (
        ALIAS_CAVEAT,
        SAME_DAY_GPT35,
        identical_question_share,
        same_day_runs,
    )
    from eqbench_nb.eqbench.study.table import published_runs

    runs = published_runs()
    day = same_day_runs(runs)
    assert sorted(day.model) == sorted(SAME_DAY_GPT35) and day.finished_utc.str.startswith("2024-01-14").all()
    assert day.score.round(2).tolist() == [69.32, 69.36, 69.52, 69.65]
    sd = sd_interval(day.score)
    assert 0.1 < sd.estimate < 0.2 and sd.n == 4 and sd.high < 1.0
    assert 0.85 < identical_question_share(runs) < 0.95
    assert "alias" in ALIAS_CAVEAT
    with pytest.raises(ValueError, match="missing"):
        same_day_runs(runs, models=(*SAME_DAY_GPT35, "gpt-4-0613"))
