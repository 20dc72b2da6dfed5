"""What a run is told, as two values: where its requests go (:class:`Endpoint`) and where its results go
(:class:`RunSettings`).

Every benchmark's entry point takes them, ``run_<benchmark>(endpoint, settings, *, <its own options>)``: one
``Endpoint`` per model it talks to (EQ-Bench 3 talks to the model under test and to a judge, each with its own key
variable, pacing, retry budget and prices) and one ``RunSettings``. Each value is checked in one place
(:meth:`Endpoint.checked`, :meth:`RunSettings.checked`), with the one-line messages the command line prints.
(The old loose keyword form, ``base_url=..., model=..., out_dir=...``, kept one release with a DeprecationWarning,
is gone.)
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .cost import Prices
from .errors import RunnerError
from .reasoning import REASONING_EFFORTS
from .redact import KEY_NAME_OPTIONS, refuse_key_as_name
from .runfile import display_path, header_of
from .transport import RetryPolicy

#: Enough parallelism to hide a remote API's latency without tripping typical rate limits.
DEFAULT_CONCURRENCY = 8
#: The bundled model on 2 cores: one request per server slot; more only queue.
LOCAL_CONCURRENCY = 1
DEFAULT_TIMEOUT_S = 120.0
#: The most requests in flight: each worker holds a connection and a coroutine.
MAX_CONCURRENCY = 1024
DEFAULT_POLL_INTERVAL_S = 60.0
#: The shortest ``--poll-interval``: faster polling only loads the endpoint.
MIN_POLL_INTERVAL_S = 0.01
#: How long a run polls its batches by default: the 24 h completion window and an hour to finalize.
DEFAULT_BATCH_WAIT_S = 25 * 3600.0

#: What an endpoint can be asked beyond a plain chat completion; a benchmark names those it is wired for
#: (:meth:`Endpoint.refuse_features`), and the command line refuses the others' options in one line.
FEATURES = {
    "max_tokens": "--max-tokens",
    "reasoning_effort": "--reasoning-effort",
    "batch": "--batch",
    "price_in": "--price-in",
    "price_out": "--price-out",
}


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible chat endpoint and how a run talks to it.

    ``base_url`` None is the bundled SmolLM2-135M-Instruct, served on 127.0.0.1 for the run. ``model`` None is
    the endpoint's first listed model. The key is read from ``api_key_env`` (default ``OPENAI_API_KEY``) and never
    stored here. ``timeout_s`` bounds each request as a whole (default 120 s). ``concurrency`` is the ceiling of
    requests in flight (default 8; 1 for the bundled model), paced under it from the server's rate limits unless
    ``adaptive`` is off. ``retry_budget_s`` is how long one request may wait between retries of transport faults
    before its item is left for the next resume (it replaces ``retry``'s budget; ``retry`` is the whole policy,
    for tests that need fast retries). ``max_tokens`` replaces the protocol's token limit and
    ``reasoning_effort`` is sent (reasoning models); ``batch`` sends the run through OpenAI's Batch API, polled
    every ``poll_interval_s`` for at most ``batch_wait_s``;
    ``price_in`` / ``price_out`` are dollars per million prompt / completion tokens.
    """

    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    timeout_s: float | None = None
    concurrency: int | None = None
    adaptive: bool = True
    retry_budget_s: float | None = None
    retry: RetryPolicy | None = None
    max_tokens: int | None = None
    reasoning_effort: str | None = None
    batch: bool = False
    poll_interval_s: float = DEFAULT_POLL_INTERVAL_S
    price_in: float | None = None
    price_out: float | None = None
    #: how long a run polls a batch before it stops (exit 3), the batch left in the run file for the next run
    batch_wait_s: float = DEFAULT_BATCH_WAIT_S
    #: send again the requests of a batch create whose batch cannot be confirmed (the endpoint lists no batches)
    resubmit_unconfirmed: bool = False

    @property
    def timeout(self) -> float:
        return float(self.timeout_s or DEFAULT_TIMEOUT_S)

    @property
    def policy(self) -> RetryPolicy:
        """The retry policy in force: ``retry`` (or the default) with ``retry_budget_s`` as its budget."""
        policy = self.retry or RetryPolicy()
        if self.retry_budget_s is not None:
            policy = dataclasses.replace(policy, budget_s=float(self.retry_budget_s))
        return policy

    @property
    def prices(self) -> Prices:
        return Prices(self.price_in, self.price_out, self.batch)

    def checked(self, prefix: str = "") -> Endpoint:
        """This endpoint with its concurrency capped at :data:`MAX_CONCURRENCY` (said on stderr), or a
        :class:`RunnerError` naming the first value no run can use (every number finite: an infinite timeout
        would be accepted here and fail every request later, after others were paid for); ``prefix``
        (``"judge-"``) names a second endpoint's options."""
        refuse_key_as_name(self.api_key_env, f"--{prefix}api-key-env" if prefix else KEY_NAME_OPTIONS)
        if self.max_tokens is not None and self.max_tokens < 1:
            raise RunnerError("--max-tokens must be at least 1")
        if self.reasoning_effort is not None and self.reasoning_effort not in REASONING_EFFORTS:
            raise RunnerError(f"--reasoning-effort must be one of {', '.join(REASONING_EFFORTS)}")
        if not self.poll_interval_s >= MIN_POLL_INTERVAL_S:
            raise RunnerError(f"--poll-interval must be at least {MIN_POLL_INTERVAL_S:g} s (faster only loads it)")
        if self.resubmit_unconfirmed and not self.batch:
            raise RunnerError("--resubmit-unconfirmed goes with --batch (it sends a batch again)")
        if not 0 < self.batch_wait_s < math.inf:
            raise RunnerError("--batch-wait must be a positive number of seconds")
        for name, price in (("--price-in", self.price_in), ("--price-out", self.price_out)):
            if price is not None and not 0 <= price < math.inf:
                raise RunnerError(f"{name} must be a finite number of dollars per million tokens, 0 or more")
        concurrency = self.concurrency
        if concurrency is not None and concurrency < 1:
            raise RunnerError("--concurrency must be at least 1")
        if concurrency is not None and concurrency > MAX_CONCURRENCY:
            print(
                f"note: --concurrency {concurrency:,} capped at {MAX_CONCURRENCY:,} (more requests in flight only "
                "cost memory; no endpoint serves them at once)",
                file=sys.stderr,
            )
            concurrency = MAX_CONCURRENCY
        if self.timeout_s is not None and not 0 < self.timeout_s < math.inf:
            raise RunnerError(f"--{prefix}timeout must be positive and finite (seconds), not {self.timeout_s}")
        if self.retry_budget_s is not None and not 0 <= self.retry_budget_s < math.inf:
            raise RunnerError(
                f"--{prefix}retry-budget must be 0 or more and finite (seconds), not {self.retry_budget_s}"
            )
        return dataclasses.replace(self, concurrency=concurrency)

    def refuse_features(self, wired: Iterable[str], benchmark: str) -> None:
        """A :class:`RunnerError` for each feature of :data:`FEATURES` set here that ``benchmark`` is not wired for."""
        given = [
            flag for name, flag in FEATURES.items() if name not in wired and getattr(self, name) not in (None, False)
        ]
        if given:
            raise RunnerError(f"{benchmark} runs do not take {', '.join(given)}")


