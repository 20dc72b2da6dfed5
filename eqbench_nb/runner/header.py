"""The run file's header, typed: written and read here only.

A run file's first line is one flat JSON object (``{"type": "header", ...}``): the fields every benchmark's run
records (the model, the run id, the endpoint, the seed, the concurrency, when it started ...) and the benchmark's own
(a question set and protocol, the situations asked, a judge and its scenarios). The format is the one every earlier
version wrote; what changes is how code sees it:

- :class:`RunHeader` reads the common fields as typed attributes (:attr:`RunHeader.model`, :attr:`~RunHeader.seed`,
  ...) and holds the benchmark's own fields as a typed object beside them (:attr:`RunHeader.own`), read once by the
  benchmark's :class:`HeaderPart` class from the same object. A field a file lacks reads as None (or the
  benchmark's documented default), so files of every earlier version, and upstream's files, read as before.
- :meth:`RunHeader.new` writes a new run's header from :class:`CommonFields` and the benchmark's part, in the order
  the part declares (:attr:`HeaderPart.LAYOUT`, the order earlier versions wrote, so new files are byte for byte
  what they were); optional fields (:attr:`HeaderPart.OPTIONAL`) are left out when unset.
- It is also a read-only mapping of the fields as they are in the file (``header["model"]``, ``dict(header)``),
  the form the run file (:mod:`eqbench_nb.runner.runfile`) compares and writes, and that older callers read.

A second endpoint's fields (EQ-Bench 3's judge: ``judge_model``, ``judge_endpoint``, ``judge_concurrency``,
``judge_deviations``) are read by label (:meth:`RunHeader.endpoint_of`), so N labelled endpoints (a judge panel)
read the same way.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from .._version import __version__
from .looks import per_file_version

__all__ = ["CommonFields", "EndpointFields", "HeaderPart", "NoPart", "RunHeader", "deviations_key", "header_part"]


class HeaderPart(Protocol):
    """A benchmark's own part of its run header: a frozen dataclass whose fields are header fields.

    ``LAYOUT`` is the order of the whole header as the benchmark writes it (common and own field names together;
    a part that lists only its own fields gets the common ones around them from :func:`header_part`);
    ``OPTIONAL`` the fields left out of a new header while unset (None or False); ``from_fields`` reads the part from
    a header as found in a file, defensively (a field of another type reads as the benchmark's default)."""

    LAYOUT: ClassVar[tuple[str, ...]]
    OPTIONAL: ClassVar[frozenset[str]]

    @classmethod
    def from_fields(cls, fields: Mapping[str, Any]) -> Any: ...


@dataclass(frozen=True)
class NoPart:
    """The part of a header read without its benchmark's (a header is looked at before its benchmark is known)."""

    LAYOUT: ClassVar[tuple[str, ...]] = ()
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def from_fields(cls, fields: Mapping[str, Any]) -> NoPart:
        return cls()


P = TypeVar("P")


def now_iso() -> str:
    """When a run starts, as its header records it (UTC, whole seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class CommonFields:
    """What every benchmark's run records in its header (a new run's, for :meth:`RunHeader.new`).

    ``benchmark`` is None for EQ-Bench, whose files have never named it; ``iterations``, ``reasoning_effort`` and
    ``batch`` are written only where the benchmark's layout names them."""

    model: str
    run_id: str
    endpoint: str
    local_model: bool
    concurrency: int
    timeout_s: float
    seed: int | None = None
    benchmark: str | None = None
    iterations: int | None = None
    reasoning_effort: str | None = None
    batch: bool = False
    #: the name of the variable holding the key (never its value): what every output of the run redacts
    api_key_env: str | None = None
    upstream: Any = None
    eqbench_nb_version: str = __version__
    started_at: str = field(default_factory=now_iso)


