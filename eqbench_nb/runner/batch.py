"""OpenAI's Batch API: a run's requests sent as batches, at half the price, never paid for twice.

Generic over benchmarks, and over protocols: the benchmark's ``solve`` runs unchanged against a
:class:`BatchTransport`, whose :meth:`~BatchTransport.complete` queues its request and waits. When
every unfinished item is waiting, the queued requests go out as one batch (``POST /v1/files``
with purpose ``batch``, then ``POST /v1/batches`` for ``/v1/chat/completions`` in a ``24h``
window); it is polled (``GET /v1/batches/{id}``) every ``poll_interval_s`` with a progress bar, and
its output and error files are read back. Each answer goes to the ``solve`` that asked, which then
finishes (its record is written at once) or asks again: a protocol's re-ask at a higher temperature,
and items that failed (5xx) or expired, go out as the next, smaller batch.

Nothing paid for twice: a request's ``custom_id`` names its item, its body's sha256 and how many
times the item sent that same body before, so it is the same when a killed run asks again. As soon
as a batch exists, a ``{"type": "event", "event": "batch", ...}`` line with its id and custom_ids is
written to the run file and fsynced. A resumed run that queues a custom_id already in a batch waits
for that batch (polling it again, or reading its finished output) instead of submitting it.

A batch that ends ``expired`` keeps its finished items; the rest are sent again in the next batch.
``failed`` (its input refused) and ``cancelled`` stop the run with one line (what was finished is
kept, and a ``batch_closed`` event lets the next run submit the rest again).
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .errors import EndpointRefused, RunnerError, TransportGaveUp
from .runfile import RunFile
from .transport import Completion, Transport

J = TypeVar("J")
R = TypeVar("R")

#: Times an item is sent again after a fault inside a batch (5xx, expired) before it is left unfinished.
MAX_RESUBMITS = 5
TERMINAL = ("completed", "expired", "failed", "cancelled")

#: The item whose ``solve`` is running (set per task), for its requests' custom_ids.
_ITEM: contextvars.ContextVar[str] = contextvars.ContextVar("batch_item")


def custom_id(item: str, body: dict[str, Any], occurrence: int) -> str:
    """The request's identity across runs: its item, its body and how often the item sent that body."""
    digest = hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]
    return f"{item}~{digest}~{occurrence}"


@dataclass
class BatchStats:
    """What the Batch API did in this session."""

    submitted: list[str] = field(default_factory=list)  # batch ids created now
    resumed: list[str] = field(default_factory=list)  # batch ids of an earlier session collected now
    requests: int = 0  # requests submitted now
    statuses: Counter = field(default_factory=Counter)

    def describe(self) -> str:
        resumed = f", {len(self.resumed)} of an earlier session collected" if self.resumed else ""
        ends = ", ".join(f"{k} x{v}" for k, v in sorted(self.statuses.items())) or "none ended"
        return f"{len(self.submitted)} batches submitted now ({self.requests:,} requests){resumed}; {ends}"


