"""EmotionBench's part of the command line: its ``run`` options, its run, its ``score`` rows.

``eqbench_nb.cli`` stays the one entry point; it adds these options to ``run`` and hands over when
``--benchmark emotionbench`` is given or a run file's header names EmotionBench.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from ..runner.redact import clip, output
from .items import EMOTIONS
from .parsing import PARSERS
from .runs import is_emotionbench_file, read_emotion_run
from .summary import summarise_run

__all__ = [
    "add_run_options",
    "is_emotionbench_file",
    "print_emotionbench_rows",
    "run_emotionbench_command",
    "score_file",
]

EXIT_UNFINISHED = 3
#: EQ-Bench's run options and their defaults: given with --benchmark emotionbench they are a mistake.
_EQBENCH_ONLY = {"version": "v2", "protocol": "official", "revise": False, "temperature": None, "iterations": 1,
                 "limit": None, "questions": None, "form": None, "max_tokens": None, "reasoning_effort": None,
                 "batch": False, "batch_wait": 25 * 3600.0, "dry_run": False, "price_in": None,
                 "price_out": None}  # fmt: skip


def _at_least(n: int) -> Any:
    def parse(text: str) -> int:
        value = int(text)
        if value < n:
            raise argparse.ArgumentTypeError(f"must be at least {n}, not {value}")
        return value

    return parse


def add_run_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("EmotionBench (with --benchmark emotionbench)")
    g.add_argument("--repeats", type=_at_least(1), default=10, metavar="N",
                   help="times each situation is asked (the paper: 10)")  # fmt: skip
    g.add_argument("--default-repeats", type=_at_least(2), metavar="M",
                   help="times the default (no situation) is asked (default 5 x N, as the paper's 50)")  # fmt: skip
    g.add_argument("--per-factor", type=_at_least(1), metavar="K",
                   help="only the first K situations of each factor (default all: 175 situations)")  # fmt: skip
    emotions = ", ".join(EMOTIONS)
    g.add_argument("--emotions", metavar="LIST", help=f"only these emotions, comma-separated: {emotions}")
    g.add_argument("--orders", type=_at_least(1), default=1, metavar="K",
                   help="item orders: 1 = the questionnaire's; K > 1 adds K-1 seeded shuffles")  # fmt: skip
    g.add_argument("--parser", choices=PARSERS, default="robust",
                   help="reader of the answers: this project's, or upstream's last-character reader")  # fmt: skip


def run_emotionbench_command(args: argparse.Namespace) -> int:
    from .task import run_emotionbench

    given = [k for k, default in _EQBENCH_ONLY.items() if getattr(args, k, default) != default]
    if given:
        names = {"version": "--set", "iterations": "--iterations (use --repeats)"}
        names |= {k: "--" + k.replace("_", "-") for k in _EQBENCH_ONLY if "_" in k}
        raise ValueError(
            f"{', '.join(names.get(k, '--' + k) for k in given)} belong{'s' if len(given) == 1 else ''} to EQ-Bench; "
            "EmotionBench takes --repeats, --default-repeats, --per-factor, --emotions, --orders, --parser"
        )
    emotions = [e.strip() for e in args.emotions.split(",") if e.strip()] if args.emotions else None
    result = run_emotionbench(
        base_url=args.base_url,
        model=args.model,
        repeats=args.repeats,
        default_repeats=args.default_repeats,
        per_factor=args.per_factor,
        emotions=emotions,
        orders=args.orders,
        parser=args.parser,
        concurrency=args.concurrency,
        out_dir=args.out,
        run_id=args.run_id,
        api_key_env=args.api_key_env,
        timeout=args.timeout,
        progress=not args.no_progress,
        seed=args.seed,
        retry_budget=args.retry_budget,
        repair=args.repair,
        adaptive=not args.no_adaptive,
    )
    print(output(result.table()))
    if not result.complete:
        n = result.unfinished
        print(
            output(
                f"error: {n or 'some'} question{'' if n == 1 else 's'} left unfinished (last fault: "
                f"{result.last_fault or 'none'}); run the same command again to resume"
            ),
            file=sys.stderr,
        )
        return EXIT_UNFINISHED
    return 0


def score_file(path: Path) -> dict[str, Any]:
    """One EmotionBench run file's score row (``eqbench-nb score``); warnings go to stderr."""
    run = read_emotion_run(path)
    summary = summarise_run(run)
    warnings = [*run.warnings, *filter(None, [summary.incomplete_note()])]
    for warning in warnings:
        print(f"warning: {clip(f'{path}: {warning}', 1000)}", file=sys.stderr)
    return summary.as_row() | {"file": str(path), "warnings": len(warnings)}


_TABLE = ("model", "run_id", "default_pa", "default_na", "evoked_pa", "evoked_na", "n_default", "n_evoked",
          "refusals", "overall_pa", "overall_na")  # fmt: skip


def print_emotionbench_rows(rows: list[dict[str, Any]], fmt: str, out: TextIO) -> None:
    """EmotionBench score rows as JSON, CSV or an aligned table, each cell escaped for its format
    (:mod:`eqbench_nb.tabular`: a model name from a run file is hostile)."""
    import pandas as pd

    from ..tabular import json_text, render, text

    if fmt == "json":
        out.write(json_text(rows))
        return
    if fmt == "csv":
        out.write(render(pd.DataFrame(rows), "csv"))
        return
    cols = list(_TABLE) + (["warnings"] if any(r.get("warnings") for r in rows) else [])
    cells = [["-" if r.get(c) is None else text(r.get(c)) for c in cols] for r in rows]
    widths = [max([len(c)] + [len(t[i]) for t in cells]) for i, c in enumerate(cols)]
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths)), file=out)
    for t in cells:
        print("  ".join(v.ljust(w) if i < 2 else v.rjust(w) for i, (v, w) in enumerate(zip(t, widths))), file=out)
    print("EmotionBench (PANAS): means over complete answers; overall: evoked vs default, F then t, α = 0.01", file=out)