@dataclass(frozen=True)
class EndpointFields:
    """A labelled endpoint's fields in a header (``judge_model``, ``judge_endpoint``, ``judge_concurrency``,
    ``judge_deviations`` for the label ``judge``; the unlabelled first endpoint's are ``model`` ...)."""

    label: str | None
    model: str | None
    endpoint: str | None
    concurrency: int | None
    deviations: tuple[str, ...]


def deviations_key(label: str | None = None) -> str:
    """The header field of the deviations learnt from the run's endpoint (None) or from a second one it names
    (``"judge"``: ``judge_deviations``)."""
    return "deviations" if label is None else f"{label}_deviations"


def _text(value: Any) -> str | None:
    return None if value is None else value if isinstance(value, str) else str(value)


def whole_number(value: Any) -> int | None:
    """``value`` when it is a whole number (an ``int``, never a ``bool``), else None: how every header part reads a
    count it does not trust."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


#: The fields every benchmark's header that names its benchmark begins with, in the order written since the first
#: version (a part's ``LAYOUT`` starts with them).
LEAD_FIELDS: tuple[str, ...] = ("benchmark", "model", "run_id", "endpoint", "local_model")
#: The fields every benchmark's header ends its common part with, in the order written since the first version.
TAIL_FIELDS: tuple[str, ...] = ("seed", "concurrency", "timeout_s", "eqbench_nb_version", "upstream", "started_at")
#: The common fields every new header holds (:class:`CommonFields` sets each): a part places each once or leaves
#: them all to :class:`RunHeader`; the others (``benchmark``, ``iterations``, ``reasoning_effort``, ``batch``,
#: ``api_key_env``) are written only where a layout names them.
SET_COMMON_FIELDS: tuple[str, ...] = (*LEAD_FIELDS[1:], *TAIL_FIELDS)

T = TypeVar("T")


def header_part(cls: type[T]) -> type[T]:
    """Check a benchmark's header part when its module is imported, and complete it.

    A part that lists only its own fields (no field of :data:`SET_COMMON_FIELDS` in its ``LAYOUT``) gets the
    common ones from here: its ``LAYOUT`` becomes :data:`LEAD_FIELDS`, its own, then :data:`TAIL_FIELDS`. A part
    that keeps the order earlier versions wrote (common and own fields together, so new files are byte for byte
    what they were) must place every field of :data:`SET_COMMON_FIELDS` once, or name it in ``WITHOUT`` (a file
    that never holds it); a field it misses or lists twice is a ValueError naming the part and the field, at import,
    not a field silently dropped from every new run file."""
    layout: tuple[str, ...] = cls.LAYOUT  # type: ignore[attr-defined]
    name = cls.__name__
    twice = sorted({k for k in layout if layout.count(k) > 1})
    if twice:
        raise ValueError(f"header part {name} lists {', '.join(twice)} more than once in its LAYOUT")
    if not any(k in SET_COMMON_FIELDS for k in layout):
        lead = [k for k in LEAD_FIELDS if k not in layout]
        cls.LAYOUT = (*lead, *layout, *TAIL_FIELDS)  # type: ignore[attr-defined]
        return cls
    without: frozenset[str] = getattr(cls, "WITHOUT", frozenset())
    missing = [k for k in SET_COMMON_FIELDS if k not in layout and k not in without]
    if missing:
        raise ValueError(
            f"header part {name} places some common fields but not {', '.join(missing)}: list only its own fields "
            "(the header adds the common ones) or place every common field once"
        )
    return cls


class RunHeader(Mapping[str, Any], Generic[P]):
    """A run file's header (module docstring): the common fields typed, the benchmark's in :attr:`own`, and the
    fields as in the file through the read-only mapping."""

    __slots__ = ("_fields", "own")

    def __init__(self, fields: Mapping[str, Any], own: P):
        self._fields = {k: v for k, v in fields.items() if k != "type"}
        self.own = own

    # ------------------------------------------------------------ reading and writing, the one place

    @classmethod
    def read(cls, fields: Mapping[str, Any] | RunHeader[Any], part: Any = NoPart) -> RunHeader[Any]:
        """The header of a file as found (``part``: the benchmark's :class:`HeaderPart` class). A header already
        read with the same part is returned as it is."""
        if isinstance(fields, RunHeader) and isinstance(fields.own, part):
            return fields
        return cls(fields, part.from_fields(fields))

    @classmethod
    def new(cls, common: CommonFields, own: Any) -> RunHeader[Any]:
        """A new run's header: the common fields and the benchmark's part, in the part's ``LAYOUT`` (its
        ``OPTIONAL`` fields, and the common ones its layout leaves out, only when set)."""
        values = {f.name: getattr(common, f.name) for f in dataclasses.fields(common)}
        values |= {f.name: getattr(own, f.name) for f in dataclasses.fields(own)}
        unset = {k for k in own.OPTIONAL if values.get(k) is None or values.get(k) is False}
        # a part's sequences are tuples (frozen); the file, and a resume's comparison with it, has lists
        fields = {
            k: list(values[k]) if isinstance(values[k], tuple) else values[k] for k in own.LAYOUT if k not in unset
        }
        return cls(fields, own)

    def to_json(self) -> dict[str, Any]:
        """The header line's object, less its ``"type"``."""
        return dict(self._fields)

    def replace(self, **changes: Any) -> RunHeader[P]:
        """A copy with ``changes`` to its fields (the benchmark's part read again from them)."""
        fields = {**self._fields, **changes}
        part = type(self.own)
        return RunHeader(fields, part.from_fields(fields))  # type: ignore[attr-defined]

    def without(self, *names: str) -> RunHeader[P]:
        """A copy without the fields ``names``."""
        fields = {k: v for k, v in self._fields.items() if k not in names}
        return RunHeader(fields, type(self.own).from_fields(fields))  # type: ignore[attr-defined]

    # ------------------------------------------------------------ the mapping: the fields as in the file

    def __getitem__(self, key: str) -> Any:
        return self._fields[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __repr__(self) -> str:
        return f"RunHeader({self._fields!r}, own={self.own!r})"

    # ------------------------------------------------------------ the common fields, typed

    def text(self, name: str, default: str) -> str:
        """A field as text: ``default`` when the file lacks it, else its value as a string (``str`` of it)."""
        return str(self._fields[name]) if name in self._fields else default

    @property
    def benchmark(self) -> str | None:
        """The benchmark the header names (None for EQ-Bench's files and upstream's)."""
        value = self._fields.get("benchmark")
        return value if isinstance(value, str) else None

    @property
    def model(self) -> str | None:
        return _text(self._fields.get("model"))

    @property
    def run_id(self) -> str | None:
        return _text(self._fields.get("run_id"))

    @property
    def endpoint(self) -> str | None:
        """The endpoint's public form (no credentials), None when the file does not say (or not as text)."""
        value = self._fields.get("endpoint")
        return value if isinstance(value, str) else None

    @property
    def local_model(self) -> bool:
        """The run asked the bundled model."""
        return bool(self._fields.get("local_model"))

    @property
    def iterations(self) -> int | None:
        """The iterations the run planned, a whole number, or None (absent, or not a whole number)."""
        return whole_number(self._fields.get("iterations"))

    @property
    def seed(self) -> int | None:
        return whole_number(self._fields.get("seed"))

    @property
    def concurrency(self) -> int | None:
        return whole_number(self._fields.get("concurrency"))

    @property
    def timeout_s(self) -> float | None:
        value = self._fields.get("timeout_s")
        return float(value) if value is not None else None

    @property
    def batch(self) -> bool:
        """The run went through the Batch API (files before attempts said so are priced by this): ``true`` only,
        as an attempt's ``"batch"`` is read."""
        return self._fields.get("batch") is True

    @property
    def reasoning_effort(self) -> str | None:
        value = self._fields.get("reasoning_effort")
        return value if isinstance(value, str) and value else None

    @property
    def upstream(self) -> Any:
        """The upstream pipeline the run follows, as recorded (a dict of repository and commit, or text)."""
        return self._fields.get("upstream")

    @property
    def source(self) -> str | None:
        """The format a file read from elsewhere came in (upstream results, lm-eval samples); None for ours."""
        return _text(self._fields.get("source"))

    @property
    def eqbench_nb_version(self) -> Any:
        """The version of this project that wrote the file, as recorded."""
        return self._fields.get("eqbench_nb_version")

    @property
    def started_at(self) -> Any:
        return self._fields.get("started_at")

    @property
    def finished_at(self) -> Any:
        return self._fields.get("finished_at")

    @property
    def inference_engine(self) -> str | None:
        value = self._fields.get("inference_engine")
        return _text(value) if value else None

    @property
    def quantisation(self) -> Any:
        return self._fields.get("quantisation")

    @property
    def api_key_env(self) -> str | None:
        value = self._fields.get("api_key_env")
        return str(value) if value else None

    def deviations(self, label: str | None = None) -> tuple[str, ...]:
        """The deviations learnt from the endpoint ``label`` names (None: the run's own), as recorded."""
        found = self._fields.get(deviations_key(label))
        return tuple(str(d) for d in found) if isinstance(found, list | tuple) else ()

    def endpoint_of(self, label: str | None = None) -> EndpointFields:
        """The fields of the endpoint ``label`` names (None: the model under test)."""
        prefix = f"{label}_" if label else ""
        return EndpointFields(
            label,
            _text(self._fields.get(f"{prefix}model")) if label else self.model,
            _text(self._fields.get(f"{prefix}endpoint")),
            whole_number(self._fields.get(f"{prefix}concurrency")),
            self.deviations(label),
        )


#: What :func:`requests_went_to` says of the bundled model (never the temporary loopback address it was served on).
BUNDLED_MODEL = "the bundled model (llama.cpp on 127.0.0.1)"


def requests_went_to(header: Mapping[str, Any], role: str = "") -> Any:
    """Where a run's requests went (``role`` ``"judge_"``: its judge's), as its header says (no key is ever in it):
    :data:`BUNDLED_MODEL` for the bundled model, else the recorded endpoint (None when the header names none). A
    header of any version, or a plain mapping of its fields."""
    local = header.get(f"{role}local_model")
    if local is None and role:  # a file from before the judge's own flag: a bundled judge shared the model's server
        local = bool(header.get("local_model")) and header.get(f"{role}endpoint") == header.get("endpoint")
    return BUNDLED_MODEL if local else header.get(f"{role}endpoint")


def first_line(path: str | os.PathLike) -> dict[str, Any] | None:
    """The file's first line as a JSON object, or None (a cheap look: one line is read)."""
    try:
        with open(path, "rb") as f:
            obj = json.loads(f.readline(1 << 20).removeprefix(b"\xef\xbb\xbf"))  # a byte-order mark is no content
    except (OSError, ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def file_benchmark(path: str | os.PathLike, declared: bool = False) -> str | None:
    """The benchmark a run file's header names (:attr:`RunHeader.benchmark`), from its first line alone (a cheap
    look): None when that line is no JSON object or names none; ``declared``: only when the line says it is a header
    (``"type": "header"``, as every file of this project's does)."""
    says_header, benchmark = _first_line_benchmark(path)
    return benchmark if says_header or not declared else None


@per_file_version
def _first_line_benchmark(path: str | os.PathLike) -> tuple[bool, str | None]:
    """(whether the first line says it is a header, the benchmark it names): one decode of the line per file version,
    however many readers ask."""
    fields = first_line(path)
    if fields is None:
        return False, None
    return fields.get("type") == "header", RunHeader.read(fields).benchmark
