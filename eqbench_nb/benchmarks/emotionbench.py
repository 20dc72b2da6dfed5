"""EmotionBench's PANAS test as the command line sees it: its ``run`` options, its run, its ``score`` rows.

Its run files name it in their header (``"benchmark": "emotionbench"``). ``runs`` lists them; ``compare``,
``leaderboard`` and ``plot`` compare EQ-Bench scores and do not apply to its runs (a folder's are passed over, said).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from ..emotionbench.items import EMOTIONS
from ..emotionbench.parsing import PARSERS
from ..emotionbench.runs import BENCHMARK, read_emotion_run
from ..emotionbench.summary import summarise_run
from ..runner.redact import clip, output
from ..runner.settings import Endpoint, RunSettings
from . import EXIT_UNFINISHED, Benchmark, Table, at_least


def add_run_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("EmotionBench (with --benchmark emotionbench)")
    g.add_argument("--repeats", type=at_least(1), default=10, metavar="N",
                   help="times each situation is asked (the paper: 10)")  # fmt: skip
    g.add_argument("--default-repeats", type=at_least(2), metavar="M",
                   help="times the default (no situation) is asked (default 5 x N, as the paper's 50)")  # fmt: skip
    g.add_argument("--per-factor", type=at_least(1), metavar="K",
                   help="only the first K situations of each factor (default all: 175 situations)")  # fmt: skip
    emotions = ", ".join(EMOTIONS)
    g.add_argument("--emotions", metavar="LIST", help=f"only these emotions, comma-separated: {emotions}")
    g.add_argument("--orders", type=at_least(1), default=1, metavar="K",
                   help="item orders: 1 = the questionnaire's; K > 1 adds K-1 seeded shuffles")  # fmt: skip
    g.add_argument("--parser", choices=PARSERS, default="robust",
                   help="reader of the answers: this project's, or upstream's last-character reader")  # fmt: skip


def run(args: argparse.Namespace, endpoint: Endpoint, settings: RunSettings) -> int:
    from ..emotionbench.task import run_emotionbench

    emotions = [e.strip() for e in args.emotions.split(",") if e.strip()] if args.emotions else None
    result = run_emotionbench(
        endpoint,
        settings,
        repeats=args.repeats,
        default_repeats=args.default_repeats,
        per_factor=args.per_factor,
        emotions=emotions,
        orders=args.orders,
        parser=args.parser,
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


def score_rows(path: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    """One EmotionBench run file's score row (``eqbench-nb score``); warnings go to stderr."""
    run = read_emotion_run(path)
    summary = summarise_run(run)
    warnings = [*run.warnings, *filter(None, [summary.incomplete_note(), summary.empty_note()])]
    for warning in warnings:
        print(f"warning: {clip(f'{path}: {warning}', 1000)}", file=sys.stderr)
    return [summary.as_row() | {"file": str(path), "warnings": len(warnings)}]


_TABLE = ("model", "run_id", "default_pa", "default_na", "evoked_pa", "evoked_na", "n_default", "n_evoked",
          "refusals", "unreadable", "incomplete", "overall_pa", "overall_na")  # fmt: skip


def print_scores(rows: list[dict[str, Any]], fmt: str, out: TextIO, err: TextIO) -> None:
    """EmotionBench score rows as an aligned table, each cell redacted and printable (a model name from a run
    file is hostile)."""
    cols = list(_TABLE) + (["warnings"] if any(r.get("warnings") for r in rows) else [])
    cells = [["-" if r.get(c) is None else clip(r.get(c), 80) for c in cols] for r in rows]
    widths = [max([len(c)] + [len(t[i]) for t in cells]) for i, c in enumerate(cols)]
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths)), file=out)
    for t in cells:
        print("  ".join(v.ljust(w) if i < 2 else v.rjust(w) for i, (v, w) in enumerate(zip(t, widths))), file=out)
    print(
        "EmotionBench (PANAS): means over complete answers (n_default, n_evoked; - where there are none, the reason "
        "on stderr); overall: evoked vs default, F then t, α = 0.01",
        file=out,
    )


def runs(files: Sequence[Path], args: argparse.Namespace) -> Table:
    """One row per EmotionBench run file (``eqbench-nb runs``): who, what it planned and holds, how many answers
    are usable and why the others are not."""
    import pandas as pd

    rows = []
    for path in files:
        run = read_emotion_run(path)
        summary = summarise_run(run)
        rows.append(
            {
                "model": run.model,
                "run_id": run.run_id,
                "questionnaire": run.header.get("questionnaire"),
                "situations": len(run.header.get("situations") or []),
                "repeats": run.header.get("repeats"),
                "records": summary.records,
                "planned": summary.planned,
                "complete": summary.complete,
                "usable": summary.n_default + summary.n_evoked,
                "refusals": summary.refusals,
                "unreadable": summary.statuses.get("unreadable", 0),
                "incomplete": summary.statuses.get("incomplete", 0),
                "started": run.header.get("started_at"),
                "file": str(path),
            }
        )
    table = pd.DataFrame(rows)
    if args.sort in table.columns:  # a column of another benchmark's table sorts that one (the command checks it)
        table = table.sort_values(args.sort, kind="stable").reset_index(drop=True)
    return Table(table, fractions={"usable": "records"})


EMOTIONBENCH = Benchmark(
    name=BENCHMARK,
    title="EmotionBench",
    add_run_options=add_run_options,
    run=run,
    score_rows=score_rows,
    print_scores=print_scores,
    option_hints={"iterations": "--repeats"},
    runs=runs,
)
