"""Score distributions, intervals and correlations (notebooks 02 and 04; :mod:`eqbench_nb.analysis.stats`).

Each function draws on a given ``ax`` and returns it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..analysis import stats as S
from .common import (
    MARKERS,
    OKABE_ITO,
    PALETTE,
    label_points,
    label_square_matrix,
    short_name,
)


def plot_score_histograms(
    ax, groups: Mapping[str, Sequence[float]], bins=None, alpha: float = 0.5, xlabel: str = "EQ-Bench score"
):
    """Overlaid histograms of several score sets (``{label: values}``), with n in the legend."""
    all_v = np.concatenate([np.asarray(v, float) for v in groups.values()])
    all_v = all_v[np.isfinite(all_v)]
    if bins is None:
        bins = np.arange(np.floor(all_v.min() / 5) * 5, np.ceil(all_v.max() / 5) * 5 + 5, 5)
    for (label, values), c in zip(groups.items(), PALETTE):
        v = np.asarray(values, float)
        v = v[np.isfinite(v)]
        ax.hist(v, bins=bins, alpha=alpha * 0.5, color=c)
        ax.hist(v, bins=bins, histtype="step", lw=1.8, color=c, label=f"{label} (n = {len(v)})")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("models")
    ax.legend(frameon=False, fontsize=8)
    return ax


def plot_score_strips(
    ax,
    groups: Mapping[str, Sequence[float]],
    labels: Mapping[str, Sequence[str]] | None = None,
    seed: int = 0,
    xlabel: str = "score",
):
    """One row of jittered dots per score set, the min and max named at the ends.

    ``labels`` optionally gives the model names of each set (same order as the values), used to
    name the lowest and highest model.
    """
    rng = np.random.default_rng(seed)
    names = list(groups)
    for i, (label, values) in enumerate(groups.items()):
        v = np.asarray(values, float)
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


def plot_ranked_intervals(
    ax,
    table: pd.DataFrame,
    label_col: str = "label",
    fontsize: float = 6,
    highlight: Sequence[str] = (),
    xlabel: str = "EQ-Bench v2 score (official convention)",
):
    """Models ranked by score (best at the top), each with its interval as a horizontal bar.

    ``table`` has ``score, low, high`` and ``label_col`` (the output of
    :func:`eqbench_nb.analysis.stats.run_score_intervals`). Make the figure tall: about 0.12 inch per row.
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
    label_square_matrix(ax, k, labels, fontsize, "model (same order as rows)")
    return ax


