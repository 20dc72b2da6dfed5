"""``eqbench-nb judge-check``: a judge, or a panel, against people, as one command.

Each judge rates the human-rated items of ``--data`` in a run of its own (``run --benchmark judge-check`` with the
judge as the endpoint: :mod:`eqbench_nb.benchmarks.judge_check`), so the same command again resumes, and a judge
added to the panel later rates only its own items; then the judges' and the panel's agreement with the people is
printed (the report ``score`` gives for one judge's run).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..benchmarks import EXIT_UNFINISHED
from ..runner.redact import output
from ..runner.settings import DEFAULT_POLL_INTERVAL_S, poll_seconds
from .common import subparser
from .options import add_options, argument_type, options_from, positive_int, whole_number
from .tabular import FORMATS, print_table, render


def add(sub: Any) -> None:
    from ..benchmarks.judge_check import DATA, JudgeCheckJudges

    p = subparser(
        sub,
        "judge-check",
        "a judge or a panel against people: its agreement with the human ratings of two studies",
        "Ask a judge (the --judge-* options, repeated for a panel, or --judges FILE; default: the bundled model) "
        "to rate items people rated, and set its ratings against theirs: Welivita & Pu's 6,000 responses rated Good "
        "/ Okay / Bad (--data welivita-pu, or --sample N of its prompts), or Kumar et al.'s 150 conversations rated "
        "by three experts and a crowd on 12 dimensions (--data kumar). Prints weighted kappa and Spearman with "
        "cluster-bootstrap intervals per judge and for the panel, the reference agreement, a verdict per dimension "
        "and, for W&P, the arm bias. Each judge's ratings are a run file in --out: the same command again resumes.",
        cmd_judge_check,
    )
    p.add_argument("--data", required=True, choices=list(DATA), help="whose ratings the judge is set against")
    p.add_argument("--sample", type=positive_int, metavar="N",
                   help="W&P: N prompts (each with its 3 responses), seeded by --seed, round the emotions")  # fmt: skip
    p.add_argument("--seed", type=int, metavar="S", help="the sample's seed (default 0), also sent with every request")
    p.add_argument("--out", default="runs", metavar="DIR", help="folder for the judges' run files")
    p.add_argument("--reps", type=whole_number, default=1000, metavar="N", help="bootstrap resamples per interval")
    p.add_argument("--dry-run", action="store_true", help="send nothing: print each judge's requests and cost")
    p.add_argument("--batch", action="store_true",
                   help="every judge through OpenAI's Batch API (half price; the same command again collects a batch "
                   "still out)")  # fmt: skip
    p.add_argument("--poll-interval", type=argument_type(poll_seconds), default=DEFAULT_POLL_INTERVAL_S, metavar="S",
                   help="seconds between a batch's polls")  # fmt: skip
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--format", choices=FORMATS, default="table", help="output format of the report")
    add_options(p, JudgeCheckJudges, "run")


def cmd_judge_check(args: argparse.Namespace) -> int:
    from ..benchmarks.judge_check import (
        JudgeCheckJudges,
        JudgeCheckRunOptions,
        judges_from,
        report_rows,
        run_judge,
        tables,
    )
    from ..runner.settings import RunSettings

    if args.sample is not None and args.data != "welivita-pu":
        raise ValueError("--sample draws W&P's prompts (--data welivita-pu); Kumar's 150 conversations are rated whole")
    if args.reps < 100:
        raise ValueError(f"--reps {args.reps}: at least 100 resamples make a 95 % interval")
    specs = judges_from(options_from(args, JudgeCheckJudges))
    given = JudgeCheckRunOptions(data=args.data, sample=args.sample, dry_run=args.dry_run)
    settings = RunSettings(out_dir=args.out, seed=args.seed, progress=not args.no_progress)
    import dataclasses

    batch = {"batch": True, "poll_interval_s": args.poll_interval} if args.batch else {}
    results = [run_judge(given, dataclasses.replace(spec.endpoint, **batch), settings, spec.id) for spec in specs]
    for result in results:  # each judge's run: its file and requests (stdout keeps the report alone)
        print(output(result.table()), file=sys.stderr if not args.dry_run else sys.stdout)
    if args.dry_run:
        return 0
    from ..runner.redact import clean_json

    rows = [clean_json(_defined(r)) for r in report_rows([r.run for r in results], args.reps)]  # type: ignore[union-attr]
    if args.format == "json":
        print(json.dumps(rows, indent=1, allow_nan=False))
    elif args.format == "csv":
        import pandas as pd

        flat = [{k: (json.dumps(v) if isinstance(v, dict) else v) for k, v in r.items()} for r in rows]
        sys.stdout.write(render(pd.DataFrame(flat, columns=list(dict.fromkeys(k for r in flat for k in r))), "csv"))
    else:
        for table in tables(rows):
            print_table(table, args.format)
    unfinished = [r for r in results if not r.complete]
    for r in unfinished:
        print(output(r.unfinished_line()), file=sys.stderr)
    return EXIT_UNFINISHED if unfinished else 0


def _defined(value: Any) -> Any:
    """``value`` with every NaN (an undefined kappa or Spearman) as None, at any depth: JSON has no NaN."""
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, dict):
        return {k: _defined(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_defined(v) for v in value]
    return value
