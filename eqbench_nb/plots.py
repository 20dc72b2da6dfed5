"""Every plot of the notebooks. Each function draws on a given ``ax`` and returns it.

The functions take plain data (arrays, Series, the tables made by :mod:`eqbench_nb.stats`,
:mod:`eqbench_nb.emotions` and :mod:`eqbench_nb.metric`); figure layout and saving stay in the
notebook (via :func:`eqbench_nb.report.save_figure`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .analysis import stats as S
from .analysis.metric import penalty_curve
from .eqbench.questions import PASS_FRACTION
from .eqbench.scoring import ADJUST_CONST, fullscale_penalty

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]


def short_name(model: str, width: int = 40) -> str:
    """A model name without its ``org/`` prefix, cut to ``width`` characters."""
    name = str(model).split("/", 1)[-1]
    return name if len(name) <= width else name[: width - 1] + "…"


def label_points(ax, xs, ys, texts, fontsize: float = 6.5, color: str = "#444444"):
    """Name points next to them, shifting a label down (then up) when it would overlap an earlier one.

    Labels stay inside the axes: one that would cross the top or bottom edge is moved inward, one
    that would cross the right edge is written to the left of its point."""
    ax.autoscale_view()
    fig = ax.figure
    to_pt = 72.0 / fig.dpi
    h = fontsize * 1.25
    _x0, y0, x1, y1 = (np.asarray(ax.bbox.extents) * to_pt).tolist()  # the axes in points
    placed: list[tuple[float, float, float]] = []  # (left x, y, width) in points of each placed label
    for x, y, t in zip(xs, ys, texts):
        px, py = np.asarray(ax.transData.transform((x, y))) * to_pt
        w = 0.55 * fontsize * len(t)
        dx = 4.0 if px + 4 + w < x1 else -4.0 - w  # left of the point when it would leave on the right
        left = px + dx

        def fits(cy: float) -> bool:
            return y0 <= cy and cy + h <= y1

        shifts = [0, -1, 1, -2, 2, -3, 3, -4, 4, -5, 5, -6, 6]
        dy = next((2.0 + k * h for k in shifts if fits(py + 2.0 + k * h)), 2.0)
        for shift in shifts:
            cy = py + 2.0 + shift * h
            if fits(cy) and all(abs(cy - qy) >= h or (left + w < qx or qx + qw < left) for qx, qy, qw in placed):
                dy = 2.0 + shift * h
                break
        placed.append((left, py + dy, w))
        ax.annotate(
            t,
            (x, y),
            xytext=(dx if dx > 0 else -4.0, dy),
            textcoords="offset points",
            ha="left" if dx > 0 else "right",
            fontsize=fontsize,
            color=color,
            arrowprops=dict(arrowstyle="-", lw=0.4, color="#999999") if dy != 2.0 else None,
        )
    return ax


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
):
    """Scatter of ``y`` against ``x`` with the least-squares line, Pearson/Spearman r with bootstrap
    intervals in the corner, and the ``n_label`` points with the largest residuals named."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    ax.scatter(x[ok], y[ok], s=16, alpha=0.7, color=color, edgecolor="none")
    slope, intercept = S.linear_fit(x, y)
    xs = np.linspace(x[ok].min(), x[ok].max(), 50)
    ax.plot(xs, slope * xs + intercept, color="black", lw=1, alpha=0.7)
    if labels is not None and n_label:
        names = np.asarray(labels, dtype=object)
        idx = S.largest_residuals(x, y, n_label)
        label_points(ax, x[idx], y[idx], [short_name(names[i], 28) for i in idx])
    if annotate:
        summ = S.correlation_summary(x, y, reps=reps, seed=seed)
        ax.text(
            0.03,
            0.97,
            f"n = {summ['n']}\n"
            f"Pearson r = {summ['pearson']:.2f} [{summ['pearson_low']:.2f}, {summ['pearson_high']:.2f}]\n"
            f"Spearman ρ = {summ['spearman']:.2f} [{summ['spearman_low']:.2f}, {summ['spearman_high']:.2f}]",
            transform=ax.transAxes,
            va="top",
            ha="left",
            fontsize=7.5,
            bbox=dict(facecolor="white", alpha=0.8, edgecolor="none"),
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
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
    (the output of :func:`eqbench_nb.stats.correlation_table`), with n in the row label and an
    optional mark at the paper's value. ``reference_rows`` (a boolean per row) limits that mark to
    the rows the paper's value is about (a short dashed segment on each), so it is not read as a
    target for other benchmarks or versions; without it, a line runs across every row."""
    t = table.reset_index(drop=True)
    y = np.arange(len(t))
    ax.hlines(y - 0.12, t["pearson_low"], t["pearson_high"], color=PALETTE[0], lw=1.5)
    ax.scatter(t["pearson"], y - 0.12, color=PALETTE[0], s=18, zorder=3, label="Pearson r")
    ax.hlines(y + 0.12, t["spearman_low"], t["spearman_high"], color=PALETTE[1], lw=1.5)
    ax.scatter(t["spearman"], y + 0.12, color=PALETTE[1], marker="D", s=14, zorder=3, label="Spearman ρ")
    ax.set_yticks(y, [f"{lab} (n={n})" for lab, n in zip(t[label_col], t["n"])], fontsize=fontsize)
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
    ax.set_xlabel("correlation with 95 % bootstrap interval (models resampled)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=3)
    return ax


# ---------------------------------------------------------------- per-emotion errors (notebook 05)


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
    ax, bias: pd.DataFrame, share: pd.DataFrame | None = None, ax_share=None, null: pd.Series | None = None
):
    """Signed error (answer - reference) against the reference intensity, with intervals and counts.

    ``null`` (reference -> expected signed error, e.g. the clipped-noise null of
    :mod:`eqbench_nb.analysis.nulls`) is drawn as a dashed line: the bias that clipping alone gives.

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
):
    """A labelled heatmap of a :func:`mean_matrix`; numbers in the cells when ``annotate``.

    ``center`` makes the colour scale symmetric around that value (for signed quantities).
    Cell text is black or white, whichever reads better on the cell's colour. A cell with no data
    is hatched grey and says so, so it is never read as a value (white is zero on a diverging map).
    """
    data = matrix.to_numpy(float)
    if center is not None:
        half = np.nanmax(np.abs(data - center))
        vmin, vmax = center - half, center + half
    im = ax.imshow(data, aspect="auto", cmap=cmap, vmin=vmin, vmax=vmax)
    _mark_empty_cells(ax, data, fontsize)
    ax.set_xticks(range(data.shape[1]))
    ax.set_xticklabels([str(c) for c in matrix.columns], rotation=45, ha="right", fontsize=fontsize)
    ax.set_yticks(range(data.shape[0]))
    ax.set_yticklabels([str(i) for i in matrix.index], fontsize=fontsize)
    if annotate and fmt:
        for i in range(data.shape[0]):
            for j in range(data.shape[1]):
                if np.isfinite(data[i, j]):
                    r, g, b, _ = im.cmap(im.norm(data[i, j]))
                    light = 0.299 * r + 0.587 * g + 0.114 * b > 0.5
                    ax.text(
                        j,
                        i,
                        format(data[i, j], fmt),
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


# ---------------------------------------------------------------- the metric (notebook 06)


def plot_penalty(ax, d_max: float = 10.0):
    """f(d) beside plain absolute error d, with integer errors marked."""
    d = np.linspace(0, d_max, 401)
    ax.plot(d, d, "--", color="0.5", label="absolute error d")
    ax.plot(d, penalty_curve(d), color="C0", label="EQ-Bench v2 penalty f(d)")
    k = np.arange(0, int(d_max) + 1)
    ax.plot(k, penalty_curve(k), "o", color="C0", ms=4)
    for x in (1, 2, 3):
        ax.annotate(
            f"f({x})={fullscale_penalty(x):.2f}",
            (x, fullscale_penalty(x)),
            textcoords="offset points",
            xytext=(-5, 10),
            fontsize=8,
        )
    ax.axvline(5, color="0.8", lw=0.8)
    ax.text(5.1, 0.5, "sigmoid | linear", fontsize=8, color="0.4")
    ax.set_xlabel("|answer - reference| on one emotion")
    ax.set_ylabel("penalty")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    return ax


def plot_constant_answers(
    ax, const_scores: pd.DataFrame, random_score: float | None = None, zero_label: str = "score 0"
):
    """Bars: run score of answering k everywhere; optional line for the random baseline."""
    colors = ["C3" if s < 0 else "C0" for s in const_scores["score"]]
    ax.bar(const_scores["k"], const_scores["score"], color=colors)
    for k, s in zip(const_scores["k"], const_scores["score"]):
        ax.text(k, s + (1 if s >= 0 else -1), f"{s:.1f}", ha="center", va="bottom" if s >= 0 else "top", fontsize=7)
    ax.axhline(0, color="0.3", lw=0.8)
    if random_score is not None:
        ax.axhline(random_score, color="C1", ls="--", label=f"uniform random answers: {random_score:+.2f}")
        ax.legend(fontsize=8, loc="lower right")
    ax.set_xticks(const_scores["k"])
    ax.set_xlabel("constant answer k (every emotion rated k)")
    ax.set_ylabel("run score (10 × mean question score)")
    return ax


def plot_noisy_answers(ax, noisy: pd.DataFrame):
    """Expected run score of reference + noise against the noise SD (band: one run's 95 % range)."""
    ax.plot(noisy["sd"], noisy["expected"], color="C0", label="expected (exact)")
    if "sim_lo" in noisy:
        ax.fill_between(
            noisy["sd"],
            noisy["sim_lo"],
            noisy["sim_hi"],
            color="C0",
            alpha=0.2,
            label="one run: 95 % range (simulated)",
        )
    ax.axhline(0, color="0.3", lw=0.8)
    ax.set_xlabel("SD of the noise added to the reference (then rounded, clipped to 0-10)")
    ax.set_ylabel("run score (10 × mean question score)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return ax


def plot_constant_calibration(ax, by_const: pd.DataFrame, upstream: float = ADJUST_CONST, zero: float | None = None):
    """Expected random-answer score against the constant, marking upstream's and the zero-making one."""
    ax.plot(by_const["const"], by_const["expected"], color="C0")
    ax.axhline(0, color="0.3", lw=0.8)
    up = float(np.interp(upstream, by_const["const"], by_const["expected"]))
    ax.plot([upstream], [up], "o", color="C3")
    ax.annotate(
        f"upstream c = {upstream}\nrandom scores {up:+.3f}",
        (upstream, up),
        textcoords="offset points",
        xytext=(10, 10),
        fontsize=8,
        color="C3",
    )
    if zero is not None:
        ax.plot([zero], [0], "s", color="C2")
        ax.annotate(
            f"c = {zero:.4f}\nrandom scores 0",
            (zero, 0),
            textcoords="offset points",
            xytext=(10, -30),
            fontsize=8,
            color="C2",
        )
    ax.set_xlabel("adjustment constant c")
    ax.set_ylabel("expected run score of random answers")
    ax.grid(alpha=0.3)
    return ax


def plot_parse_failures(ax, sweep: pd.DataFrame, fail_threshold: float = 1 - PASS_FRACTION):
    """Run score under each convention against the share of unparseable answers."""
    styles = {"official": ("C0", "o-"), "lm-eval": ("C1", "s-"), "evalscope": ("C2", "^--")}
    for conv, df in sweep.groupby("convention", sort=False):
        color, fmt = styles.get(conv, ("C4", "-"))
        label = f"{conv} (x100)" if conv == "evalscope" else conv
        ax.plot(df["rate"] * 100, df["score_100"], fmt, color=color, ms=4, label=label)
    ax.axvspan(
        fail_threshold * 100,
        sweep["rate"].max() * 100,
        color="0.9",
        zorder=0,
        label="official flags the run failed\n(< 83.33 % parsed)",
    )
    ax.set_xlabel("unparseable answers (%)")
    ax.set_ylabel("run score (10 × mean question score)")
    ax.legend(fontsize=8, loc="best")
    ax.grid(alpha=0.3)
    return ax


def plot_v1_v2(ax, run_scores: pd.DataFrame, random_v1: float | None = None, random_v2: float | None = None):
    """Scatter of each model's v1 score against its v2 score on the same answers.

    The two scores are on different scales, so no identity line: the least-squares line shows how one
    maps onto the other, and each axis marks where uniform random answers land on its own scale.
    """
    x, y = run_scores["v2"].to_numpy(float), run_scores["v1"].to_numpy(float)
    ax.scatter(x, y, s=14, alpha=0.8)
    slope, intercept = S.linear_fit(x, y)
    xs = np.array([np.nanmin(x), np.nanmax(x)])
    ax.plot(
        xs, intercept + slope * xs, "-", color="C1", lw=1, label=f"least squares: v1 = {intercept:.1f} + {slope:.2f} v2"
    )
    if random_v2 is not None:
        ax.axvline(random_v2, color="0.5", ls=":", lw=0.9, label=f"random answers, v2 scale ({random_v2:+.1f})")
    if random_v1 is not None:
        ax.axhline(random_v1, color="0.5", ls="--", lw=0.9, label=f"random answers, v1 scale ({random_v1:+.1f})")
    r = S.pearson_r(x, y)
    rho = S.spearman_r(x, y)
    ax.set_title(f"Pearson r = {r:.3f}, Spearman rho = {rho:.3f} (n = {len(run_scores)}); different scales", fontsize=9)
    ax.set_xlabel("v2 (fullscale) run score")
    ax.set_ylabel("v1 (normalised) run score, same answers")
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(alpha=0.3)
    return ax


def plot_clipped_noise_null(ax, by_reference: pd.DataFrame, observed_slope: float, null_slope: float, noise_sd: float):
    """Mean rating per reference value: observed, and under the clipped-noise null; the identity line.

    ``by_reference``: :func:`eqbench_nb.analysis.metric.mean_rating_by_reference` (reference, n,
    observed, null). Marker area follows the number of ratings at that reference.
    """
    d = by_reference
    size = 8 + 120 * d["n"] / d["n"].max()
    ax.plot([0, 10], [0, 10], color="0.6", lw=0.8, ls="--", label="rating = reference (no error at all)")
    ax.plot(
        d["reference"],
        d["null"],
        "-o",
        color="C1",
        ms=3,
        label=f"clipped noise only (SD {noise_sd:.2f}): slope {null_slope:.2f}",
    )
    ax.scatter(
        d["reference"], d["observed"], s=size, color="C0", zorder=3, label=f"published runs: slope {observed_slope:.2f}"
    )
    ax.set_xlim(-0.5, 10.5)
    ax.set_ylim(-0.5, 10.5)
    ax.set_xlabel("reference value")
    ax.set_ylabel("mean rating")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3)
    return ax


def plot_question_score_tail(ax, scores, bins: int = 60):
    """Histogram of question scores (v2: -19.908..10 for ratings 0-10, lower for ratings above 10) with a log
    count axis so the tail shows."""
    s = np.asarray(scores, float)
    s = s[np.isfinite(s)]
    ax.hist(s, bins=bins, range=(min(-20.0, float(s.min())), 10), color="C0", alpha=0.85)
    ax.set_yscale("log")
    ax.axvline(0, color="0.3", ls="--", lw=0.8, label="0")
    ax.axvline(np.median(s), color="C1", lw=1, label=f"median {np.median(s):.2f}")
    ax.set_xlabel("question score (v2: −19.9 to 10 for ratings 0–10)")
    ax.set_ylabel("question scores (log scale)")
    ax.legend(fontsize=8, loc="upper left")
    return ax


# ---------------------------------------------------------------- issue 10: score distributions with baselines (02)

#: Okabe–Ito colours: distinguishable with the common colour-vision deficiencies (no red/green pairs).
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]


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


