"""Where notebooks put what they produce: figures under ``figures/`` and headline numbers.

Each notebook calls :func:`save_figure` (or :func:`show_figure`, which also shows the saved PNG) for every
figure (PNG, stable names) and :func:`record_headline` for each number it reproduces;
``python -m eqbench_nb reproduce`` gathers the headlines into ``figures/SUMMARY.md`` with :func:`write_summary`.

A number travels with what qualifies it: the caveats its notebook states (``caveats=`` of
:func:`record_headline` and of :func:`save_figure`, printed in SUMMARY.md's and README's rows and drawn under the
figure) and, for a number that comes out of a simulation, its Monte-Carlo error (:class:`MonteCarlo`): such a
value is recorded only to the digits that the error leaves stable (:func:`stable_round`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .paths import checkout_root, figures_dir

__all__ = [
    "README_HEADLINES",
    "MonteCarlo",
    "figures_dir",
    "record_headline",
    "render_readme_headlines",
    "save_figure",
    "show_figure",
    "show_markdown",
    "stable_decimals",
    "stable_round",
    "write_readme_headlines",
    "write_summary",
]

#: The headline rows README.md shows, as (notebook, key): the one place they are chosen. A landing page's few (the
#: range of the published runs, how many pairs they separate, the paper's headline correlation); every row is in
#: figures/SUMMARY.md. :func:`write_summary`
#: rewrites the README block between :data:`README_START` and :data:`README_END` from them, so the README's numbers
#: are the notebooks' numbers.
README_HEADLINES: tuple[tuple[str, str], ...] = (
    ("02_discrimination", "v2_runs_lowest"),
    ("02_discrimination", "v2_runs_highest"),
    ("02_discrimination", "pairs_separated_share"),
    ("04_correlation", "v1_mmlu_r"),
    ("04_correlation", "v2_mmlu_r"),
)
README_START = "<!-- headlines:start -->"
README_END = "<!-- headlines:end -->"


def show_markdown(text: str) -> None:
    """Show generated prose in a notebook: an f-string over computed values, rendered as Markdown.

    Notebook prose that states a number or a conclusion is built this way, never typed into a
    markdown cell, so the text changes when the data do.
    """
    from IPython.display import Markdown, display

    display(Markdown(text))


CAPTION_WIDTH = 150  # characters per caption line under a figure


def add_caption(fig: Any, caveats: Sequence[str], fontsize: float = 7.5) -> Any:
    """Write ``caveats`` under the figure, one wrapped paragraph each ("Caveat: …"), so the PNG carries what its
    notebook says about it when it is shown without the notebook. Returns the text artist (None without caveats)."""
    import textwrap

    if not caveats:
        return None
    width = max(60, int(CAPTION_WIDTH * fig.get_figwidth() / 14))
    lines = []
    for c in caveats:
        lines.extend(textwrap.wrap(f"Caveat: {c}", width))
    box = fig.get_tightbbox(fig.canvas.get_renderer())  # inches: the caption goes right under what is drawn
    x = max(box.x0 / fig.get_figwidth(), 0.0)
    y = box.y0 / fig.get_figheight() - 0.1 / fig.get_figheight()
    return fig.text(x, y, "\n".join(lines), ha="left", va="top", fontsize=fontsize, color="0.2")


class FigureOverlapError(ValueError):
    """A legend or a boxed text of a figure covers a data point or a label: the reader cannot see what it hides."""


def _boxes(ax: Any, renderer: Any) -> list[tuple[str, Any]]:
    """The opaque boxes drawn over an axes: its legend, boxed texts, anchored text boxes."""
    from matplotlib.offsetbox import AnchoredOffsetbox

    boxes = []
    legend = ax.get_legend()
    if legend is not None and legend.get_visible() and legend.get_frame_on():
        boxes.append(("legend", legend.get_window_extent(renderer)))
    for t in ax.texts:
        if t.get_visible() and t.get_text().strip() and t.get_bbox_patch() is not None:
            boxes.append((f"text box {t.get_text()[:30]!r}", t.get_bbox_patch().get_window_extent(renderer)))
    for a in ax.artists:
        if isinstance(a, AnchoredOffsetbox) and a.get_visible():
            boxes.append(("anchored box", a.get_window_extent(renderer)))
    return boxes


def _marks(ax: Any, renderer: Any) -> list[tuple[str, Any]]:
    """What a box must not hide: each data point (scatter offsets, line markers, error-bar ends) as a display
    point, and each unboxed text label (its extent), within the axes."""
    import numpy as np
    from matplotlib.collections import LineCollection, PathCollection

    points: list[Any] = []
    for c in ax.collections:
        if not c.get_visible():
            continue
        offsets = np.asarray(c.get_offsets(), dtype=float)
        if isinstance(c, PathCollection) and len(offsets):
            points.extend(c.get_offset_transform().transform(offsets))
        elif isinstance(c, LineCollection):
            for seg in c.get_segments():
                if len(seg):
                    points.extend(c.get_transform().transform(np.asarray(seg, dtype=float)[[0, -1]]))
    for line in ax.lines:
        if line.get_visible() and line.get_marker() not in (None, "None", "", " ", ","):
            xy = np.column_stack([np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)])
            points.extend(line.get_transform().transform(xy))
    inside = ax.get_window_extent(renderer)
    marks: list[tuple[str, Any]] = [
        ("data point", p)
        for p in points
        if np.all(np.isfinite(p)) and inside.x0 <= p[0] <= inside.x1 and inside.y0 <= p[1] <= inside.y1
    ]
    for t in ax.texts:
        if t.get_visible() and t.get_text().strip() and t.get_bbox_patch() is None:
            marks.append((f"label {t.get_text()[:30]!r}", t.get_window_extent(renderer)))
    return marks


def covered_marks(fig: Any) -> list[str]:
    """Each data point or label of ``fig`` that a legend or a boxed text covers, described in words (empty when
    nothing is hidden). A point counts when its centre lies inside the box; a label, when the two extents
    overlap by more than a fifth of the label's area."""
    import numpy as np

    # the layout and every artist's extent, without rasterising: savefig rasterises the figure once afterwards
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    found = []
    for i, ax in enumerate(fig.axes):
        boxes = _boxes(ax, renderer)
        if not boxes:
            continue
        title = ax.get_title() or f"axes {i}"
        for box_name, box in boxes:
            for mark_name, mark in _marks(ax, renderer):
                if isinstance(mark, np.ndarray):
                    hit = box.x0 < mark[0] < box.x1 and box.y0 < mark[1] < box.y1
                else:
                    w = max(0.0, min(box.x1, mark.x1) - max(box.x0, mark.x0))
                    h = max(0.0, min(box.y1, mark.y1) - max(box.y0, mark.y0))
                    hit = w * h > 0.2 * max(mark.width * mark.height, 1e-9)
                if hit:
                    found.append(f"{title!r}: the {box_name} covers a {mark_name}")
    return found


