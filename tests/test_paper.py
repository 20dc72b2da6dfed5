"""The paper, figure by figure (eqbench_nb.eqbench.study.paper): each function on constructed data with a known
answer."""

import matplotlib
import numpy as np
import pandas as pd
import pytest
from conftest import ROOT

from eqbench_nb import plots
from eqbench_nb.analysis.stats import NO_LINEAGES
from eqbench_nb.eqbench.questions import Question
from eqbench_nb.eqbench.runs import EqBenchRun, RunRecord
from eqbench_nb.eqbench.study import paper as A
from eqbench_nb.eqbench.study import published as P

matplotlib.use("Agg")
import matplotlib.pyplot as plt

# ---------------------------------------------------------------- sources and agreement


def test_source_tag_finds_each_source_in_order():
    assert A.source_tag("arXiv 2312.06281v2 abstract (https://arxiv.org/html/2312.06281v2)") == "P"
    review = "public GitHub markdown review of arXiv 2312.06281v2; LLM-style secondary summary"
    assert A.source_tag(review + "; public GitHub markdown summary in Chinese (...)") == "SEC1, SEC2"
    assert A.source_tag("EQ-bench/EQ-Bench README.md @ d28c60c") == "README"
    assert A.source_tag("EQ-bench/EQ-Bench lib/scoring.py @ 8e64f95") == "code"
    assert A.source_tag("images/eq_bench_scores_chart.png @ 407bf52; Papers-with-Code results") == "PwC, CH"
    # the abstract's own source mentions the Papers-with-Code *page*, which is not its results listing
    assert A.source_tag("arXiv abstract (also https://huggingface.co/papers/x and Papers-with-Code page)") == "P"
    assert A.source_tag(float("nan")) == "" and A.source_tag("same as above") == ""


def test_every_committed_correlation_and_revision_claim_gets_a_tag():
    assert all(A.source_tag(s) for s in P.paper_correlations()["source"])
    claims = P.paper_claims()
    assert all(A.source_tag(s) for s in claims.loc[claims["topic"] == "revision", "source"])


@pytest.mark.parametrize(
    ("printed", "ours", "low", "high", "tol", "verdict"),
    [
        (0.97, 0.965, 0.80, 0.99, 0.02, "matches"),
        (0.97, 0.95, 0.80, 0.99, 0.01, "inside our interval"),
        (0.85, 0.94, 0.86, 0.99, 0.02, "outside our interval"),
        (0.85, 0.94, None, None, 0.02, "differs"),
        (None, 0.94, 0.86, 0.99, 0.02, "no printed value"),
        (0.85, float("nan"), None, None, 0.02, "not computable"),
        (0.85, 0.87, None, None, 0.02, "matches"),  # exactly at the tolerance
    ],
)
def test_agreement_branches(printed, ours, low, high, tol, verdict):
    assert A.agreement(printed, ours, low, high, tol) == verdict
    assert verdict in A.AGREEMENT_PHRASES


def test_printed_tolerance_is_half_the_last_digit():
    assert A.printed_tolerance("9.3") == pytest.approx(0.05)
    assert A.printed_tolerance("8") == pytest.approx(0.5)
    assert A.printed_tolerance("2.95") == pytest.approx(0.005)
    assert A.printed_tolerance(8.0) == pytest.approx(0.05)


def test_agreement_sentence_counts_and_names():
    t = pd.DataFrame(
        {"name": ["a", "b", "c", "d"], "verdict": ["matches", "outside our interval", "outside our interval", "x"]}
    )
    s = A.agreement_sentence(t, "name", what="values")
    assert s.startswith("Of the 4 values, 1 matches within")
    assert "2 lie outside our 95 % interval (b and c)" in s
    assert "(a)" in s
    both = pd.DataFrame({"name": ["a", "b"], "verdict": ["matches", "matches"]})
    assert A.agreement_sentence(both, "name", what="values") == "Both values match within the rounding tolerance."
    many = pd.DataFrame({"name": list("abcdefghij"), "verdict": ["matches"] * 9 + ["differs"]})
    s = A.agreement_sentence(many, "name", max_names=3)
    assert "9 match within the rounding tolerance (a, b, c and 6 more)" in s and "1 differs" in s
    assert A.agreement_sentence(t.iloc[:0], "name") == "No values to compare."


# ---------------------------------------------------------------- Figure 1 and Table 1


