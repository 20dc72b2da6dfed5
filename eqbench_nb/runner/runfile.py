"""The run file: JSON Lines, one header line then one record per answered item, appended and fsynced.

Generic over benchmarks: a record is anything with a ``key`` (iteration, item id) and a
``to_json()``; the benchmark passes the function that turns a JSON object back into its record.

- Nothing lost: every record is flushed and fsynced as it finishes (by a writer thread, so the
  event loop never waits on the disk); a kill leaves at most a torn last line.
- Resume: opening an existing file keeps its records (to be skipped), cuts a torn last line (and
  says so), and refuses to go on when the header's settings differ from the new ones.
"""

from __future__ import annotations

import json
import os
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from .errors import RunnerError


class Record(Protocol):
    """What the run file needs of a benchmark's record."""

    @property
    def key(self) -> tuple[int, str]: ...

    def to_json(self) -> dict[str, Any]: ...


R = TypeVar("R", bound=Record)


class RunFormatError(Exception):
    """A run file could not be read; the message names the file and the problem."""

    def __init__(self, path: str | os.PathLike, problem: str):
        super().__init__(f"{path}: {problem}")
        self.path, self.problem = str(path), problem


@dataclass
class JsonlContents(Generic[R]):
    header: dict[str, Any] | None
    records: list[R]
    torn_tail: bool  # the last line was cut off mid-write (a killed run); it is ignored


def header_line(header: dict[str, Any]) -> str:
    return json.dumps({"type": "header", **header}, ensure_ascii=False)


def record_line(record: Record) -> str:
    return json.dumps(record.to_json(), ensure_ascii=False)


def parse_jsonl(raw: bytes, path: Path, parse_record: Callable[[dict[str, Any]], R]) -> JsonlContents[R]:
    """Header and records of a run file's bytes. A torn last line is reported, not fatal; any other bad line is."""
    # Bytes, line by line: a kill can cut the last line inside a multi-byte character.
    lines = raw.split(b"\n")
    header, records, torn = None, [], False
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            if number == len(lines) and not raw.endswith(b"\n"):
                torn = True  # only the unterminated final line can be a torn write
                continue
            raise RunFormatError(path, f"line {number} is not JSON") from None
        if not isinstance(obj, dict):
            raise RunFormatError(path, f"line {number} is not a JSON object")
        kind = obj.get("type", "record")
        try:
            if kind == "header":
                header = {k: v for k, v in obj.items() if k != "type"}
            elif kind == "record":
                records.append(parse_record(obj))
            else:
                raise ValueError(f"unknown line type {kind!r}")
        except (ValueError, TypeError) as exc:
            raise RunFormatError(path, f"line {number}: {exc}") from None
    return JsonlContents(header, records, torn)


def read_jsonl(path: str | os.PathLike, parse_record: Callable[[dict[str, Any]], R]) -> JsonlContents[R]:
    """Read a run file (see :func:`parse_jsonl`)."""
    path = Path(path)
    return parse_jsonl(path.read_bytes(), path, parse_record)


def display_path(path: Path) -> str:
    """The path relative to the working directory when it is close by (no home folders in notebooks)."""
    relative = os.path.relpath(path)
    return relative if not relative.startswith(os.path.join("..", "..")) else str(path)


def _cut_torn_tail(path: Path) -> str | None:
    """Cut an unterminated last line; return a note if something was cut."""
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return None
    keep = data.rfind(b"\n") + 1
    with open(path, "r+b") as f:
        f.truncate(keep)
        f.flush()
        os.fsync(f.fileno())
    return f"{display_path(path)}: the last line was torn (a killed run); {len(data) - keep} bytes ignored and removed"


def settings_diff(old: dict[str, Any], new: dict[str, Any], keys: Sequence[str]) -> list[str]:
    """The settings (of ``keys``) in which two headers differ, one readable line each.

    A key the old header lacks is not compared: files written before that setting was recorded stay
    resumable.
    """
    return [
        f"{k}: file has {_short(old.get(k))}, now {_short(new.get(k))}"
        for k in keys
        if k in old and _canon(old.get(k)) != _canon(new.get(k))
    ]


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "…"


