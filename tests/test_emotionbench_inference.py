"""Issue 30, rule 5: EmotionBench inference at the unit that was sampled (situations), beside the paper's test;
alignment intervals that account for the humans' own sampling error and the nesting of factors in emotions."""

import glob

import numpy as np
import pytest
from conftest import ROOT, needs_data

from eqbench_nb.emotionbench import clustered
from eqbench_nb.emotionbench.scoring import DOWN, NA, PA, SAME, UP, Scored, compare


def _factor(rng, effect: float, icc: float = 0.6, situations: int = 5, repeats: int = 10) -> list[Scored]:
    """One factor's evoked responses (situation effects with the given ICC, plus a factor effect) and 50 defaults,
    total variance 25 on the NA scale."""
    between, within = np.sqrt(25 * icc), np.sqrt(25 * (1 - icc))
    out = [Scored("General", {PA: 30.0, NA: float(v)}) for v in rng.normal(20, 5, 50)]
    for s in range(situations):
        mu = 20 + effect + rng.normal(0, between)
        out += [Scored(f"Anger-0_scenario-{s}", {PA: 30.0, NA: float(v)}) for v in rng.normal(mu, within, repeats)]
    return out


def _verdicts(effect: float, trials: int = 300, seed: int = 0) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    paper = clust = 0
    for _ in range(trials):
        scored = _factor(rng, effect)
        default = [x.scores[NA] for x in scored if x.situation == "General"]
        sits = clustered.by_situation(scored, NA)["Anger-0"]
        paper += compare([v for vs in sits.values() for v in vs], default).verdict in (UP, DOWN)
        clust += clustered.clustered_compare(sits, default).verdict in (UP, DOWN)
    return paper / trials, clust / trials


def test_without_a_factor_effect_the_paper_test_fires_and_the_clustered_test_keeps_its_level():
    """Claim false (no factor effect; situations differ among themselves, ICC 0.6): the paper's test, which counts
    the 10 repeats of a situation as independent, reports a change far more often than its α = 0.01; the test with
    the situations as units stays near α."""
    paper, clust = _verdicts(effect=0.0)
    assert paper > 0.15  # 15 times its level
    assert clust < 0.03


def test_with_a_real_factor_effect_the_clustered_test_sees_it():
    _, clust = _verdicts(effect=15.0, trials=100, seed=1)
    assert clust > 0.8


def test_icc_and_design_effect_on_known_groups():
    rng = np.random.default_rng(3)
    groups = [rng.normal(m, 1.0, 10) for m in rng.normal(0, 2.0, 200)]  # ICC = 4 / 5
    assert clustered.icc_oneway(groups) == pytest.approx(0.8, abs=0.05)
    assert clustered.design_effect(0.8) == pytest.approx(8.2)
    assert clustered.holm_reject([0.001, 0.006, 0.2], alpha=0.01) == [True, False, False]


def test_one_sample_when_the_default_does_not_vary():
    c = clustered.clustered_compare({"a": [12, 14], "b": [15, 17], "c": [11, 11]}, [10.0] * 50)
    assert c is not None and c.df == pytest.approx(2.0) and c.n_situations == 3
    assert c.difference == pytest.approx(np.mean([13, 16, 11]) - 10)


@needs_data
def test_the_paper_sheets_lose_verdicts_at_the_right_unit():
    """Issue 30, misleading 5: within-factor ICC of NA (median over factors) 0.73 for gpt-4, a design effect near
    7.5; at the situation level fewer factor verdicts survive, and fewer still after Holm over the 72 tests."""
    from eqbench_nb.emotionbench import sheets

    questionnaire = sheets.load_questionnaire("PANAS")
    for name, sheet in sheets.read_panas_sheets().items():
        fv = clustered.factor_verdicts(name, sheet.scored(questionnaire))
        assert fv.tests == 72
        assert fv.count("holm") <= fv.count("clustered") < fv.count("paper"), name
        if name == "gpt-4":
            assert round(fv.icc[NA], 2) == 0.73 and 7.4 < clustered.design_effect(fv.icc[NA]) < 7.7
    assert all(r["holm"] in (UP, DOWN, SAME) for r in fv.rows)


