"""``eqbench-nb export RUN --format csv|parquet``: a run's per-item rows, as the viewer has them
(:func:`eqbench_nb.viewer.samples.samples`), for pandas, R or a spreadsheet.

One row per item (an EQ-Bench question in one iteration, an EQ-Bench 3 scenario, ...), the columns the viewer's
samples frame has. Cells that hold lists or mappings (the messages, the attempts, the ratings) are written as JSON
text, so every format holds the same values; every text is redacted as every output is (no API key reaches the
file). Parquet needs ``pyarrow`` (not a dependency): without it the command says so in one line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..benchmarks import EXIT_USAGE
from .common import subparser

FORMATS = ("csv", "parquet")


def add(sub: Any) -> None:
    p = subparser(
        sub,
        "export",
        "a run's per-item rows as CSV or Parquet",
        "Write a run's items, one row each, with the columns the viewer shows (prompt, attempts, what was parsed and "
        "why, scores, tokens, latency, faults, cost), as CSV or Parquet. Lists and mappings are JSON text.",
        cmd_export,
    )
    p.add_argument("run", metavar="RUN", help="a run file of any benchmark the viewer shows")
    p.add_argument("--format", choices=FORMATS, default="csv", help="csv (default) or parquet (needs pyarrow)")
    p.add_argument("--out", metavar="FILE", help="the file to write (default: the run file's name, .csv or .parquet)")


def flat(frame: Any) -> Any:
    """The frame with every list or mapping cell as JSON text and every text redacted: one value per cell, the same
    in CSV and Parquet, and no secret in it."""
    from ..runner.redact import redact

    def cell(value: Any) -> Any:
        if isinstance(value, (list, tuple, dict)):
            return redact(json.dumps(value, ensure_ascii=False, default=str))
        return redact(value) if isinstance(value, str) else value

    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or str(out[column].dtype) in ("str", "string"):
            out[column] = out[column].map(cell)
    return out


def cmd_export(args: argparse.Namespace) -> int:
    from ..data import DataError
    from ..output_paths import OutputOverInput, refuse_output_over_inputs
    from ..runner.redact import clip
    from ..runner.runfile import RunFormatError
    from ..viewer.payload import ViewerError

    def error(message: object) -> int:
        print(f"error: {clip(message, 1000)}", file=sys.stderr)
        return EXIT_USAGE

    run = Path(args.run)
    if run.is_dir():
        return error(f"{run} is a folder; name a run file in it (`eqbench-nb runs {run}` lists them)")
    if not run.is_file():
        return error(f"{run}: no such run file")
    if args.format == "parquet" and not _has_parquet():
        return error(
            "--format parquet needs pyarrow, which is not installed (pip install pyarrow); --format csv needs nothing"
        )
    out = Path(args.out) if args.out else Path(f"{run.stem}.{args.format}")
    try:
        refuse_output_over_inputs(out, [run], "--out" if args.out else "the default --out")
    except OutputOverInput as exc:
        return error(exc)
    from ..viewer.samples import samples

    try:
        frame = flat(samples(run))
    except (RunFormatError, DataError, ViewerError) as exc:
        return error(exc)
    except (ValueError, TypeError, KeyError, AttributeError, OverflowError, RecursionError) as exc:
        return error(f"{run}: cannot export ({type(exc).__name__}: {exc})")
    try:
        if args.format == "csv":
            frame.to_csv(out, index=False)
        else:
            frame.to_parquet(out, index=False)
    except OSError as exc:
        return error(f"cannot write {out}: {exc.strerror or exc}")
    print(f"{len(frame):,} items, {len(frame.columns)} columns, written to {out}")
    return 0


def _has_parquet() -> bool:
    import importlib.util

    return importlib.util.find_spec("pyarrow") is not None