class RunFile(Generic[R]):
    """A run's JSON Lines file, opened for appending; every record is flushed and fsynced.

    Opening an existing file resumes it: the header's ``settings_keys`` must match, a torn last
    line is cut (and reported), and the records already there are kept in :attr:`finished`.

    Records are written by a thread of their own, so an fsync (0.4 ms on a fast disk, far more on
    a slow one) never stalls the event loop that keeps the requests going. Records that finish
    while one fsync runs share the next write and fsync (group commit), so a kill loses at most
    the requests in flight and the records queued behind that one fsync.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        header: dict[str, Any],
        parse_record: Callable[[dict[str, Any]], R],
        settings_keys: Sequence[str],
    ):
        self.path = Path(path)
        self.notes: list[str] = []
        self.finished: list[R] = []  # records already in the file when it was opened
        self.header = self._prepare(header, parse_record, settings_keys)
        self._file = open(self.path, "ab")  # noqa: SIM115 - open for the writer thread's whole life
        self._queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.error: str | None = None
        self._writer = threading.Thread(target=self._write_loop, name="eqbench-run-file", daemon=True)
        self._writer.start()

    def _prepare(
        self, header: dict[str, Any], parse_record: Callable[[dict[str, Any]], R], settings_keys: Sequence[str]
    ) -> dict[str, Any]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not self.path.exists() or self.path.stat().st_size == 0:
                self._write_new(header)
                return header
            contents = read_jsonl(self.path, parse_record)
            if contents.torn_tail:
                self.notes.append(_cut_torn_tail(self.path) or "")
            else:
                self._terminate_last_line()
        except RunFormatError as exc:
            raise RunnerError(f"cannot resume: {exc}") from None
        except OSError as exc:
            raise RunnerError(f"cannot write the run file {self.path}: {exc.strerror or exc}") from None
        if contents.header is None:
            if contents.records:
                raise RunnerError(f"cannot resume {self.path}: it has records but no header line")
            self._write_new(header)
            return header
        diff = settings_diff(contents.header, header, settings_keys)
        if diff:
            raise RunnerError(
                f"{self.path} was started with different settings ({'; '.join(diff)}); "
                f"use another --run-id or --out, or delete the file"
            )
        self.finished = contents.records
        if self.finished:
            self.notes.append(f"resuming {display_path(self.path)}: {len(self.finished)} finished answers kept")
        return contents.header

    def _write_new(self, header: dict[str, Any]) -> None:
        with open(self.path, "wb") as f:
            f.write((header_line(header) + "\n").encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())

    def _terminate_last_line(self) -> None:
        """A complete last record without its newline: add it, so the next record starts a line."""
        with open(self.path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            ends_ok = f.read(1) == b"\n"
        if not ends_ok:
            with open(self.path, "ab") as f:
                f.write(b"\n")

    def append(self, record: R) -> None:
        """Hand one finished record to the writer; raises if the writer has failed (disk full, …)."""
        if self.error:
            raise RunnerError(self.error)
        self._queue.put((record_line(record) + "\n").encode("utf-8"))

    def _write_loop(self) -> None:
        while True:
            batch = [self._queue.get()]
            while not self._queue.empty():
                batch.append(self._queue.get())
            lines = [line for line in batch if line is not None]
            try:
                if lines:  # whole lines in one write: a kill mid-write leaves at most a torn last line
                    self._file.write(b"".join(lines))
                    self._file.flush()
                    os.fsync(self._file.fileno())
            except OSError as exc:
                self.error = f"cannot write the run file {self.path}: {exc.strerror or exc}"
                return
            if None in batch:
                return

    def close(self) -> None:
        """Write what is queued, stop the writer, close the file (then check :attr:`error`)."""
        self._queue.put(None)
        self._writer.join()
        self._file.close()
