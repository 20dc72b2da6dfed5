"""Where notebooks put what they produce: figures under ``figures/`` and headline numbers.

Each notebook calls :func:`save_figure` for every figure (PNG, stable names) and
:func:`record_headline` for each number it reproduces; ``python -m eqbench_nb reproduce``
gathers the headlines into ``figures/SUMMARY.md`` with :func:`write_summary`.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

from .data import PROJECT_ROOT


def figures_dir() -> Path:
    d = Path(os.environ.get("EQBENCH_NB_FIGURES") or PROJECT_ROOT / "figures")
    d.mkdir(parents=True, exist_ok=True)
    return d


def save_figure(fig, name: str) -> Path:
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


def record_headline(notebook: str, claim: str, source: str, value: float | str,
                    interval: tuple[float, float] | None = None, n: int | None = None) -> dict:
    """Record one reproduced number: the claim, where it comes from, our value, its 95 % interval, n.

    Re-recording the same (notebook, claim) replaces the earlier entry, so re-running a notebook
    never duplicates rows.
    """
    def clean(x):
        return None if isinstance(x, float) and not math.isfinite(x) else x
    row = {"notebook": notebook, "claim": claim, "source": source, "value": clean(value),
           "interval": [clean(float(interval[0])), clean(float(interval[1]))] if interval is not None else None,
           "n": int(n) if n is not None else None}
    path = _headline_file(notebook)
    rows = json.loads(path.read_text()) if path.exists() else []
    rows = [r for r in rows if r["claim"] != claim] + [row]
    path.write_text(json.dumps(rows, indent=1))
    return row


def _fmt(x) -> str:
    if x is None:
        return ""
    if isinstance(x, float):
        return f"{x:.3g}" if abs(x) < 10 else f"{x:.2f}"
    return str(x)


def write_summary() -> Path:
    """Gather every notebook's headlines into ``figures/SUMMARY.md``, in notebook order."""
    files = sorted((figures_dir() / "headlines").glob("*.json"))  # named after the numbered notebooks
    lines = ["# Headline numbers", "",
             "Written by `python -m eqbench_nb reproduce`. Interval: 95 % (bootstrap unless stated).", "",
             "| notebook | claim | source | value reproduced here | 95 % interval | n |",
             "|---|---|---|---|---|---|"]
    for f in files:
        for r in json.loads(f.read_text()):
            iv = r.get("interval")
            iv_s = f"{_fmt(iv[0])} – {_fmt(iv[1])}" if iv else ""
            lines.append(f"| {r['notebook']} | {r['claim']} | {r['source']} | {_fmt(r['value'])} | {iv_s} | {_fmt(r.get('n'))} |")
    path = figures_dir() / "SUMMARY.md"
    path.write_text("\n".join(lines) + "\n")
    return path
