"""Notebook 10's analyses: each verdict against simulated data where its claim is false and where it is true, the
site tables, the recovered judgements, and the plots."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from conftest import needs_data

from eqbench_nb.eqbench3 import plots, site, study
from eqbench_nb.eqbench3.canonical import CanonicalElo, read_canonical
from eqbench_nb.eqbench3.pairwise import FORWARD_ORDER, REVERSED_ORDER
from eqbench_nb.eqbench3.versions import FIRST_CANONICAL


def simulated_judge(bias: float, seed: int, scenarios: int = 30, pairs_per: int = 40) -> pd.DataFrame:
    """Pairs judged in both orders by a judge that adds ``bias`` pluses to A0493 and noise that varies by scenario."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(scenarios):
        scenario_shift = rng.normal(0, 1.0) if bias == 0 else 0.0  # scenarios differ, but average no preference
        for _ in range(pairs_per):
            quality = rng.normal(0, 6)
            first = quality + bias + scenario_shift + rng.normal(0, 4)
            second = -quality + bias + scenario_shift + rng.normal(0, 4)
            outcomes = {"a_outcome_first": float(first > 0), "a_outcome_second": float(second > 0)}
            rows.append(
                {"scenario_id": str(s), "kind": "role-play and drafting", "effect": (first + second) / 2, **outcomes}
            )
    return pd.DataFrame(rows)


def test_position_bias_is_not_found_in_a_fair_judge():
    found = [study.position_bias(simulated_judge(0.0, seed), reps=500).verdict for seed in range(20)]
    assert found.count("not detected") >= 17  # a 95 % interval: about one in twenty may miss by chance


def test_position_bias_is_found_in_a_biased_judge_either_way():
    assert study.position_bias(simulated_judge(2.0, 1), reps=500).verdict == "favours A0493"
    assert study.position_bias(simulated_judge(-2.0, 2), reps=500).verdict == "favours A0488"
    assert study.position_bias_verdict(-0.1, 0.3) == "not detected"


def test_order_decided_pairs_are_counted_by_seat():
    effects = pd.DataFrame(
        {
            "scenario_id": ["1", "1", "2", "2"],
            "kind": ["analysis"] * 4,
            "effect": [5.0, -5.0, 0.0, 1.0],
            "a_outcome_first": [1.0, 0.0, 1.0, 0.5],
            "a_outcome_second": [1.0, 0.0, 0.0, 0.5],
        }
    )
    bias = study.position_bias(effects, reps=50)
    assert (bias.a_both, bias.b_both, bias.order_decided) == (1, 1, 0.5)
    assert bias.a_share == pytest.approx(3 / 6)  # of the 6 decided judgements, 3 went to A0493


def _tiny_canonical() -> CanonicalElo:
    """Three models, every pair judged in both orders on six scenarios; ``strong`` always wins."""
    models = {"strong": 1300.0, "mid": 1200.0, "weak": 1100.0}
    comps = []
    for sid in range(1, 7):
        for test, other in (("strong", "mid"), ("mid", "weak"), ("strong", "weak")):
            for order, test_is_a in ((FORWARD_ORDER, True), (REVERSED_ORDER, False)):
                verdict = {"x": ("A0493" if test_is_a else "A0488") + "+++"}
                comps.append({"scenario_id": str(sid), "order": order, "judge_response": verdict,
                              "pair": {"test_model": test, "neighbor_model": other, "iteration_index": "1"},
                              "plus_for_test": 3, "plus_for_other": 0})  # fmt: skip
    ratings = {m: {"elo": r, "elo_norm": r} for m, r in models.items()}
    from pathlib import Path

    return CanonicalElo(Path("tiny"), ratings, comps)


def test_order_spread_keeps_a_consistent_ranking_and_reports_its_range():
    table, spearmans = study.order_spread(_tiny_canonical(), FIRST_CANONICAL, shuffles=3, seed=1)
    assert list(table["model"]) == ["strong", "mid", "weak"]
    assert (table["best_rank"] == table["worst_rank"]).all()  # every order ranks the same
    assert spearmans == [1.0, 1.0, 1.0]
    assert (table["lowest"] <= table["mean"]).all() and (table["mean"] <= table["highest"]).all()


