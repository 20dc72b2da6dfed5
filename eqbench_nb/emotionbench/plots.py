"""EmotionBench's plots, each drawing on a given ``ax`` (the notebook makes the figure and saves it)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .alignment import FactorChange


def plot_factor_changes(ax: Any, changes: Sequence[FactorChange], title: str, model_label: str = "model") -> None:
    """Per factor, the model's change (evoked minus default, Welch 95 % interval over its responses) beside the
    human paired change (after minus before, 95 % t interval over participants); a line at no change."""
    y = np.arange(len(changes))
    for offset, label, values, lows, highs, colour in (
        (-0.18, model_label, [c.model_change for c in changes], [c.model_low for c in changes],
         [c.model_high for c in changes], "tab:blue"),
        (0.18, "humans", [c.human_change for c in changes], [c.human_low for c in changes],
         [c.human_high for c in changes], "tab:orange"),
    ):  # fmt: skip
        v = np.asarray(values, float)
        lo = np.asarray([x if not math.isnan(x) else m for x, m in zip(lows, values)], float)
        hi = np.asarray([x if not math.isnan(x) else m for x, m in zip(highs, values)], float)
        ax.errorbar(v, y + offset, xerr=[v - lo, hi - v], fmt="o", ms=3, color=colour, label=label, elinewidth=1)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(y, [c.factor for c in changes], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("change in score (evoked − default; after − before)")
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)


def plot_measure_ranking(ax: Any, rows: Sequence[dict], measure: str, label: str) -> None:
    """Models sorted by one alignment measure, with its interval (bootstrap over factors)."""
    ordered = sorted(rows, key=lambda r: r[measure])
    y = np.arange(len(ordered))
    v = np.array([r[measure] for r in ordered], float)
    lo = np.array([r.get(f"{measure}_low", r[measure]) for r in ordered], float)
    hi = np.array([r.get(f"{measure}_high", r[measure]) for r in ordered], float)
    ax.errorbar(v, y, xerr=[v - lo, hi - v], fmt="o", ms=4, color="tab:purple", elinewidth=1)
    ax.set_yticks(y, [r["model"] for r in ordered], fontsize=7)
    ax.set_xlabel(label)
    ax.set_title(f"{label}: 95 % percentile bootstrap over factors")


def plot_side_by_side(ax: Any, x: Sequence[float], y: Sequence[float], names: Sequence[str], ylabel: str) -> None:
    """EQ-Bench v2 score against an EmotionBench alignment measure, one labelled point per matched model."""
    ax.scatter(x, y, color="tab:green")
    for xi, yi, name in zip(x, y, names):
        ax.annotate(name, (xi, yi), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel("EQ-Bench v2 score")
    ax.set_ylabel(ylabel)
    ax.set_title(f"EQ-Bench v2 against EmotionBench {ylabel}")