def _scores() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": ["a", "b", "c", "d"],
            "eqbench_v1": [10.0, 50.0, 30.0, 20.0],
            "eqbench_v1_chart_20231211": [10.0, 50.0, 30.0, np.nan],
            "eqbench_v1_chart_20231203": [np.nan, 52.0, 30.0, 20.0],
        }
    )


def test_figure1_table_sorted_with_differences():
    t = A.figure1_table(_scores())
    assert list(t["model"]) == ["b", "c", "a"]  # d is not on the chart
    assert t.loc[0, "minus_earlier"] == pytest.approx(-2.0)
    assert np.isnan(t.loc[2, "minus_earlier"])
    assert (t["minus_leaderboard"] == 0).all()


def test_table1_comparison():
    listing = pd.DataFrame(
        {"listed_name": ["B", "C", "Z"], "model": ["b", "c", "z"], "score": [50.0, 30.5, 5.0], "source": ["PwC"] * 3}
    )
    t = A.table1_comparison(listing, _scores())
    assert list(t["verdict"]) == ["matches", "differs", "not computable"]
    assert t.loc[1, "difference"] == pytest.approx(-0.5)


def test_committed_table1_listing_matches_paper_scores_rows():
    listing = A.paper_table1_listing()
    assert len(listing) == 16 and listing["source"].notna().all()
    ps = P.paper_scores()
    assert set(listing["model"]) <= set(ps["model"])
    # the committed flag and the committed listing name the same rows
    assert set(listing["model"]) == set(ps.loc[ps["in_pwc_paper_listing"] == "yes", "model"])


# ---------------------------------------------------------------- Figure 2


def _question(qid: str, raw: dict, norm: dict) -> Question:
    e = tuple(raw)
    return Question(qid, "v1", "prompt", (e[0], e[1], e[2], e[3]), raw, norm)


def test_reference_keys():
    q1 = _question("1", {"A": 2.0, "B": 1.0, "C": 7.0, "D": 6.0}, {"A": 1.0, "B": 0.0, "C": 4.0, "D": 5.0})
    q2 = _question("2", {"A": 3.0, "B": 0.0, "C": 7.0, "D": 8.0}, {"A": 0.0, "B": 0.0, "C": 4.0, "D": 6.0})
    k = A.reference_keys({"x": q1, "y": q2})
    assert list(k.columns) == ["x normalised", "x raw", "y normalised", "y raw"]
    assert k.loc["D", "y raw"] == 8.0 and k.loc["A", "x normalised"] == 1.0
    other = _question("3", {"E": 1.0, "B": 1.0, "C": 1.0, "D": 1.0}, {"E": 1.0, "B": 1.0, "C": 1.0, "D": 1.0})
    with pytest.raises(ValueError):
        A.reference_keys({"x": q1, "z": other})


# ---------------------------------------------------------------- Figure 3


def _record(it: int, qid: str, first: float | None, revised: float | None) -> RunRecord:
    return RunRecord("m", "r", it, qid, first_pass_score=first, revised_score=revised)


def test_revision_gains_hand_computed():
    # iteration 1: first 5, 7 -> 60; revised 6, 8 -> 70 (used: higher, same count)
    # iteration 2: first 4, 6 -> 50; revised 3 on one question only -> 30 (not eligible, not used)
    recs = [
        _record(1, "1", 5.0, 6.0),
        _record(1, "2", 7.0, 8.0),
        _record(2, "1", 4.0, 3.0),
        _record(2, "2", 6.0, None),
    ]
    run = EqBenchRun({"model": "m", "run_id": "r", "revise": True, "iterations": 2, "n_questions": 2}, recs)
    plain = EqBenchRun({"model": "p", "run_id": "r", "revise": False}, [_record(1, "1", 5.0, None)])
    g = A.revision_gains([run, plain])
    assert list(g.columns) == A.GAIN_COLUMNS and len(g) == 1
    row = g.iloc[0]
    assert row.first_pass == pytest.approx(55.0) and row.revised == pytest.approx(50.0)
    assert row.gain == pytest.approx(-5.0) and row.relative_gain_pct == pytest.approx(-100 * 5 / 55)
    assert row.strength == pytest.approx(52.5)
    assert row.n_first == 2 and row.n_revised == 1.5
    assert not row.revised_eligible and row.revised_used == pytest.approx(0.5)


