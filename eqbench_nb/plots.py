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
    """Name points next to them, shifting a label down (then up) when it would overlap an earlier one."""
    ax.autoscale_view()
    fig = ax.figure
    to_pt = 72.0 / fig.dpi
    h = fontsize * 1.25
    placed: list[tuple[float, float, float]] = []  # (x, y, width) in points of each placed label
    for x, y, t in zip(xs, ys, texts):
        px, py = np.asarray(ax.transData.transform((x, y))) * to_pt
        w = 0.55 * fontsize * len(t)
        dy = 2.0
        for shift in [0, -1, 1, -2, 2, -3, 3, -4, 4, -5, 5, -6, 6]:
            cy = py + 2.0 + shift * h
            if all(abs(cy - qy) >= h or (px + 4 + w < qx or qx + qw < px + 4) for qx, qy, qw in placed):
                dy = 2.0 + shift * h
                break
        placed.append((px + 4, py + dy, w))
        ax.annotate(
            t,
            (x, y),
            xytext=(4, dy),
            textcoords="offset points",
            fontsize=fontsize,
            color=color,
            arrowprops=dict(arrowstyle="-", lw=0.4, color="#999999") if dy != 2.0 else None,
        )
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
):
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


def plot_bias_by_reference(ax, bias: pd.DataFrame, share: pd.DataFrame | None = None):
    """Signed error (answer - reference) against the reference intensity, with intervals.

    ``bias`` has columns reference, mean, lo, hi (from :func:`cluster_bootstrap` over ``error``
    by ``reference``); ``share`` (optional, from :func:`summarise_errors` by reference) adds the
    shares of over- and under-estimates on a second axis.
    """
    ax.axhline(0, color="0.5", lw=0.8)
    ax.errorbar(
        bias["reference"],
        bias["mean"],
        yerr=np.vstack([bias["mean"] - bias["lo"], bias["hi"] - bias["mean"]]),
        fmt="o-",
        color="C0",
        capsize=3,
        label="mean signed error (95% CI, models resampled)",
    )
    ax.set_xlabel("reference intensity")
    ax.set_ylabel("answer - reference")
    ax.set_xticks(range(0, 11))
    handles, labels = ax.get_legend_handles_labels()
    if share is not None:
        ax2 = ax.twinx()
        ax2.plot(share["reference"], share["share_over"], "^--", color="C3", alpha=0.7, label="share rated too high")
        ax2.plot(share["reference"], share["share_under"], "v--", color="C2", alpha=0.7, label="share rated too low")
        ax2.set_ylim(0, 1)
        ax2.set_ylabel("share of ratings")
        h2, l2 = ax2.get_legend_handles_labels()
        handles, labels = handles + h2, labels + l2
    ax.legend(handles, labels, loc="upper right", fontsize=8)
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
    Cell text is black or white, whichever reads better on the cell's colour.
    """
    data = matrix.to_numpy(float)
    if center is not None:
        half = np.nanmax(np.abs(data - center))
        vmin, vmax = center - half, center + half
    im = ax.imshow(data, aspect="auto", cmap=cmap, vmin=vmin, vmax=vmax)
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
    ax.set_ylabel("run score (0-100)")
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
    ax.set_ylabel("run score (0-100)")
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
    ax.set_ylabel("run score (0-100)")
    ax.legend(fontsize=8, loc="best")
    ax.grid(alpha=0.3)
    return ax


def plot_v1_v2(ax, run_scores: pd.DataFrame):
    """Scatter of each model's v1 score against its v2 score on the same answers."""
    ax.scatter(run_scores["v2"], run_scores["v1"], s=14, alpha=0.8)
    lo = min(run_scores["v1"].min(), run_scores["v2"].min())
    hi = max(run_scores["v1"].max(), run_scores["v2"].max())
    ax.plot([lo, hi], [lo, hi], "--", color="0.6", lw=0.8, label="v1 = v2")
    r = S.pearson_r(run_scores["v2"], run_scores["v1"])
    rho = S.spearman_r(run_scores["v2"], run_scores["v1"])
    ax.set_title(f"Pearson r = {r:.3f}, Spearman rho = {rho:.3f} (n = {len(run_scores)})", fontsize=9)
    ax.set_xlabel("v2 (fullscale) run score")
    ax.set_ylabel("v1 (normalised) run score, same answers")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return ax


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
    iteration does not set the axis.
    """
    v = scores[score].to_numpy(float)
    if limits is None:
        q1, q3 = np.nanquantile(v, [0.25, 0.75])
        iqr = max(q3 - q1, 1.0)
        limits = (max(np.nanmin(v), q1 - 3 * iqr), min(np.nanmax(v), q3 + 3 * iqr))
    lo, hi = limits
    pad = 0.06 * (hi - lo)
    labels = list(dict.fromkeys(scores[label]))
    for i, name in enumerate(labels):
        s = scores.loc[scores[label] == name, score].to_numpy(float)
        inside = (s >= lo) & (s <= hi)
        jitter = np.linspace(-0.12, 0.12, len(s)) if len(s) > 1 else np.zeros(1)
        ax.scatter(s[inside], i + jitter[inside], s=28, color=PALETTE[i % len(PALETTE)], zorder=3)
        for x, j in zip(s[~inside], jitter[~inside]):
            edge = lo - pad * 0.5 if x < lo else hi + pad * 0.5
            ax.plot([edge], [i + j], "<" if x < lo else ">", color=PALETTE[i % len(PALETTE)], ms=7)
            ax.annotate(
                f"{x:.0f} (off scale)",
                (edge, i + j),
                xytext=(6 if x < lo else -6, -10),
                textcoords="offset points",
                ha="left" if x < lo else "right",
                fontsize=7.5,
            )
        ax.text(hi + pad, i, f"n = {len(s)}", va="center", fontsize=7.5, color="0.3")
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.set_xlim(lo - pad, hi + pad * 2.2)
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
