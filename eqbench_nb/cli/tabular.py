r"""A DataFrame as the command line prints it: an aligned table, CSV, JSON, Markdown or LaTeX.

An undefined number (NaN: a score with no parseable answer behind it) is ``—`` in a table, in
Markdown and in LaTeX, an empty cell in CSV and ``null`` in JSON — never ``0`` and never ``NaN``
(which is not JSON).

Text in a cell comes from run files and servers (a model name, a run id), so it is hostile: every
string is redacted (:func:`eqbench_nb.runner.redact.redact`) and made printable
(:func:`eqbench_nb.runner.redact.printable`: an ANSI escape that clears the screen is shown, not
obeyed), then escaped by the rules of its format (:func:`text`), so no cell can break out of its row:

- table: line breaks written ``\n``: one row, one line
- markdown: ``\`` and ``|`` escaped, line breaks as ``<br>``, ``<`` ``>`` ``&`` as HTML entities
- latex: the specials escaped (``< > |`` too: OT1 fonts print them as other signs), line breaks as spaces
- csv: a cell starting with ``=`` ``+`` ``-`` ``@`` (a spreadsheet formula) gets a leading ``'``
- json: every control character (C1 ones too) as a ``\u`` escape
"""

from __future__ import annotations

import io
import json
import math
import re
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..benchmarks import Table, count_of
from ..runner.redact import output, printable, redact

if TYPE_CHECKING:
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


def cell(value: Any, digits: Mapping[str, int | None] | None = None, column: str = "") -> str:
    """One value as text: floats with the column's digits (2 by default; None: as few as the value needs, so a
    rank is ``3`` and a tied one ``2.5``), undefined as ``—``."""
    value = _plain(value)
    if value is None:
        return UNDEFINED
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        d = (digits or {}).get(column, 2)
        if d is None:
            return f"{value:g}"
        return f"{value:.{d}f}" if not value.is_integer() or d else f"{value:.0f}"
    return str(value)


def records(table: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as dicts of plain Python values (NaN as None, infinities as text), every string redacted."""
    return [{c: _redacted(_plain(v)) for c, v in zip(table.columns, row)} for row in table.itertuples(index=False)]


def _redacted(value: Any) -> Any:
    """A string redacted; an infinite number as the text ``inf`` / ``-inf`` (JSON has no infinity)."""
    if isinstance(value, float) and math.isinf(value):
        return str(value)
    return redact(value) if isinstance(value, str) else value


def render(
    table: pd.DataFrame,
    fmt: str = "table",
    digits: Mapping[str, int | None] | None = None,
    fractions: Mapping[str, str] | None = None,
    text_columns: int | None = None,
) -> str:
    """``table`` in ``fmt`` (one of :data:`FORMATS`), ending with a newline; every text escaped by the format's
    rules (:func:`text`). ``fractions`` maps a count column to the column it is a count of: in the text formats
    (table, Markdown, LaTeX) its cells read ``count/total`` (:func:`count_of`); CSV and JSON keep both numbers.
    ``text_columns`` (the terminal format only): ``score``'s layout, the first ``text_columns`` columns
    left-aligned and the others right-aligned whatever their type, every heading left-aligned, each line padded to
    the table's width (:attr:`~eqbench_nb.benchmarks.Table.text_columns`)."""
    import pandas as pd  # here: the parser imports this module for FORMATS, and --help must not wait for pandas

    if fractions and fmt in ("table", "markdown", "latex"):
        table = table.copy()
        for column, total in fractions.items():
            if column in table.columns and total in table.columns:
                table[column] = [count_of(c, t) for c, t in zip(table[column], table[total])]
    if fmt == "json":
        return json_text(records(table))
    if fmt == "csv":
        buffer = io.StringIO()
        safe = table.copy()
        for c in safe.columns:
            if not pd.api.types.is_numeric_dtype(safe[c]):
                safe[c] = [text(v, "csv") if isinstance(v, str) else v for v in safe[c]]
        safe.columns = [text(str(c), "csv") for c in safe.columns]
        safe.to_csv(buffer, index=False, na_rep="", float_format="%.6g", lineterminator="\n")
        return buffer.getvalue()
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    texts = [
        [text(cell(v, digits, c), fmt) for c, v in zip(table.columns, row)] for row in table.itertuples(index=False)
    ]
    header = [text(str(c), fmt) for c in table.columns]
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in texts]
        return "\n".join(lines) + "\n"
    numeric = [pd.api.types.is_numeric_dtype(table[c]) and not pd.api.types.is_bool_dtype(table[c]) for c in table]
    if fmt == "latex":
        spec = "".join("r" if n else "l" for n in numeric)
        lines = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", " & ".join(header) + " \\\\", "\\midrule"]
        lines += [" & ".join(t if t != UNDEFINED else "---" for t in row) + " \\\\" for row in texts]
        lines += ["\\bottomrule", "\\end{tabular}"]
        return "\n".join(lines) + "\n"
    widths = [max([len(h)] + [len(row[i]) for row in texts]) for i, h in enumerate(header)]
    if text_columns is not None:
        out = ["  ".join(h.ljust(w) for h, w in zip(header, widths))]
        for row in texts:
            out.append("  ".join(t.ljust(w) if i < text_columns else t.rjust(w) for i, (t, w) in
                                 enumerate(zip(row, widths))))  # fmt: skip
        return "\n".join(out) + "\n"
    out = ["  ".join(h.rjust(w) if n else h.ljust(w) for h, w, n in zip(header, widths, numeric)).rstrip()]
    for row in texts:
        out.append("  ".join(t.rjust(w) if n else t.ljust(w) for t, w, n in zip(row, widths, numeric)).rstrip())
    return "\n".join(out) + "\n"


