"""``eqbench-nb score``: one row per run (per convention, for EQ-Bench) for run files of any benchmark.

Each file's benchmark (its header, :mod:`eqbench_nb.registry`) reads and scores it; the rows are sorted together,
then printed as one JSON list, or as one table (or CSV block) per benchmark, in the order the benchmarks' first
files were found. An unreadable file is one line naming it; the others are still scored.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from .. import registry
from ..benchmarks import EXIT_USAGE, Benchmark
from ..runner.redact import clip
from ..runner.runfile import RunFormatError, find_run_files
from .common import no_run_files, subparser
from .options import add_options, options_from
from .tabular import FORMATS, print_table, render

SCORE_SORTS = ("score", "model", "file")


def add(sub: Any) -> None:
    formats = "; ".join(f"{b.title}: {b.formats}" for b in registry.REGISTRY)
    p = subparser(
        sub,
        "score",
        "score run files or folders of them",
        f"Score runs ({formats}): one row per run.",
        cmd_score,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="run files or folders of them")
    for b in registry.REGISTRY:
        add_options(p, b.command_options, "score")
    p.add_argument("--sort", choices=SCORE_SORTS, help="order of the runs (score: best first, by the first convention)")
    p.add_argument("--format", choices=FORMATS, default="table", help="output format")


def cmd_score(args: argparse.Namespace) -> int:
    files = find_run_files(args.paths, registry.recognised)
    if getattr(args, "by_judge", False) and len(files) > 1:
        print(f"error: --by-judge scores one run's judges; {len(files)} files given", file=sys.stderr)
        return EXIT_USAGE
    runs: list[tuple[Benchmark, list[dict[str, Any]]]] = []
    errors = 0
    for path in files:
        try:
            if not path.exists():
                raise RunFormatError(path, "no such file or folder")
            benchmark = registry.benchmark_of(path)
            runs.append((benchmark, benchmark.score_rows(path, options_from(args, benchmark.command_options))))
        except RunFormatError as exc:
            hint = ""
            if exc.problem.startswith("line "):
                hint = "; `eqbench-nb run` with the run's options and --repair moves unreadable lines aside"
            print(f"error: {clip(exc, 1000)}{hint}", file=sys.stderr)
            errors += 1
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError, RecursionError) as exc:
            # a reader's gap, never a traceback: the file is named and the other files are still scored
            print(f"error: {clip(f'{path}: cannot score ({type(exc).__name__}: {exc})', 1000)}", file=sys.stderr)
            errors += 1
    if not files:
        print(f"error: {no_run_files(args.paths)}", file=sys.stderr)
        return EXIT_USAGE
    found = list(dict.fromkeys(b for b, _ in runs))  # the benchmarks, in the order their first files were found
    print_runs(_sorted_runs(runs, args.sort), found, args.format)
    return EXIT_USAGE if errors else 0


def _sorted_runs(
    runs: list[tuple[Benchmark, list[dict[str, Any]]]], key: str | None
) -> list[tuple[Benchmark, list[dict[str, Any]]]]:
    """Each run's rows kept together; by the first row's score (best first, undefined last), model or file."""
    if key == "score":
        # a run whose summary has no single score sorts with the undefined ones
        return sorted(runs, key=lambda run: (_undefined(run[1][0].get("score")), -(run[1][0].get("score") or 0.0)))
    if key in ("model", "file"):
        return sorted(runs, key=lambda run: str(run[1][0].get(key)))
    return runs


def _undefined(score: float | None) -> bool:
    return score is None or score != score  # NaN: no parseable answer under the official convention


def finite(row: dict[str, Any]) -> dict[str, Any]:
    """The row with every value that is not a finite number as None (``NaN`` and ``-Infinity`` are not JSON, and
    ``score --format json`` never fails on a run's values): undefined (NaN: no parseable answer) plainly, infinite
    (a file's 1e309) flagged in a ``<column>_not_finite`` beside it."""
    out = dict(row)
    for key, value in row.items():
        if isinstance(value, float) and not math.isfinite(value):
            out[key] = None
            if math.isinf(value):
                out[f"{key}_not_finite"] = str(value)
    return out


def print_runs(runs: list[tuple[Benchmark, list[dict[str, Any]]]], benchmarks: list[Benchmark], fmt: str) -> None:
    """Rows as one JSON list, one CSV table (the union of the benchmarks' columns; with several, a ``benchmark``
    column says whose each row is), or one terminal table per benchmark, in the order of ``benchmarks``."""
    from ..runner.redact import clean_json

    runs = [(b, [clean_json(finite(r)) for r in rows]) for b, rows in runs]  # redacted: JSON prints no cell alone
    if fmt == "json":
        print(json.dumps([r for _, rows in runs for r in rows], indent=1, allow_nan=False))
        return
    if fmt == "csv":
        several = len(benchmarks) > 1
        rows = [({"benchmark": b.name} if several else {}) | r for b, rs in runs for r in rs]
        if rows:
            import pandas as pd

            columns = list(dict.fromkeys(k for r in rows for k in r))
            sys.stdout.write(render(pd.DataFrame(rows, columns=columns), "csv"))
        return
    if fmt in ("markdown", "latex"):  # as the other commands print them: one table per benchmark, each cell escaped
        import pandas as pd

        for benchmark in benchmarks:
            rows = [r for b, rs in runs if b is benchmark for r in rs]
            columns = list(dict.fromkeys(k for r in rows for k in r))
            frame = pd.DataFrame(rows, columns=columns)
            sys.stdout.write(render(frame, fmt, {"score": None}, {"parseable": "questions"}))
        return
    for benchmark in benchmarks:
        rows = [r for b, rs in runs if b is benchmark for r in rs]
        for table in benchmark.score_tables(rows):
            print_table(table, fmt)