def plot_scatter_fit(
    ax,
    x,
    y,
    labels: Sequence[str] | None = None,
    n_label: int = 5,
    xlabel: str = "",
    ylabel: str = "",
    color: str = PALETTE[0],
    annotate: bool = True,
    reps: int = S.DEFAULT_REPS,
    seed: int = 0,
    smooth: bool = True,
    mark_influence: bool = True,
    clusters=None,
):
    """Scatter of ``y`` against ``x`` with Pearson/Spearman r and their intervals under the axes (the interval the
    n calls for: :func:`eqbench_nb.analysis.stats.correlation_summary`; with ``clusters``, a lineage label per
    point, the lineages are the resampled units and the text says how many there are).

    With ``smooth`` the trend is a LOWESS curve (statsmodels, frac 2/3), which follows a cloud that bends at a
    ceiling where a straight line would cut through it; without it, the least-squares line. With
    ``mark_influence`` the point whose removal moves r most is drawn hollow and red and named with r without it.
    The ``n_label`` points farthest from the trend are named by :func:`label_residuals`, which a caller whose
    figure is laid out afterwards (``tight_layout``) should call itself after the layout, with ``n_label=0`` here,
    so that the labels' overlap check sees the final axes.
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    ax.scatter(x[ok], y[ok], s=16, alpha=0.7, color=color, edgecolor="none")
    if smooth:
        from statsmodels.nonparametric.smoothers_lowess import lowess

        fit = lowess(y[ok], x[ok], frac=2 / 3, return_sorted=True)
        ax.plot(fit[:, 0], fit[:, 1], color="black", lw=1, alpha=0.7, label="LOWESS trend")
    else:
        slope, intercept = S.linear_fit(x, y)
        xs = np.linspace(x[ok].min(), x[ok].max(), 50)
        ax.plot(xs, slope * xs + intercept, color="black", lw=1, alpha=0.7, label="least-squares line")
    summ = S.correlation_summary(x, y, reps=reps, seed=seed, clusters=clusters, unit="lineages")
    note = ""
    if mark_influence and ok.sum() > 3:
        loo = S.leave_one_out_corr(x, y)
        i = int(np.nanargmax(np.abs(loo - summ["pearson"])))
        ax.scatter([x[i]], [y[i]], s=46, facecolor="none", edgecolor=PALETTE[3], lw=1.2, zorder=4)
        name = short_name(np.asarray(labels, dtype=object)[i], 28) if labels is not None else "the hollow point"
        note = f"\nmost influential: {name} (r without it {loo[i]:.2f})"
    if labels is not None and n_label:
        label_residuals(ax, x, y, labels, n_label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if annotate:
        if clusters is not None:
            units = f"n = {summ['n']} models in {summ['n_clusters']} lineages"
            method = "Fisher z, n = lineages" if summ["n_clusters"] < S.SMALL_N else "bootstrap over lineages"
        else:
            units = f"n = {summ['n']}"
            method = "Fisher z" if summ["interval_method"].startswith("Fisher") else "bootstrap over models"
        # Under the x-axis label, outside the data: a box in a corner of the axes hid points and labels (issue 38).
        ax.annotate(
            f"{units};  Pearson r = {summ['pearson']:.2f} [{summ['pearson_low']:.2f}, "
            f"{summ['pearson_high']:.2f}];  Spearman ρ = {summ['spearman']:.2f} [{summ['spearman_low']:.2f}, "
            f"{summ['spearman_high']:.2f}]\n95 % intervals: {method}{note}",
            xy=(0.0, 0.0),
            xycoords=("axes fraction", ax.xaxis.label),
            xytext=(0, -3),
            textcoords="offset points",
            va="top",
            ha="left",
            fontsize=7.5,
        )
    return ax


def label_residuals(ax, x, y, labels: Sequence[str], n_label: int = 5, smooth: bool = True):
    """Name the ``n_label`` points farthest from the trend (LOWESS with ``smooth``, else the least-squares line)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    names = np.asarray(labels, dtype=object)
    if smooth:
        from statsmodels.nonparametric.smoothers_lowess import lowess

        ok = np.flatnonzero(np.isfinite(x) & np.isfinite(y))
        fitted = lowess(y[ok], x[ok], frac=2 / 3, return_sorted=False)
        idx = ok[np.argsort(-np.abs(y[ok] - fitted), kind="stable")[:n_label]]
    else:
        idx = S.largest_residuals(x, y, n_label)
    label_points(ax, x[idx], y[idx], [short_name(names[i], 28) for i in idx])
    return ax


def plot_correlation_forest(
    ax,
    table: pd.DataFrame,
    reference: float | None = None,
    reference_label: str = "paper",
    label_col: str = "label",
    fontsize: float = 7.5,
    reference_rows=None,
):
    """Pearson (dot) and Spearman (diamond) r with their intervals, one row per line of ``table``
    (the output of :func:`eqbench_nb.analysis.stats.correlation_table`), with n in the row label and an
    optional mark at the paper's value. ``reference_rows`` (a boolean per row) limits that mark to
    the rows the paper's value is about (a short dashed segment on each), so it is not read as a
    target for other benchmarks or versions; without it, a line runs across every row."""
    t = table.reset_index(drop=True)
    y = np.arange(len(t))
    ax.hlines(y - 0.12, t["pearson_low"], t["pearson_high"], color=PALETTE[0], lw=1.5)
    ax.scatter(t["pearson"], y - 0.12, color=PALETTE[0], s=18, zorder=3, label="Pearson r")
    ax.hlines(y + 0.12, t["spearman_low"], t["spearman_high"], color=PALETTE[1], lw=1.5)
    ax.scatter(t["spearman"], y + 0.12, color=PALETTE[1], marker="D", s=14, zorder=3, label="Spearman ρ")
    if "n_clusters" in t:  # lineages (clusters) were the resampled units: say both counts
        ticks = [f"{lab} ({n} models, {k} lineages)" for lab, n, k in zip(t[label_col], t["n"], t["n_clusters"])]
    else:
        ticks = [f"{lab} (n={n})" for lab, n in zip(t[label_col], t["n"])]
    ax.set_yticks(y, ticks, fontsize=fontsize)
    ax.set_ylim(len(t) - 0.5, -0.5)
    if reference is not None:
        label = f"{reference_label} r = {reference}"
        if reference_rows is None:
            ax.axvline(reference, color=PALETTE[3], ls="--", lw=1, label=label)
        else:
            rows = y[np.asarray(reference_rows, dtype=bool)]
            ax.vlines(
                np.full(len(rows), reference),
                rows - 0.42,
                rows + 0.42,
                color=PALETTE[3],
                ls="--",
                lw=1.2,
                label=label + " (on the rows it is about)",
            )
    ax.set_xlabel(
        "correlation with 95 % interval (lineages as the units: Fisher z with n = lineages below 30, "
        "percentile bootstrap over lineages from 30)"
        if "n_clusters" in t
        else "correlation with 95 % interval (Fisher z below 30 models, percentile bootstrap over models from 30)"
    )
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=3)
    return ax


