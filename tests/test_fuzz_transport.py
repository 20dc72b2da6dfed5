"""Fuzzing the transport (issue 18): a server written byte by byte (tests/hostile_server.py) answers with
generated status codes, headers and bodies (completions with fields of the wrong type, arbitrary JSON,
HTML, bytes, the key echoed back raw, percent-encoded, JSON-escaped or cut short), and ``eqbench-nb run``
runs against it in-process.

The property: the run ends with a documented exit code (0, 2 or 3) and, unless 0, a one-line error; no
traceback; and the API key and the query key, in every encoding, are in no file and no output.
CI runs a modest number of examples; ``benchmarks/fuzz_soak.py`` runs many more.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import secrets
import tempfile
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from conftest import needs_data
from fuzz import fuzz_settings, leaks
from hostile_server import HostileServer, ok, response
from hypothesis import given
from hypothesis import strategies as st

from eqbench_nb import cli

pytestmark = needs_data

json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**20), 10**20),
        st.floats(),
        st.text(max_size=10),
        st.sampled_from(["\ud800", "\x1b[2J", "ü"]),
    ),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=6,
)
STATUSES = [
    200,
    200,
    200,
    201,
    204,
    301,
    302,
    307,
    308,
    400,
    401,
    403,
    404,
    405,
    408,
    409,
    413,
    418,
    422,
    429,
    500,
    503,
]


def _echo(secret: str, how: str) -> str:
    return {
        "raw": secret,
        "quote": quote(secret),
        "quote_plus": quote_plus(secret),
        "json": json.dumps(secret)[1:-1],
        "prefix": secret[: max(8, len(secret) // 2)] + "…",
        "padded": "x" * 190 + secret,
    }[how]


@st.composite
def replies(draw):
    """One response: (status, headers, body kind, details) as the server will send it."""
    status = draw(st.sampled_from(STATUSES))
    echo = draw(st.sampled_from(["none", "raw", "quote", "quote_plus", "json", "prefix", "padded"]))
    where = draw(st.sampled_from(["message", "content", "finish_reason", "header", "model"]))
    body = draw(st.sampled_from(["completion", "changed", "json", "html", "bytes", "error"]))
    change = draw(
        st.sampled_from(["content", "usage", "choices", "message", "finish_reason", "refusal", "prompt_tokens"])
    )
    value = draw(json_values)
    retry_after = draw(
        st.one_of(st.none(), st.sampled_from(["0", "-5", "1e12", "soon", "Wed, 21 Oct 2015 07:28:00 GMT"]))
    )
    ctype = draw(st.sampled_from(["application/json", "application/json", "text/html", None, "application/json; x"]))
    junk = draw(st.binary(max_size=40))
    secret = draw(st.sampled_from(["key", "query"]))
    return status, echo, where, body, change, value, retry_after, ctype, junk, secret


def _build(request, reply, keys) -> bytes:
    status, echo, where, body, change, value, retry_after, ctype, junk, secret = reply
    text = "" if echo == "none" else _echo(keys[secret], echo)
    headers = {}
    if retry_after is not None:
        headers["Retry-After"] = retry_after
    if status in (301, 302, 307, 308) or where == "header":
        headers["Location"] = f"http://127.0.0.2:9/v1/chat/completions?k={text}"
    if where == "header" and text:
        headers["X-Echo"] = text.encode("utf-8", "replace").decode("latin-1", "replace")
    if body == "bytes":
        return response(status, junk, headers, content_type=ctype)
    if body == "html":
        return response(status, f"<html>{text}</html>", headers, content_type="text/html")
    if body == "json":
        return response(status, json.dumps(value), headers, content_type=ctype)
    if body == "error" or status != 200:
        return response(status, {"error": {"message": f"bad: {text}", "code": value}}, headers, content_type=ctype)
    raw = ok(request, f"Angry: 3\nSad: 4\n{text}" if where == "content" else None)
    obj = json.loads(raw.split(b"\r\n\r\n", 1)[1])
    if where == "finish_reason":
        obj["choices"][0]["finish_reason"] = text
    if where == "model":
        obj["model"] = text
    if where == "message":
        obj["choices"][0]["message"]["refusal"] = text
    if body == "changed":
        target = obj["choices"][0] if change in ("message", "finish_reason") else obj
        if change in ("content", "refusal"):
            obj["choices"][0]["message"][change] = value
        elif change == "prompt_tokens":
            obj["usage"]["prompt_tokens"] = value
        else:
            target[change] = value
    return response(status, json.dumps(obj), headers, content_type=ctype)


@pytest.mark.slow
@fuzz_settings(40)
@given(
    script=st.lists(replies(), min_size=1, max_size=4),
    key_tail=st.text(alphabet="=+/!~._-%", max_size=4),
    query_tail=st.text(alphabet="=+/!~._-% ", max_size=4),
    with_query=st.booleans(),
)
def test_any_response_ends_with_a_documented_exit_code_and_no_key_anywhere(script, key_tail, query_tail, with_query):
    keys = {
        "key": f"sk-{secrets.token_hex(12)}{key_tail}{secrets.token_hex(4)}",
        "query": f"Q{secrets.token_hex(8)}{query_tail}{secrets.token_hex(4)}",
    }

    def respond(request, n):
        if request.method != "POST":
            return None
        return _build(request, script[n], keys) if n < len(script) else None

    out, err = io.StringIO(), io.StringIO()
    previous = os.environ.get("OPENAI_API_KEY")
    os.environ["OPENAI_API_KEY"] = keys["key"]
    try:
        with tempfile.TemporaryDirectory() as folder, HostileServer(respond) as url:
            base = url + (f"?api-key={quote_plus(keys['query'])}" if with_query else "")
            argv = ["run", "--base-url", base, "--model", "fake-model", "--out", folder, "--no-progress"]
            argv += ["--limit", "2", "--concurrency", "1", "--timeout", "3", "--retry-budget", "0.05"]
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = cli.main(argv)
            written = "".join(f.read_text(errors="replace") for f in Path(folder).rglob("*") if f.is_file())
    finally:
        if previous is None:
            del os.environ["OPENAI_API_KEY"]
        else:
            os.environ["OPENAI_API_KEY"] = previous
    stderr = err.getvalue()
    assert code in (0, 2, 3), stderr
    assert "Traceback" not in stderr
    if code:
        assert stderr.strip().splitlines()[-1].startswith("error: "), stderr
    everything = written + out.getvalue() + stderr
    for name in ("key", "query") if with_query else ("key",):
        assert leaks(everything, keys[name]) == [], (name, keys[name])


def test_the_fuzz_server_can_fail_the_property():
    """The leak check finds a key that is there (a null that can fail)."""
    key = "sk-" + secrets.token_hex(12) + "=+/"
    assert leaks(f"x {quote_plus(key)} y", key) and leaks(f"{key[:9]}…", key) and not leaks("sk-0000", key)


@pytest.fixture(autouse=True)
def _quiet_sigint():
    """cli.main installs the default SIGINT handler (as a run must); pytest's own is put back after."""
    import signal

    previous = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, previous)
