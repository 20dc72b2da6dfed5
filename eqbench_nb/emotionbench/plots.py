"""EmotionBench's plots, each drawing on a given ``ax`` (the notebook makes the figure and saves it)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .alignment import FactorChange


def plot_factor_changes(ax: Any, changes: Sequence[FactorChange], title: str, model_label: str = "model") -> None:
    """Per factor, the model's change (evoked minus default) beside the human paired change (after minus before),
    both with 95 % t intervals whose units are the factor's situations (clustered: the model's repeats of one
    situation and the people who imagined one situation are not independent evidence about the factor); a line at
    no change, and the region below the lowest change the model's scale allows (its default at the floor) shaded."""
    y = np.arange(len(changes))
    for offset, label, values, lows, highs, colour in (
        (-0.18, f"{model_label} (situations as units)", [c.model_change for c in changes],
         [c.model_low for c in changes], [c.model_high for c in changes], "tab:blue"),
        (0.18, "humans (situations as units)", [c.human_change for c in changes], [c.human_low for c in changes],
         [c.human_high for c in changes], "tab:orange"),
    ):  # fmt: skip
        v = np.asarray(values, float)
        lo = np.asarray([x if not math.isnan(x) else m for x, m in zip(lows, values)], float)
        hi = np.asarray([x if not math.isnan(x) else m for x, m in zip(highs, values)], float)
        ax.errorbar(v, y + offset, xerr=[v - lo, hi - v], fmt="o", ms=3, color=colour, label=label, elinewidth=1)
    floor = max(c.model_floor for c in changes) if changes else math.nan
    if math.isfinite(floor):
        left = min(ax.get_xlim()[0], floor - 1)
        ax.axvspan(
            left,
            floor,
            color="tab:blue",
            alpha=0.08,
            lw=0,
            label=f"below {model_label}'s floor ({floor:g}): its default sits at the scale's minimum"
            if abs(floor) < 1e-9
            else f"below the lowest change {model_label}'s scale allows ({floor:.1f})",
        )
        ax.set_xlim(left=left)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(y, [c.factor for c in changes], fontsize=7)
    ax.set_ylim(len(changes) - 0.4, -0.6)
    ax.set_xlabel("change in score (evoked − default; after − before), 95 % t interval over the situations")
    ax.set_title(title)
    # Under the axes: inside, the legend hid the humans' intervals of the last factors (issue 38).
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.07), fontsize=7, frameon=False)


def plot_measure_ranking(
    ax: Any, rows: Sequence[dict], measure: str, label: str, higher_is_better: bool = True
) -> None:
    """Models by one alignment measure (THIS PROJECT'S measure), each with its interval (factors resampled within
    emotions) and, in its label, the 95 % interval of its rank over the same resamples: where the rank intervals
    overlap, the order of the rows is not supported by the data. For an r, the largest r the human means' own
    sampling error allows (the ceiling) is drawn, and the disattenuated r (r / ceiling) as a hollow mark."""
    ordered = sorted(rows, key=lambda r: r[measure], reverse=higher_is_better)  # best first, drawn at the top
    y = np.arange(len(ordered))
    v = np.array([r[measure] for r in ordered], float)
    lo = np.array([r.get(f"{measure}_low", r[measure]) for r in ordered], float)
    hi = np.array([r.get(f"{measure}_high", r[measure]) for r in ordered], float)
    ax.errorbar(v, y, xerr=[v - lo, hi - v], fmt="o", ms=4, color="tab:purple", elinewidth=1, label=label)
    ceiling = f"{measure}_ceiling"
    if ceiling in ordered[0]:
        c = float(np.median([r[ceiling] for r in ordered]))
        ax.axvline(c, color="0.35", ls="--", lw=1, label=f"ceiling from the humans' sampling error ({c:.2f})")
        ax.scatter([r[f"{measure}_disattenuated"] for r in ordered], y, facecolor="none", edgecolor="tab:purple",
                   s=22, lw=0.8, label="disattenuated (r / ceiling)", zorder=3)  # fmt: skip

    def rank_text(r: dict) -> str:
        if f"{measure}_rank_low" not in r:
            return ""
        return f"  (rank {r[f'{measure}_rank_low']:.0f}–{r[f'{measure}_rank_high']:.0f})"

    ax.set_yticks(y, [f"{r['model']}{rank_text(r)}" for r in ordered], fontsize=6.5)
    ax.invert_yaxis()
    ax.set_xlabel(f"{label}; 95 % interval, factors resampled within emotions")
    ax.set_title(f"{label}\n(this project's measure, not the paper's; best at the top)", fontsize=9)
    # Under the axes: inside, the legend hid the weakest model's point (issue 38).
    ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.09), frameon=False)
    ax.grid(axis="x", alpha=0.3)