# ---------------------------------------------------------------- issue 10: v1 vs MMLU against the paper (04)

MARKERS = ["o", "s", "^", "D", "v", "P", "X"]


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


# ---------------------------------------------------------------- issue 10: shrunken rankings and grouped heatmaps (05)


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
):
    """A heatmap whose colour scale spans every cell (no clipping, so no two different values share
    the end colour), on a log scale by default so that a few large cells do not flatten the rest;
    each cell annotated with its value and, where it rests on fewer than ``sparse`` observations,
    with its count. Empty cells are hatched grey."""
    from matplotlib.colors import LogNorm, Normalize
    from matplotlib.ticker import FuncFormatter

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
            text = f"{data[i, j]:.2f}" + (f"\nn={int(n[i, j])}" if n[i, j] < sparse else "")
            ax.text(j, i, text, ha="center", va="center", fontsize=fontsize - 1, color=color)
    cbar = ax.figure.colorbar(
        im, ax=ax, label=cbar_label + (" (log scale)" if isinstance(norm, LogNorm) else ""), fraction=0.04, pad=0.02
    )
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    cbar.ax.yaxis.set_major_formatter(plain)
    cbar.ax.yaxis.set_minor_formatter(plain)


# ---------------------------------------------------------------- the paper, figure by figure (notebook 07)


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

    ``table`` is e.g. :func:`eqbench_nb.analysis.paper.figure1_table`. A compared value equal to the bar
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