@needs_data
def test_human_factor_means_are_noisy_and_cap_the_alignment_r():
    """Issue 30, misleading 6: 16–39 people per factor; reliability of the human means 0.85 (NA) and 0.62 (PA), so a
    PA r can reach at most about 0.79; sign agreement on NA has a null of 1.00 that no model can beat."""
    from eqbench_nb.emotionbench import alignment, humans, sheets

    norms = humans.norms()
    assert round(alignment.human_reliability(norms, NA), 2) == 0.85
    assert round(alignment.human_reliability(norms, PA), 2) == 0.62
    assert alignment.sign_agreement_null(norms, NA) == 1.0
    rows = alignment.leaderboard_alignment(sheets.load_leaderboard(), norms, reps=300)
    for r in rows:
        assert r["pa_r_ceiling"] == pytest.approx(np.sqrt(0.623), abs=0.01)
        assert r["pa_r_disattenuated"] == pytest.approx(r["pa_r"] / r["pa_r_ceiling"])
        assert 1 <= r["na_r_rank_low"] <= r["na_r_rank"] <= r["na_r_rank_high"] <= len(rows)
    # the order of the top of the board is not supported: the best model's rank interval reaches far down
    best = min(rows, key=lambda r: r["na_r_rank"])
    assert best["na_r_rank_high"] >= 10


def test_factors_are_resampled_within_their_emotion():
    from eqbench_nb.emotionbench.alignment import stratified_indices

    strata = ["Anger"] * 5 + ["Fear"] * 3
    idx = stratified_indices(strata, reps=200, seed=0)
    assert (idx[:, :5] < 5).all() and (idx[:, 5:] >= 5).all()


@needs_data
def test_eqbench_against_emotionbench_without_the_two_llama_models_is_inconclusive():
    """Issue 30, wrong 1: without the two LLaMA-2 models r = 0.83, Fisher z 0.19–0.97 over 7 models; the old
    percentile bootstrap gave −0.50 and the sentence "the association rests on them"."""
    from eqbench_nb.analysis import verdicts
    from eqbench_nb.emotionbench import alignment, humans, sheets

    rows = alignment.leaderboard_alignment(sheets.load_leaderboard(), humans.norms(), reps=200)
    from eqbench_nb.eqbench.study import published

    joined, corr = alignment.side_by_side(rows, reps=200, lineages=published.lineage_map())
    na = corr.set_index("measure").loc["na_r"]
    assert na["n"] == 9 and na["interval_method"].startswith("Fisher z")
    without = alignment.correlation_without(joined[~joined["emotionbench_model"].str.startswith("LLaMA-2")])
    assert without["n"] == 7 and round(without["pearson"], 2) == 0.83
    assert (round(without["pearson_low"], 2), round(without["pearson_high"], 2)) == (0.19, 0.97)
    sentence = verdicts.describe(
        without["pearson"],
        without["pearson_low"],
        without["pearson_high"],
        what="r",
        n=7,
        unit="models",
        precise_to=0.5,
    )
    assert sentence == "r is 0.83 [0.19, 0.97], above 0, but 7 models cannot settle its size"
    assert len(corr) == len(alignment.SIDE_BY_SIDE_MEASURES) == 6


def test_the_committed_run_gives_back_its_own_settings():
    """Issue 30, wrong 4: the notebook's live re-run asked Anger only while its text and its committed run used
    Anger and Depression; now both read the committed run's header."""
    from eqbench_nb.emotionbench.runs import command_line, read_emotion_run

    run = read_emotion_run(glob.glob(str(ROOT / "data" / "runs" / "*__emotionbench__*.jsonl"))[0])
    settings = run.settings()
    assert settings["emotions"] == ["Anger", "Depression"] and settings["per_factor"] == 1
    assert (settings["repeats"], settings["default_repeats"]) == (1, 2)
    assert "--emotions Anger,Depression" in command_line(settings, run.timeout_s)
    import dataclasses

    from eqbench_nb.emotionbench.options import EmotionBenchRunOptions

    # the live call (run_emotionbench(..., **settings)) takes them as they are: each is a field of its options
    assert set(settings) <= {f.name for f in dataclasses.fields(EmotionBenchRunOptions)}
    EmotionBenchRunOptions(**settings)  # and each passes its declaration's check
    source = (ROOT / "notebooks" / "09_emotionbench.py").read_text()
    assert 'emotions=["Anger"]' not in source and "**settings" in source and "committed.settings()" in source
