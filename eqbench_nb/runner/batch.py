"""OpenAI's Batch API: a run's requests sent as batches, at half the price, never paid for twice.

Generic over benchmarks, and over protocols: the benchmark's ``solve`` runs unchanged against a
:class:`BatchTransport`, whose :meth:`~BatchTransport.complete` queues its request and waits. When
every unfinished item is waiting, the queued requests go out as one batch (``POST /v1/files``
with purpose ``batch``, then ``POST /v1/batches`` for ``/v1/chat/completions`` in a ``24h``
window); it is polled (``GET /v1/batches/{id}``) every ``poll_interval_s`` with a progress bar, and
its output and error files are read back. Each answer goes to the ``solve`` that asked, which then
finishes (its record is written at once) or asks again: a protocol's re-ask at a higher temperature,
and items that failed (5xx) or expired, go out as the next, smaller batch.

The guarantees of :func:`eqbench_nb.runner.pool.answer_all`, for batches:

- **Nothing paid twice.** A request's ``custom_id`` names its item, its body's sha256 and how many
  times the item sent that same body before, so it is the same when a killed run asks again. Before
  each paid step a write-ahead event is fsynced to the run file: ``batch_upload`` (a token and the
  custom_ids) before the upload, ``batch_create`` (with the uploaded file's id) before the create,
  whose ``metadata`` carries the token; ``batch`` once its id is known. A resumed run that queues a
  custom_id already in a batch waits for that batch (polling it again, or reading its finished
  output); one whose create was sent but never answered (a kill, a timeout) lists the endpoint's
  batches and finds it by its token (or its input file) before anything is submitted again. Answers
  already in a batch's output are read again, never asked again: also those of a batch that ended
  ``cancelled``, ``failed`` or ``expired``.
- **Nothing lost.** Each output line is read on its own: a line that does not parse, names no request or
  answers one twice (the first answer kept) spoils only its own item, which is submitted again (said).
  A batch or a file the endpoint no longer has (404) is said, and only its unfinished requests are
  submitted again. Records of the first questions are held back until the endpoint has answered once
  (:class:`~eqbench_nb.runner.pool.FirstAnswers`): a batch whose every line is refused writes nothing
  and is marked ``batch_discarded``, so the same command, with the endpoint fixed, asks again.
- **Nothing hung.** Every call has the run's deadline (``--timeout``) and its transient faults (429,
  5xx, timeouts) are retried under the retry policy (``--retry-budget``); polling a batch stops after
  ``batch_wait_s`` (``--batch-wait``, said when polling starts) with the batch left in the run file for
  the next run. A status outside the documented ones ends the wait when the batch names an output file.
- **Nothing leaks.** Every string a server supplies (a batch id, a status, an error) is redacted and
  made printable before any file, bar or screen (:mod:`eqbench_nb.runner.redact`); a batch id the
  redaction changed is found again by its token.

``failed`` (its input refused) and ``cancelled`` stop the run with one line once the answers they hold
are written; the same command submits the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import re
import secrets
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from .errors import EndpointRefused, RunnerError, TransportGaveUp, Unfinished
from .headers import retry_after_s
from .pool import BATCH_ITEM, FirstAnswers, Parking
from .runfile import RunFile
from .settings import DEFAULT_BATCH_WAIT_S, MIN_POLL_INTERVAL_S
from .transport import Completion, Halted, Transport, _count, _timed_out

J = TypeVar("J")
R = TypeVar("R")
T = TypeVar("T")

#: Times an item is sent again after a fault inside a batch (5xx, expired) before it is left unfinished.
MAX_RESUBMITS = 5
TERMINAL = ("completed", "expired", "failed", "cancelled")
#: The statuses a batch passes on its way to one of :data:`TERMINAL` (OpenAI's documented set).
WAITING = ("validating", "in_progress", "finalizing", "cancelling")
#: Batches listed (newest first) when looking for one whose create was never answered.
MAX_LISTED = 2000
#: The batch's ``metadata`` key holding the submission's token, and the run id for whoever reads the dashboard.
METADATA_TOKEN = "eqbench_nb_token"
METADATA_RUN = "eqbench_nb_run"
#: Event kinds this module writes (``batch_closed``: written by earlier versions, read as ``batch_done``).
EVENTS = ("batch_upload", "batch_create", "batch", "batch_not_created", "batch_done", "batch_closed", "batch_discarded")

#: The item whose ``solve`` is running (set per task), for its requests' custom_ids.
_ITEM = BATCH_ITEM
_CUSTOM_ID = re.compile(r'"custom_id"\s*:\s*"([^"\\]{1,300})"')


def custom_id(item: str, body: dict[str, Any], occurrence: int) -> str:
    """The request's identity across runs: its item, its body and how often the item sent that body."""
    digest = hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]
    return f"{item}~{digest}~{occurrence}"


class BatchLost(Exception):
    """The endpoint does not know a batch or a file (404): deleted, expired, or never made."""


class BatchUnconfirmed(RunnerError):
    """A create was sent (the run file's write-ahead record says so) and whether it made a batch cannot be known:
    the endpoint cannot list its batches (404), or the batch is not among the first :data:`MAX_LISTED`. Sending
    the requests again may pay for them twice, so the run stops and says so, unless told to resubmit
    (``--resubmit-unconfirmed``)."""


class BatchClosed(RunnerError):
    """A batch ended ``failed`` or ``cancelled``: the run stops once its answers are written."""


class _AllRefused(RunnerError):
    """Every line of the last round was refused and the endpoint has answered nothing yet."""