def plot_text_panel(ax, text: str, fontsize: float = 6.5, width: int = 100, title: str | None = None):
    """A block of text (a prompt) in a monospaced font, each line wrapped at ``width`` characters."""
    import textwrap

    lines = []
    for line in text.strip("\n").splitlines():
        lines.extend(textwrap.wrap(line, width) or [""])
    ax.text(
        0.0, 1.0, "\n".join(lines), family="monospace", fontsize=fontsize, va="top", ha="left", transform=ax.transAxes
    )
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=fontsize + 2, loc="left")
    return ax


def plot_reference_keys(ax, keys: pd.DataFrame, fontsize: float = 8, xlabel: str = "reference intensity"):
    """Grouped horizontal bars: one group per emotion (rows of ``keys``), one bar per key (columns), valued.

    ``keys`` is :func:`eqbench_nb.analysis.paper.reference_keys`.
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
    ``gains`` is :func:`eqbench_nb.analysis.paper.revision_gains`.
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


def robust_limits(values, k: float = 3.0, include: Sequence[float] = (), margin: float = 0.08) -> tuple[float, float]:
    """Axis limits that cover the values inside Tukey's far fences (quartiles -/+ ``k`` IQR) and every value of
    ``include``, plus ``margin`` of the span on each side. Values beyond the fences fall off the axis."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    q1, q3 = np.quantile(v, [0.25, 0.75])
    keep = v[(v >= q1 - k * (q3 - q1)) & (v <= q3 + k * (q3 - q1))]
    lo = min(float(keep.min()), *include) if include else float(keep.min())
    hi = max(float(keep.max()), *include) if include else float(keep.max())
    pad = margin * (hi - lo if hi > lo else 1.0)
    return lo - pad, hi + pad


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


