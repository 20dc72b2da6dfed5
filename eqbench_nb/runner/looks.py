"""Cheap looks at a file, the ones that choose its reader, answered once per version of the file.

A command looks at every file of a folder several times before it reads one: which files are runs at all, then whose
(the header's ``benchmark``, then each benchmark's own test for its upstream formats). An upstream results file is
one JSON document on one line, which each look decodes whole: over the 86 published runs a leaderboard decoded each
file 13 times, 1.1 s of its 6.9.
"""

from __future__ import annotations

import csv
import functools
import os
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

T = TypeVar("T")
#: per_file_version's answers, by the look, the file's version and the look's other arguments
_ANSWERS: dict[tuple[Any, ...], Any] = {}
KEPT = 8192
#: A file modified this recently is looked at afresh: a file system's clock may step only every few milliseconds, so
#: a file written twice within one step at the same size would otherwise keep its first answer
SETTLED_NS = 2_000_000_000


def per_file_version(look: Callable[..., T]) -> Callable[..., T]:
    """``look(path, *args, **kwargs)`` answered once per version of the file: its real path, inode, size and
    modification time (a file written again is looked at again; one written in the last two seconds, every time).
    Only for looks whose answer is immutable (a name, a bool, a benchmark); a file that cannot be stat'ed is looked
    at afresh each time, and its reader says why."""

    @functools.wraps(look)
    def remembered(path: str | os.PathLike, *args: Any, **kwargs: Any) -> T:
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return look(path, *args, **kwargs)
        if time.time_ns() - st.st_mtime_ns < SETTLED_NS:
            return look(path, *args, **kwargs)
        key = (look, os.path.realpath(path), st.st_ino, st.st_size, st.st_mtime_ns, args, tuple(sorted(kwargs.items())))
        if key not in _ANSWERS:
            if len(_ANSWERS) >= KEPT:
                _ANSWERS.clear()
            _ANSWERS[key] = look(path, *args, **kwargs)
        return cast(T, _ANSWERS[key])

    return remembered


def header_cells(path: str | os.PathLike) -> list[str] | None:
    """A file's first line as CSV cells (a UTF-8 byte-order mark dropped), None when it cannot be read as text."""
    try:
        with open(path, encoding="utf-8-sig") as f:
            line = f.readline(4096)
    except (OSError, UnicodeDecodeError):
        return None
    return [c.strip() for c in next(csv.reader([line]), [])]
