"""Run EQ-Bench against any OpenAI-compatible endpoint: fast, resumable, fault-tolerant.

Layers, each small and separately testable:

- :func:`protocol_plan` - the decoding schedule of a protocol (SPEC §4, §7).
- :class:`Transport` - one chat completion with *our* retry policy. Transport faults (429, 5xx,
  timeouts, resets, malformed bodies) are retried with back-off and counted; they never use up one
  of the protocol's parse attempts. 401/403/404 stop the run at once.
- :func:`answer_question` - the protocol's attempts for one question, parsed and scored with the
  project's own parsing/scoring (nothing re-implemented here).
- :class:`RunFile` - the JSON Lines run file: header, append + fsync per finished question,
  resume (skip finished questions, repair a torn tail, refuse different settings).
- :func:`run_pool` - the one place that holds concurrency and progress.
- :func:`run_benchmark` - the notebook/CLI entry point; it starts the bundled model when no
  ``base_url`` is given and works inside a running event loop (Jupyter) via a worker thread.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import os
import queue
import random
import re
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from . import __version__
from .conventions import CONVENTIONS, RunScore, score_run
from .parsing import default_parser, parse_answer
from .prompts import build_messages, uses_revision
from .questions import VERSIONS, Question, dataset_sha256, load_questions
from .runs import Run, RunFormatError, RunRecord, header_line, read_jsonl, read_run, record_line, score_record
from .scoring import attempt_succeeded

PROTOCOLS = ("official", "lm-eval")
#: Enough parallelism to hide a remote API's latency without tripping typical rate limits.
DEFAULT_CONCURRENCY = 8
#: The bundled model on 2 cores: one request per server slot; more only queue.
LOCAL_CONCURRENCY = 1
DEFAULT_TIMEOUT_S = 120.0
#: Header fields that define a run: a resume must match every one of them.
SETTINGS_KEYS = ("model", "version", "revise", "protocol", "parser", "question_ids", "iterations",
                 "temperatures", "max_tokens", "attempts", "stop", "dataset_sha256")
_LOOPBACK = {"localhost", "127.0.0.1", "::1"}


class RunnerError(ValueError):
    """A user mistake or an endpoint that refuses us: reported as one line, never a traceback."""


class EndpointRefused(RunnerError):
    """401/403/404 or another non-retryable rejection: retrying cannot help, so the run stops."""


class TransportGaveUp(Exception):
    """A request still failed after the retry limit; its question is left for the next resume."""


# ---------------------------------------------------------------- protocols

@dataclass(frozen=True)
class Protocol:
    """How each question is decoded: one temperature per attempt, a token limit, stop strings."""

    name: str
    temperatures: tuple[float, ...]
    max_tokens: int
    stop: tuple[str, ...] = ()

    @property
    def attempts(self) -> int:
        return len(self.temperatures)


#: The upstream pipeline each protocol reproduces, recorded in every run header.
UPSTREAM = {
    "official": {"pipeline": "EQ-Bench v2.3", "repository": "EQ-bench/EQ-Bench",
                 "commit": "d28c60c514fe6667dc5818114ed10088f91f09f3"},
    "lm-eval": {"pipeline": "lm-evaluation-harness eq_bench task", "repository": "EleutherAI/lm-evaluation-harness"},
}
OFFICIAL_TEMPERATURE = 0.01
OFFICIAL_TEMPERATURE_STEP = 0.15


def protocol_plan(protocol: str, version: str, revise: bool, temperature: float | None = None) -> Protocol:
    """The decoding schedule: ``official`` (SPEC §4) or ``lm-eval`` (SPEC §7).

    official: temperature 0.01, +0.15 after each failed parse, 3 attempts; 60 tokens, 600 with
    revision, 1000 for v1 (its prompt always asks for a critique). lm-eval: greedy, 80 tokens,
    one attempt, stop at the first blank line. ``temperature`` replaces the first attempt's
    temperature (0.01 / 0) for studies of sampling noise; the +0.15 steps stay.
    """
    if temperature is not None and not 0 <= temperature <= 2:
        raise RunnerError(f"--temperature must be between 0 and 2, not {temperature}")
    if protocol == "official":
        base = OFFICIAL_TEMPERATURE if temperature is None else temperature
        temps = tuple(round(base + OFFICIAL_TEMPERATURE_STEP * i, 4) for i in range(3))
        tokens = 1000 if version == "v1" else 600 if uses_revision(version, revise) else 60
        return Protocol("official", temps, tokens)
    if protocol == "lm-eval":
        if revise:
            raise RunnerError("--revise needs the official protocol (lm-eval has no revision step)")
        return Protocol("lm-eval", (0.0 if temperature is None else float(temperature),), 80, ("\n\n",))
    raise RunnerError(f"unknown protocol {protocol!r}; choose one of {', '.join(PROTOCOLS)}")


# ---------------------------------------------------------------- transport

@dataclass(frozen=True)
class RetryPolicy:
    """Exponential back-off with full jitter; a server's Retry-After wins when it asks for longer."""

    max_retries: int = 6
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    max_retry_after_s: float = 120.0

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        backoff = random.uniform(0, min(self.max_delay_s, self.base_delay_s * 2 ** (retry - 1)))
        if retry_after is not None:
            return min(retry_after, self.max_retry_after_s) + backoff * 0.1  # honour it, desynchronised
        return backoff