def plot_correlation_matrix(
    ax, r: pd.DataFrame, n: pd.DataFrame, fontsize: float = 7.5, cmap: str = "RdBu_r", small_n: int = 10
):
    """The lower triangle of a correlation matrix: each cell shows r, its 95 % Fisher z interval and n.

    ``r`` and ``n`` are :func:`eqbench_nb.analysis.paper.correlation_matrix`. The colour scale is the whole
    range −1 to 1 (no floor that makes 0.6 look like 0), and a cell resting on fewer than ``small_n``
    pairs is hatched, so that a correlation of five models does not look as settled as one of thirty. The
    diagonal shows only each column's n. Cells with no r are grey.
    """
    from matplotlib.patches import Rectangle

    data = r.to_numpy(float)
    k = data.shape[0]
    lower = np.tril(np.ones_like(data, dtype=bool), -1)
    im = ax.imshow(np.ma.masked_where(~lower | ~np.isfinite(data), data), cmap=cmap, vmin=-1, vmax=1)
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
                j, i, f"{data[i, j]:.2f}\n{ival}\nn={m}", ha="center", va="center", fontsize=fontsize - 2, color=color
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
    the row label. ``table`` has ``r, low, high, n, printed`` and ``label_col`` (e.g.
    :func:`eqbench_nb.analysis.paper.table3_comparison`); rows with no regenerated value are left out."""
    t = table[np.isfinite(table["r"].to_numpy(float))].reset_index(drop=True)
    y = np.arange(len(t))
    ax.hlines(y, t["low"], t["high"], color=PALETTE[0], lw=1.6)
    ax.scatter(t["r"], y, color=PALETTE[0], s=20, zorder=3, label="regenerated here")
    p = t["printed"].to_numpy(float)
    ok = np.isfinite(p)
    ax.scatter(p[ok], y[ok], marker="D", color=PALETTE[1], s=26, zorder=4, label=printed_label)
    ax.set_yticks(y, [f"{lab} (n={n})" for lab, n in zip(t[label_col], t["n"])], fontsize=fontsize)
    ax.set_ylim(len(t) - 0.5, -0.5)
    ax.set_xlabel(xlabel, fontsize=fontsize)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=fontsize - 0.5, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=1)


# ---------------------------------------------------------------- ranking reliability and psychometrics (issue 12)

#: Colour-blind-safe pair (blue / orange) and a third (purple) for the issue-12 plots.
_BLUE, _ORANGE, _PURPLE, _GREY = "#0072B2", "#E69F00", "#7B3294", "#777777"


def plot_rank_intervals(
    ax,
    table: pd.DataFrame,
    label_col: str = "label",
    fontsize: float = 6,
    highlight: Sequence[str] = (),
):
    """Runs ordered by rank (best at the top), each with its rank interval as a horizontal bar.

    ``table`` is :func:`eqbench_nb.analysis.ranking.rank_intervals` (``rank, rank_low,
    rank_high``). Runs named in ``highlight`` are drawn in orange. Make the figure tall: about
    0.12 inch per row.
    """
    t = table.sort_values(["rank", "score"], ascending=[False, True]).reset_index(drop=True)
    y = np.arange(len(t))
    hl = t[label_col].isin(set(highlight)).to_numpy()
    colors = np.where(hl, _ORANGE, _BLUE)
    ax.hlines(y, t["rank_low"], t["rank_high"], color=colors, lw=1.6, alpha=0.85)
    ax.scatter(t["rank"], y, s=10, color=colors, zorder=3)
    ax.set_yticks(y, [f"{short_name(s, 34)}  {r:g}" for s, r in zip(t[label_col], t["rank"])], fontsize=fontsize)
    ax.set_ylim(-0.7, len(t) - 0.3)
    ax.set_xlim(0, len(t) + 1)
    ax.set_xlabel("rank (1 = best); bar: 95 % interval, questions resampled")
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_probability_matrix(ax, poi: np.ndarray, labels: Sequence[str] | None = None, fontsize: float = 5):
    """P(row > column) for every pair of runs as a heatmap (purple–orange, white at 0.5), with a colour bar.

    Rows and columns in the given order (e.g. best first); columns are numbered by position.
    """
    k = poi.shape[0]
    im = ax.imshow(poi, cmap="PuOr_r", vmin=0, vmax=1, interpolation="nearest")
    if labels is not None:
        ax.set_yticks(range(k), [f"{short_name(s, 28)} {i + 1:>3}" for i, s in enumerate(labels)], fontsize=fontsize)
    else:
        ax.set_yticks([])
    step = 5 if k <= 60 else 10
    ax.set_xticks(range(step - 1, k, step), [str(i) for i in range(step, k + 1, step)], fontsize=7)
    ax.set_xlabel("run (same order as rows)")
    ax.figure.colorbar(im, ax=ax, label="P(row beats column on a random question)", fraction=0.046, pad=0.02)
    return ax


def plot_neighbour_poi(ax, labels: Sequence[str], poi, low, high, significant=None, fontsize: float = 6):
    """P(X > Y) of each run against the run ranked just below it, with intervals (one row per pair).

    ``labels`` name the upper run of each pair (best pair at the top). ``significant`` (boolean,
    optional) marks pairs separated after correction with filled dots; the others are open.
    """
    y = np.arange(len(labels))[::-1]
    sig = np.zeros(len(labels), bool) if significant is None else np.asarray(significant, bool)
    ax.axvline(0.5, color=_GREY, lw=0.8, ls="--")
    ax.hlines(y, low, high, color=_BLUE, lw=1.2)
    ax.scatter(
        np.asarray(poi)[sig], y[sig], color=_BLUE, s=14, zorder=3, label="P(X > Y) ≠ 0.5 after Benjamini–Hochberg"
    )
    ax.scatter(
        np.asarray(poi)[~sig], y[~sig], facecolor="white", edgecolor=_BLUE, s=14, zorder=3, label="not separated"
    )
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

    ``profile`` is ``(n_runs, n_taus)`` from :func:`eqbench_nb.analysis.ranking.performance_profiles`;
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
    for (label, n), c, m in zip(curves.items(), [_BLUE, _ORANGE, _PURPLE, _GREY], "osD^"):
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


def plot_item_map(ax, items: pd.DataFrame, x: str, y: str, flag: str | None = None, label: str | None = None):
    """Questions as points: ``x`` against ``y`` columns of ``items``; rows where ``flag`` is true in orange,
    named by ``label`` when given."""
    fl = items[flag].to_numpy(bool) if flag else np.zeros(len(items), bool)
    ax.scatter(items.loc[~fl, x], items.loc[~fl, y], s=14, color=_BLUE, alpha=0.7, edgecolor="none")
    ax.scatter(items.loc[fl, x], items.loc[fl, y], s=22, color=_ORANGE, edgecolor="black", lw=0.4, zorder=3)
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

    ``cells`` is the question's rows of :func:`eqbench_nb.analysis.psychometrics.key_audit`'s cell
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
            color=_BLUE,
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
            color=_ORANGE,
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
    style = {"greedy": (_BLUE, "o"), "random": (_ORANGE, "s"), "item_rest": (_GREY, "D")}  # one look per method
    for j, (meth, g) in enumerate(groups):
        c, m = style.get(str(meth), (_PURPLE, "^"))
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
    models resampled (blue) and base-model lineages resampled (orange)."""
    t = table.reset_index(drop=True)
    y = np.arange(len(t))
    ax.axvline(0, color=_GREY, lw=0.8)
    ax.hlines(y - 0.12, t["low"], t["high"], color=_BLUE, lw=1.6, label="models resampled")
    if "cluster_low" in t:
        ax.hlines(
            y + 0.12, t["cluster_low"], t["cluster_high"], color=_ORANGE, lw=1.6, label="base-model lineages resampled"
        )
    ax.scatter(t["estimate"], y, color="black", s=18, zorder=3)
    names = [labels.get(s, s) if labels else s for s in t["statistic"]]
    ax.set_yticks(y, names, fontsize=8)
    ax.set_ylim(len(t) - 0.5, -0.5)
    ax.set_xlabel("estimate with 95 % percentile bootstrap interval")
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
    plot_scatter_fit(ax, rx, ry, labels, n_label=n_label, xlabel=xlabel, ylabel=ylabel, color=_BLUE, annotate=False)
    ax.margins(y=0.12)


