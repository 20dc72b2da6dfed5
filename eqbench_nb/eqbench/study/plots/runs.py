"""The figures ``eqbench-nb plot`` draws for a set of runs, from the notebooks' own functions.

- ``intervals``: runs ranked by score with 95 % intervals, the shared questions resampled (notebook 02's
  :func:`~eqbench_nb.plots.plot_ranked_intervals` over :func:`~eqbench_nb.eqbench.study.leaderboard.leaderboard`)
- ``emotions``: mean |rating - reference| by emotion family with intervals that resample the questions, one panel per
  run (notebook 05's :func:`~eqbench_nb.plots.plot_means`)
- ``reference``: each run's ratings against the reference, one panel per run (notebook 01's
  :func:`~eqbench_nb.plots.plot_answers_vs_reference`)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ....plots.common import plain_text
from ....plots.stats import plot_ranked_intervals
from ...runs import EqBenchRun
from .emotions import plot_means
from .table import plot_answers_vs_reference

KINDS = ("intervals", "emotions", "reference")
#: Panels per figure for the per-run kinds: a figure of 40 panels says nothing.
MAX_PANELS = 12


def _label(run: EqBenchRun, runs: Sequence[EqBenchRun], width: int = 40) -> str:
    """The run's label as drawn: cut, then plain text (:func:`~eqbench_nb.plots.common.plain_text`)."""
    from ..ranking import run_labels

    return plain_text(run_labels(runs)[list(runs).index(run)][:width])


def figure_for_runs(kind: str, runs: Sequence[EqBenchRun], convention: str = "official") -> Any:
    """A matplotlib figure of ``kind`` (one of :data:`KINDS`) for ``runs``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = list(runs)
    if kind == "intervals":
        from ..leaderboard import OWN_QUESTIONS, leaderboard

        whole = leaderboard(runs, convention)
        board = whole.dropna(subset=["score"])
        unscored = whole[whole.score.isna()]
        named = [f"{m}#{r}" if (board.model == m).sum() > 1 else m for m, r in zip(board.model, board.run_id)]
        own = board.basis.eq(OWN_QUESTIONS).to_numpy()
        labels = [
            (f"[own {n}] " if mine else "") + plain_text(name) for name, n, mine in zip(named, board.questions, own)
        ]
        table = board.assign(label=labels)
        fig, ax = plt.subplots(figsize=(7, 1.2 + 0.16 * len(table)))
        ranked = board[~own]
        over = f"{int(ranked.questions.iloc[0])} questions" if len(ranked) else "its own questions"
        plot_ranked_intervals(
            ax,
            table,
            fontsize=7,
            highlight=[label for label, mine in zip(labels, own) if mine],
            xlabel=f"EQ-Bench {runs[0].version} score ({convention} convention), 95 % interval over {over}"
            + ("; in red, [own n]: a run of other questions, over its own n (not comparable)" if own.any() else ""),
        )
        #: what the command line says beside "saved": each run not drawn, and why
        fig.left_out = [  # type: ignore[attr-defined]  # a plain attribute the command reads
            f"{plain_text(m)}#{r} (no answer parsed)" for m, r in zip(unscored.model, unscored.run_id)
        ]
        return fig
    if kind not in KINDS:
        raise ValueError(f"plot kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if len(runs) > MAX_PANELS:
        raise ValueError(f"the {kind} plot draws one panel per run; give at most {MAX_PANELS} runs, not {len(runs)}")
    from ..table import run_table

    cols = min(len(runs), 3)
    rows = math.ceil(len(runs) / cols)
    if kind == "reference":
        fig, axes = plt.subplots(rows, cols, figsize=(6.2 * cols, 4.4 * rows), squeeze=False)
        for ax, run in zip(axes.flat, runs):
            table = run_table(run)
            plot_answers_vs_reference(ax, table, run.n_questions, model=_label(run, runs))
    else:
        from .. import emotions as em

        # one x-axis for every panel, so the runs' errors can be compared at a glance
        fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 4 * rows), squeeze=False, sharex=True)
        for ax in axes.flat:
            ax.xaxis.set_tick_params(labelbottom=True)  # sharex hides inner panels' labels: each panel keeps its own
        for ax, run in zip(axes.flat, runs):
            table = run_table(run)
            if not len(table):
                ax.text(0.5, 0.5, "no parseable answer", ha="center", va="center", transform=ax.transAxes)
                ax.set_title(_label(run, runs))
                continue
            table = em.add_family(table, missing="other")
            ci = em.cluster_bootstrap(table, "abs_error", by="family", cluster="question_id", n_boot=2000, seed=0)
            ci = ci.assign(label=lambda d: d.family + " (" + d.n.astype(str) + ")")
            plot_means(ax, ci, "label", xlabel="mean |rating - reference|, 95 % interval (questions resampled)")
            ax.set_title(f"{_label(run, runs)} (n: ratings)", fontsize=9)
    for ax in list(axes.flat)[len(runs) :]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig
