"""The researcher's commands: ``runs``, ``compare``, ``leaderboard`` and ``plot``.

Each finds its run files and their benchmark (:func:`~eqbench_nb.cli.common.files_for`), asks the benchmark's hook
for a :class:`~eqbench_nb.benchmarks.Table` (or a figure), and prints it in the format asked
(:mod:`eqbench_nb.cli.tabular`). Each table is a DataFrame a Python function returns as well.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .. import registry
from ..benchmarks import Table
from ..output_paths import refuse_output_over_inputs
from .common import files_for, one_benchmark, readable, subparser
from .options import add_options, options_from
from .tabular import FORMATS, json_text, print_table, records


def _benchmark_options(command: str, p: argparse.ArgumentParser) -> None:
    for b in registry.REGISTRY:
        if b.applies(command):
            add_options(p, b.command_options, command)


def add(sub: Any) -> None:
    """Add ``runs``, ``compare``, ``leaderboard`` and ``plot``."""
    p = subparser(
        sub,
        "runs",
        "list the run files in folders (default: runs/)",
        "One row per run file found: model, set, protocol, iterations, records, official score (— when no "
        "answer parsed), parseable share, when it started or finished (where the file says).",
        cmd_runs,
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="run files or folders of them (default: runs)")
    p.add_argument("--sort", metavar="COLUMN", help="sort by this column (score: best first), e.g. model, started")
    p.add_argument("--format", choices=FORMATS, default="table", help="output format")
    _benchmark_options("runs", p)

    p = subparser(
        sub,
        "compare",
        "is run A better than run B? paired difference on their shared questions",
        "The difference A - B of two runs' scores on the questions both set out to answer, with its "
        "percentile bootstrap interval (the shared questions resampled, the same resample for both), "
        "P(A > B) on a random question, and whether the difference is separated from 0.",
        cmd_compare,
    )
    p.add_argument("a", metavar="A", help="run file")
    p.add_argument("b", metavar="B", help="run file")
    _benchmark_options("compare", p)
    p.add_argument(
        "--format", choices=FORMATS, default="table", help="output format (table: one sentence; json: one object)"
    )

    p = subparser(
        sub,
        "leaderboard",
        "rank runs with score and rank intervals and group letters",
        "One row per run, best first: score with its interval, rank with its interval (questions resampled, "
        "the same resample for every run), a group letter shared by runs whose paired difference is not "
        "separated from 0, parseable share, protocol and what the run records of its engine and quantisation.",
        cmd_leaderboard,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="run files or folders of them")
    _benchmark_options("leaderboard", p)
    p.add_argument("--format", choices=FORMATS, default="table", help="output format")

    kinds = {k: v for b in registry.REGISTRY for k, v in b.plot_kinds.items()}
    p = subparser(
        sub,
        "plot",
        "draw a figure of runs without a notebook",
        "Draw one of the notebooks' figures for the given runs and save it (PNG, SVG or PDF, by the file's "
        "extension). Kinds:\n" + "\n".join(f"  {k:10} {v}" for k, v in kinds.items()),
        cmd_plot,
    )
    p.add_argument("kind", choices=list(kinds), metavar="KIND", help=", ".join(kinds))
    p.add_argument("paths", nargs="+", metavar="PATH", help="run files or folders of them")
    p.add_argument("--out", required=True, metavar="FILE", help="where to save the figure")
    _benchmark_options("plot", p)


@readable
def cmd_runs(args: argparse.Namespace) -> int:
    if not args.paths and not Path("runs").is_dir():
        raise ValueError("no runs/ folder here (where `eqbench-nb run` writes); name a folder of run files")
    found = files_for(args.paths or ["runs"], "runs")
    benchmarks = list(dict.fromkeys(b for b, _ in found))
    tables = []
    for benchmark in benchmarks:  # a listing, not a comparison: one table per benchmark, in the order found
        assert benchmark.runs is not None  # files_for kept only runs it applies to
        options = options_from(args, benchmark.command_options)
        tables.append((benchmark, benchmark.runs([p for b, p in found if b is benchmark], options)))
    columns = list(dict.fromkeys(c for _, t in tables for c in t.frame.columns))
    if args.sort is not None and args.sort not in columns:
        raise ValueError(f"cannot sort by {args.sort!r}; choose from {', '.join(columns)}")
    if len(tables) > 1 and args.format == "json":  # one list, each row naming its benchmark
        sys.stdout.write(json_text([{"benchmark": b.name} | row for b, t in tables for row in records(t.frame)]))
        return 0
    if len(tables) > 1 and args.format == "csv":  # one table, the union of the columns
        import pandas as pd

        frame = pd.concat([t.frame.assign(benchmark=b.name) for b, t in tables], ignore_index=True)
        print_table(Table(frame[["benchmark", *frame.columns.drop("benchmark")]]), args.format)
        return 0
    for n, (benchmark, table) in enumerate(tables):
        if len(tables) > 1 and args.format == "table":
            print(("\n" if n else "") + f"{benchmark.title} runs")
        print_table(table, args.format)
    return 0


@readable
def cmd_compare(args: argparse.Namespace) -> int:
    benchmark, files = one_benchmark(files_for([args.a, args.b], "compare"), "compare")
    if len(files) != 2:
        raise ValueError("`eqbench-nb compare` takes two run files, A and B")
    a, b = files
    assert benchmark.compare is not None
    print_table(benchmark.compare(a, b, options_from(args, benchmark.command_options)), args.format)
    return 0


@readable
def cmd_leaderboard(args: argparse.Namespace) -> int:
    benchmark, files = one_benchmark(files_for(args.paths, "leaderboard"), "leaderboard")
    assert benchmark.leaderboard is not None
    print_table(benchmark.leaderboard(files, options_from(args, benchmark.command_options)), args.format)
    return 0


@readable
def cmd_plot(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise ValueError(f"--out must end in .png, .svg or .pdf, not {out.name!r}")
    if not out.parent.is_dir():
        raise ValueError(f"--out: no folder {out.parent}")
    benchmark, files = one_benchmark(files_for(args.paths, "plot"), "plot")
    refuse_output_over_inputs(out, files)
    if benchmark.plot is None or args.kind not in benchmark.plot_kinds:
        raise ValueError(f"{benchmark.title} runs have no {args.kind!r} plot")
    fig = benchmark.plot(args.kind, files, options_from(args, benchmark.command_options))
    fig.savefig(out, dpi=150, bbox_inches="tight", metadata=_stable_metadata(out.suffix.lower()))
    left_out = list(getattr(fig, "left_out", []))
    drawn = len(files) - len(left_out)
    counted = f"{drawn} of {len(files)} runs" if left_out else f"{len(files)} run{'s' if len(files) > 1 else ''}"
    print(f"{args.kind} plot of {counted} saved to {out}")
    if left_out:
        print(f"left out, with no score to draw: {'; '.join(left_out)}", file=sys.stderr)
    return 0


def _stable_metadata(suffix: str) -> dict[str, Any]:
    """No creation date or software version in the file, so the same runs give the same bytes."""
    if suffix == ".png":
        return {"Software": None}
    if suffix == ".pdf":
        return {"CreationDate": None, "Producer": None, "Creator": None}
    return {"Date": None, "Creator": None}
