"""A run's answers against the reference (notebook 01; `eqbench-nb plot reference`).

Each function draws on a given ``ax`` and returns it."""

from __future__ import annotations

import numpy as np
import pandas as pd


def plot_answers_vs_reference(ax, table: pd.DataFrame, n_asked: int, model: str = "SmolLM2-135M"):
    """Each parsed rating against its reference, with the identity line; the title counts what is drawn.

    ``table`` is a run table (:func:`eqbench_nb.analysis.table.run_table`: parseable answers only),
    ``n_asked`` the number of questions asked. The title names how many of those questions have a
    parseable answer and are therefore plotted, so it never claims more points than the figure holds.
    """
    if len(table):
        jitter = (np.arange(len(table)) % 5 - 2) * 0.06
        ax.scatter(table["reference"] + jitter, table["answer"], alpha=0.7)
    ax.plot([0, 10], [0, 10], color="grey", lw=1, ls="--", label="answer = reference")
    top = max(10.0, float(table["answer"].max())) if len(table) else 10.0  # the official parser accepts > 10
    shown = int(table["question_id"].nunique()) if len(table) else 0
    title = (
        f"{model}: all {n_asked} questions asked parsed"
        if shown == n_asked
        else f"{model}: {shown} of {n_asked} questions asked parsed and plotted"
    )
    ax.set(xlabel="reference intensity", ylabel="model's answer", xlim=(-0.5, 10.5), ylim=(-0.5, top + 0.5))
    ax.set_title(title, fontsize=9)
    ax.legend(loc="lower right")
    return ax