def save_figure(fig: Any, name: str, caveats: Sequence[str] = ()) -> Path:
    """Save a matplotlib figure as ``figures/<name>.png``, with ``caveats`` written under it
    (:func:`add_caption`); refuse an empty figure, and one whose legend or boxed text covers a data point or a
    label (:func:`covered_marks`, ``FigureOverlapError``)."""
    if not fig.axes or not any(ax.has_data() or ax.images or ax.texts for ax in fig.axes):
        raise ValueError(f"figure {name!r} has nothing drawn on it")
    if hidden := covered_marks(fig):
        raise FigureOverlapError(
            f"figure {name!r}: {len(hidden)} mark(s) hidden, e.g. " + "; ".join(sorted(set(hidden))[:3])
        )
    add_caption(fig, caveats)
    path = figures_dir() / f"{name}.png"
    fig.savefig(path, dpi=110, bbox_inches="tight")
    return path


def show_figure(fig: Any, name: str, caveats: Sequence[str] = ()) -> None:
    """Save ``fig`` with :func:`save_figure`, close it, and show the saved PNG in the notebook: what the reader
    sees is the file under ``figures/``. Returns nothing, so a cell ending with it shows no machine-specific path."""
    import matplotlib.pyplot as plt
    from IPython.display import Image, display

    path = save_figure(fig, name, caveats)
    plt.close(fig)
    display(Image(filename=str(path)))


