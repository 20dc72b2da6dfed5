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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m eqbench_nb", description="Run, score and study EQ-Bench.")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_score(sub)
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
