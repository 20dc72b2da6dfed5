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
    assert study.position_bias(simulated_judge(2.0, 1), reps=500).verdict == study.FIRST_LISTED
    assert study.position_bias(simulated_judge(-2.0, 2), reps=500).verdict == study.SECOND_LISTED
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
    for windowed in (True, False):
        spread = study.order_spread(_tiny_canonical(), FIRST_CANONICAL, shuffles=3, seed=1, windowed=windowed)
        table = spread.table
        assert list(table["model"]) == ["strong", "mid", "weak"]
        assert (table["best_rank"] == table["worst_rank"]).all()  # every order ranks the same
        assert spread.spearmans == [1.0, 1.0, 1.0]
        assert (table["lowest"] <= table["mean"]).all() and (table["mean"] <= table["highest"]).all()
        assert ("window 8" in spread.solve) == windowed and ("no window" in spread.solve) == (not windowed)


@needs_data
def test_a_shuffled_re_solve_is_what_re_deriving_filtering_and_pairing_the_shuffled_list_gives():
    """The prepared solver skips the re-derivation, window and pairing of every shuffle: it must give what
    :func:`canonical.resolve` (window 8) and :func:`rating.final_solve` (no window) give on the shuffled list."""
    from eqbench_nb.eqbench3.canonical import resolve
    from eqbench_nb.eqbench3.pairwise import recompute
    from eqbench_nb.eqbench3.rating import final_solve, normalise, solve

    elo = read_canonical()
    order = np.random.default_rng(7).permutation(len(elo.comparisons))
    shuffled = [elo.comparisons[i] for i in order]
    windowed = study.OrderSolver(elo, FIRST_CANONICAL, windowed=True)
    reference = resolve(elo, FIRST_CANONICAL, shuffled)
    ours = windowed.in_order(order)
    # resolve rounds the raw ratings to 2 decimals before normalising (2.35 normalised points per raw point)
    assert max(abs(ours[m] - reference.ratings[m].elo_norm) for m in elo.models) < 0.01
    assert len(windowed.groups) < len(study.OrderSolver(elo, FIRST_CANONICAL, windowed=False).groups)
    rederived = [{**c, **d} if (d := recompute(c, FIRST_CANONICAL)) is not None else c for c in shuffled]
    free = study.OrderSolver(elo, FIRST_CANONICAL, windowed=False).in_order(order)
    reference_free = final_solve(elo.models, rederived, FIRST_CANONICAL)
    assert max(abs(free[m] - reference_free[m].elo_norm) for m in elo.models) < 0.01
    # a resample with every scenario drawn once is the file-order solve; one drawn twice plays its groups twice
    ones = np.ones(len(windowed.scenarios), dtype=int)
    assert windowed.resampled(ones) == windowed.in_order(np.arange(len(elo.comparisons)))
    twice = ones.copy()
    twice[0] = 2
    doubled = [p for p in windowed.groups for _ in range(2 if p.scenario_id == windowed.scenarios[0] else 1)]
    mu, _ = solve(windowed.everyone, doubled, FIRST_CANONICAL.bin_size, FIRST_CANONICAL.inactive_start)
    assert windowed.resampled(twice) == normalise(mu)


@needs_data
def test_the_order_instability_is_the_windows():
    """Issue 36, item 6.1: notebook 10 put the instability on the order of judgements; the solve without upstream's
    window of 8 barely moves with the order, the windowed one does, and it compresses the ratings."""
    elo = read_canonical()
    windowed = study.order_spread(elo, FIRST_CANONICAL, shuffles=20, seed=0, windowed=True)
    free = study.order_spread(elo, FIRST_CANONICAL, shuffles=20, seed=0, windowed=False)
    assert np.median(free.spearmans) > 0.98 > np.median(windowed.spearmans)
    assert min(free.spearmans) > max(study.quantile_range(windowed.spearmans)[0], min(windowed.spearmans))
    assert windowed.published_outside > free.published_outside
    assert windowed.compression < free.compression < 1.0


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
    spreads = [study.order_spread(_tiny_canonical(), FIRST_CANONICAL, shuffles=2, windowed=w) for w in (True, False)]
    plots.plot_order_spread(axes[0, 1], spreads)
    assert [t.get_text() for t in axes[0, 1].get_yticklabels()] == ["strong", "mid", "weak"]
    assert len(axes[0, 1].collections) == 2  # one range per solve
    effects = simulated_judge(1.0, 0, scenarios=5, pairs_per=5)
    plots.plot_position_effects(axes[0, 2], effects, {"role-play and drafting": study.position_bias(effects, 50)})
    lost = pd.DataFrame({"kind": ["a", "a", "b"], "order": ["forward", "reversed", "forward"], "judgements": [2, 3, 4]})
    plots.plot_lost(axes[1, 0], lost)
    assert "(9)" in axes[1, 0].get_title()
    board = pd.DataFrame(
        {"model": ["m1", "m2", "m3"], "rubric_0_100": [10.0, 50.0, 70.0], "elo_norm": [300, 900, 1400]}
    )
    corr = study.correlation(board["rubric_0_100"], board["elo_norm"])
    plots.plot_rubric_vs_elo(axes[1, 1], board, corr, label=["m2"])
    assert axes[1, 1].texts[0].get_text() == "m2"
    joined = pd.DataFrame({"eqbench3_model": ["a/x", "b/y"], "v2_score": [20.0, 80.0], "elo_norm": [200.0, 800.0]})
    plots.plot_v2_v3(axes[1, 2], joined, corr)
    assert [t.get_text() for t in axes[1, 2].texts][:2] == ["x", "y"]
    plt.close(fig)


