"""The paper figure by figure (notebook 07; :mod:`eqbench_nb.eqbench.study.paper`).

Each function draws on a given ``ax`` and returns it."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ....analysis import stats as S
from ....plots.common import (
    PALETTE,
    short_name,
)


def plot_score_bars(
    ax,
    table: pd.DataFrame,
    value_col: str = "chart",
    label_col: str = "model",
    compare_col: str | None = None,
    compare_label: str = "earlier value",
    fontsize: float = 7,
    xlabel: str = "EQ-Bench v1 score",
):
    """Horizontal bars, best at the top, each with its value; a diamond at ``compare_col`` where it differs.

    ``table`` is e.g. :func:`eqbench_nb.eqbench.study.paper.figure1_table`. A compared value equal to the bar
    (within 0.005) is not drawn, so only the disagreements show.
    """
    t = table.sort_values(value_col, ascending=True, kind="stable").reset_index(drop=True)
    y = np.arange(len(t))
    v = t[value_col].to_numpy(float)
    ax.barh(y, v, color=PALETTE[0], alpha=0.85, height=0.7)
    span = np.nanmax(v) - min(0.0, np.nanmin(v))
    c = t[compare_col].to_numpy(float) if compare_col is not None else np.full(len(t), np.nan)
    diff = np.isfinite(c) & (np.abs(c - v) > 0.005)
    for yi, vi, ci, di in zip(y, v, c, diff):
        end = max(vi, ci) if di else vi
        text = f"{vi:.2f}  ({compare_label}: {ci:.2f})" if di else f"{vi:.2f}"
        ax.text(end + 0.012 * span, yi, text, va="center", fontsize=fontsize - 0.5)
    if diff.any():
        ax.scatter(c[diff], y[diff], marker="D", s=22, color=PALETTE[1], zorder=3, label=compare_label)
        ax.legend(fontsize=fontsize, frameon=False, loc="lower right")
    ax.set_yticks(y, [short_name(m, 36) for m in t[label_col]], fontsize=fontsize)
    ax.set_ylim(-0.6, len(t) - 0.4)
    ax.set_xlim(min(0.0, np.nanmin(v)), np.nanmax(v) + (0.45 if diff.any() else 0.12) * span)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_reference_keys(ax, keys: pd.DataFrame, fontsize: float = 8, xlabel: str = "reference intensity"):
    """Grouped horizontal bars: one group per emotion (rows of ``keys``), one bar per key (columns), valued.

    ``keys`` is :func:`eqbench_nb.eqbench.study.paper.reference_keys`.
    """
    k = keys.shape[1]
    h = 0.8 / k
    y0 = np.arange(len(keys))
    hatches = ["", "//", "", "//", "", "//"]
    for j, col in enumerate(keys.columns):
        y = y0 - 0.4 + h * (j + 0.5)
        vals = keys[col].to_numpy(float)
        ax.barh(
            y,
            vals,
            height=h * 0.92,
            color=PALETTE[(j // 2) % len(PALETTE)],
            alpha=0.85 - 0.3 * (j % 2),
            hatch=hatches[j % len(hatches)],
            edgecolor="white",
            label=col,
        )
        for yi, vi in zip(y, vals):
            ax.text(vi + 0.1, yi, f"{vi:g}", va="center", fontsize=fontsize - 1.5)
    ax.set_yticks(y0, list(keys.index), fontsize=fontsize)
    ax.set_ylim(len(keys) - 0.5, -0.5)
    ax.set_xlim(0, 10.5)
    ax.set_xlabel(xlabel, fontsize=fontsize)
    ax.legend(fontsize=fontsize - 1.5, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_revision_dumbbell(ax, gains: pd.DataFrame, label_col: str = "model", fontsize: float = 6):
    """Per run, its first-pass score (open circle) and revised score (filled), joined; strongest at the top.

    The joining line is blue when revision raised the score and orange when it lowered it. A run whose
    revised pass parsed fewer than 95 % as many answers as the first pass is named with its counts.
    ``gains`` is :func:`eqbench_nb.eqbench.study.paper.revision_gains`.
    """
    t = gains.sort_values("first_pass", ascending=True, kind="stable").reset_index(drop=True)
    y = np.arange(len(t))
    up = (t["gain"] > 0).to_numpy()
    for yi, f, r, u in zip(y, t["first_pass"], t["revised"], up):
        ax.plot([f, r], [yi, yi], color=PALETTE[0] if u else PALETTE[1], lw=1.6, alpha=0.8)
    ax.scatter(t["first_pass"], y, s=16, facecolor="white", edgecolor="black", lw=0.8, zorder=3, label="first pass")
    ax.scatter(t["revised"], y, s=16, color="black", zorder=3, label="revised")
    ax.plot([], [], color=PALETTE[0], lw=1.6, label="revision raised the score")
    ax.plot([], [], color=PALETTE[1], lw=1.6, label="revision lowered the score")
    sparse = ~t["revised_eligible"].to_numpy(bool)
    for yi, row in zip(y[sparse], t[sparse].itertuples()):
        ax.annotate(
            f"revised pass parsed {row.n_revised:.0f} of {row.n_first:.0f}",
            (max(row.first_pass, row.revised), yi),
            xytext=(6, 0),
            textcoords="offset points",
            ha="left",
            va="center",
            fontsize=fontsize,
        )
    ax.set_yticks(y, [short_name(m, 34) for m in t[label_col]], fontsize=fontsize)
    ax.set_ylim(-0.7, len(t) - 0.3)
    ax.set_xlabel("EQ-Bench v2 score of the pass (10 × mean over its parseable questions)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=fontsize + 1, frameon=True, loc="lower right")
    return ax


def plot_gain_vs_strength(
    ax,
    gains: pd.DataFrame,
    y: str = "relative_gain_pct",
    x: str = "strength",
    ylim: tuple[float, float] | None = None,
    references: Mapping[str, float] | None = None,
    label_col: str = "model",
    fontsize: float = 7,
    xlabel: str = "strength: mean of first-pass and revised score",
    ylabel: str = "revision gain (%)",
    legend_loc: str = "below",
):
    """Each run's revision gain against its strength, a line at 0 and at each ``references`` value.

    Points outside ``ylim`` are drawn as triangles on the edge, named, with their value, so one outlier
    does not set the axis (:func:`robust_limits` gives such limits).
    """
    xs, ys = gains[x].to_numpy(float), gains[y].to_numpy(float)
    lo, hi = ylim if ylim is not None else (np.nanmin(ys), np.nanmax(ys))
    inside = (ys >= lo) & (ys <= hi)
    ax.scatter(xs[inside], ys[inside], s=18, color=PALETTE[0], alpha=0.8, edgecolor="none", label="one run")
    pad = 0.03 * (hi - lo)
    stacked = {"low": 0, "high": 0}  # labels on the same edge are stacked so they do not overlap
    out = np.flatnonzero(~inside)
    for i in out[np.argsort(-xs[out], kind="stable")]:  # rightmost first: later labels sit above its marker
        side = "low" if ys[i] < lo else "high"
        edge, marker = (lo + pad, "v") if side == "low" else (hi - pad, "^")
        dy = (1 if side == "low" else -1) * (6 + 2.2 * fontsize * stacked[side])
        stacked[side] += 1
        ax.scatter([xs[i]], [edge], marker=marker, s=30, color=PALETTE[0])
        ax.annotate(
            f"{short_name(gains[label_col].iat[i], 26)}: {ys[i]:+.0f}",
            (xs[i], edge),
            xytext=(5, dy),
            textcoords="offset points",
            fontsize=fontsize - 0.5,
            va="center",
            arrowprops=dict(arrowstyle="-", lw=0.4, color="#999999"),
        )
    ax.axhline(0, color="0.3", lw=0.8)
    styles = ["--", ":", "-."]
    for (label, v), ls, c in zip((references or {}).items(), styles, PALETTE[1:]):
        ax.axhline(v, color=c, ls=ls, lw=1.2, label=label)
    if (~inside).any():
        ax.scatter([], [], marker="v", s=30, color=PALETTE[0], label="one run, off the axis (value given)")
    ax.set_ylim(lo, hi)
    ax.set_xlabel(xlabel, fontsize=fontsize + 1)
    ax.set_ylabel(ylabel, fontsize=fontsize + 1)
    ax.grid(alpha=0.3)
    if legend_loc == "below":
        ax.legend(fontsize=fontsize, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.07), ncol=2)
    else:
        ax.legend(fontsize=fontsize, frameon=True, loc=legend_loc)
    return ax


def plot_correlation_matrix(
    ax, r: pd.DataFrame, n: pd.DataFrame, fontsize: float = 10, cmap: str | None = None, small_n: int = 10
):
    """The lower triangle of a correlation matrix: each cell shows r, its 95 % Fisher z interval and n.

    ``r`` and ``n`` are :func:`eqbench_nb.eqbench.study.paper.correlation_matrix`. When every r is positive the colour
    scale is sequential from 0 to 1 (a diverging −1…1 map would spend half its colours on values that do not
    occur); with negative values it is diverging over −1 to 1. Either way there is no floor that makes 0.6 look like
    0. A cell resting on fewer than ``small_n`` pairs is hatched, so that a correlation of five models does not look
    as settled as one of thirty. The diagonal shows only each column's n. Cells with no r are grey.
    """
    from matplotlib.patches import Rectangle

    data = r.to_numpy(float)
    k = data.shape[0]
    lower = np.tril(np.ones_like(data, dtype=bool), -1)
    positive = bool(np.nanmin(np.where(lower, data, np.nan)) >= 0)
    cmap = cmap or ("YlGnBu" if positive else "RdBu_r")
    vmin = 0.0 if positive else -1.0
    im = ax.imshow(np.ma.masked_where(~lower | ~np.isfinite(data), data), cmap=cmap, vmin=vmin, vmax=1)
    ax.set_facecolor("white")
    for i in range(k):
        for j in range(k):
            m = int(n.iat[i, j])
            if i == j:
                ax.text(j, i, f"n={m}", ha="center", va="center", fontsize=fontsize - 1, color="0.3")
                continue
            if not lower[i, j]:
                continue
            if not np.isfinite(data[i, j]):
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, color="0.85"))
                ax.text(j, i, f"n={m}", ha="center", va="center", fontsize=fontsize - 1)
                continue
            lo, hi = S.fisher_z_ci(data[i, j], m)
            rr, gg, bb, _ = im.cmap(im.norm(data[i, j]))
            color = "black" if 0.299 * rr + 0.587 * gg + 0.114 * bb > 0.5 else "white"
            if m < small_n:  # faded and hatched: the colour of r, but not its weight
                ax.add_patch(
                    Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=(1, 1, 1, 0.6), hatch="///", edgecolor="0.6", lw=0)
                )
                color = "black"
            ival = f"[{lo:.2f}, {hi:.2f}]" if np.isfinite(lo) else "[no interval]"
            ax.text(
                j, i, f"{data[i, j]:.2f}\n{ival}\nn={m}", ha="center", va="center", fontsize=fontsize - 2.5, color=color
            )
    ax.set_xticks(range(k), [str(c) for c in r.columns], rotation=35, ha="right", fontsize=fontsize)
    ax.set_yticks(range(k), [str(c) for c in r.index], fontsize=fontsize)
    ax.figure.colorbar(im, ax=ax, label="Pearson r", fraction=0.046, pad=0.02)
    ax.text(
        0.98,
        0.98,
        f"cells: r, 95 % Fisher z interval, n\nfaded and hatched: n < {small_n}",
        transform=ax.transAxes,
        ha="right",
        va="top",
        fontsize=fontsize - 1,
        color="0.25",
    )
    return ax


def plot_printed_vs_ours(
    ax,
    table: pd.DataFrame,
    label_col: str = "data",
    printed_label: str = "printed in the paper",
    fontsize: float = 7.5,
    xlabel: str = "Pearson r with 95 % Fisher z interval",
):
    """Each row's regenerated value (dot, interval line) beside the value the paper printed (diamond), n in
    the row label (and the lineages, with ``n_lineages``). ``table`` has ``r, low, high, n, printed`` and
    ``label_col`` (e.g.
    :func:`eqbench_nb.eqbench.study.paper.table3_comparison`); rows with no regenerated value are left out."""
    t = table[np.isfinite(table["r"].to_numpy(float))].reset_index(drop=True)
    y = np.arange(len(t))
    ax.hlines(y, t["low"], t["high"], color=PALETTE[0], lw=1.6)
    ax.scatter(t["r"], y, color=PALETTE[0], s=20, zorder=3, label="regenerated here")
    p = t["printed"].to_numpy(float)
    ok = np.isfinite(p)
    ax.scatter(p[ok], y[ok], marker="D", color=PALETTE[1], s=26, zorder=4, label=printed_label)
    if "n_lineages" in t:  # the lineages are the units of the interval
        ticks = [f"{lab} ({n} models, {k} lineages)" for lab, n, k in zip(t[label_col], t["n"], t["n_lineages"])]
    else:
        ticks = [f"{lab} (n={n})" for lab, n in zip(t[label_col], t["n"])]
    ax.set_yticks(y, ticks, fontsize=fontsize)
    ax.set_ylim(len(t) - 0.5, -0.5)
    ax.set_xlabel(xlabel, fontsize=fontsize)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=fontsize - 0.5, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=1)