def plot_side_by_side(
    ax: Any,
    x: Sequence[float],
    y: Sequence[float],
    names: Sequence[str],
    ylabel: str,
    summary: dict | None = None,
    leverage: Sequence[bool] | None = None,
    without: dict | None = None,
) -> None:
    """EQ-Bench v2 score against an EmotionBench alignment measure, one labelled point per matched model.

    ``summary`` (:func:`eqbench_nb.analysis.stats.correlation_summary` of the points) puts r, its interval and
    n in the corner; ``leverage`` marks the points that carry the correlation (drawn hollow and named as such),
    ``without`` is the summary without them. The y axis runs over r's whole positive range (0 to 1), so a
    narrow band of values does not look like a steep relation."""
    from ..plots.common import label_points

    xs, ys = np.asarray(x, float), np.asarray(y, float)
    lev = np.zeros(len(xs), bool) if leverage is None else np.asarray(leverage, bool)
    ax.scatter(xs[~lev], ys[~lev], color="tab:green", zorder=3)
    if lev.any():
        ax.scatter(xs[lev], ys[lev], facecolor="none", edgecolor="tab:red", lw=1.2, s=46, zorder=3,
                   label="the two LLaMA-2 models (high leverage)")  # fmt: skip
        ax.legend(fontsize=7, loc="upper left")
    ax.set_ylim(0, 1)
    ax.set_xlim(min(20.0, float(np.nanmin(xs)) - 5), 112)
    crowded = xs >= np.nanmax(xs) - 12  # the strong models bunch at the top right: names go in a column beside them
    names = [str(n) for n in names]
    _column_labels(ax, xs[crowded], ys[crowded], [names[int(i)] for i in np.flatnonzero(crowded)], x_text=92.0)
    rest = np.flatnonzero(~crowded)
    label_points(ax, xs[rest], ys[rest], [names[int(i)] for i in rest], fontsize=6.5)
    if summary is not None:
        text = (
            f"n = {summary['n']} models\nPearson r = {summary['pearson']:.2f} [{summary['pearson_low']:.2f}, "
            f"{summary['pearson_high']:.2f}] ({summary['interval_method'].split(' (')[0]})"
        )
        if without is not None:
            text += (
                f"\nwithout the hollow points: r = {without['pearson']:.2f} [{without['pearson_low']:.2f}, "
                f"{without['pearson_high']:.2f}], n = {without['n']}"
            )
        ax.text(0.98, 0.03, text, transform=ax.transAxes, fontsize=7, va="bottom", ha="right",
                bbox=dict(facecolor="white", alpha=0.85, edgecolor="none"))  # fmt: skip
    ax.set_xlabel("EQ-Bench v2 score")
    ax.set_ylabel(f"{ylabel} (this project's measure)")
    ax.set_title(f"EQ-Bench v2 against EmotionBench {ylabel}", fontsize=9)


def _column_labels(ax: Any, xs: np.ndarray, ys: np.ndarray, names: Sequence[str], x_text: float, gap: float = 0.035):
    """Name crowded points in a column at ``x_text``, top to bottom in the order of their y, at least ``gap``
    apart (axis units of y), each joined to its point by a thin line."""
    order = np.argsort(-ys)
    y_text: list[float] = []
    for i in order:
        y = ys[i] if not y_text else min(ys[i], y_text[-1] - gap)
        y_text.append(y)
    for i, yt in zip(order, y_text):
        ax.annotate(names[i], (xs[i], ys[i]), xytext=(x_text, yt), textcoords="data", fontsize=6.5, va="center",
                    color="#444444", arrowprops=dict(arrowstyle="-", lw=0.4, color="#999999"))  # fmt: skip
