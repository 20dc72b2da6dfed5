"""Command line: ``eqbench-nb COMMAND`` (or ``python -m eqbench_nb COMMAND``).

Exit status: 0 done; 2 a user mistake, an unreadable file, or a run stopped by its endpoint or its
disk (each a one-line error, never a traceback); 3 a run that ended with questions left unfinished
(it prints the last fault; running the same command again resumes); 130 Ctrl-C; 143 SIGTERM.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from ._version import __version__
from .cli_run_extras import add_run_extras as _add_run_extras
from .cli_run_extras import dry_run as _dry_run
from .cli_run_extras import run_options as _run_options
from .data import DataError
from .emotionbench.cli import add_run_options, is_emotionbench_file, print_emotionbench_rows, run_emotionbench_command
from .emotionbench.cli import score_file as score_emotionbench_file
from .eqbench.conventions import CONVENTIONS, score_run
from .eqbench.protocols import PROTOCOLS
from .eqbench.questions import VERSIONS
from .eqbench.runs import RunFormatError, find_run_files, read_run

EXIT_USAGE = 2
EXIT_UNFINISHED = 3
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143
PROG = "eqbench-nb"


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Help that shows each option's default once and keeps the description's line breaks.

    An option whose help already says its default, or whose default is "none given" (None, False),
    gets no "(default: ...)" appended.
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default in (None, False) or "default" in text:
            return text
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line (``error: ...``) and exit 2, like every other mistake."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"error: {message} (see {self.prog} --help)\n")


def _subparser(
    sub: Any, name: str, help: str, description: str, func: Callable[[argparse.Namespace], int]
) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(name, help=help, description=description, formatter_class=_Formatter)
    p.set_defaults(func=func)
    return p


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None


def _positive_int(text: str) -> int:
    value = _whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _port(text: str) -> int:
    value = _whole_number(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be between 0 (any free port) and 65535, not {value}")
    return value


# ---------------------------------------------------------------- score


def _add_score(sub: Any) -> None:
    p = _subparser(
        sub,
        "score",
        "score run files or folders of them",
        "Score EQ-Bench runs (eqbench_nb JSON Lines, upstream EQ-Bench results JSON, "
        "lm-evaluation-harness samples): one row per run.",
        cmd_score,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="run files or folders of them")
    p.add_argument(
        "--convention",
        choices=(*CONVENTIONS, "all"),
        default="official",
        help="how a run is aggregated; all: one row per convention",
    )
    p.add_argument("--sort", choices=SCORE_SORTS, help="order of the runs (score: best first, by the first convention)")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table", help="output format")


SCORE_SORTS = ("score", "model", "file")


def cmd_score(args: argparse.Namespace) -> int:
    from .runner.redact import clip

    files = find_run_files(args.paths)
    conventions = CONVENTIONS if args.convention == "all" else (args.convention,)
    runs: list[list[dict[str, Any]]] = []
    errors = 0
    for path in files:
        try:
            if not path.exists():
                raise RunFormatError(path, "no such file or folder")
            if is_emotionbench_file(path):  # the header names its benchmark; EmotionBench has its own summary
                runs.append([score_emotionbench_file(path)])
                continue
            run = read_run(path)
            for warning in run.warnings:
                print(f"warning: {clip(f'{path}: {warning}', 1000)}", file=sys.stderr)
            runs.append(
                [score_run(run, c).as_row() | {"file": str(path), "warnings": len(run.warnings)} for c in conventions]
            )
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
        print("error: no run files found in " + ", ".join(args.paths), file=sys.stderr)
        return EXIT_USAGE
    print_rows([row for rows in _sorted_runs(runs, args.sort) for row in rows], args.format)
    return EXIT_USAGE if errors else 0


def _sorted_runs(runs: list[list[dict[str, Any]]], key: str | None) -> list[list[dict[str, Any]]]:
    """Each run's rows kept together; by the first convention's score (best first, undefined last), model or file."""
    if key == "score":
        # an EmotionBench summary has no single score: it sorts with the undefined ones
        return sorted(runs, key=lambda rows: (_undefined(rows[0].get("score")), -(rows[0].get("score") or 0.0)))
    if key in ("model", "file"):
        return sorted(runs, key=lambda rows: str(rows[0].get(key)))
    return runs


def _undefined(score: float | None) -> bool:
    return score is None or score != score  # NaN: no parseable answer under the official convention


def _score_cell(row: dict[str, Any]) -> str:
    if row.get("score_not_finite"):
        return row["score_not_finite"]
    if _undefined(row["score"]):
        return "—"
    return f"{row['score']:.4f}" if row["convention"] == "evalscope" else f"{row['score']:.2f}"


def print_rows(rows: list[dict[str, Any]], fmt: str) -> None:
    """Score rows as JSON, CSV, or an aligned table (parseable: mean count per iteration of n questions)."""
    from .runner.redact import clip, printable

    rows = [_finite(r) for r in rows]  # undefined and infinite scores: JSON null
    if fmt == "json":
        print(json.dumps(rows, indent=1, allow_nan=False))
        return
    emotion_rows = [r for r in rows if r.get("benchmark") == "emotionbench"]
    if emotion_rows:
        rows = [r for r in rows if r.get("benchmark") != "emotionbench"]
        print_emotionbench_rows(emotion_rows, fmt, sys.stdout)
        if not rows:
            return
    if fmt == "csv":
        if rows:
            w = csv.DictWriter(sys.stdout, fieldnames=list(dict.fromkeys(k for r in rows for k in r)))
            w.writeheader()
            w.writerows({k: printable(v) if isinstance(v, str) else v for k, v in r.items()} for r in rows)
        return
    several = len({r["convention"] for r in rows}) > 1
    cols = ["model", "run_id"] + (["convention"] if several else []) + ["iterations", "parseable", "score", "failed"]
    table = [
        [clip(r["model"], 80), clip(r["run_id"], 80)]
        + ([r["convention"]] if several else [])
        + [str(r["iterations"]), _parseable_cell(r), _score_cell(r), "FAILED" if r["failed"] else ""]
        for r in rows
    ]
    if any(r.get("warnings") for r in rows):  # said on stderr; marked here so a reader of the table sees it
        cols.append("warnings")
        for t, r in zip(table, rows):
            t.append(str(r.get("warnings") or ""))
    widths = [max([len(c)] + [len(t[i]) for t in table]) for i, c in enumerate(cols)]
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
    for t in table:
        left = 3 if several else 2
        print("  ".join(v.ljust(w) if i < left else v.rjust(w) for i, (v, w) in enumerate(zip(t, widths))))
    if any(r["iterations"] > 1 for r in rows):
        print("parseable: questions parsed per iteration (mean over iterations) / questions", file=sys.stderr)


def _finite(row: dict[str, Any]) -> dict[str, Any]:
    """The row with a score that is not a finite number as None (``NaN`` and ``-Infinity`` are not JSON):
    undefined (NaN: no parseable answer) plainly, infinite (ratings of 1e308 give -inf) flagged."""
    score = row.get("score")
    if _undefined(score):
        return row | {"score": None}
    if isinstance(score, float) and math.isinf(score):
        return row | {"score": None, "score_not_finite": str(score)}
    return row


def _parseable_cell(row: dict[str, Any]) -> str:
    n = row["parseable"]
    count = f"{n:g}" if float(n).is_integer() else f"{n:.1f}"
    return f"{count}/{row['questions']}"


# ---------------------------------------------------------------- reproduce


def _add_reproduce(sub: Any) -> None:
    p = _subparser(
        sub,
        "reproduce",
        "execute every notebook and regenerate every figure",
        "Execute the project's notebooks in fresh kernels (outputs saved in place), write every "
        "figure under figures/ and figures/SUMMARY.md. Works from anywhere inside the checkout.",
        cmd_reproduce,
    )
    p.add_argument(
        "notebooks",
        nargs="*",
        metavar="NOTEBOOK",
        help="only these notebooks, by name (03_repeatability), number (03) or path; default all",
    )
    p.add_argument("--timeout", type=_positive_int, default=900, help="seconds per cell")
    p.add_argument(
        "--jobs", type=_positive_int, metavar="N", help="notebooks run at once (default: one per core, at most 2)"
    )
    p.add_argument("--list", action="store_true", help="list the notebooks and what each asks, run nothing")
    p.add_argument(
        "--fresh",
        action="store_true",
        help="run the bundled model live in 01_quickstart instead of reading its committed run "
        "(about a minute more; the figures then differ from the committed ones)",
    )


def cmd_reproduce(args: argparse.Namespace) -> int:
    from .reproduce import FRESH_ENV, ReproduceError, notebook_titles, reproduce, select_notebooks

    try:
        paths = select_notebooks(args.notebooks)
    except ReproduceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.list:
        for path, title in notebook_titles(paths):
            print(f"{path.stem:24} {title}")
        return 0
    if args.fresh:
        import os

        os.environ[FRESH_ENV] = "1"  # the kernels inherit it
    import time

    started = time.perf_counter()
    results = reproduce(paths, timeout=args.timeout, jobs=args.jobs)
    failed = [r for r in results if r.error]
    total = time.perf_counter() - started
    if failed:
        names = ", ".join(r.path.stem for r in failed)
        print(
            f"error: {len(failed)} of {len(results)} notebooks failed ({names}); they were left as committed "
            f"and figures/SUMMARY.md was not rewritten",
            file=sys.stderr,
        )
        return 1
    print(f"{len(results)} notebooks ran in {total:.0f} s; figures and SUMMARY.md are in figures/")
    return 0


# ---------------------------------------------------------------- run


def _add_run(sub: Any) -> None:
    p = _subparser(
        sub,
        "run",
        "run EQ-Bench against an OpenAI-compatible endpoint (default: the bundled model)",
        "Run EQ-Bench against any OpenAI-compatible endpoint; without --base-url the bundled "
        "SmolLM2-135M-Instruct is served on 127.0.0.1 for the run. Running the same command again "
        "resumes the run file.",
        cmd_run,
    )
    p.add_argument("--benchmark", choices=("eqbench", "emotionbench"), default="eqbench", help="which benchmark to run")
    p.add_argument("--base-url", help="endpoint, e.g. https://api.openai.com/v1 (default: the bundled model)")
    p.add_argument("--model", help="model name (default: the endpoint's first listed model)")
    p.add_argument(
        "--set",
        dest="version",
        choices=VERSIONS,
        default="v2",
        help="question set: v2 (171), v1 (60), de (German v2) or pl (Polish v2; the official-v2.4 and lm-eval "
        "protocols)",
    )
    p.add_argument("--version", action=_VersionIsNotTheSet, nargs="?", help=argparse.SUPPRESS)
    p.add_argument(
        "--protocol",
        choices=PROTOCOLS,
        default="official",
        help="the upstream pipeline whose decisions the run makes (see README)",
    )
    p.add_argument("--revise", action="store_true", help="use the critique-and-revise prompt")
    p.add_argument(
        "--temperature",
        type=float,
        metavar="T",
        help="first attempt's temperature (default: the protocol's, 0.01 official / 0 lm-eval)",
    )
    p.add_argument("--seed", type=int, metavar="S", help="seed sent with every request (default: none, as upstream)")
    p.add_argument("--iterations", type=_positive_int, default=1, metavar="N", help="times the whole set is run")
    p.add_argument(
        "--concurrency",
        type=_positive_int,
        metavar="C",
        help="the most requests in flight (default 8; 1 for the bundled model); the run paces itself under it from "
        "the server's x-ratelimit headers, or its 429s",
    )
    p.add_argument("--limit", type=int, metavar="K", help="only the first K questions (default: all)")
    p.add_argument("--questions", metavar="IDS", help="question ids, e.g. 1,5,10-12 (default: all)")
    p.add_argument(
        "--form",
        metavar="NAME",
        help="a validated v2 short form (short20, short40, short60: notebook 08 §5): asks only its questions and "
        "reports the predicted full score with a 95%% prediction interval",
    )
    p.add_argument("--out", default="runs", metavar="DIR", help="folder for run files")
    p.add_argument("--run-id", metavar="ID", help="run id (default: derived from the settings, so reruns resume)")
    p.add_argument(
        "--api-key-env", metavar="VAR", help="environment variable holding the API key (default OPENAI_API_KEY)"
    )
    p.add_argument(
        "--timeout", type=float, metavar="S", help="deadline for each request as a whole, seconds (default 120)"
    )
    p.add_argument(
        "--retry-budget",
        type=float,
        metavar="S",
        help="seconds one request may wait between retries of 429s, 5xx and resets before its question is left "
        "for the next resume (default 300; at least 120 s of back-off, past a 60 s rate-limit window)",
    )
    p.add_argument(
        "--repair",
        action="store_true",
        help="move unreadable lines in the middle of the run file aside (to FILE.unreadable) and ask their "
        "questions again",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    _add_run_extras(p)
    add_run_options(p)


class _VersionIsNotTheSet(argparse.Action):
    """``run --version`` once chose the question set; it now means what it means everywhere else."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any, **__: Any) -> None:
        parser.error("--version is the tool's version (eqbench-nb --version); choose the question set with --set")