# ---------------------------------------------------------------- repeatability (notebook 03)


def plot_iteration_scores(ax, intervals: pd.DataFrame, sd: float | None = None, ylabel: str = "official score"):
    """Each iteration's score with its 95 % bootstrap interval over questions; the mean and ± 1 SD across iterations.

    ``intervals`` has columns iteration, score, low, high (one row per iteration). The bars show
    question sampling, the scatter of the dots run-to-run noise: the two are drawn on one axis so
    they can be compared at a glance.
    """
    t = intervals.sort_values("iteration")
    mean = float(t["score"].mean())
    if sd is not None and np.isfinite(sd):
        ax.axhspan(mean - sd, mean + sd, color=PALETTE[1], alpha=0.18, lw=0, label="mean ± 1 SD across iterations")
    ax.axhline(mean, color=PALETTE[1], lw=1.2, label=f"mean of {len(t)} iterations")
    ax.errorbar(
        t["iteration"],
        t["score"],
        yerr=np.vstack([t["score"] - t["low"], t["high"] - t["score"]]),
        fmt="o",
        color=PALETTE[0],
        capsize=3,
        ms=5,
        label="iteration score, 95 % bootstrap over questions",
    )
    ax.set_xticks(t["iteration"])
    ax.set_xlabel("iteration (same questions, same settings)")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    ax.grid(axis="y", alpha=0.3)
    return ax


