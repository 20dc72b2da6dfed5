"""Notebook 11's figures, each drawing on a given ``ax`` (the notebook makes the figure and saves it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..plots.common import short_name

if TYPE_CHECKING:
    import pandas as pd


def plot_rank_agreement(ax: Any, matrix: pd.DataFrame, n_writers: int) -> Any:
    """Judges × judges Spearman of their writer means (over ``n_writers`` writers), as a heat map with each value
    written in its cell and a colour bar."""
    values = matrix.to_numpy(float)
    image = ax.imshow(values, vmin=min(0.5, float(np.nanmin(values))), vmax=1.0, cmap="viridis")
    names = [short_name(j, 26) for j in matrix.columns]
    ax.set_xticks(range(len(names)), names, rotation=90, fontsize=8)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    for i in range(len(names)):
        for j in range(len(names)):
            if i != j:
                ax.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if values[i, j] < 0.85 else "black")  # fmt: skip
    ax.set_title(f"Rank agreement between judges (Spearman over the {n_writers} writers' means)")
    ax.figure.colorbar(image, ax=ax, fraction=0.04, pad=0.02, label="Spearman")
    return image


#: The fewest judges left out for which the "judges left out" curve is drawn: below it the left-out panel is one or
#: two judges, and the curve measures them more than the ensemble (it would read as "more judges is worse").
MIN_LEFT_OUT = 3


def plot_ensemble(ax: Any, curve: pd.DataFrame) -> None:
    """Agreement of the k-judge ensemble's writer ranking with the full panel and, while at least
    :data:`MIN_LEFT_OUT` judges are left out, with the judges left out."""
    ax.plot(curve["k"], curve["full_median"], "o-", color="tab:blue", label="with the full panel: median subset")
    ax.plot(curve["k"], curve["full_lowest"], "o:", color="tab:blue", label="with the full panel: worst subset")
    rest = curve[curve["rest_judges"] >= MIN_LEFT_OUT]
    left = f"with the judges left out (k ≤ {int(rest['k'].max())}: {MIN_LEFT_OUT} or more left out)"
    ax.plot(rest["k"], rest["rest_median"], "s-", color="tab:orange", label=f"{left}: median")
    ax.plot(rest["k"], rest["rest_lowest"], "s:", color="tab:orange", label=f"{left}: worst")
    ax.set_xlabel("k judges in the ensemble (every subset of k)")
    ax.set_ylabel("Spearman of the writers' ranking")
    ax.set_title("What an ensemble of k judges buys")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)


def plot_intervals(ax: Any, table: pd.DataFrame, value: str, label: str, null: float = 0.0) -> None:
    """One row per judge: the estimate with its interval (``low``/``high``) against ``null``."""
    rows = table.reset_index(drop=True)
    y = np.arange(len(rows))
    ax.errorbar(rows[value], y, xerr=[rows[value] - rows["low"], rows["high"] - rows[value]], fmt="o", capsize=2)
    ax.axvline(null, color="grey", lw=0.8, ls="--")
    ax.set_yticks(y, [short_name(j, 34) for j in rows["judge"]], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(label)