@dataclass(frozen=True)
class RunSettings:
    """Where a run's results go and how it behaves around them.

    The run file is ``<out_dir>/<model>__<set>__<run_id>.jsonl`` (``run_id`` None: derived from the settings, so
    the same call again resumes it). ``seed`` is sent with every request (no upstream pipeline sends one).
    ``data_path`` is a folder of the upstream files (default: ``EQBENCH_NB_DATA``, ``../shared/data``, the cache,
    or a verified download). ``progress`` shows a bar; ``repair`` moves unreadable lines in the middle of the run
    file aside (to ``<file>.unreadable``) and asks their items again. ``extend`` names a run file to grow to more
    items (a ``--limit 5`` run to the whole set): its run id and folder are used, its answers kept, and the new
    selection must hold all of its items, every other setting the same.
    """

    out_dir: str | os.PathLike = "runs"
    run_id: str | None = None
    seed: int | None = None
    data_path: str | os.PathLike | None = None
    progress: bool = True
    repair: bool = False
    extend: str | os.PathLike | None = None


def extended_settings(settings: RunSettings) -> RunSettings:
    """With ``extend`` (a run file), the settings that write that file: its run id and folder, read from it."""
    if settings.extend is None:
        return settings
    path = Path(settings.extend)
    where = display_path(path)
    if not path.is_file():
        raise RunnerError(f"--extend {where}: no such run file")
    header = header_of(path)
    run_id = header.get("run_id") if header is not None else None
    if not isinstance(run_id, str):
        raise RunnerError(f"--extend {where}: not a run file of this project (no header line with a run id)")
    if settings.run_id is not None and settings.run_id != run_id:
        raise RunnerError(f"--extend {where} extends run {run_id!r}; drop --run-id {settings.run_id!r}")
    return dataclasses.replace(settings, run_id=run_id, out_dir=path.parent)


def resolve(endpoint: Endpoint | None, settings: RunSettings | None) -> tuple[Endpoint, RunSettings]:
    """The (Endpoint, RunSettings) of a benchmark's entry point (the defaults for None); a run to extend gives the
    settings its run id and folder (:func:`extended_settings`). (The old loose keyword form, deprecated for one
    release, is gone.)"""
    return endpoint or Endpoint(), extended_settings(settings or RunSettings())
