"""A hostile OpenAI-compatible server on 127.0.0.1, written byte by byte (issue 18).

Where :mod:`fake_openai_server` is a well-behaved server with faults, this one sends whatever the
test says, status line, headers and body, exactly as given: a body that is HTML, a usage count that
is an object, a lone surrogate, a redirect to another host, a key echoed after 160 characters of
padding. ``respond(request, n)`` gets the decoded request (method, path, headers, JSON body) and
its number (from 0, the GET of the model list not counted) and returns the raw response bytes, or
None for a normal completion (:func:`fake_openai_server.completion`). Each response closes its connection.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fake_openai_server import completion


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


def response(
    status: int = 200,
    body: bytes | str | dict | list = b"",
    headers: dict[str, str] | None = None,
    reason: str = "X",
    content_type: str | None = "application/json",
) -> bytes:
    """Raw HTTP/1.1 response bytes (a Content-Length always; ``Connection: close``)."""
    if isinstance(body, (dict, list)):
        body = json.dumps(body)
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogatepass")
    head = [f"HTTP/1.1 {status} {reason}"]
    if content_type is not None:
        head.append(f"Content-Type: {content_type}")
    head += [f"{k}: {v}" for k, v in (headers or {}).items()]
    head += [f"Content-Length: {len(body)}", "Connection: close"]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1", "replace") + body


def ok(request: Request, text: str | None = None, **changes: Any) -> bytes:
    """A 200 completion answering the request (``text`` replaces the answer; ``changes`` set top-level
    fields, e.g. ``usage``)."""
    body = completion(request.body if isinstance(request.body, dict) else {})
    if text is not None:
        body["choices"][0]["message"]["content"] = text
    body.update(changes)
    return response(200, json.dumps(body, ensure_ascii=True))


@dataclass
class HostileServer:
    respond: Callable[[Request, int], bytes | None]
    requests: list[Request] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self._lock = threading.Lock()
        self._stopped = False

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}/v1"

    def __enter__(self) -> str:
        threading.Thread(target=self._serve, daemon=True).start()
        return self.base_url

    def __exit__(self, *exc: object) -> None:
        self._stopped = True
        self._sock.close()

    def _serve(self) -> None:
        while not self._stopped:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(10)
            request = _read_request(conn)
            if request is None:
                return
            with self._lock:
                # the model list a run asks for first (a --model it does not list stops the run) is not counted:
                # the numbers a test scripts are those of the completions
                n = sum(not _lists_models(r) for r in self.requests)
                self.requests.append(request)
            raw = self.respond(request, n)
            if raw is None:
                raw = ok(request)
            conn.sendall(raw)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            conn.close()


def _lists_models(request: Request) -> bool:
    return request.method == "GET" and request.path.split("?")[0].rstrip("/").endswith("/models")


def _read_request(conn: socket.socket) -> Request | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length") or 0)
    while len(rest) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        rest += chunk
    try:
        body = json.loads(rest) if rest else None
    except ValueError:
        body = None
    return Request(method, path, headers, body)