def cmd_run(args: argparse.Namespace) -> int:
    import signal
    import threading

    from .eqbench.task import run_benchmark
    from .runner.redact import clip, output

    if threading.current_thread() is threading.main_thread():
        # Ctrl-C must stop a run started with SIGINT ignored (a background job of a script): Python then
        # installs no handler of its own
        signal.signal(signal.SIGINT, signal.default_int_handler)

    if args.benchmark == "emotionbench":
        return run_emotionbench_command(args)

    if args.dry_run:
        return _dry_run(args)
    result = run_benchmark(
        base_url=args.base_url,
        model=args.model,
        version=args.version,
        protocol=args.protocol,
        revise=args.revise,
        temperature=args.temperature,
        seed=args.seed,
        iterations=args.iterations,
        concurrency=args.concurrency,
        limit=args.limit,
        questions=args.questions,
        out_dir=args.out,
        run_id=args.run_id,
        api_key_env=args.api_key_env,
        timeout=args.timeout,
        progress=not args.no_progress,
        retry_budget=args.retry_budget,
        repair=args.repair,
        form=args.form,
        options=_run_options(args),
    )
    print(output(result.table()))
    if not result.complete:
        n = result.unfinished
        print(
            f"error: {n or 'some'} question{'' if n == 1 else 's'} left unfinished (last fault: "
            f"{clip(result.last_fault or 'none', 300)}); run the same command again to resume",
            file=sys.stderr,
        )
        return EXIT_UNFINISHED
    return 0