@dataclass
class BatchStats:
    """What the Batch API did in this session."""

    submitted: list[str] = field(default_factory=list)  # batch ids created now (as shown)
    resumed: list[str] = field(default_factory=list)  # batch ids of an earlier session collected now
    requests: int = 0  # requests submitted now
    statuses: Counter = field(default_factory=Counter)

    def describe(self) -> str:
        resumed = f", {len(self.resumed)} of an earlier session collected" if self.resumed else ""
        ends = ", ".join(f"{k} x{v}" for k, v in sorted(self.statuses.items())) or "none ended"
        return f"{len(self.submitted)} batches submitted now ({self.requests:,} requests){resumed}; {ends}"


@dataclass
class _Pending:
    """A create that was sent (the run file says so) but whose answer never came: its batch may exist."""

    token: str
    input_file_id: str | None
    at: str | None = None  # when the create was written ahead (None: a file of an earlier version)


@dataclass
class BatchLedger:
    """What a run file's events say of its batches: which batch (or pending create) holds each custom_id, the
    token of each batch, and the batches still open. Events that do not read are listed in ``problems`` and
    left out (a custom_id they held is then submitted again)."""

    holder: dict[str, str | _Pending] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)  # batch id -> token
    pending: dict[str, _Pending] = field(default_factory=dict)  # token -> the create never answered
    open: list[str] = field(default_factory=list)  # batches not known to have ended, in file order
    ended: set[str] = field(default_factory=set)  # batches a run saw end (their close was said then)
    members: dict[str, set[str]] = field(default_factory=dict)  # batch id -> the custom_ids it was sent
    problems: list[str] = field(default_factory=list)

    @classmethod
    def read(cls, events: list[dict[str, Any]], label: str | None = None) -> BatchLedger:
        """The ledger of the batches of the endpoint ``label`` names (None: the run's own; a judge's events carry
        its label as ``endpoint``)."""
        ledger = cls()
        events = [e for e in events if e.get("endpoint") == label]
        discarded = {e.get("batch_id") for e in events if e.get("event") == "batch_discarded"}
        ended = ledger.ended
        for n, event in enumerate(events, 1):
            kind = event.get("event")
            if kind not in EVENTS:
                continue
            problem = _event_problem(event)
            if problem is not None:
                ledger.problems.append(f"batch event {n} of the run file left out ({problem})")
                continue
            ledger._take(kind, event, discarded, ended)
        ledger.open = [b for b in ledger.open if b not in ended]
        return ledger

    def _take(self, kind: str, event: dict[str, Any], discarded: set[Any], ended: set[str]) -> None:
        token: str = event["token"] if isinstance(event.get("token"), str) else ""
        if kind == "batch_create":
            at = event.get("at")
            created = _Pending(token, event["input_file_id"], at if isinstance(at, str) else None)
            self.pending[token] = created
            for cid in event["custom_ids"]:
                self.holder[cid] = created
        elif kind == "batch":
            bid = event["batch_id"]
            pending = self.pending.pop(token, None)
            if bid in discarded:
                self._release(pending)
                return
            if token:
                self.tokens[bid] = token
            for cid in event["custom_ids"]:
                self.holder[cid] = bid
            self.members[bid] = set(event["custom_ids"])
            self.open.append(bid)
        elif kind == "batch_not_created":
            self._release(self.pending.pop(token, None))
        elif kind in ("batch_done", "batch_closed", "batch_discarded"):
            bid = event["batch_id"]
            ended.add(bid)
            if kind == "batch_discarded":
                for cid in [c for c, h in self.holder.items() if h == bid]:
                    del self.holder[cid]

    def _release(self, pending: _Pending | None) -> None:
        for cid in [c for c, h in self.holder.items() if h is pending]:
            del self.holder[cid]

    def unsettled(self) -> list[str]:
        """What a run without ``--batch`` must not ask again: batches not known to have ended, and creates never
        answered (shown by their token)."""
        return self.open + [f"a batch create of {t} never answered" for t in self.pending]


def _event_problem(event: dict[str, Any]) -> str | None:
    """Why a batch event of a run file cannot be used (a field of the wrong type), or None."""
    kind = event["event"]
    needs: dict[str, dict[str, type]] = {
        "batch_upload": {"token": str, "custom_ids": list},
        "batch_create": {"token": str, "input_file_id": str, "custom_ids": list},
        "batch": {"batch_id": str, "custom_ids": list},
        "batch_not_created": {"token": str},
    }
    for name, kind_of in needs.get(kind, {"batch_id": str}).items():
        value = event.get(name)
        if not isinstance(value, kind_of) or (isinstance(value, str) and not value):
            return f"{kind} without a {name} that is {'a list' if kind_of is list else 'text'}"
        if isinstance(value, list) and not all(isinstance(x, str) for x in value):
            return f"{kind} whose {name} are not all text"
    return None


