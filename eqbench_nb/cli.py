"""Command line: ``python -m eqbench_nb COMMAND``. Every user mistake is a one-line error, exit 2."""
from __future__ import annotations

import argparse
import csv
import json
import sys

from .conventions import CONVENTIONS, score_run
from .data import DataError
from .runs import RunFormatError, find_run_files, read_run

EXIT_USAGE = 2


def _add_score(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="score run files or folders of them",
                       description="Score EQ-Bench runs (eqbench_nb JSON Lines, upstream EQ-Bench results JSON, "
                                   "lm-evaluation-harness samples): one row per run.")
    p.add_argument("paths", nargs="+", metavar="PATH", help="run files or folders of them")
    p.add_argument("--convention", choices=CONVENTIONS, default="official")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table")
    p.set_defaults(func=cmd_score)


def cmd_score(args: argparse.Namespace) -> int:
    files = find_run_files(args.paths)
    rows, errors = [], 0
    for path in files:
        try:
            if not path.exists():
                raise RunFormatError(path, "no such file or folder")
            rows.append(score_run(read_run(path), args.convention).as_row() | {"file": str(path)})
        except RunFormatError as exc:
            print(f"error: {exc}", file=sys.stderr)
            errors += 1
    if not files:
        print("error: no run files found in " + ", ".join(args.paths), file=sys.stderr)
        return EXIT_USAGE
    print_rows(rows, args.format)
    return EXIT_USAGE if errors else 0


def print_rows(rows: list[dict], fmt: str) -> None:
    if fmt == "json":
        print(json.dumps(rows, indent=1))
        return
    if fmt == "csv":
        if rows:
            w = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        return
    cols = ["model", "questions", "parseable", "score", "failed"]
    table = [[str(r[c]) if c != "failed" else ("FAILED" if r[c] else "") for c in cols] for r in rows]
    widths = [max([len(c)] + [len(t[i]) for t in table]) for i, c in enumerate(cols)]
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
    for t in table:
        print("  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(t, widths))))


def _add_reproduce(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("reproduce", help="execute every notebook and regenerate every figure",
                       description="Execute every notebook in notebooks/ in a fresh kernel (outputs saved in "
                                   "place), write every figure under figures/ and figures/SUMMARY.md.")
    p.add_argument("notebooks", nargs="*", metavar="NOTEBOOK", help="only these notebooks (default: all)")
    p.add_argument("--timeout", type=int, default=900, help="seconds per cell (default 900)")
    p.set_defaults(func=cmd_reproduce)


def cmd_reproduce(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .reproduce import notebook_paths, reproduce
    paths = [Path(p).resolve() for p in args.notebooks] or notebook_paths()
    missing = [str(p) for p in paths if not p.is_file()]
    if missing or not paths:
        print(f"error: no such notebook: {', '.join(missing) or 'notebooks/ holds none'}", file=sys.stderr)
        return EXIT_USAGE
    results = reproduce(paths, timeout=args.timeout)
    failed = [r for r in results if r.error]
    total = sum(r.seconds for r in results)
    print(f"{len(results) - len(failed)} of {len(results)} notebooks ran in {total:.0f} s; "
          f"figures and SUMMARY.md are in figures/")
    return 1 if failed else 0


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run EQ-Bench against an OpenAI-compatible endpoint (default: the bundled model)",
                       description="Run EQ-Bench against any OpenAI-compatible endpoint; without --base-url the "
                                   "bundled SmolLM2-135M-Instruct is served on 127.0.0.1 for the run. Running the "
                                   "same command again resumes the run file.")
    p.add_argument("--base-url", help="endpoint, e.g. https://api.openai.com/v1 (default: the bundled model)")
    p.add_argument("--model", help="model name (default: the endpoint's first listed model)")
    p.add_argument("--version", default="v2", help="question set: v2 (default), v1 or de")
    p.add_argument("--protocol", choices=("official", "lm-eval"), default="official")
    p.add_argument("--revise", action="store_true", help="use the critique-and-revise prompt")
    p.add_argument("--temperature", type=float, metavar="T",
                   help="first attempt's temperature (default: the protocol's, 0.01 official / 0 lm-eval)")
    p.add_argument("--iterations", type=int, default=1, metavar="N")
    p.add_argument("--concurrency", type=int, metavar="C", help="requests in flight (default 8; 1 for the bundled model)")
    p.add_argument("--limit", type=int, metavar="K", help="only the first K questions")
    p.add_argument("--questions", metavar="IDS", help="question ids, e.g. 1,5,10-12")
    p.add_argument("--out", default="runs", metavar="DIR", help="folder for run files (default runs/)")
    p.add_argument("--run-id", metavar="ID", help="run id (default: derived from the settings, so reruns resume)")
    p.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key (default OPENAI_API_KEY)")
    p.add_argument("--timeout", type=float, metavar="S", help="per-request timeout in seconds (default 120)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    from .runner import run_benchmark

    result = run_benchmark(base_url=args.base_url, model=args.model, version=args.version, protocol=args.protocol,
                           revise=args.revise, temperature=args.temperature, iterations=args.iterations, concurrency=args.concurrency,
                           limit=args.limit, questions=args.questions, out_dir=args.out, run_id=args.run_id,
                           api_key_env=args.api_key_env, timeout=args.timeout, progress=not args.no_progress)
    print(result.table())
    return 0


def _add_serve_local(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve-local", help="serve the bundled model on 127.0.0.1 until Ctrl-C",
                       description="Serve the bundled SmolLM2-135M-Instruct through llama.cpp's OpenAI-compatible "
                                   "server on 127.0.0.1, for other tools; prints the base URL.")
    p.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    p.add_argument("--parallel", type=int, default=1, metavar="N", help="server slots (default 1)")
    p.set_defaults(func=cmd_serve_local)


def cmd_serve_local(args: argparse.Namespace) -> int:
    import signal
    import time

    from .local_model import MODEL_NAME, LocalModelError, LocalServer

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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m eqbench_nb", description="Run, score and study EQ-Bench.")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_score(sub)
    _add_run(sub)
    _add_serve_local(sub)
    _add_reproduce(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (DataError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into head and the like
        return 0