def plot_score_panel(
    ax,
    groups: Mapping[str, pd.Series],
    baselines: Mapping[str, float] | None = None,
    binwidth: float = 5.0,
    xlabel: str = "score",
    name_extremes: bool = True,
):
    """Histograms of one benchmark version's scores, its baselines as labelled vertical lines.

    ``groups`` maps a label to a Series of scores indexed by model; the lowest and highest model
    of each are named at the bottom of the panel. ``baselines`` maps a label to a score (e.g.
    uniform random answers, answering 3 everywhere), drawn as dashed lines in black and grey. The
    x-axis covers every score and every baseline. Use one panel per benchmark version: their
    scales differ.
    """
    baselines = dict(baselines or {})
    values = [np.asarray(v, float) for v in groups.values()]
    finite = np.concatenate([v[np.isfinite(v)] for v in values] + [np.array(list(baselines.values()), float)])
    lo_edge = np.floor(finite.min() / binwidth) * binwidth
    hi_edge = np.ceil(finite.max() / binwidth) * binwidth + binwidth
    bins = np.arange(lo_edge, hi_edge + binwidth / 2, binwidth)
    top = 0
    for (label, s), c in zip(groups.items(), OKABE_ITO):
        v = s.to_numpy(float)
        v = v[np.isfinite(v)]
        counts, _, _ = ax.hist(v, bins=bins, histtype="stepfilled", alpha=0.25, color=c)
        ax.hist(v, bins=bins, histtype="step", lw=1.8, color=c, label=f"{label} (n = {len(v)})")
        top = max(top, counts.max())
    ax.set_ylim(0, top * 1.45)
    for i, ((label, x), style) in enumerate(zip(baselines.items(), [("0.15", "--"), ("0.45", ":"), ("0.3", "-.")])):
        color, ls = style
        ax.axvline(x, color=color, ls=ls, lw=1.4)
        ax.text(
            x,
            top * (1.4 - 0.13 * i),
            f" {label}: {x:.1f}",
            color=color,
            fontsize=7.5,
            ha="left",
            va="top",
            bbox=dict(facecolor="white", alpha=0.85, edgecolor="none", pad=0.5),
        )
    if name_extremes:
        lines = []
        for label, s in groups.items():
            s = s.dropna()
            lines.append(
                f"{label}: lowest {short_name(s.idxmin(), 26)} {s.min():.2f}, highest {short_name(s.idxmax(), 26)} "
                f"{s.max():.2f}"
            )
        ax.text(0.0, -0.22, "\n".join(lines), transform=ax.transAxes, fontsize=7, va="top", ha="left")
    ax.set_xlim(bins[0], bins[-1])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("models")
    ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(0.0, 0.72))
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_scatter_by_group(
    ax,
    x: pd.Series,
    y: pd.Series,
    groups: pd.Series,
    order: Sequence[str] | None = None,
    s: float = 22,
    alpha: float = 0.8,
):
    """Scatter of ``y`` against ``x`` with one colour-blind-safe colour and marker per group, n in the legend."""
    df = pd.DataFrame({"x": np.asarray(x, float), "y": np.asarray(y, float), "g": np.asarray(groups, dtype=object)})
    df = df.dropna()
    names = list(order) if order is not None else sorted(df["g"].unique(), key=str)
    for i, name in enumerate(names):
        g = df[df["g"] == name]
        if g.empty:
            continue
        ax.scatter(
            g["x"],
            g["y"],
            s=s,
            alpha=alpha,
            color=OKABE_ITO[i % len(OKABE_ITO)],
            marker=MARKERS[i % len(MARKERS)],
            edgecolor="white",
            linewidth=0.4,
            label=f"{name} (n = {len(g)})",
        )
    return ax