def print_table(table: Table, fmt: str) -> None:
    """A hook's table in ``fmt`` on stdout: the sentence (terminal) or the frame, machine-only columns in CSV and
    JSON alone; under a terminal table its footnote on stdout and its caption on stderr."""
    if fmt == "table" and table.sentence is not None:
        print(output(table.sentence))  # names from run files in it: redacted, control characters shown
        return
    if fmt == "json" and table.single:
        sys.stdout.write(json_text(records(table.frame)[0]))
        return
    frame = table.frame
    if fmt in ("table", "markdown", "latex") and table.machine_only:
        frame = frame.drop(columns=list(table.machine_only))
    sys.stdout.write(render(frame, fmt, dict(table.digits), dict(table.fractions), table.text_columns))
    if fmt == "table" and table.footnote:
        print(table.footnote)
    if fmt == "table" and table.caption:
        print(table.caption, file=sys.stderr)


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
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}


_MARKDOWN_SPECIAL = {"\\": "\\\\", "|": "\\|", "<": "&lt;", ">": "&gt;", "&": "&amp;", "\n": "<br>"}
#: What a spreadsheet reads as the start of a formula (OWASP's CSV injection list).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_C1 = re.compile(r"[\x7f-\x9f\u2028\u2029]")


def text(value: object, fmt: str = "table") -> str:
    """One cell's text for ``fmt``: redacted, control characters escaped, then escaped by the format's rules
    (see the module docstring). ``—`` (undefined) is left as it is."""
    line = printable(redact(value))
    if fmt == "markdown":
        return "".join(_MARKDOWN_SPECIAL.get(ch, ch) for ch in line)
    if fmt == "latex":
        return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in line.replace("\n", " "))
    if fmt == "csv":
        return "'" + line if line.startswith(_FORMULA_START) else line
    return line.replace("\n", "\\n")


def json_text(value: Any) -> str:
    """``value`` as indented JSON, ending with a newline: non-ASCII letters as they are, but every control
    character (C1 ones and line separators too, which ``json.dumps`` passes through) as a ``\\u`` escape."""
    dumped = json.dumps(value, indent=1, ensure_ascii=False, allow_nan=False)
    return _C1.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped) + "\n"
