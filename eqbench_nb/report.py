"""Where notebooks put what they produce: figures under ``figures/`` and headline numbers.

Each notebook calls :func:`save_figure` for every figure (PNG, stable names) and
:func:`record_headline` for each number it reproduces; ``python -m eqbench_nb reproduce``
gathers the headlines into ``figures/SUMMARY.md`` with :func:`write_summary`.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from .paths import figures_dir

__all__ = ["figures_dir", "record_headline", "save_figure", "show_markdown", "write_summary"]


def show_markdown(text: str) -> None:
    """Show generated prose in a notebook: an f-string over computed values, rendered as Markdown.

    Notebook prose that states a number or a conclusion is built this way, never typed into a
    markdown cell, so the text changes when the data do.
    """
    from IPython.display import Markdown, display

    display(Markdown(text))


def save_figure(fig: Any, name: str) -> Path:
    """Save a matplotlib figure as ``figures/<name>.png``; refuse an empty figure."""
    if not fig.axes or not any(ax.has_data() or ax.images or ax.texts for ax in fig.axes):
        raise ValueError(f"figure {name!r} has nothing drawn on it")
    path = figures_dir() / f"{name}.png"
    fig.savefig(path, dpi=110, bbox_inches="tight")
    return path


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
    value: float | str,
    interval: tuple[float, float] | None = None,
    n: int | None = None,
    *,
    key: str | None = None,
    method: str | None = None,
    n_unit: str | None = None,
) -> dict[str, Any]:
    """Record one reproduced number for ``figures/SUMMARY.md``.

    ``claim`` says what the number is, ``source`` the data it comes from, ``interval`` its 95 %
    interval with ``method`` saying how it was computed and what it resamples, ``n`` the sample size
    with ``n_unit`` saying what it counts (runs, models, questions, …). ``key`` is a stable identifier
    for scripts (default: made from the claim). Re-recording the same key replaces the earlier entry,
    so re-running a notebook never duplicates rows.
    """
    row = {
        "key": key or _slug(claim),
        "notebook": notebook,
        "claim": claim,
        "source": source,
        "value": _clean(value),
        "interval": [_clean(float(interval[0])), _clean(float(interval[1]))] if interval is not None else None,
        "method": method,
        "n": int(n) if n is not None else None,
        "n_unit": n_unit,
    }
    path = _headline_file(notebook)
    rows = json.loads(path.read_text()) if path.exists() else []
    rows = [r for r in rows if r.get("key", _slug(r["claim"])) != row["key"]] + [row]
    path.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
    return row


def _fmt(x: Any) -> str:
    if x is None:
        return ""
    if isinstance(x, float):
        return f"{x:.3g}" if abs(x) < 10 else f"{x:.2f}"
    return str(x)


def write_summary() -> Path:
    """Gather every notebook's headlines into ``figures/SUMMARY.md``, in notebook order."""
    files = sorted((figures_dir() / "headlines").glob("*.json"))  # named after the numbered notebooks
    lines = [
        "# Headline numbers",
        "",
        "Written by `eqbench-nb reproduce` from the notebooks' computed values. Each interval is 95 %, computed as its",
        "row says; n counts what its row says.",
        "",
        "| notebook | key | claim | source | value | 95 % interval (method) | n |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in files:
        for r in json.loads(f.read_text()):
            iv = r.get("interval")
            iv_s = f"{_fmt(iv[0])} – {_fmt(iv[1])}" if iv else ""
            if iv and r.get("method"):
                iv_s += f" ({r['method']})"
            n_s = _fmt(r.get("n")) + (f" {r['n_unit']}" if r.get("n_unit") and r.get("n") is not None else "")
            key = r.get("key", _slug(r["claim"]))
            lines.append(
                f"| {r['notebook']} | `{key}` | {r['claim']} | {r['source']} | {_fmt(r['value'])} | {iv_s} | {n_s} |"
            )
    path = figures_dir() / "SUMMARY.md"
    path.write_text("\n".join(lines) + "\n")
    return path