class BatchTransport(Transport):
    """A :class:`Transport` whose requests go out in batches (see the module docstring)."""

    def __init__(
        self,
        *args: Any,
        run_file: RunFile,
        poll_interval_s: float = 60.0,
        bars: bool = True,
        batch_wait_s: float = DEFAULT_BATCH_WAIT_S,
        resubmit_unconfirmed: bool = False,
        label: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(*args, **kwargs)
        self.run_file = run_file
        #: the endpoint's label in the run file (a judge's: each batch event carries it); None, the run's own
        self.label = label
        #: the pool's count of jobs waiting for a batch, when this transport is a judge's beside an unbatched
        #: model under test (None: :func:`answer_all_batched` runs the rounds)
        self.parking: Parking | None = None
        self.poll_interval_s = max(poll_interval_s, MIN_POLL_INTERVAL_S)
        self.batch_wait_s = batch_wait_s
        #: send again the requests of a create whose batch cannot be confirmed (:class:`BatchUnconfirmed`)
        self.resubmit_unconfirmed = resubmit_unconfirmed
        self.bars = bars
        self.batch_stats = BatchStats()
        self._queued: dict[str, tuple[dict[str, Any], asyncio.Future[Any]]] = {}
        self._sent: Counter = Counter()  # (item, body digest) -> times sent, for the occurrence in custom_ids
        ledger = BatchLedger.read(run_file.events, label)
        self._holder = ledger.holder  # custom_id -> the batch (or pending create) that holds it
        self._tokens = ledger.tokens
        self._members = ledger.members  # batch id -> the custom_ids it was sent (its other lines are strays)
        self._ended = set(ledger.ended)  # batches whose end an earlier session saw (and said)
        self._refused_now = self._round_size = 0  # lines refused in the last round, and its requests
        self._said_wait = False
        self._results: dict[str, dict[str, Any]] = {}  # batch id -> custom_id -> its output or error line
        self._read_now: list[str] = []  # batches read this session (discarded if every line was refused)
        self.trusted = bool(run_file.finished)  # the endpoint has answered (else records are held back)
        #: why the run stops once what is answered is written (a closed batch, a refusal, a deadline)
        self.stop_error: BaseException | None = None
        self.idle = asyncio.Event()
        self.live = 0
        for problem in ledger.problems:
            self._notice(f"note: {problem}")

    # ------------------------------------------------------------------ what solve() sees

    async def complete(
        self,
        messages: list[dict[str, str]],
        temperature: float,
        max_tokens: int,
        stop: tuple[str, ...] = (),
        seed: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> Completion:
        item = _ITEM.get()
        for _ in range(3 + MAX_RESUBMITS):
            body = self.adapter.body(self.model, messages, temperature, max_tokens, stop, seed, extra)
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
        if self.parking is not None:  # a judge's: the pool sends the round once every job left waits
            self.parking.park()
        else:
            self._check_idle()
        return await future

    def _event(self, event: dict[str, Any], wait: bool = False) -> None:
        """Append a batch event to the run file (fsynced first with ``wait``), labelled with a judge's endpoint."""
        self.run_file.append_event(event | ({"endpoint": self.label} if self.label else {}), wait=wait)

    def _check_idle(self) -> None:
        """Every unfinished item is waiting for an answer not yet asked for: time for the next round."""
        if len(self._queued) >= self.live:
            self.idle.set()

    def _outcome(self, line: dict[str, Any], body: dict[str, Any]) -> Completion | str:
        """A Completion for an output or error line, or "again" to send the request once more. A 4xx other
        than 408/409/429 is this request refused (a failed attempt, as without batches); the rest is a fault."""
        response = line.get("response") if isinstance(line.get("response"), dict) else None
        status = _status(line)
        status = status if isinstance(status, int) and not isinstance(status, bool) else None
        if status == 200:
            answer = response.get("body")  # type: ignore[union-attr]
            try:
                done = self._completion(answer, None, [], body)
            except Exception as exc:  # not a completion: a fault, sent again
                return self._fault("malformed", str(exc))
            self.stats.responses += 1
            self.trusted = True
            done.batch = True
            done.served_model = self._other_model(answer)
            return done
        detail, param = _refusal(response, line.get("error"))
        if status == 400 and self.adapter.adapt(body, param, detail):
            return "again"
        if status is not None and 400 <= status < 500 and status not in (408, 409, 429):
            self.stats.failed[str(status)] += 1
            self._refused_now += 1
            self.last_fault = f"{status}: rejected ({status}): {self.redact(detail)}"
            done = Completion(None, None, None, None, None, [], f"rejected ({status}): {self.redact(detail)}")
            done.batch = True
            return done
        error = line.get("error") if isinstance(line.get("error"), dict) else None
        kind = str(status) if status else (self.redact(error.get("code"), 40) if error else "missing")
        return self._fault(kind, detail)

    def _other_model(self, answer: Any) -> str | None:
        """The model an answer names when it is not the one asked for (a dated snapshot of it is), said once."""
        named = answer.get("model") if isinstance(answer, dict) else None
        if not isinstance(named, str) or not named or named == self.model or named.startswith(self.model + "-"):
            return None
        shown = self.redact(named, 80)
        self._notice(f"note: batch answers name the model {shown!r}, not {self.redact(self.model, 80)!r}; kept, "
                     "and recorded in each attempt's served_model")  # fmt: skip
        return shown

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
                self._resolve(future, Halted(self.halted))
            return
        self._refused_now, self._round_size = 0, len(queued)
        wanted: set[str] = set()
        try:
            await self._settle_pending({cid for cid in queued if isinstance(self._holder.get(cid), _Pending)})
            fresh = {cid: body for cid, (body, _) in queued.items() if cid not in self._holder}
            wanted = {h for cid in queued if isinstance(h := self._holder.get(cid), str)}
            if fresh:
                wanted.add(await self._submit(fresh))
        except Exception as exc:  # said once what was answered is delivered (a Ctrl-C is not caught here)
            self._stop(exc)
        for bid in wanted - set(self.batch_stats.submitted):
            self.batch_stats.resumed.append(self._shown(bid))
        todo = sorted(b for b in wanted if b not in self._results)
        if self.stop_error is None:
            outcomes = await asyncio.gather(*(self._collect(b) for b in todo), return_exceptions=True)
            for outcome in outcomes:
                if isinstance(outcome, BaseException):
                    self._stop(outcome)
        for cid, (_, future) in queued.items():
            holder = self._holder.get(cid)
            if not isinstance(holder, str) or holder not in self._results:  # never collected: the run is stopping
                self._resolve(future, Halted(self.halted or "stopping"))
                continue
            bid = holder
            line = self._results[bid].pop(cid, None)  # answered once; a resubmission must be sent, not read again
            if line is None:  # not in the output nor the error file (expired, cancelled, lost): sent again
                line = {"custom_id": cid, "response": None, "error": {"code": "missing", "message": f"not in {bid}"}}
            self._holder.pop(cid, None)
            self._resolve(future, line)

    def _resolve(self, future: asyncio.Future[Any], outcome: Any) -> None:
        """Give a queued request its line (or the exception that stops it); its job no longer waits for a batch."""
        if self.parking is not None:
            self.parking.unpark()
        if future.done():  # its job was cancelled (the run is stopping)
            return
        if isinstance(outcome, BaseException):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)

    def refused_everything(self) -> bool:
        """The last round's lines were all refused (at least 3 of them, or every one of a smaller round) and the
        endpoint has answered nothing: the settings are wrong, not the questions (checked once every solve has
        taken its answer)."""
        return not self.trusted and self._refused_now > 0 and self._refused_now >= min(3, self._round_size)

    def _stop(self, exc: BaseException) -> None:
        if isinstance(exc, Halted):
            return  # stopping for a reason said elsewhere (a failed write, Ctrl-C)
        if self.stop_error is None:
            self.stop_error = exc
        self.halt(str(exc) or "stopping")

    def discard(self) -> None:
        """Every batch read this session answered nothing but refusals: never read them again (the records are
        held back, so the same command, with the endpoint fixed, asks again)."""
        for bid in self._read_now:
            self._event({"event": "batch_discarded", "batch_id": bid})

    async def _settle_pending(self, cids: set[str]) -> None:
        """Find the batches of creates that were sent but never answered; release the requests of those that
        do not exist (they are submitted again)."""
        for pending in {id(p): p for cid in cids if isinstance(p := self._holder[cid], _Pending)}.values():
            held = [c for c, h in self._holder.items() if h is pending]
            try:
                bid = await self._find(pending)
            except BatchUnconfirmed as exc:
                self._unconfirmed(pending, exc, len(held))  # raises, unless told to send again
                bid = None
            if bid is None:
                self._event({"event": "batch_not_created", "token": pending.token}, wait=True)
                for cid in held:
                    del self._holder[cid]
                continue
            self._notice(f"note: batch {self._shown(bid)} was created by a run stopped before it heard so; "
                         "polling it, nothing is submitted again")  # fmt: skip
            self._event(
                {"event": "batch", "batch_id": bid, "input_file_id": pending.input_file_id, "custom_ids": held,
                 "token": pending.token}, wait=True,
            )  # fmt: skip
            self._tokens[bid] = pending.token
            self._members[bid] = set(held)
            for cid in held:
                self._holder[cid] = bid

    async def _submit(self, bodies: dict[str, dict[str, Any]]) -> str:
        """Upload and create one batch, each step written ahead to the run file; its id."""
        token = secrets.token_hex(8)
        cids = list(bodies)
        data = "".join(
            json.dumps(
                {"custom_id": cid, "method": "POST", "url": "/v1/chat/completions", "body": body}, allow_nan=False
            )
            + "\n"
            for cid, body in bodies.items()
        ).encode("utf-8")
        self._event({"event": "batch_upload", "token": token, "custom_ids": cids}, wait=True)
        try:
            upload = await self._call(
                "upload the batch input file",
                lambda: self.client.files.create(file=(f"eqbench_nb_{token}.jsonl", data), purpose="batch"),
            )
        except BatchLost:  # nothing was made: the endpoint has no Files API to take a batch's input
            self._event({"event": "batch_not_created", "token": token})
            raise RunnerError(
                f"{self.endpoint} has no Files API for the batch's input (404 for POST /v1/files); the Batch API is "
                "OpenAI's: run without --batch to send the requests one at a time"
            ) from None
        file_id = getattr(upload, "id", None)
        if not isinstance(file_id, str) or not file_id:
            raise RunnerError(f"{self.endpoint} answered the batch upload without a file id")
        # on disk before the create: a run killed while it is sent finds the batch by its token
        at = datetime.now(UTC).isoformat(timespec="seconds")
        self._event(
            {"event": "batch_create", "token": token, "input_file_id": file_id, "custom_ids": cids, "at": at},
            wait=True,
        )
        try:
            bid = await self._create(_Pending(token, file_id, at))
        except RunnerError as exc:
            if not isinstance(exc, (Unfinished, BatchUnconfirmed)):  # refused: no batch was made, nothing to find
                self._event({"event": "batch_not_created", "token": token})
            raise
        self._event(
            {"event": "batch", "batch_id": bid, "input_file_id": file_id, "custom_ids": cids, "token": token},
            wait=True,
        )
        self._tokens[bid] = token
        self._members[bid] = set(bodies)
        for cid in bodies:
            self._holder[cid] = bid
        self.batch_stats.submitted.append(bid)
        self.batch_stats.requests += len(bodies)
        self.stats.requests += len(bodies)
        return bid

    async def _create(self, pending: _Pending) -> str:
        """``POST /v1/batches``; after a fault that leaves in doubt whether it was made (a timeout, a 5xx), the
        batch is looked for by its token before the create is sent again. An endpoint that refuses ``metadata``
        gets the create without it (a create never answered is then found by its input file)."""
        metadata = {METADATA_TOKEN: pending.token, METADATA_RUN: self.redact(self.run_file.header.get("run_id"), 500)}
        faults, waited = 0, 0.0
        while True:
            if self.halted is not None:
                raise Halted(self.halted)
            try:
                async with self._deadline():
                    batch = await self.client.batches.create(
                        input_file_id=pending.input_file_id,
                        endpoint="/v1/chat/completions",
                        completion_window="24h",
                        **({"metadata": metadata} if metadata else {}),
                    )
            except Exception as exc:
                if metadata and _refuses_metadata(exc):
                    self._notice("note: the endpoint refuses batch metadata; batches are created without it")
                    metadata = {}
                    continue
                try:
                    kind, asked = self._api_fault(exc, "create the batch")
                except BatchLost:
                    raise RunnerError(
                        f"{self.endpoint} has no Batch API (404 for POST /v1/batches); run without --batch to send "
                        "the requests one at a time"
                    ) from None
                faults, waited = await self._back_off("create the batch", kind, exc, faults, waited, asked)
            else:
                bid = getattr(batch, "id", None)
                if not isinstance(bid, str) or not bid:
                    raise RunnerError(f"{self.endpoint} answered the batch create without a batch id")
                return bid
            try:
                found = await self._find(pending)
            except BatchUnconfirmed as exc:
                self._unconfirmed(pending, exc, None)  # raises, unless told to send again
                found = None
            if found is not None:
                self._notice(f"note: the endpoint did not answer the batch create ({kind}), but made batch "
                             f"{self._shown(found)}; polling it")  # fmt: skip
                return found

    def _unconfirmed(self, pending: _Pending, exc: BatchUnconfirmed, n: int | None) -> None:
        """After :class:`BatchUnconfirmed`: None (send again) with ``--resubmit-unconfirmed``, said; else the
        error, naming what is unknown: the write-ahead record's input file and time."""
        what = f"the {n:,} requests" if n is not None else "its requests"
        where = (
            f"the batch create written ahead at {pending.at or 'a time not recorded'} for input file "
            f"{self._shown(pending.input_file_id)} (token {pending.token})"
        )
        if self.resubmit_unconfirmed:
            self._notice(f"note: {exc}; {what} of {where} are sent again (--resubmit-unconfirmed): if that batch "
                         "exists they are paid for twice")  # fmt: skip
            return None
        raise BatchUnconfirmed(
            f"{exc}: whether {where} made a batch is unknown, and sending {what} again may pay for them twice. "
            "Look for a batch with that input file on the endpoint's dashboard; to send them again knowingly, run "
            "the same command with --resubmit-unconfirmed"
        )

    async def _find(self, pending: _Pending) -> str | None:
        """The id of the batch a create made (its metadata token, or its input file), from the endpoint's list
        of batches, newest first; None when the whole list is read and it is not there. :class:`BatchUnconfirmed`
        when that cannot be known: no list (404), or more than :data:`MAX_LISTED` batches before the end."""
        after: str | None = None
        seen = 0
        while seen < MAX_LISTED:
            kwargs: dict[str, Any] = {"limit": 100} | ({"after": after} if after else {})
            try:
                page = await self._call("list the batches", functools.partial(self.client.batches.list, **kwargs))
            except BatchLost:  # an endpoint without the list: not found is not "not made"
                raise BatchUnconfirmed(f"{self.endpoint} cannot list its batches (404 for GET /v1/batches)") from None
            data = getattr(page, "data", None)
            data = data if isinstance(data, list) else []
            for batch in data:
                seen += 1
                meta = getattr(batch, "metadata", None)
                token = meta.get(METADATA_TOKEN) if isinstance(meta, dict) else None
                bid = getattr(batch, "id", None)
                listed_file = getattr(batch, "input_file_id", None)
                same_file = pending.input_file_id is not None and listed_file == pending.input_file_id
                if isinstance(bid, str) and bid and (token == pending.token or same_file):
                    return bid
            after = getattr(data[-1], "id", None) if data else None
            if not data or getattr(page, "has_more", False) is not True or not isinstance(after, str):
                return None
        raise BatchUnconfirmed(f"the batch is not among the newest {MAX_LISTED:,} batches {self.endpoint} lists")

    async def _collect(self, bid: str) -> None:
        """Poll one batch until it ends (or ``batch_wait_s`` passes), then read its output and error files into
        ``_results``; a batch the endpoint lost is said and its requests are submitted again."""
        bid, batch = await self._wait(bid)
        if batch is None:  # lost: nothing to read
            self._results[bid] = {}
            self._read_now.append(bid)
            return
        status = _text(getattr(batch, "status", None)) or "unknown"
        lines: dict[str, Any] = {}
        for file_id in (getattr(batch, "output_file_id", None), getattr(batch, "error_file_id", None)):
            if isinstance(file_id, str) and file_id:
                await self._read_file(bid, file_id, lines)
        self._keep_apart(bid, lines)
        self._say_errors(bid, lines)
        self._results[bid] = lines
        self._read_now.append(bid)
        self.batch_stats.statuses[self.redact(status, 40)] += 1
        self._event({"event": "batch_done", "batch_id": bid, "status": self.redact(status, 40)})
        if status in ("failed", "cancelled") and bid not in self._ended:  # said once, when first seen closed
            self._ended.add(bid)
            errors = getattr(batch, "errors", None)
            data = getattr(errors, "data", None) if errors is not None else None
            first = getattr(data[0], "message", None) if isinstance(data, list) and data else None
            answered = sum(1 for x in lines.values() if _status(x) == 200)
            raise BatchClosed(
                f"batch {self._shown(bid)} {self.redact(status, 40)} ({self.redact(first or 'no reason given')}); "
                f"its {answered} finished answer{'s are' if answered != 1 else ' is'} kept"
            )

    def _keep_apart(self, bid: str, lines: dict[str, Any]) -> None:
        """Lines answering a request this batch was not sent (an unknown custom_id): taken out of ``lines``, kept in
        the run file as a ``batch_stray`` event (they may have been paid for), and said in one line."""
        sent = self._members.get(bid)
        stray = {cid: lines.pop(cid) for cid in [c for c in lines if c not in sent]} if sent is not None else {}
        if not stray:
            return
        self._event({"event": "batch_stray", "batch_id": bid, "lines": list(stray.values())})
        first = self.redact(next(iter(stray)), 80)
        n = len(stray)
        self._notice(f"note: batch {self._shown(bid)} answers {n} request{'s' if n > 1 else ''} it was not sent "
                     f"(custom_id {first!r}{' and more' if n > 1 else ''}); kept apart in the run file (batch_stray), "
                     "not used")  # fmt: skip

    def _say_errors(self, bid: str, lines: dict[str, Any]) -> None:
        """One line for a batch whose lines hold errors in place of answers (each dealt with on its own: a fault
        is sent again in the next batch, a refusal is the request's failed attempt)."""
        kinds = Counter(_error_kind(x) for x in lines.values() if _status(x) != 200)
        if not kinds:
            return
        said = ", ".join(f"{self.redact(k, 40)} x{n}" for k, n in sorted(kinds.items()))
        self._notice(f"note: batch {self._shown(bid)}: {kinds.total()} of its {len(lines)} lines are errors "
                     f"({said}); faults go out again in the next batch, refusals are recorded as failed "
                     "attempts")  # fmt: skip

    def _notice(self, message: str) -> None:
        """A judge's notes name it (``judge 2: batch ...``)."""
        super()._notice(f"{self.label}: {message}" if self.label else message)

    async def _wait(self, bid: str) -> tuple[str, Any]:
        """(its id, the batch once it has ended), or (its id, None) if the endpoint lost it (said). The id is
        another than ``bid`` when the one held was changed by the redaction and the batch was found again."""
        bar = None
        started = time.monotonic()
        said_unknown = first = False
        try:
            while True:
                try:
                    poll = functools.partial(self.client.batches.retrieve, bid)
                    batch = await self._call(f"poll batch {self._shown(bid)}", poll)
                except BatchLost:
                    found = await self._find(_Pending(self._tokens[bid], None)) if bid in self._tokens else None
                    if found is not None and found != bid:  # the id we hold was changed (redacted): the same batch
                        bid = self._rename(bid, found)
                        continue
                    self._notice(f"note: batch {self._shown(bid)} is not known to {self.endpoint} any more (404: "
                                 "deleted or expired); its unfinished requests are submitted again")  # fmt: skip
                    self.batch_stats.statuses["lost"] += 1
                    self._event({"event": "batch_done", "batch_id": bid, "status": "lost"})
                    return bid, None
                status = _text(getattr(batch, "status", None)) or "unknown"
                if not first:
                    first, bar = True, self._start(bid, status, batch)
                self._show(bar, batch, status)
                has_files = any(_text(getattr(batch, f, None)) for f in ("output_file_id", "error_file_id"))
                if status in TERMINAL or (status not in WAITING and has_files):
                    if status not in TERMINAL:
                        self._notice(f"note: batch {self._shown(bid)} reports status {self.redact(status, 40)!r}, "
                                     "not one of the Batch API's; it names an output file, which is read")  # fmt: skip
                    return bid, batch
                if status not in WAITING and not said_unknown:
                    said_unknown = True
                    self._notice(f"note: batch {self._shown(bid)} reports status {self.redact(status, 40)!r}, not "
                                 "one of the Batch API's, and no output file yet; still polling")  # fmt: skip
                left = started + self.batch_wait_s - time.monotonic()
                if left <= 0:
                    waited = _duration(self.batch_wait_s)
                    raise Unfinished(
                        f"batch {self._shown(bid)} still {self.redact(status, 40)} after {waited} (--batch-wait); it "
                        "is in the run file: run the same command again to collect it (nothing is paid twice)"
                    )
                await self._sleep(min(self.poll_interval_s, left))
        finally:
            if bar is not None:
                bar.close()

    def _start(self, bid: str, status: str, batch: Any) -> Any:
        """Say (once a session, for the first batch still running) how long a batch is waited for at most; its
        progress bar (None without bars)."""
        if status not in TERMINAL and not self._said_wait:
            self._said_wait = True
            self._notice(
                f"batch {self._shown(bid)} {self.redact(status, 40)}: polled every {self.poll_interval_s:g} s for up "
                f"to {_duration(self.batch_wait_s)} (--batch-wait); Ctrl-C stops waiting, the same command collects it"
            )
        if not self.bars:
            return None
        from tqdm.auto import tqdm

        counts = _request_counts(batch)
        return tqdm(total=counts[1] if counts else None, desc=f"batch {self._shown(bid, 40)}", unit="req",
                    leave=False, file=sys.stderr)  # fmt: skip

    def _show(self, bar: Any, batch: Any, status: str) -> None:
        counts = _request_counts(batch)
        if bar is None or counts is None:
            return
        if bar.total != counts[1]:
            bar.total = counts[1]
        bar.update(max(0, counts[0] - bar.n))
        bar.set_postfix_str(self.redact(status, 40), refresh=False)

    def _rename(self, old: str, new: str) -> str:
        """The batch we knew as ``old`` (an id the redaction changed) is ``new``."""
        for cid, holder in self._holder.items():
            if holder == old:
                self._holder[cid] = new
        self._tokens[new] = self._tokens.pop(old)
        if old in self._members:
            self._members[new] = self._members.pop(old)
        return new

    async def _read_file(self, bid: str, file_id: str, lines: dict[str, Any]) -> None:
        """Read one output or error file into ``lines``, line by line: a line that does not parse or names no
        request spoils only its own item (submitted again), a request answered twice keeps its first answer."""
        try:
            content = await self._call(
                f"download {self.redact(file_id, 80)} of batch {self._shown(bid)}",
                lambda: self.client.files.content(file_id),
                deadline_s=max(self.deadline_s or 0.0, 600.0),
            )
        except BatchLost:
            self._notice(f"note: file {self.redact(file_id, 80)} of batch {self._shown(bid)} is not known to "
                         f"{self.endpoint} any more (404); the requests it answered are submitted again")  # fmt: skip
            return
        data = getattr(content, "content", b"")
        unnamed = twice = 0
        for number, raw in enumerate(data.split(b"\n") if isinstance(data, bytes) else [], 1):
            if not raw.strip():
                continue
            line = _output_line(raw, number, file_id)
            if line is None:
                unnamed += 1
            elif line["custom_id"] in lines:
                twice += 1
            else:
                lines[line["custom_id"]] = line
        where = f"file {self.redact(file_id, 80)} of batch {self._shown(bid)}"
        if unnamed:
            self._notice(f"note: {unnamed} line{'s' if unnamed > 1 else ''} of {where} name no request (not a JSON "
                         "object with a custom_id); the requests left unanswered are submitted again")  # fmt: skip
        if twice:
            self._notice(f"note: {where} answers {twice} request{'s' if twice > 1 else ''} a second time; the first "
                         "answer of each is kept")  # fmt: skip

    # ------------------------------------------------------------------ every call to the Files and Batches API

    async def _call(self, what: str, make: Callable[[], Awaitable[T]], deadline_s: float | None = None) -> T:
        """One Files or Batches API call under the run's deadline; transient faults (429, 5xx, timeouts, resets,
        a body that is not what was asked) retried with back-off under the retry policy. Raises
        :class:`BatchLost` for a 404, :class:`EndpointRefused` for 401/403, :class:`RunnerError` for another
        refusal, and :class:`Unfinished` when the retries are spent."""
        faults, waited = 0, 0.0
        while True:
            if self.halted is not None:
                raise Halted(self.halted)
            try:
                async with self._deadline(deadline_s):
                    return await make()
            except (BatchLost, RunnerError, Halted):
                raise
            except Exception as exc:
                kind, asked = self._api_fault(exc, what)
                faults, waited = await self._back_off(what, kind, exc, faults, waited, asked)

    def _deadline(self, seconds: float | None = None) -> Any:
        limit = seconds or self.deadline_s
        return asyncio.timeout(limit) if limit else contextlib.nullcontext()

    async def _back_off(
        self, what: str, kind: str, exc: Exception, faults: int, waited: float, asked: float | None
    ) -> tuple[int, float]:
        """Count one transient fault and wait before the next try; :class:`Unfinished` once the policy is spent."""
        faults += 1
        self.stats.faults[f"{kind} (batch API)"] += 1
        self.last_fault = f"{kind}: {self._fault_detail(kind, exc)} ({what})"
        if faults > self.policy.max_retries or waited >= self.policy.budget_s:
            raise Unfinished(
                f"cannot {what} at {self.endpoint}: {self.last_fault}; gave up after {faults - 1} retries over "
                f"{waited:.0f} s (--retry-budget); the run file records every batch: run the same command again"
            )
        delay = max(0.0, min(self.policy.delay(faults, asked), self.policy.budget_s - waited))
        await self._sleep(delay)
        return faults, waited + delay

    def _api_fault(self, exc: Exception, what: str) -> tuple[str, float | None]:
        """(kind, Retry-After) of a transient fault; raises for a 404 and for refusals."""
        import openai

        from .http import ResponseTooLarge

        if isinstance(exc, openai.APIStatusError):
            status, detail = exc.status_code, self._why(exc)
            if status == 404:
                raise BatchLost(detail)
            if status in (401, 403):
                raise EndpointRefused(f"{self.endpoint} refused the API key ({status}) to {what}: {detail}")
            if status in (408, 409, 429) or status >= 500:
                return str(status), retry_after_s(getattr(exc.response, "headers", None))
            raise RunnerError(f"{self.endpoint} refused to {what} ({status}): {detail}")
        if isinstance(exc, ResponseTooLarge):
            raise RunnerError(f"cannot {what}: {self._why(exc)}")
        if isinstance(exc, TimeoutError):  # our own deadline
            return "timeout", None
        if isinstance(exc, openai.APITimeoutError):  # the aiohttp transport calls a dropped connection a timeout
            return ("timeout" if _timed_out(exc) else "connection"), None
        if isinstance(exc, openai.APIConnectionError):
            return "connection", None
        return "malformed", None

    def _why(self, exc: Exception) -> str:
        return self.redact(getattr(exc, "message", None) or exc)

    def _shown(self, bid: object, limit: int = 120) -> str:
        """A batch id as it may be printed: redacted, printable, cut."""
        return self.redact(bid, limit)


def _refuses_metadata(exc: Exception) -> bool:
    """A 400 that names ``metadata``: an endpoint that does not take it."""
    from .transport import refusal_text

    return getattr(exc, "status_code", None) == 400 and "metadata" in refusal_text(exc).lower()


def _refusal(response: dict[str, Any] | None, error: Any) -> tuple[str, str | None]:
    """(what an error line says, the parameter it names) from its response body (JSON or text) or its error."""
    detail, param = "", None
    answer = response.get("body") if response else None
    if isinstance(answer, dict):
        err = answer.get("error")
        if isinstance(err, dict):
            detail = str(err.get("message") or "")
            param = err.get("param") if isinstance(err.get("param"), str) else None
    elif isinstance(answer, str):
        detail = answer[:4000]
    if isinstance(error, dict):
        detail = str(error.get("message") or error.get("code") or detail)
    return detail, param


def _output_line(raw: bytes, number: int, file_id: str) -> dict[str, Any] | None:
    """One line of an output or error file: the JSON object with its custom_id; a torn or garbled line whose
    custom_id can still be read is a fault of that request; None when it names none."""
    try:
        line = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        found = _CUSTOM_ID.search(raw.decode("utf-8", "replace"))
        if found is None:
            return None
        return {"custom_id": found.group(1), "response": None,
                "error": {"code": "malformed", "message": f"line {number} of {file_id} does not parse"}}  # fmt: skip
    if not isinstance(line, dict) or not isinstance(line.get("custom_id"), str):
        return None
    return line


def _request_counts(batch: Any) -> tuple[int, int] | None:
    """(requests finished, total) from a batch's ``request_counts``, where they are whole numbers."""
    counts = getattr(batch, "request_counts", None)
    read = counts.get if isinstance(counts, dict) else (lambda name: getattr(counts, name, None))
    total = _count(read("total"))
    if total is None:
        return None
    finished = (_count(read("completed")) or 0) + (_count(read("failed")) or 0)
    return min(finished, total), total


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _status(line: dict[str, Any]) -> Any:
    response = line.get("response")
    return response.get("status_code") if isinstance(response, dict) else None


def _error_kind(line: dict[str, Any]) -> str:
    """What an error line is, for the note that counts them: its status, or its error's code."""
    error = line.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    return str(_status(line) or code or "no answer")[:40]


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:g} h"
    if seconds >= 60:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


