"""Numbers a server writes in its response headers, read by one function: :func:`header_number`.

Headers are hostile input like any body: ``inf``, ``1e999``, ``NaN``, a 400-digit integer, ``-5`` or
``277777h`` must never raise (an exception in a response hook turns a billed answer into a fault) nor
make the run wait for ever. Every header read by the runner (``Retry-After``, ``retry-after-ms``,
``x-ratelimit-*``) goes through :func:`header_number`, which returns a finite number within the
bounds the caller gives, or None (absent, not a number, not finite, absurd): the caller then does
what it does when the server says nothing.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

#: Longest header value read as a number (a 400-digit integer is not a count any server means).
MAX_NUMBER_CHARS = 40
#: The longest wait a header is believed about: a day (a daily limit's reset). Longer is absurd.
MAX_HEADER_SECONDS = 86_400.0
#: The largest count (requests, tokens) a header is believed about.
MAX_HEADER_COUNT = 10**12

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def header_number(value: Any, low: float = 0.0, high: float = MAX_HEADER_COUNT) -> float | None:
    """The finite number from ``low`` to ``high`` a header value writes, else None."""
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if not isinstance(value, str):
        return None
    value = value.strip()
    if not value or len(value) > MAX_NUMBER_CHARS:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    if not math.isfinite(number) or not low <= number <= high:
        return None
    return number


def header_count(value: Any) -> int | None:
    """A whole count (requests remaining, a limit) from 0 to :data:`MAX_HEADER_COUNT`, else None."""
    number = header_number(value, 0.0, MAX_HEADER_COUNT)
    return None if number is None else int(number)


def header_seconds(value: Any) -> float | None:
    """Seconds from 0 to :data:`MAX_HEADER_SECONDS`: plain seconds, or OpenAI's durations ("20ms", "1s",
    "6m0s", "1.5s"); None when absent, unreadable or absurd."""
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if not isinstance(value, str) or len(value.strip()) > MAX_NUMBER_CHARS:
        return None
    value = value.strip()
    plain = header_number(value, 0.0, MAX_HEADER_SECONDS)
    if plain is not None or _is_number(value):
        return plain
    parts = _DURATION.findall(value)
    if not parts or "".join(n + u for n, u in parts) != value:
        return None
    total = 0.0
    for number, unit in parts:
        amount = header_number(number, 0.0, MAX_HEADER_SECONDS)
        if amount is None:
            return None
        total += amount * _UNIT_S[unit]
    return total if total <= MAX_HEADER_SECONDS else None


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def retry_after_s(headers: Any) -> float | None:
    """Seconds a 429/503 asks us to wait: ``retry-after-ms``, or ``Retry-After`` (seconds or an HTTP date);
    None when absent, unreadable, or longer than a day."""
    if headers is None:
        return None
    try:
        millis = headers.get("retry-after-ms")
        value = headers.get("retry-after")
    except Exception:  # headers that do not decode
        return None
    if millis:
        asked = header_number(millis, 0.0, MAX_HEADER_SECONDS * 1000)
        return None if asked is None else asked / 1000
    if not value:
        return None
    if _is_number(str(value).strip()):
        return header_number(value, 0.0, MAX_HEADER_SECONDS)
    try:
        seconds = (parsedate_to_datetime(str(value)) - datetime.now(UTC)).total_seconds()
    except (TypeError, ValueError, OverflowError, IndexError):
        return None
    return max(0.0, seconds) if seconds <= MAX_HEADER_SECONDS else None
