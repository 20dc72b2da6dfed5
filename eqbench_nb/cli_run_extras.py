"""``eqbench-nb run``'s options for today's endpoints: reasoning models, the Batch API, pacing, cost.

Kept apart from :mod:`eqbench_nb.cli` so the options and their help live together.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from .runner.reasoning import REASONING_EFFORTS


def _price(text: str) -> float:
    value = float(text)
    if not 0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a finite number, 0 or more, not {text}")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text}")
    return value


def _tokens(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def add_run_extras(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("reasoning models")
    g.add_argument(
        "--max-tokens",
        type=_tokens,
        metavar="N",
        help="token limit of every request, replacing the protocol's (None: the protocol's, 60 official): a "
        "reasoning model's reasoning counts in it. Recorded in the run header and the table; changes the default "
        "run id",
    )
    g.add_argument(
        "--reasoning-effort",
        choices=REASONING_EFFORTS,
        help="sent as reasoning_effort while the endpoint accepts it; None: not sent",
    )
    g = p.add_argument_group("OpenAI Batch API (half price)")
    g.add_argument(
        "--batch",
        action="store_true",
        help="send the run as batches (POST /v1/files, /v1/batches; 24h window); re-asks go out as further, "
        "smaller batches. The batch id is in the run file at once: the same command after a kill polls it, "
        "never paying twice",
    )
    g.add_argument("--poll-interval", type=_seconds, default=60.0, metavar="S", help="seconds between batch polls")
    g.add_argument(
        "--batch-wait",
        type=_seconds,
        default=25 * 3600.0,
        metavar="S",
        help="seconds a run polls a batch before it stops (exit 3) with the batch left in the run file for the same "
        "command to collect; default 25 h (the 24 h window and an hour to finish)",
    )
    g = p.add_argument_group("pacing, tokens and cost")
    g.add_argument(
        "--no-adaptive",
        action="store_true",
        help="keep --concurrency requests in flight whatever the server's rate limits say (the old behaviour)",
    )
    g.add_argument(
        "--dry-run",
        action="store_true",
        help="send nothing: print the requests, an estimate of prompt and completion tokens (tiktoken where it "
        "loads offline for the model, else 4 characters per token) and the cost at --price-in/--price-out",
    )
    g.add_argument("--price-in", type=_price, metavar="USD", help="dollars per million prompt tokens (for the cost)")
    g.add_argument(
        "--price-out",
        type=_price,
        metavar="USD",
        help="dollars per million completion tokens, reasoning included (with --batch, half of both is charged)",
    )


def run_options(args: argparse.Namespace) -> Any:
    from .eqbench.task import RunOptions

    return RunOptions(
        max_tokens=args.max_tokens,
        reasoning_effort=args.reasoning_effort,
        adaptive=not args.no_adaptive,
        batch=args.batch,
        poll_interval_s=args.poll_interval,
        batch_wait_s=args.batch_wait,
        price_in=args.price_in,
        price_out=args.price_out,
    )


def dry_run(args: argparse.Namespace) -> int:
    from .eqbench.task import estimate_run

    est = estimate_run(
        model=args.model,
        version=args.version,
        protocol=args.protocol,
        revise=args.revise,
        iterations=args.iterations,
        limit=args.limit,
        questions=args.questions,
        temperature=args.temperature,
        options=run_options(args),
        form=args.form,
    )
    print(f"dry run: nothing sent{' (Batch API prices)' if args.batch else ''}")
    print("\n".join(est.lines()))
    return 0
