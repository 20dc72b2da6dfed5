"""Shared pieces of the plots: palettes, short model names, point labels, robust axis limits.

Each function draws on a given ``ax`` and returns it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]


def plain_text(text: object) -> str:
    """A label from a run file (a model name, a run id) drawn as the text it is: redacted, control characters
    shown, and every ``$`` escaped so matplotlib never reads ``$…$`` as TeX (a name is not mathematics)."""
    from ..runner.redact import clip

    return clip(text, 200).replace("$", r"\$")


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


#: Okabe–Ito colours: distinguishable with the common colour-vision deficiencies (no red/green pairs).
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]


MARKERS = ["o", "s", "^", "D", "v", "P", "X"]


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


#: Colour-blind-safe pair (blue / orange) and a third (purple) for the issue-12 plots.
BLUE, ORANGE, PURPLE, GREY = "#0072B2", "#E69F00", "#7B3294", "#777777"


def label_square_matrix(ax, k: int, labels: Sequence[str] | None, fontsize: float, xlabel: str) -> None:
    """Axes of a k x k run-by-run matrix: rows named by ``labels`` (with their position) or unlabelled,
    columns numbered by position every 5 (every 10 past 60 runs)."""
    if labels is not None:
        ax.set_yticks(range(k), [f"{short_name(s, 28)} {i + 1:>3}" for i, s in enumerate(labels)], fontsize=fontsize)
    else:
        ax.set_yticks([])
    step = 5 if k <= 60 else 10
    ax.set_xticks(range(step - 1, k, step), [str(i) for i in range(step, k + 1, step)], fontsize=7)
    ax.set_xlabel(xlabel)
