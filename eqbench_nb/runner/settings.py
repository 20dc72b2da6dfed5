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
from .options import OptionError, check_fields, not_negative, number, option, positive_int, seconds, value_type
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

BATCH_GROUP = "OpenAI Batch API (half price)"
COST_GROUP = "pacing, tokens and cost"


@value_type(float)
def poll_seconds(text: str) -> float:
    """``--poll-interval``: seconds, at least :data:`MIN_POLL_INTERVAL_S` (faster polling only loads the endpoint)."""
    value = number(text)
    if not MIN_POLL_INTERVAL_S <= value < math.inf:
        raise OptionError(f"must be at least {MIN_POLL_INTERVAL_S:g} s (faster only loads it), not {value:g}")
    return value


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

    # in the order of ``run --help``; each field's option declared here, once (a judge's too: SecondEndpoint)
    base_url: str | None = option(
        "--base-url", group="", help="endpoint, e.g. https://api.openai.com/v1 (default: the bundled model)"
    )
    model: str | None = option("--model", group="", help="model name (default: the endpoint's first listed model)")
    api_key_env: str | None = option(
        "--api-key-env",
        metavar="VAR",
        group="",
        help="environment variable holding the API key (default OPENAI_API_KEY)",
    )
    timeout_s: float | None = option("--timeout", type=seconds, metavar="S", group="",
                                     help="deadline for each request as a whole, seconds (default 120)")  # fmt: skip
    concurrency: int | None = option(
        "--concurrency",
        type=positive_int,
        metavar="C",
        group="",
        help="the most requests in flight (default 8; 1 for the bundled model); the run paces itself under it from "
        "the server's x-ratelimit headers, or its 429s",
    )
    retry_budget_s: float | None = option(
        "--retry-budget",
        type=not_negative,
        metavar="S",
        group="",
        help="seconds one request may wait between retries of 429s, 5xx and resets before its question is left "
        "for the next resume (default 300; at least 120 s of back-off, past a 60 s rate-limit window)",
    )
    retry: RetryPolicy | None = None
    max_tokens: int | None = option(
        "--max-tokens",
        type=positive_int,
        metavar="N",
        group="reasoning models",
        help="token limit of every request, replacing the protocol's (default: the protocol's, 60 official): a "
        "reasoning model's reasoning counts in it. Recorded in the run header and the table; changes the default "
        "run id",
    )
    reasoning_effort: str | None = option(
        "--reasoning-effort",
        choices=REASONING_EFFORTS,
        group="reasoning models",
        help="sent as reasoning_effort while the endpoint accepts it (default: not sent)",
    )
    batch: bool = option(
        "--batch",
        default=False,
        flag=True,
        group=BATCH_GROUP,
        help="send the run as batches (POST /v1/files, /v1/batches; 24h window); re-asks go out as further, "
        "smaller batches. The batch id is in the run file at once: the same command after a kill polls it, "
        "never paying twice",
    )
    poll_interval_s: float = option("--poll-interval", default=DEFAULT_POLL_INTERVAL_S, type=poll_seconds,
                                    metavar="S", group=BATCH_GROUP, help="seconds between batch polls")  # fmt: skip
    #: how long a run polls a batch before it stops (exit 3), the batch left in the run file for the next run
    batch_wait_s: float = option(
        "--batch-wait",
        default=DEFAULT_BATCH_WAIT_S,
        type=seconds,
        metavar="S",
        group=BATCH_GROUP,
        help="seconds a run polls a batch before it stops (exit 3) with the batch left in the run file for the same "
        "command to collect; default 25 h (the 24 h window and an hour to finish)",
    )
    #: send again the requests of a batch create whose batch cannot be confirmed (the endpoint lists no batches)
    resubmit_unconfirmed: bool = option(
        "--resubmit-unconfirmed",
        default=False,
        flag=True,
        group=BATCH_GROUP,
        help="send again the requests of a batch create that a stopped run wrote ahead when the endpoint cannot "
        "say whether it made the batch (no GET /v1/batches): they may be paid for twice (default: stop and say)",
    )
    adaptive: bool = option(
        "--no-adaptive",
        default=True,
        flag=True,
        negated=True,
        group=COST_GROUP,
        help="keep --concurrency requests in flight whatever the server's rate limits say (the old behaviour)",
    )
    price_in: float | None = option("--price-in", type=not_negative, metavar="USD", group=COST_GROUP,
                                    help="dollars per million prompt tokens (for the cost)")  # fmt: skip
    price_out: float | None = option(
        "--price-out",
        type=not_negative,
        metavar="USD",
        group=COST_GROUP,
        help="dollars per million completion tokens, reasoning included (with --batch, half of both is charged)",
    )

    def __post_init__(self) -> None:
        check_fields(self)  # each field as its option checks it: from Python as from the command line

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
        :class:`RunnerError` for options no run can use together. Each value was checked when the endpoint was made
        (every number finite: an infinite timeout would fail every request later, after others were paid for);
        ``prefix`` (``"judge-"``) is a second endpoint's."""
        refuse_key_as_name(self.api_key_env, f"--{prefix}api-key-env" if prefix else KEY_NAME_OPTIONS)
        if self.resubmit_unconfirmed and not self.batch:
            raise RunnerError(f"--{prefix}resubmit-unconfirmed goes with --{prefix}batch (it sends a batch again)")
        concurrency = self.concurrency
        if concurrency is not None and concurrency > MAX_CONCURRENCY:
            print(
                f"note: --concurrency {concurrency:,} capped at {MAX_CONCURRENCY:,} (more requests in flight only "
                "cost memory; no endpoint serves them at once)",
                file=sys.stderr,
            )
            concurrency = MAX_CONCURRENCY
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
