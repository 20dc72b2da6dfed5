"""A run's answers against the reference (notebook 01; `eqbench-nb plot reference`).

Each function draws on a given ``ax`` and returns it."""

from __future__ import annotations

import pandas as pd

from ....plots.common import OKABE_ITO


def plot_answers_vs_reference(ax, table: pd.DataFrame, n_asked: int, model: str = "SmolLM2-135M"):
    """Each parsed rating against its reference, with the identity line; the title counts what is drawn.

    ``table`` is a run table (:func:`eqbench_nb.eqbench.study.table.run_table`: parseable answers only),
    ``n_asked`` the number of questions asked. The title names how many of those questions have a
    parseable answer and are therefore plotted, so it never claims more points than the figure holds.

    Ratings fall on a few values (whole numbers 0-10), so a run of many iterations stacks thousands of answers on
    a hundred points: each (reference, answer) pair is one circle whose area is its share of the run's answers
    (the same scale in every panel, so runs of any length compare), with a legend of shares. The axes stay at the
    0-10 scale: an answer outside it (the official parser accepts ``Confidence: 95``) is drawn as a triangle on
    the edge it passed, and counted in the title.
    """
    ax.plot([0, 10], [0, 10], color="grey", lw=1, ls="--", label="answer = reference", zorder=1)
    above = below = 0
    if len(table):
        answers = table["answer"].astype(float)
        inside = table[(answers >= 0) & (answers <= 10)]
        above, below = int((answers > 10).sum()), int((answers < 0).sum())
        share = (
            inside.groupby(["reference", "answer"])
            .size()
            .reset_index(name="n")
            .assign(share=lambda d: d["n"] / len(table))
        )
        ax.scatter(share["reference"], share["answer"], s=share["share"] * AREA_PER_SHARE, alpha=0.6,
                   color=OKABE_ITO[0], edgecolor="white", linewidth=0.4, zorder=2)  # fmt: skip
        for edge, marker, outside in ((EDGE_HIGH, "^", answers > 10), (EDGE_LOW, "v", answers < 0)):
            refs = table.loc[outside, "reference"].value_counts()
            if len(refs):
                ax.scatter(refs.index, [edge] * len(refs), marker=marker, s=30, color=OKABE_ITO[5], zorder=3,
                           label="answers outside 0-10,\ndrawn on the edge")  # fmt: skip
    for value in LEGEND_SHARES:
        ax.scatter([], [], s=value * AREA_PER_SHARE, color=OKABE_ITO[0], alpha=0.6, label=f"{value:.0%} of answers")
    shown = int(table["question_id"].nunique()) if len(table) else 0
    counted = f"all {n_asked} questions asked parsed" if shown == n_asked else f"{shown} of {n_asked} questions parsed"
    lines = [model, f"{counted}; {len(table):,} ratings drawn"]
    if above or below:
        lines.append(f"{above + below:,} outside 0-10 ({above:,} above, up to {float(table['answer'].max()):g}; "
                     f"{below:,} below)")  # fmt: skip
    ax.set(xlabel="reference intensity", ylabel="model's answer", xlim=(-0.5, 10.5))
    ax.set_ylim(EDGE_LOW - 0.4, EDGE_HIGH + 0.4)
    ax.set_title("\n".join(lines), fontsize=8)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False, labelspacing=1.1)
    return ax


#: Circle area (points squared) for all of a run's answers at one point; the legend's shares.
AREA_PER_SHARE = 1200.0
LEGEND_SHARES = (0.01, 0.05, 0.2)
#: Where answers outside 0-10 are drawn.
EDGE_HIGH, EDGE_LOW = 10.6, -0.6
