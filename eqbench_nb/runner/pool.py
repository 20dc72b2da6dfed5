"""Concurrency and progress, in one place for every benchmark.

:func:`run_pool` keeps at most C jobs in flight; :class:`Progress` is the bar; :func:`answer_all`
ties them to a run file: each finished record is appended (and fsynced) as it arrives, a job whose
requests gave up is left for the next resume, and a run that keeps failing stops with one line.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import RunnerError, TransportGaveUp
from .runfile import RunFile
from .transport import Transport

J = TypeVar("J")
R = TypeVar("R")

#: (parsed?, the record's score or None) for the progress bar's running parse rate and score.
Summary = Callable[[Any], tuple[bool, float | None]]


async def run_pool(
    jobs: Iterable[J], work: Callable[[J], Awaitable[R]], concurrency: int, on_result: Callable[[J, R], None]
) -> None:
    """Run ``work`` over ``jobs`` with at most ``concurrency`` in flight.

    A fixed set of workers pulls from one shared iterator, so memory stays flat however many jobs
    there are. ``on_result`` sees each result as it finishes. The first exception cancels the
    other workers and propagates.
    """
    source: Iterator[J] = iter(jobs)

    async def worker() -> None:
        for job in source:  # next() is synchronous: safe to share between coroutines of one loop
            on_result(job, await work(job))

    tasks = [asyncio.ensure_future(worker()) for _ in range(max(1, concurrency))]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


class Progress:
    """A tqdm bar (notebook-aware) with the parse rate and the running score (10 x mean item score)."""

    def __init__(self, total: int, initial: list[Any], summary: Summary, enabled: bool = True, desc: str = "EQ-Bench"):
        self.n = self.parsed = 0
        self.score_sum = 0.0
        self.summary = summary
        self.bar: Any = None
        for r in initial:
            self._count(r)
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(
                total=total,
                initial=len(initial),
                desc=desc,
                unit="q",
                dynamic_ncols=True,
                mininterval=0.2,
                file=sys.stderr,
            )
            self._postfix()

    def _count(self, record: Any) -> None:
        self.n += 1
        parsed, score = self.summary(record)
        if parsed:
            self.parsed += 1
            self.score_sum += score or 0.0

    def _postfix(self, retries: int = 0) -> None:
        parse = f"{100 * self.parsed / self.n:.0f}%" if self.n else "-"
        score = f"{10 * self.score_sum / self.parsed:.1f}" if self.parsed else "-"
        self.bar.set_postfix_str(f"parsed {parse}, score {score}, retries {retries}", refresh=False)

    def update(self, record: Any | None, retries: int = 0) -> None:
        if record is not None:
            self._count(record)
        if self.bar is not None:
            self._postfix(retries)
            self.bar.update(1)

    def close(self, failed: bool = False) -> None:
        """Close the bar; on failure remove it, so the one-line error is what the user sees."""
        if self.bar is not None:
            if failed:
                self.bar.leave = False
            self.bar.close()


@dataclass
class PoolCounts:
    answered: int = 0  # records written by this call
    unfinished: int = 0  # jobs whose requests gave up (left for the next resume)
    streak: int = 0  # jobs in a row that gave up


async def answer_all(
    jobs: Iterable[J],
    solve: Callable[[J], Awaitable[R]],
    run_file: RunFile,
    transport: Transport,
    concurrency: int,
    progress: Progress,
    endpoint: str,
) -> PoolCounts:
    """Solve every job with at most ``concurrency`` in flight, appending each record to ``run_file``.

    A job whose requests gave up is left unanswered (the next resume asks it again). When
    ``max(3, concurrency)`` jobs in a row give up, the endpoint is taken to be down and the run
    stops with one line.
    """
    counts = PoolCounts()
    giveup_limit = max(3, concurrency)

    async def work(job: J) -> R | None:
        try:
            return await solve(job)
        except TransportGaveUp:
            return None

    def on_result(job: J, record: R | None) -> None:
        if record is None:
            counts.unfinished += 1
            counts.streak += 1
            if counts.streak >= giveup_limit:
                raise RunnerError(
                    f"{endpoint} keeps failing ({counts.streak} questions in a row gave up "
                    f"after {transport.policy.max_retries} retries; last: {transport.last_fault}); "
                    f"finished answers are saved, run the same command again to resume"
                )
        else:
            run_file.append(record)
            counts.answered += 1
            counts.streak = 0
        progress.update(record, transport.stats.retries)

    await run_pool(jobs, work, concurrency, on_result)
    return counts
