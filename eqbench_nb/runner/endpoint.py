"""The endpoint a run talks to: its public name, the API key, reachability, the client, the model.

Credentials never leave this module in a message: :func:`public_endpoint` is the only form of a
base URL that is printed or written to a run file.
"""

from __future__ import annotations

import os
import socket
from typing import Any
from urllib.parse import urlsplit

from .errors import RunnerError
from .transport import one_line, redact

_LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def public_endpoint(base_url: str) -> str:
    """scheme://host:port/path: no user, password, query or fragment (they may hold credentials)."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RunnerError(f"--base-url must look like http(s)://host[:port]/path, not {one_line(base_url, 80)!r}")
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
    raise RunnerError(
        "no API key: set OPENAI_API_KEY or name another variable with --api-key-env "
        "(for a server that needs no key, set it to any value)"
    )


def check_reachable(base_url: str, timeout: float) -> None:
    """Fail fast, with one line, when nothing listens at the endpoint (rather than retrying for minutes)."""
    parts = urlsplit(base_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((parts.hostname, port), timeout=min(timeout, 10.0)).close()
    except OSError as exc:
        raise RunnerError(f"cannot reach {public_endpoint(base_url)}: {exc.strerror or exc}") from None


def make_client(base_url: str, api_key: str, timeout: float) -> Any:
    """The async OpenAI client on the aiohttp transport, with the client's own retries off (ours are in
    :mod:`eqbench_nb.runner.transport`)."""
    from openai import AsyncOpenAI, DefaultAioHttpClient

    return AsyncOpenAI(
        base_url=base_url,
        api_key=api_key,
        timeout=timeout,
        max_retries=0,
        http_client=DefaultAioHttpClient(timeout=timeout),
    )


async def discover_model(base_url: str, endpoint: str, api_key: str, timeout: float) -> str:
    """The endpoint's first served model, for when --model is not given."""
    client = make_client(base_url, api_key, timeout)
    try:
        page = await client.models.list()
        return str(page.data[0].id)
    except Exception as exc:
        raise RunnerError(
            f"--model not given and {endpoint} does not list its models "
            f"({redact(one_line(exc), api_key)}); pass --model"
        ) from None
    finally:
        await client.close()
