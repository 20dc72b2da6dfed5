"""One chat completion over the OpenAI-compatible HTTP API, with the runner's own retry policy.

Transport faults (429, 5xx, timeouts, resets, malformed bodies) are retried with exponential
back-off and jitter and counted; they never use up one of a protocol's attempts (the official
pipeline would spend an attempt on them: a deliberate departure, since a fault says nothing about
the model). 401/403/404 and other non-retryable rejections stop the run at once.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from .errors import EndpointRefused, TransportGaveUp


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
            return max(0.0, (parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds())
    except (TypeError, ValueError, OverflowError):
        return None


def redact(text: str, secret: str | None) -> str:
    """The text with the API key removed: error bodies sometimes echo the key back."""
    return text.replace(secret, "***") if secret else text


def one_line(text: object, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Malformed(Exception):
    """A 200 response without a usable completion (no choices, no message content)."""


class Transport:
    """One chat completion at a time, retrying transport faults under :class:`RetryPolicy`."""

    def __init__(self, client: Any, model: str, endpoint: str, api_key: str | None, policy: RetryPolicy | None = None):
        self.client, self.model, self.endpoint = client, model, endpoint
        self._api_key = api_key
        self.policy = policy or RetryPolicy()
        self.stats = TransportStats()
        self.last_fault = ""

    async def complete(
        self,
        messages: list[dict[str, str]],
        temperature: float,
        max_tokens: int,
        stop: tuple[str, ...] = (),
        seed: int | None = None,
    ) -> Completion:
        faults: list[str] = []
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": temperature,
            "max_tokens": max_tokens,
        }
        if stop:
            body["stop"] = list(stop)
        if seed is not None:
            body["seed"] = seed
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
                self.last_fault = f"{kind}: {redact(one_line(exc), self._api_key)}"
                if len(faults) > self.policy.max_retries:
                    self.stats.gave_up += 1
                    raise TransportGaveUp(self.last_fault) from None
                await asyncio.sleep(self.policy.delay(len(faults), wait_s))
                continue
            usage = response.get("usage") if isinstance(response.get("usage"), dict) else {}
            return Completion(
                text,
                usage.get("prompt_tokens"),
                usage.get("completion_tokens"),
                choice.get("finish_reason"),
                round(time.perf_counter() - started, 4),
                faults,
            )

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
            detail = redact(one_line(getattr(exc, "message", "") or exc), self._api_key)
            if status in (401, 403):
                raise EndpointRefused(
                    f"{self.endpoint} refused the API key ({status}); check the key "
                    f"variable (OPENAI_API_KEY or --api-key-env): {detail}"
                ) from None
            if status == 404:
                raise EndpointRefused(
                    f"not found (404) at {self.endpoint}: model {self.model!r} is not served "
                    f"there, or the base URL lacks its path (often /v1): {detail}"
                ) from None
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
