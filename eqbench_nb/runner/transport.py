"""One chat completion over the OpenAI-compatible HTTP API, with the runner's own retry policy.

Three kinds of outcome, each handled where it belongs:

- **Transport faults** (429, 5xx, 408/409, timeouts, closed or reset connections, bodies that are
  not a completion) are retried with exponential back-off and jitter within a
  :class:`RetryPolicy` budget, and counted; they never use up one of a protocol's attempts (the
  official pipeline would spend an attempt on them: a deliberate departure, since a fault says
  nothing about the model).
- **This request failed** (400/413/422: context length, content filter, too large; a 200 whose
  content is null or missing; a body over :data:`MAX_BODY_BYTES`): a :class:`Completion` whose
  ``text`` is None and whose ``error`` says why. The protocol records it as a failed (unparseable)
  attempt, as the official pipeline would count it, and the run goes on.
- **The endpoint refuses us** (401/403/404, other 4xx): :class:`EndpointRefused` stops the run.

Every request has a total deadline (``deadline_s``): a body trickling in byte by byte cannot hold a
request open for longer, whatever the per-read timeout. Text longer than :data:`MAX_TEXT_CHARS` is
cut (the completion's ``error`` notes it). Secrets (the API key, a key in the base URL's query) are
redacted from every message.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from .errors import EndpointRefused, TransportGaveUp
from .headers import retry_after_s
from .reasoning import (
    BUDGET_SPENT,
    ParameterAdapter,
    Reply,
    message_reasoning,
    reasoning_tokens,
    split_reasoning,
)
from .redact import clip, redact, remember, without_surrogates

#: Largest response body read (a chat completion is a few KB); the download stops here.
MAX_BODY_BYTES = 4 * 2**20
#: Longest completion text kept, stored and parsed: far above any EQ-Bench answer (at most 1,000
#: tokens are asked for, about 5,000 characters).
MAX_TEXT_CHARS = 100_000
#: Statuses that reject one request (its prompt or its size), not the endpoint or the key.
REJECTED_STATUSES = (400, 413, 422)


class Halted(Exception):
    """The run is stopping (an error elsewhere, Ctrl-C, SIGTERM): no new request is sent."""


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential back-off with equal jitter, within a count and a time budget per request.

    Retry k waits between half and all of ``min(max_delay_s, base_delay_s * 2**(k-1))``; a server's
    Retry-After (capped at ``max_retry_after_s``) wins when it asks for longer. A request gives up
    after ``max_retries`` retries or once its waits add up to ``budget_s``, whichever comes first.
    The defaults wait at least :meth:`min_total_wait_s` (120 s) before giving up, so a question
    outlasts a typical 60 s rate-limit window.
    """

    max_retries: int = 12
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    max_retry_after_s: float = 120.0
    budget_s: float = 300.0

    def cap(self, retry: int) -> float:
        return min(self.max_delay_s, self.base_delay_s * 2 ** min(retry - 1, 60))

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        cap = self.cap(retry)
        backoff = cap / 2 + random.uniform(0, cap / 2)
        if retry_after is not None:
            asked = min(retry_after, self.max_retry_after_s)
            if asked >= backoff:
                return asked + random.uniform(0, 0.1 * asked)  # honour it, desynchronised
        return backoff

    def min_total_wait_s(self) -> float:
        """The least a request waits in all before it gives up (every jitter at its minimum)."""
        return min(self.budget_s, sum(self.cap(k) / 2 for k in range(1, self.max_retries + 1)))


@dataclass
class TransportStats:
    """Requests, transport faults by kind ("429", "500", "timeout", "connection", "malformed"), and
    requests that failed on their own ("400", "413", "422", "no content", "too large")."""

    requests: int = 0
    faults: Counter = field(default_factory=Counter)
    gave_up: int = 0
    responses: int = 0  # 200s received (an oversized one too: the endpoint answered)
    failed: Counter = field(default_factory=Counter)
    cut: int = 0  # texts cut to MAX_TEXT_CHARS

    @property
    def retries(self) -> int:
        return sum(self.faults.values())

    def line(self, label: str = "requests") -> str:
        """The run table's line of this endpoint's requests and transport retries by kind."""
        faults = ", ".join(f"{k} x{v}" for k, v in sorted(self.faults.items())) or "none"
        return f"{label:<10} {self.requests:,}  transport retries {self.retries} ({faults})"


def closing_lines(wall_s: float, unfinished: int, last_fault: str, timing: bool = True) -> list[str]:
    """The run table's last lines: the wall time (``timing``), and what was left unfinished with the last fault."""
    lines = [f"wall time  {wall_s:.1f} s"] if timing else []
    if unfinished:
        lines.append(f"unfinished {unfinished}; last fault: {last_fault or 'none'}")
    return lines