@dataclass(frozen=True)
class MonteCarlo:
    """The Monte-Carlo error of a simulated number: ``repeats`` independent repeats (or batches) of the
    simulation, the standard error ``se`` of the value they give, and the ``low`` – ``high`` spread of single
    repeats (what one repeat alone could have shown). ``what`` names a repeat ("repeats", "batches")."""

    repeats: int
    se: float
    low: float
    high: float
    what: str = "repeats"
    # what is simulated: "value"; "interval" (its bounds; the value is then exact); or "range" (a lowest – highest
    # value, both ends simulated; ``se`` is the larger of the two ends' errors)
    of: str = "value"

    @classmethod
    def from_repeats(cls, values: Sequence[float], what: str = "repeats") -> MonteCarlo:
        """From one value per independent repeat: the mean's standard error sd / sqrt(R) and their range."""
        import numpy as np

        v = np.asarray(values, dtype=float)
        v = v[np.isfinite(v)]
        if len(v) < 2:
            raise ValueError("a Monte-Carlo error needs at least 2 repeats")
        return cls(len(v), float(v.std(ddof=1) / np.sqrt(len(v))), float(v.min()), float(v.max()), what)

    @classmethod
    def from_batches(
        cls, values: Sequence[float], statistic: Any, batches: int = 10, of: str = "interval"
    ) -> MonteCarlo:
        """For a statistic of many simulated draws (a percentile, say): split the draws into ``batches`` equal
        batches, compute the statistic in each, and take sd / sqrt(batches) as the standard error of the statistic
        on all draws (batch means; the batch values' range is the spread). Only for a statistic that a batch
        estimates without bias (a mean, a median): a percentile end of 40 draws sits elsewhere than that of 200, so
        :func:`record_headline` refuses a batch error for a tail statistic (use :meth:`from_seeds`)."""
        import numpy as np

        v = np.asarray(values, dtype=float)
        per = np.array([float(statistic(b)) for b in np.array_split(v, batches)])
        return cls(
            batches, float(per.std(ddof=1) / np.sqrt(batches)), float(per.min()), float(per.max()), "batches", of
        )

    @classmethod
    def from_batches_range(
        cls, values: Sequence[float], low: Any = min, high: Any = max, batches: int = 10
    ) -> MonteCarlo:
        """For a range of many simulated draws (lowest – highest, or two percentiles): :meth:`from_batches` of each
        end, ``se`` the larger of the two ends' errors, and the spread the lowest ``low`` and the highest ``high``
        that a single batch gave."""
        lo = cls.from_batches(values, low, batches, of="range")
        hi = cls.from_batches(values, high, batches, of="range")
        return cls(batches, max(lo.se, hi.se), lo.low, hi.high, "batches", "range")

    @classmethod
    def from_seeds(cls, values: Sequence[float], of: str = "value") -> MonteCarlo:
        """From one value per independent full-size replicate (the whole simulation run again under another seed):
        the mean's standard error sd / sqrt(R) and the replicates' range. The only error :func:`record_headline`
        accepts for a tail statistic (a percentile end, a separability, a 5th – 95th range): a batch of a fraction
        of the draws puts its tail elsewhere than all draws do, so batches neither centre on the full value nor
        spread like it."""
        mc = cls.from_repeats(values, "seeds")
        return cls(mc.repeats, mc.se, mc.low, mc.high, "seeds", of)

    @property
    def from_batches_of_draws(self) -> bool:
        """Whether the error comes from batches of one simulation's draws (:meth:`from_batches`)."""
        return self.what == "batches"

    @classmethod
    def from_share(cls, share: float, draws: int, what: str = "simulated data sets") -> MonteCarlo:
        """For a share (a simulated power or rate) over ``draws`` independent draws: the binomial standard error
        sqrt(p (1 - p) / draws); a single draw is 0 or 1, so no spread is given."""
        import numpy as np

        return cls(int(draws), float(np.sqrt(share * (1.0 - share) / draws)), math.nan, math.nan, what)

    @property
    def decimals(self) -> int:
        return stable_decimals(self.se)

    def text(self) -> str:
        d = max(self.decimals, 0) + 1
        spread = (
            f"; single {self.what} {self.low:.{d}f} – {self.high:.{d}f}"
            if self.low is not None and self.high is not None and math.isfinite(self.low) and math.isfinite(self.high)
            else ""
        )
        of = "" if self.of == "value" else f" of the {self.of}"
        return (
            f"Monte-Carlo error{of}: {self.repeats} {self.what}, SE {self.se:.2g}{spread}; shown to the digits that "
            "±2 SE leaves stable"
        )


