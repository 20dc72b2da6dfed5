"""A DataFrame as the command line prints it: an aligned table, CSV, JSON, Markdown or LaTeX.

An undefined number (NaN: a score with no parseable answer behind it) is ``—`` in a table, in
Markdown and in LaTeX, an empty cell in CSV and ``null`` in JSON — never ``0`` and never ``NaN``
(which is not JSON).
"""

from __future__ import annotations

import io
import json
import math
from typing import Any

import pandas as pd

FORMATS = ("table", "csv", "json", "markdown", "latex")
UNDEFINED = "—"


def _is_undefined(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _plain(value: Any) -> Any:
    """A JSON-ready value: NaN and None to None, NumPy scalars to Python ones."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    return None if _is_undefined(value) else value


def cell(value: Any, digits: dict[str, int] | None = None, column: str = "") -> str:
    """One value as text: floats with the column's digits (2 by default), undefined as ``—``."""
    value = _plain(value)
    if value is None:
        return UNDEFINED
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        d = (digits or {}).get(column, 2)
        return f"{value:.{d}f}" if not value.is_integer() or d else f"{value:.0f}"
    return str(value)


def records(table: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as dicts of plain Python values (NaN as None)."""
    return [{c: _plain(v) for c, v in zip(table.columns, row)} for row in table.itertuples(index=False)]


def render(table: pd.DataFrame, fmt: str = "table", digits: dict[str, int] | None = None) -> str:
    """``table`` in ``fmt`` (one of :data:`FORMATS`), ending with a newline."""
    if fmt == "json":
        return json.dumps(records(table), indent=1, ensure_ascii=False) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        table.to_csv(buffer, index=False, na_rep="", float_format="%.6g", lineterminator="\n")
        return buffer.getvalue()
    texts = [[cell(v, digits, c) for c, v in zip(table.columns, row)] for row in table.itertuples(index=False)]
    header = [str(c) for c in table.columns]
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(t.replace("|", "\\|") for t in row) + " |" for row in texts]
        return "\n".join(lines) + "\n"
    if fmt == "latex":
        numeric = [pd.api.types.is_numeric_dtype(table[c]) and not pd.api.types.is_bool_dtype(table[c]) for c in header]
        spec = "".join("r" if n else "l" for n in numeric)
        lines = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", " & ".join(map(_latex, header)) + " \\\\", "\\midrule"]
        lines += [" & ".join(_latex(t) if t != UNDEFINED else "---" for t in row) + " \\\\" for row in texts]
        lines += ["\\bottomrule", "\\end{tabular}"]
        return "\n".join(lines) + "\n"
    if fmt != "table":
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    numeric = [pd.api.types.is_numeric_dtype(table[c]) and not pd.api.types.is_bool_dtype(table[c]) for c in header]
    widths = [max([len(h)] + [len(row[i]) for row in texts]) for i, h in enumerate(header)]
    out = ["  ".join(h.rjust(w) if n else h.ljust(w) for h, w, n in zip(header, widths, numeric)).rstrip()]
    for row in texts:
        out.append("  ".join(t.rjust(w) if n else t.ljust(w) for t, w, n in zip(row, widths, numeric)).rstrip())
    return "\n".join(out) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _latex(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)
