"""The HTTP layer under the openai client: a cap on the size of every response body.

A chat completion is a few kilobytes; a runaway or hostile server can send megabytes (a model
that never stops, a proxy's error page, a gzip bomb). :func:`cap_response` is an httpx response
event hook (public httpx API, so it works for the aiohttp transport and behind proxies alike): it
refuses a ``Content-Length`` over the cap before reading anything, and counts a body of unknown
length (chunked) or a compressed one as it arrives (decompressed, for gzip and deflate), stopping
the download at the cap. The error is an
:class:`openai.OpenAIError`, which the client passes on unchanged, so
:mod:`eqbench_nb.runner.transport` can tell it from a transport fault.

Imported only when a client is made (importing openai costs a fifth of a second).
"""

from __future__ import annotations

import functools
import importlib
import zlib
from collections.abc import AsyncIterator
from typing import Any

import openai

from .headers import header_count

#: Encodings the client accepts, both decoded here under the cap (a gzip bomb stops at the cap too).
ACCEPT_ENCODING = "gzip, deflate"


class ResponseTooLarge(openai.OpenAIError):
    """A response body over the cap: the download was stopped there. ``status`` is the response's HTTP status: a
    2xx says the endpoint answered (this request failed on its own, as a reply too long to keep)."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class UnreadableBody(openai.OpenAIError):
    """A body in an encoding we did not ask for, or one that does not decode."""


def _megabytes(n: int) -> str:
    return f"{n / 2**20:g} MiB"


def cap_response(max_bytes: int) -> Any:
    """An httpx ``response`` event hook that stops any body larger than ``max_bytes``."""

    async def hook(response: Any) -> None:
        length, encoding = "", "identity"
        for key, value in response.headers.raw:  # one pass: Headers.get is a scan per call
            key = key.lower()
            if key == b"content-length":
                length = value.decode("latin-1")
            elif key == b"content-encoding":
                encoding = value.decode("latin-1").strip().lower()
        size = header_count(length) if length.isdigit() else None  # absurd (over 10^12): unknown, counted below
        if size is not None and size > max_bytes:
            raise ResponseTooLarge(
                f"response body of {size:,} bytes is over the {_megabytes(max_bytes)} cap; not read",
                response.status_code,
            )
        compressed = encoding not in ("identity", "")
        if compressed:
            if encoding not in ("gzip", "x-gzip", "deflate"):
                raise UnreadableBody(f"response body in encoding {encoding!r}, which was not asked for")
            del response.headers["content-encoding"]  # decoded here, under the cap; httpx must not decode again
        elif size is not None:
            return  # the length is known and under the cap: the body cannot be longer (HTTP/1.1 framing)
        response.stream = _stream_class(type(response).__module__)(
            response.stream, max_bytes, compressed, response.status_code
        )

    return hook


@functools.cache
def _stream_class(response_module: str) -> Any:
    """A byte stream class of the response's own httpx (httpx or httpx2, whichever the client uses) that
    passes the body on, decoded when compressed, raising :class:`ResponseTooLarge` past its cap."""
    base: Any = importlib.import_module(response_module.split(".")[0]).AsyncByteStream

    class CappedStream(base):
        def __init__(self, inner: Any, max_bytes: int, compressed: bool, status: int | None = None):
            self.inner, self.max_bytes, self.compressed, self.status = inner, max_bytes, compressed, status

        async def __aiter__(self) -> AsyncIterator[bytes]:
            seen, cap = 0, self.max_bytes
            # wbits 47 (32 + 15): zlib or gzip header, detected automatically
            decoder = zlib.decompressobj(47) if self.compressed else None
            async for chunk in self.inner:
                pieces = [chunk] if decoder is None else _decode(decoder, chunk, cap - seen)
                for piece in pieces:
                    seen += len(piece)
                    if seen > cap:
                        raise ResponseTooLarge(
                            f"response body over the {_megabytes(cap)} cap; download stopped", self.status
                        )
                    yield piece

        async def aclose(self) -> None:
            await self.inner.aclose()

    return CappedStream


def _decode(decoder: Any, chunk: bytes, room: int) -> list[bytes]:
    """Decompress one chunk, never producing much more than ``room`` bytes at once (bombs stop early)."""
    out, data = [], chunk
    try:
        while data:
            piece = decoder.decompress(data, max(room, 0) + 1)
            out.append(piece)
            room -= len(piece)
            if room < 0:
                break
            data = decoder.unconsumed_tail
    except zlib.error as exc:
        raise UnreadableBody(f"compressed response body does not decode ({exc})") from None
    return out