def plot_parse_counts(ax, parsed: Sequence[int], iterations: int):
    """How many questions parsed in 0, 1, …, k of k iterations; counts on the bars, flips in their own colour."""
    p = np.asarray(parsed, dtype=int)
    xs = np.arange(iterations + 1)
    counts = np.array([(p == x).sum() for x in xs])
    colors = [PALETTE[0] if x == iterations else "0.6" if x == 0 else PALETTE[1] for x in xs]
    ax.bar(xs, counts, color=colors)
    for x, c in zip(xs, counts):
        ax.text(x, c, str(c), ha="center", va="bottom", fontsize=7.5)
    handles = [
        _patch("0.6", "never parsed"),
        _patch(PALETTE[1], "flips: parsed in some iterations only"),
        _patch(PALETTE[0], "parsed in every iteration"),
    ]
    ax.legend(handles=handles, fontsize=7.5, loc="upper center")
    ax.set_xticks(xs)
    ax.set_xlabel(f"iterations (of {iterations}) in which the question's answer parsed")
    ax.set_ylabel("questions")
    ax.set_ylim(0, counts.max() * 1.35 + 1)
    return ax


def _patch(color, label: str):
    """A legend handle: a filled square of ``color``."""
    from matplotlib.patches import Patch

    return Patch(color=color, label=label)