def plot_interval_rows(
    ax,
    table: pd.DataFrame,
    reference: float | None = None,
    reference_label: str = "paper",
    label: str = "label",
    xlabel: str = "Pearson r",
):
    """One row per line of ``table`` (``estimate, low, high`` and a label column), top to bottom, with
    the reference value as a dashed vertical line. Rows whose interval excludes the reference are
    drawn with filled markers, the others hollow."""
    t = table.reset_index(drop=True)
    y = np.arange(len(t))
    for i, r in t.iterrows():
        inside = reference is None or r["low"] <= reference <= r["high"]
        c = OKABE_ITO[0]
        ax.hlines(i, r["low"], r["high"], color=c, lw=2)
        ax.plot(r["estimate"], i, "o", color=c, mfc="white" if inside else c, ms=6, zorder=3)
    ticks = [f"{lab}\n[{lo:.3f}, {hi:.3f}]" for lab, lo, hi in zip(t[label], t["low"], t["high"])]
    ax.set_yticks(y, ticks, fontsize=8)
    ax.set_ylim(len(t) - 0.5, -0.5)
    if reference is not None:
        ax.axvline(reference, color=OKABE_ITO[5], ls="--", lw=1.2, label=f"{reference_label}: {reference:g}")
        ax.legend(fontsize=8, frameon=False, loc="upper left")
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_pvalues_by_n(
    ax,
    n_values: Sequence[int],
    p_values: Sequence[float],
    p_fixed: float | None = None,
    alpha: float = 0.05,
    xlabel: str = "assumed number of models behind the paper's r",
):
    """Two-sided p-values of a test against a published value, for each sample size it may have had."""
    ax.plot(list(n_values), list(p_values), "o-", color=OKABE_ITO[0], ms=4, label="paper's r estimated from n models")
    if p_fixed is not None:
        ax.axhline(p_fixed, color=OKABE_ITO[1], ls=":", lw=1.5, label=f"paper's r taken as exact: p = {p_fixed:.3f}")
    ax.axhline(alpha, color="0.3", ls="--", lw=1, label=f"p = {alpha:g}")
    ax.set_ylim(0, max(max(p_values), alpha, p_fixed or 0) * 1.25)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("two-sided p (Fisher z)")
    ax.legend(fontsize=7.5, frameon=False, loc="upper right")
    ax.grid(alpha=0.3)
    return ax


def plot_distribution_rows(
    ax,
    groups: Mapping[str, Sequence[float] | None],
    fontsize: float = 8,
    xlabel: str = "score",
    missing_text: str = "no scores available",
    seed: int = 0,
):
    """One row per group: a box (quartiles, median in orange, whiskers to min and max) over jittered dots, with n;
    a group whose values are ``None`` gets a row that says ``missing_text`` instead."""
    from matplotlib.patches import Rectangle

    rng = np.random.default_rng(seed)
    names = list(groups)
    for i, name in enumerate(names):
        vals = groups[name]
        if vals is None:
            ax.text(
                0.5,
                i,
                missing_text,
                transform=ax.get_yaxis_transform(),
                ha="center",
                va="center",
                fontsize=fontsize,
                color="0.35",
                style="italic",
            )
            continue
        v = np.asarray(vals, float)
        v = v[np.isfinite(v)]
        lo, q1, med, q3, hi = np.quantile(v, [0, 0.25, 0.5, 0.75, 1])
        ax.add_patch(Rectangle((q1, i - 0.25), q3 - q1, 0.5, facecolor="none", edgecolor="black", lw=1))
        ax.hlines([i, i], [lo, q3], [q1, hi], color="black", lw=1)
        ax.vlines([lo, hi], i - 0.12, i + 0.12, color="black", lw=1)
        ax.vlines(med, i - 0.25, i + 0.25, color=PALETTE[1], lw=2)
        ax.scatter(v, i + rng.uniform(-0.15, 0.15, len(v)), s=12, color=PALETTE[0], alpha=0.6, zorder=3)
        ax.text(1.0, i, f" n = {len(v)}", transform=ax.get_yaxis_transform(), va="center", fontsize=fontsize)
    ax.set_yticks(range(len(names)), names, fontsize=fontsize)
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.set_xlabel(xlabel, fontsize=fontsize)
    ax.grid(axis="x", alpha=0.3)
    return ax
