"""EQ-Bench 3's plots, each drawing on a given ``ax`` (the notebook makes the figure and saves it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..plots.common import label_points, short_name
from .pairwise import MAX_POSSIBLE_DIFF, blend_sigmoid
from .rating import pseudo_wins
from .versions import FIRST_CANONICAL, HEAD

if TYPE_CHECKING:
    import pandas as pd


def plot_margin_rules(ax: Any) -> None:
    """A winner's fraction and its pseudo-wins against its plus margin, under each scoring version."""
    margins = np.arange(0, MAX_POSSIBLE_DIFF + 6)
    x = np.minimum(margins / MAX_POSSIBLE_DIFF, 1.0)
    for version, values, colour in (
        (FIRST_CANONICAL, [0.5 + blend_sigmoid(v) / 2 for v in x], "tab:blue"),
        (HEAD, [0.5 + v / 2 for v in x], "tab:orange"),
    ):
        values = [0.5 if m == 0 else f for m, f in zip(margins, values)]
        ax.plot(margins, values, color=colour, label=f"{version.name}: fraction")
        wins = [pseudo_wins(f, version.bin_size)[0] if m else 0 for m, f in zip(margins, values)]
        ax.step(margins, 0.5 + np.asarray(wins) / (2 * version.bin_size), where="mid", color=colour, ls=":",
                label=f"{version.name}: pseudo-wins / {version.bin_size} (bin size)")  # fmt: skip
    ax.set_xlabel("plus margin of the winner (both orders summed; 30 and over count as 30)")
    ax.set_ylabel("win fraction (0.5 + blend/2)")
    ax.set_title("From plus counts to a win fraction and pseudo-wins")
    ax.legend(fontsize=7, loc="lower right")


def plot_order_spread(ax: Any, spreads: Sequence[Any]) -> None:
    """Per model (best published first): the range of its normalised rating over re-solves in shuffled orders, one
    bar per solve (``spreads``: :class:`.study.OrderSpread`, e.g. with and without the rank window), the published
    rating and the windowed re-solve in the file's order. The legend sits under the axes, where it hides no row."""
    first = spreads[0].table
    y = np.arange(len(first))
    place = {m: i for i, m in enumerate(first["model"])}
    colours = ("tab:grey", "tab:green", "tab:purple")
    for k, (spread, colour) in enumerate(zip(spreads, colours)):
        t = spread.table
        yy = np.array([place[m] for m in t["model"]]) + (k - (len(spreads) - 1) / 2) * 0.3
        ax.hlines(yy, t["lowest"], t["highest"], color=colour, lw=3, alpha=0.7,
                  label=f"{spread.solve}: range over {spread.shuffles} shuffled orders")  # fmt: skip
    ax.plot(first["published"], y, "o", color="tab:blue", ms=4, label="published")
    ax.plot(first["file_order"], y, "x", color="tab:red", ms=4, label=f"{spreads[0].solve}: the file's order")
    ax.set_yticks(y, [short_name(m, 32) for m in first["model"]], fontsize=7)
    ax.set_ylim(len(first) - 0.5, -0.5)  # best at the top
    ax.set_xlabel("normalised rating (o3 = 1500, llama-3.2-1b = 200: both fixed)")
    ax.set_title("The same judgements, solved in other orders")
    # Under the axes: inside, the legend hid the gemma-2-9b and llama-3.2-1b rows (issue 36).
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=1, frameon=False)


NOTE_WIDTH = 62  # characters per line of a note in a figure


def correlation_note(corr: dict[str, Any]) -> str:
    """A correlation as a figure states it: Pearson r with its interval and method, Spearman, n. The method is the
    Pearson interval's: what ``interval_method`` says of the Spearman one (Bonett–Wright) is left out."""
    import re

    method = re.sub(r"\s*\(Bonett[^)]*\)", "", str(corr["interval_method"]))
    return (
        f"Pearson r = {corr['pearson']:.2f} ({corr['pearson_low']:.2f} to {corr['pearson_high']:.2f}, 95 %, "
        f"{method}); Spearman {corr['spearman']:.2f}; n = {corr['n']} models"
    )


def _note(ax: Any, text: str, loc: str = "upper left") -> None:
    """A boxed note in a corner of the axes, each paragraph wrapped at ``NOTE_WIDTH`` characters."""
    import textwrap

    text = "\n".join(textwrap.fill(p, NOTE_WIDTH) for p in text.split("\n"))
    x, ha = (0.02, "left") if loc.endswith("left") else (0.98, "right")
    y, va = (0.98, "top") if loc.startswith("upper") else (0.02, "bottom")
    ax.text(x, y, text, transform=ax.transAxes, ha=ha, va=va, fontsize=7, multialignment="left",
            bbox={"boxstyle": "round", "facecolor": "white", "edgecolor": "0.7", "alpha": 0.9})  # fmt: skip


