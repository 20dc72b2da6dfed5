"""EQ-Bench 3's intervals at the unit that was sampled (issue 36, item 4): the rubric score and the position bias
follow the house's small-n rule below 30 scenarios, the Elo interval resamples scenarios and solves again, and
separability counts the pairs of models whose intervals do not overlap."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import needs_data

from eqbench_nb.analysis.stats import SMALL_N, SmallSampleError, bootstrap_indices, percentile_interval, t_mean_ci
from eqbench_nb.eqbench3 import rubric, study
from eqbench_nb.eqbench3.canonical import CanonicalElo
from eqbench_nb.eqbench3.pairwise import FORWARD_ORDER, REVERSED_ORDER
from eqbench_nb.eqbench3.versions import FIRST_CANONICAL, HEAD

# ---------------------------------------------------------------- the pooled mean over clusters


def test_below_small_n_clusters_the_interval_is_student_t_over_the_cluster_means():
    rng = np.random.default_rng(0)
    means = rng.normal(12, 2, size=12)
    sizes = np.full(12, 3.0)  # every scenario judged in 3 iterations
    got = study.clustered_mean_interval(means * sizes, sizes)
    expected = t_mean_ci(means)
    assert got.method.startswith("Student t over 12 scenarios") and got.n == 12
    assert (got.estimate, got.low, got.high) == pytest.approx((expected.estimate, expected.low, expected.high))
    big = study.clustered_mean_interval(rng.normal(12, 2, SMALL_N) * 3, np.full(SMALL_N, 3.0))
    assert big.method.startswith(f"cluster bootstrap over {SMALL_N} scenarios")


def test_the_small_n_interval_covers_where_the_percentile_bootstrap_did_not():
    """Ten scenarios of unequal size whose means differ (a random scenario effect): the t interval covers the true
    mean near 95 %, the percentile bootstrap over the ten scenarios (what ran before) clearly less often."""
    rng = np.random.default_rng(1)
    t_hits = boot_hits = 0
    sims = 300
    idx = bootstrap_indices(10, 2000, 0)
    for _ in range(sims):
        sizes = rng.integers(1, 6, size=10).astype(float)
        values = [rng.normal(rng.normal(0, 1), 1, int(n)) for n in sizes]
        sums = np.array([v.sum() for v in values])
        t = study.clustered_mean_interval(sums, sizes)
        t_hits += t.low <= 0 <= t.high
        lo, hi = percentile_interval(sums[idx].sum(1) / sizes[idx].sum(1))
        boot_hits += lo <= 0 <= hi
    # 300 simulations: a share's SE is about 0.013 near 0.95; with unequal clusters the robust SE runs a little small
    assert 0.90 <= t_hits / sims <= 0.98
    assert boot_hits / sims < t_hits / sims - 0.02, (boot_hits, t_hits)


# ---------------------------------------------------------------- the rubric score


def _rubric_run(scenario_scores: dict[str, list[float]]):
    from eqbench_nb.eqbench3.runs import RUBRIC, Eq3Run, StepRecord

    criteria = set(rubric.STANDARD_COUNTED) | set(rubric.load_rubric(rubric.ANALYSIS).criteria)
    records = [
        StepRecord("m", "r1", i + 1, sid, RUBRIC, [], judge="j", scores=dict.fromkeys(criteria, value))
        for sid, values in scenario_scores.items()
        for i, value in enumerate(values)
    ]
    header = {"model": "m", "run_id": "r1", "judge_model": "j", "iterations": 2, "scoring_version": "3c21bcc",
              "scenario_turns": dict.fromkeys(scenario_scores, 1)}  # fmt: skip
    return Eq3Run(Path("x.jsonl"), header, records)


@needs_data
def test_a_scenarios_run_below_30_gets_student_t_over_its_scenarios_with_iterations_nested():
    from eqbench_nb.eqbench3.scenarios import load_scenarios
    from eqbench_nb.eqbench3.summary import INTERVAL_METHOD, SMALL_INTERVAL_METHOD, summarise_run

    ids = [s.id for s in load_scenarios()]
    rng = np.random.default_rng(2)
    few = {sid: list(rng.integers(6, 18, size=2).astype(float)) for sid in ids[:8]}
    summary = summarise_run(_rubric_run(few))
    per_scenario = [np.mean(v) for v in few.values()]  # each scenario's two iterations make one unit
    expected = t_mean_ci(per_scenario, scale=rubric.TO_100)
    assert summary.interval_method == SMALL_INTERVAL_METHOD
    assert (summary.low, summary.high) == pytest.approx((expected.low, expected.high))
    assert summary.as_row()["interval_method"] == SMALL_INTERVAL_METHOD and "Student t" in summary.table()
    many = {sid: list(rng.integers(6, 18, size=2).astype(float)) for sid in ids[:SMALL_N]}
    full = summarise_run(_rubric_run(many))
    assert full.interval_method == INTERVAL_METHOD and full.low < full.score < full.high


# ---------------------------------------------------------------- position bias per kind of task


def _effects(scenarios: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(scenarios):
        shift = rng.normal(0, 2)  # scenarios differ: the pairs of one scenario move together
        for _ in range(8):
            first, second = rng.normal(1 + shift, 3), rng.normal(1 + shift, 3)
            rows.append({"scenario_id": str(s), "kind": "analysis", "effect": (first + second) / 2,
                         "a_outcome_first": float(first > 0), "a_outcome_second": float(-second > 0)})  # fmt: skip
    return pd.DataFrame(rows)


def test_position_bias_below_30_scenarios_is_a_scenario_clustered_t_interval():
    """Issue 36, item 4: the 26 role-play and 19 analysis scenarios got a percentile bootstrap over scenarios."""
    effects = _effects(19, 3)
    bias = study.position_bias(effects)
    per_scenario = effects.groupby("scenario_id")["effect"].mean()  # 8 pairs each: the t over scenario means
    expected = t_mean_ci(per_scenario.to_numpy())
    assert bias.method.startswith("Student t over 19 scenarios")
    assert (bias.effect, bias.low, bias.high) == pytest.approx((expected.estimate, expected.low, expected.high))
    assert bias.a_share_low < bias.a_share < bias.a_share_high
    pooled = study.position_bias(_effects(45, 4))
    assert pooled.method.startswith("cluster bootstrap over 45 scenarios")


# ---------------------------------------------------------------- the Elo interval and separability


def _field(scenarios: int) -> CanonicalElo:
    """Four models, every pair judged in both orders on each scenario; the stronger usually wins."""
    rng = np.random.default_rng(5)
    strength = {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.0}
    comps = []
    for sid in range(1, scenarios + 1):
        for test, other in (("a", "b"), ("b", "c"), ("c", "d"), ("a", "c"), ("b", "d"), ("a", "d")):
            test_wins = rng.random() < 1 / (1 + np.exp(-(strength[test] - strength[other])))
            for order, test_is_a in ((FORWARD_ORDER, True), (REVERSED_ORDER, False)):
                seat = "A0493" if test_is_a == test_wins else "A0488"
                plus = (3, 0) if test_wins else (0, 3)
                comps.append({"scenario_id": str(sid), "order": order, "judge_response": {"x": seat + "+++"},
                              "pair": {"test_model": test, "neighbor_model": other, "iteration_index": "1"},
                              "plus_for_test": plus[0], "plus_for_other": plus[1]})  # fmt: skip
    ratings = {m: {"elo": 1200 + 100 * s, "elo_norm": 1200 + 100 * s} for m, s in strength.items()}
    return CanonicalElo(Path("field"), ratings, comps)


def test_the_elo_interval_resamples_scenarios_and_solves_again():
    small = study.OrderSolver(_field(8), FIRST_CANONICAL)
    with pytest.raises(SmallSampleError):
        study.scenario_bootstrap(small, reps=20)
    solver = study.OrderSolver(_field(SMALL_N), FIRST_CANONICAL)
    table = study.scenario_bootstrap(solver, reps=100, seed=1)
    assert list(table["model"]) == ["a", "b", "c", "d"]
    assert (table["low"] < table["high"]).all() and all(len(b) == 100 for b in table["boot"])
    # each replicate is a re-solve of a scenario resample, drawn as the function draws it
    counts = np.random.default_rng(1).multinomial(SMALL_N, np.full(SMALL_N, 1 / SMALL_N), size=100)
    first = solver.resampled(counts[0])
    assert [b[0] for b in table["boot"]] == [first[m] for m in table["model"]]


def test_separability_is_the_share_of_pairs_whose_intervals_do_not_overlap():
    assert study.separability([0.0, 0.5, 3.0], [1.0, 2.0, 4.0]) == pytest.approx(2 / 3)
    assert study.separability([0.0, 0.0], [1.0, 1.0]) == 0.0
    assert np.isnan(study.separability([0.0], [1.0]))
    boot = np.column_stack([np.linspace(0, 1, 200), np.linspace(5, 6, 200), np.linspace(0.5, 1.5, 200)])
    assert study.bootstrap_separability(boot) == pytest.approx(2 / 3)


# ---------------------------------------------------------------- the standings' interval (leaderboard --judge)


def _board_field(scenarios: int, short: int = 0) -> list[dict]:
    """``_field``'s comparisons, and a fifth model ``e`` judged against ``d`` on the first ``short`` scenarios."""
    comps = list(_field(scenarios).comparisons)
    for sid in range(1, short + 1):
        for order, seat in ((FORWARD_ORDER, "A0493"), (REVERSED_ORDER, "A0488")):
            comps.append({"scenario_id": str(sid), "order": order, "judge_response": {"x": seat + "+++"},
                          "pair": {"test_model": "e", "neighbor_model": "d", "iteration_index": "1"},
                          "plus_for_test": 3, "plus_for_other": 0})  # fmt: skip
    return comps