def test_interval_overlap_counts_neighbours():
    ratings = {
        "a": {"elo_norm": 10.0, "ci_low_norm": 8.0, "ci_high_norm": 12.0},
        "b": {"elo_norm": 9.0, "ci_low_norm": 7.0, "ci_high_norm": 11.0},
        "c": {"elo_norm": 1.0, "ci_low_norm": 0.0, "ci_high_norm": 2.0},
    }
    assert study.interval_overlap(ratings) == {"neighbours": 2, "overlapping": 1, "median_half_width": 2.0}


@needs_data
def test_trailing_comma_verdicts_are_recovered_in_place():
    elo = read_canonical()
    fixed = study.recovered(elo)
    assert len(fixed) == len(elo.comparisons)
    newly = [c for c, old in zip(fixed, elo.comparisons) if "error" in old and "error" not in c]
    assert len(newly) == 52
    assert all(isinstance(c["judge_response"], dict) and "fraction_for_test" in c for c in newly)
    assert sum("error" in c for c in fixed) == 90 - 52


@needs_data
def test_site_boards_and_the_name_table_agree():
    board = site.eqbench3_board()
    assert len(board) == 79 and not board["model"].str.startswith("*").any()
    assert board["new"].sum() == 4
    v2 = site.v2_board()
    assert len(v2) == 173
    names = site.name_matches()
    assert set(names["eqbench3_model"]) <= set(board["model"])  # every row names a real model of each board
    assert set(names["v2_model"]) <= set(v2["model"])
    assert len(site.both_boards()) == len(names)
    assert (names["source"] != "").all() and (names["match_note"] != "").all()


def test_correlation_reports_every_interval_and_n():
    x = np.arange(12, dtype=float)
    out = study.correlation(x, 2 * x + np.sin(x))
    assert out["n"] == 12 and out["pearson"] > 0.99
    assert out["pearson_fisher_low"] <= out["pearson"] <= out["pearson_fisher_high"]
    # Below 30 models the main intervals are Fisher's z, never a bootstrap over a dozen models.
    assert out["interval_method"].startswith("Fisher z") and np.isnan(out["pearson_bca_low"])
    assert (out["pearson_low"], out["pearson_high"]) == (out["pearson_fisher_low"], out["pearson_fisher_high"])
    x = np.arange(40, dtype=float)
    out = study.correlation(np.append(x, np.nan), np.append(x + 5 * np.sin(x), 1.0))
    assert out["n"] == 40 and out["interval_method"] == study.MODEL_METHOD
    assert out["pearson_bca_low"] <= out["pearson"] <= out["pearson_bca_high"]
    assert out["spearman_low"] <= out["spearman"] <= out["spearman_high"]


def test_plots_draw_what_they_are_given():
    fig, axes = plt.subplots(2, 3)
    plots.plot_margin_rules(axes[0, 0])
    assert len(axes[0, 0].lines) == 4
    table, _ = study.order_spread(_tiny_canonical(), FIRST_CANONICAL, shuffles=2)
    plots.plot_order_spread(axes[0, 1], table, 2)
    assert [t.get_text() for t in axes[0, 1].get_yticklabels()] == ["strong", "mid", "weak"]
    effects = simulated_judge(1.0, 0, scenarios=5, pairs_per=5)
    plots.plot_position_effects(axes[0, 2], effects, {"role-play and drafting": study.position_bias(effects, 50)})
    lost = pd.DataFrame({"kind": ["a", "a", "b"], "order": ["forward", "reversed", "forward"], "judgements": [2, 3, 4]})
    plots.plot_lost(axes[1, 0], lost)
    assert "(9)" in axes[1, 0].get_title()
    board = pd.DataFrame(
        {"model": ["m1", "m2", "m3"], "rubric_0_100": [10.0, 50.0, 70.0], "elo_norm": [300, 900, 1400]}
    )
    plots.plot_rubric_vs_elo(axes[1, 1], board, label=["m2"])
    assert len(axes[1, 1].texts) == 1
    joined = pd.DataFrame({"eqbench3_model": ["a/x", "b/y"], "v2_score": [20.0, 80.0], "elo_norm": [200.0, 800.0]})
    plots.plot_v2_v3(axes[1, 2], joined)
    assert [t.get_text() for t in axes[1, 2].texts] == ["x", "y"]
    plt.close(fig)