@dataclass
class TransportStats:
    """Requests and transport faults by kind ("429", "500", "timeout", "connection", "malformed")."""

    requests: int = 0
    faults: Counter = field(default_factory=Counter)
    gave_up: int = 0

    @property
    def retries(self) -> int:
        return sum(self.faults.values())


@dataclass
class Completion:
    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    finish_reason: str | None
    latency_s: float
    faults: list[str]


def retry_after_s(headers: Any) -> float | None:
    """Seconds a 429/503 asks us to wait: ``retry-after-ms``, or ``Retry-After`` (seconds or a date)."""
    if headers is None:
        return None
    try:
        if headers.get("retry-after-ms"):
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if not value:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            return max(0.0, (parsedate_to_datetime(value) - datetime.now(timezone.utc)).total_seconds())
    except (TypeError, ValueError, OverflowError):
        return None


def redact(text: str, secret: str | None) -> str:
    """The text with the API key removed: error bodies sometimes echo the key back."""
    return text.replace(secret, "***") if secret else text


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Malformed(Exception):
    """A 200 response without a usable completion (no choices, no message content)."""


class Transport:
    """One chat completion at a time, retrying transport faults under :class:`RetryPolicy`."""

    def __init__(self, client: Any, model: str, endpoint: str, api_key: str | None,
                 policy: RetryPolicy | None = None):
        self.client, self.model, self.endpoint = client, model, endpoint
        self._api_key = api_key
        self.policy = policy or RetryPolicy()
        self.stats = TransportStats()
        self.last_fault = ""

    async def complete(self, messages: list[dict[str, str]], temperature: float, max_tokens: int,
                       stop: tuple[str, ...] = ()) -> Completion:
        faults: list[str] = []
        body = {"model": self.model, "messages": messages, "temperature": temperature, "max_tokens": max_tokens}
        if stop:
            body["stop"] = list(stop)
        while True:
            started = time.perf_counter()
            self.stats.requests += 1
            try:
                response = await self._post(body)
                choice, text = _first_choice(response)
            except Exception as exc:  # classified below; anything not retryable is raised from there
                kind, wait_s = self._classify(exc)
                faults.append(kind)
                self.stats.faults[kind] += 1
                self.last_fault = f"{kind}: {redact(_one_line(exc), self._api_key)}"
                if len(faults) > self.policy.max_retries:
                    self.stats.gave_up += 1
                    raise TransportGaveUp(self.last_fault) from None
                await asyncio.sleep(self.policy.delay(len(faults), wait_s))
                continue
            usage = response.get("usage") if isinstance(response.get("usage"), dict) else {}
            return Completion(text, usage.get("prompt_tokens"), usage.get("completion_tokens"),
                              choice.get("finish_reason"), round(time.perf_counter() - started, 4), faults)

    async def _post(self, body: dict[str, Any]) -> Any:
        """POST /chat/completions through the client's own request path (auth, timeout, errors).

        ``client.post`` is the client's documented route for raw requests; unlike
        ``chat.completions.create`` it skips re-validating our already plain parameters, and
        ``cast_to=object`` returns the decoded JSON as it is instead of building pydantic models.
        Each saves about half a millisecond of CPU per request, a quarter of the runner's budget.
        """
        return await self.client.post("/chat/completions", body=body, cast_to=object)

    def _classify(self, exc: Exception) -> tuple[str, float | None]:
        """(fault kind, Retry-After) for a retryable fault; raises :class:`EndpointRefused` otherwise."""
        import openai

        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = redact(_one_line(getattr(exc, "message", "") or exc), self._api_key)
            if status in (401, 403):
                raise EndpointRefused(f"{self.endpoint} refused the API key ({status}); check the key "
                                      f"variable (OPENAI_API_KEY or --api-key-env): {detail}") from None
            if status == 404:
                raise EndpointRefused(f"not found (404) at {self.endpoint}: model {self.model!r} is not served "
                                      f"there, or the base URL lacks its path (often /v1): {detail}") from None
            if status == 429 or status >= 500 or status in (408, 409):
                return str(status), retry_after_s(getattr(exc.response, "headers", None))
            raise EndpointRefused(f"{self.endpoint} rejected the request ({status}): {detail}") from None
        if isinstance(exc, openai.APITimeoutError):
            return "timeout", None
        if isinstance(exc, openai.APIConnectionError):
            return "connection", None
        return "malformed", None  # bad JSON, a body that is not a completion, no choices