def _gains(first, revised) -> pd.DataFrame:
    first, revised = np.asarray(first, float), np.asarray(revised, float)
    gain = revised - first
    return pd.DataFrame(
        {
            "model": [f"m{i}" for i in range(len(first))],
            "first_pass": first,
            "revised": revised,
            "n_first": 10.0,
            "n_revised": 10.0,
            "gain": gain,
            "relative_gain_pct": 100 * gain / first,
            "strength": (first + revised) / 2,
            "revised_eligible": True,
            "revised_used": (gain >= 0).astype(float),
        }
    )


def test_revision_summary_hand_computed():
    g = _gains([50.0, 40.0, 20.0, 80.0], [55.0, 36.0, 20.0, 76.0])
    s = A.revision_summary(g, reps=300, seed=1).set_index("statistic")
    assert s.loc["mean_relative_gain_pct", "value"] == pytest.approx((10 - 10 + 0 - 5) / 4)
    assert s.loc["mean_gain_points", "value"] == pytest.approx((5 - 4 + 0 - 4) / 4)
    assert s.loc["pooled_relative_gain_pct", "value"] == pytest.approx(100 * (187 / 190 - 1))
    assert s.loc["share_improved_pct", "value"] == pytest.approx(25.0)
    assert s.loc["share_revised_used_pct", "value"] == pytest.approx(50.0)
    assert (s["low"] <= s["value"] + 1e-9).all() and (s["value"] <= s["high"] + 1e-9).all()
    assert (s["n"] == 4).all()
    with pytest.raises(ValueError):
        A.revision_summary(g.iloc[:0])


def test_revision_claims_comparison_signs_and_precision():
    claims = pd.DataFrame(
        {
            "claim": [
                "critique-and-revise step improves scores on average across compared models",
                "revision improves the (aggregate) score only this share of the time",
                "on average the revised score is lower than the first-pass score by",
                "something else",
            ],
            "value": ["9.3", "8", "2.95", "1"],
            "scope": ["v1", "v2", "v2", "v2"],
            "source": ["markdown review", "README.md", "README.md", "README.md"],
        }
    )
    summary = pd.DataFrame(
        {
            "statistic": ["mean_relative_gain_pct", "share_improved_pct"],
            "value": [-2.96, 8.4],
            "low": [-4.0, 2.0],
            "high": [-2.0, 14.0],
            "n": [10, 10],
        }
    )
    t = A.revision_claims_comparison(claims, summary)
    assert len(t) == 3
    assert list(t["printed"]) == [9.3, 8.0, -2.95]
    assert list(t["verdict"]) == ["outside our interval", "matches", "inside our interval"]
    assert list(t["source_tag"]) == ["SEC1", "README", "README"]


def test_worse_after_revision_and_verdict():
    g = _gains([20, 40, 60, 80], [25, 38, 57, 70])
    w = A.worse_after_revision(g)
    assert (w["n_runs"], w["n_worse"], w["n_better"]) == (4, 3, 1)
    assert w["median_strength_better"] == pytest.approx(22.5)
    assert w["share_worse_in_top_half"] == pytest.approx(2 / 3)
    assert A.worse_verdict(w) == "most runs score worse"
    few = A.worse_after_revision(_gains([20, 40, 60, 80], [25, 45, 65, 78]))
    assert A.worse_verdict(few) == "a few runs score worse, and they are stronger than those that gain"
    assert A.worse_verdict(A.worse_after_revision(_gains([20], [25]))) == "no run scores worse"


def test_trend_verdict_and_gain_strength_correlations():
    assert A.trend_verdict(-0.5, -0.1) == "weaker models gain more"
    assert A.trend_verdict(0.1, 0.5) == "stronger models gain more"
    assert A.trend_verdict(-0.1, 0.5) == "no trend beyond noise"
    assert A.trend_verdict(float("nan"), 0.5) == "not computable"
    assert set(A.TREND_PHRASES) == {
        "weaker models gain more",
        "stronger models gain more",
        "no trend beyond noise",
        "not computable",
    }
    s = np.linspace(20, 80, 30)
    gain = -0.2 * s + 10  # weaker models gain more, exactly
    g = _gains(s - gain / 2, s + gain / 2)
    t = A.gain_strength_correlations(g, reps=300, seed=0)
    assert len(t) == 4
    main = t[(t.gain == "points") & (t.strength == "mean of both passes")].iloc[0]
    assert main.rho == pytest.approx(-1.0) and main.verdict == "weaker models gain more"


# ---------------------------------------------------------------- Table 2


def test_minmax_rescale():
    assert A.minmax_rescale([2.0, 4.0, np.nan, 6.0]).tolist()[:2] == [0.0, 50.0]
    with pytest.raises(ValueError):
        A.minmax_rescale([3.0, 3.0])


