"""The judged benchmarks' part of a run header (:class:`~eqbench_nb.runner.header.RunHeader`): the judge, the items,
the sampling and the data files' digests, as the runner writes them. Each field is what the file says, typed, or None
where it does not say (or says it in another type). The judge's endpoint fields of a creative-writing run
(``judge_model``, ``judge_endpoint``, ``judge_concurrency``, ``judge_deviations``) are a labelled endpoint's
(:meth:`~eqbench_nb.runner.header.RunHeader.endpoint_of`, ``"judge"``); a Judgemark run's judge is its own endpoint,
named again as ``judge_model``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..runner.header import LEAD_FIELDS, header_part

__all__ = ["JudgedHeader"]


@header_part
@dataclass(frozen=True)
class JudgedHeader:
    """creative-writing's and Judgemark's own header fields (see the module docstring)."""

    LAYOUT: ClassVar[tuple[str, ...]] = (
        *LEAD_FIELDS,
        "iterations",
        "items",
        "seed",
        "concurrency",
        "timeout_s",
        "eqbench_nb_version",
        "upstream",
        "files_sha256",
        "started_at",
        "judge_model",
        "judge_endpoint",
        "judge_concurrency",
        "sampling",
    )
    #: a Judgemark run's judge is the run's endpoint: no second endpoint's fields
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"judge_endpoint", "judge_concurrency"})

    judge_model: str | None = None
    judge_endpoint: str | None = None
    judge_concurrency: int | None = None
    #: the items the run plans, by name; None when the header's ``items`` is not a list of names (a file that
    #: :func:`~eqbench_nb.judged.runs.read_judged_run` refuses)
    items: tuple[str, ...] | None = None
    sampling: Mapping[str, Any] | None = None
    files_sha256: Mapping[str, Any] | None = None

    @classmethod
    def from_fields(cls, h: Mapping[str, Any]) -> JudgedHeader:
        items, sampling, shas, concurrency = h.get("items"), h.get("sampling"), h.get("files_sha256"), None
        concurrency = h.get("judge_concurrency")
        return cls(
            judge_model=str(h["judge_model"]) if h.get("judge_model") else None,
            judge_endpoint=endpoint if isinstance(endpoint := h.get("judge_endpoint"), str) else None,
            judge_concurrency=concurrency
            if isinstance(concurrency, int) and not isinstance(concurrency, bool)
            else None,
            items=tuple(items) if isinstance(items, list) and all(isinstance(i, str) for i in items) else None,
            sampling=sampling if isinstance(sampling, dict) else None,
            files_sha256=shas if isinstance(shas, dict) else None,
        )
