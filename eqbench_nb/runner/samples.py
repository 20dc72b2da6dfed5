"""One sample schema for every declared benchmark, as inspect_ai's ``EvalSample`` is one for every task: one record
type (:class:`Sample`), one reader (:func:`read_sample_run`), one run type (:class:`SampleRun`), one header part
(:class:`SampleHeader`) and one result (:class:`SampleRunResult`).

A sample is one item asked once: its item id, the iteration (from 1), the attempts as the transport stored them,
the parsed answer (any JSON value; None: nothing could be read), the scores as named values, and the benchmark's
own metadata (what the score groups by: a task, a language, a category; the target it compared with). The scores
are computed when the answer arrives and stored with it, so ``score``, ``runs`` and the viewer read a run without
the benchmark's data. The benchmarks written before this schema keep their own records (EQ-Bench's among them),
each read byte for byte by its own reader.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from .header import RunHeader, header_part, whole_number
from .runfile import display_path, read_named_run
from .session import RunResult
from .transport import closing_lines

__all__ = ["IDENTITY", "Sample", "SampleHeader", "SampleRun", "SampleRunResult", "read_sample_run", "sample_from_json"]

#: The fields a sample shares with its header to belong to the run.
IDENTITY = ("model", "run_id")


@dataclass
class Sample:
    """One item asked once (the module docstring)."""

    model: str
    run_id: str
    iteration: int  # from 1
    item: str
    attempts: list[dict[str, Any]]
    answer: Any
    scores: dict[str, float | None]
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple[int, str]:
        return (self.iteration, self.item)

    @property
    def parsed(self) -> bool:
        """An answer was read from the text (whatever it scored)."""
        return self.answer is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "record",
            "model": self.model,
            "run_id": self.run_id,
            "iteration": self.iteration,
            "item": self.item,
            "answer": self.answer,
            "scores": self.scores,
            "metadata": self.metadata,
            "attempts": self.attempts,
        }


def _score(name: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"score {name!r} is not a number")
    return float(value)


def sample_from_json(obj: dict[str, Any]) -> Sample:
    """A sample from its JSON object; a ValueError naming the field when it is not one."""
    iteration = whole_number(obj.get("iteration"))
    if iteration is None or iteration < 1:
        raise ValueError("iteration is not a whole number from 1")
    for name, kind in (("item", str), ("attempts", list), ("scores", dict), ("metadata", dict)):
        if not isinstance(obj.get(name), kind):
            raise ValueError(f"{name} is not a {kind.__name__}")
    if not all(isinstance(a, dict) for a in obj["attempts"]):
        raise ValueError("attempts holds something that is not an object")
    return Sample(
        model=str(obj["model"]),
        run_id=str(obj["run_id"]),
        iteration=iteration,
        item=obj["item"],
        attempts=obj["attempts"],
        answer=obj.get("answer"),
        scores={str(k): _score(str(k), v) for k, v in obj["scores"].items()},
        metadata=obj["metadata"],
    )


@header_part
@dataclass(frozen=True)
class SampleHeader:
    """A declared benchmark's own header fields: the items planned (ids, in order), how they are asked (the
    sampling: temperature, token limit) and the sha256 of the upstream files read. The common fields (model,
    endpoint, seed, upstream, when it started ...) are :class:`~eqbench_nb.runner.header.RunHeader`'s."""

    LAYOUT: ClassVar[tuple[str, ...]] = (
        "reasoning_effort", "batch", "api_key_env", "iterations", "items", "sampling", "files_sha256",
    )  # fmt: skip
    #: written only when set: the reasoning effort asked, the Batch API (its half price), the NAME of the key's
    #: variable (never its value: what every output of the run redacts)
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"reasoning_effort", "batch", "api_key_env"})

    items: tuple[str, ...] | None = None
    sampling: Mapping[str, Any] | None = None
    files_sha256: Mapping[str, Any] | None = None

    @classmethod
    def from_fields(cls, h: Mapping[str, Any]) -> SampleHeader:
        items, sampling, shas = h.get("items"), h.get("sampling"), h.get("files_sha256")
        return cls(
            items=tuple(str(i) for i in items) if isinstance(items, list) else None,
            sampling=sampling if isinstance(sampling, Mapping) else None,
            files_sha256=shas if isinstance(shas, Mapping) else None,
        )


@dataclass
class SampleRun:
    """A declared benchmark's run file as read: its header, its samples (the first copy of each key) and the
    reader's warnings."""

    path: Path
    header: RunHeader[SampleHeader]
    records: list[Sample]
    warnings: list[str]

    @property
    def model(self) -> str:
        return self.header.text("model", "")

    @property
    def run_id(self) -> str:
        return self.header.text("run_id", "")

    @property
    def planned(self) -> int | None:
        """Samples the header plans (items x iterations), None when it does not say."""
        items, iterations = self.header.own.items, self.header.iterations
        return None if items is None or iterations is None else len(items) * iterations


def read_sample_run(path: str | os.PathLike, benchmark: str, title: str) -> SampleRun:
    """A declared benchmark's run file (resume rules: the first copy of a key, this run's samples only); a file of
    another benchmark is refused in one line."""
    header, records, warnings = read_named_run(path, benchmark, title, sample_from_json, IDENTITY, ("items",))
    return SampleRun(Path(path), RunHeader.read(header, SampleHeader), records, warnings)


@dataclass
class SampleRunResult(RunResult[SampleRun, Any]):
    """What a declared benchmark's run produced: :class:`~eqbench_nb.runner.session.RunResult`'s fields, its
    ``summary`` a table of text (the benchmark's scores, one line each), printed by the command line."""

    UNIT: ClassVar[str] = "item"

    def table(self, timing: bool = True) -> str:
        lines = [
            f"run file   {display_path(self.path)}",
            f"model      {self.run.model}   benchmark {self.run.header.benchmark}   "
            f"items {len(self.run.header.own.items or ())}   iterations {self.run.header.iterations}",
            "",
            str(self.summary),
            "",
            self._records_line(),
        ]
        if timing:
            lines.append(self.stats.line())
        lines += closing_lines(self.wall_s, self.unfinished, self.last_fault, timing)
        return "\n".join(lines)

    def _records_line(self) -> str:
        n = len(self.run.records)
        # a benchmark that keeps each re-ask as a record of its own (a judge's unreadable reply, asked again) may
        # hold more records than the items it asked for: said as such, never "73 of 64"
        of = (
            f"of {self.expected}" if n <= self.expected else f"({self.expected} asked for, {n - self.expected} re-asks)"
        )
        return f"records    {n} {of} ({self.answered_now} answered now, {self.unfinished} left unfinished)"
