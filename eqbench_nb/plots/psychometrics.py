"""EQ-Bench as a test (notebook 08; :mod:`eqbench_nb.analysis.psychometrics`).

Each function draws on a given ``ax`` and returns it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..analysis.stats import SMALL_N
from .common import (
    BLUE,
    GREY,
    ORANGE,
    PURPLE,
    label_points,
)
from .stats import plot_scatter_fit


def plot_item_map(ax, items: pd.DataFrame, x: str, y: str, flag: str | None = None, label: str | None = None):
    """Questions as points: ``x`` against ``y`` columns of ``items``; rows where ``flag`` is true in orange,
    named by ``label`` when given."""
    fl = items[flag].to_numpy(bool) if flag else np.zeros(len(items), bool)
    ax.scatter(items.loc[~fl, x], items.loc[~fl, y], s=14, color=BLUE, alpha=0.7, edgecolor="none")
    ax.scatter(items.loc[fl, x], items.loc[fl, y], s=22, color=ORANGE, edgecolor="black", lw=0.4, zorder=3)
    if label is not None and fl.any():
        sub = items[fl]
        label_points(ax, sub[x].to_numpy(), sub[y].to_numpy(), [str(v) for v in sub[label]], fontsize=6.5)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.grid(alpha=0.3)
    return ax


def plot_key_candidate(ax, cells: pd.DataFrame, ratings: pd.DataFrame, title: str = ""):
    """One question of the key audit: per emotion, the strong runs' ratings (dots, jittered), their
    median (black bar) and the reference (orange diamond).

    ``cells`` is the question's rows of :func:`eqbench_nb.eqbench.study.key_audit.key_audit`'s cell
    table; ``ratings`` the strong runs' rows of the run table for the question.
    """
    rng = np.random.default_rng(0)
    emotions = list(cells["emotion"])
    for i, e in enumerate(emotions):
        r = ratings.loc[ratings["emotion"] == e, "answer"].to_numpy(float)
        ax.scatter(
            r + rng.uniform(-0.15, 0.15, len(r)),
            i + rng.uniform(-0.18, 0.18, len(r)),
            s=10,
            color=BLUE,
            alpha=0.6,
            edgecolor="none",
            label="strong runs" if i == 0 else None,
        )
        c = cells.iloc[i]
        ax.plot(
            [c.consensus, c.consensus],
            [i - 0.3, i + 0.3],
            color="black",
            lw=2,
            label="their median" if i == 0 else None,
        )
        ax.scatter(
            [c.reference],
            [i],
            marker="D",
            s=45,
            color=ORANGE,
            edgecolor="black",
            lw=0.5,
            zorder=4,
            label="reference key" if i == 0 else None,
        )
    ax.set_yticks(range(len(emotions)), emotions, fontsize=8)
    ax.set_ylim(len(emotions) - 0.5, -0.5)
    ax.set_xlim(-0.5, 10.5)
    ax.set_xticks(range(0, 11, 2))
    ax.set_xlabel("rating (0–10)")
    ax.set_title(title, fontsize=8.5)
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_short_form(
    ax,
    table: pd.DataFrame,
    metric: str = "rmse",
    ylabel: str = "",
    reference: float | None = None,
    reference_label: str = "",
):
    """Held-out ``metric`` of short forms against k, one line per selection method, error bars from the
    interval columns ``<metric>_low/_high`` where the table has them. The y axis starts at 0 (an error in
    points is read against zero, not against the best method), and ``reference`` draws a horizontal line
    (e.g. the full score's standard error: the same unit, an SD)."""
    groups = list(table.groupby("method", sort=False))
    ks = np.sort(table["k"].unique())
    dodge = 0.06 * (np.diff(ks).min() if len(ks) > 1 else 1.0)
    style = {"greedy": (BLUE, "o"), "random": (ORANGE, "s"), "item_rest": (GREY, "D")}  # one look per method
    for j, (meth, g) in enumerate(groups):
        c, m = style.get(str(meth), (PURPLE, "^"))
        g = g.sort_values("k")
        x = g["k"] + (j - (len(groups) - 1) / 2) * dodge
        if f"{metric}_low" in g:
            err = np.vstack([g[metric] - g[f"{metric}_low"], g[f"{metric}_high"] - g[metric]])
            ax.errorbar(x, g[metric], yerr=err, marker=m, ms=4, capsize=3, color=c, label=meth)
        else:
            ax.plot(x, g[metric], marker=m, ms=4, color=c, label=meth)
    if reference is not None:
        ax.axhline(reference, color="black", lw=0.9, ls="--", label=reference_label or f"{reference:.2f}")
    ax.set_ylim(0, None)
    ax.set_xlabel("questions in the short form (k)")
    ax.set_ylabel(ylabel or metric)
    ax.set_xticks(sorted(table["k"].unique()))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7.5, frameon=False, loc="lower left")
    return ax


def plot_control_forest(ax, table: pd.DataFrame, labels: Mapping[str, str] | None = None):
    """Estimates of :func:`eqbench_nb.analysis.psychometrics.capability_control` with both intervals:
    models resampled (blue) and base-model lineages as the units (orange; how, by the number of lineages, as
    :func:`~eqbench_nb.analysis.psychometrics.capability_control` chooses)."""
    t = table.reset_index(drop=True)
    y = np.arange(len(t))
    ax.axvline(0, color=GREY, lw=0.8)
    models = f"{int(t['n'].iloc[0])} models as units" + (" (bootstrap)" if int(t["n"].iloc[0]) >= SMALL_N else "")
    ax.hlines(y - 0.12, t["low"], t["high"], color=BLUE, lw=1.6, label=models)
    if "cluster_low" in t:
        k = int(t["n_clusters"].iloc[0])
        how = "Fisher z / jackknife t, n = lineages" if k < SMALL_N else "lineages resampled"
        ax.hlines(
            y + 0.12, t["cluster_low"], t["cluster_high"], color=ORANGE, lw=1.6, label=f"{k} lineages as units ({how})"
        )
    ax.scatter(t["estimate"], y, color="black", s=18, zorder=3)
    names = [labels.get(s, s) if labels else s for s in t["statistic"]]
    ax.set_yticks(y, names, fontsize=8)
    ax.set_ylim(len(t) - 0.5, -0.5)
    ax.set_xlabel("estimate with 95 % interval")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7.5, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2)
    return ax


def plot_added_variable(ax, x, y, z, labels: Sequence[str] | None = None, n_label: int = 4, xlabel="", ylabel=""):
    """Residuals of ``y`` on ``z`` against residuals of ``x`` on ``z``: the partial correlation as a scatter
    (their Pearson r is the partial r), with the least-squares line and the largest residuals named."""
    x, y, z = (np.asarray(v, float) for v in (x, y, z))
    design = np.column_stack([np.ones(len(z)), z])
    rx = x - design @ np.linalg.lstsq(design, x, rcond=None)[0]
    ry = y - design @ np.linalg.lstsq(design, y, rcond=None)[0]
    plot_scatter_fit(
        ax,
        rx,
        ry,
        labels,
        n_label=n_label,
        xlabel=xlabel,
        ylabel=ylabel,
        color=BLUE,
        annotate=False,
        smooth=False,
        mark_influence=False,
    )  # the added-variable plot's line is the partial regression: straight by construction
    ax.margins(y=0.12)
