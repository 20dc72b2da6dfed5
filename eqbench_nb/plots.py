"""Plots for the discrimination and correlation notebooks. Every function draws on a given ``ax``.

The functions take plain data (arrays, Series, the tables made by :mod:`eqbench_nb.stats`) and
return the ``ax``; figure layout and saving stay in the notebook (via
:func:`eqbench_nb.report.save_figure`).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from . import stats as S

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]


def short_name(model: str, width: int = 40) -> str:
    """A model name without its ``org/`` prefix, cut to ``width`` characters."""
    name = str(model).split("/", 1)[-1]
    return name if len(name) <= width else name[: width - 1] + "…"


def label_points(ax, xs, ys, texts, fontsize: float = 6.5, color: str = "#444444"):
    """Name points next to them, shifting a label down (then up) when it would overlap an earlier one."""
    ax.autoscale_view()
    fig = ax.figure
    to_pt = 72.0 / fig.dpi
    h = fontsize * 1.25
    placed: list[tuple[float, float, float]] = []  # (x, y, width) in points of each placed label
    for x, y, t in zip(xs, ys, texts):
        px, py = (np.asarray(ax.transData.transform((x, y))) * to_pt)
        w = 0.55 * fontsize * len(t)
        dy = 2.0
        for shift in [0, -1, 1, -2, 2, -3, 3, -4, 4, -5, 5, -6, 6]:
            cy = py + 2.0 + shift * h
            if all(abs(cy - qy) >= h or (px + 4 + w < qx or qx + qw < px + 4) for qx, qy, qw in placed):
                dy = 2.0 + shift * h
                break
        placed.append((px + 4, py + dy, w))
        ax.annotate(t, (x, y), xytext=(4, dy), textcoords="offset points", fontsize=fontsize, color=color,
                    arrowprops=dict(arrowstyle="-", lw=0.4, color="#999999") if dy != 2.0 else None)
    return ax


def plot_score_histograms(ax, groups: Mapping[str, Sequence[float]], bins=None, alpha: float = 0.5,
                          xlabel: str = "EQ-Bench score"):
    """Overlaid histograms of several score sets (``{label: values}``), with n in the legend."""
    all_v = np.concatenate([np.asarray(v, float) for v in groups.values()])
    all_v = all_v[np.isfinite(all_v)]
    if bins is None:
        bins = np.arange(np.floor(all_v.min() / 5) * 5, np.ceil(all_v.max() / 5) * 5 + 5, 5)
    for (label, v), c in zip(groups.items(), PALETTE):
        v = np.asarray(v, float)
        v = v[np.isfinite(v)]
        ax.hist(v, bins=bins, alpha=alpha * 0.5, color=c)
        ax.hist(v, bins=bins, histtype="step", lw=1.8, color=c, label=f"{label} (n = {len(v)})")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("models")
    ax.legend(frameon=False, fontsize=8)
    return ax


def plot_score_strips(ax, groups: Mapping[str, Sequence[float]], labels: Mapping[str, Sequence[str]] | None = None,
                      seed: int = 0, xlabel: str = "score"):
    """One row of jittered dots per score set, the min and max named at the ends.

    ``labels`` optionally gives the model names of each set (same order as the values), used to
    name the lowest and highest model.
    """
    rng = np.random.default_rng(seed)
    names = list(groups)
    for i, (label, v) in enumerate(groups.items()):
        v = np.asarray(v, float)
        ok = np.isfinite(v)
        y = i + rng.uniform(-0.12, 0.2, ok.sum())
        c = PALETTE[i % len(PALETTE)]
        ax.scatter(v[ok], y, s=12, alpha=0.6, color=c)
        lo, hi = S.spread(v)
        ax.plot([lo, hi], [i - 0.25, i - 0.25], color=c, lw=1.5)
        who = list(np.asarray(labels[label])[ok]) if labels and label in labels else None
        vv = v[ok]
        lo_txt = f"{lo:.2f}" + (f"  {short_name(who[int(np.argmin(vv))], 24)}" if who else "")
        hi_txt = (f"{short_name(who[int(np.argmax(vv))], 24)}  " if who else "") + f"{hi:.2f}"
        ax.text(lo, i - 0.3, lo_txt, ha="left", va="bottom", fontsize=7)
        ax.text(hi, i - 0.3, hi_txt, ha="right", va="bottom", fontsize=7)
    ax.set_yticks(range(len(names)), names)
    ax.set_ylim(len(names) - 0.6, -0.75)
    ax.set_xlabel(xlabel)
    return ax


def plot_ranked_intervals(ax, table: pd.DataFrame, label_col: str = "label", fontsize: float = 6,
                          highlight: Sequence[str] = (), xlabel: str = "EQ-Bench v2 score (official convention)"):
    """Models ranked by score (best at the top), each with its interval as a horizontal bar.

    ``table`` has ``score, low, high`` and ``label_col`` (the output of
    :func:`eqbench_nb.stats.run_score_intervals`). Make the figure tall: about 0.12 inch per row.
    """
    t = table.sort_values("score", ascending=True).reset_index(drop=True)
    y = np.arange(len(t))
    hl = set(highlight)
    colors = np.where(t[label_col].isin(hl), PALETTE[3], PALETTE[0])
    ax.hlines(y, t["low"], t["high"], color=colors, lw=1.2, alpha=0.8)
    ax.scatter(t["score"], y, s=10, color=colors, zorder=3)
    ax.set_yticks(y, [short_name(s) for s in t[label_col]], fontsize=fontsize)
    ax.set_ylim(-0.7, len(t) - 0.3)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_separation_matrix(ax, separated: np.ndarray, labels: Sequence[str] | None = None, fontsize: float = 5):
    """Which model pairs are separated (dark) or within noise (white); rows in the given order.

    Model names (if given) label the rows; columns are numbered by position (1 = first row).
    """
    k = separated.shape[0]
    ax.imshow(separated.astype(float), cmap="Greys", vmin=0, vmax=1.6, interpolation="nearest")
    if labels is not None:
        ax.set_yticks(range(k), [f"{short_name(s, 28)} {i + 1:>3}" for i, s in enumerate(labels)], fontsize=fontsize)
    else:
        ax.set_yticks([])
    step = 5 if k <= 60 else 10
    ax.set_xticks(range(step - 1, k, step), [str(i) for i in range(step, k + 1, step)], fontsize=7)
    ax.set_xlabel("model (same order as rows)")
    return ax


def plot_scatter_fit(ax, x, y, labels: Sequence[str] | None = None, n_label: int = 5,
                     xlabel: str = "", ylabel: str = "", color: str = PALETTE[0], annotate: bool = True,
                     reps: int = S.DEFAULT_REPS, seed: int = 0):
    """Scatter of ``y`` against ``x`` with the least-squares line, Pearson/Spearman r with bootstrap
    intervals in the corner, and the ``n_label`` points with the largest residuals named."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    ax.scatter(x[ok], y[ok], s=16, alpha=0.7, color=color, edgecolor="none")
    slope, intercept = S.linear_fit(x, y)
    xs = np.linspace(x[ok].min(), x[ok].max(), 50)
    ax.plot(xs, slope * xs + intercept, color="black", lw=1, alpha=0.7)
    if labels is not None and n_label:
        labels = np.asarray(labels, dtype=object)
        idx = S.largest_residuals(x, y, n_label)
        label_points(ax, x[idx], y[idx], [short_name(labels[i], 28) for i in idx])
    if annotate:
        summ = S.correlation_summary(x, y, reps=reps, seed=seed)
        ax.text(0.03, 0.97,
                f"n = {summ['n']}\nPearson r = {summ['pearson']:.2f} [{summ['pearson_low']:.2f}, {summ['pearson_high']:.2f}]\n"
                f"Spearman ρ = {summ['spearman']:.2f} [{summ['spearman_low']:.2f}, {summ['spearman_high']:.2f}]",
                transform=ax.transAxes, va="top", ha="left", fontsize=7.5,
                bbox=dict(facecolor="white", alpha=0.8, edgecolor="none"))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return ax