def plot_sd_sources(ax, table: pd.DataFrame, label: str = "label", xlabel: str = "SD of one run's score (points)"):
    """SDs side by side (one row each), with the interval where ``sd_low``/``sd_high`` are finite.

    Optional ``spread_low``/``spread_high`` (e.g. the smallest and largest over iterations) are drawn
    as a thin grey line.
    """
    t = table.reset_index(drop=True)
    y = np.arange(len(t))[::-1]
    for yi, (_, r) in zip(y, t.iterrows()):
        if np.isfinite(r.get("spread_low", np.nan)) and np.isfinite(r.get("spread_high", np.nan)):
            ax.hlines(yi, r["spread_low"], r["spread_high"], color="0.55", lw=1, linestyles=":")
        has = np.isfinite(r.get("sd_low", np.nan)) and np.isfinite(r.get("sd_high", np.nan))
        if has:
            ax.hlines(yi, r["sd_low"], r["sd_high"], color=PALETTE[0], lw=2)
        ax.plot([r["sd"]], [yi], "o", color=PALETTE[0], ms=6)
        ax.annotate(f"{r['sd']:.1f}", (r["sd"], yi), xytext=(0, 6), textcoords="offset points", ha="center", fontsize=8)
    ax.set_yticks(y, t[label], fontsize=8)
    ax.set_ylim(-0.6, len(t) - 0.4)
    ax.set_xlim(left=0)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_run_strips(
    ax,
    scores: pd.DataFrame,
    label: str = "label",
    score: str = "score",
    limits: tuple[float, float] | None = None,
    xlabel: str = "official score of one iteration",
):
    """One row of dots per run (its iteration scores); points outside ``limits`` drawn at the edge with their value.

    ``limits`` defaults to 3 interquartile ranges beyond the quartiles of all scores, so one wild
    iteration does not set the axis. The axis shows ``limits`` plus a small margin; a point inside
    that margin is drawn where it is (never called off scale while the axis covers its value), and
    only points beyond it sit at the edge as an arrow with their value. The n of each row is written
    outside the axes, on the right.
    """
    from matplotlib.transforms import blended_transform_factory

    v = scores[score].to_numpy(float)
    if limits is None:
        q1, q3 = np.nanquantile(v, [0.25, 0.75])
        iqr = max(q3 - q1, 1.0)
        limits = (max(np.nanmin(v), q1 - 3 * iqr), min(np.nanmax(v), q3 + 3 * iqr))
    pad = 0.06 * (limits[1] - limits[0])
    lo, hi = limits[0] - pad, limits[1] + pad  # the visible axis
    labels = list(dict.fromkeys(scores[label]))
    right = blended_transform_factory(ax.transAxes, ax.transData)
    for i, name in enumerate(labels):
        s = scores.loc[scores[label] == name, score].to_numpy(float)
        inside = (s >= lo) & (s <= hi)
        jitter = np.linspace(-0.12, 0.12, len(s)) if len(s) > 1 else np.zeros(1)
        ax.scatter(s[inside], i + jitter[inside], s=28, color=PALETTE[i % len(PALETTE)], zorder=3)
        for x, j in zip(s[~inside], jitter[~inside]):
            edge = lo + pad * 0.25 if x < lo else hi - pad * 0.25
            ax.plot([edge], [i + j], "<" if x < lo else ">", color=PALETTE[i % len(PALETTE)], ms=7)
            ax.annotate(
                f"{x:.0f}: beyond the axis",
                (edge, i + j),
                xytext=(8 if x < lo else -8, -11),
                textcoords="offset points",
                ha="left" if x < lo else "right",
                fontsize=7.5,
            )
        ax.text(1.01, i, f"n = {len(s)}", transform=right, va="center", fontsize=7.5, color="0.3", clip_on=False)
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.set_xlim(lo, hi)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_pair_gaps(ax, pairs: pd.DataFrame, x: str = "unparseable", y: str = "gap"):
    """Gap between a model's two published scores against its unparseable answers, each model named."""
    ax.scatter(pairs[x], pairs[y], s=30, color=PALETTE[0], zorder=3)
    label_points(
        ax,
        pairs[x].to_numpy(float),
        pairs[y].to_numpy(float),
        [short_name(m, 30) for m in pairs["model"]],
        fontsize=7.5,
    )
    ax.set_xlabel("unparseable answers in the published results file")
    ax.set_ylabel("gap between the two published scores (points)")
    ax.set_xlim(-0.5, max(pairs[x].max() * 1.3 + 1, 3))
    ax.set_ylim(bottom=-0.3)
    ax.grid(alpha=0.3)
    return ax


