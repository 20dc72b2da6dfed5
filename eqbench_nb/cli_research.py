"""The researcher's commands: ``runs``, ``compare``, ``leaderboard`` and ``plot``.

Each prints a DataFrame that a Python function returns as well
(:mod:`eqbench_nb.analysis.leaderboard`); :mod:`eqbench_nb.cli` adds them to its parser.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .eqbench.conventions import CONVENTIONS
from .tabular import FORMATS, render

#: Digits per column in printed tables (two otherwise).
DIGITS = {
    "rank": 1,
    "rank_low": 0,
    "rank_high": 0,
    "parseable": 1,
    "p_a_better": 3,
    "p_low": 3,
    "p_high": 3,
    "level": 2,
}
PLOT_KINDS = {
    "intervals": "runs ranked by score, each with its 95 % interval (questions resampled)",
    "emotions": "mean |rating - reference| by emotion family, per run (questions resampled)",
    "reference": "a run's answers against the reference intensities",
}


def _digits(convention: str) -> dict[str, int]:
    if convention != "evalscope":
        return DIGITS
    return DIGITS | {c: 4 for c in ("score", "low", "high", "score_a", "score_b", "diff", "diff_low", "diff_high")}


def _level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number between 0 and 1, not {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (e.g. 0.95), not {value}")
    return value


def _reps(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if value < 100:
        raise argparse.ArgumentTypeError(f"must be at least 100 for a percentile interval, not {value}")
    return value


def _add_interval_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--convention", choices=CONVENTIONS, default="official", help="how a run is aggregated")
    p.add_argument("--level", type=_level, default=0.95, help="interval level")
    p.add_argument("--reps", type=_reps, default=2000, help="bootstrap resamples of the questions")
    p.add_argument("--seed", type=int, default=0, help="seed of the resampling (the same call, the same interval)")


def add_commands(sub: Any, subparser: Any) -> None:
    """Add ``runs``, ``compare``, ``leaderboard`` and ``plot`` with ``subparser`` (cli's helper)."""
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
    _add_interval_options(p)
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
    _add_interval_options(p)
    p.add_argument("--format", choices=FORMATS, default="table", help="output format")

    p = subparser(
        sub,
        "plot",
        "draw a figure of runs without a notebook",
        "Draw one of the notebooks' figures for the given runs and save it (PNG, SVG or PDF, by the file's "
        "extension). Kinds:\n" + "\n".join(f"  {k:10} {v}" for k, v in PLOT_KINDS.items()),
        cmd_plot,
    )
    p.add_argument("kind", choices=list(PLOT_KINDS), metavar="KIND", help=", ".join(PLOT_KINDS))
    p.add_argument("paths", nargs="+", metavar="PATH", help="run files or folders of them")
    p.add_argument("--out", required=True, metavar="FILE", help="where to save the figure")
    p.add_argument("--convention", choices=CONVENTIONS, default="official", help="how a run is aggregated (intervals)")


def _run_files(paths: list[str]) -> list[Path]:
    """The run files under ``paths`` (a folder's EmotionBench runs passed over: these commands compare
    EQ-Bench runs); a missing path or no file at all is a one-line error (ValueError)."""
    from .emotionbench.runs import is_emotionbench_file
    from .eqbench.runs import find_run_files

    files: list[Path] = []
    for p in paths:
        if not Path(p).exists():
            raise ValueError(f"{p}: no such file or folder")
        found = find_run_files([p])
        files += [f for f in found if not (Path(p).is_dir() and is_emotionbench_file(f))]
    if not files:
        raise ValueError("no run files found in " + ", ".join(map(str, paths)))
    return files


def readable(func: Any) -> Any:
    """A command whose unreadable run file is one line naming the file and the problem (exit 2)."""
    import functools

    from .eqbench.runs import RunFormatError

    @functools.wraps(func)
    def wrapper(args: argparse.Namespace) -> int:
        try:
            return int(func(args))
        except RunFormatError as exc:
            raise ValueError(str(exc)) from None

    return wrapper


@readable
def cmd_runs(args: argparse.Namespace) -> int:
    from .analysis.leaderboard import runs_overview

    if not args.paths and not Path("runs").is_dir():
        raise ValueError("no runs/ folder here (where `eqbench-nb run` writes); name a folder of run files")
    files = _run_files(args.paths or ["runs"])
    table = runs_overview(files, sort=args.sort)
    sys.stdout.write(render(table, args.format, DIGITS))
    return 0


@readable
def cmd_compare(args: argparse.Namespace) -> int:
    from .analysis.leaderboard import compare_runs, compare_statement

    _run_files([args.a, args.b])
    row = compare_runs(args.a, args.b, args.convention, args.reps, args.level, args.seed)
    if args.format == "table":
        print(f"A = {row.a.iloc[0]}\nB = {row.b.iloc[0]}\n{compare_statement(row)}")
    elif args.format == "json":
        import json

        from .tabular import records

        print(json.dumps(records(row)[0], indent=1, ensure_ascii=False))
    else:
        sys.stdout.write(render(row, args.format, _digits(args.convention)))
    return 0


@readable
def cmd_leaderboard(args: argparse.Namespace) -> int:
    from .analysis.leaderboard import leaderboard

    files = _run_files(args.paths)
    table = leaderboard(files, args.convention, args.reps, args.level, args.seed)
    if args.format in ("table", "markdown", "latex"):
        table = table.drop(columns=["file"])
    sys.stdout.write(render(table, args.format, _digits(args.convention)))
    if args.format == "table":
        print(
            f"score: {args.convention}, on the {table.questions.iloc[0]} questions every run set out to answer; "
            f"low-high and rank_low-rank_high: {args.level:.0%} percentile bootstrap over those questions "
            f"({args.reps:,} resamples, the same for every run); runs sharing a group letter are not separated "
            f"(paired difference's interval includes 0, each pair at {args.level:.0%}, uncorrected)",
            file=sys.stderr,
        )
    return 0


@readable
def cmd_plot(args: argparse.Namespace) -> int:
    from .analysis.leaderboard import load_runs
    from .plots.runs import figure_for_runs

    out = Path(args.out)
    if out.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise ValueError(f"--out must end in .png, .svg or .pdf, not {out.name!r}")
    if not out.parent.is_dir():
        raise ValueError(f"--out: no folder {out.parent}")
    files = _run_files(args.paths)
    fig = figure_for_runs(args.kind, load_runs(files), convention=args.convention)
    fig.savefig(out, dpi=150, bbox_inches="tight", metadata=_stable_metadata(out.suffix.lower()))
    print(f"{args.kind} plot of {len(files)} run{'s' if len(files) > 1 else ''} saved to {out}")
    return 0


def _stable_metadata(suffix: str) -> dict[str, Any]:
    """No creation date or software version in the file, so the same runs give the same bytes."""
    if suffix == ".png":
        return {"Software": None}
    if suffix == ".pdf":
        return {"CreationDate": None, "Producer": None, "Creator": None}
    return {"Date": None, "Creator": None}
