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
