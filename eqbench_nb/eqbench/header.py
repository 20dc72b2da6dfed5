"""EQ-Bench's part of a run header (:class:`~eqbench_nb.runner.header.RunHeader`): the question set, the protocol
and what the run sent, as the runner writes them and as every earlier version (and the readers of upstream's
results and lm-eval's samples) recorded them. Each field is what the file says, typed, or None where it does not
say (or says it in another type); :class:`~eqbench_nb.eqbench.runs.EqBenchRun` applies EQ-Bench's defaults."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..runner.header import header_part, whole_number

__all__ = ["EqBenchHeader"]


def _text(value: Any) -> str | None:
    return None if value is None else value if isinstance(value, str) else str(value)


def _flag(value: Any) -> bool | None:
    return None if value is None else bool(value)


@header_part
@dataclass(frozen=True)
class EqBenchHeader:
    """EQ-Bench's own header fields (see the module docstring)."""

    #: The order of a new header's fields, as every version of the runner wrote them.
    LAYOUT: ClassVar[tuple[str, ...]] = (
        "reasoning_effort",
        "batch",
        "api_key_env",
        "model",
        "run_id",
        "endpoint",
        "local_model",
        "version",
        "revise",
        "protocol",
        "parser",
        "match",
        "split_revision",
        "n_questions",
        "question_ids",
        "iterations",
        "temperatures",
        "max_tokens",
        "attempts",
        "stop",
        "seed",
        "concurrency",
        "adaptive_concurrency",
        "timeout_s",
        "eqbench_nb_version",
        "upstream",
        "dataset_sha256",
        "started_at",
        "form",
        "protocol_max_tokens",
    )
    OPTIONAL: ClassVar[frozenset[str]] = frozenset(
        {"reasoning_effort", "batch", "api_key_env", "form", "protocol_max_tokens"}
    )

    version: str | None = None
    revise: bool | None = None
    protocol: str | None = None
    parser: str | None = None
    match: str | None = None
    split_revision: bool | None = None
    n_questions: int | None = None
    question_ids: tuple[str, ...] | None = None
    temperatures: tuple[float, ...] | None = None
    max_tokens: int | None = None
    attempts: int | None = None
    stop: tuple[str, ...] | None = None
    adaptive_concurrency: bool | None = None
    dataset_sha256: str | None = None
    #: the short form asked (its name, questions and fit: :meth:`~eqbench_nb.eqbench.short_form.FormSpec.header`)
    form: Any = None
    #: the protocol's token limit, where ``--max-tokens`` replaced it
    protocol_max_tokens: int | None = None
    #: read only: the format of a file read from elsewhere, upstream's score, a torn last line
    source: str | None = None
    published_score: Any = None
    #: an upstream results file's one temperature (this project's files give ``temperatures``)
    temperature: float | None = None
    torn_tail: bool | None = None

    @classmethod
    def from_fields(cls, h: Mapping[str, Any]) -> EqBenchHeader:
        ids, temps, stop, form = h.get("question_ids"), h.get("temperatures"), h.get("stop"), h.get("form")
        return cls(
            version=_text(h.get("version")),
            revise=_flag(h.get("revise")),
            protocol=_text(h.get("protocol")),
            parser=_text(h.get("parser")) if h.get("parser") else None,
            match=_text(h.get("match")) if h.get("match") else None,
            split_revision=_flag(h.get("split_revision")),
            n_questions=whole_number(h.get("n_questions")),
            question_ids=tuple(str(q) for q in ids) if isinstance(ids, list) else None,
            temperatures=tuple(temps) if isinstance(temps, list) else None,
            max_tokens=whole_number(h.get("max_tokens")),
            attempts=whole_number(h.get("attempts")),
            stop=tuple(stop) if isinstance(stop, list) else None,
            adaptive_concurrency=_flag(h.get("adaptive_concurrency")),
            dataset_sha256=_text(h.get("dataset_sha256")),
            form=form or None,
            protocol_max_tokens=whole_number(h.get("protocol_max_tokens")),
            source=_text(h.get("source")),
            published_score=h.get("published_score"),
            temperature=_float(h.get("temperature")),
            torn_tail=_flag(h.get("torn_tail")),
        )


def _float(value: Any) -> float | None:
    """A number as a float (a bool counts as 0 or 1, as it always did here); None for anything else, or an integer
    too large for a float."""
    if not isinstance(value, int | float):
        return None
    try:
        return float(value)
    except OverflowError:
        return None