def stable_decimals(se: float, k: float = 2.0) -> int:
    """How many decimals of a simulated value are stable: the most for which ``k`` Monte-Carlo standard errors
    fit in one unit of the last digit shown (``k · se <= 10**-d``). Negative when not even the units are."""
    if not (se > 0 and math.isfinite(se)):
        return 6
    return math.floor(-math.log10(k * se))


def stable_round(value: float, se: float, k: float = 2.0) -> float:
    """``value`` rounded to the digits that its Monte-Carlo error ``se`` leaves stable (:func:`stable_decimals`)."""
    return round(float(value), stable_decimals(se, k))


def _headline_file(notebook: str) -> Path:
    d = figures_dir() / "headlines"
    d.mkdir(exist_ok=True)
    return d / f"{notebook}.json"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:60]


def _clean(x: Any) -> Any:
    """None for NaN/inf; floats to 6 significant digits, so the last-digit noise of another BLAS or NumPy
    build does not rewrite the file."""
    if isinstance(x, float):
        return float(f"{x:.6g}") if math.isfinite(x) else None
    return x


def record_headline(
    notebook: str,
    claim: str,
    source: str,
    value: float | str | tuple[float, float],
    interval: tuple[float, float] | None = None,
    n: int | None = None,
    *,
    key: str | None = None,
    method: str | None = None,
    n_unit: str | None = None,
    caveats: Sequence[str] = (),
    simulated: bool = False,
    mc: MonteCarlo | None = None,
    tail: bool = False,
    selected_from: int | None = None,
    family: Mapping[str, float] | None = None,
    selection_adjusted: bool = False,
) -> dict[str, Any]:
    """Record one reproduced number for ``figures/SUMMARY.md``.

    ``claim`` says what the number is, ``source`` the data it comes from (the true source: a value read from a
    committed table is sourced as that table's source column says, not as the paper), ``interval`` its 95 %
    interval with ``method`` saying how it was computed and what it resamples, ``n`` the sample size
    with ``n_unit`` saying what it counts (runs, models, questions, …). An interval without a
    ``method``, or an ``n`` without an ``n_unit``, is refused (``ValueError``): a reader cannot judge
    either without it. A range (lowest – highest) is a value, not an interval: a ``(lowest, highest)`` pair of
    numbers (kept as numbers in the row's ``range``), or a string.
    ``caveats`` are the qualifications the notebook states beside the number (SUMMARY.md and the README print
    them in the row). ``simulated=True`` marks a number that a simulation drew (synthetic data, shuffles,
    resampled repeats): it must come with ``mc``, its Monte-Carlo error, and ``mc`` alone marks the row simulated.
    The simulated numbers (the value, the interval's bounds, or a range's two ends, as ``mc.of`` says) must be
    given to the digits that error leaves stable (:func:`stable_round`), else ``ValueError``; the error is printed
    with them.
    ``tail=True`` marks a number that depends on the tail of a resample distribution (a percentile end, a
    separability, a 5th – 95th range); so does an ``mc`` of an interval's bounds or a range's ends. Its Monte-Carlo
    error must come from independent full-size replicates (:meth:`MonteCarlo.from_seeds`): one from batches of one
    simulation's draws (:meth:`MonteCarlo.from_batches`) is refused (``ValueError``), and without ``mc`` the row
    says that the error was not estimated.
    ``selected_from=N`` marks a number chosen among N after looking (the largest of N correlations, say). Such a
    row carries all N (``family``: label to value, N entries) or a selection-adjusted interval
    (``selection_adjusted=True`` with ``interval``), else it is not a headline (``ValueError``).
    ``key`` is a stable identifier for scripts (default: made from the claim). Re-recording the same
    key replaces the earlier entry, so re-running a notebook never duplicates rows.
    """
    if interval is not None and not method:
        raise ValueError(f"headline {claim!r}: an interval needs `method` (how it was computed, what it resamples)")
    if n is not None and not n_unit:
        raise ValueError(f"headline {claim!r}: an n needs `n_unit` (what n counts: runs, models, questions, ...)")
    if isinstance(caveats, str):
        raise ValueError(f"headline {claim!r}: `caveats` is a list of sentences, not one string")
    if simulated and mc is None:
        raise ValueError(
            f"headline {claim!r}: a simulated number needs its Monte-Carlo error (mc=MonteCarlo.from_repeats(...), "
            "from_batches, from_batches_range or from_share)"
        )
    span = _range_of(claim, value)
    if mc is not None:
        _check_tail_error(claim, mc, tail)
        _check_stable_digits(claim, mc, value, interval, span)
    picked = _check_selection(claim, selected_from, family, selection_adjusted, interval)
    row = {
        "key": key or _slug(claim),
        "notebook": notebook,
        "claim": claim,
        "source": source,
        "value": _range_text(span, mc) if span is not None else _clean(value),
        "interval": [_clean(float(interval[0])), _clean(float(interval[1]))] if interval is not None else None,
        "method": method,
        "n": int(n) if n is not None else None,
        "n_unit": n_unit,
    }
    if span is not None:
        row["range"] = [_clean(span[0]), _clean(span[1])]
    caveats = list(caveats)
    if tail and mc is None:
        caveats.append("a tail statistic of a resample distribution; its Monte-Carlo error was not estimated")
    if picked is not None:
        row["selected_from"] = int(picked["n"])
        if picked["family"] is not None:
            row["family"] = picked["family"]
        caveats.append(picked["caveat"])
    if caveats:
        row["caveats"] = [str(c) for c in caveats]
    if mc is not None:
        row["simulated"] = True
        row["mc"] = {k: _clean(v) for k, v in asdict(mc).items()}
    path = _headline_file(notebook)
    rows = json.loads(path.read_text()) if path.exists() else []
    rows = [r for r in rows if r.get("key", _slug(r["claim"])) != row["key"]] + [row]
    path.write_text(json.dumps(rows, indent=1, ensure_ascii=False, allow_nan=False) + "\n")
    return row


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _range_of(claim: str, value: Any) -> tuple[float, float] | None:
    """A ``(lowest, highest)`` value as two floats; None for a single value or a range given as text."""
    if not isinstance(value, (tuple, list)):
        return None
    if len(value) != 2 or not all(_is_number(v) and math.isfinite(v) for v in value) or value[0] > value[1]:
        raise ValueError(f"headline {claim!r}: a range is (lowest, highest), two finite numbers in order")
    return float(value[0]), float(value[1])


