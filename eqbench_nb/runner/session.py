"""What every benchmark's run does before its first question and when it is stopped, in one place.

A benchmark's ``task`` checks its own settings, then calls :func:`check_settings` (concurrency, timeout,
retry budget), :func:`connect` (the bundled model or an endpoint: key, reachability, the served model)
and runs its coroutine inside :func:`reported_interrupt`. EQ-Bench and EmotionBench share these, so a
fix here (a cap, a redaction, a message) reaches both.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from .endpoint import check_reachable, discover_model, plain_http_warning, public_endpoint, resolve_api_key
from .errors import RunnerError
from .loop import Terminated, run_coroutine
from .redact import remember
from .runfile import display_path
from .transport import RetryPolicy

#: Enough parallelism to hide a remote API's latency without tripping typical rate limits.
DEFAULT_CONCURRENCY = 8
#: The bundled model on 2 cores: one request per server slot; more only queue.
LOCAL_CONCURRENCY = 1
DEFAULT_TIMEOUT_S = 120.0
#: The most requests in flight: each worker holds a connection and a coroutine.
MAX_CONCURRENCY = 1024
#: Longest model or run name kept whole in a file name (a file name is at most 255 bytes).
MAX_NAME_CHARS = 100


def sanitise(name: str) -> str:
    """A model or run name safe as part of a file name. A name that is cut (over
    :data:`MAX_NAME_CHARS`) or has nothing left (``.``, ``..``) ends with a hash of the whole name, so
    two names never share a file; the header keeps the name as given."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")
    if safe and len(safe) <= MAX_NAME_CHARS:
        return safe
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{safe[: MAX_NAME_CHARS - 13]}-{digest}" if safe else f"id-{digest}"


def check_settings(
    concurrency: int | None, timeout: float | None, retry_budget: float | None, retry: RetryPolicy | None
) -> tuple[int | None, float, RetryPolicy]:
    """The run's concurrency (capped at :data:`MAX_CONCURRENCY`, said), timeout and retry policy;
    :class:`RunnerError` for a value no run can use."""
    if concurrency is not None and concurrency < 1:
        raise RunnerError("--concurrency must be at least 1")
    if concurrency is not None and concurrency > MAX_CONCURRENCY:
        print(
            f"note: --concurrency {concurrency:,} capped at {MAX_CONCURRENCY:,} (more requests in flight only "
            "cost memory; no endpoint serves them at once)",
            file=sys.stderr,
        )
        concurrency = MAX_CONCURRENCY
    if timeout is not None and timeout <= 0:
        raise RunnerError("--timeout must be positive")
    if retry_budget is not None and retry_budget < 0:
        raise RunnerError("--retry-budget must be 0 or more")
    policy = retry or RetryPolicy()
    if retry_budget is not None:
        policy = dataclasses.replace(policy, budget_s=float(retry_budget))
    return concurrency, float(timeout or DEFAULT_TIMEOUT_S), policy


@dataclass(frozen=True)
class Connection:
    """Where a run's requests go: ``base_url`` (may carry query keys), ``endpoint`` (what may be shown
    and recorded), the model, the key, the concurrency in force, and whether it is the bundled model."""

    base_url: str
    endpoint: str
    model: str
    api_key: str
    concurrency: int
    local: bool


def connect(
    stack: ExitStack,
    base_url: str | None,
    model: str | None,
    concurrency: int | None,
    api_key_env: str | None,
    timeout: float,
    secrets: list[str],
) -> Connection:
    """The endpoint a run talks to, checked before any question is asked: without ``base_url`` the
    bundled model, started on 127.0.0.1 and stopped when ``stack`` closes; else the key (from the
    environment), a warning for a key over plain http, reachability, and the served model when
    ``model`` is None. ``secrets`` (query keys of the base URL) are redacted from here on."""
    remember(*secrets)
    local = base_url is None
    if base_url is None:
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
    warning = plain_http_warning(base_url, bool(os.environ.get(api_key_env or "OPENAI_API_KEY")) or bool(secrets))
    if warning:
        print(warning, file=sys.stderr)
    check_reachable(base_url, timeout)
    if model is None:
        url = base_url
        model = run_coroutine(lambda: discover_model(url, endpoint, api_key, timeout))
    return Connection(base_url, endpoint, model, api_key, concurrency, local)


@contextmanager
def reported_interrupt(path: Path) -> Iterator[None]:
    """Ctrl-C or SIGTERM inside: one line says what is saved in ``path`` and how to resume, and the
    exception is marked ``reported`` so the command line prints nothing more."""
    try:
        yield
    except KeyboardInterrupt as exc:
        how = "terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted"
        print(
            f"{how}: finished answers, and those in flight that arrived within a few seconds, are saved in "
            f"{display_path(path)}; run the same command again to resume",
            file=sys.stderr,
        )
        setattr(exc, "reported", True)  # noqa: B010 -- the command line then prints no second line
        raise