def _first_choice(response: Any) -> tuple[dict, str]:
    """The first choice and its text from a decoded chat completion; anything else is malformed."""
    choices = response.get("choices") if isinstance(response, dict) else None
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
        raise _Malformed("response has no choices")
    message = choices[0].get("message")
    text = message.get("content") if isinstance(message, dict) else None
    if not isinstance(text, str):
        raise _Malformed("response has no message content")
    return choices[0], text


# ---------------------------------------------------------------- one question

async def answer_question(transport: Transport, question: Question, plan: Protocol, revise: bool,
                          model: str, run_id: str, iteration: int) -> RunRecord:
    """Ask one question under the protocol, retrying failed parses at rising temperature.

    The decisions of the pinned upstream pipeline (EQ-bench/EQ-Bench d28c60c, process_question):
    an attempt succeeds when the v1 scorer accepts its first pass (and, revising, its revised pass
    too); an all-zero answer fails. After the last attempt nothing is stored, unless revising and
    an earlier attempt had one scoring pass: the first such partial answer is kept.
    """
    revising = uses_revision(question.version, revise)
    parser = default_parser(question.version)
    messages = build_messages(question, revise)
    ref = question.reference_normalised
    attempts: list[dict] = []
    stored, stored_at, partial, partial_at = None, None, None, None
    for temperature in plan.temperatures:
        done = await transport.complete(messages, temperature, plan.max_tokens, plan.stop)
        attempts.append({"text": done.text, "temperature": temperature, "latency_s": done.latency_s,
                         "prompt_tokens": done.prompt_tokens, "completion_tokens": done.completion_tokens,
                         "finish_reason": done.finish_reason, "transport_retries": len(done.faults),
                         "transport_faults": done.faults})
        parsed = parse_answer(done.text, revise=revising, parser=parser)
        first_ok = attempt_succeeded(parsed.first_pass, ref)
        revised_ok = revising and attempt_succeeded(parsed.revised, ref)
        if first_ok and (revised_ok or not revising):
            stored, stored_at = parsed, len(attempts) - 1
            break
        if revising and partial is None and (first_ok or revised_ok):
            partial, partial_at = parsed, len(attempts) - 1
    if stored is None and partial is not None:
        stored, stored_at = partial, partial_at
    record = RunRecord(model, run_id, iteration, question.id, attempts,
                       dict(stored.first_pass) if stored else {}, dict(stored.revised) if stored else {},
                       answer_attempt=stored_at)
    return score_record(record, question)


# ---------------------------------------------------------------- the run file

