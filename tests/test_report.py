"""report: headline rows state how their interval was computed and what n counts; the README block is generated."""

import json

import pytest
from conftest import ROOT

from eqbench_nb import report


@pytest.fixture
def figures(tmp_path, monkeypatch):
    monkeypatch.setenv("EQBENCH_NB_FIGURES", str(tmp_path / "figures"))
    return tmp_path / "figures"


def test_an_interval_needs_its_method_and_an_n_its_unit(figures):
    with pytest.raises(ValueError, match="method"):
        report.record_headline("09_x", "a mean", "here", 1.0, (0.5, 1.5), n=10, n_unit="runs")
    with pytest.raises(ValueError, match="n_unit"):
        report.record_headline("09_x", "a mean", "here", 1.0, (0.5, 1.5), n=10, method="percentile bootstrap")
    row = report.record_headline(
        "09_x", "a mean", "here", 1.0, (0.5, 1.5), n=10, key="m", method="percentile bootstrap over runs", n_unit="runs"
    )
    assert row["method"] == "percentile bootstrap over runs" and row["n_unit"] == "runs"
    report.record_headline("09_x", "a range", "here", "1.0 – 2.0")  # neither interval nor n: nothing to state
    assert not (figures / "headlines" / "09_x.json").read_text().count('"a mean"') > 1


def test_summary_rows_carry_method_and_unit(figures):
    report.record_headline(
        "09_x",
        "a mean",
        "here",
        1.25,
        (0.5, 1.5),
        n=10,
        key="m",
        method="percentile bootstrap over runs",
        n_unit="runs",
    )
    text = report.write_summary().read_text()
    row = next(line for line in text.splitlines() if "`m`" in line)
    assert "0.5 – 1.5 (percentile bootstrap over runs)" in row and "| 10 runs |" in row


def test_readme_block_is_rendered_from_the_chosen_keys(figures, tmp_path):
    report.record_headline(
        "09_x",
        "a mean",
        "data.csv",
        1.25,
        (0.5, 1.5),
        n=10,
        key="m",
        method="percentile bootstrap over runs",
        n_unit="runs",
    )
    report.record_headline("09_x", "other", "data.csv", 3.0, key="o")
    readme = tmp_path / "README.md"
    readme.write_text(f"# t\n\nbefore\n{report.README_START}\nold table\n{report.README_END}\nafter\n")
    keys = (("09_x", "o"), ("09_x", "m"))
    assert report.write_readme_headlines(readme, keys) == readme
    text = readme.read_text()
    assert "old table" not in text and text.startswith("# t\n\nbefore\n") and text.endswith("\nafter\n")
    assert text.index("| other |") < text.index("| a mean |")
    assert "0.5 – 1.5 (percentile bootstrap over runs)" in text and "10 runs" in text
    with pytest.raises(KeyError, match="nothing"):
        report.render_readme_headlines((("09_x", "nothing"),))
    unmarked = tmp_path / "OTHER.md"
    unmarked.write_text("no markers\n")
    assert report.write_readme_headlines(unmarked, keys) is None and unmarked.read_text() == "no markers\n"


def test_the_committed_readme_block_is_what_the_committed_headlines_give():
    text = (ROOT / "README.md").read_text()
    start, end = text.index(report.README_START), text.index(report.README_END)
    block = text[start + len(report.README_START) : end].strip()
    assert block == report.render_readme_headlines(), "README headlines are stale: run `eqbench-nb reproduce`"


def test_every_readme_headline_has_method_and_unit_where_needed():
    files = (ROOT / "figures" / "headlines").glob("*.json")
    rows = {(r["notebook"], r.get("key")): r for f in files for r in json.loads(f.read_text())}
    for key in report.README_HEADLINES:
        r = rows[key]
        assert r["interval"] is None or r["method"], key
        assert r["n"] is None or r["n_unit"], key


def test_show_figure_saves_closes_and_refuses_an_empty_figure(figures):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures.mkdir(parents=True)
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    assert report.show_figure(fig, "09_x_line") is None  # a cell ending with it prints no path
    assert (figures / "09_x_line.png").read_bytes()[:4] == b"\x89PNG"
    assert not plt.fignum_exists(fig.number)
    empty, _ = plt.subplots()
    with pytest.raises(ValueError, match="nothing drawn"):
        report.show_figure(empty, "09_x_empty")
    plt.close(empty)


# ---------------------------------------------------------------- issue 30: caveats, true sources, Monte-Carlo error


