"""eqbench_nb.analysis.ranks and eqbench_nb.eqbench.study.ranking on constructed data with known answers."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from eqbench_nb.analysis import ranks as K
from eqbench_nb.eqbench.conventions import score_run
from eqbench_nb.eqbench.questions import load_questions
from eqbench_nb.eqbench.runs import EqBenchRun, RunRecord, score_record
from eqbench_nb.eqbench.study import ranking as R


def test_ranks_best_first_ties_averaged_nan_last():
    assert K.ranks([3.0, 1.0, 2.0]).tolist() == [1, 3, 2]
    assert K.ranks([5.0, 5.0, 1.0]).tolist() == [1.5, 1.5, 3]
    assert K.ranks([np.nan, 2.0, 1.0]).tolist() == [3, 1, 2]
    assert K.ranks([[1.0, 2.0], [4.0, 3.0]], axis=1).tolist() == [[2, 1], [1, 2]]


def test_rank_intervals_are_exact_when_runs_are_far_apart_and_wide_when_tied():
    rng = np.random.default_rng(0)
    base = rng.normal(0, 1, size=120)
    m = np.vstack([base + 5, base + 0.02 * rng.normal(size=120), base + 0.02 * rng.normal(size=120), base - 5])
    t = K.rank_intervals(m, labels=list("abcd"), reps=500, seed=1)
    a, d = t.set_index("label").loc["a"], t.set_index("label").loc["d"]
    assert (a["rank"], a.rank_low, a.rank_high, a.p_top) == (1, 1, 1, 1.0)
    assert (d["rank"], d.rank_low, d.rank_high) == (4, 4, 4)
    mid = t.set_index("label").loc[["b", "c"]]
    assert (mid.rank_low == 2).all() and (mid.rank_high == 3).all() and (mid.width == 1).all()
    assert t.p_top.sum() == pytest.approx(1.0)


def test_probability_of_improvement_on_known_distributions():
    assert K.probability_of_improvement([2, 3, 4], [1, 2, 3]) == 1.0
    assert K.probability_of_improvement([1, 2, 3], [1, 2, 3]) == 0.5
    assert K.probability_of_improvement([1, np.nan, 3], [0, 5, 4]) == 0.5  # the NaN question is left out
    rng = np.random.default_rng(2)
    x, y = rng.normal(1, 1, 200_000), rng.normal(0, 1, 200_000)
    # X - Y ~ N(1, 2): P(X > Y) = Phi(1 / sqrt 2)
    assert K.probability_of_improvement(x, y) == pytest.approx(sps.norm.cdf(1 / np.sqrt(2)), abs=0.005)


def test_pairwise_comparisons_agree_with_the_single_pair_functions():
    rng = np.random.default_rng(3)
    m = rng.normal(0, 1, size=(5, 80)) + np.arange(5)[:, None] * 0.3
    m[2, :4] = np.nan
    pc = K.pairwise_comparisons(m, reps=400, seed=0)
    assert len(pc.table) == 10
    for row in pc.table.itertuples():
        assert row.poi == pytest.approx(K.probability_of_improvement(m[row.i], m[row.j]))
        assert row.diff == pytest.approx(10 * (np.nanmean(m[row.i]) - np.nanmean(m[row.j])))
        assert row.diff_low <= row.diff <= row.diff_high and row.poi_low <= row.poi <= row.poi_high
    assert np.allclose(pc.poi + pc.poi.T, 1.0)
    assert pc.share_separated("diff", correction="bh") <= pc.share_separated("diff")


def test_pairwise_p_values_are_small_for_real_differences_and_not_for_none():
    rng = np.random.default_rng(4)
    q = rng.normal(0, 2, size=150)
    far = K.pairwise_comparisons(np.vstack([q + 1.0, q]), reps=500, seed=0).table.iloc[0]
    assert far.p_diff < 1e-6 and far.p_poi < 1e-6
    # 40 runs with the same expected score: about 5 % of pairs "separated" uncorrected, BH removes nearly all
    null = q[None, :] + rng.normal(0, 1, size=(40, 150))
    pc = K.pairwise_comparisons(null, reps=500, seed=0)
    assert pc.share_separated("diff") < 0.12
    assert pc.share_separated("diff", correction="bh") < 0.01


def test_benjamini_hochberg_on_known_p_values():
    rej, adj = K.benjamini_hochberg([0.01, 0.04, 0.03, 0.005])
    assert rej.all()
    assert adj == pytest.approx([0.02, 0.04, 0.04, 0.02])
    rej, _ = K.benjamini_hochberg([0.01, 0.02, 0.03, 0.04, 0.05, 0.5])
    assert not rej.any()  # each p(k) is above k/6 * 0.05
    rej, _ = K.benjamini_hochberg([0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205])
    assert rej.tolist() == [True, True] + [False] * 6
    p = np.random.default_rng(5).uniform(0, 0.2, size=300)
    assert K.benjamini_hochberg(p)[1] == pytest.approx(sps.false_discovery_control(p))


def test_bootstrap_p_value():
    boot = np.random.default_rng(6).normal(0, 1, size=(4000, 1))
    assert K.bootstrap_p_value(np.array([0.0]), boot)[0] == pytest.approx(1.0)
    assert K.bootstrap_p_value(np.array([1.96]), boot)[0] == pytest.approx(0.05, abs=0.004)
    assert K.bootstrap_p_value(np.array([3.0]), np.zeros((10, 1)))[0] == 0.0


def test_rank_changes_and_convention_bootstrap():
    t = R.rank_changes([90, 80, 70, 60], [60, 80, 70, 90], labels=list("abcd"))
    assert t.label.tolist()[:2] == ["a", "d"] and t.change.tolist()[:2] == [3, -3]
    rng = np.random.default_rng(7)
    m = rng.normal(size=(6, 50)) + np.arange(6)[:, None]
    same = R.convention_rank_bootstrap(m, m.copy(), reps=200)
    assert same["spearman"].estimate == 1 and same["spearman"].low == 1
    assert same["max_change"].estimate == 0 and same["max_change"].high == 0
    flipped = R.convention_rank_bootstrap(m, -m, reps=200)
    assert flipped["spearman"].estimate == pytest.approx(-1) and flipped["max_change"].estimate == 5


def test_performance_profiles():
    m = np.array([[10.0, 9.0, 5.0, np.nan], [1.0, 2.0, 3.0, 4.0]])
    p = K.performance_profiles(m, [0, 4, 9, 10], reps=300, seed=0)
    assert p["profile"][0].tolist() == pytest.approx([1, 1, 2 / 3, 1 / 3])
    assert p["profile"][1].tolist() == pytest.approx([1, 0.25, 0, 0])
    assert (p["low"] <= p["profile"] + 1e-12).all() and (p["profile"] <= p["high"] + 1e-12).all()


def test_pair_difference_sd():
    m = np.array([[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 0.0, 0.0], [1.0, 2.0, 3.0, np.nan]])
    sd = K.pair_difference_sd(m)
    assert sd[0] == pytest.approx(np.std([1, 2, 3, 4], ddof=1))
    assert sd[1] == pytest.approx(0.0)  # rows 0 and 2 differ by 0 on their three shared questions


def test_required_questions_give_80_percent_power_by_simulation():
    sd, delta = 3.0, 2.0  # per-question SD of the paired difference; run-score difference in points
    n = int(K.required_questions(delta, sd))
    assert n == int(np.ceil((sps.norm.ppf(0.975) + sps.norm.ppf(0.8)) ** 2 * (10 * sd / delta) ** 2))
    assert K.paired_power(delta, n, sd) >= 0.8 > K.paired_power(delta, n - 5, sd)
    rng = np.random.default_rng(8)
    sims = 2000
    d = rng.normal(delta / 10, sd, size=(sims, n))  # per-question differences; run score = 10 x mean
    t = d.mean(1) / (d.std(1, ddof=1) / np.sqrt(n))
    power = (np.abs(t) > sps.norm.ppf(0.975)).mean()
    assert power == pytest.approx(0.8, abs=0.03)


def test_required_iterations_give_80_percent_power_by_simulation():
    sd_run, delta = 2.0, 2.0
    r = int(K.required_iterations(delta, sd_run))
    assert r == int(np.ceil(2 * (sps.norm.ppf(0.975) + sps.norm.ppf(0.8)) ** 2 * (sd_run / delta) ** 2))
    assert int(K.required_iterations(50.0, sd_run)) == 1
    rng = np.random.default_rng(9)
    sims = 4000
    a = rng.normal(delta, sd_run, size=(sims, r)).mean(1)
    b = rng.normal(0.0, sd_run, size=(sims, r)).mean(1)
    power = (np.abs(a - b) / (sd_run * np.sqrt(2 / r)) > sps.norm.ppf(0.975)).mean()
    assert 0.8 <= power <= 0.9  # rounding r up can only add power


def test_paired_power_with_iteration_noise():
    # iteration noise adds 2 sd_e^2 / r to the per-question variance of the difference
    assert K.paired_power(1.0, 171, 3.0, iterations=1, sd_iteration=0.0) > K.paired_power(
        1.0, 171, 3.0, iterations=1, sd_iteration=2.0
    )
    assert K.paired_power(1.0, 171, 3.0, iterations=4, sd_iteration=2.0) == pytest.approx(
        K.paired_power(1.0, 171, np.sqrt(9 + 2 * 4 / 4))
    )


# ---------------------------------------------------------------------------------------------
# conventions on constructed runs (real question keys)
# ---------------------------------------------------------------------------------------------


def _run(items, revise=False):
    """A single-iteration run: items are (first_pass dict or None, revised dict or None, raw text)."""
    qs = load_questions("v2")
    records = []
    for q, (first, revised, text) in zip(qs, items):
        r = RunRecord("m", "r", 1, q.id, attempts=[{"text": text}], first_pass=first or {}, revised=revised or {})
        records.append(score_record(r, q))
    header = {"model": "m", "run_id": "r", "version": "v2", "n_questions": 171, "iterations": 1, "revise": revise}
    return EqBenchRun(header, records), qs


def _text(answer):
    return "\n".join(f"{e}: {int(v)}" for e, v in answer.items())


def test_convention_matrix_and_lm_eval_differences_explain_the_gap():
    qs = load_questions("v2")[:4]
    ref = [dict(q.reference) for q in qs]
    off1 = {e: min(10.0, v + 1) for e, v in ref[1].items()}
    items = [
        (ref[0], None, _text(ref[0])),  # identical under both conventions
        (off1, None, _text(off1) + "\nConfidence: 8"),  # stored answer scores; lm-eval sees 5 pairs
        (None, None, "no numbers here"),  # unparseable in both
        (ref[3], None, _text(ref[3])),
    ]
    run, _ = _run(items)
    off = R.convention_matrix([run], "official")
    lm = R.convention_matrix([run], "lm-eval")
    assert off.shape == (1, 171) and lm.shape == (1, 171)
    assert off.iloc[0, :4].tolist()[0] == pytest.approx(10.0) and np.isnan(off.iloc[0, 2])
    assert lm.iloc[0, :4].tolist() == pytest.approx([10.0, 0.0, 0.0, 10.0])
    assert lm.iloc[0, 4:].eq(0).all() and off.iloc[0, 4:].isna().all()
    assert 10 * lm.iloc[0].mean() == pytest.approx(score_run(run, "lm-eval").score, abs=0.006)
    assert 10 * off.iloc[0].mean() == pytest.approx(score_run(run, "official").score, abs=0.006)
    d = R.lm_eval_differences([run]).iloc[0]
    assert (d.missing, d.unparseable, d.extra_pair, d.whole_output) == (167, 1, 1, 0)
    points = d[[c for c in d.index if c.startswith("points_")]].sum()
    assert points == pytest.approx(d.lm_eval - d.official)


def test_lm_eval_reads_the_whole_output_of_a_revision_run():
    q = load_questions("v2")[0]
    ref = dict(q.reference)
    worse = {e: (0.0 if v > 5 else 10.0) for e, v in ref.items()}
    text = "First pass scores:\n" + _text(ref) + "\n\nCritique: fine.\n\nRevised scores:\n" + _text(worse)
    run, _ = _run([(ref, worse, text)], revise=True)
    assert score_run(run).used_revised == [False]  # the revised pass is worse: official keeps the first
    lm = R.convention_matrix([run], "lm-eval").iloc[0, 0]
    assert lm == pytest.approx(run.records[0].revised_score)  # last value of each name wins
    d = R.lm_eval_differences([run]).iloc[0]
    assert d.whole_output == 1 and d.points_whole_output < 0


def test_evalscope_matrix_is_clamped_question_score():
    qs = load_questions("v2")[:2]
    far = {e: (10.0 if v < 5 else 0.0) for e, v in qs[1].reference.items()}
    run, _ = _run([(dict(qs[0].reference), None, _text(qs[0].reference)), (far, None, _text(far))])
    ev = R.convention_matrix([run], "evalscope")
    assert ev.iloc[0, :2].tolist() == pytest.approx([10.0, 0.0])
    assert ev.iloc[0].mean() * 10 == pytest.approx(100 * score_run(run, "evalscope").score, abs=0.01)
    with pytest.raises(ValueError):
        R.convention_matrix([run], "helm")


def test_run_labels_disambiguate_repeated_models():
    runs = [
        EqBenchRun({"model": "a", "run_id": "1"}, []),
        EqBenchRun({"model": "a", "run_id": "2"}, []),
        EqBenchRun({"model": "b"}, []),
    ]
    assert R.run_labels(runs) == ["a#1", "a#2", "b"]
    assert isinstance(pd.Index(R.run_labels(runs)), pd.Index)


def test_pooled_run_sd_and_its_interval():
    rng = np.random.default_rng(10)
    sigma, m = 2.0, 4000
    a, b = 50 + rng.normal(0, sigma, m), 50 + rng.normal(0, sigma, m)
    iv = K.pooled_run_sd(a, b)
    assert iv.estimate == pytest.approx(sigma, rel=0.03) and iv.low < sigma < iv.high and iv.n == m
    small = K.pooled_run_sd([10.0, 20.0], [12.0, 20.0])  # d = 2, 0: sigma^2 = 4 / 4
    assert small.estimate == pytest.approx(1.0) and small.low < 1.0 < small.high


def test_pooled_run_sd_interval_has_nominal_coverage():
    rng = np.random.default_rng(11)
    hits = 0
    for _ in range(2000):
        a, b = rng.normal(0, 3, 5), rng.normal(0, 3, 5)
        iv = K.pooled_run_sd(a, b)
        hits += iv.low <= 3 <= iv.high
    assert hits / 2000 == pytest.approx(0.95, abs=0.015)


def test_explain_rank_changes_names_the_cause():
    changes = R.rank_changes([80, 70, 60, 50], [50, 70, 60, 45], labels=list("abcd"))
    diffs = pd.DataFrame(
        {
            "label": list("abcd"),
            "revise": [False, False, False, True],
            "official": [80, 70, 60, 50],
            "lm_eval": [50, 70, 60, 45],
            "missing": [0, 0, 0, 0],
            "unparseable": [0, 0, 0, 0],
            "extra_pair": [40, 0, 0, 0],
            "other_reject": [0, 0, 0, 0],
            "whole_output": [0, 0, 0, 120],
            "points_unparseable": [0.0] * 4,
            "points_extra_pair": [-30.0, 0, 0, 0],
            "points_other_reject": [0.0] * 4,
            "points_whole_output": [0, 0, 0, -5.0],
            "points_mean": [0.0] * 4,
        }
    )
    t = R.explain_rank_changes(changes, diffs, k=3).set_index("label")
    assert t.loc["a", "change"] == 2 and "40 answers lm-eval rejects for an extra" in t.loc["a", "reason"]
    assert "-30.0 points" in t.loc["a", "reason"]
    assert t.loc["b", "change"] == -1 and "it passes 1 runs" in t.loc["b", "reason"]
    assert "1 with answers rejected" in t.loc["b", "reason"]
