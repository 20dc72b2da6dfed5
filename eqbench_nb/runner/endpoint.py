"""The endpoint a run talks to: its public name, the API key, reachability, the client, the model.

Credentials never leave this module in a message: :func:`public_endpoint` is the only form of a
base URL that is printed or written to a run file. A base URL with a user name or password is
refused (:func:`split_base_url`); a query string (``?api-key=...``, ``?api-version=...``) is sent
as the client's default query, never mangled into the path, and its secret-looking values are
redacted from every message.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import socket
from collections.abc import Callable
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from .errors import EndpointRefused, RunnerError
from .redact import KEY_NAME_OPTIONS, clip, refuse_key_as_name, remember
from .transport import MAX_BODY_BYTES, one_line

_LOOPBACK = {"localhost", "ip6-localhost", "ip6-loopback"}
#: Query parameters whose values are credentials (redacted everywhere); any long value is treated so too.
_SECRET_PARAM = re.compile(r"key|token|secret|sig|pass|auth|credential|code|session", re.IGNORECASE)


def public_endpoint(base_url: str) -> str:
    """scheme://host:port/path: no user, password, query or fragment (they may hold credentials)."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        shown = re.sub(r"//[^/]*@", "//***@", base_url.split("?")[0].split("#")[0])  # never echo a credential
        raise RunnerError(f"--base-url must look like http(s)://host[:port]/path, not {one_line(shown, 80)!r}")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise RunnerError("--base-url has an invalid port") from None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}:{port}{parts.path.rstrip('/')}"


def split_base_url(base_url: str) -> tuple[str, dict[str, str], list[str]]:
    """(base URL without query or fragment, its query as the client's default query, the secrets in it).

    Refuses a user name or password in the URL with one line that does not repeat it: the client
    would send it as a second Authorization, which servers reject.
    """
    public_endpoint(base_url)  # the shape check
    parts = urlsplit(base_url)
    if parts.username is not None or parts.password is not None:
        raise RunnerError(
            "--base-url holds a user name or password (user:secret@host); remove it and put the key in "
            "OPENAI_API_KEY or the variable named by --api-key-env"
        )
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    secrets = [v for k, v in query.items() if v and (_SECRET_PARAM.search(k) or len(v) >= 16)]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")), query, secrets


def is_loopback(base_url: str) -> bool:
    """Whether the URL's host is this machine (localhost, 127.0.0.0/8, ::1, ::ffff:127.x)."""
    host = (urlsplit(base_url).hostname or "").lower()
    if host in _LOOPBACK:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool(address.is_loopback or (mapped is not None and mapped.is_loopback))


def plain_http_warning(base_url: str, sends_secret: bool) -> str | None:
    """A warning when a secret would cross the network unencrypted: plain http to a host that is
    not this machine."""
    if not sends_secret or urlsplit(base_url).scheme != "http" or is_loopback(base_url):
        return None
    return (
        f"warning: the API key goes to {public_endpoint(base_url)} over plain http, unencrypted; "
        "use https unless this network is yours"
    )


#: The key sent to a loopback server when no key variable is set (it needs none; the client insists on one).
NO_KEY = "sk-no-key-needed"


def resolve_api_key(api_key_env: str | None, base_url: str) -> str:
    """The key from OPENAI_API_KEY (or the variable named by --api-key-env); a dummy for loopback servers."""
    refuse_key_as_name(api_key_env, KEY_NAME_OPTIONS)  # before the name is printed below
    var = api_key_env or "OPENAI_API_KEY"
    key = os.environ.get(var)
    if key:
        _check_key(key, var)
        remember(key)
        return key
    if api_key_env:
        raise RunnerError(f"environment variable {api_key_env} (named by --api-key-env) is not set")
    if is_loopback(base_url):
        return NO_KEY
    raise RunnerError(
        "no API key: set OPENAI_API_KEY or name another variable with --api-key-env "
        "(for a server that needs no key, set it to any value)"
    )


def _check_key(key: str, var: str) -> None:
    """Refuse a key no server can accept (a pasted line break, a non-ASCII character) before any request:
    HTTP headers cannot carry it, and the requests would fail as "malformed" for minutes."""
    for position, char in enumerate(key, 1):
        if not 0x21 <= ord(char) <= 0x7E:
            what = (
                "a line break"
                if char in "\r\n"
                else "a space"
                if char == " "
                else ("a control character" if ord(char) < 0x20 or ord(char) == 0x7F else "a non-ASCII character")
            )
            raise RunnerError(
                f"the API key in {var} holds {what} at position {position} of {len(key)}; an HTTP header cannot "
                "carry it (a stray newline or a copy-paste artefact?): set the variable to the key alone"
            )