def _range_text(span: tuple[float, float], mc: MonteCarlo | None) -> str:
    if mc is not None and mc.of == "range":
        d = max(stable_decimals(mc.se), 0)
        return f"{span[0]:.{d}f} – {span[1]:.{d}f}"
    return f"{_fmt(_clean(span[0]))} – {_fmt(_clean(span[1]))}"


def _check_tail_error(claim: str, mc: MonteCarlo, tail: bool) -> None:
    """A tail statistic's Monte-Carlo error comes from independent full-size replicates, not from batches."""
    if mc.from_batches_of_draws and (tail or mc.of in ("interval", "range")):
        what = "a tail statistic" if tail else f"the {mc.of} of a resample distribution"
        raise ValueError(
            f"headline {claim!r}: {what} needs its Monte-Carlo error from independent full-size replicates "
            "(MonteCarlo.from_seeds), not from batches of one simulation's draws (a batch's tail sits elsewhere than "
            "the tail of all draws); or record it without mc, which says that the error was not estimated"
        )


def _check_selection(
    claim: str,
    selected_from: int | None,
    family: Mapping[str, float] | None,
    selection_adjusted: bool,
    interval: tuple[float, float] | None,
) -> dict[str, Any] | None:
    """A number chosen among N after looking carries all N, or a selection-adjusted interval."""
    if selected_from is None:
        if family is not None or selection_adjusted:
            raise ValueError(f"headline {claim!r}: `family` and `selection_adjusted` go with `selected_from=N`")
        return None
    if isinstance(selected_from, bool) or not isinstance(selected_from, int) or selected_from < 2:
        raise ValueError(f"headline {claim!r}: selected_from is how many numbers it was chosen among (2 or more)")
    if family is not None:
        if len(family) != selected_from:
            raise ValueError(
                f"headline {claim!r}: chosen among {selected_from}, but `family` carries {len(family)} of them"
            )
        values = {str(k): _clean(float(v)) for k, v in family.items()}
        shown = "; ".join(f"{k} {_fmt(v)}" for k, v in values.items())
        return {"n": selected_from, "family": values, "caveat": f"chosen after looking, among {selected_from}: {shown}"}
    if selection_adjusted and interval is not None:
        return {
            "n": selected_from,
            "family": None,
            "caveat": f"chosen after looking, among {selected_from}; its interval is adjusted for the choice",
        }
    raise ValueError(
        f"headline {claim!r}: a number chosen among {selected_from} after looking is not a headline alone: give all "
        f"{selected_from} (family=) or a selection-adjusted interval (interval=, selection_adjusted=True)"
    )


