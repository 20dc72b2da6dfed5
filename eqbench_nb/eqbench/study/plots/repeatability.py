"""Repeatability (notebook 03; :mod:`eqbench_nb.eqbench.study.repeatability`).

Each function draws on a given ``ax`` and returns it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ....plots.common import (
    PALETTE,
    label_points,
    short_name,
)


def _patch(color, label: str):
    """A legend handle: a filled square of ``color``."""
    from matplotlib.patches import Patch

    return Patch(color=color, label=label)


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


def plot_sd_sources(ax, table: pd.DataFrame, label: str = "label", xlabel: str = "SD of one run's score (points)"):
    """SDs side by side (one row each), drawn so that unlike bars are not read alike.

    ``sd_low``/``sd_high`` is a 95 % interval of the SD: solid, or dashed and grey with a hollow mark where the row's
    ``untrusted`` is True (e.g. a chi-square interval that Grubbs' test shows one iteration to drive). Optional
    ``spread_low``/``spread_high`` is a range over iterations, not an interval: a dotted line. A legend names the
    kinds present.
    """
    from matplotlib.lines import Line2D

    t = table.reset_index(drop=True)
    y = np.arange(len(t))[::-1]
    kinds: set[str] = set()
    for yi, (_, r) in zip(y, t.iterrows()):
        untrusted = bool(r.get("untrusted", False))
        if np.isfinite(r.get("spread_low", np.nan)) and np.isfinite(r.get("spread_high", np.nan)):
            ax.hlines(yi, r["spread_low"], r["spread_high"], color="0.55", lw=1, linestyles=":")
            kinds.add("range")
        if np.isfinite(r.get("sd_low", np.nan)) and np.isfinite(r.get("sd_high", np.nan)):
            style = dict(color="0.6", lw=1.5, linestyles="--") if untrusted else dict(color=PALETTE[0], lw=2)
            ax.hlines(yi, r["sd_low"], r["sd_high"], **style)
            kinds.add("untrusted" if untrusted else "interval")
        ax.plot([r["sd"]], [yi], "o", ms=6, color=PALETTE[0], mfc="white" if untrusted else PALETTE[0])
        ax.annotate(f"{r['sd']:.1f}", (r["sd"], yi), xytext=(0, 6), textcoords="offset points", ha="center", fontsize=8)
    ax.set_yticks(y, t[label], fontsize=8)
    ax.set_ylim(-0.6, len(t) - 0.4)
    ax.set_xlim(left=0)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    handles = {
        "interval": Line2D([], [], color=PALETTE[0], lw=2, label="95 % chi-square interval of the SD"),
        "untrusted": Line2D([], [], color="0.6", lw=1.5, ls="--",
                            label="chi-square interval not to be trusted (Grubbs: one iteration drives the SD)"),
        "range": Line2D([], [], color="0.55", lw=1, ls=":", label="range over iterations (not an interval)"),
    }  # fmt: skip
    ax.legend(handles=[h for k, h in handles.items() if k in kinds], fontsize=7, loc="upper center",
              bbox_to_anchor=(0.5, -0.18), frameon=False)  # fmt: skip
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