@dataclass
class Completion:
    """One completion. ``text`` is None when this request failed on its own; ``error`` then says
    why (rejected 400/413/422, no content, body over the cap). With ``text`` present, ``error`` is
    None, or a note that the text was cut to :data:`MAX_TEXT_CHARS`."""

    text: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    finish_reason: str | None
    #: seconds from sending to the whole answer; None for a Batch API answer (no request of its own to time)
    latency_s: float | None
    faults: list[str]
    error: str | None = None
    #: reasoning models (:mod:`eqbench_nb.runner.reasoning`): the content as received when the
    #: reasoning was taken off it, the reasoning, its tokens, the deviations in force when it was sent
    raw_text: str | None = None
    reasoning: str | None = None
    reasoning_tokens: int | None = None
    adapted: tuple[str, ...] = ()
    #: answered through the Batch API (billed at its price: :mod:`eqbench_nb.runner.cost`)
    batch: bool = False
    #: the model the answer names, where it is not the one asked for (a batch answered by another model)
    served_model: str | None = None

    def attempt(self, temperature: float) -> dict[str, Any]:
        """This completion as one attempt of a record (every benchmark stores its attempts so): the text,
        the settings it was asked with, what the transport saw, and the reasoning fields that apply."""
        return {
            "text": self.text,
            "temperature": temperature,
            "latency_s": self.latency_s,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "finish_reason": self.finish_reason,
            "transport_retries": len(self.faults),
            "transport_faults": self.faults,
            "error": self.error,
            **self.extras(),  # a reasoning model's raw text, reasoning, its tokens, adapted parameters
        }

    def extras(self) -> dict[str, Any]:
        """The reasoning fields that apply, for the attempt's record (none for a plain model)."""
        out: dict[str, Any] = {}
        if self.raw_text is not None:
            out["raw_text"] = self.raw_text
        if self.reasoning is not None:
            out["reasoning"] = self.reasoning
        if self.reasoning_tokens is not None:
            out["reasoning_tokens"] = self.reasoning_tokens
        if self.adapted:
            out["adapted"] = list(self.adapted)
        if self.batch:
            out["batch"] = True
        if self.served_model is not None:
            out["served_model"] = self.served_model
        return out


def one_line(text: object, limit: int = 200) -> str:
    """One printable line, redacted (every remembered secret, in any form) before it is cut."""
    return clip(text, limit)


class Limiter(Protocol):
    """What the transport needs of a rate limiter (:class:`eqbench_nb.runner.ratelimit.AdaptiveLimiter`): a
    place for each request. Named here, so the limiter depends on the transport and not the other way round."""

    def slot(self) -> contextlib.AbstractAsyncContextManager[None]: ...


class _Malformed(Exception):
    """A 200 response that is not a chat completion (not JSON, no choices)."""


def _print_notice(message: str) -> None:
    print(message, file=sys.stderr)