def _check_stable_digits(
    claim: str, mc: MonteCarlo, value: Any, interval: tuple[float, float] | None, span: tuple[float, float] | None
) -> None:
    """The simulated numbers of a headline (``mc.of``: its value, its interval's bounds or its range's ends) are
    numbers, shown to no digit beyond what their Monte-Carlo error leaves stable."""
    simulated = {"value": [value] if span is None else [], "interval": list(interval or []), "range": list(span or [])}
    if mc.of not in simulated:
        raise ValueError(f"headline {claim!r}: MonteCarlo.of is 'value', 'interval' or 'range', not {mc.of!r}")
    shown = simulated[mc.of]
    if not shown or not all(_is_number(v) for v in shown):
        raise ValueError(f"headline {claim!r}: a Monte-Carlo error goes with a number (its {mc.of})")
    for v in shown:
        if float(v) != stable_round(float(v), mc.se):
            raise ValueError(
                f"headline {claim!r}: {v} shows more digits than its Monte-Carlo error (SE {mc.se:.2g} over "
                f"{mc.repeats} {mc.what}) leaves stable; record stable_round(x, se) = {stable_round(v, mc.se)}"
            )


def _fmt(x: Any) -> str:
    if x is None:
        return ""
    if isinstance(x, float):
        return f"{x:.3g}" if abs(x) < 10 else f"{x:.2f}"
    return str(x)


def _value_cell(r: dict[str, Any]) -> str:
    """The value; a simulated one to exactly its stable digits."""
    mc = r.get("mc")
    if mc and mc.get("of", "value") == "value" and isinstance(r.get("value"), (int, float)):
        return f"{r['value']:.{max(stable_decimals(mc['se']), 0)}f}"
    return _fmt(r.get("value"))


def _caveat_cell(r: dict[str, Any]) -> str:
    """The row's caveats and, for a simulated value, its Monte-Carlo error."""
    parts = list(r.get("caveats") or [])
    if r.get("mc"):
        parts.append(MonteCarlo(**r["mc"]).text())
    return " ".join(p if p.endswith(".") else p + "." for p in parts).replace("|", "/")