def test_caveats_travel_into_summary_and_readme_rows(figures, tmp_path):
    report.record_headline(
        "09_x", "r", "data.csv", 0.93, (0.7, 0.99), n=9, key="r", method="Fisher z", n_unit="models",
        caveats=["the largest of 6 measures tried", "this project's measure"],
    )  # fmt: skip
    row = next(line for line in report.write_summary().read_text().splitlines() if "`r`" in line)
    assert row.endswith("| the largest of 6 measures tried. this project's measure. |")
    assert "the largest of 6 measures tried" in report.render_readme_headlines((("09_x", "r"),))
    with pytest.raises(ValueError, match="list of sentences"):
        report.record_headline("09_x", "r", "data.csv", 0.93, key="r2", caveats="one string")


def test_a_simulated_value_shows_only_its_stable_digits(figures):
    """Issue 30, rule 3: a value from a simulation carries its Monte-Carlo error and no digit that error moves."""
    mc = report.MonteCarlo.from_repeats([1.34, 2.41, 2.0, 1.9, 2.1, 2.2, 1.8, 2.05, 1.95, 2.3])
    assert mc.repeats == 10 and (mc.low, mc.high) == (1.34, 2.41)
    assert (
        report.stable_decimals(0.038) == 1 and report.stable_decimals(0.0041) == 2 and report.stable_decimals(0.4) == 0
    )
    assert report.stable_decimals(0.6) == -1  # two SE above one unit: not even the units are stable
    with pytest.raises(ValueError, match="more digits than its Monte-Carlo error"):
        report.record_headline("09_x", "sim", "here", 2.013, key="sim", mc=mc)
    value = report.stable_round(2.013, mc.se)
    report.record_headline("09_x", "sim", "here", value, key="sim", mc=mc)
    row = next(line for line in report.write_summary().read_text().splitlines() if "`sim`" in line)
    assert f"| {value:.{mc.decimals}f} |" in row and "Monte-Carlo error: 10 repeats" in row


def test_save_figure_writes_the_caveats_under_the_figure(figures):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures.mkdir(parents=True)
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    report.save_figure(fig, "09_x_caveat", caveats=["the paper's test treats repeats as independent"])
    assert any("Caveat: the paper's test treats repeats" in t.get_text() for t in fig.texts)
    plt.close(fig)


def _committed_rows() -> dict[str, dict]:
    files = (ROOT / "figures" / "headlines").glob("*.json")
    return {r["key"]: r for f in files for r in json.loads(f.read_text())}


# Words that say a number was drawn by a simulation; a committed row that uses one must be marked simulated.
SIMULATED = ("simulat", "synthetic", "shuffl", "repeats", "draws of", "cross-validation", "monte-carlo")


def test_a_simulated_headline_needs_its_monte_carlo_error_and_a_range_may_carry_one(figures):
    """Issue 38 (minor, last item): `simulated=True` is an explicit mark that refuses a row without its Monte-Carlo
    error, and `mc` describes a range (both ends simulated), which was refused as a string before."""
    with pytest.raises(ValueError, match="needs its Monte-Carlo error"):
        report.record_headline("09_x", "sim", "synthetic, seed 0", 77.91, key="sim", simulated=True)
    draws = [0.5 + 0.04 * ((7 * i) % 11) for i in range(100)]  # deterministic 'shuffles'
    mc = report.MonteCarlo.from_batches_range(draws, batches=10)
    assert mc.of == "range" and mc.repeats == 10 and mc.what == "batches"
    lows = [min(b) for b in (draws[i : i + 10] for i in range(0, 100, 10))]
    highs = [max(b) for b in (draws[i : i + 10] for i in range(0, 100, 10))]
    assert (mc.low, mc.high) == (min(lows), max(highs))
    with pytest.raises(ValueError, match="a range is"):
        report.record_headline("09_x", "r", "here", (0.9, 0.1), key="bad_range")
    with pytest.raises(ValueError, match="independent full-size replicates"):  # issue 49: range ends are tails
        report.record_headline("09_x", "spearman range", "shuffles", (0.5, 0.9), key="rng", mc=mc)
    mc = report.MonteCarlo.from_seeds([min(b) for b in (draws[i : i + 10] for i in range(0, 100, 10))], of="range")
    lo, hi = report.stable_round(min(draws), mc.se), report.stable_round(max(draws), mc.se)
    row = report.record_headline("09_x", "spearman range", "shuffles", (lo, hi), key="rng", mc=mc)
    assert row["simulated"] is True and row["range"] == [lo, hi] and " – " in row["value"]
    if report.stable_decimals(mc.se) < 6:  # a range shown to more digits than its error is refused
        with pytest.raises(ValueError, match="more digits"):
            report.record_headline("09_x", "r", "here", (lo + 1e-7, hi), key="rng2", mc=mc)
    with pytest.raises(ValueError, match="goes with a number"):
        report.record_headline("09_x", "r", "here", "0.5 – 0.9", key="rng3", mc=mc)
    line = next(x for x in report.write_summary().read_text().splitlines() if "`rng`" in x)
    assert row["value"] in line and "Monte-Carlo error of the range: 10 seeds" in line