class BatchTransport(Transport):
    """A :class:`Transport` whose requests go out in batches (see the module docstring)."""

    def __init__(self, *args: Any, run_file: RunFile, poll_interval_s: float = 60.0, bars: bool = True, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.run_file = run_file
        self.poll_interval_s = poll_interval_s
        self.bars = bars
        self.batch_stats = BatchStats()
        self._queued: dict[str, tuple[dict[str, Any], asyncio.Future[Any]]] = {}
        self._sent: Counter = Counter()  # (item, body digest) -> times sent, for the occurrence in custom_ids
        self._known: dict[str, str] = {}  # custom_id -> the batch that holds it (from the run file)
        self._results: dict[str, dict[str, Any]] = {}  # batch id -> custom_id -> its output or error line
        closed = {e.get("batch_id") for e in run_file.events if e.get("event") == "batch_closed"}
        for event in run_file.events:
            if event.get("event") == "batch" and event.get("batch_id") not in closed:
                for cid in event.get("custom_ids") or []:
                    self._known[cid] = event["batch_id"]
        self.idle = asyncio.Event()
        self.live = 0

    # ------------------------------------------------------------------ what solve() sees

    async def complete(
        self,
        messages: list[dict[str, str]],
        temperature: float,
        max_tokens: int,
        stop: tuple[str, ...] = (),
        seed: int | None = None,
    ) -> Completion:
        item = _ITEM.get()
        for _ in range(3 + MAX_RESUBMITS):
            body = self.adapter.body(self.model, messages, temperature, max_tokens, stop, seed)
            digest = custom_id(item, body, 0).rsplit("~", 1)[0]
            occurrence = self._sent[digest]
            cid = f"{digest}~{occurrence}"
            line = await self._ask(cid, body)
            outcome = self._outcome(line, body)
            if not isinstance(outcome, Completion):  # a fault in the batch, or a refused parameter: ask again
                continue
            self._sent[digest] += 1  # answered: the next identical request is a new one
            return outcome
        self.stats.gave_up += 1
        raise TransportGaveUp(f"gave up after {MAX_RESUBMITS} resubmissions; last: {self.last_fault}")

    async def _ask(self, cid: str, body: dict[str, Any]) -> dict[str, Any]:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queued[cid] = (body, future)
        self._check_idle()
        return await future

    def _check_idle(self) -> None:
        """Every unfinished item is waiting for an answer not yet asked for: time for the next round."""
        if len(self._queued) >= self.live:
            self.idle.set()

    def _outcome(self, line: dict[str, Any], body: dict[str, Any]) -> Completion | str:
        """A Completion for an output or error line, or "again" to send the request once more."""
        response = line.get("response") if isinstance(line.get("response"), dict) else None
        status = response.get("status_code") if response else None
        if status == 200:
            self.stats.responses += 1
            try:
                return self._completion(response.get("body"), 0.0, [], body)  # type: ignore[union-attr]
            except Exception as exc:  # not a completion: a fault, sent again
                return self._fault("malformed", str(exc))
        error = line.get("error") if isinstance(line.get("error"), dict) else None
        detail = ""
        param = None
        if response and isinstance(response.get("body"), dict):
            err = response["body"].get("error")
            if isinstance(err, dict):
                detail, param = str(err.get("message") or ""), err.get("param")
        if error is not None:
            detail = str(error.get("message") or error.get("code") or "")
        if status == 400 and self.adapter.adapt(body, param if isinstance(param, str) else None, detail):
            return "again"
        if status in (400, 413, 422):
            self.stats.failed[str(status)] += 1
            self.last_fault = f"{status}: rejected ({status}): {self.redact(detail)}"
            return Completion(None, None, None, None, 0.0, [], f"rejected ({status}): {self.redact(detail)}")
        if status in (401, 403, 404):
            raise EndpointRefused(f"{self.endpoint} refused a batch request ({status}): {self.redact(detail)}")
        kind = str(status) if status else (str(error.get("code")) if error else "missing")
        return self._fault(kind, detail)

    def _fault(self, kind: str, detail: str) -> str:
        self.stats.faults[kind] += 1
        self.last_fault = f"{kind}: {self.redact(detail)}"
        return "again"

    # ------------------------------------------------------------------ the rounds

    async def run_round(self) -> None:
        """Answer every queued request: from a batch of an earlier session, or a new one."""
        queued, self._queued = self._queued, {}
        if not queued:
            return
        if self.halted is not None:
            for _, future in queued.values():
                future.set_exception(RunnerError(self.halted))
            return
        fresh = {cid: body for cid, (body, _) in queued.items() if cid not in self._known}
        wanted = {self._known[cid] for cid in queued if cid in self._known}
        if fresh:
            bid = await self._submit(fresh)
            wanted.add(bid)
        for bid in wanted - set(self.batch_stats.submitted):
            self.batch_stats.resumed.append(bid)
        await asyncio.gather(*(self._collect(bid) for bid in sorted(wanted) if bid not in self._results))
        for cid, (_, future) in queued.items():
            bid = self._known[cid]
            line = self._results.get(bid, {}).get(cid)
            if line is None:  # not in the output nor the error file (an expired batch): sent again
                line = {"custom_id": cid, "response": None, "error": {"code": "missing", "message": f"not in {bid}"}}
            if cid in self._results.get(bid, {}):
                del self._results[bid][cid]  # answered once; a resubmission must be sent, not read again
            self._known.pop(cid, None)
            future.set_result(line)

    async def _submit(self, bodies: dict[str, dict[str, Any]]) -> str:
        data = "".join(
            json.dumps({"custom_id": cid, "method": "POST", "url": "/v1/chat/completions", "body": body}) + "\n"
            for cid, body in bodies.items()
        ).encode("utf-8")
        try:
            upload = await self.client.files.create(file=("eqbench_nb_batch.jsonl", data), purpose="batch")
            batch = await self.client.batches.create(
                input_file_id=upload.id, endpoint="/v1/chat/completions", completion_window="24h"
            )
        except Exception as exc:
            raise RunnerError(f"{self.endpoint} did not take the batch: {self._why(exc)}") from None
        # on disk before anything else happens: a killed run resumes by polling this batch, never paying again
        self.run_file.append_event(
            {"event": "batch", "batch_id": batch.id, "input_file_id": upload.id, "custom_ids": list(bodies)}, wait=True
        )
        for cid in bodies:
            self._known[cid] = batch.id
        self.batch_stats.submitted.append(batch.id)
        self.batch_stats.requests += len(bodies)
        self.stats.requests += len(bodies)
        return str(batch.id)

    async def _collect(self, bid: str) -> None:
        """Poll one batch until it ends, then read its output and error files into ``_results``."""
        bar = None
        try:
            while True:
                try:
                    batch = await self.client.batches.retrieve(bid)
                except Exception as exc:
                    raise RunnerError(f"cannot poll batch {bid} at {self.endpoint}: {self._why(exc)}") from None
                counts = batch.request_counts
                if self.bars and bar is None and counts is not None:
                    from tqdm.auto import tqdm

                    bar = tqdm(total=counts.total, desc=f"batch {bid}", unit="req", leave=False, file=sys.stderr)
                if bar is not None and counts is not None:
                    bar.update((counts.completed + counts.failed) - bar.n)
                    bar.set_postfix_str(batch.status, refresh=False)
                if batch.status in TERMINAL:
                    break
                await self._sleep(self.poll_interval_s)
        finally:
            if bar is not None:
                bar.close()
        self.batch_stats.statuses[batch.status] += 1
        lines: dict[str, Any] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if file_id:
                try:
                    content = await self.client.files.content(file_id)
                except Exception as exc:
                    raise RunnerError(f"cannot download {file_id} of batch {bid}: {self._why(exc)}") from None
                for raw in content.text.splitlines():
                    if raw.strip():
                        line = json.loads(raw)
                        lines[str(line.get("custom_id"))] = line
        self._results[bid] = lines
        if batch.status in ("failed", "cancelled"):
            self.run_file.append_event({"event": "batch_closed", "batch_id": bid, "status": batch.status}, wait=True)
            errors = getattr(batch, "errors", None)
            first = errors.data[0].message if errors is not None and errors.data else "no reason given"
            self.halt(f"batch {bid} {batch.status}")
            raise RunnerError(
                f"batch {bid} {batch.status} ({self.redact(first)}); {len(lines)} finished answers are kept, run the "
                "same command again to submit the rest"
            )

    def _why(self, exc: Exception) -> str:
        return self.redact(getattr(exc, "message", None) or exc)


async def answer_all_batched(
    jobs: Iterable[J],
    solve: Callable[[J], Awaitable[R]],
    item_key: Callable[[J], str],
    run_file: RunFile,
    transport: BatchTransport,
    on_record: Callable[[R | None], None],
) -> tuple[int, int]:
    """Solve every job through batches, appending each record to ``run_file`` as it finishes.

    Returns (records written, jobs left unfinished).
    """
    written = unfinished = 0
    errors: list[BaseException] = []

    async def one(job: J) -> None:
        nonlocal written, unfinished
        _ITEM.set(item_key(job))
        try:
            record = await solve(job)
        except TransportGaveUp:
            unfinished += 1
            on_record(None)
            return
        except BaseException as exc:
            errors.append(exc)
            raise
        finally:
            transport.live -= 1
            transport._check_idle()
        run_file.append(record)
        written += 1
        on_record(record)

    tasks = []
    for job in jobs:
        transport.live += 1
        tasks.append(asyncio.ensure_future(one(job)))
    try:
        while transport.live > 0:
            transport.idle.clear()
            transport._check_idle()
            await transport.idle.wait()
            if errors:
                break
            await transport.run_round()
            if errors:
                break
        if errors:
            raise errors[0]
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return written, unfinished