def _interval_cell(r: dict[str, Any]) -> str:
    iv = r.get("interval")
    if not iv:
        return ""
    mc = r.get("mc")
    if mc and mc.get("of") == "interval":  # simulated bounds: exactly their stable digits
        d = max(stable_decimals(mc["se"]), 0)
        bounds = f"{iv[0]:.{d}f} – {iv[1]:.{d}f}"
    else:
        bounds = f"{_fmt(iv[0])} – {_fmt(iv[1])}"
    return bounds + (f" ({r['method']})" if r.get("method") else " (method not stated)")


def _n_cell(r: dict[str, Any]) -> str:
    if r.get("n") is None:
        return ""
    return _fmt(r["n"]) + (f" {r['n_unit']}" if r.get("n_unit") else " (unit not stated)")


def _headline_rows() -> list[dict[str, Any]]:
    files = sorted((figures_dir() / "headlines").glob("*.json"))  # named after the numbered notebooks
    return [{**r, "key": r.get("key", _slug(r["claim"]))} for f in files for r in json.loads(f.read_text())]


def write_summary() -> Path:
    """Gather every notebook's headlines into ``figures/SUMMARY.md``, in notebook order, and rewrite the
    README's headline block (:func:`write_readme_headlines`)."""
    lines = [
        "# Headline numbers",
        "",
        "Written by `eqbench-nb reproduce` from the notebooks' computed values. Each interval is 95 %, computed as its",
        "row says; n counts what its row says; a range (lowest – highest) is a value, not an interval. The last column",
        "carries the caveats each notebook states beside its number and, for a simulated value, its Monte-Carlo error.",
        "",
        "| notebook | key | claim | source | value | 95 % interval (method) | n | caveats |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in _headline_rows():
        lines.append(
            f"| {r['notebook']} | `{r['key']}` | {r['claim']} | {r['source']} | {_value_cell(r)} | "
            f"{_interval_cell(r)} | {_n_cell(r)} | {_caveat_cell(r)} |"
        )
    path = figures_dir() / "SUMMARY.md"
    path.write_text("\n".join(lines) + "\n")
    write_readme_headlines()
    return path


def render_readme_headlines(keys: tuple[tuple[str, str], ...] | None = None) -> str:
    """The README's headline table, built from the recorded headlines named by ``keys`` (default
    :data:`README_HEADLINES`), in that order.

    Raises ``KeyError`` naming any (notebook, key) that no notebook recorded.
    """
    keys = README_HEADLINES if keys is None else keys
    rows = {(r["notebook"], r["key"]): r for r in _headline_rows()}
    missing = [k for k in keys if k not in rows]
    if missing:
        raise KeyError(f"README headlines not recorded by any notebook: {missing} (see report.README_HEADLINES)")
    lines = [
        "| claim | source | value | 95 % interval (method) | n | caveats | notebook |",
        "|---|---|---|---|---|---|---|",
    ]
    for k in keys:
        r = rows[k]
        lines.append(
            f"| {r['claim']} | {r['source']} | {_value_cell(r)} | {_interval_cell(r)} | {_n_cell(r)} | "
            f"{_caveat_cell(r)} | `{r['notebook']}` |"
        )
    return "\n".join(lines)


def write_readme_headlines(readme: Path | None = None, keys: tuple[tuple[str, str], ...] | None = None) -> Path | None:
    """Rewrite the block of README.md between :data:`README_START` and :data:`README_END` with
    :func:`render_readme_headlines`. Returns the path, or None when there is no README with both
    markers (an installed package without its checkout), or when the figures folder is not the
    checkout's own."""
    if readme is None:
        root = checkout_root()
        if root is None or figures_dir().resolve() != (root / "figures").resolve():
            return None  # no checkout, or headlines from elsewhere (EQBENCH_NB_FIGURES): leave the README alone
        readme = root / "README.md"
    if not readme.is_file():
        return None
    text = readme.read_text(encoding="utf-8")
    start, end = text.find(README_START), text.find(README_END)
    if start < 0 or end < start:
        return None
    block = f"{README_START}\n{render_readme_headlines(keys)}\n{README_END}"
    new = text[:start] + block + text[end + len(README_END) :]
    if new != text:
        readme.write_text(new, encoding="utf-8")
    return readme
