import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from eqbench_nb import plots
from eqbench_nb.eqbench.study.plots import table as table_plots


def _table(questions):
    rows = [(q, ref, ans) for q in questions for ref, ans in [(0, 2), (5, 4), (8, 6), (3, 3)]]
    return pd.DataFrame(rows, columns=["question_id", "reference", "answer"])


def test_answers_vs_reference_title_counts_the_questions_plotted_not_asked():
    fig, ax = plt.subplots()
    plots.plot_answers_vs_reference(ax, _table(["1", "4", "7"]), n_asked=8)
    assert "3 of 8" in ax.get_title() and "12 ratings drawn" in ax.get_title()
    table = _table(["1", "4", "7"])
    pairs = table.groupby(["reference", "answer"]).size()  # one circle per pair, its area its share (issue 29)
    circles = ax.collections[0]
    assert len(circles.get_offsets()) == len(pairs)
    assert circles.get_sizes().sum() == pytest.approx(table_plots.AREA_PER_SHARE)
    plt.close(fig)


def test_answers_vs_reference_title_when_everything_parsed_and_when_nothing_did():
    fig, ax = plt.subplots()
    plots.plot_answers_vs_reference(ax, _table([str(i) for i in range(5)]), n_asked=5)
    assert "all 5" in ax.get_title()
    ax.clear()
    plots.plot_answers_vs_reference(ax, _table([]), n_asked=5)
    assert "0 of 5" in ax.get_title()
    plt.close(fig)


def test_run_strips_never_call_a_point_off_scale_that_the_axis_covers():
    scores = pd.DataFrame(
        {"label": ["a"] * 10 + ["b"] * 3, "score": [-75, -60, -58, -51, -50, -50, -49, -48, -47, -46, -200, -37, -12]}
    )
    fig, ax = plt.subplots()
    plots.plot_run_strips(ax, scores)
    lo, hi = ax.get_xlim()
    texts = [t.get_text() for t in ax.texts]
    beyond = [t for t in texts if "beyond" in t or "off scale" in t]
    assert beyond  # -200 is beyond the axis
    for t in beyond:
        value = float(re.match(r"\s*(-?\d+(?:\.\d+)?)", t).group(1))
        assert not lo <= value <= hi, t
    drawn = np.concatenate([c.get_offsets()[:, 0] for c in ax.collections])
    assert all(lo <= x <= hi for x in drawn)
    plt.close(fig)


def test_correlation_forest_draws_the_reference_only_on_its_rows():
    t = pd.DataFrame(
        {
            "label": ["v1 vs MMLU", "v2 vs MMLU", "v2 vs ARC"],
            "n": [22, 91, 91],
            **{c: [0.9, 0.8, 0.8] for c in ["pearson", "spearman"]},
            **{c: [0.8, 0.7, 0.7] for c in ["pearson_low", "spearman_low"]},
            **{c: [0.95, 0.9, 0.9] for c in ["pearson_high", "spearman_high"]},
        }
    )
    fig, ax = plt.subplots()
    plots.plot_correlation_forest(ax, t, reference=0.97, reference_rows=[True, False, False])
    dashed = [c for c in ax.collections if c.get_label().startswith("paper")]
    segs = dashed[0].get_segments()
    assert len(segs) == 1 and segs[0][:, 1].min() > -0.5 and segs[0][:, 1].max() < 0.5  # row 0 only
    plt.close(fig)


def test_heatmap_marks_empty_cells():
    m = pd.DataFrame([[1.0, np.nan], [0.5, -0.5]], index=["a", "b"], columns=["x", "y"])
    fig, ax = plt.subplots()
    plots.plot_heatmap(ax, m, center=0, cmap="RdBu_r")
    assert "no data" in [t.get_text() for t in ax.texts]
    assert any(p.get_hatch() for p in ax.patches)
    plt.close(fig)
