"""Judgemark v1's plots, each drawing on a given ``ax`` (the notebook makes the figure and saves it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


def _short(judge: str) -> str:
    return judge.split("/")[-1]


def plot_agreement(ax: Any, corr: pd.DataFrame, title: str) -> Any:
    """A judges × judges correlation matrix as a heat map, each cell labelled. The colour scale runs over the
    values there are (from the lowest off-diagonal value, rounded down to 0.05, to 1), not over −1…1: on a diagonal-
    to-minus-one scale values between 0.6 and 1 all look alike."""
    values = corr.to_numpy(dtype=float)
    off = values[~np.eye(len(values), dtype=bool)]
    low = np.floor(np.nanmin(off) / 0.05) * 0.05 if off.size else 0.0
    im = ax.imshow(values, vmin=low, vmax=1, cmap="viridis")
    labels = [_short(j) for j in corr.columns]
    ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=7)
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    middle = (low + 1) / 2
    for (i, j), v in np.ndenumerate(values):
        ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=6, color="white" if v < middle else "black")
    ax.set_title(title, fontsize=9)
    return im


def plot_spread(ax: Any, matrix: pd.DataFrame, order: list[str]) -> None:
    """Each judge's 19 writer scores as dots (one row per judge, in ``order``), its mean marked."""
    for row, judge in enumerate(order):
        values = matrix[judge].to_numpy()
        ax.scatter(values, np.full(len(values), row), s=12, alpha=0.6, color="tab:blue")
        ax.plot([values.mean()], [row], marker="|", markersize=14, color="black")
    ax.set_yticks(range(len(order)), [_short(j) for j in order], fontsize=7)
    ax.set_xlabel("judge's score of a writer model (0-100)")
    ax.set_title("Each judge's scores of the 19 writers (| = mean)", fontsize=9)


def plot_families(ax: Any, table: pd.DataFrame) -> None:
    """Each shared family's best Judgemark on v1 against v2.1 (different judge models on the two boards)."""
    ax.scatter(table["v1_best"], table["v2_best"], color="tab:purple")
    for family, row in table.iterrows():
        ax.annotate(
            str(family), (row["v1_best"], row["v2_best"]), fontsize=8, xytext=(4, 2), textcoords="offset points"
        )
    ax.set_xlabel("best Judgemark v1 of the family's judges")
    ax.set_ylabel("best Judgemark v2.1 of the family's judges")
    ax.set_title("Vendor families on both boards (different judge models)", fontsize=9)