def test_the_order_spread_legend_hides_no_row():
    """Issue 36, item 6.4: the legend sat on the lowest rows (gemma-2-9b, llama-3.2-1b) of ``10_order_spread``."""
    fig, ax = plt.subplots(figsize=(7.5, 8))
    spreads = [study.order_spread(_tiny_canonical(), FIRST_CANONICAL, shuffles=2, windowed=w) for w in (True, False)]
    plots.plot_order_spread(ax, spreads)
    fig.canvas.draw()
    legend, axes_box = ax.get_legend().get_window_extent(), ax.get_window_extent()
    assert legend.y1 <= axes_box.y0 or legend.x0 >= axes_box.x1  # wholly outside the axes
    plt.close(fig)


def test_correlation_figures_state_r_its_interval_and_the_anchor():
    """Issue 36, item 6.4: ``10_v2_vs_v3`` and ``10_rubric_vs_elo`` showed no r, no interval, no note on the anchor."""
    joined = pd.DataFrame(
        {
            "eqbench3_model": ["a/x", "b/y", "c/z", "d/w", "meta-llama/llama-3.2-1b-instruct"],
            "v2_score": [80.0, 82.0, 85.0, 79.0, 22.0],
            "elo_norm": [800.0, 600.0, 580.0, 840.0, 200.0],
        }
    )
    corr = study.correlation(joined["v2_score"], joined["elo_norm"])
    for draw in (
        lambda ax: plots.plot_v2_v3(ax, joined, corr, note="anchor note"),
        lambda ax: plots.plot_rubric_vs_elo(
            ax, joined.rename(columns={"eqbench3_model": "model", "v2_score": "rubric_0_100"}), corr, note="anchor note"
        ),
    ):
        fig, ax = plt.subplots()
        draw(ax)
        text = " ".join(t.get_text() for t in ax.texts).replace("\n", " ")
        assert f"Pearson r = {corr['pearson']:.2f}" in text
        assert f"{corr['pearson_low']:.2f} to {corr['pearson_high']:.2f}" in text and "n = 5" in text
        assert "anchor note" in text
        labels = ax.get_legend_handles_labels()[1]
        assert any("anchor" in label for label in labels)  # the anchor's point is marked
        plt.close(fig)


# ---------------------------------------------------------------- notebook 10's committed rows (issue 36, item 6)


def _notebook_10_rows() -> dict[str, dict]:
    import json

    from eqbench_nb.paths import checkout_root

    rows = json.loads((checkout_root() / "figures" / "headlines" / "10_eqbench3.json").read_text())
    return {r["key"]: r for r in rows}


def test_the_order_rows_name_their_solve_and_carry_their_monte_carlo_error():
    """Item 6.1: one range of unnamed provenance, from 10 (then 20) shuffles, stood for 'the order'."""
    rows = _notebook_10_rows()
    for key, solve in (("eqbench3_order_spearman_range", "window 8"), ("eqbench3_order_spearman_range_no_window",
                                                                        "no window")):  # fmt: skip
        row = rows[key]
        assert solve in row["claim"] and "percentile" in row["claim"]
        assert row["simulated"] and row["mc"]["of"] == "range" and row["mc"]["repeats"] >= 10
        assert row["n"] >= 100
        median = rows[key.replace("range", "median")]
        assert median["simulated"] and row["range"][0] <= median["value"] <= row["range"][1]
    assert rows["eqbench3_order_spearman_median_no_window"]["value"] > rows["eqbench3_order_spearman_median"]["value"]


@needs_data
def test_the_v2_v3_row_says_what_its_correlation_rests_on():
    """Item 6.2: r = 0.838 with an empty caveats column; without the anchor llama-3.2-1b (fixed at 200), r < 0.
    Issue 49, Misleading 7: the row's value is then "not estimable", with r in the caveats, not a number to cite."""
    row = _notebook_10_rows()["eqbench3_v2_v3_pearson"]
    joined = site.both_boards()
    loo = study.leave_one_out(joined["v2_score"], joined["elo_norm"], joined["eqbench3_model"])
    rests_on = loo.iloc[0]
    corr = study.correlation(joined["v2_score"], joined["elo_norm"])
    assert rests_on["anchor"] and rests_on["r"] < 0 < corr["pearson"]  # what the review found, from the data
    assert row["value"] == "not estimable (n = 5, sign depends on one anchor)" and row["interval"] is None
    text = " ".join(row.get("caveats", []))
    assert f"without {rests_on['left_out']} r = {rests_on['r']:.2f}" in text and "anchor" in text
    assert f"Pearson r = {corr['pearson']:.2f} over all 5" in text
    assert f"Spearman {corr['spearman']:.2f}" in text


def test_the_rubric_elo_row_says_one_judge_made_both_and_the_prose_claims_no_cause():
    """Item 6.3."""
    from eqbench_nb.paths import checkout_root

    row = _notebook_10_rows()["eqbench3_rubric_elo_spearman"]
    assert any("One judge" in c for c in row.get("caveats", [])) and "same judge" in row["claim"]
    source = (checkout_root() / "notebooks" / "10_eqbench3.py").read_text()
    assert "judge rewards" not in source and "does not reward" not in source


@needs_data
def test_the_elo_separability_row_comes_from_a_scenario_bootstrap():
    row = _notebook_10_rows()["eqbench3_elo_separability"]
    assert row["simulated"] and "scenario-cluster bootstrap" in row["claim"] and 0 <= row["value"] <= 1
    assert row["caveats"] and "published intervals" in row["caveats"][0]