def plot_correlation_forest(ax, table: pd.DataFrame, reference: float | None = None,
                            reference_label: str = "paper", label_col: str = "label", fontsize: float = 7.5):
    """Pearson (dot) and Spearman (diamond) r with their intervals, one row per line of ``table``
    (the output of :func:`eqbench_nb.stats.correlation_table`), with n in the row label and an
    optional vertical line at the paper's value."""
    t = table.reset_index(drop=True)
    y = np.arange(len(t))
    ax.hlines(y - 0.12, t["pearson_low"], t["pearson_high"], color=PALETTE[0], lw=1.5)
    ax.scatter(t["pearson"], y - 0.12, color=PALETTE[0], s=18, zorder=3, label="Pearson r")
    ax.hlines(y + 0.12, t["spearman_low"], t["spearman_high"], color=PALETTE[1], lw=1.5)
    ax.scatter(t["spearman"], y + 0.12, color=PALETTE[1], marker="D", s=14, zorder=3, label="Spearman ρ")
    ax.set_yticks(y, [f"{lab} (n={n})" for lab, n in zip(t[label_col], t["n"])], fontsize=fontsize)
    ax.set_ylim(len(t) - 0.5, -0.5)
    if reference is not None:
        ax.axvline(reference, color=PALETTE[3], ls="--", lw=1, label=f"{reference_label} r = {reference}")
    ax.set_xlabel("correlation with 95 % bootstrap interval (models resampled)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=3)
    return ax