@pytest.mark.parametrize("version", [FIRST_CANONICAL, HEAD], ids=lambda v: v.name)
def test_the_standings_interval_is_the_scenario_bootstrap_of_the_same_comparisons(version):
    from eqbench_nb.eqbench3.league import interval_caption, provisional_ladder, standings

    comps = _board_field(SMALL_N + 2, short=10)
    models = ["a", "b", "c", "d", "e"]
    table = standings(models, comps, version, reps=120, seed=4).set_index("model")
    ladder = provisional_ladder(models, comps, version)
    boot = study.scenario_bootstrap(study.OrderSolver.of(models, comps, version, ladder), reps=120, seed=4)
    boot = boot.set_index("model")
    rated = ["a", "b", "c", "d"]
    assert list(table.loc[rated, "ci_low"]) == [round(x, 2) for x in boot.loc[rated, "low"]]
    assert list(table.loc[rated, "ci_high"]) == [round(x, 2) for x in boot.loc[rated, "high"]]
    assert list(table.loc[rated, "elo"]) == [round(x, 2) for x in boot.loc[rated, "elo_norm"]]  # raw: no anchors
    # e rests on 10 scenarios: below the small-n rule it has no interval of its own, and is left out of separability
    assert table.loc["e", "scenarios"] == 10 and table.loc[["e"], ["ci_low", "ci_high"]].isna().all(axis=None)
    assert table["separability"].iloc[0] == study.separability(boot.loc[rated, "low"], boot.loc[rated, "high"])
    assert table["separability_pairs"].iloc[0] == 6 and (table["reps"] == 120).all()
    assert table["interval_method"].iloc[0] == "95 % scenario-cluster bootstrap, 120 resamples (seed 4), re-solved"
    # not TrueSkill's mu ± 1.96 sigma any more (what the column held before); sigma stays, as upstream reports it
    old_low = (table["elo"] - 1.96 * table["sigma"]).round(2)
    assert (table.loc[rated, "ci_low"] != old_low.loc[rated]).all() and (table["sigma"] > 0).all()
    assert (table.loc[rated, "ci_mc_se"] > 0).all()
    caption = interval_caption(table.reset_index())
    assert "120 resamples" in caption and f"separability {table['separability'].iloc[0]:.2f}" in caption
    assert "no interval for e: rated on fewer than 30 scenarios" in caption and "\n" not in caption
    # seeded: the same call, the same table
    pd.testing.assert_frame_equal(standings(models, comps, version, reps=120, seed=4).set_index("model"), table)


def test_below_small_n_scenarios_the_standings_have_no_interval_and_say_why():
    from eqbench_nb.eqbench3.league import interval_caption, standings

    table = standings(["a", "b", "c", "d"], _board_field(12), FIRST_CANONICAL, reps=100)
    assert table["ci_low"].isna().all() and table["ci_high"].isna().all() and table["reps"].isna().all()
    assert table["separability"].isna().all() and (table["scenarios"] == 12).all()
    line = interval_caption(table)
    assert line.startswith("ci_low-ci_high: no interval: 12 scenarios, below 30: a percentile bootstrap over fewer "
                           "than 30 scenarios is too narrow") and "\n" not in line  # fmt: skip
