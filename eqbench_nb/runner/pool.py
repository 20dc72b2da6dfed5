"""Concurrency and progress, in one place for every benchmark.

:func:`run_pool` keeps at most C jobs in flight and stops cleanly; :class:`Progress` is the bar;
:func:`answer_all` ties them to a run file: each finished record is appended (and fsynced) as it
arrives, a job whose requests gave up is left for the next resume, and a run that keeps failing
stops with one line. On any stop (an error, a refused key, a failed write, Ctrl-C, SIGTERM) no new
request is sent, and answers already in flight are written if they arrive within a grace period.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from .errors import RunnerError, TransportGaveUp, Unfinished
from .runfile import RunFile
from .transport import Halted, Transport

#: Seconds a stopping run waits for the answers already in flight (a SIGTERM is often followed by
#: a SIGKILL 10 s later).
STOP_GRACE_S = 5.0

J = TypeVar("J")
R = TypeVar("R")

#: (parsed?, the record's score or None) for the progress bar's running parse rate and score.
Summary = Callable[[Any], tuple[bool, float | None]]
#: The job whose ``solve`` is running (set per task), naming its requests in the Batch API's custom_ids.
BATCH_ITEM: contextvars.ContextVar[str] = contextvars.ContextVar("batch_item")
T = TypeVar("T")


class BatchRound(Protocol):
    """A transport whose queued requests go out together (:class:`~eqbench_nb.runner.batch.BatchTransport`)."""

    async def run_round(self) -> None: ...


class Parking:
    """The jobs of a run waiting for a batch: a batched judge's answers, beside a model under test asked one
    request at a time. A job waiting frees its place in the pool (another job's subject steps go on), and when
    every job left is waiting (the subject has nothing more to ask), each batched transport sends what it has
    queued as one batch (:meth:`rounds`): the judgements of every finished item at once, then the re-asks as the
    next, smaller round. ``parked`` counts requests queued or in a batch and not answered yet, ``alive`` the lanes
    that may still ask: one per job started and not finished, or one per request a job sends side by side
    (:func:`side_by_side`: a panel's batched judges)."""

    def __init__(self, transports: Sequence[BatchRound]):
        self.transports = list(transports)
        self.parked = self.alive = 0
        self.exhausted = False  # no job is left to start
        self.ready = asyncio.Event()
        #: the pool's: a job parked, so a worker may take the next job in its place
        self.on_park: Callable[[], None] = lambda: None

    def park(self) -> None:
        self.parked += 1
        self.on_park()
        self.check()

    def unpark(self) -> None:
        self.parked -= 1

    def check(self) -> None:
        """Every job left waits for a batch: time for the next round."""
        if self.exhausted and self.parked > 0 and self.parked >= self.alive:
            self.ready.set()

    def drain(self) -> None:
        """No job will start (the run is stopping): a round answers the waiting ones (halted: at once)."""
        self.exhausted = True
        self.check()

    async def side_by_side(self, coros: Sequence[Awaitable[T]]) -> list[T | BaseException]:
        """Run ``coros`` (one job's requests to several endpoints) side by side, each a lane of its own while its
        job's lane waits for them; their results or exceptions, in order, once every one has ended."""
        self.alive += len(coros) - 1

        async def lane(coro: Awaitable[T]) -> T:
            try:
                return await coro
            finally:
                self.alive -= 1
                self.check()

        try:
            return list(await asyncio.gather(*(lane(c) for c in coros), return_exceptions=True))
        finally:
            self.alive += 1

    async def rounds(self) -> None:
        while True:
            await self.ready.wait()
            self.ready.clear()
            await asyncio.gather(*(t.run_round() for t in self.transports))


#: The run's :class:`Parking`, for a ``solve`` that asks several batched judges side by side (None: no batched judge).
PARKING: contextvars.ContextVar[Parking | None] = contextvars.ContextVar("parking", default=None)


async def run_pool(
    jobs: Iterable[J],
    work: Callable[[J], Awaitable[R]],
    concurrency: int,
    on_result: Callable[[J, R], None],
    grace_s: float = 0.0,
    on_stop: Callable[[], None] | None = None,
    parking: Parking | None = None,
) -> None:
    """Run ``work`` over ``jobs`` with at most ``concurrency`` in flight (jobs waiting for a batch, ``parking``,
    not counted: :func:`_run_parked_pool`).

    A fixed set of workers pulls from one shared iterator, so memory stays flat however many jobs
    there are. ``on_result`` sees each result as it finishes. The first exception (or a cancel of
    the caller: Ctrl-C) stops the pool: no worker takes a new job, ``on_stop`` is called (to stop
    new requests), the jobs in flight get ``grace_s`` seconds to finish (their results still go to
    ``on_result``), the rest are cancelled, and the exception propagates.
    """
    if parking is not None:
        return await _run_parked_pool(jobs, work, concurrency, on_result, grace_s, on_stop, parking)
    source: Iterator[J] = iter(jobs)
    stopping = False

    async def worker() -> None:
        for job in source:  # next() is synchronous: safe to share between coroutines of one loop
            if stopping:
                return
            on_result(job, await work(job))

    tasks = [asyncio.ensure_future(worker()) for _ in range(max(1, concurrency))]
    cancelled = False
    try:
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        except asyncio.CancelledError:
            cancelled = True
        errors = [e for t in tasks if t.done() and not t.cancelled() and (e := t.exception()) is not None]
        if errors or cancelled:
            stopping = True
            await _wind_down(tasks, on_stop, grace_s)
    finally:
        await _cancel_all(tasks)
    _raise_first(errors, cancelled)


async def _wind_down(tasks: Sequence[asyncio.Future[None]], on_stop: Callable[[], None] | None, grace_s: float) -> None:
    """A pool stopping (its workers told already): ``on_stop`` (no new request), then the jobs in flight get
    ``grace_s`` seconds to finish; a second Ctrl-C cancels that wait too."""
    if on_stop is not None:
        on_stop()
    running = [t for t in tasks if not t.done()]
    if running and grace_s > 0:
        await asyncio.wait(running, timeout=grace_s)


async def _cancel_all(tasks: Sequence[asyncio.Future[Any]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _raise_first(errors: list[BaseException], cancelled: bool) -> None:
    """The pool's end: its first error, else the caller's cancel (Ctrl-C), else nothing."""
    if errors:
        raise errors[0]
    if cancelled:
        raise asyncio.CancelledError


async def _run_parked_pool(
    jobs: Iterable[J],
    work: Callable[[J], Awaitable[R]],
    concurrency: int,
    on_result: Callable[[J, R], None],
    grace_s: float,
    on_stop: Callable[[], None] | None,
    parking: Parking,
) -> None:
    """:func:`run_pool` with at most ``concurrency`` jobs in flight that are not waiting for a batch: a job that
    parks frees its place (a worker is started for the next job), and a worker whose job is done leaves when more
    than ``concurrency`` are at work again. The batches go out from :meth:`Parking.rounds`, run beside the workers."""
    source: Iterator[J] = iter(jobs)
    stopping = False
    workers = 0
    tasks: list[asyncio.Future[None]] = []
    grew = asyncio.Event()

    async def worker() -> None:
        nonlocal workers
        try:
            while not stopping and workers - parking.parked <= concurrency:
                job = next(source, None)  # planned jobs are never None
                if job is None:
                    parking.exhausted = True
                    return
                parking.alive += 1
                try:
                    result = await work(job)
                finally:
                    parking.alive -= 1
                on_result(job, result)
        finally:
            workers -= 1
            parking.check()

    def spawn() -> None:
        nonlocal workers
        workers += 1
        tasks.append(asyncio.ensure_future(worker()))
        grew.set()

    def freed() -> None:
        if not stopping and not parking.exhausted and workers - parking.parked < concurrency:
            spawn()

    parking.on_park = freed
    rounds = asyncio.ensure_future(parking.rounds())
    for _ in range(max(1, concurrency)):
        spawn()
    cancelled = False
    errors: list[BaseException] = []
    try:
        try:
            while True:
                errors = [e for t in tasks if t.done() and not t.cancelled() and (e := t.exception()) is not None]
                if rounds.done() and not rounds.cancelled() and (e := rounds.exception()) is not None:
                    errors.append(e)
                running = [t for t in tasks if not t.done()]
                if errors or not running:
                    break
                grew.clear()
                waiter: asyncio.Future[Any] = asyncio.ensure_future(grew.wait())
                watched: list[asyncio.Future[Any]] = [*running, waiter, rounds]
                try:
                    await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    waiter.cancel()
        except asyncio.CancelledError:
            cancelled = True
        if errors or cancelled:
            stopping = True

            def halt() -> None:
                if on_stop is not None:
                    on_stop()
                parking.drain()  # the halted transports answer the waiting jobs with Halted

            await _wind_down(tasks, halt, grace_s)
    finally:
        await _cancel_all([*tasks, rounds])
    _raise_first(errors, cancelled)


class Progress:
    """A tqdm bar (notebook-aware) with the parse rate and the running score (``score_scale`` x the mean of
    ``summary``'s scores, shown as ``score_label``: EQ-Bench's 10 x mean item score by default)."""

    def __init__(
        self,
        total: int,
        initial: list[Any],
        summary: Summary,
        enabled: bool = True,
        desc: str = "EQ-Bench",
        score_label: str = "score",
        score_scale: float = 10.0,
    ):
        self.score_label, self.score_scale = score_label, score_scale
        self.n = self.parsed = self.scored = 0
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
        if parsed and score is not None:  # a record can be fine and have no score of its own (a conversation's turn)
            self.scored += 1
            self.score_sum += score

    def _postfix(self, retries: int = 0) -> None:
        parse = f"{100 * self.parsed / self.n:.0f}%" if self.n else "-"
        score = f"{self.score_scale * self.score_sum / self.scored:.1f}" if self.scored else "-"
        self.bar.set_postfix_str(f"parsed {parse}, {self.score_label} {score}, retries {retries}", refresh=False)

    def update(self, record: Any | None, retries: int = 0) -> None:
        if record is not None:
            self._count(record)
        if self.bar is not None:
            self._postfix(retries)
            self.bar.update(1)

    def write(self, message: str) -> None:
        """A one-line message on stderr that does not tear the bar."""
        if self.bar is not None:
            from tqdm.auto import tqdm

            tqdm.write(message, file=sys.stderr)
        else:
            print(message, file=sys.stderr)

    def close(self, failed: bool = False) -> None:
        """Close the bar; on failure remove it, so the one-line error is what the user sees."""
        if self.bar is not None:
            if failed:
                self.bar.leave = False
            self.bar.close()


#: What a refusal of every first request asks the user to check, unless the run says better.
DEFAULT_HINT = "check --model and the endpoint's limits"


class FirstAnswers:
    """Records held back until the endpoint has answered one request, in every runner (this session's
    answers, or an earlier session's records in the run file, say it answers).

    A 400 for every request says the settings are wrong, not the questions: records of the first
    questions are held while nothing has been answered, and when ``limit`` of them are held (or every
    question of a small run), the run stops with :meth:`refusal`, writing none of them, so a fixed
    setting asks them again."""

    def __init__(
        self, run_file: RunFile, transport: Transport, limit: int, noun: str = "questions", hint: str = DEFAULT_HINT
    ):
        self.trusted = bool(run_file.finished)
        self.transport, self.limit = transport, limit
        #: what a job is called in the refusal (Judgemark's are pieces), and what to check
        self.noun, self.hint = noun, hint
        self.held: list[Any] = []

    def admit(self, record: Any) -> list[Any]:
        """The records to write now: none while nothing has been answered (this one is held), else the held
        ones and this one."""
        if not self.trusted and self.transport.stats.responses == 0:
            self.held.append(record)
            return []
        self.trusted = True
        out, self.held = [*self.held, record], []
        return out

    @property
    def refused(self) -> bool:
        return len(self.held) >= self.limit

    def refusal(self, endpoint: str, rejected: int | None = None) -> RunnerError:
        """The one-line stop: every request of the first ``rejected`` items (default: those held) rejected."""
        n = len(self.held) if rejected is None else rejected
        return RunnerError(
            f"{endpoint} rejected every request of the first {n} {self.noun} (last: {self.transport.last_fault}); "
            f"nothing was written: {self.hint}"
        )


@dataclass(frozen=True)
class _Yielded:
    """A job whose ``solve`` yielded its records (each written as it came); ``last`` is shown by the bar."""

    last: Any


@dataclass
class PoolCounts:
    answered: int = 0  # records written by this call
    unfinished: int = 0  # jobs whose requests gave up, or were stopped (left for the next resume)
    streak: int = 0  # jobs in a row that gave up
    held: list[Any] = field(default_factory=list)  # records not written until the endpoint has answered once


async def answer_all(
    jobs: Iterable[J],
    solve: Callable[[J], Awaitable[R] | AsyncIterator[R]],
    run_file: RunFile,
    transport: Transport,
    concurrency: int,
    progress: Progress,
    endpoint: str,
    grace_s: float = STOP_GRACE_S,
    others: Sequence[Transport] = (),
    item_noun: str = "questions",
    hint: str = DEFAULT_HINT,
    parking: Parking | None = None,
    item_key: Callable[[J], str] | None = None,
) -> PoolCounts:
    """Solve every job with at most ``concurrency`` in flight, appending each record to ``run_file``.

    ``others`` are the run's other transports (a judge's): a stop halts them with ``transport``. ``endpoint``
    names the endpoint in messages, ``item_noun`` what the benchmark's jobs are in its stop lines ("questions",
    "scenarios", "prompts", "pieces") and ``hint`` what to check when every first request is refused
    (:class:`FirstAnswers`).

    ``solve(job)`` returns one record, or is an async generator yielding several (a conversation's turns), each
    written as soon as it is yielded, and on disk (fsynced) before the generator goes on to its next request: a job
    stopped half way keeps what it yielded, and counts as unfinished, and a kill loses none of its paid replies.

    A job whose requests gave up is left unanswered (the next resume asks it again). When
    ``max(3, concurrency)`` jobs in a row give up, the endpoint is taken to be down and the run
    stops with one line. Until the endpoint has answered one request (this session, or the run
    file holds answers from an earlier one), records are held back: if the first
    ``max(3, concurrency)`` questions are all rejected (a 400 for every request says the settings are
    wrong, not the questions), the run stops without writing them, so a fixed setting can ask them
    again. A failed write stops the run at once (no request is sent after it).

    ``parking``: the run's batched judges (:class:`Parking`); a job waiting for a batch frees its place, and its
    requests' custom_ids name it by ``item_key(job)``.
    """
    counts = PoolCounts()
    limit = max(3, concurrency)
    gate = FirstAnswers(run_file, transport, limit, item_noun, hint)
    counts.held = gate.held
    loop = asyncio.get_running_loop()

    def writer_failed(message: str) -> None:  # called from the writer thread
        with contextlib.suppress(RuntimeError):  # RuntimeError: the loop has closed, nothing is sent any more
            for t in (transport, *others):
                loop.call_soon_threadsafe(t.halt, message)

    run_file.on_error = writer_failed

    async def work(job: J) -> R | _Yielded | BaseException:
        if item_key is not None:
            BATCH_ITEM.set(item_key(job))
        if parking is not None:
            PARKING.set(parking)
        try:
            produced = solve(job)
            if isinstance(produced, AsyncIterator):  # several records, each written as soon as it is yielded
                last = None
                async for record in produced:
                    accept(record)
                    progress.update(record, transport.stats.retries)  # the bar counts records, as it starts
                    last = record
                    await run_file.durable()  # on disk before the job's next request: a kill loses no paid reply
                return _Yielded(last)
            return await produced
        except (TransportGaveUp, Halted) as exc:
            return exc

    def write(record: R) -> None:
        run_file.append(record)
        counts.answered += 1

    def accept(record: R) -> None:
        """Write ``record``, or hold it back while no request of this run has been answered."""
        for ready in gate.admit(record):
            write(ready)
        counts.held = gate.held
        if gate.refused:
            raise gate.refusal(endpoint)

    def on_result(job: J, record: R | _Yielded | BaseException) -> None:
        if isinstance(record, BaseException):  # Halted (the run is stopping) or TransportGaveUp
            counts.unfinished += 1
            if isinstance(record, Halted):
                if run_file.error:
                    raise RunnerError(run_file.error)
                return
            counts.streak += 1
            if counts.streak >= limit and transport.halted is None:
                # the transport that gave up says where and what (a judge's, in a run with two endpoints)
                where = getattr(record, "endpoint", "") or endpoint
                last = getattr(record, "last_fault", "") or transport.last_fault or str(record) or "none recorded"
                raise Unfinished(
                    f"{where} keeps failing ({counts.streak} {item_noun} in a row gave up; last: {last}); "
                    "finished answers are saved, run the same command again to resume"
                )
            progress.update(None, transport.stats.retries)
            return
        counts.streak = 0
        if isinstance(record, _Yielded):  # its records are written, and counted by the bar, already
            return
        accept(record)
        progress.update(record, transport.stats.retries)

    def halt() -> None:
        for t in (transport, *others):
            t.halt("stopping")

    await run_pool(jobs, work, concurrency, on_result, grace_s, halt, parking)
    if gate.held:  # every question of a small run was rejected
        raise gate.refusal(endpoint)
    return counts