def test_distribution_stats_hand_computed():
    d = A.distribution_stats([1.0, 2.0, 3.0, 4.0, 5.0, np.nan], reps=300).set_index("statistic")
    assert list(d.index) == list(A.DISTRIBUTION_STATISTICS)
    assert d.loc["n", "value"] == 5 and d.loc["mean", "value"] == pytest.approx(3.0)
    assert d.loc["sd", "value"] == pytest.approx(np.sqrt(2.5))
    assert d.loc["iqr", "value"] == pytest.approx(2.0) and d.loc["skewness", "value"] == pytest.approx(0.0)
    assert np.isnan(d.loc["min", "low"]) and np.isnan(d.loc["n", "high"])
    assert d.loc["mean", "low"] <= 3.0 <= d.loc["mean", "high"]
    right = A.distribution_stats([0, 0, 0, 1, 10], reps=50).set_index("statistic")
    assert right.loc["skewness", "value"] > 1
    with pytest.raises(ValueError):
        A.distribution_stats([1.0, 2.0])


def test_table2_substitute_says_seceu_is_missing():
    v = [2.0, 10.0, 20.0, 30.0, 42.0]
    t = A.table2_substitute(v, reps=100).set_index("statistic")
    assert (t["seceu"] == "not available").all()
    assert t.loc["iqr", "minmax"] == pytest.approx(t.loc["iqr", "native"] * 100 / 40)
    assert t.loc["min", "minmax"] == 0 and t.loc["max", "minmax"] == 100
    assert t.loc["skewness", "minmax"] == pytest.approx(t.loc["skewness", "native"])


# ---------------------------------------------------------------- Table 3


def test_correlation_matrix_pairwise():
    df = pd.DataFrame({"x": [1, 2, 3, 4, np.nan], "y": [2, 4, 6, 8, 10], "z": [1, np.nan, np.nan, 2, 3]})
    r, n = A.correlation_matrix(df, {"X": "x", "Y": "y", "Z": "z"})
    assert r.loc["X", "Y"] == pytest.approx(1.0) and n.loc["X", "Y"] == 4
    assert n.loc["X", "Z"] == 2 and np.isnan(r.loc["X", "Z"])  # fewer than 3 common rows
    assert n.loc["Z", "Z"] == 3 and r.loc["Z", "Z"] == 1.0
    assert r.equals(r.T) and n.equals(n.T)


def test_table3_comparison():
    rng = np.random.default_rng(0)
    x = np.arange(12, dtype=float)
    ps = pd.DataFrame({"eqbench_v1": x, "good": 2 * x + 1, "noisy": x + rng.normal(0, 4, 12)})
    pc = pd.DataFrame(
        {
            "benchmark": ["Good", "Noisy", "Nothing", "Missing", "Later"],
            "r": [0.997, 0.10, np.nan, 0.5, 0.9],  # 1.0 rounds to 1.00, within 0.005 of 0.997
            "eqbench_version": ["v1", "v1", "v1", "v1 (60)", "v2 (171)"],
            "source": ["abstract", "markdown review", "markdown review", "markdown review", "README.md"],
        }
    )
    cols = {"Good": (("good", "good"),), "Noisy": (("noisy", "noisy"),), "Nothing": ()}
    t = A.table3_comparison(ps, pc, columns=cols, reps=300, lineages=NO_LINEAGES).set_index("benchmark")
    assert "Later" not in t.index  # only v1 rows
    assert t.loc["Good", "r"] == pytest.approx(1.0) and t.loc["Good", "verdict"] == "matches"
    assert t.loc["Good", "source_tag"] == "P" and t.loc["Good", "n"] == 12
    assert t.loc["Noisy", "verdict"] == "outside our interval"
    assert t.loc["Nothing", "verdict"] == "no printed value" and t.loc["Nothing", "n"] == 0
    assert t.loc["Missing", "verdict"] == "not computable"


def test_table3_columns_exist_in_paper_scores():
    ps = P.paper_scores()
    for targets in A.TABLE3_COLUMNS.values():
        for _, col in targets:
            assert col in ps.columns
    assert set(A.TABLE3_COLUMNS) == set(P.paper_correlations().query("eqbench_version.str.startswith('v1')").benchmark)


def test_figure3_claims_table_loads_with_sources():
    c = A.paper_figure3_claims()
    assert len(c) >= 2 and c["source"].notna().all()
    assert all(A.source_tag(s) for s in c["source"])


