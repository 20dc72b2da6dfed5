"""Ranking reliability and power (notebook 02; :mod:`eqbench_nb.analysis.ranks`, EQ-Bench's conventions in
:mod:`eqbench_nb.eqbench.study.ranking`).

Each function draws on a given ``ax`` and returns it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ....plots.common import (
    BLUE,
    GREY,
    ORANGE,
    PURPLE,
    label_square_matrix,
    short_name,
)


def plot_rank_intervals(
    ax,
    table: pd.DataFrame,
    label_col: str = "label",
    fontsize: float = 6,
    highlight: Sequence[str] = (),
):
    """Runs ordered by rank (best at the top), each with its rank interval as a horizontal bar.

    ``table`` is :func:`eqbench_nb.analysis.ranks.rank_intervals` (``rank, rank_low,
    rank_high``). Runs named in ``highlight`` are drawn in orange. Make the figure tall: about
    0.12 inch per row.
    """
    t = table.sort_values(["rank", "score"], ascending=[False, True]).reset_index(drop=True)
    y = np.arange(len(t))
    hl = t[label_col].isin(set(highlight)).to_numpy()
    colors = np.where(hl, ORANGE, BLUE)
    ax.hlines(y, t["rank_low"], t["rank_high"], color=colors, lw=1.6, alpha=0.85)
    ax.scatter(t["rank"], y, s=10, color=colors, zorder=3)
    ax.set_yticks(y, [f"{short_name(s, 34)}  {r:g}" for s, r in zip(t[label_col], t["rank"])], fontsize=fontsize)
    ax.set_ylim(-0.7, len(t) - 0.3)
    ax.set_xlim(0, len(t) + 1)
    ax.set_xlabel("rank (1 = best); bar: 95 % interval, questions resampled")
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_probability_matrix(
    ax,
    poi: np.ndarray,
    labels: Sequence[str] | None = None,
    fontsize: float = 5,
    separated: np.ndarray | None = None,
    separated_label: str = "P ≠ 0.5",
):
    """P(row > column) for every pair of runs as a heatmap (purple–orange, white at 0.5), with a colour bar.

    Rows and columns in the given order (e.g. best first); columns are numbered by position. ``separated`` (a
    boolean matrix of the same shape) marks with a dot each cell whose P differs from 0.5 by its test, so the
    colour of an unmarked cell is read as not told apart from a coin flip; ``separated_label`` names the test.
    """
    k = poi.shape[0]
    im = ax.imshow(poi, cmap="PuOr_r", vmin=0, vmax=1, interpolation="nearest")
    if separated is not None:
        rows, cols = np.nonzero(np.asarray(separated, bool))
        ax.scatter(cols, rows, s=3, color="black", marker="o", linewidths=0)
    label_square_matrix(
        ax,
        k,
        labels,
        fontsize,
        f"run (same order as rows); dot: {separated_label}" if separated is not None else "run (same order as rows)",
    )
    ax.figure.colorbar(im, ax=ax, label="P(row beats column on a random question)", fraction=0.046, pad=0.02)
    return ax


def plot_neighbour_poi(ax, labels: Sequence[str], poi, low, high, significant=None, fontsize: float = 6):
    """P(X > Y) of each run against the run ranked just below it, with intervals (one row per pair).

    ``labels`` name the upper run of each pair (best pair at the top). ``significant`` (boolean,
    optional) marks pairs separated after correction with filled dots; the others are open.
    """
    y = np.arange(len(labels))[::-1]
    sig = np.zeros(len(labels), bool) if significant is None else np.asarray(significant, bool)
    ax.axvline(0.5, color=GREY, lw=0.8, ls="--")
    ax.hlines(y, low, high, color=BLUE, lw=1.2)
    ax.scatter(
        np.asarray(poi)[sig], y[sig], color=BLUE, s=14, zorder=3, label="P(X > Y) ≠ 0.5 after Benjamini–Hochberg"
    )
    ax.scatter(np.asarray(poi)[~sig], y[~sig], facecolor="white", edgecolor=BLUE, s=14, zorder=3, label="not separated")
    ax.set_yticks(y, [short_name(s, 30) for s in labels], fontsize=fontsize)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.set_xlabel("P(run beats the next run down on a random question)")
    ax.legend(fontsize=7, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.045), ncol=2)
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_rank_bump(
    ax,
    ranks: pd.DataFrame,
    columns: Sequence[str],
    label_col: str = "label",
    n_label: int = 6,
    fontsize: float = 6.5,
):
    """Each run's rank under several conventions, joined by lines (1 = best at the top).

    ``ranks`` has one rank column per convention (``columns``, drawn left to right); the
    ``n_label`` runs whose rank changes most between the first two columns are coloured and
    named at both ends, the others grey.
    """
    r = ranks.reset_index(drop=True)
    x = np.arange(len(columns))
    move = (r[columns[1]] - r[columns[0]]).abs().to_numpy()
    top = set(np.argsort(-move, kind="stable")[:n_label])
    colours = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442"]
    for i, row in r.iterrows():
        vals = row[list(columns)].to_numpy(float)
        if i in top:
            continue
        ax.plot(x, vals, color="#BBBBBB", lw=0.7, alpha=0.8)
    left: list[tuple[float, str, str]] = []
    right: list[tuple[float, str, str]] = []
    for c, i in zip(colours, sorted(top, key=lambda j: r.loc[j, columns[0]])):
        vals = r.loc[i, list(columns)].to_numpy(float)
        ax.plot(x, vals, color=c, lw=1.8, marker="o", ms=3)
        for xm, v in zip(x[1:-1], vals[1:-1]):
            ax.annotate(
                f"{v:g}", (xm, v), xytext=(4, 0), textcoords="offset points", fontsize=fontsize, color=c, va="center"
            )
        name = short_name(r.loc[i, label_col], 30)
        left.append((vals[0], f"{name} {vals[0]:g}", c))
        right.append((vals[-1], f"{vals[-1]:g} {name}", c))
    n = len(r)
    gap = n * 0.024
    for items, ha, x_pt, dx in ((left, "right", 0, -0.12), (right, "left", len(columns) - 1, 0.12)):
        last = -np.inf
        for y0, text, c in sorted(items):
            yy = max(y0, last + gap)
            last = yy
            ax.annotate(
                text,
                (x_pt, y0),
                xytext=(x_pt + dx, yy),
                ha=ha,
                va="center",
                fontsize=fontsize,
                color=c,
                arrowprops=dict(arrowstyle="-", lw=0.5, color=c) if yy != y0 else None,
            )
    ax.set_xticks(x, list(columns))
    ax.set_xlim(-1.25, len(columns) - 1 + 1.25)
    ax.set_ylim(n + 1, 0)
    ax.set_ylabel("rank (1 = best)")
    ax.grid(axis="y", alpha=0.2)
    return ax


def plot_performance_profiles(ax, taus, profile: np.ndarray, scores, cmap: str = "viridis", label: str = ""):
    """One curve per run: the share of its questions scored at least tau, coloured by its run score.

    ``profile`` is ``(n_runs, n_taus)`` from :func:`eqbench_nb.analysis.ranks.performance_profiles`;
    ``scores`` colour the curves (a colour bar is added). A run high on the right is good on many
    questions; curves bunching near the top right show a ceiling.
    """
    import matplotlib as mpl

    s = np.asarray(scores, float)
    norm = mpl.colors.Normalize(vmin=np.nanmin(s), vmax=np.nanmax(s))
    cm = mpl.colormaps[cmap]
    for i in np.argsort(s):
        ax.plot(taus, profile[i], color=cm(norm(s[i])), lw=0.9, alpha=0.8)
    ax.set_xlabel("question score threshold τ")
    ax.set_ylabel("share of the run's questions scored ≥ τ")
    ax.set_ylim(0, 1.01)
    ax.grid(alpha=0.3)
    ax.figure.colorbar(mpl.cm.ScalarMappable(norm=norm, cmap=cm), ax=ax, label=label or "run score", pad=0.02)
    return ax


def plot_power_curves(ax, deltas, curves: Mapping[str, Sequence[float]], reference: float | None = None, ylabel=""):
    """Required sample size (log scale) against the difference to detect, one line per design.

    ``curves`` maps a label to the sizes at ``deltas``; ``reference`` draws a horizontal line
    (e.g. the 171 questions of EQ-Bench v2).
    """
    colours, markers = [BLUE, ORANGE, PURPLE, GREY, "#009E73", "#D55E00"], "osD^vP"  # one look per curve, no drop
    if len(curves) > len(colours):
        raise ValueError(f"at most {len(colours)} curves can be told apart here")
    for (label, n), c, m in zip(curves.items(), colours, markers):
        ax.plot(deltas, n, marker=m, ms=4, markevery=max(1, len(deltas) // 8), color=c, label=label)
    if reference is not None:
        ax.axhline(reference, color="black", lw=0.8, ls="--")
        ax.text(np.min(deltas), reference, f" {reference:g}", va="bottom", ha="left", fontsize=8)
    ax.set_yscale("log")
    ax.set_xlabel("difference in run score to detect (points)")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7.5, frameon=False)
    return ax