def check_reachable(base_url: str, timeout: float) -> None:
    """Fail fast, with one line, when nothing listens at the endpoint (rather than retrying for minutes)."""
    parts = urlsplit(base_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((parts.hostname, port), timeout=min(timeout, 10.0)).close()
    except OSError as exc:
        raise RunnerError(f"cannot reach {public_endpoint(base_url)}: {exc.strerror or exc}") from None


def tls_context() -> Any:
    """The TLS context every client verifies servers with: httpx2's default (the system's CA store, or the one
    ``SSL_CERT_FILE``/``SSL_CERT_DIR`` names), built once per such setting rather than once per client (reading
    the CA store cost 23 ms a client; a run makes one per endpoint, a test suite hundreds)."""
    return _tls_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@lru_cache(maxsize=4)
def _tls_context(cert_file: str | None, cert_dir: str | None) -> Any:
    import httpx2

    return httpx2.create_ssl_context()  # reads the two variables itself; they are the cache's key


def make_client(
    base_url: str,
    api_key: str,
    timeout: float,
    max_body_bytes: int = MAX_BODY_BYTES,
    on_response: Callable[[int, Any], None] | None = None,
) -> Any:
    """The async OpenAI client on the aiohttp transport, with the client's own retries off (ours are in
    :mod:`eqbench_nb.runner.transport`), the base URL's query as its default query, and every
    response body capped at ``max_body_bytes`` (:mod:`eqbench_nb.runner.http`). ``on_response``
    sees each response's status and headers (the rate limiter, :mod:`eqbench_nb.runner.ratelimit`)."""
    from openai import AsyncOpenAI, DefaultAioHttpClient

    from .http import ACCEPT_ENCODING, cap_response

    url, query, _ = split_base_url(base_url)
    hooks: list[Any] = [cap_response(max_body_bytes)]
    if on_response is not None:
        observe = on_response

        async def seen(response: Any) -> None:
            # learning from the headers must never throw a billed answer away
            with contextlib.suppress(Exception):
                observe(response.status_code, response.headers)

        hooks.insert(0, seen)
    return AsyncOpenAI(
        base_url=url,
        api_key=api_key,
        timeout=timeout,
        max_retries=0,
        default_query=query or None,
        default_headers={"Accept-Encoding": ACCEPT_ENCODING},
        # never follow a redirect: a 301/302 turns the POST into a GET, a 307/308 may send the prompts and
        # the key to a host the header does not name (the transport stops with both URLs instead)
        http_client=DefaultAioHttpClient(
            timeout=timeout, follow_redirects=False, event_hooks={"response": hooks}, verify=tls_context()
        ),
    )


async def served_models(base_url: str, api_key: str, timeout: float) -> list[Any] | None:
    """The ids the endpoint's ``/v1/models`` lists, or None when it lists nothing it can be asked for (the route
    absent, refused or broken: many servers serve models they do not list, so that is not an error)."""
    client = make_client(base_url, api_key, timeout)
    try:
        page = await client.models.list()
        return [entry.id for entry in page.data]
    except Exception:
        return None
    finally:
        await client.close()


def is_listed(model: str, listed: list[Any]) -> bool:
    """Whether ``model`` names one of the ``listed`` ids as servers accept a name: the id itself, Ollama's
    ``name`` for ``name:latest``, or an id after its provider's prefix (Gemini lists ``models/gemini-2.0-flash``
    and answers to ``gemini-2.0-flash``)."""
    names = {m for m in listed if isinstance(m, str)}
    return model in names or f"{model}:latest" in names or any(n.endswith(f"/{model}") for n in names)


#: Hosts whose /models lists base models while requests name deployments (Azure OpenAI): never checked.
DEPLOYMENT_HOSTS = (".azure.com",)


def lists_what_it_serves(base_url: str) -> bool:
    """Whether the endpoint's /models names what a request's ``model`` may be (not Azure OpenAI, whose requests
    name deployments it does not list)."""
    host = (urlsplit(base_url).hostname or "").lower()
    return not host.endswith(DEPLOYMENT_HOSTS)


def check_model_listed(model: str, listed: list[Any] | None, endpoint: str, secrets: list[str]) -> None:
    """Stop, with one line naming what the endpoint lists, when it lists models and ``model`` is not one of them
    (a server that answers any name, like llama.cpp's, would otherwise answer with the model it has)."""
    if not listed or is_listed(model, listed):
        return
    shown = ", ".join(clip(repr(m), 80, secrets) for m in listed[:MODELS_SHOWN])
    more = f" and {len(listed) - MODELS_SHOWN} more" if len(listed) > MODELS_SHOWN else ""
    raise EndpointRefused(
        f"--model {clip(repr(model), 80, secrets)} is not a model {endpoint} serves: its /models lists {shown}{more}"
    )


#: How many listed models an unknown --model's message names.
MODELS_SHOWN = 10


async def discover_model(base_url: str, endpoint: str, api_key: str, timeout: float) -> str:
    """The endpoint's first served model, for when --model is not given."""
    client = make_client(base_url, api_key, timeout)
    secrets = [api_key, *split_base_url(base_url)[2]]
    try:
        page = await client.models.list()
        model = page.data[0].id
    except Exception as exc:
        why = clip(exc, 200, secrets)
        raise RunnerError(f"--model not given and {endpoint} does not list its models ({why}); pass --model") from None
    finally:
        await client.close()
    if not isinstance(model, str) or not model.strip() or clip(model, 10_000) != model:
        shown = clip(repr(model), 80, secrets)
        raise RunnerError(
            f"--model not given and the first model {endpoint} lists is not a plain name ({shown}); pass --model"
        )
    return model