def _torn_tail_fix(path: Path) -> str | None:
    """Cut an unterminated last line; return a note if something was cut."""
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return None
    keep = data.rfind(b"\n") + 1
    with open(path, "r+b") as f:
        f.truncate(keep)
        f.flush()
        os.fsync(f.fileno())
    return f"{_display_path(path)}: the last line was torn (a killed run); {len(data) - keep} bytes ignored and removed"


def _settings_diff(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    return [f"{k}: file has {_short(old.get(k))}, now {_short(new.get(k))}"
            for k in SETTINGS_KEYS if _canon(old.get(k)) != _canon(new.get(k))]


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "…"


class RunFile:
    """A run's JSON Lines file, opened for appending; every record is flushed and fsynced.

    Opening an existing file resumes it: the header's settings must match, a torn last line is
    cut (and reported), and the records already there are kept in :attr:`finished`, to be skipped.

    Records are written by a thread of their own, so an fsync (0.4 ms on a fast disk, far more on
    a slow one) never stalls the event loop that keeps the requests going. Records that finish
    while one fsync runs share the next write and fsync (group commit), so a kill loses at most
    the requests in flight and the records queued behind that one fsync.
    """

    def __init__(self, path: Path, header: dict[str, Any]):
        self.path = Path(path)
        self.notes: list[str] = []
        self.finished: list[RunRecord] = []  # records already in the file when it was opened
        self.header = self._prepare(header)
        self._file = open(self.path, "ab")
        self._queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.error: str | None = None
        self._writer = threading.Thread(target=self._write_loop, name="eqbench-run-file", daemon=True)
        self._writer.start()

    def _prepare(self, header: dict[str, Any]) -> dict[str, Any]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not self.path.exists() or self.path.stat().st_size == 0:
                self._write_new(header)
                return header
            contents = read_jsonl(self.path)
            if contents.torn_tail:
                self.notes.append(_torn_tail_fix(self.path) or "")
            else:
                self._terminate_last_line()
        except RunFormatError as exc:
            raise RunnerError(f"cannot resume: {exc}") from None
        except OSError as exc:
            raise RunnerError(f"cannot write the run file {self.path}: {exc.strerror or exc}") from None
        if contents.header is None:
            if contents.records:
                raise RunnerError(f"cannot resume {self.path}: it has records but no header line")
            self._write_new(header)
            return header
        diff = _settings_diff(contents.header, header)
        if diff:
            raise RunnerError(f"{self.path} was started with different settings ({'; '.join(diff)}); "
                              f"use another --run-id or --out, or delete the file")
        self.finished = contents.records
        if self.finished:
            self.notes.append(f"resuming {_display_path(self.path)}: {len(self.finished)} finished answers kept")
        return contents.header

    def _write_new(self, header: dict[str, Any]) -> None:
        with open(self.path, "wb") as f:
            f.write((header_line(header) + "\n").encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())

    def _terminate_last_line(self) -> None:
        """A complete last record without its newline: add it, so the next record starts a line."""
        with open(self.path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            ends_ok = f.read(1) == b"\n"
        if not ends_ok:
            with open(self.path, "ab") as f:
                f.write(b"\n")

    def append(self, record: RunRecord) -> None:
        """Hand one finished record to the writer; raises if the writer has failed (disk full, …)."""
        if self.error:
            raise RunnerError(self.error)
        self._queue.put((record_line(record) + "\n").encode("utf-8"))

    def _write_loop(self) -> None:
        while True:
            batch = [self._queue.get()]
            while not self._queue.empty():
                batch.append(self._queue.get())
            lines = [line for line in batch if line is not None]
            try:
                if lines:  # whole lines in one write: a kill mid-write leaves at most a torn last line
                    self._file.write(b"".join(lines))
                    self._file.flush()
                    os.fsync(self._file.fileno())
            except OSError as exc:
                self.error = f"cannot write the run file {self.path}: {exc.strerror or exc}"
                return
            if None in batch:
                return

    def close(self) -> None:
        """Write what is queued, stop the writer, close the file (then check :attr:`error`)."""
        self._queue.put(None)
        self._writer.join()
        self._file.close()


# ---------------------------------------------------------------- progress and concurrency

class Progress:
    """A tqdm bar (notebook-aware) with the parse rate and the running official-style score."""

    def __init__(self, total: int, initial: list[RunRecord], enabled: bool = True, desc: str = "EQ-Bench"):
        self.n = self.parsed = 0
        self.score_sum = 0.0
        self.bar = None
        for r in initial:
            self._count(r)
        if enabled:
            from tqdm.auto import tqdm
            self.bar = tqdm(total=total, initial=len(initial), desc=desc, unit="q", dynamic_ncols=True,
                            mininterval=0.2, file=sys.stderr)
            self._postfix()

    def _count(self, record: RunRecord) -> None:
        self.n += 1
        score = record.revised_score if record.revised_score is not None else record.first_pass_score
        if score is not None:
            self.parsed += 1
            self.score_sum += score

    def _postfix(self, retries: int = 0) -> None:
        parse = f"{100 * self.parsed / self.n:.0f}%" if self.n else "-"
        score = f"{10 * self.score_sum / self.parsed:.1f}" if self.parsed else "-"
        self.bar.set_postfix_str(f"parsed {parse}, score {score}, retries {retries}", refresh=False)

    def update(self, record: RunRecord | None, retries: int = 0) -> None:
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


async def run_pool(jobs: Iterable[Any], work: Callable[[Any], Awaitable[Any]], concurrency: int,
                   on_result: Callable[[Any, Any], None]) -> None:
    """Run ``work`` over ``jobs`` with at most ``concurrency`` in flight.

    A fixed set of workers pulls from one shared iterator, so memory stays flat however many jobs
    there are. ``on_result`` sees each result as it finishes. The first exception cancels the
    other workers and propagates.
    """
    source: Iterator[Any] = iter(jobs)

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


# ---------------------------------------------------------------- settings

def parse_question_ids(spec: str | Iterable[str] | None) -> list[str] | None:
    """ "1,5,10-12" (or a list) into ids; None means all."""
    if spec is None:
        return None
    parts = spec.split(",") if isinstance(spec, str) else [str(s) for s in spec]
    ids: list[str] = []
    for part in (p.strip() for p in parts):
        if not part:
            continue
        if re.fullmatch(r"\d+-\d+", part):
            lo, hi = map(int, part.split("-"))
            ids.extend(str(i) for i in range(lo, hi + 1))
        elif re.fullmatch(r"\d+", part):
            ids.append(str(int(part)))
        else:
            raise RunnerError(f"bad question id {part!r} in --questions (use e.g. 1,5,10-12)")
    if not ids:
        raise RunnerError("--questions named no question ids")
    return list(dict.fromkeys(ids))


def select_questions(version: str, ids: str | Iterable[str] | None = None, limit: int | None = None,
                     data_path: str | os.PathLike | None = None) -> list[Question]:
    """The questions to run: the named ids (in set order), then at most ``limit`` of them."""
    if version not in VERSIONS:
        raise RunnerError(f"unknown EQ-Bench version {version!r}; choose one of {', '.join(VERSIONS)}")
    questions = load_questions(version, data_path)
    wanted = parse_question_ids(ids)
    if wanted is not None:
        known = {q.id for q in questions}
        unknown = [i for i in wanted if i not in known]
        if unknown:
            raise RunnerError(f"question ids not in the {version} set (1-{len(questions)}): "
                              f"{', '.join(unknown[:8])}{' …' if len(unknown) > 8 else ''}")
        chosen = set(wanted)
        questions = [q for q in questions if q.id in chosen]
    if limit is not None:
        if limit < 1:
            raise RunnerError("--limit must be at least 1")
        questions = questions[:limit]
    return questions


def default_run_id(protocol: str, revise: bool, iterations: int, ids: list[str], all_ids: list[str],
                   temperature: float | None = None) -> str:
    """A readable id derived from the settings, so running the same command again resumes."""
    if ids == all_ids:
        selection = "all"
    elif ids == all_ids[: len(ids)]:
        selection = f"first{len(ids)}"
    else:
        selection = "q" + hashlib.sha256(",".join(ids).encode()).hexdigest()[:8]
    temp = "" if temperature is None else f"-t{temperature:g}"
    return f"{protocol}{'-revise' if revise else ''}{temp}-x{iterations}-{selection}"


def sanitise(name: str) -> str:
    """A model or run name safe as part of a file name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "model"


def public_endpoint(base_url: str) -> str:
    """scheme://host:port/path: no user, password, query or fragment (they may hold credentials)."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RunnerError(f"--base-url must look like http(s)://host[:port]/path, not {_one_line(base_url, 80)!r}")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise RunnerError("--base-url has an invalid port") from None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}:{port}{parts.path.rstrip('/')}"


def is_loopback(base_url: str) -> bool:
    host = urlsplit(base_url).hostname or ""
    return host in _LOOPBACK or host.startswith("127.")


def resolve_api_key(api_key_env: str | None, base_url: str) -> str:
    """The key from OPENAI_API_KEY (or the variable named by --api-key-env); a dummy for loopback servers."""
    var = api_key_env or "OPENAI_API_KEY"
    key = os.environ.get(var)
    if key:
        return key
    if api_key_env:
        raise RunnerError(f"environment variable {api_key_env} (named by --api-key-env) is not set")
    if is_loopback(base_url):
        return "sk-no-key-needed"
    raise RunnerError("no API key: set OPENAI_API_KEY or name another variable with --api-key-env "
                      "(for a server that needs no key, set it to any value)")


def check_reachable(base_url: str, timeout: float) -> None:
    """Fail fast, with one line, when nothing listens at the endpoint (rather than retrying for minutes)."""
    parts = urlsplit(base_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((parts.hostname, port), timeout=min(timeout, 10.0)).close()
    except OSError as exc:
        raise RunnerError(f"cannot reach {public_endpoint(base_url)}: {exc.strerror or exc}") from None


# ---------------------------------------------------------------- results

@dataclass
class RunResult:
    """What a run produced: its file, the run as read back, and its score under each convention."""

    path: Path
    run: Run
    scores: dict[str, RunScore]
    stats: TransportStats
    wall_s: float
    answered_now: int
    unfinished: int
    notes: list[str] = field(default_factory=list)

    @property
    def tokens(self) -> tuple[int, int]:
        """(prompt, completion) tokens over every attempt in the run file."""
        attempts = [a for r in self.run.records for a in r.attempts]
        return (sum(a.get("prompt_tokens") or 0 for a in attempts),
                sum(a.get("completion_tokens") or 0 for a in attempts))

    def table(self) -> str:
        """The final summary: score, parseable count and failure flag under each convention."""
        n_q, iters = self.run.n_questions, len(self.run.iterations)
        lines = [f"run file   {_display_path(self.path)}",
                 f"model      {self.run.model}   version {self.run.version}   protocol "
                 f"{self.run.header.get('protocol')}   revise {self.run.revise}   iterations {iters}",
                 "", f"{'convention':<11}{'score':>9}  {'parseable':>11}  failed"]
        for name, s in self.scores.items():
            score = f"{s.score:.4f}" if name == "evalscope" else f"{s.score:.2f}"
            lines.append(f"{name:<11}{score:>9}  {s.n_parseable:>6.4g}/{n_q:<4}  {'FAILED' if s.failed else 'no'}")
        prompt, completion = self.tokens
        faults = ", ".join(f"{k} x{v}" for k, v in sorted(self.stats.faults.items())) or "none"
        lines += ["", f"records    {len(self.run.records)} of {n_q * iters} ({self.answered_now} answered now, "
                      f"{self.unfinished} left unfinished)",
                  f"tokens     prompt {prompt:,}  completion {completion:,}",
                  f"requests   {self.stats.requests:,}  transport retries {self.stats.retries} ({faults})",
                  f"wall time  {self.wall_s:.1f} s"]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


# ---------------------------------------------------------------- the run

@dataclass
class _Plan:
    """Everything a run needs, resolved from the arguments before any request is sent."""

    base_url: str
    endpoint: str
    model: str
    api_key: str
    questions: list[Question]
    protocol: Protocol
    revise: bool
    iterations: int
    concurrency: int
    timeout: float
    path: Path
    header: dict[str, Any]
    retry: RetryPolicy
    progress: bool


async def _discover_model(base_url: str, endpoint: str, api_key: str, timeout: float) -> str:
    """The endpoint's first served model, for when --model is not given."""
    client = _make_client(base_url, api_key, timeout)
    try:
        page = await client.models.list()
        return page.data[0].id
    except Exception as exc:
        raise RunnerError(f"--model not given and {endpoint} does not list its models "
                          f"({redact(_one_line(exc), api_key)}); pass --model") from None
    finally:
        await client.close()


def _make_client(base_url: str, api_key: str, timeout: float):
    from openai import AsyncOpenAI, DefaultAioHttpClient

    return AsyncOpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0,
                       http_client=DefaultAioHttpClient(timeout=timeout))


def _build_header(model: str, endpoint: str, run_id: str, version: str, revise: bool, protocol: Protocol,
                  questions: list[Question], iterations: int, concurrency: int, timeout: float,
                  data_path: str | os.PathLike | None, local: bool) -> dict[str, Any]:
    return {"model": model, "run_id": run_id, "endpoint": endpoint, "local_model": local, "version": version,
            "revise": bool(revise), "protocol": protocol.name, "parser": default_parser(version),
            "n_questions": len(questions), "question_ids": [q.id for q in questions], "iterations": iterations,
            "temperatures": list(protocol.temperatures), "max_tokens": protocol.max_tokens,
            "attempts": protocol.attempts, "stop": list(protocol.stop), "concurrency": concurrency,
            "timeout_s": timeout, "eqbench_nb_version": __version__, "upstream": UPSTREAM[protocol.name],
            "dataset_sha256": dataset_sha256(version, data_path),
            "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}


async def _execute(plan: _Plan) -> RunResult:
    started = time.perf_counter()
    client = _make_client(plan.base_url, plan.api_key, plan.timeout)
    transport = Transport(client, plan.model, plan.endpoint, plan.api_key, plan.retry)
    run_file = RunFile(plan.path, plan.header)
    for note in filter(None, run_file.notes):
        print(note, file=sys.stderr)
    run_id = run_file.header["run_id"]
    done = {r.key for r in run_file.finished}
    jobs = [(it, q) for it in range(1, plan.iterations + 1) for q in plan.questions if (it, q.id) not in done]
    progress = Progress(len(plan.questions) * plan.iterations, run_file.finished, plan.progress,
                        desc=f"{plan.model} {plan.header['version']}")
    counts = {"answered": 0, "unfinished": 0, "streak": 0}
    giveup_limit = max(3, plan.concurrency)

    async def work(job: tuple[int, Question]) -> RunRecord | None:
        iteration, question = job
        try:
            return await answer_question(transport, question, plan.protocol, plan.revise, plan.model, run_id,
                                         iteration)
        except TransportGaveUp:
            return None

    def on_result(job: tuple[int, Question], record: RunRecord | None) -> None:
        if record is None:
            counts["unfinished"] += 1
            counts["streak"] += 1
            if counts["streak"] >= giveup_limit:
                raise RunnerError(f"{plan.endpoint} keeps failing ({counts['streak']} questions in a row gave up "
                                  f"after {plan.retry.max_retries} retries; last: {transport.last_fault}); "
                                  f"finished answers are saved, run the same command again to resume")
        else:
            run_file.append(record)
            counts["answered"] += 1
            counts["streak"] = 0
        progress.update(record, transport.stats.retries)

    failed = True
    try:
        await run_pool(jobs, work, plan.concurrency, on_result)
        failed = False
    finally:
        progress.close(failed)
        run_file.close()
        await client.close()
    if run_file.error:
        raise RunnerError(run_file.error)
    run = read_run(plan.path)
    scores = {c: score_run(run, c) for c in CONVENTIONS}
    return RunResult(plan.path, run, scores, transport.stats, time.perf_counter() - started, counts["answered"],
                     counts["unfinished"], [n for n in run_file.notes if n])


def _display_path(path: Path) -> str:
    """The path relative to the working directory when it is close by (no home folders in notebooks)."""
    relative = os.path.relpath(path)
    return relative if not relative.startswith(os.path.join("..", "..")) else str(path)


def _run_coroutine(make: Callable[[], Awaitable[Any]]) -> Any:
    """Run a coroutine to completion, also from inside a running event loop (Jupyter).

    There the coroutine runs on its own loop in a worker thread; Ctrl-C (the kernel's interrupt)
    in the waiting thread cancels it cleanly.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    box: dict[str, Any] = {}
    ready = threading.Event()

    def target() -> None:
        loop = asyncio.new_event_loop()
        box["loop"], box["task"] = loop, loop.create_task(make())
        ready.set()
        try:
            box["result"] = loop.run_until_complete(box["task"])
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc
        finally:
            loop.close()

    thread = threading.Thread(target=target, name="eqbench-runner", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.1)
    except KeyboardInterrupt:
        ready.wait()
        box["loop"].call_soon_threadsafe(box["task"].cancel)
        thread.join()
        raise
    if "error" in box:
        raise box["error"]
    return box["result"]


def run_benchmark(base_url: str | None = None, model: str | None = None, version: str = "v2",
                  protocol: str = "official", revise: bool = False, iterations: int = 1,
                  concurrency: int | None = None, limit: int | None = None,
                  questions: str | Iterable[str] | None = None, out_dir: str | os.PathLike = "runs",
                  run_id: str | None = None, api_key_env: str | None = None, timeout: float | None = None,
                  progress: bool = True, retry: RetryPolicy | None = None,
                  data_path: str | os.PathLike | None = None, temperature: float | None = None) -> RunResult:
    """Run EQ-Bench and return a :class:`RunResult`; the same call again resumes the same run file.

    With ``base_url=None`` the bundled SmolLM2-135M-Instruct is served on 127.0.0.1 for the run.
    Otherwise any OpenAI-compatible endpoint, the key read from ``OPENAI_API_KEY`` or the
    variable named by ``api_key_env``. The file is ``<out_dir>/<model>__<version>__<run_id>.jsonl``.
    """
    if iterations < 1:
        raise RunnerError("--iterations must be at least 1")
    if concurrency is not None and concurrency < 1:
        raise RunnerError("--concurrency must be at least 1")
    if timeout is not None and timeout <= 0:
        raise RunnerError("--timeout must be positive")
    chosen = select_questions(version, questions, limit, data_path)
    plan_protocol = protocol_plan(protocol, version, revise, temperature)
    timeout = float(timeout or DEFAULT_TIMEOUT_S)
    local = base_url is None
    with ExitStack() as stack:
        if local:
            from .local_model import MODEL_NAME, LocalModelError, LocalServer

            if model not in (None, MODEL_NAME):
                raise RunnerError(f"without --base-url the bundled {MODEL_NAME} is used; drop --model {model!r}")
            model, concurrency = MODEL_NAME, concurrency or LOCAL_CONCURRENCY
            try:
                base_url = stack.enter_context(LocalServer(n_parallel=concurrency))
            except LocalModelError as exc:
                raise RunnerError(str(exc)) from None
        concurrency = concurrency or DEFAULT_CONCURRENCY
        endpoint = public_endpoint(base_url)
        api_key = resolve_api_key(api_key_env, base_url)
        check_reachable(base_url, timeout)
        if model is None:
            model = _run_coroutine(lambda: _discover_model(base_url, endpoint, api_key, timeout))
        all_ids = [q.id for q in load_questions(version, data_path)]
        rid = run_id or default_run_id(plan_protocol.name, revise, iterations, [q.id for q in chosen], all_ids,
                                      temperature)
        path = Path(out_dir) / f"{sanitise(model)}__{version}__{sanitise(rid)}.jsonl"
        header = _build_header(model, endpoint, rid, version, revise, plan_protocol, chosen, iterations,
                               concurrency, timeout, data_path, local)
        plan = _Plan(base_url, endpoint, model, api_key, chosen, plan_protocol, revise, iterations, concurrency,
                     timeout, path, header, retry or RetryPolicy(), progress)
        try:
            return _run_coroutine(lambda: _execute(plan))
        except KeyboardInterrupt:
            print(f"interrupted: finished answers are saved in {path}; run the same command again to resume",
                  file=sys.stderr)
            raise