def test_every_committed_simulated_headline_carries_its_monte_carlo_error():
    """Issue 30, rule 3, and issue 38: every committed headline marked simulated records its Monte-Carlo error and
    shows only its stable digits (value, interval bounds or range ends), and a headline whose method, claim or
    source says it was simulated (synthetic data, shuffles, repeats), string-valued ranges included, is marked."""

    def says_simulated(r: dict) -> bool:
        return any(w in f"{r.get('method') or ''} {r['claim']} {r['source']}".lower() for w in SIMULATED)

    rows = _committed_rows()
    unmarked = sorted(k for k, r in rows.items() if says_simulated(r) and not r.get("simulated"))
    assert not unmarked, f"headlines that say they were simulated but are not marked simulated: {unmarked}"
    simulated = {k: r for k, r in rows.items() if r.get("simulated")}
    assert len(simulated) >= 5, "no simulated headline found: the selection above is broken"
    for key, r in simulated.items():
        assert r.get("mc"), f"{key}: a simulated headline without its Monte-Carlo error"
        of = r["mc"].get("of", "value")
        shown = {"value": [r["value"]], "interval": r["interval"], "range": r.get("range")}[of]
        assert shown and all(isinstance(v, (int, float)) for v in shown), f"{key}: its {of} is not numbers"
        for v in shown:
            assert v == report.stable_round(v, r["mc"]["se"]), f"{key}: {v} has digits beyond the MC error"


def test_committed_headlines_carry_the_caveats_their_notebooks_state():
    """Issue 30, rule 4: the SUMMARY rows the review found stripped of their notebook's caveats."""
    rows = _committed_rows()
    na_r = " ".join(rows["emotionbench_eqbench_na_r"].get("caveats", []))
    assert "6 measures" in na_r and "this project's" in na_r and "without the two LLaMA-2" in na_r
    assert "Grubbs" in " ".join(rows["bundled_sd_run_to_run"].get("caveats", []))
    sf = " ".join(rows["short_form_40_error_new_questions"].get("caveats", []))
    assert "chosen on the 86 published runs" in sf and "not transfer" in sf
    assert rows["emotionbench_eqbench_na_r"]["method"].startswith("Fisher z")


def test_committed_headlines_state_the_scope_of_what_they_rest_on():
    """Issue 38, misleading 2 and 3: the real-model anchor (one model family, one afternoon, every answer parsed)
    speaks for no other kind of model, and the rows leaning on it say so; the ceiling questions are judged on runs
    that did not select them (their variance within the 10 selecting runs is small by construction)."""
    rows = _committed_rows()
    for key in ("repeatability_published_sd", "iterations_for_2_points"):
        scope = " ".join(rows[key].get("caveats", []))
        assert "one model family" in scope and "fail to parse" in scope and "quantised" in scope, key
    ceiling = " ".join(rows["ceiling_questions"].get("caveats", []))
    assert "did not select them" in ceiling and "within those 10 runs" not in ceiling
    for key in ("rank_biggest_mover_places", "median_rank_interval_width"):  # minor: no unreliable interval
        assert rows[key]["interval"] is None and rows[key].get("caveats"), key
    assert rows["paper_fig3_share_improved_pct"]["method"].startswith("Wilson")


def test_a_v2_row_never_sources_a_v1_value():
    """Issue 38 (minor): the v2 correlation rows printed the paper's v1 secondary-review value in their source column,
    beside a v2 estimate; the source names the data, and the paper's value is a caveat that says it is not like for
    like."""
    rows = _committed_rows()
    for key in ("v2_arena_r", "v2_arc_r", "v2_hellaswag_r"):
        assert "paper" not in rows[key]["source"] and "secondary" not in rows[key]["source"], key
        assert "not like for like" in " ".join(rows[key].get("caveats", [])), key


