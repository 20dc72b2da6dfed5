"""Rate-limit-adaptive concurrency: hold a run close to the server's limit with few 429s.

``--concurrency`` is the ceiling. Every request passes :meth:`AdaptiveLimiter.slot`, which admits
it when two gates allow:

- **A window** of requests in flight. It starts small (:data:`START_WINDOW`) and grows by one per
  answer (slow start: it doubles every round trip) up to the ceiling, so a server without limits
  is soon asked at full concurrency; a 429 halves it.
- **A pace** (requests per second), set only once the server says it has a limit:

  - from its ``x-ratelimit-limit-requests`` / ``-remaining-requests`` / ``-reset-requests``
    headers (OpenAI's), read as a token bucket: ``limit`` requests when full, ``remaining`` now,
    full again after ``reset``, so it refills at ``(limit - remaining) / reset`` per second. The
    limiter keeps its own copy of that bucket (the server's ``remaining`` less what is in flight)
    and sends only what it holds;
  - else from 429s (AIMD). A 429 means the server's bucket is empty; while it stays empty, the
    answers per second received are its refill rate. The first 429 of a run halves the pace from the
    answers per second of the last two seconds (inflated by the full bucket a server starts with);
    a 429 within two seconds of another sets it just under the answers per second received since the
    first of them (the measured limit); a 429 after a quiet spell (the pace crept over the limit)
    takes a tenth off. A 429 for a request sent before the last cut changes nothing: the cut already
    answered it. Every answer adds to the pace, about half a request per second each second, and a
    tenth of the pace each second once ten seconds have passed without a 429.

A 429's ``Retry-After`` pauses the whole run, not only the request that got it (the transport still
retries that request under its own back-off). :attr:`AdaptiveLimiter.summary` is what the final
table says. ``enabled=False`` gives today's fixed concurrency (the baseline in
``benchmarks/bench_ratelimit.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import statistics
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from .headers import header_count, header_seconds, retry_after_s

#: Requests in flight at the start (grows by one per answer up to the ceiling).
START_WINDOW = 4
#: The pace after the first 429, as a share of the answers per second received just before it.
FIRST_CUT = 0.5
#: The pace after a 429 that follows a quiet spell, as a share of the pace before it.
LATER_CUT = 0.9
#: The pace, as a share of the answers per second measured while the server's bucket is empty.
MEASURED_SHARE = 0.95
#: Seconds without a 429 after which the next one starts a new episode.
EPISODE_GAP_S = 2.0
#: Seconds of answers the pace after a 429 is measured over.
GOODPUT_WINDOW_S = 2.0
#: Pace added per second of answers (requests per second), when learnt from 429s.
INCREASE_PER_S = 0.5
#: Seconds without a 429 after which the pace also grows by :data:`QUIET_GROWTH` of itself each second
#: (after a passing storm of 429s, a pace learnt in it would otherwise take minutes to recover).
QUIET_S = 10.0
QUIET_GROWTH = 0.1
#: The longest whole-run pause a Retry-After can impose.
MAX_PAUSE_S = 5.0
#: The longest one request waits for the pace the headers set (the transport's default Retry-After cap).
MAX_WAIT_S = 120.0
#: A pace wait longer than this is said (once).
LONG_WAIT_S = 10.0

#: When the request now being answered was sent (set by :meth:`AdaptiveLimiter.slot` in its task's
#: context, read by :meth:`AdaptiveLimiter.observe`, which runs in the same task).
_SENT_AT: contextvars.ContextVar[float] = contextvars.ContextVar("sent_at")


def parse_reset(value: str | None) -> float | None:
    """OpenAI's ``x-ratelimit-reset-*`` ("20ms", "1s", "6m0s", "1.5s"), or plain seconds, in seconds (None when
    absent, unreadable or absurd: :func:`~eqbench_nb.runner.headers.header_seconds`)."""
    return header_seconds(value)


@dataclass
class BucketReading:
    """What one response's rate-limit headers say of the server's bucket."""

    limit: int
    remaining: int
    reset_s: float | None

    @property
    def refill_per_s(self) -> float | None:
        """Requests per second the bucket refills at, when the reading is precise enough to say."""
        deficit = self.limit - self.remaining
        # a small deficit against a reset rounded to the millisecond says little: skip those
        if self.reset_s is None or self.reset_s <= 0 or deficit < max(2, 0.1 * self.limit):
            return None
        return deficit / self.reset_s


def read_bucket(headers: Any) -> BucketReading | None:
    """The ``x-ratelimit-*-requests`` headers of a response, if it has them."""
    if headers is None:
        return None
    try:
        limit = header_count(headers.get("x-ratelimit-limit-requests"))
        remaining = header_count(headers.get("x-ratelimit-remaining-requests"))
        reset = header_seconds(headers.get("x-ratelimit-reset-requests"))
    except Exception:  # headers that do not decode: the server said nothing usable
        return None
    if limit is None or remaining is None or limit < 1:
        return None
    return BucketReading(limit, min(remaining, limit), reset)


class AdaptiveLimiter:
    """The gate every request of a run passes (see the module docstring)."""

    def __init__(
        self,
        ceiling: int,
        enabled: bool = True,
        start: int = START_WINDOW,
        max_pause_s: float = MAX_PAUSE_S,
        max_wait_s: float = MAX_WAIT_S,
        notice: Callable[[str], None] | None = None,
    ):
        """``max_pause_s`` caps a Retry-After's whole-run pause (the run's own cap on Retry-After, if lower);
        ``max_wait_s`` caps how long one request waits for the pace (the run's Retry-After cap: a server whose
        headers ask for longer is answered by its 429s, under the retry budget); ``notice`` is told once when
        the headers ask for a wait of more than :data:`LONG_WAIT_S`."""
        self.ceiling = max(1, ceiling)
        self.max_pause_s = min(max_pause_s, MAX_PAUSE_S)
        self.max_wait_s = max_wait_s
        self.notice = notice
        self._noticed = False
        self.enabled = enabled
        self.window = float(min(start, self.ceiling)) if enabled else float(self.ceiling)
        self.in_flight = 0
        self.pace: float | None = None  # requests per second; None: not paced
        self.source = "none"  # what set the pace: "headers", "429s" or "none"
        self.count_429 = 0
        self.answers = 0
        self._tokens: float | None = None  # our copy of the server's bucket (headers)
        self._capacity = 0.0
        self._refills: deque[float] = deque(maxlen=15)
        self._stamp = time.monotonic()
        self._next_send = 0.0
        self._pause_until = 0.0
        self._last_cut = -1e9
        self._last_429 = -1e9
        self._episode_start = 0.0
        self._episode_answers = 0
        self._recent: deque[float] = deque()  # times of answers, for the goodput after a 429
        self._changed = asyncio.Condition()
        self._busy_area = 0.0  # integral of in_flight over time, for the mean in flight
        self._area_since = time.monotonic()
        self._started = self._area_since

    # ------------------------------------------------------------------ admission

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one request's place from before it is sent until its answer (or failure) is back."""
        await self._acquire()
        _SENT_AT.set(time.monotonic())
        try:
            yield
        finally:
            self._account()
            self.in_flight -= 1
            async with self._changed:
                self._changed.notify_all()

    async def _acquire(self) -> None:
        if not self.enabled:
            self._account()
            self.in_flight += 1
            return
        async with self._changed:
            paced_since: float | None = None
            while True:
                now = time.monotonic()
                if self.in_flight >= int(self.window):
                    await self._changed.wait()
                    continue
                wait = max(self._pause_until - now, self._pace_wait(now))
                if wait <= 0:
                    break
                paced_since = now if paced_since is None else paced_since
                wait = self._bounded(wait, now - paced_since)
                if wait <= 0:
                    break
                with contextlib.suppress(TimeoutError):  # woken by a change (a new reading), or when the pace allows
                    await asyncio.wait_for(self._changed.wait(), wait)
            self._take(time.monotonic())
            self._account()
            self.in_flight += 1

    def _bounded(self, wait: float, waited: float) -> float:
        """The part of ``wait`` a request may still spend, having waited ``waited`` s: at most
        :attr:`max_wait_s` in all; a longer ask is said once."""
        if wait > LONG_WAIT_S and not self._noticed and self.notice is not None:
            self._noticed = True
            self.notice(
                f"the server's rate-limit headers ask for a wait of {wait:,.0f} s before the next request; waiting "
                f"at most {self.max_wait_s:g} s each (the Retry-After cap), then its 429s pace the run under the "
                "retry budget"
            )
        return min(wait, self.max_wait_s - waited)

    def _pace_wait(self, now: float) -> float:
        if self.source == "headers" and self._tokens is not None:
            refill = self._refill()
            tokens = self._tokens + (refill or 0.0) * (now - self._stamp)
            if tokens >= 1 or refill is None:
                return 0.0
            return (1 - tokens) / refill
        if self.pace:
            return self._next_send - now
        return 0.0

    def _take(self, now: float) -> None:
        if self.source == "headers" and self._tokens is not None:
            refill = self._refill() or 0.0
            self._tokens = min(self._capacity, self._tokens + refill * (now - self._stamp)) - 1
            self._stamp = now
        elif self.pace:
            self._next_send = max(now, self._next_send) + 1 / self.pace

    def _refill(self) -> float | None:
        return statistics.median(self._refills) if self._refills else None

    def _account(self) -> None:
        now = time.monotonic()
        self._busy_area += self.in_flight * (now - self._area_since)
        self._area_since = now

    # ------------------------------------------------------------------ learning

    def observe(self, status: int, headers: Any) -> None:
        """Learn from one response (every status; called from the HTTP client's response hook)."""
        if not self.enabled:
            if status == 429:
                self.count_429 += 1
            return
        now = time.monotonic()
        reading = read_bucket(headers)
        if reading is not None:
            self._read_headers(reading, now)
        if status == 429:
            self.count_429 += 1
            self._on_429(headers, now, reading is not None)
        elif 200 <= status < 300:
            self.answers += 1
            self._episode_answers += 1
            self._recent.append(now)
            while self._recent and self._recent[0] < now - GOODPUT_WINDOW_S:
                self._recent.popleft()
            if self.window < self.ceiling and (self.source != "none" or self.count_429 == 0):
                self.window = min(float(self.ceiling), self.window + 1)  # slow start, and after the pace is set
            elif self.window < self.ceiling:
                self.window = min(float(self.ceiling), self.window + 1 / self.window)  # congestion avoidance
            if self.source == "429s" and self.pace:
                quiet = now - self._last_429 > QUIET_S  # the limit has gone, or was never where the pace is
                self.pace += (INCREASE_PER_S + (QUIET_GROWTH * self.pace if quiet else 0.0)) / self.pace
        self._wake()

    def _read_headers(self, reading: BucketReading, now: float) -> None:
        refill = reading.refill_per_s
        if refill is not None:
            self._refills.append(refill)
        self.source = "headers"
        self._capacity = float(reading.limit)
        self._tokens = reading.remaining - max(0, self.in_flight - 1)  # the others in flight may not be counted yet
        self._stamp = now
        self.pace = self._refill()

    def _on_429(self, headers: Any, now: float, with_headers: bool) -> None:
        asked = retry_after_s(headers)
        if asked:
            self._pause_until = max(self._pause_until, now + min(asked, self.max_pause_s))
        if with_headers:
            self._tokens = min(self._tokens or 0.0, 0.0)
            return
        new_episode = now - self._last_429 > EPISODE_GAP_S
        self._last_429 = now
        if _SENT_AT.get(now) < self._last_cut:
            return  # sent before the last cut, which already answered it
        if new_episode:
            self._episode_start, self._episode_answers = now, 0
        self._last_cut = now
        span = max(now - self._recent[0], 0.25) if self._recent else 0.0
        goodput = len(self._recent) / span if span else 0.0
        elapsed = now - self._episode_start
        if self.pace is None:
            pace = FIRST_CUT * (goodput or self.window)
        elif new_episode:
            pace = LATER_CUT * self.pace
        elif elapsed >= 0.25 and self._episode_answers:
            pace = MEASURED_SHARE * min(self._episode_answers / elapsed, self.pace)
        else:
            pace = LATER_CUT * self.pace
        self.pace = max(0.5, pace)
        self.source = "429s"
        self._next_send = now + 1 / self.pace
        self.window = float(self.ceiling)

    def _wake(self) -> None:
        asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    # ------------------------------------------------------------------ report

    def mean_in_flight(self) -> float:
        self._account()
        elapsed = self._area_since - self._started
        return self._busy_area / elapsed if elapsed > 0 else 0.0

    def summary(self) -> dict[str, Any]:
        """What the run settled at, for the run's result and the final table."""
        return {
            "adaptive": self.enabled,
            "ceiling": self.ceiling,
            "window": int(self.window),
            "mean_in_flight": round(self.mean_in_flight(), 1),
            "pace_per_s": round(self.pace, 1) if self.pace else None,
            "paced_by": self.source,
            "429s": self.count_429,
        }

    def describe(self) -> str:
        s = self.summary()
        if not self.enabled:
            head = f"fixed at {self.ceiling} (adaptive off)"
        else:
            head = f"settled at {s['window']} of {self.ceiling}"
        paced = {
            "headers": f"; paced at {s['pace_per_s']} requests/s from the server's x-ratelimit headers",
            "429s": f"; paced at {s['pace_per_s']} requests/s learnt from 429s",
        }.get(self.source, "")
        return f"{head} (mean in flight {s['mean_in_flight']}){paced}; 429s {self.count_429}"