# ---------------------------------------------------------------- which questions fail (notebook 06)


def plot_failed_difficulty(ax, per_run: pd.DataFrame):
    """Per published run with failures: mean difficulty (for the other runs) of its failed and of its parsed questions.

    ``per_run`` is the output of :func:`eqbench_nb.analysis.metric.failed_question_difficulty`;
    rows are sorted by the difference, each labelled with its number of failed questions.
    """
    t = per_run.sort_values("difference").reset_index(drop=True)
    y = np.arange(len(t))
    ax.hlines(y, t["difficulty_parsed"], t["difficulty_failed"], color="0.7", lw=1)
    ax.scatter(t["difficulty_parsed"], y, color=PALETTE[0], s=22, zorder=3, label="its parsed questions")
    ax.scatter(t["difficulty_failed"], y, color=PALETTE[1], marker="D", s=22, zorder=3, label="its failed questions")
    ax.set_yticks(y, [f"{short_name(r, 26)} ({n} failed)" for r, n in zip(t["run"], t["failed"])], fontsize=6.5)
    ax.set_ylim(len(t) - 0.4, -0.6)
    ax.set_xlabel("mean score of these questions in the other runs (lower = harder)")
    ax.legend(fontsize=7.5, loc="upper right")
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_question_failures(ax, per_question: pd.DataFrame, seed: int = 0):
    """Each question: how hard it is (mean score of the runs that parsed it) and how many runs fail it."""
    rng = np.random.default_rng(seed)
    f = per_question["failed"].to_numpy(float)
    ax.scatter(per_question["difficulty"], f + rng.uniform(-0.15, 0.15, len(f)), s=12, alpha=0.6, color=PALETTE[0])
    for k in range(int(f.max()) + 1):
        ax.text(1.01, k, f"{int((f == k).sum())} q.", transform=ax.get_yaxis_transform(), va="center", fontsize=7)
    ax.set_yticks(range(int(f.max()) + 1))
    ax.set_xlabel("question difficulty: mean score of the runs that parsed it")
    ax.set_ylabel("published runs failing the question")
    ax.grid(alpha=0.3)
    return ax
