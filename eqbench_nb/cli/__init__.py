"""Command line: ``eqbench-nb COMMAND`` (or ``python -m eqbench_nb COMMAND``).

One module per command group, each with an ``add(sub)`` that adds its commands to the parser:

- ``run``: ``run``: any benchmark of :mod:`eqbench_nb.registry`, its options built from the registry
- ``score``: ``score``: run files of any benchmark, each scored by its own
- ``research``: ``runs``, ``compare``, ``leaderboard``, ``plot``: each benchmark's hook, printed
- ``reproduce``: ``reproduce``: every notebook executed, every figure and SUMMARY.md written
- ``serve``: ``serve-local``: the bundled model for other tools
- ``view``: ``view``: the run viewer as one self-contained page (:mod:`eqbench_nb.viewer`)
- ``export``: ``export``: a run's per-item rows (the viewer's samples frame) as CSV or Parquet
- ``judge_check``: ``judge-check``: a judge or a panel against people (Welivita & Pu's raters, Kumar et al.'s experts)
- ``common``: the parser's look, and the run files a command is given with their benchmark
- ``tabular``: a table as text, CSV, JSON, Markdown or LaTeX

Exit status: 0 done; 2 a user mistake, an unreadable file, or a run stopped by its endpoint or its
disk (each a one-line error, never a traceback); 3 a run that ended with questions left unfinished
(it prints the last fault; running the same command again resumes); 130 Ctrl-C; 143 SIGTERM.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .._version import __version__
from ..benchmarks import EXIT_INTERRUPTED, EXIT_TERMINATED, EXIT_UNFINISHED, EXIT_USAGE
from ..data import DataError

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    # the command modules (and .common, which reads the registry) are imported here, not with the package:
    # ``reproduce``'s worker processes import :mod:`.reproduce` alone to run notebooks, and the others pull in
    # pandas, scipy and every benchmark, 1.2 CPU-s a worker
    from . import export, judge_check, reproduce, research, run, score, serve, view
    from .common import PROG, Formatter, Parser

    parser = Parser(prog=PROG, description="Run, score and study EQ-Bench.", formatter_class=Formatter)
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}", help="print the tool's version and exit"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    score.add(sub)
    run.add(sub)
    serve.add(sub)
    reproduce.add(sub)
    research.add(sub)
    view.add(sub)
    export.add(sub)
    judge_check.add(sub)
    return parser


def did_you_mean(parser: argparse.ArgumentParser, command: str, unknown: Sequence[str]) -> str:
    """``; did you mean --limit?`` for a mistyped option of ``command`` (the closest of its options, by difflib's
    ratio of at least 0.75), else ""."""
    import difflib

    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    options = [o for o in commands[command]._option_string_actions if o.startswith("--")]
    for given in unknown:
        if given.startswith("--"):
            close = difflib.get_close_matches(given.split("=", 1)[0], options, n=1, cutoff=0.75)
            if close:
                return f"; did you mean {close[0]}?"
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    from ..runner.errors import Unfinished
    from ..runner.redact import clip, remember_key_variables

    if argv is None:  # the program (eqbench-nb, python -m eqbench_nb), not a call from Python that goes on after it
        _leave_the_heap_to_the_system_at_exit()
    remember_key_variables()  # the standard key variables: redacted from every output, whatever a file says
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # as parse_args, but pointing to the help of the command that was given, where its options are
        where = f"{parser.prog} {args.command} --help"
        guess = did_you_mean(parser, args.command, unknown)
        parser.exit(EXIT_USAGE, f"error: unrecognized arguments: {' '.join(unknown)}{guess} (see {where})\n")
    try:
        return int(args.func(args))
    except Unfinished as exc:
        print(f"error: {clip(exc, 2000)}", file=sys.stderr)
        return EXIT_UNFINISHED
    except (DataError, ValueError) as exc:
        print(f"error: {clip(exc, 2000)}", file=sys.stderr)  # one line, every secret redacted
        return EXIT_USAGE
    except KeyboardInterrupt as exc:
        from ..runner.loop import Terminated

        if isinstance(exc, Terminated):
            if not getattr(exc, "reported", False):
                print("terminated", file=sys.stderr)
            return EXIT_TERMINATED
        if not getattr(exc, "reported", False):  # a run says itself what was saved in one line
            print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # output piped into head and the like
        return 0


def _leave_the_heap_to_the_system_at_exit() -> None:
    """Freeze the garbage collector once the exit handlers registered after this one have run. The interpreter's
    last collections at exit walk every object the command imported: a run's 100,000 (the openai SDK's pydantic
    types) took 0.6 s of its exit on a loaded machine, 0.05 s frozen (issue 44). Frozen objects in reference cycles
    are left to the operating system rather than finalized; every file this tool writes is closed before its command
    returns (a run's records are fsynced as they arrive), so nothing waits on a finalizer."""
    import atexit
    import gc

    atexit.register(gc.freeze)