# ---------------------------------------------------------------- serve-local


def _add_serve_local(sub: Any) -> None:
    p = _subparser(
        sub,
        "serve-local",
        "serve the bundled model on 127.0.0.1 until Ctrl-C",
        "Serve the bundled SmolLM2-135M-Instruct through llama.cpp's OpenAI-compatible server on "
        "127.0.0.1, for other tools; prints the base URL.",
        cmd_serve_local,
    )
    p.add_argument("--port", type=_port, default=0, help="port (0: a free one)")
    p.add_argument("--parallel", type=_positive_int, default=1, metavar="N", help="server slots")


def cmd_serve_local(args: argparse.Namespace) -> int:
    import signal
    import time

    from .runner.local_model import MODEL_NAME, LocalModelError, LocalServer

    try:
        server = LocalServer(n_parallel=args.parallel, port=args.port)
        base_url = server.start()
    except LocalModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    # Ctrl-C (and SIGTERM) must stop the server even when this process was started with SIGINT
    # ignored, as background jobs of a non-interactive shell are; Python then installs no handler.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    print(f"serving {MODEL_NAME} at {base_url} (model name {MODEL_NAME!r}); Ctrl-C stops it", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        server.stop()
    return 0


# ---------------------------------------------------------------- entry point


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Run, score and study EQ-Bench.", formatter_class=_Formatter)
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}", help="print the tool's version and exit"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_score(sub)
    _add_run(sub)
    _add_serve_local(sub)
    _add_reproduce(sub)
    from .cli_research import add_commands

    add_commands(sub, _subparser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from .runner.errors import Unfinished
    from .runner.redact import clip

    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except Unfinished as exc:
        print(f"error: {clip(exc, 2000)}", file=sys.stderr)
        return EXIT_UNFINISHED
    except (DataError, ValueError) as exc:
        print(f"error: {clip(exc, 2000)}", file=sys.stderr)  # one line, every secret redacted
        return EXIT_USAGE
    except KeyboardInterrupt as exc:
        from .runner.loop import Terminated

        if isinstance(exc, Terminated):
            if not getattr(exc, "reported", False):
                print("terminated", file=sys.stderr)
            return EXIT_TERMINATED
        if not getattr(exc, "reported", False):  # a run says itself what was saved, in one line
            print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # output piped into head and the like
        return 0
