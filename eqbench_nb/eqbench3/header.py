"""EQ-Bench 3's part of a run header (:class:`~eqbench_nb.runner.header.RunHeader`): the judge, the scenarios, the
scoring version and the sampling, as the runner writes them. Each field is what the file says, typed, or None where
it does not say (or says it in another type). The judge's endpoint fields (``judge_model``, ``judge_endpoint``,
``judge_concurrency``, ``judge_deviations``) are a labelled endpoint's: read them with
:meth:`~eqbench_nb.runner.header.RunHeader.endpoint_of` (``"judge"``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..runner.header import LEAD_FIELDS, header_part

__all__ = ["Eq3Header", "PairwiseHeader"]


@header_part
@dataclass(frozen=True)
class Eq3Header:
    """EQ-Bench 3's own header fields (see the module docstring)."""

    #: The order of a new header's fields, as every version of the runner wrote them.
    LAYOUT: ClassVar[tuple[str, ...]] = (
        *LEAD_FIELDS,
        "judge_model",
        "judge_endpoint",
        "judges",
        "judge_local_model",
        "api_key_env",
        "judge_api_key_env",
        "rubric",
        "iterations",
        "scenarios",
        "scenario_turns",
        "scoring_version",
        "sampling",
        "seed",
        "concurrency",
        "judge_concurrency",
        "timeout_s",
        "eqbench_nb_version",
        "upstream",
        "files_sha256",
        "started_at",
    )
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    judge_model: str | None = None
    judge_endpoint: str | None = None
    judge_concurrency: int | None = None
    #: the panel of judges (:mod:`.panel`: each judge's id, model, endpoint, token limit and the NAME of its key
    #: variable), None in a file from before panels (its one judge is ``judge_model``)
    judges: tuple[Mapping[str, Any], ...] | None = None
    #: the judge was the bundled model (None: no judge, or a file from before the field)
    judge_local_model: bool | None = None
    #: the name of the variable holding the judge's key (never its value)
    judge_api_key_env: str | None = None
    #: False for a run with ``--no-rubric`` (no judge asked); files that do not say were judged
    rubric: bool = True
    scenarios: tuple[str, ...] | None = None
    #: scenario id -> its number of turns (the steps a play has)
    scenario_turns: Mapping[str, int] | None = None
    scoring_version: str | None = None
    sampling: Mapping[str, Any] | None = None
    files_sha256: Mapping[str, Any] | None = None

    @classmethod
    def from_fields(cls, h: Mapping[str, Any]) -> Eq3Header:
        scenarios, turns, sampling, shas = h.get("scenarios"), h.get("scenario_turns"), h.get("sampling"), None
        shas = h.get("files_sha256")
        concurrency = h.get("judge_concurrency")
        listed = h.get("judges")
        return cls(
            judge_model=str(h["judge_model"]) if h.get("judge_model") else None,
            judge_endpoint=endpoint if isinstance(endpoint := h.get("judge_endpoint"), str) else None,
            judge_concurrency=concurrency
            if isinstance(concurrency, int) and not isinstance(concurrency, bool)
            else None,
            judges=tuple(j for j in listed if isinstance(j, dict)) if isinstance(listed, list) else None,
            judge_local_model=None if h.get("judge_local_model") is None else bool(h.get("judge_local_model")),
            judge_api_key_env=str(h["judge_api_key_env"]) if h.get("judge_api_key_env") else None,
            rubric=bool(h.get("rubric", True)),
            scenarios=tuple(str(s) for s in scenarios if isinstance(s, str | int))
            if isinstance(scenarios, list)
            else None,
            scenario_turns=turns if isinstance(turns, dict) else None,
            scoring_version=str(h["scoring_version"]) if h.get("scoring_version") is not None else None,
            sampling=sampling if isinstance(sampling, dict) else None,
            files_sha256=shas if isinstance(shas, dict) else None,
        )


@header_part
@dataclass(frozen=True)
class PairwiseHeader:
    """The part of a judgements file's header (``"benchmark": "eqbench3-pairwise"``) beyond the common fields: the
    judge, its endpoint and the scoring version (written by :func:`~eqbench_nb.eqbench3.field.judgements_header`)."""

    LAYOUT: ClassVar[tuple[str, ...]] = (
        "benchmark",
        "judge",
        "run_id",
        "judge_endpoint",
        "scoring_version",
        "eqbench_nb_version",
        "upstream",
        "files_sha256",
        "started_at",
    )
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()
    #: a judgements file asks judges, each named in its records: no model under test, endpoint or pacing of its own
    WITHOUT: ClassVar[frozenset[str]] = frozenset(
        {"model", "endpoint", "local_model", "seed", "concurrency", "timeout_s"}
    )

    judge: str | None = None
    judge_endpoint: str | None = None
    scoring_version: str | None = None

    @classmethod
    def from_fields(cls, h: Mapping[str, Any]) -> PairwiseHeader:
        judge, endpoint, version = h.get("judge"), h.get("judge_endpoint"), h.get("scoring_version")
        return cls(
            judge=None if judge is None else str(judge),
            judge_endpoint=None if endpoint is None else str(endpoint),
            scoring_version=str(version) if version else None,
        )
