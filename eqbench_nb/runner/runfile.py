"""The run file: JSON Lines, one header line then one record per answered item, appended and fsynced.

Generic over benchmarks: a record is anything with a ``key`` (iteration, item id) and a
``to_json()``; the benchmark passes the function that turns a JSON object back into its record.

- Nothing lost: every record is flushed and fsynced as it finishes (by a writer thread, so the
  event loop never waits on the disk); a kill leaves at most a torn last line.
- Nothing doubled: one process at a time writes a run (an exclusive ``flock`` on the file; a
  second gets one line naming the first's pid). Readers keep the first copy of a record that
  appears twice, the first header, and only records of the header's run, and say what they left out.
- Nothing sent in vain: the file must be able to grow before the first request goes out, and when
  a write fails (disk full) the run is told at once, so it stops sending.
- Resume: opening an existing file keeps its records (to be skipped), cuts a torn last line (and
  says so), and refuses to go on when the header's settings differ from the new ones. Unreadable
  lines in the middle stop a resume unless ``repair``: then they are copied to ``<file>.unreadable``,
  blanked in place (a line of spaces, which every reader skips) and their items asked again.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import io
import json
import os
import queue
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Generic, Protocol, TypeVar

from ..model_numbers import finite_json
from .errors import RunnerError
from .header import deviations_key, file_benchmark, first_line, whole_number
from .redact import clean_json, clip, remember_key_variables

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock
    fcntl = None  # type: ignore[assignment]

#: Bytes the run file must be able to grow by (reserved, then given back) before the first request is sent.
PROBE_BYTES = 16 * 1024
#: The event that extends a run to more items: ``{"type": "event", "event": "extended", "header": {...}}`` holds the
#: header fields it replaced (a benchmark's ``extendable`` ones), which readers apply to the header.
EXTENDED = "extended"


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
class BadLine:
    """An unreadable line: its number (from 1), byte offset, bytes, and what is wrong with it."""

    number: int
    offset: int
    data: bytes
    problem: str


class LeftOut(ValueError):
    """A record that reads but that no run could have written (its iteration is not a whole number):
    left out with a warning, like a record of another run, rather than failing the file."""


@dataclass
class JsonlContents(Generic[R]):
    header: dict[str, Any] | None
    records: list[R]
    torn_tail: bool  # the last line was cut off mid-write (a killed run); it is ignored
    #: what was left out, one line each: duplicates, extra headers, records of another run
    warnings: list[str] = field(default_factory=list)
    #: unreadable lines before the last (only when read with ``tolerant=True``; else they raise)
    bad_lines: list[BadLine] = field(default_factory=list)
    size: int = 0  # bytes read
    complete_size: int = 0  # bytes up to and including the last line break
    #: the file ends with a line break (or is empty)
    ends_with_newline: bool = True
    #: ``{"type": "event", ...}`` lines: what happened to the run besides its records (a deviation
    #: from the protocol learnt from the endpoint, a batch submitted), in file order
    events: list[dict[str, Any]] = field(default_factory=list)


def header_line(header: dict[str, Any]) -> str:
    return json.dumps({"type": "header", **header}, ensure_ascii=False, allow_nan=False)


def record_line(record: Record) -> str:
    """One record as its line: strict JSON. A number that is not finite should never reach a record (every number a
    model returns passes :mod:`eqbench_nb.model_numbers` first); should one get past its reader, the record is still
    written, that number as null and named under ``not_finite``, rather than the paid reply lost to the write and
    asked again on every resume."""
    return strict_line(record.to_json())


def strict_line(obj: dict[str, Any]) -> str:
    """A record's or an event's line, redacted (:func:`~eqbench_nb.runner.redact.clean_json`) and strict JSON: a
    number that is not finite (a server's ``NaN`` in a batch line kept apart, say) is written as null and named under
    ``not_finite``, never a failed write."""
    obj = clean_json(obj)
    try:
        return json.dumps(obj, ensure_ascii=False, allow_nan=False)
    except ValueError:  # "Out of range float values are not JSON compliant"
        kept, said = finite_json(obj)
        return json.dumps(kept | {"not_finite": said}, ensure_ascii=False, allow_nan=False)


BOM = b"\xef\xbb\xbf"


def _decode_line(line: bytes) -> tuple[Any, str | None]:
    """(the JSON value, None), or (None, the problem)."""
    try:
        return json.loads(line), None
    except (ValueError, UnicodeDecodeError):  # ValueError: JSONDecodeError, or an integer of over 4,300 digits
        return None, "is not JSON"
    except RecursionError:
        return None, "is nested too deeply to read"


class _Admission(Generic[R]):
    """Which records a run file admits, decided as they stream past, so memory follows the distinct
    records of the header's run, not the lines of the file: the first of each key, of the header's
    ``identity``, with an iteration the header allows. What is left out is counted for the warnings."""

    def __init__(self, identity: Sequence[str]):
        self.identity = identity
        self.header: dict[str, Any] | None = None
        self.pending: list[tuple[R, dict[str, Any]]] = []  # records before any header (rare)
        self.kept: list[R] = []
        self.seen: set[tuple[int, str]] = set()
        self.foreign = 0
        self.foreign_example: dict[str, Any] = {}
        self.duplicates = 0
        self.out_of_range = 0
        self.out_of_range_example: Any = None
        self.left_out = 0
        self.left_out_example = ""

    def set_header(self, header: dict[str, Any]) -> None:
        self.header = header
        pending, self.pending = self.pending, []
        for record, ident in pending:
            self.add(record, ident)

    def add(self, record: R, ident: dict[str, Any]) -> None:
        if self.header is None:
            self.pending.append((record, ident))
            return
        if any(k in self.header and ident.get(k) != self.header[k] for k in self.identity):
            self.foreign += 1
            self.foreign_example = self.foreign_example or ident
            return
        iteration = record.key[0]
        if not _iteration_admitted(iteration, self.header.get("iterations")):
            self.out_of_range += 1
            if self.out_of_range == 1:
                self.out_of_range_example = iteration
            return
        if record.key in self.seen:
            self.duplicates += 1
            return
        self.seen.add(record.key)
        self.kept.append(record)

    def finish(self) -> tuple[list[R], list[str]]:
        if self.header is None:
            self.header, pending, self.pending = {}, self.pending, []
            for record, ident in pending:
                self.add(record, ident)
            self.header = None
        warnings = []
        if self.duplicates:
            warnings.append(
                f"{self.duplicates} duplicate record{'s' if self.duplicates > 1 else ''} (same iteration and item) "
                "ignored; the first of each is kept"
            )
        if self.foreign:
            want = [k for k in self.identity if self.header and k in self.header]
            example = ", ".join(f"{k} {v!r}" for k, v in self.foreign_example.items() if k in want)
            n = self.foreign
            warnings.append(
                f"{n} record{'s' if n > 1 else ''} of another run ignored "
                f"({' or '.join(want)} differ from the header's; e.g. {clip(example, 120)})"
            )
        if self.out_of_range:
            n = self.out_of_range
            iterations: Any = (self.header or {}).get("iterations")
            allowed = f"1-{iterations}" if _whole(iterations) and iterations >= 1 else "a whole number from 1"
            warnings.append(
                f"{n} record{'s' if n > 1 else ''} with an iteration the header does not allow ({allowed}) left "
                f"out; e.g. iteration {_short(self.out_of_range_example)}"
            )
        if self.left_out:
            n = self.left_out
            warnings.append(f"{n} record{'s' if n > 1 else ''} left out; e.g. {self.left_out_example}")
        return self.kept, warnings


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _iteration_admitted(iteration: Any, iterations: Any) -> bool:
    """A record's iteration is a whole number from 1 to the header's ``iterations`` (from 1 when the
    header does not say how many)."""
    if not _whole(iteration) or iteration < 1:
        return False
    return not (_whole(iterations) and iterations >= 1 and iteration > iterations)


def parse_jsonl(
    source: bytes | BinaryIO,
    path: Path,
    parse_record: Callable[[dict[str, Any]], R],
    identity: Sequence[str] = (),
    tolerant: bool = False,
    extendable: Sequence[str] = (),
) -> JsonlContents[R]:
    """Header and records of a run file's bytes (or an open binary file, read line by line).

    A torn last line is reported, not fatal. Any other unreadable line raises
    :class:`RunFormatError`, or with ``tolerant`` is listed in ``bad_lines``. Of records with the
    same key the first is kept; the first header is kept; records whose ``identity`` fields
    (e.g. model and run id) differ from the header's are left out, and so are records whose
    iteration is not a whole number from 1 to the header's ``iterations``. Each is counted in
    ``warnings``. A byte order mark and CRLF line ends are accepted. Memory follows the distinct
    records kept, not the file's lines. The header returned carries what the run learnt and recorded as events: the
    deviations, and the header fields an extension to more items replaced (only those named in ``extendable``, the
    benchmark's: an event can change nothing else).
    """
    lines: Iterable[bytes] = io.BytesIO(source) if isinstance(source, (bytes, bytearray)) else source
    admission: _Admission[R] = _Admission(identity)
    bad: list[BadLine] = []
    events: list[dict[str, Any]] = []
    torn, extra_headers, offset, complete = False, 0, 0, 0
    ends_with_newline = True
    for number, line in enumerate(lines, 1):
        start, offset = offset, offset + len(line)
        ends_with_newline = line.endswith(b"\n")
        if ends_with_newline:
            complete = offset
            line = line[:-1]
        if number == 1 and line.startswith(BOM):
            text = line[len(BOM) :]
        else:
            text = line
        if not text.strip():
            continue
        obj, problem = _decode_line(text)
        if problem is None and not isinstance(obj, dict):
            problem = "is not a JSON object"
        if problem is not None:
            if not ends_with_newline and problem == "is not JSON":
                torn = True  # only the unterminated final line can be a torn write
                continue
            if not tolerant:
                raise RunFormatError(path, f"line {number} {problem}")
            bad.append(BadLine(number, start, line, problem))
            continue
        kind = obj.get("type", "record")
        try:
            if kind == "header":
                if admission.header is None:
                    admission.set_header({k: v for k, v in obj.items() if k != "type"})
                else:
                    extra_headers += 1
            elif kind == "record":
                record = parse_record(obj)
                admission.add(record, {k: obj.get(k) for k in identity})
            elif kind == "event":
                events.append({k: v for k, v in obj.items() if k != "type"})
            else:
                raise ValueError(f"unknown line type {_short(kind)}")
        except LeftOut as exc:
            admission.left_out += 1
            admission.left_out_example = admission.left_out_example or f"line {number}: {exc}"
        except (ValueError, TypeError, RecursionError) as exc:
            if not tolerant:
                raise RunFormatError(path, f"line {number}: {exc}") from None
            bad.append(BadLine(number, start, line, str(exc)))
    kept, warnings = admission.finish()
    if extra_headers:
        plural = "s" if extra_headers > 1 else ""
        warnings.insert(0, f"{extra_headers} more header line{plural} ignored (the first kept)")
    header = admission.header
    if header is not None:  # the key variables it names are redacted from every output (redact module docstring)
        remember_key_variables(header)
    if header is not None:  # deviations learnt during the run belong to its header (a second endpoint's apart)
        header = with_deviations(header, events)
        for e in events:  # in file order: a later extension replaces an earlier one's fields
            if e.get("event") == EXTENDED and isinstance(e.get("header"), dict):
                header = {**header, **{k: v for k, v in e["header"].items() if k in extendable}}
    return JsonlContents(header, kept, torn, warnings, bad, offset, complete, ends_with_newline, events)


def record_whole_number(value: Any, name: str) -> int:
    """A record's field ``name`` that must be a whole number (an ``int``, never a ``bool``): a ValueError naming it
    where it is not (what a benchmark's ``parse_record`` raises for a line from elsewhere)."""
    number = whole_number(value)
    if number is None:
        raise ValueError(f"{name} is not a whole number")
    return number


def read_jsonl(
    path: str | os.PathLike,
    parse_record: Callable[[dict[str, Any]], R],
    identity: Sequence[str] = (),
    extendable: Sequence[str] = (),
) -> JsonlContents[R]:
    """Read a run file (see :func:`parse_jsonl`), line by line."""
    path = Path(path)
    with open(path, "rb") as f:
        return parse_jsonl(f, path, parse_record, identity, extendable=extendable)


def read_named_run(
    path: str | os.PathLike,
    benchmark: str,
    title: str,
    parse_record: Callable[[dict[str, Any]], R],
    identity: Sequence[str] = (),
    extendable: Sequence[str] = (),
) -> tuple[dict[str, Any], list[R], list[str]]:
    """(header, records, warnings) of a run file whose header names ``benchmark`` (a :class:`RunFormatError`
    otherwise, saying it is not a ``title`` run), read under the resume rules: the first copy of a key, this run's
    records only; a torn last line is a warning. The header fields of ``extendable`` carry their grown values."""
    contents = read_jsonl(path, parse_record, identity, extendable)
    if contents.header is None:
        raise RunFormatError(path, "no header line")
    if contents.header.get("benchmark") != benchmark:
        raise RunFormatError(path, f"not an {title} run (its header names no benchmark {benchmark!r})")
    warnings = list(contents.warnings)
    if contents.torn_tail:
        warnings.append("the last line is torn (a killed run); it is ignored")
    return contents.header, contents.records, warnings


def with_deviations(header: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """The header with the deviations its event lines record folded in, each under its endpoint's field."""
    out = dict(header)
    for e in events:
        if e.get("event") != "deviation" or not isinstance(e.get("code"), str):
            continue
        endpoint = e.get("endpoint")
        key = deviations_key(endpoint if isinstance(endpoint, str) else None)
        out[key] = list(dict.fromkeys([*(out.get(key) or []), e["code"]]))
    return out


def display_path(path: Path) -> str:
    """The path relative to the working directory when it is close by (no home folders in notebooks)."""
    relative = os.path.relpath(path)
    return relative if not relative.startswith(os.path.join("..", "..")) else str(path)


def differing_keys(old: dict[str, Any], new: dict[str, Any], keys: Sequence[str]) -> list[str]:
    """The settings (of ``keys``) in which two headers differ. A key the old header lacks is not compared: files
    written before that setting was recorded stay resumable."""
    return [k for k in keys if k in old and _canon(old.get(k)) != _canon(new.get(k))]


def settings_diff(old: dict[str, Any], new: dict[str, Any], keys: Sequence[str]) -> list[str]:
    """The settings (of ``keys``) in which two headers differ, one readable line each (:func:`describe_change`)."""
    return [f"{k}: {describe_change(old.get(k), new.get(k))}" for k in differing_keys(old, new, keys)]


def describe_change(old: Any, new: Any) -> str:
    """How a setting changed, in words that show the difference: for lists what was added and left out (two long
    lists cut to their first characters would look the same), for objects the fields that differ."""
    if isinstance(old, list) and isinstance(new, list):
        return _list_change(old, new)
    if isinstance(old, dict) and isinstance(new, dict):
        fields = [k for k in sorted(set(old) | set(new), key=str) if _canon(old.get(k)) != _canon(new.get(k))]
        return "; ".join(f"{_short(k)}: {describe_change(old.get(k), new.get(k))}" for k in fields[:4]) + (
            f"; and {len(fields) - 4} more fields" if len(fields) > 4 else ""
        )
    return f"file has {_short(old)}, now {_short(new)}"


def _list_change(old: list[Any], new: list[Any]) -> str:
    old_set, new_set = {_canon(x) for x in old}, {_canon(x) for x in new}
    added = [x for x in new if _canon(x) not in old_set]
    dropped = [x for x in old if _canon(x) not in new_set]
    text = f"file has {len(old)} ({id_ranges(old)}), now {len(new)} ({id_ranges(new)})"
    if added:
        text += f": {len(added)} added ({id_ranges(added)})"
    if dropped:
        text += f"{',' if added else ':'} {len(dropped)} left out ({id_ranges(dropped)})"
    if not added and not dropped:
        at = next((i for i, (a, b) in enumerate(zip(old, new)) if _canon(a) != _canon(b)), min(len(old), len(new)))
        text += f": the same items in another order or count, first differing at position {at + 1}"
    return text


def id_ranges(items: Sequence[Any], most: int = 8) -> str:
    """Items as a short list, consecutive whole numbers as a range: ``1-5, 7, 9-11``; at most ``most`` parts, then
    how many in all."""
    parts: list[list[Any]] = []
    for item in items:
        number = _as_int(item)
        last = parts[-1] if parts else None
        if number is not None and last and _as_int(last[-1]) == number - 1:
            last.append(item)
        else:
            parts.append([item])
    shown = [_item(p[0]) if len(p) == 1 else f"{_item(p[0])}-{_item(p[-1])}" for p in parts[:most]]
    return ", ".join(shown) + (f", … ({len(items)} in all)" if len(parts) > most else "")


def _as_int(item: Any) -> int | None:
    if isinstance(item, str) and item.isascii() and item.isdigit() and len(item) < 10:
        return int(item)
    return item if _whole(item) else None


def _item(item: Any) -> str:
    return item if isinstance(item, str) and _as_int(item) is not None else _short(item)


def grows(old: Any, new: Any) -> bool:
    """Whether ``new`` is ``old`` with items added (lists; every item of ``old`` still there)."""
    return isinstance(old, list) and isinstance(new, list) and {_canon(x) for x in old} <= {_canon(x) for x in new}


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _short(value: Any) -> str:
    try:
        text = json.dumps(value)
    except (ValueError, TypeError, RecursionError):
        text = "(unprintable)"
    return text if len(text) <= 60 else text[:57] + "…"


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte (a write to a filling disk can be partial), or raise the OSError."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def lock_holder(fd: int) -> int | None:
    """The pid holding a ``flock`` on the open file ``fd``, from /proc/locks (Linux); None if unknown."""
    inode = os.fstat(fd).st_ino
    try:
        with open("/proc/locks") as f:
            for line in f:
                parts = line.split()
                # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (a blocked waiter's line has "->")
                if len(parts) >= 6 and parts[1] == "FLOCK" and parts[5].rsplit(":", 1)[-1] == str(inode):
                    return int(parts[4])
    except (OSError, ValueError):
        pass
    return None


def _write_problem(path: Path, exc: OSError) -> str:
    return f"cannot write the run file {display_path(path)}: {exc.strerror or exc}"


class RunFile(Generic[R]):
    """A run's JSON Lines file, locked and opened for appending; every record is flushed and fsynced.

    Opening takes an exclusive lock (another process writing the same run gets a
    :class:`RunnerError` naming its pid), then resumes an existing file: the header's
    ``settings_keys`` must match, a torn last line is cut (and reported), the records already
    there (the first of each key, those of this run's ``identity``) are kept in :attr:`finished`,
    and ``repair`` moves unreadable middle lines aside. With ``extend``, settings among ``extendable`` (the header
    fields a run may grow in, such as its question ids) may have grown: the new values are recorded as an
    ``extended`` event before anything is asked, and the run goes on with the items added. Lists among ``joinable``
    (a judge panel) may grow without ``extend``: their new values go into the same event. Last it checks that the
    file takes a write (a full disk refuses it), so no request is sent for answers that could not be saved.

    Records are written by a thread of their own, so an fsync (0.4 ms on a fast disk, far more on
    a slow one) never stalls the event loop that keeps the requests going. Records that finish
    while one fsync runs share the next write and fsync (group commit), so a kill loses at most
    the requests in flight and the records queued behind that one fsync. When a write fails,
    :attr:`error` says why, ``on_error`` (if set) is called from the writer thread, and every
    later :meth:`append` raises.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        header: dict[str, Any],
        parse_record: Callable[[dict[str, Any]], R],
        settings_keys: Sequence[str],
        identity: Sequence[str] = (),
        repair: bool = False,
        extendable: Sequence[str] = (),
        extend: bool = False,
        joinable: Sequence[str] = (),
    ):
        self.path = Path(path)
        #: header lists that may grow without ``extend`` (a judge panel), recorded as an ``extended`` event too
        self._joinable = tuple(joinable)
        self.notes: list[str] = []
        self.finished: list[R] = []  # records already in the file when it was opened
        self.events: list[dict[str, Any]] = []  # event lines already in the file when it was opened
        self.error: str | None = None
        #: the file's size once this run wrote its header into a new file (None: the file was there before)
        self._header_end: int | None = None
        self.lost = 0  # records handed to the writer but not written (after a failed write)
        self.on_error: Callable[[str], None] | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "ab", buffering=0)  # noqa: SIM115 - open for the writer thread's whole life
        except OSError as exc:
            raise RunnerError(_write_problem(self.path, exc)) from None
        try:
            self._lock()
            self.header = self._prepare(header, parse_record, settings_keys, identity, repair, extendable, extend)
            self._probe()
            opened = os.fstat(self._file.fileno())
        except BaseException:
            self._file.close()
            raise
        #: the file written (device, inode) and its size: checked before each write, so a run file deleted,
        #: replaced or changed by another program mid-run stops the run instead of being written blind
        self._identity, self._size = (opened.st_dev, opened.st_ino), opened.st_size
        #: what the user can do about :attr:`error`
        self.error_hint = "free some space, then run the same command again to resume"
        self._queue: queue.SimpleQueue[bytes | threading.Event | None] = queue.SimpleQueue()
        self._writer = threading.Thread(target=self._write_loop, name="eqbench-run-file", daemon=True)
        self._writer.start()

    def _lock(self) -> None:
        if fcntl is None:  # pragma: no cover
            return
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = lock_holder(self._file.fileno())
            who = "this process" if pid == os.getpid() else f"another process (pid {pid})" if pid else "another process"
            raise RunnerError(
                f"{who} is writing this run ({display_path(self.path)}); let it finish or stop it, then run "
                "the same command again"
            ) from None
        except OSError as exc:  # a file system without locks (some network mounts)
            self.notes.append(
                f"cannot lock {display_path(self.path)} ({exc.strerror or exc}); do not run two copies of this run"
            )

    def _prepare(
        self,
        header: dict[str, Any],
        parse_record: Callable[[dict[str, Any]], R],
        settings_keys: Sequence[str],
        identity: Sequence[str],
        repair: bool,
        extendable: Sequence[str] = (),
        extend: bool = False,
    ) -> dict[str, Any]:
        fd = self._file.fileno()
        try:
            if os.fstat(fd).st_size == 0:
                self._write_header(header)
                return header
            with open(self.path, "rb") as f:
                contents = parse_jsonl(
                    f, self.path, parse_record, identity, tolerant=repair, extendable=(*extendable, *self._joinable)
                )
        except RunFormatError as exc:
            raise RunnerError(
                f"cannot resume: {exc}; run the same command with --repair to move unreadable lines aside "
                "and ask those questions again"
            ) from None
        except OSError as exc:
            raise RunnerError(_write_problem(self.path, exc)) from None
        if contents.header is None and (contents.records or contents.bad_lines):
            raise RunnerError(
                f"cannot resume {display_path(self.path)}: it has no readable header line, so which run it holds is "
                "unknown; move it aside"
            )
        extension: dict[str, Any] = {}
        joined: dict[str, Any] = {}
        if contents.header is not None:
            extension = self._extension(contents.header, header, settings_keys, extendable, extend)
            joined = self._joined(contents.header, header)
        try:
            if contents.bad_lines:
                self._move_aside(contents.bad_lines)
            if contents.torn_tail:
                self._cut_torn_tail(contents.size, contents.complete_size)
            elif not contents.ends_with_newline:
                _write_all(fd, b"\n")  # a complete last record without its newline: the next starts a line
            if contents.header is None:  # only blank lines so far
                self._write_header(header)
                return header
            if extension or joined:  # in the file before any item is asked: the records to come belong to the grown run
                event = {"type": "event", "event": EXTENDED, "header": extension | joined}
                _write_all(fd, (strict_line(event) + "\n").encode("utf-8"))
                os.fsync(fd)
        except OSError as exc:
            raise RunnerError(_write_problem(self.path, exc)) from None
        self.finished = contents.records
        self.events = contents.events
        where = display_path(self.path)
        self.notes += [f"{where}: {w}" for w in contents.warnings]
        if extension:
            grown = "; ".join(
                f"{k}: {describe_change(contents.header.get(k), header.get(k))}"
                for k in differing_keys(contents.header, header, settings_keys)
            )
            self.notes.append(f"extending {where} ({grown}); its {len(self.finished)} finished answers kept")
        if joined:
            how = "; ".join(f"{k}: {describe_change(contents.header.get(k), v)}" for k, v in joined.items())
            self.notes.append(f"{where}: grown ({how}); its {len(self.finished)} finished records kept")
        if extension or joined:
            return {**contents.header, **extension, **joined}
        if self.finished:
            self.notes.append(f"resuming {where}: {len(self.finished)} finished answers kept")
        return contents.header

    def _extension(
        self,
        old: dict[str, Any],
        new: dict[str, Any],
        settings_keys: Sequence[str],
        extendable: Sequence[str],
        extend: bool,
    ) -> dict[str, Any]:
        """The header fields an extension replaces ({} when the settings match); refuses a resume with other
        settings, saying how they differ and, when they only grew, that ``--extend`` keeps the answers."""
        where = display_path(self.path)
        changed = differing_keys(old, new, settings_keys)
        only_grown = bool(changed) and all(k in extendable and grows(old.get(k), new.get(k)) for k in changed)
        diff = "; ".join(settings_diff(old, new, settings_keys))
        if changed and not (extend and only_grown):
            if extend:
                raise RunnerError(
                    f"cannot extend {where}: an extension adds items and changes nothing else, and these settings "
                    f"differ ({diff}); give the options the run was made with"
                )
            remedy = (
                f"to add the new items to this run, keeping its answers, run the same command with --extend {where}; "
                "else "
                if only_grown
                else ""
            )
            raise RunnerError(
                f"{where} was started with different settings ({diff}); {remedy}use another --run-id or --out, or "
                "delete the file"
            )
        if not changed:
            return {}
        return {k: new.get(k) for k in extendable if _canon(old.get(k)) != _canon(new.get(k))}

    def _joined(self, old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
        """The joinable header lists that grew (a judge joined the panel); a list that lost an item is refused (the
        benchmark merges the old panel into the new before it opens the file, so this is a bug's guard)."""
        out = {}
        for k in self._joinable:
            if k not in new or _canon(old.get(k)) == _canon(new.get(k)):
                continue
            if old.get(k) is not None and not grows(old.get(k), new.get(k)):
                raise RunnerError(f"{display_path(self.path)}: its {k} would lose entries; nothing was asked")
            out[k] = new[k]
        return out

    def _write_header(self, header: dict[str, Any]) -> None:
        _write_all(self._file.fileno(), (header_line(header) + "\n").encode("utf-8"))
        os.fsync(self._file.fileno())
        self._header_end = os.fstat(self._file.fileno()).st_size

    def discard_if_unused(self) -> bool:
        """After :meth:`close`: remove the file if this run created it and wrote nothing after its header (a run
        stopped before its first answer), so that no header-only run is listed by ``runs`` or scored by ``score``.
        Whether it was removed."""
        try:
            info = self.path.stat()
        except OSError:
            return False
        if self._header_end is None or info.st_size != self._header_end or (info.st_dev, info.st_ino) != self._identity:
            return False
        with contextlib.suppress(OSError):
            self.path.unlink()
            return True
        return False

    def _cut_torn_tail(self, size: int, keep: int) -> None:
        os.ftruncate(self._file.fileno(), keep)
        os.fsync(self._file.fileno())
        self.notes.append(
            f"{display_path(self.path)}: the last line was torn (a killed run); {size - keep} bytes ignored and removed"
        )

    def _move_aside(self, bad: list[BadLine]) -> None:
        """Copy unreadable lines to ``<file>.unreadable``, then blank them in place (same length, so
        nothing else moves, and a kill midway leaves a file the next repair reads)."""
        aside = self.path.with_name(self.path.name + ".unreadable")
        with open(aside, "ab") as f:
            f.write(b"".join(line.data + b"\n" for line in bad))
            f.flush()
            os.fsync(f.fileno())
        fd = os.open(self.path, os.O_WRONLY)  # not O_APPEND: pwrite must land where it is told
        try:
            for line in bad:
                os.pwrite(fd, b" " * len(line.data), line.offset)
            os.fsync(fd)
        finally:
            os.close(fd)
        numbers = ", ".join(str(line.number) for line in bad[:8]) + (" …" if len(bad) > 8 else "")
        self.notes.append(
            f"{display_path(self.path)}: {len(bad)} unreadable line{'s' if len(bad) > 1 else ''} ({numbers}) "
            f"moved to {display_path(aside)}; their questions are asked again"
        )

    def _probe(self) -> None:
        """Check the file can grow before any request is sent: reserve room for a few records at its
        end (a full disk, a quota or a file size limit refuse it) and give it back. A kill in between
        leaves zeros after the last line, which every reader takes for a torn tail."""
        if not hasattr(os, "posix_fallocate"):  # pragma: no cover - macOS: the writer will tell
            return
        fd = self._file.fileno()
        size = os.fstat(fd).st_size
        try:
            os.posix_fallocate(fd, size, PROBE_BYTES)
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EROFS, errno.EIO):
                raise RunnerError(f"{_write_problem(self.path, exc)}; nothing was sent") from None
            return  # this file system cannot reserve space (EOPNOTSUPP and the like): the writer will tell
        finally:
            if os.fstat(fd).st_size != size:
                os.ftruncate(fd, size)

    def append(self, record: R) -> None:
        """Hand one finished record to the writer; raises if the writer has failed (disk full, …)."""
        if self.error:
            self.lost += 1
            raise RunnerError(self.error)
        self._queue.put((record_line(record) + "\n").encode("utf-8"))

    def append_event(self, event: dict[str, Any], wait: bool = False) -> None:
        """Append one event line (see :attr:`JsonlContents.events`), redacted like every record (a server's id
        may hold the key); with ``wait``, return only once it is on disk (fsynced), or raise
        :class:`RunnerError` if it could not be written."""
        if self.error:
            raise RunnerError(self.error)
        line = strict_line({"type": "event", **event})
        self._queue.put((line + "\n").encode("utf-8"))
        if wait:
            done = threading.Event()
            self._queue.put(done)
            while not done.wait(0.5) and self._writer.is_alive():
                pass
            if self.error or not done.is_set():
                raise RunnerError(self.error)

    async def durable(self) -> None:
        """Return once every line handed to the writer so far is on disk (fsynced), without blocking the event
        loop; :class:`RunnerError` if the writer has failed. A job whose next request depends on its last reply (a
        retry, a conversation's next turn) awaits this before sending it, so a kill never loses a reply it has paid
        for and then pays for it again: only a request still in flight is lost."""
        if self.error:
            raise RunnerError(self.error)
        loop = asyncio.get_running_loop()
        marker = _Durable(loop, loop.create_future())
        self._queue.put(marker)
        if not self._writer.is_alive():  # closed: nothing will be written, nor this marker seen
            marker.set()
        await marker.future
        if self.error:
            raise RunnerError(self.error)

    def _write_loop(self) -> None:
        fd = self._file.fileno()
        while True:
            batch = [self._queue.get()]
            while not self._queue.empty():
                batch.append(self._queue.get())
            waiting = [item for item in batch if isinstance(item, threading.Event)]
            lines = [line for line in batch if isinstance(line, bytes)]
            if lines and (changed := self._changed(fd)):
                self.error_hint = "restore the file or move it aside, then run the same command again"
                self._stop(changed, len(lines), waiting)
                return
            try:
                if lines:  # whole lines in one write: a kill mid-write leaves at most a torn last line
                    data = b"".join(lines)
                    _write_all(fd, data)
                    os.fsync(fd)
                    self._size += len(data)
            except OSError as exc:
                self._stop(_write_problem(self.path, exc), len(lines), waiting)
                return
            for done in waiting:
                done.set()
            if None in batch:
                return

    def _stop(self, error: str, lost: int, waiting: list[threading.Event]) -> None:
        """Writing ends: ``error`` is kept and said, ``lost`` lines were not written, waiters are released."""
        self.error = error
        self.lost += lost
        if self.on_error is not None:
            self.on_error(error)
        for done in waiting:
            done.set()

    def _changed(self, fd: int) -> str | None:
        """Why the file at :attr:`path` is no longer the one this run writes, or None."""
        where = display_path(self.path)
        try:
            st = os.stat(self.path)
            size = os.fstat(fd).st_size
        except FileNotFoundError:
            return f"the run file {where} was deleted while the run was writing it; stopped, nothing more sent"
        except OSError as exc:
            return _write_problem(self.path, exc)
        if (st.st_dev, st.st_ino) != self._identity:
            return (
                f"the run file {where} was replaced by another file while the run was writing it; stopped, "
                "nothing more sent"
            )
        if size != self._size:
            return (
                f"the run file {where} was changed by another program while the run was writing it ({size:,} bytes, "
                f"{self._size:,} expected); stopped, nothing more sent"
            )
        return None

    def close(self) -> None:
        """Write what is queued, stop the writer, close the file; never raises (then check :attr:`error`)."""
        self._queue.put(None)
        self._writer.join()
        while not self._queue.empty():  # queued after a failed write: never written
            item = self._queue.get()
            if isinstance(item, threading.Event):
                item.set()
            elif item is not None:
                self.lost += 1
        try:
            self._file.close()
        except OSError as exc:
            self.error = self.error or _write_problem(self.path, exc)


class _Durable(threading.Event):
    """A writer-queue marker (:meth:`RunFile.durable`): set by the writer thread once the lines before it are on disk
    (or writing has stopped), which resolves ``future`` on its event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, future: asyncio.Future[None]):
        super().__init__()
        self.loop, self.future = loop, future

    def set(self) -> None:
        super().set()
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody awaits the marker any more
            self.loop.call_soon_threadsafe(self._resolve)

    def _resolve(self) -> None:
        if not self.future.done():
            self.future.set_result(None)


def header_of(path: str | os.PathLike) -> dict[str, Any] | None:
    """A run file's header as written (a cheap look: its first line), None when the file is not this project's
    JSON Lines (an upstream results file, lm-eval samples, something unreadable)."""
    first = first_line(path)
    return first if first is not None and first.get("type") == "header" else None


def header_benchmark(path: str | os.PathLike) -> str | None:
    """The ``benchmark`` a run file's header names, None when it names none or is not this project's JSON Lines."""
    return file_benchmark(path, declared=True)


def find_run_files(
    paths: Sequence[str | os.PathLike], recognise: Callable[[Path], bool | None] | None = None
) -> list[Path]:
    """Expand folders into the run files they hold (``*.jsonl`` and ``*.json``), sorted; a file reached twice (a
    folder and one inside it, or named twice) is listed once. A file a folder holds that ``recognise`` says is of
    no run format at all (a ``config.json`` beside the runs, an empty file) is passed over with a warning on
    stderr, and one it says is a benchmark's own file that is no run (None: a judge's ratings kept beside the runs)
    is passed over unsaid; a file named on its own is always listed (its reader then says what is wrong with it)."""
    out: list[Path] = []
    seen: set[Path] = set()
    for p in map(Path, paths):
        found = [p]
        if p.is_dir():
            found = sorted(x for x in p.rglob("*") if x.suffix in (".jsonl", ".json") and x.is_file())
        for x in found:
            key = x.resolve()
            if key in seen:
                continue
            seen.add(key)
            verdict = recognise(x) if p.is_dir() and recognise is not None else True
            if not verdict:
                if verdict is not None:  # None: a file of a run format's own that is no run, where it belongs
                    print(f"warning: {clip(str(x), 500)}: passed over, not a run file of any format", file=sys.stderr)
                continue
            out.append(x)
    return out