def plot_position_effects(ax: Any, effects: pd.DataFrame, biases: dict[str, Any]) -> None:
    """The position effect of each pair judged in both orders (A0493's pluses minus A0488's, the mean of the two
    orders), one histogram per kind of task, each with its mean and interval (``biases``: kind -> PositionBias)."""
    values = effects["effect"].to_numpy(float)
    bins = np.arange(np.floor(values.min()) - 0.5, np.ceil(values.max()) + 1.5, 1.0)
    for (kind, group), colour in zip(effects.groupby("kind", sort=True), ("tab:orange", "tab:purple")):
        b = biases[kind]
        band = f"; band: {b.method}" if getattr(b, "method", "") else ""
        ax.hist(group["effect"], bins=bins, color=colour, alpha=0.5, label=f"{kind} ({len(group):,} pairs{band})")
        ax.axvline(b.effect, color=colour, lw=1.5)
        ax.axvspan(b.low, b.high, color=colour, alpha=0.15)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel("position effect (pluses to A0493 minus pluses to A0488, mean of the two orders)")
    ax.set_ylabel("pairs")
    ax.set_title("The same pair in both orders (lines: means; bands: 95 % intervals)")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), frameon=False)  # under the axes


def _mark_anchors(ax: Any, x: Any, y: Any, models: Any, loc: str) -> None:
    """Open squares over the anchors of the normalisation (their Elo is fixed by definition), with a legend
    (``loc="below"``: under the axes, where it covers no point)."""
    from .study import ANCHOR_TARGETS

    anchor = np.array([m in ANCHOR_TARGETS for m in models], dtype=bool)
    if anchor.any():
        ax.scatter(np.asarray(x)[anchor], np.asarray(y)[anchor], marker="s", facecolors="none", edgecolors="black",
                   s=70, label="anchor: Elo fixed by the normalisation (o3 1500, llama-3.2-1b 200)")  # fmt: skip
        if loc == "below":
            ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), frameon=False)
        else:
            ax.legend(fontsize=7, loc=loc)


def plot_rubric_vs_elo(
    ax: Any, board: pd.DataFrame, corr: dict[str, Any], label: Sequence[str] = (), note: str = ""
) -> None:
    """The site's rubric score against its normalised Elo, one point per model, the named ones labelled, the anchors
    marked, with the correlation (:func:`correlation_note`) and ``note`` (what the reader must know, e.g. one judge
    made both) in a box."""
    ax.scatter(board["rubric_0_100"], board["elo_norm"], s=14, color="tab:green")
    _mark_anchors(ax, board["rubric_0_100"], board["elo_norm"], board["model"], "lower right")
    chosen = board[board["model"].isin(list(label))]
    label_points(ax, chosen["rubric_0_100"], chosen["elo_norm"], [short_name(m, 28) for m in chosen["model"]])
    _note(ax, "\n".join(filter(None, [correlation_note(corr), note])))
    ax.set_xlabel("rubric score (0-100)")
    ax.set_ylabel("Elo (normalised)")
    ax.set_title(f"EQ-Bench 3 site: rubric against Elo ({len(board)} models)")


def plot_v2_v3(ax: Any, joined: pd.DataFrame, corr: dict[str, Any], note: str = "") -> None:
    """EQ-Bench v2 score against EQ-Bench 3 Elo for the models on both boards, the anchors of the v3 normalisation
    marked, with the correlation (:func:`correlation_note`) and ``note`` (e.g. r without the anchor) in a box."""
    ax.scatter(joined["v2_score"], joined["elo_norm"], color="tab:brown")
    _mark_anchors(ax, joined["v2_score"], joined["elo_norm"], joined["eqbench3_model"], "below")
    label_points(ax, joined["v2_score"], joined["elo_norm"], [short_name(m, 28) for m in joined["eqbench3_model"]])
    _note(ax, "\n".join(filter(None, [correlation_note(corr), note])), loc="lower right")
    ax.set_xlabel("EQ-Bench v2 score")
    ax.set_ylabel("EQ-Bench 3 Elo (normalised)")
    ax.set_title(f"v2 against v3: the {len(joined)} models on both boards")


def plot_lost(ax: Any, lost: pd.DataFrame) -> None:
    """The judgements lost, by what went wrong, split by order."""
    kinds = list(dict.fromkeys(lost["kind"]))
    y = np.arange(len(kinds))
    left = np.zeros(len(kinds))
    for order, colour in (("forward", "tab:blue"), ("reversed", "tab:orange")):
        n = np.array([lost[(lost["kind"] == k) & (lost["order"] == order)]["judgements"].sum() for k in kinds])
        ax.barh(y, n, left=left, color=colour, label=f"{order} order")
        left += n
    ax.set_yticks(y, kinds, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("judgements")
    ax.set_title(f"Judgements recorded as errors ({int(lost['judgements'].sum())})")
    ax.legend(fontsize=7)