# ---------------------------------------------------------------- plots


def test_plots_draw():
    g = _gains([20, 40, 60, 80, 70], [25, 38, 57, 70, 10]).assign(revised_eligible=[True] * 4 + [False])
    fig, axes = plt.subplots(2, 4, figsize=(16, 8))
    plots.plot_score_bars(axes[0, 0], A.figure1_table(_scores()), compare_col="earlier_chart")
    plots.plot_text_panel(axes[0, 1], "line one\n" + "word " * 40)
    q = _question("1", {"A": 2.0, "B": 1.0, "C": 7.0, "D": 6.0}, {"A": 1.0, "B": 0.0, "C": 4.0, "D": 5.0})
    plots.plot_reference_keys(axes[0, 2], A.reference_keys({"q": q}))
    plots.plot_revision_dumbbell(axes[0, 3], g)
    lo, hi = plots.robust_limits(g["relative_gain_pct"], include=[9.3])
    assert hi >= 9.3 and lo > -86  # the -86 % run falls off the axis
    plots.plot_gain_vs_strength(axes[1, 0], g, ylim=(lo, hi), references={"paper": 9.3})
    plots.plot_distribution_rows(axes[1, 1], {"missing": None, "v1": [1.0, 5.0, 9.0]})
    r, n = A.correlation_matrix(pd.DataFrame({"x": [1, 2, 3, 4.0], "y": [1, 3, 2, 5.0]}), {"X": "x", "Y": "y"})
    plots.plot_correlation_matrix(axes[1, 2], r, n)
    t3 = pd.DataFrame(
        {
            "data": ["a", "b"],
            "r": [0.9, np.nan],
            "low": [0.8, np.nan],
            "high": [0.95, np.nan],
            "n": [10, 0],
            "printed": [0.97, 0.5],
        }
    )
    plots.plot_printed_vs_ours(axes[1, 3], t3)
    assert len(axes[1, 3].get_yticks()) == 1  # the row with no regenerated r is left out
    assert all(ax.has_data() or ax.texts for ax in axes.flat)
    plt.close(fig)


def test_a_correlation_matches_only_within_its_rounding_tolerance():
    """Issue 38, misleading 4: "matches ... within the rounding tolerance" used 0.02 for a correlation, while 0.97
    rounds from [0.965, 0.975): the tolerance is half the last printed digit, and 0.95 no longer "matches" 0.97."""
    assert A.printed_tolerance("0.97") == A.TOL_R
    assert A.agreement(0.97, 0.951, 0.80, 0.99) == "inside our interval"
    assert A.agreement(0.97, 0.967, 0.80, 0.99) == "matches"


def test_the_mmlu_rows_of_table_3_say_a_match_is_a_possible_explanation_only():
    """Issue 38, misleading 4: the SUMMARY row that 'matches' the abstract's 0.97 was picked among two MMLU sources
    and several model sets; the rows carry that caveat."""
    import json

    rows = json.loads((ROOT / "figures" / "headlines" / "07_paper_figures.json").read_text())
    mmlu = [r for r in rows if r["key"].startswith("paper_table3_mmlu")]
    assert len(mmlu) == 2
    for r in mmlu:
        caveat = " ".join(r.get("caveats", []))
        assert "possible explanation" in caveat and "not a confirmed one" in caveat and "n = " in caveat


def test_the_share_of_runs_improved_by_revision_has_a_wilson_interval():
    """Issue 38 (minor): 5 of 62 runs improved, with a percentile bootstrap of [1.61, 14.52] %; a proportion gets
    Wilson's interval, about [3.5, 17.5] % for 5 of 62."""
    from eqbench_nb.analysis.stats import wilson_interval

    first = np.full(62, 50.0)
    revised = first - 1.0
    revised[:5] += 2.0  # 5 of 62 improve
    gains = pd.DataFrame(
        {"first_pass": first, "revised": revised, "relative_gain_pct": 100 * (revised / first - 1), "revised_used": 1.0}
    )
    row = A.revision_summary(gains, reps=200, seed=0).set_index("statistic").loc["share_improved_pct"]
    low, high = wilson_interval(5, 62)
    assert row["value"] == pytest.approx(100 * 5 / 62)
    assert (row["low"], row["high"]) == pytest.approx((100 * low, 100 * high))
    assert 3.0 < row["low"] < 4.0 and 17.0 < row["high"] < 18.0