def test_paper_claims_are_sourced_as_their_table_sources_them():
    """Issue 30, wrong 3: the v1 range was sourced "arXiv 2312.06281 … as published" while paper_claims.csv sources
    it to the repository chart, the site's leaderboard and Papers-with-Code."""
    import csv

    claims = list(csv.DictReader((ROOT / "data" / "paper_claims.csv").open(encoding="utf-8")))
    chart = next(c for c in claims if c["claim"].startswith("highest v1 score"))
    rows = _committed_rows()
    for key in ("paper_v1_lowest", "paper_v1_highest"):
        source = rows[key]["source"]
        assert chart["source"] in source and "arXiv" not in source, (key, source)
        # issue 38, wrong 1: notebook 07's tags class Papers-with-Code as secondary, so the row is not "primary"
        assert "(primary source" not in source and "secondary (Papers-with-Code)" in source, (key, source)
        assert "proxy" in " ".join(rows[key].get("caveats", [])) or "proxy" in rows[key]["claim"]


def test_save_figure_refuses_a_legend_or_box_that_hides_a_point_or_a_label(figures):
    """Issue 38, figures: legends and statistics boxes covered data points (09's weakest model, the humans'
    intervals, 04's most-influential marker and labels); save_figure now refuses such a figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures.mkdir(parents=True)
    fig, ax = plt.subplots()
    ax.plot([0.05, 0.5, 0.95], [0.95, 0.5, 0.05], "o", label="points")
    ax.set_xlim(0, 1), ax.set_ylim(0, 1)
    ax.legend(loc="upper left")  # over the point at (0.05, 0.95)
    assert any("legend covers a data point" in h for h in report.covered_marks(fig))
    with pytest.raises(report.FigureOverlapError, match="legend covers a data point"):
        report.save_figure(fig, "09_x_legend")
    ax.get_legend().remove()
    ax.text(0.5, 0.5, "n = 3\nr = -1", ha="center", va="center", bbox=dict(facecolor="white"))
    with pytest.raises(report.FigureOverlapError, match="text box"):
        report.save_figure(fig, "09_x_box")
    ax.texts[0].remove()
    ax.annotate("label", (0.95, 0.05))
    ax.legend(loc="lower right")  # over the point and its label
    hidden = report.covered_marks(fig)
    assert any("data point" in h for h in hidden) and any("label 'label'" in h for h in hidden)
    ax.get_legend().remove()
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1))  # under the axes: nothing hidden
    assert report.covered_marks(fig) == []
    assert report.save_figure(fig, "09_x_ok").is_file()
    plt.close(fig)


def test_the_scatter_statistics_sit_under_the_axes_and_hide_no_point():
    """The check runs inside save_figure, so `reproduce` (run by CI on a clean checkout) fails on any figure whose
    legend or box covers a point; here, its rule on a real plotting function of the house: the scatter's statistics
    sit under the axes, not over the points."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from eqbench_nb import plots

    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, 200)
    fig, ax = plt.subplots()
    plots.plot_scatter_fit(ax, x, x + rng.normal(0, 0.2, 200), [f"m{i}" for i in range(200)], n_label=5, reps=200)
    fig.tight_layout()
    assert report.covered_marks(fig) == []
    plt.close(fig)


def _busy_figure(layout: str):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rng = np.random.default_rng(35)
    fig, axes = plt.subplots(1, 2, figsize=(9, 4), layout=layout)
    for i, ax in enumerate(axes):
        ax.scatter(rng.normal(size=40), rng.normal(size=40), label="runs")
        ax.plot(np.linspace(-2, 2, 9), np.linspace(-2, 2, 9) ** 2, label="a curve")
        ax.set_title(f"panel {i}: a title long enough to move the layout")
        ax.set_xlabel("score, points")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15))
        ax.text(0.02, 0.95, "boxed", transform=ax.transAxes, bbox={"boxstyle": "round"})
    fig.suptitle("a figure title")
    return fig


@pytest.mark.parametrize("layout", ["tight", "constrained", None])
def test_save_figure_writes_the_png_a_full_draw_before_it_wrote(figures, layout):
    # covered_marks lays the figure out without rasterising it (issue 35: one raster pass fewer per figure);
    # the saved PNG must be byte for byte the one written when it drew the whole figure first
    import matplotlib.pyplot as plt

    figures.mkdir(parents=True)
    caveats = ["a caveat that wraps under the figure " * 3]
    fig = _busy_figure(layout)
    new = report.save_figure(fig, "09_x_fast", caveats=caveats).read_bytes()
    plt.close(fig)
    fig = _busy_figure(layout)
    fig.canvas.draw()  # what covered_marks did before
    report.add_caption(fig, caveats)
    fig.savefig(figures / "09_x_old.png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    assert new == (figures / "09_x_old.png").read_bytes()