class Transport:
    """One chat completion at a time, retrying transport faults under :class:`RetryPolicy`.

    ``deadline_s`` bounds each request as a whole (None: no deadline beyond the client's own
    timeouts). ``secrets`` are redacted from every message besides ``api_key``. ``notice`` receives
    one-line diagnostics (a capped Retry-After), each distinct one once. :meth:`halt` stops it: no
    request is sent after, waits for a retry end at once, and requests already waiting for their
    answer are left to finish.
    """

    def __init__(
        self,
        client: Any,
        model: str,
        endpoint: str,
        api_key: str | None,
        policy: RetryPolicy | None = None,
        deadline_s: float | None = None,
        secrets: Iterable[str] = (),
        notice: Callable[[str], None] | None = None,
        adapter: ParameterAdapter | None = None,
        limiter: Limiter | None = None,
        key_hint: str = "the key variable (OPENAI_API_KEY or --api-key-env)",
    ):
        self.client, self.model, self.endpoint = client, model, endpoint
        #: what a refused key (401/403) asks to check: this endpoint's own key variable and the option naming it
        self.key_hint = key_hint
        self._secrets = [s for s in (api_key, *secrets) if s]
        remember(*self._secrets)
        self.policy = policy or RetryPolicy()
        self.deadline_s = deadline_s
        self.stats = TransportStats()
        self.last_fault = ""  # the last transport fault, or request that failed on its own
        self.notice = notice or _print_notice
        self._noticed: set[str] = set()
        self.halted: str | None = None
        self._halt = asyncio.Event()
        self.adapter = adapter or ParameterAdapter()
        self.limiter = limiter

    def redact(self, text: object, limit: int = 200) -> str:
        """One line of ``text``: every secret redacted first (in any form, or a prefix), then cut."""
        return clip(text, limit, self._secrets)

    def halt(self, reason: str = "stopping") -> None:
        """Send nothing more: complete() raises :class:`Halted` before any new request or retry."""
        if self.halted is None:
            self.halted = reason
        self._halt.set()

    async def complete(
        self,
        messages: list[dict[str, str]],
        temperature: float,
        max_tokens: int,
        stop: tuple[str, ...] = (),
        seed: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> Completion:
        """One completion (``extra``: sampling parameters the protocol adds, e.g. ``min_p``; each is dropped once
        the endpoint refuses it, as a recorded deviation)."""
        faults: list[str] = []
        waited = 0.0
        adaptations = 0
        body = self.adapter.body(self.model, messages, temperature, max_tokens, stop, seed, extra)
        while True:
            if self.halted is not None:
                raise Halted(self.halted)
            started = time.perf_counter()
            self.stats.requests += 1
            try:
                async with self._slot():
                    # built when it is sent: what the endpoint refused while this request waited is not sent
                    body = self.adapter.body(self.model, messages, temperature, max_tokens, stop, seed, extra)
                    if self.deadline_s is None:
                        response = await self._post(body)
                    else:
                        async with asyncio.timeout(self.deadline_s):
                            response = await self._post(body)
                self.stats.responses += 1
                return self._completion(response, started, faults, body)
            except Exception as exc:  # classified below; anything that stops the run is raised from there
                kind, wait_s, failed = self._classify(exc)
                if kind == "400" and adaptations < 3 and self._adapt(exc, body):
                    adaptations += 1  # a refused parameter says nothing of the model: sent again, no attempt spent
                    continue
                if failed is not None:  # this request failed on its own: the protocol decides what next
                    if _answered(exc):  # an oversized 200: the endpoint answers, only this reply was too long
                        self.stats.responses += 1
                    self.stats.failed[kind] += 1
                    self.last_fault = f"{kind}: {failed}"
                    return Completion(None, None, None, None, _since(started), faults, failed)
                faults.append(kind)
                self.stats.faults[kind] += 1
                self.last_fault = f"{kind}: {self._fault_detail(kind, exc)}"
                retry = len(faults)
                if retry > self.policy.max_retries or waited >= self.policy.budget_s:
                    self.stats.gave_up += 1
                    raise TransportGaveUp(
                        f"gave up after {retry - 1} retries over {waited:.0f} s; last: {self.last_fault}",
                        self.last_fault,
                        self.endpoint,
                    ) from None
                delay = min(self.policy.delay(retry, wait_s), self.policy.budget_s - waited)
                if wait_s is not None and wait_s > self.policy.max_retry_after_s:
                    self._notice(
                        f"{kind} from {self.endpoint}: server asked {wait_s:.0f} s, waiting {delay:.3g} s "
                        f"(the Retry-After cap is {self.policy.max_retry_after_s:g} s)"
                    )
                waited += delay
                await self._sleep(delay)

    def _slot(self) -> Any:
        """The rate limiter's place for one request (:mod:`eqbench_nb.runner.ratelimit`), if any."""
        return self.limiter.slot() if self.limiter is not None else contextlib.nullcontext()

    def _adapt(self, exc: Exception, body: dict[str, Any]) -> bool:
        """Whether a 400 refused a parameter the adapter can change (it then has)."""
        param = getattr(exc, "param", None)
        return self.adapter.adapt(body, param if isinstance(param, str) else None, refusal_text(exc))

    def _fault_detail(self, kind: str, exc: Exception) -> str:
        """What went wrong, in words: an exception with an empty message (a timeout) says nothing."""
        detail = _without_status_prefix(self.redact(exc))
        if isinstance(exc, json.JSONDecodeError):
            return f"the 200 response is labelled JSON but does not parse ({exc.msg} at character {exc.pos})"
        if kind == "timeout" and isinstance(exc, TimeoutError) and self.deadline_s is not None:
            return f"no complete answer within the {self.deadline_s:g} s deadline (--timeout)"
        if kind == "timeout" and (not detail or detail == "Request timed out."):
            return "the client timed out waiting for the server (--timeout)"
        if kind == "connection" and detail in ("", "Request timed out.", "Connection error."):
            # the aiohttp transport calls a dropped connection a timeout: say what happened
            return "the server closed or reset the connection before answering"
        return detail or type(exc).__name__

    def _notice(self, message: str) -> None:
        if message not in self._noticed:
            self._noticed.add(message)
            self.notice(message)

    async def _sleep(self, seconds: float) -> None:
        """Sleep, but wake and raise :class:`Halted` as soon as the transport is halted."""
        try:
            await asyncio.wait_for(self._halt.wait(), seconds)
        except TimeoutError:
            return
        raise Halted(self.halted or "stopping")

    async def _post(self, body: dict[str, Any]) -> Any:
        """POST /chat/completions through the client's own request path (auth, timeout, errors).

        ``client.post`` is the client's documented route for raw requests; unlike
        ``chat.completions.create`` it skips re-validating our already plain parameters, and
        ``cast_to=object`` returns the decoded JSON as it is instead of building pydantic models.
        Each saves about half a millisecond of CPU per request, a quarter of the runner's budget.
        """
        return await self.client.post("/chat/completions", body=body, cast_to=object)

    def _completion(self, response: Any, started: float | None, faults: list[str], body: dict[str, Any]) -> Completion:
        """The completion in a decoded 200 response; raises :class:`_Malformed` if it is not one.

        Everything taken from the body is typed defensively (a non-conforming server sends anything): a
        usage count that is not a whole number is recorded as absent, a content that is neither text, a
        list of parts nor null is malformed (retried), and every string is redacted before it is kept.
        The reasoning is taken off the text (:func:`~eqbench_nb.runner.reasoning.split_reasoning`);
        a reply cut off by its token limit with no answer after the reasoning is a failed request
        (:data:`~eqbench_nb.runner.reasoning.BUDGET_SPENT`)."""
        if isinstance(response, str):
            raise _Malformed(f"response is not JSON (content type not application/json): {response[:80]!r}")
        choices = response.get("choices") if isinstance(response, dict) else None
        if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
            raise _Malformed(f"response has no choices (a JSON {type(response).__name__})")
        choice = choices[0]
        message = choice.get("message")
        message = message if isinstance(message, dict) else {}
        content = message.get("content")
        content_text = _content_text(content)
        if content_text is None and content is not None:
            raise _Malformed(f"message content is a JSON {type(content).__name__}, not text")
        finish = choice.get("finish_reason")
        finish = self.redact(finish, 40) if isinstance(finish, str) else None
        usage = response.get("usage") if isinstance(response.get("usage"), dict) else {}
        reply = split_reasoning(content_text, message_reasoning(message))
        if reply.trailing_close and finish == "length":  # cut off just after its reasoning closed: no answer
            reply = Reply(None, reply.answer, content_text)
        text, thought = reply.answer, _count(reasoning_tokens(usage))
        notes: list[str] = []
        if finish == "length" and (text is None or not text.strip()) and (reply.reasoning or thought):
            limit = body.get("max_completion_tokens", body.get("max_tokens"))
            error = f"{BUDGET_SPENT} ({thought if thought is not None else 'unknown'} reasoning tokens of {limit})"
            text = None
            self.stats.failed["budget spent on reasoning"] += 1
            self.last_fault = error
            notes.append(error)
        elif text is None:
            refusal = message.get("refusal")
            error = (
                f"refused: {self.redact(refusal)}"
                if isinstance(refusal, str) and refusal
                else f"no message content (finish_reason {finish})"
            )
            self.stats.failed["no content"] += 1
            self.last_fault = f"no content: {error}"
            notes.append(error)
        else:
            text = self._keepable(text, notes)
        return Completion(
            text,
            _count(usage.get("prompt_tokens")),
            _count(usage.get("completion_tokens")),
            finish,
            _since(started),
            faults,
            "; ".join(notes) or None,
            self._keepable(reply.raw, []) if reply.raw is not None else None,
            self._keepable(reply.reasoning, []) if reply.reasoning is not None else None,
            thought,
            tuple(self.adapter.deviations),
        )

    def _keepable(self, text: str, notes: list[str]) -> str:
        """A text as it can be stored: the secrets redacted (first, so a cut never leaves part of one), cut
        to :data:`MAX_TEXT_CHARS`, lone surrogates replaced; what was done is added to ``notes``."""
        text = redact(text, self._secrets)
        if len(text) > MAX_TEXT_CHARS:
            notes.append(f"text cut to its first {MAX_TEXT_CHARS:,} of {len(text):,} characters")
            text = text[:MAX_TEXT_CHARS]
            self.stats.cut += 1
        text, surrogates = without_surrogates(text)
        if surrogates:  # UTF-8 cannot store a lone surrogate: kept as U+FFFD, and said
            notes.append(f"{surrogates} lone surrogate{'s' if surrogates > 1 else ''} replaced by U+FFFD")
        return text

    def _classify(self, exc: Exception) -> tuple[str, float | None, str | None]:
        """(kind, Retry-After, None) for a transport fault to retry; (kind, None, why) for a request that
        failed on its own; raises :class:`EndpointRefused` when the run must stop."""
        import openai

        from .http import ResponseTooLarge, UnreadableBody

        if isinstance(exc, ResponseTooLarge):
            return "too large", None, self.redact(exc)
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = _without_status_prefix(self.redact(getattr(exc, "message", "") or exc))
            if 300 <= status < 400:
                target = _header(exc.response, "location")
                raise EndpointRefused(
                    f"{self.endpoint} redirects ({status}) to {self.redact(target or 'nowhere', 160)}; redirects are "
                    "never followed (the prompts and the key would go where --base-url does not say): use the "
                    "URL it redirects to as --base-url if it is the right one"
                ) from None
            if status in (401, 403):
                raise EndpointRefused(
                    f"{self.endpoint} refused the API key ({status}); check {self.key_hint}: {detail}"
                ) from None
            if status == 404:
                raise EndpointRefused(
                    f"not found (404) at {self.endpoint}: model {self.model!r} is not served "
                    f"there, or the base URL lacks its path (often /v1): {detail}"
                ) from None
            if status in REJECTED_STATUSES:
                return str(status), None, f"rejected ({status}): {detail}"
            if status == 429 or status >= 500 or status in (408, 409):
                return str(status), retry_after_s(getattr(exc.response, "headers", None)), None
            raise EndpointRefused(f"{self.endpoint} rejected the request ({status}): {detail}") from None
        if isinstance(exc, TimeoutError):  # our own deadline
            return "timeout", None, None
        if isinstance(exc, openai.APITimeoutError):
            # the aiohttp transport reports a closed or reset connection as a connect timeout
            return ("timeout" if _timed_out(exc) else "connection"), None, None
        if isinstance(exc, openai.APIConnectionError):
            return "connection", None, None
        if isinstance(exc, UnreadableBody):
            return "malformed", None, None
        return "malformed", None, None  # bad JSON, a body that is not a completion, no choices


def _answered(exc: Exception) -> bool:
    """Whether a request that failed on its own was still answered (a 2xx whose body is over the cap): the endpoint
    answers, so the rule of first answers (a 4xx for every request stops the run) does not count it, and the run goes
    on, this request recorded as failed and asked again within its protocol's budget."""
    from .http import ResponseTooLarge  # imported by the client already: a failed request had one

    return isinstance(exc, ResponseTooLarge) and isinstance(exc.status, int) and 200 <= exc.status < 300


def refusal_text(exc: Exception) -> str:
    """What a refusal says, for the parameter adapter: the client's message, and the body when it is not JSON
    (an HTML or text/plain 400 from a proxy or a gateway; the client keeps it whole in ``exc.body``)."""
    message = str(getattr(exc, "message", None) or exc)
    body = getattr(exc, "body", None)
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    return f"{message} {body[:4000]}" if isinstance(body, str) else message


def _count(value: Any) -> int | None:
    """A token count as the server sent it if it is a whole number of a sane size, else None (absent)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53:
        return value
    return None


def _without_status_prefix(message: str) -> str:
    """The openai client's "Error code: 503 - " prefix off a message (the status is said already)."""
    head, sep, rest = message.partition(" - ")
    return rest if sep and head.startswith("Error code: ") else message


def _header(response: Any, name: str) -> str | None:
    try:
        value = response.headers.get(name)
    except Exception:  # no response, or headers that do not decode
        return None
    return value if isinstance(value, str) else None


def _since(started: float | None) -> float | None:
    """Seconds since ``started`` (None: not timed, a Batch API answer)."""
    return None if started is None else round(time.perf_counter() - started, 4)


def _timed_out(exc: BaseException) -> bool:
    """Whether a timeout error really timed out: some exception in its chain is a TimeoutError, or
    nothing in the chain says otherwise (a closed or reset connection does)."""
    seen: BaseException | None = exc
    for _ in range(20):
        if seen is None:
            return True
        if isinstance(seen, TimeoutError):
            return True
        if isinstance(seen, (ConnectionError, EOFError)) or type(seen).__module__.startswith("aiohttp"):
            return False
        seen = seen.__cause__ or seen.__context__
    return True


def _content_text(content: Any) -> str | None:
    """The message text: a string, or the text parts of a list of content parts; None if neither."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "".join(parts) if parts else None
    return None