def unsettled_batches(events: list[dict[str, Any]], label: str | None = None) -> list[str]:
    """The batches of a run file not known to have ended, and creates never answered (see :class:`BatchLedger`), of
    the endpoint ``label`` names (None: the run's own)."""
    return BatchLedger.read(events, label).unsettled()


async def answer_all_batched(
    jobs: Iterable[J],
    solve: Callable[[J], Awaitable[R] | AsyncIterator[R]],
    item_key: Callable[[J], str],
    run_file: RunFile,
    transport: BatchTransport,
    on_record: Callable[[R | None], None],
) -> tuple[int, int]:
    """Solve every job through batches, appending each record to ``run_file`` as it finishes (held back until
    the endpoint has answered once, as :func:`~eqbench_nb.runner.pool.answer_all` does); a ``solve`` that is an
    async generator (Judgemark's: a judgement, then its re-asks) has each record written as it is yielded.

    Returns (records written, jobs left unfinished); raises the reason a run stopped (a closed batch, a
    refusal of every request, a batch still running after ``--batch-wait``) once what was answered is written.
    """
    written = unfinished = 0
    errors: list[BaseException] = []
    gate = FirstAnswers(run_file, transport, limit=3)
    loop = asyncio.get_running_loop()

    def writer_failed(message: str) -> None:  # called from the writer thread
        with contextlib.suppress(RuntimeError):  # the loop has closed: nothing is sent any more
            loop.call_soon_threadsafe(transport.halt, message)

    run_file.on_error = writer_failed

    def accept(record: Any) -> None:
        nonlocal written
        for ready in gate.admit(record):
            run_file.append(ready)
            written += 1
        on_record(record)

    async def one(job: J) -> None:
        nonlocal unfinished
        _ITEM.set(item_key(job))
        try:
            produced: Any = solve(job)
            if isinstance(produced, AsyncIterator):  # several records (a piece, then its judgements), each at once
                async for record in produced:
                    accept(record)
                    await run_file.durable()  # on disk before the job's next request
                return
            record = await produced
        except (TransportGaveUp, Halted):
            unfinished += 1
            on_record(None)
            return
        except BaseException as exc:
            errors.append(exc)
            raise
        finally:
            transport.live -= 1
            transport._check_idle()
        accept(record)

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
            if transport.refused_everything():  # every solve has taken its answer: nothing of it is written
                transport._stop(_AllRefused("every request refused"))
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
    stop = transport.stop_error
    if isinstance(stop, _AllRefused) or (stop is None and gate.held):  # nothing answered, every request refused
        transport.discard()
        raise gate.refusal(transport.endpoint, max(len(gate.held), transport._refused_now))
    if isinstance(stop, BatchClosed):
        raise BatchClosed(
            f"{stop}, {written} record{'s' if written != 1 else ''} written now; run the same command again to "
            "submit the rest"
        )
    if stop is not None:
        raise stop
    return written, unfinished


__all__ = [
    "BatchClosed",
    "BatchLedger",
    "BatchStats",
    "BatchTransport",
    "answer_all_batched",
    "custom_id",
    "unsettled_batches",
]
