"""Per-emotion errors (notebook 05; :mod:`eqbench_nb.eqbench.study.emotions`).

Each function draws on a given ``ax`` and returns it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ....plots.common import (
    OKABE_ITO,
)


def plot_means(
    ax,
    summary: pd.DataFrame,
    label: str,
    mean: str = "mean",
    lo: str = "lo",
    hi: str = "hi",
    xlabel: str = "",
    color: str = "C0",
    sort: bool = True,
):
    """Horizontal points with interval bars, one per row of ``summary`` (largest mean on top)."""
    s = summary.sort_values(mean) if sort else summary.iloc[::-1]
    y = np.arange(len(s))
    err = np.vstack([s[mean] - s[lo], s[hi] - s[mean]])
    ax.errorbar(s[mean], y, xerr=err, fmt="o", color=color, ecolor=color, capsize=2, ms=4)
    ax.set_yticks(y)
    ax.set_yticklabels(s[label])
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_bias_by_reference(
    ax,
    bias: pd.DataFrame,
    share: pd.DataFrame | None = None,
    ax_share=None,
    null: pd.Series | None = None,
    null_interval: pd.DataFrame | None = None,
    null_interval_label: str = "null's 95 % interval",
):
    """Signed error (answer - reference) against the reference intensity, with intervals and counts.

    ``null`` (reference -> expected signed error, e.g. the clipped-noise null of
    :mod:`eqbench_nb.analysis.nulls`) is drawn as a dashed line: the bias that clipping alone gives.
    ``null_interval`` (indexed by reference, columns lo and hi, e.g. from
    :func:`eqbench_nb.eqbench.study.emotions.end_bias_against_null` with one bin per reference value)
    is drawn as a band around that line, labelled ``null_interval_label`` (say what it resamples):
    the null is fitted to the data, so it is uncertain too.

    ``bias`` has columns reference, mean, lo, hi and n (e.g. :func:`two_way_bootstrap` of ``error``
    by ``reference``); the number of ratings is printed under each point. With ``share`` (from
    :func:`summarise_errors` by reference) and a second axis ``ax_share``, the shares of ratings
    above, equal to and below the reference are drawn there as stacked bars (blue / grey /
    orange, colour-blind safe), each panel on its own axis.
    """
    ax.axhline(0, color="0.5", lw=0.8)
    ax.errorbar(
        bias["reference"],
        bias["mean"],
        yerr=np.vstack([bias["mean"] - bias["lo"], bias["hi"] - bias["mean"]]),
        fmt="o-",
        color=OKABE_ITO[0],
        capsize=3,
        label="mean signed error, 95 % interval",
    )
    if null is not None:
        ax.plot(null.index, null.to_numpy(float), "s--", color=OKABE_ITO[1], ms=4, lw=1.2, label=null.name or "null")
    if null_interval is not None:
        band = null_interval.dropna(subset=["lo", "hi"]).sort_index()
        ax.fill_between(
            band.index.to_numpy(float),
            band["lo"].to_numpy(float),
            band["hi"].to_numpy(float),
            color=OKABE_ITO[1],
            alpha=0.2,
            lw=0,
            label=null_interval_label,
        )
    if "n" in bias:
        lo = float(np.nanmin(bias["lo"]))
        span = float(np.nanmax(bias["hi"]) - lo)
        for r, n in zip(bias["reference"], bias["n"]):
            ax.text(r, lo - 0.08 * span, f"{int(n):,}", ha="center", va="top", fontsize=7, color="0.3")
        ax.set_ylim(lo - 0.2 * span, float(np.nanmax(bias["hi"])) + 0.1 * span)
        ax.text(
            0.99,
            0.02,
            "numbers: ratings at each reference",
            transform=ax.transAxes,
            ha="right",
            fontsize=7,
            color="0.3",
        )
    ticks = range(0, int(np.nanmax(bias["reference"])) + 1)
    ax.set_xlabel("reference intensity")
    ax.set_ylabel("answer - reference")
    ax.set_xticks(ticks)
    ax.legend(loc="upper right", fontsize=8, frameon=False)
    ax.grid(axis="y", alpha=0.3)
    if share is not None and ax_share is not None:
        refs = share["reference"].to_numpy(float)
        over, exact, under = (share[c].to_numpy(float) for c in ("share_over", "share_exact", "share_under"))
        ax_share.bar(refs, under, color=OKABE_ITO[1], label="rated too low")
        ax_share.bar(refs, exact, bottom=under, color="0.8", label="exact")
        ax_share.bar(refs, over, bottom=under + exact, color=OKABE_ITO[0], label="rated too high")
        ax_share.set_ylim(0, 1)
        ax_share.set_xticks(ticks)
        ax_share.set_xlabel("reference intensity")
        ax_share.set_ylabel("share of ratings")
        ax_share.legend(fontsize=8, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3)
    return ax


def plot_heatmap(
    ax,
    matrix: pd.DataFrame,
    cbar_label: str = "mean penalty f(d)",
    fmt: str | None = ".2f",
    cmap: str = "viridis",
    fontsize: float = 8,
    annotate: bool = True,
    vmin: float | None = None,
    vmax: float | None = None,
    center: float | None = None,
    half_width: pd.DataFrame | None = None,
    counts: pd.DataFrame | None = None,
    count_unit: str = "",
    column_notes: Sequence[str] | None = None,
):
    """A labelled heatmap of a :func:`mean_matrix`; numbers in the cells when ``annotate``.

    ``center`` makes the colour scale symmetric around that value (for signed quantities).
    Cell text is black or white, whichever reads better on the cell's colour. A cell with no data
    is hatched grey and says so, so it is never read as a value (white is zero on a diverging map).
    ``half_width`` adds each cell's ``± 95 % half-width`` and ``counts`` its n (in ``count_unit``), so no cell is
    read without its uncertainty; ``column_notes`` are printed under the column labels (a null's value, say).
    """
    data = matrix.to_numpy(float)
    hw = half_width.reindex(index=matrix.index, columns=matrix.columns).to_numpy(float) if half_width is not None \
        else np.full(data.shape, np.nan)  # fmt: skip
    nn = counts.reindex(index=matrix.index, columns=matrix.columns).to_numpy(float) if counts is not None \
        else np.full(data.shape, np.nan)  # fmt: skip
    if center is not None:
        half = np.nanmax(np.abs(data - center))
        vmin, vmax = center - half, center + half
    im = ax.imshow(data, aspect="auto", cmap=cmap, vmin=vmin, vmax=vmax)
    _mark_empty_cells(ax, data, fontsize)
    ax.set_xticks(range(data.shape[1]))
    columns = [str(c) for c in matrix.columns]
    if column_notes is not None:
        ax.set_xticklabels([f"{c}\n{n}" for c, n in zip(columns, column_notes)], fontsize=fontsize)
    else:
        ax.set_xticklabels(columns, rotation=45, ha="right", fontsize=fontsize)
    ax.set_yticks(range(data.shape[0]))
    ax.set_yticklabels([str(i) for i in matrix.index], fontsize=fontsize)
    if annotate and fmt:
        for i in range(data.shape[0]):
            for j in range(data.shape[1]):
                if np.isfinite(data[i, j]):
                    r, g, b, _ = im.cmap(im.norm(data[i, j]))
                    light = 0.299 * r + 0.587 * g + 0.114 * b > 0.5
                    text = format(data[i, j], fmt) + (f"\n±{hw[i, j]:{fmt}}" if np.isfinite(hw[i, j]) else "")
                    text += f"\nn={int(nn[i, j])}{count_unit}" if np.isfinite(nn[i, j]) else ""
                    ax.text(
                        j,
                        i,
                        text,
                        ha="center",
                        va="center",
                        fontsize=fontsize - 1,
                        color="black" if light else "white",
                    )
    ax.figure.colorbar(im, ax=ax, label=cbar_label, fraction=0.046, pad=0.02)
    return ax


def _mark_empty_cells(ax, data: np.ndarray, fontsize: float = 8) -> None:
    """Hatch every NaN cell of an ``imshow`` grid in grey and label it "no data"."""
    from matplotlib.patches import Rectangle

    for i, j in zip(*np.nonzero(~np.isfinite(data))):
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.85", edgecolor="0.5", hatch="///", lw=0))
        ax.text(j, i, "no data", ha="center", va="center", fontsize=fontsize - 1, color="0.2")


def plot_group_difference(
    ax,
    diff: pd.DataFrame,
    label: str,
    top: int | None = None,
    xlabel: str = "mean penalty: bottom tercile - top tercile",
):
    """The categories that separate weak from strong models most, with intervals."""
    d = diff.head(top) if top else diff
    return plot_means(ax, d.rename(columns={"diff": "mean"}), label, xlabel=xlabel, color="C1")


def plot_shrinkage(ax, table: pd.DataFrame, label: str, xlabel: str = ""):
    """Raw estimates with their interval (hollow, thin) beside the shrunken ones (filled), one row each.

    ``table`` has ``label``, ``estimate, lo, hi`` (raw, with e.g. a two-way bootstrap interval) and
    ``shrunk, shrunk_low, shrunk_high`` (from :func:`~eqbench_nb.analysis.stats.empirical_bayes_shrink`).
    Rows are drawn in the order given, top to bottom.
    """
    t = table.reset_index(drop=True)
    y = np.arange(len(t))
    ax.hlines(y - 0.17, t["lo"], t["hi"], color=OKABE_ITO[1], lw=1.2)
    ax.plot(t["estimate"], y - 0.17, "o", mfc="white", color=OKABE_ITO[1], ms=5, label="raw mean, 95 % interval")
    ax.hlines(y + 0.17, t["shrunk_low"], t["shrunk_high"], color=OKABE_ITO[0], lw=1.8)
    ax.plot(t["shrunk"], y + 0.17, "o", color=OKABE_ITO[0], ms=5, label="shrunken (empirical Bayes)")
    ax.set_yticks(y, list(t[label]), fontsize=8)
    ax.set_ylim(len(t) - 0.5, -0.6)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, frameon=False, loc="lower right")
    return ax


def plot_heatmap_counts(
    ax,
    values: pd.DataFrame,
    counts: pd.DataFrame,
    cbar_label: str = "",
    cmap: str = "viridis",
    sparse: int = 200,
    fontsize: float = 8,
    log: bool = True,
    half_width: pd.DataFrame | None = None,
):
    """A heatmap whose colour scale spans every cell (no clipping, so no two different values share
    the end colour), on a log scale by default so that a few large cells do not flatten the rest;
    each cell annotated with its value, with ``± half_width`` when given (the 95 % half-width of the cell's
    interval), and, where it rests on fewer than ``sparse`` observations, with its count. Empty cells are
    hatched grey. A log colour bar carries a handful of labelled ticks, not one per minor step."""
    from matplotlib.colors import LogNorm, Normalize
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    data = values.to_numpy(float)
    n = counts.reindex(index=values.index, columns=values.columns).to_numpy(float)
    vmin, vmax = float(np.nanmin(data)), float(np.nanmax(data))
    norm = LogNorm(vmin, vmax) if log and vmin > 0 else Normalize(vmin, vmax)
    im = ax.imshow(data, aspect="auto", cmap=cmap, norm=norm)
    _mark_empty_cells(ax, data, fontsize)
    ax.set_xticks(range(data.shape[1]), [str(c) for c in values.columns], rotation=40, ha="right", fontsize=fontsize)
    ax.set_yticks(range(data.shape[0]), [str(i) for i in values.index], fontsize=fontsize)
    for i in range(data.shape[0]):
        for j in range(data.shape[1]):
            if not np.isfinite(data[i, j]):
                continue
            r, g, b, _ = im.cmap(im.norm(data[i, j]))
            color = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
            hw = half_width.reindex(index=values.index, columns=values.columns).to_numpy(float)[i, j] if (
                half_width is not None) else np.nan  # fmt: skip
            text = f"{data[i, j]:.2f}" + (f"\n±{hw:.2f}" if np.isfinite(hw) else "")
            text += f"\nn={int(n[i, j])}" if n[i, j] < sparse else ""
            ax.text(j, i, text, ha="center", va="center", fontsize=fontsize - 1, color=color)
    cbar = ax.figure.colorbar(
        im, ax=ax, label=cbar_label + (" (log scale)" if isinstance(norm, LogNorm) else ""), fraction=0.04, pad=0.02
    )
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    if isinstance(norm, LogNorm):  # a few round values across the range, no crowd of minor labels
        nice = np.array([0.1, 0.2, 0.3, 0.5, 1, 2, 3, 5, 10, 20, 30, 50, 100])
        ticks = nice[(nice >= vmin) & (nice <= vmax)]
        cbar.ax.yaxis.set_major_locator(FixedLocator(ticks.tolist()))
        cbar.ax.yaxis.set_minor_locator(NullLocator())
    cbar.ax.yaxis.set_major_formatter(plain)
