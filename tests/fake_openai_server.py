"""A fake OpenAI-compatible chat server on 127.0.0.1 that answers EQ-Bench prompts and injects faults.

Standard library only (http.server in a thread), so the runner's tests use the real HTTP client
against a real socket: nothing about the client is mocked.

Answers are deterministic in (prompt, temperature): the emotion names are read from the prompt's
"Name: <score>" format lines and each gets a rating derived from a hash. A share of answers
(``unparseable_rate``) is deliberately unparseable; since the hash includes the temperature, the
official protocol's retry at a higher temperature may then succeed. Faults:

====================  ==============================================================
``429``               Too Many Requests with ``Retry-After`` (``retry_after`` seconds)
``500`` ``502`` ``503``  server errors with a JSON error body
``slow``              answers only after ``slow_s`` (beyond the client's timeout)
``reset``             starts a 200 response, then resets the connection (RST)
``garbage``           200 with a body that is not JSON
``empty``             200 with an empty body
``nochoices``         200 with well-formed JSON but no choices
``401`` ``404``       authentication failure / model not found (also happen for real:
                      a wrong key, or a model name not in ``models``)
``400`` ``413`` ``422``  this request rejected (context length, content filter, too large)
``null``              200 whose message content is null (a reasoning model out of tokens)
``close``             reads the request, then closes the connection without a response
``trickle``           200 whose body arrives one byte every ``trickle_s`` seconds
``huge``              200 whose body (chunked, no Content-Length) is ``huge_mb`` MB long
``long``              200 whose answer is followed by ``long_chars`` characters of prose
``bomb``              200 with a 64 KB gzip body that decompresses to 64 MB
====================  ==============================================================

With ``rate_limited_for`` set, every request in that many seconds after the first gets a 429 (a
rate-limit window). With ``query_key`` set, the key is expected in the query string (``?api-key=...``, as some
gateways do) instead of the Authorization header; a wrong one is echoed in the 401 body, and an
unknown route echoes its whole path, query included: the client must redact both.

With ``refuses`` set, a request carrying one of those parameters gets OpenAI's 400 for an argument it does not
know ("Unrecognized request argument supplied: min_p").

``script`` lists the outcome of the first requests in order ("ok" for a normal answer); after it,
each fault happens with its rate in ``faults``. Run as a program it serves until killed and prints
its base URL: ``python tests/fake_openai_server.py --latency 0.1``; on Ctrl-C (SIGINT) it prints a
JSON line with the seconds from its first chat request to its last, then one counting the outcomes it served.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import hashlib
import io
import json
import random
import re
import signal
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

FAULTS = (
    "429",
    "500",
    "502",
    "503",
    "slow",
    "reset",
    "garbage",
    "empty",
    "nochoices",
    "401",
    "404",
    "400",
    "413",
    "422",
    "null",
    "close",
    "trickle",
    "huge",
    "long",
    "bomb",
)
_FORMAT_LINE = re.compile(
    r"^([^\n:<>]+?):\s*<(?:score|revised score|Punktzahl|überarbeitete Punktzahl|ocena|zmieniona ocena)>", re.M
)
#: (first pass heading, revised heading) of each language's revision prompt
_HEADINGS = {
    "First pass scores:": ("First pass scores:", "Revised scores:"),
    "Erste Bewertung": ("Erste Bewertung:", "Überarbeitete Bewertung:"),
    "Pierwsze oceny:": ("Pierwsze oceny:", "Zmienione oceny:"),
}


def emotions_in(prompt: str) -> list[str]:
    """The four emotion names of an EQ-Bench prompt, from its "Name: <score>" format lines."""
    return list(dict.fromkeys(m.strip() for m in _FORMAT_LINE.findall(prompt)))[:4]


def _digest(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:8], "big")


def answer_for(prompt: str, temperature: float, unparseable_rate: float = 0.0) -> str:
    """A deterministic answer: ratings per emotion, unparseable for a share of (prompt, temperature)."""
    names = emotions_in(prompt)
    if not names or (_digest(prompt, temperature, "parse") % 1000) / 1000 < unparseable_rate:
        return "I would rather not put numbers on feelings."
    first = "\n".join(f"{n}: {_digest(prompt, n) % 11}" for n in names)
    for marker, (head_first, head_revised) in _HEADINGS.items():
        if marker in prompt:
            revised = "\n".join(f"{n}: {_digest(prompt, n, 'r') % 11}" for n in names)
            return f"{head_first}\n{first}\n\nCritique: plausible.\n\n{head_revised}\n{revised}"
    return first + "\n\nThat is my answer."


class FakeOpenAI:
    """The server; a context manager whose value is the base URL (``http://127.0.0.1:PORT/v1``)."""

    def __init__(
        self,
        latency: float = 0.0,
        faults: dict[str, float] | None = None,
        script: list[str] | None = None,
        unparseable_rate: float = 0.0,
        api_key: str | None = None,
        models: tuple[str, ...] = ("fake-model",),
        retry_after: float = 0.05,
        slow_s: float = 2.0,
        seed: int = 0,
        keep_log: bool = True,
        responder: Callable[[str, float], str | None] | None = None,
        query_key: str | None = None,
        trickle_s: float = 0.2,
        huge_mb: int = 50,
        long_chars: int = 300_000,
        rate_limited_for: float = 0.0,
        reasoning: str | None = None,
        reasoning_tokens: int = 300,
        bucket_rate: float | None = None,
        bucket_size: float | None = None,
        bucket_headers: bool = True,
        batch_polls: int = 2,
        batch_item_faults: dict[str, float] | None = None,
        batch_expire_first: bool = False,
        refuses: tuple[str, ...] = (),
        lists_models: bool = True,
    ):
        unknown = set(faults or {}) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown faults {unknown}")
        self.latency, self.faults, self.script = latency, dict(faults or {}), list(script or [])
        self.unparseable_rate, self.api_key, self.models = unparseable_rate, api_key, models
        #: False: no /v1/models route (404), as some servers have, so a wrong model is only found by its 404
        self.lists_models = lists_models
        self.retry_after, self.slow_s, self.keep_log = retry_after, slow_s, keep_log
        #: (prompt, temperature) -> the answer text; None falls back to the default answer
        self.responder = responder
        self.query_key, self.trickle_s, self.huge_mb, self.long_chars = query_key, trickle_s, huge_mb, long_chars
        self.rate_limited_for = rate_limited_for
        if reasoning not in (None, *REASONING_KINDS):
            raise ValueError(f"unknown reasoning kind {reasoning!r}")
        #: "o-series": refuses max_tokens and any temperature but 1, reasons ``reasoning_tokens`` first;
        #: "think": a <think> block of decoy ratings before the answer; "field": decoys in reasoning_content
        self.reasoning, self.reasoning_tokens = reasoning, reasoning_tokens
        #: a token bucket of ``bucket_size`` requests refilled at ``bucket_rate`` per second: 429 when empty
        self.bucket_rate, self.bucket_headers = bucket_rate, bucket_headers
        self.bucket_size = bucket_size if bucket_size is not None else (bucket_rate or 0.0)
        self._tokens, self._refilled = self.bucket_size, time.monotonic()
        self.batches = FakeBatches(self, batch_polls, batch_item_faults or {}, batch_expire_first)
        #: request parameters refused with OpenAI's 400 ("Unrecognized request argument supplied: min_p")
        self.refuses = refuses
        self._first_request: float | None = None
        self.first_time = self.last_time = 0.0  # wall clock of the first and the last chat request
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self.outcomes: Counter = Counter()
        self.log: list[dict] = []  # one entry per chat request: body, auth header, outcome
        self._httpd: _Server | None = None

    # -- lifecycle
    def start(self, port: int = 0) -> str:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._httpd = _Server(("127.0.0.1", port), handler)
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self.base_url

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- decisions
    def take_token(self) -> tuple[bool, dict[str, str]]:
        """(allowed?, x-ratelimit headers) from the token bucket; always allowed without one."""
        if not self.bucket_rate:
            return True, {}
        with self._lock:
            now = time.monotonic()
            self._tokens = min(self.bucket_size, self._tokens + (now - self._refilled) * self.bucket_rate)
            self._refilled = now
            allowed = self._tokens >= 1
            if allowed:
                self._tokens -= 1
            headers = {}
            if self.bucket_headers:
                reset_ms = (self.bucket_size - self._tokens) / self.bucket_rate * 1000
                headers = {
                    "x-ratelimit-limit-requests": str(int(self.bucket_size)),
                    "x-ratelimit-remaining-requests": str(int(self._tokens)),
                    "x-ratelimit-reset-requests": f"{reset_ms:.0f}ms",
                }
            if not allowed:
                headers["Retry-After"] = f"{(1 - self._tokens) / self.bucket_rate:.3f}"
            return allowed, headers

    def next_outcome(self) -> str:
        with self._lock:
            now = time.monotonic()
            self._first_request = self._first_request or now
            if now - self._first_request < self.rate_limited_for:
                return "429"  # a rate-limit window: every request in it is refused
            if self.script:
                return self.script.pop(0)
            roll = self._random.random()
            for kind, rate in self.faults.items():
                if roll < rate:
                    return kind
                roll -= rate
            return "ok"

    def record(self, entry: dict) -> None:
        with self._lock:
            self.first_time = self.first_time or entry["time"]
            self.last_time = entry["time"]
            self.outcomes[entry["outcome"]] += 1
            if self.keep_log:
                self.log.append(entry)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # many clients connect at once under high concurrency

    def handle_error(self, request, client_address) -> None:
        """Clients that time out or hang up are part of the tests: no tracebacks for them."""
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real API servers do
    disable_nagle_algorithm = True  # else headers and body in two writes meet delayed ACKs: +40 ms
    fake: FakeOpenAI

    def log_message(self, *args) -> None:  # quiet
        pass

    def _route(self) -> str:
        return urlsplit(self.path).path.rstrip("/")

    def do_GET(self) -> None:
        if self.fake.batches.handle_get(self, self._route()):
            return
        if self._route() == "/v1/models" and self.fake.lists_models:
            self._json(
                200,
                {
                    "object": "list",
                    "data": [{"id": m, "object": "model", "owned_by": "fake"} for m in self.fake.models],
                },
            )
        else:
            self._json(404, {"error": {"message": "no such route", "type": "invalid_request_error"}})

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.fake.batches.handle_post(self, self._route(), body):
            return
        if self._route() != "/v1/chat/completions":
            # the whole path, query included, as some servers do: a key in the query is echoed back
            self._json(404, {"error": {"message": f"no such route: {self.path}", "type": "invalid_request_error"}})
            return
        request = json.loads(body or b"{}")
        auth = self.headers.get("Authorization", "")
        if self.fake.query_key is not None:
            auth = "Bearer " + (parse_qs(urlsplit(self.path).query).get("api-key") or [""])[0]
        outcome = self._decide(request, auth)
        self._extra_headers: dict[str, str] = {}
        if outcome not in ("401", "404"):
            allowed, self._extra_headers = self.fake.take_token()
            if not allowed:
                outcome = "429"
        if outcome == "ok" and self.fake.reasoning == "o-series":
            refused = o_series_refusal(request)
            if refused is not None:
                outcome = "400"
                self._refusal = refused
        unknown = [p for p in self.fake.refuses if p in request]
        if outcome == "ok" and unknown:
            outcome = "400"
            self._refusal = {
                "error": {
                    "message": f"Unrecognized request argument supplied: {unknown[0]}",
                    "type": "invalid_request_error",
                    "param": None,
                    "code": None,
                }
            }
        self.fake.record({"body": request, "authorization": auth, "outcome": outcome, "time": time.time()})
        if self.fake.latency:
            time.sleep(self.fake.latency)
        try:
            self._respond(outcome, request, auth)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (timeout, size cap): nothing to do

    def _decide(self, request: dict, auth: str) -> str:
        expected = self.fake.query_key if self.fake.query_key is not None else self.fake.api_key
        if expected is not None and auth != f"Bearer {expected}":
            return "401"
        if request.get("model") not in self.fake.models:
            return "404"
        return self.fake.next_outcome()

    def _respond(self, outcome: str, request: dict, auth: str) -> None:
        if outcome == "ok":
            self._json(200, self.fake.answer(request))
        elif outcome == "429":
            self._json(
                429,
                {"error": {"message": "Rate limit reached", "type": "requests"}},
                {"Retry-After": str(self.fake.retry_after)} | self._extra_headers,
            )
        elif outcome == "400" and getattr(self, "_refusal", None) is not None:
            refusal, self._refusal = self._refusal, None
            self._json(400, refusal)
        elif outcome in ("500", "502", "503"):
            self._json(int(outcome), {"error": {"message": f"server error {outcome}", "type": "server_error"}})
        elif outcome == "slow":
            time.sleep(self.fake.slow_s)
            self._json(200, completion(request, self.fake.unparseable_rate, self.fake.responder))
        elif outcome == "reset":
            self._reset()
        elif outcome == "garbage":
            self._raw(200, b"<html>502 Bad Gateway</html>{not json", "application/json")
        elif outcome == "empty":
            self._raw(200, b"", "application/json")
        elif outcome == "nochoices":
            self._json(
                200,
                {"id": "x", "object": "chat.completion", "created": 0, "model": request.get("model"), "choices": []},
            )
        elif outcome == "401":
            given = auth.removeprefix("Bearer ")  # echoed back on purpose: the client must redact it
            self._json(
                401,
                {
                    "error": {
                        "message": f"Incorrect API key provided: {given}.",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                },
            )
        elif outcome == "404":
            self._json(
                404,
                {
                    "error": {
                        "message": f"The model `{request.get('model')}` does not exist.",
                        "type": "invalid_request_error",
                        "code": "model_not_found",
                    }
                },
            )
        elif outcome in ("400", "413", "422"):
            message = {
                "400": "This model's maximum context length is 512 tokens. However, your messages resulted in "
                "700 tokens. Please reduce the length of the messages.",
                "413": "Request entity too large.",
                "422": "The prompt was filtered due to the content management policy.",
            }[outcome]
            self._json(int(outcome), {"error": {"message": message, "type": "invalid_request_error"}})
        elif outcome == "null":
            body = completion(request, self.fake.unparseable_rate, self.fake.responder)
            body["choices"][0]["message"]["content"] = None
            body["choices"][0]["finish_reason"] = "length"
            self._json(200, body)
        elif outcome == "close":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif outcome == "trickle":
            self._trickle(json.dumps(completion(request, self.fake.unparseable_rate, self.fake.responder)).encode())
        elif outcome == "huge":
            self._huge(request)
        elif outcome == "bomb":
            self._raw(200, _gzip_bomb(), "application/json", {"Content-Encoding": "gzip"})
        elif outcome == "long":
            body = completion(request, self.fake.unparseable_rate, self.fake.responder)
            text = body["choices"][0]["message"]["content"]
            body["choices"][0]["message"]["content"] = text + "\n" + ("and so on " * (self.fake.long_chars // 10 + 1))
            self._json(200, body)
        else:
            raise ValueError(outcome)

    def _trickle(self, body: bytes) -> None:
        """Headers at once, then the body one byte at a time: every read succeeds, the whole never ends."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.flush()
        for i in range(len(body)):
            self.wfile.write(body[i : i + 1])
            self.wfile.flush()
            time.sleep(self.fake.trickle_s)

    def _huge(self, request: dict) -> None:
        """A completion of ``huge_mb`` MB, chunked (no Content-Length): only counting the bytes can stop it."""
        head = json.dumps(completion(request))
        cut = head.index('"content": "') + len('"content": "')
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        block = b"blah " * 209_715  # 1 MiB
        parts = [head[:cut].encode()] + [block] * self.fake.huge_mb + [head[cut:].encode()]
        for part in parts:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _reset(self) -> None:
        """Begin a response, then close with RST (SO_LINGER 0): a connection reset mid-response."""
        try:
            self.wfile.write(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{"id":')
            self.wfile.flush()
        finally:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()

    def _json(self, status: int, obj: dict, headers: dict[str, str] | None = None) -> None:
        self._raw(status, json.dumps(obj).encode(), "application/json", headers)

    def _raw(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in ({**getattr(self, "_extra_headers", {}), **(headers or {})}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)


@functools.cache
def _gzip_bomb() -> bytes:
    """A gzip body of about 64 KB that decompresses to 64 MiB of spaces."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9) as f:
        block = b" " * 2**20
        for _ in range(64):
            f.write(block)
    return out.getvalue()


def completion(
    request: dict, unparseable_rate: float = 0.0, responder: Callable[[str, float], str | None] | None = None
) -> dict:
    """A chat.completion object answering the request's last user message (``responder``'s text if given)."""
    prompt = (request.get("messages") or [{}])[-1].get("content", "")
    temperature = float(request.get("temperature", 1.0))
    text = responder(prompt, temperature) if responder else None
    if text is None:
        text = answer_for(prompt, temperature, unparseable_rate)
    finish = "stop"
    for stop in request.get("stop") or []:
        if stop in text:
            text = text[: text.index(stop)]
    words = text.split()
    limit = int(request.get("max_tokens") or 10_000)
    if len(words) > limit:
        text, finish = " ".join(words[:limit]), "length"
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": len(prompt.split()),
            "completion_tokens": len(words),
            "total_tokens": len(prompt.split()) + len(words),
        },
    }


# ---------------------------------------------------------------- reasoning models

REASONING_KINDS = ("o-series", "think", "field")


def o_series_refusal(request: dict) -> dict | None:
    """The 400 body OpenAI's o-series sends for ``max_tokens`` or a temperature other than its default."""
    if "max_tokens" in request:
        return {
            "error": {
                "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                "type": "invalid_request_error",
                "param": "max_tokens",
                "code": "unsupported_parameter",
            }
        }
    if "temperature" in request and request["temperature"] != 1:
        return {
            "error": {
                "message": f"Unsupported value: 'temperature' does not support {request['temperature']} with this "
                "model. Only the default (1) value is supported.",
                "type": "invalid_request_error",
                "param": "temperature",
                "code": "unsupported_value",
            }
        }
    return None


def decoys(prompt: str) -> str:
    """Reasoning full of lines the EQ-Bench parser would read as ratings ("Emotion: 9")."""
    names = emotions_in(prompt) or ["Emotion"]
    return "Let me think.\n" + "\n".join(f"{n}: 9" for n in names) + "\nHmm, maybe not. " + "word " * 20


def reasoning_completion(fake: FakeOpenAI, request: dict) -> dict:
    """A reasoning model's reply: the plain answer with its reasoning as ``fake.reasoning`` puts it."""
    if fake.reasoning == "o-series":  # answers as at its default temperature, after reasoning_tokens
        body = completion({**request, "temperature": 1, "max_tokens": None}, fake.unparseable_rate, fake.responder)
        budget = int(request.get("max_completion_tokens") or 100_000)
        answer_tokens = body["usage"]["completion_tokens"]
        spent = min(budget, fake.reasoning_tokens)
        if budget < fake.reasoning_tokens + answer_tokens:
            body["choices"][0]["message"]["content"] = ""
            body["choices"][0]["finish_reason"] = "length"
            answer_tokens = budget - spent
        body["usage"]["completion_tokens"] = spent + answer_tokens
        body["usage"]["completion_tokens_details"] = {"reasoning_tokens": spent}
        return body
    # the reasoning counts against the token limit (one word, one token): a small limit cuts it off
    body = completion({**request, "max_tokens": None}, fake.unparseable_rate, fake.responder)
    message = body["choices"][0]["message"]
    prompt = (request.get("messages") or [{}])[-1].get("content", "")
    thought = decoys(prompt)
    limit = int(request.get("max_tokens") or request.get("max_completion_tokens") or 100_000)
    thought_words = len(thought.split())
    answer_words = len(message["content"].split())
    cut = thought_words + answer_words > limit
    if fake.reasoning == "field":
        message["reasoning_content"] = " ".join(thought.split()[:limit]) if cut else thought
        if cut:
            message["content"] = ""
    else:
        opened = _digest(prompt, "template") % 3 != 0  # else the chat template sent the opening tag
        if cut:
            message["content"] = ("<think>\n" if opened else "") + " ".join(thought.split()[:limit])
        else:
            message["content"] = ("<think>\n" if opened else "") + f"{thought}\n</think>\n\n{message['content']}"
    if cut:
        body["choices"][0]["finish_reason"] = "length"
    body["usage"]["completion_tokens"] = min(limit, thought_words + answer_words)
    return body


def _fake_answer(self: FakeOpenAI, request: dict) -> dict:
    if self.reasoning is not None:
        return reasoning_completion(self, request)
    return completion(request, self.unparseable_rate, self.responder)


FakeOpenAI.answer = _fake_answer  # type: ignore[attr-defined]


# ---------------------------------------------------------------- Files + Batches API


class FakeBatches:
    """OpenAI's Files and Batches API, as much as a batch run uses: upload (multipart, purpose batch),
    create (with ``metadata``), retrieve, list (newest first, ``limit`` and ``after``), file content. A
    batch is ``validating``, then ``in_progress`` for ``polls`` retrievals, then ``completed`` (or
    ``expired`` with half its items done, for the first batch with ``expire_first``). Items fail at
    ``item_faults`` rates ("500": a 500 in the error file). Every item submitted is logged in
    :attr:`submitted` (batch id, custom_id, body) so tests can check none is paid twice.

    Hostile behaviour, set on the instance (issue 26): ``create_delay_s`` (the batch is made at once, its
    answer comes that much later), ``retrieve_faults`` (statuses answered to the next retrievals, in
    order), ``reported_status`` ((batch id, batch) -> the status shown, e.g. one outside the documented
    set), ``line_status`` (every line answered with this status and an error body), ``cancel_after`` (the
    next batch ends ``cancelled`` with only its first k lines answered), ``output_lines`` ((batch id, the
    finished entries) -> the lines stored, dicts or raw bytes), ``id_prefix`` (the batch ids' start),
    ``null_counts``, ``list_missing`` (``GET /v1/batches`` answers 404). Tests delete batches and files from
    :attr:`batches` and :attr:`files` (the endpoint
    then answers 404).
    """

    def __init__(self, fake: FakeOpenAI, polls: int, item_faults: dict[str, float], expire_first: bool):
        self.fake, self.polls, self.item_faults, self.expire_first = fake, polls, item_faults, expire_first
        self.files: dict[str, dict] = {}
        self.batches: dict[str, dict] = {}
        self.submitted: list[tuple[str, str, dict]] = []  # (batch id, custom_id, body)
        self.retrievals = 0
        #: when set, the next batch created ends ``failed`` with this message (its input refused)
        self.fail_next: str | None = None
        self.create_delay_s = 0.0
        self.retrieve_faults: list[int] = []
        self.reported_status: Callable[[str, dict], str] | None = None
        self.line_status: int | None = None
        self.cancel_after: int | None = None
        self.output_lines: Callable[[str, list[dict]], list[dict | bytes]] | None = None
        self.id_prefix = "batch"
        self.null_counts = False
        self.refuse_metadata = False  # an endpoint whose create takes no metadata (400 naming it)
        self.creates = 0  # POST /v1/batches received (answered or not)
        self.list_missing = False  # an endpoint without GET /v1/batches (404), as some compatible servers
        self._serial: Counter = Counter()
        self._random = random.Random(1)
        self._lock = threading.Lock()

    def _new_id(self, prefix: str, table: dict) -> str:
        self._serial[prefix] += 1  # never reused, also after a deletion
        return f"{prefix}-{self._serial[prefix]:04d}"

    # -- routes
    def handle_post(self, handler: _Handler, route: str, raw: bytes) -> bool:
        if route == "/v1/files":
            fields = _multipart(handler.headers.get("Content-Type", ""), raw)
            if fields.get("purpose", (None, b""))[1] != b"batch" or "file" not in fields:
                handler._json(400, {"error": {"message": "purpose must be batch, with a file", "type": "invalid"}})
                return True
            with self._lock:
                fid = self._new_id("file", self.files)
                name, data = fields["file"]
                self.files[fid] = {"data": data, "filename": name or "upload.jsonl", "purpose": "batch"}
            handler._json(200, self._file_object(fid))
            return True
        if route == "/v1/batches":
            request = json.loads(raw or b"{}")
            problems = self._validate_create(request, self.refuse_metadata)
            if problems:
                handler._json(400, {"error": {"message": problems, "type": "invalid_request_error"}})
                return True
            with self._lock:
                self.creates += 1
                bid = self._new_id(self.id_prefix, self.batches)
                if request["input_file_id"] not in self.files:
                    handler._json(404, {"error": {"message": "no such file", "type": "invalid_request_error"}})
                    return True
                lines = [json.loads(x) for x in self.files[request["input_file_id"]]["data"].splitlines() if x.strip()]
                errors = _validate_lines(lines)
                if self.fail_next is not None:
                    errors, self.fail_next = [self.fail_next], None
                self.batches[bid] = {
                    "request": request,
                    "lines": lines,
                    "polls": 0,
                    "status": "failed" if errors else "validating",
                    "errors": errors,
                    "output_file_id": None,
                    "error_file_id": None,
                    "created_at": int(time.time()),
                    "counts": {"total": len(lines), "completed": 0, "failed": 0},
                    "cancel_after": self.cancel_after,
                }
                self.cancel_after = None
                if not errors:
                    self.submitted += [(bid, x["custom_id"], x["body"]) for x in lines]
                answer = self._batch_object(bid)
            if self.create_delay_s:
                time.sleep(self.create_delay_s)  # made already: only the answer is late
            handler._json(200, answer)
            return True
        return False

    def handle_get(self, handler: _Handler, route: str) -> bool:
        parts = route.split("/")
        if route == "/v1/batches":
            if self.list_missing:
                handler._json(404, {"error": {"message": "Not Found", "type": "invalid_request_error"}})
                return True
            query = parse_qs(urlsplit(handler.path).query)
            limit = int((query.get("limit") or ["20"])[0])
            after = (query.get("after") or [None])[0]
            with self._lock:
                ids = list(reversed(self.batches))  # newest first
                if after in ids:
                    ids = ids[ids.index(after) + 1 :]
                page = [self._batch_object(b) for b in ids[:limit]]
                more = len(ids) > limit
            handler._json(200, {"object": "list", "data": page, "has_more": more,
                                "first_id": page[0]["id"] if page else None,
                                "last_id": page[-1]["id"] if page else None})  # fmt: skip
            return True
        if route.startswith("/v1/batches/") and len(parts) == 4:
            with self._lock:
                if self.retrieve_faults:
                    status = self.retrieve_faults.pop(0)
                    handler._json(status, {"error": {"message": f"server error {status}", "type": "server_error"}})
                    return True
                if parts[3] not in self.batches:
                    handler._json(404, {"error": {"message": "no such batch", "type": "invalid_request_error"}})
                    return True
                self.retrievals += 1
                self._advance(parts[3])
                obj = self._batch_object(parts[3])
                if self.reported_status is not None:
                    obj["status"] = self.reported_status(parts[3], self.batches[parts[3]])
                if self.null_counts:
                    obj["request_counts"] = {"total": None, "completed": None, "failed": None}
            handler._json(200, obj)
            return True
        if route.startswith("/v1/files/") and route.endswith("/content") and len(parts) == 5:
            data = self.files.get(parts[3], {}).get("data")
            if data is None:
                handler._json(404, {"error": {"message": "no such file", "type": "invalid_request_error"}})
            else:
                handler._raw(200, data, "application/octet-stream")
            return True
        return False

    # -- state
    @staticmethod
    def _validate_create(request: dict, refuse_metadata: bool = False) -> str | None:
        if request.get("endpoint") != "/v1/chat/completions":
            return f"endpoint must be /v1/chat/completions, not {request.get('endpoint')!r}"
        if request.get("completion_window") != "24h":
            return "completion_window must be 24h"
        if not isinstance(request.get("input_file_id"), str):
            return "input_file_id is required"
        metadata = request.get("metadata")
        if metadata is not None and refuse_metadata:
            return "Unrecognized request argument supplied: metadata"
        if metadata is not None and not (
            isinstance(metadata, dict)
            and len(metadata) <= 16
            and all(
                isinstance(k, str) and len(k) <= 64 and isinstance(v, str) and len(v) <= 512
                for k, v in metadata.items()
            )
        ):
            return "metadata must be at most 16 string pairs (keys up to 64 characters, values up to 512)"
        return None

    def _advance(self, bid: str) -> None:
        batch = self.batches[bid]
        if batch["status"] in ("completed", "expired", "failed", "cancelled"):
            return
        batch["polls"] += 1
        batch["status"] = "in_progress"
        if batch["polls"] <= self.polls:
            batch["counts"]["completed"] = len(batch["lines"]) * batch["polls"] // (self.polls + 1)
            return
        expire = self.expire_first and bid == f"{self.id_prefix}-0001"
        cancel_after = batch.get("cancel_after")
        done, errors = [], []
        for i, line in enumerate(batch["lines"]):
            cid = line["custom_id"]
            if cancel_after is not None and i >= cancel_after:
                continue  # cancelled before it was answered: in neither file
            if expire and i % 2 == 1:
                errors.append(
                    {
                        "id": f"batch_req_{bid}_{i}",
                        "custom_id": cid,
                        "response": None,
                        "error": {
                            "code": "batch_expired",
                            "message": "This request could not be executed before the completion window expired.",
                        },
                    }
                )
                continue
            roll, fault = self._random.random(), None
            for kind, rate in self.item_faults.items():
                if roll < rate:
                    fault = kind
                    break
                roll -= rate
            if fault is not None:
                errors.append(
                    {
                        "id": f"batch_req_{bid}_{i}",
                        "custom_id": cid,
                        "response": {
                            "status_code": int(fault),
                            "request_id": f"req_{i}",
                            "body": {"error": {"message": f"server error {fault}", "type": "server_error"}},
                        },
                        "error": None,
                    }
                )
                continue
            refusal = o_series_refusal(line["body"]) if self.fake.reasoning == "o-series" else None
            status, body = (400, refusal) if refusal else (200, self.fake.answer(line["body"]))
            if self.line_status is not None:
                status = self.line_status
                body = {"error": {"message": f"refused ({status}): the model does not take these settings",
                                  "type": "invalid_request_error"}}  # fmt: skip
            entry = {
                "id": f"batch_req_{bid}_{i}",
                "custom_id": cid,
                "response": {"status_code": status, "request_id": f"req_{i}", "body": body},
                "error": None,
            }
            (done if status == 200 else errors).append(entry)
        batch["status"] = "expired" if expire else "cancelled" if cancel_after is not None else "completed"
        batch["counts"] = {"total": len(batch["lines"]), "completed": len(done), "failed": len(errors)}
        if self.output_lines is not None:
            done = self.output_lines(bid, done)
        if done:
            batch["output_file_id"] = self._store(bid, "output", done)
        if errors:
            batch["error_file_id"] = self._store(bid, "error", errors)

    def _store(self, bid: str, kind: str, entries: list[dict | bytes]) -> str:
        fid = self._new_id("file", self.files)
        data = b"".join((e if isinstance(e, bytes) else json.dumps(e).encode()) + b"\n" for e in entries)
        self.files[fid] = {"data": data, "filename": f"{bid}_{kind}.jsonl", "purpose": "batch_output"}
        return fid

    def _file_object(self, fid: str) -> dict:
        f = self.files[fid]
        return {
            "id": fid,
            "object": "file",
            "bytes": len(f["data"]),
            "created_at": int(time.time()),
            "filename": f["filename"],
            "purpose": f["purpose"],
            "status": "processed",
        }

    def _batch_object(self, bid: str) -> dict:
        b = self.batches[bid]
        errors = {"object": "list", "data": [{"code": "invalid", "message": m} for m in b["errors"]]}
        return {
            "id": bid,
            "object": "batch",
            "endpoint": b["request"]["endpoint"],
            "errors": errors if b["errors"] else None,
            "input_file_id": b["request"]["input_file_id"],
            "completion_window": b["request"]["completion_window"],
            "status": b["status"],
            "output_file_id": b["output_file_id"],
            "error_file_id": b["error_file_id"],
            "created_at": b["created_at"],
            "request_counts": dict(b["counts"]),
            "metadata": b["request"].get("metadata"),
        }


def _validate_lines(lines: list[dict]) -> list[str]:
    """What OpenAI's validation of a batch input file would refuse (one message per problem)."""
    problems, seen = [], set()
    for n, line in enumerate(lines, 1):
        if set(line) != {"custom_id", "method", "url", "body"}:
            problems.append(f"line {n}: fields must be custom_id, method, url, body, not {sorted(line)}")
        elif line["method"] != "POST" or line["url"] != "/v1/chat/completions":
            problems.append(f"line {n}: method POST and url /v1/chat/completions expected")
        elif line["custom_id"] in seen:
            problems.append(f"line {n}: duplicate custom_id {line['custom_id']}")
        elif not isinstance(line["body"], dict) or "model" not in line["body"]:
            problems.append(f"line {n}: body must name a model")
        seen.add(line.get("custom_id"))
    return problems


def _multipart(content_type: str, raw: bytes) -> dict[str, tuple[str | None, bytes]]:
    """The fields of a multipart/form-data body: name -> (filename, bytes)."""
    match = re.search(r'boundary="?([^";]+)"?', content_type)
    if not match:
        return {}
    out: dict[str, tuple[str | None, bytes]] = {}
    for part in raw.split(b"--" + match.group(1).encode())[1:]:
        if part.startswith(b"--"):
            break
        head, _, data = part.lstrip(b"\r\n").partition(b"\r\n\r\n")
        disposition = head.decode("utf-8", "replace")
        name = re.search(r'name="([^"]*)"', disposition)
        filename = re.search(r'filename="([^"]*)"', disposition)
        if name:
            out[name.group(1)] = (filename.group(1) if filename else None, data.removesuffix(b"\r\n"))
    return out


def _answer_at(prompt: str, _asked: float, temperature: float, rate: float) -> str:
    return answer_for(prompt, temperature, rate)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--unparseable", type=float, default=0.0)
    parser.add_argument("--fault", action="append", default=[], metavar="KIND=RATE")
    parser.add_argument("--api-key")
    parser.add_argument("--model", action="append", help="served model names (default fake-model)")
    parser.add_argument("--slow", type=float, default=2.0, help="seconds a 'slow' answer takes")
    parser.add_argument("--trickle", type=float, default=0.2, help="seconds between the bytes of a 'trickle' body")
    parser.add_argument("--huge-mb", type=int, default=50, help="size of a 'huge' body")
    parser.add_argument("--retry-after", type=float, default=0.05, help="Retry-After of a 429, seconds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bucket-rate", type=float, help="token bucket: requests per second (429 when empty)")
    parser.add_argument("--bucket-size", type=float, help="token bucket: requests it holds (default: one second's)")
    parser.add_argument("--no-bucket-headers", action="store_true", help="no x-ratelimit-* headers")
    parser.add_argument("--reasoning", choices=REASONING_KINDS, help="answer as a reasoning model of this kind")
    parser.add_argument("--batch-polls", type=int, default=2, help="retrievals a batch stays in progress")
    parser.add_argument("--batch-item-fault", type=float, default=0.0, help="share of batch items failing with 500")
    parser.add_argument("--batch-expire-first", action="store_true", help="the first batch expires half done")
    parser.add_argument(
        "--answer-temperature",
        type=float,
        help="answer every request as if at this temperature (an o-series reference)",
    )
    args = parser.parse_args()
    faults = {k: float(v) for k, v in (f.split("=") for f in args.fault)}
    fake = FakeOpenAI(
        latency=args.latency,
        faults=faults,
        unparseable_rate=args.unparseable,
        api_key=args.api_key,
        models=tuple(args.model or ["fake-model"]),
        keep_log=False,
        slow_s=args.slow,
        trickle_s=args.trickle,
        huge_mb=args.huge_mb,
        retry_after=args.retry_after,
        seed=args.seed,
        bucket_rate=args.bucket_rate,
        bucket_size=args.bucket_size,
        bucket_headers=not args.no_bucket_headers,
        reasoning=args.reasoning,
        batch_polls=args.batch_polls,
        batch_item_faults={"500": args.batch_item_fault} if args.batch_item_fault else None,
        batch_expire_first=args.batch_expire_first,
        responder=None
        if args.answer_temperature is None
        else functools.partial(_answer_at, temperature=args.answer_temperature, rate=args.unparseable),
    )
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started with SIGINT ignored
    print(fake.start(args.port), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:  # Ctrl-C: stop, and say what was served (one JSON line: outcome -> count)
        fake.stop()
        # the span of chat requests first, then (last line) the outcome counts
        print(json.dumps({"span_s": fake.last_time - fake.first_time}), flush=True)
        print(json.dumps(dict(fake.outcomes)), flush=True)


if __name__ == "__main__":
    main()
