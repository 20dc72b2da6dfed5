"""EmotionBench run files: the runner's JSON Lines format (:mod:`eqbench_nb.runner.runfile`), its own records.

The header carries ``"benchmark": "emotionbench"`` (how ``eqbench-nb score`` tells the benchmarks apart), every
setting, the upstream commit and the sha256 of the files read. Each record is one question put to the model:
the situation (or the default, ``General``), the item order (``order``; the ids as asked in ``item_ids``), the
repeat, the raw attempt, and the ratings read from it mapped back to item ids.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..runner.header import RunHeader
from ..runner.runfile import read_named_run
from .header import EmotionHeader
from .items import DEFAULT_KEY
from .parsing import STATUSES

BENCHMARK = "emotionbench"
#: Fields a record must share with its header to belong to the run.
IDENTITY = ("model", "run_id")


@dataclass
class EmotionRecord:
    model: str
    run_id: str
    repeat: int  # 1-based
    situation: str  # "Anger-0_scenario-0", or "General" for the default
    order: int  # 0: the questionnaire's item order; k > 0: shuffle k
    item_ids: list[int]  # the items in the order asked
    attempt: dict[str, Any]  # text, temperature, latency, tokens, finish reason, transport faults, error
    ratings: dict[int, int]  # item id -> rating, complete answers only (else empty)
    status: str  # one of parsing.STATUSES
    refusal: bool = False
    raw_ratings: list[int | None] = field(default_factory=list)  # as read, in the order asked (also partial)

    @property
    def item(self) -> str:
        """The run file's item id: the situation and the item order."""
        return f"{self.situation}_order-{self.order}"

    @property
    def key(self) -> tuple[int, str]:
        return (self.repeat, self.item)

    @property
    def is_default(self) -> bool:
        return self.situation == DEFAULT_KEY

    @property
    def complete(self) -> bool:
        return self.status == "complete"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "record",
            "model": self.model,
            "run_id": self.run_id,
            "repeat": self.repeat,
            "situation": self.situation,
            "order": self.order,
            "item_ids": self.item_ids,
            "status": self.status,
            "refusal": self.refusal,
            "ratings": {str(k): v for k, v in self.ratings.items()},
            "raw_ratings": self.raw_ratings,
            "attempt": self.attempt,
        }


def record_from_json(obj: dict[str, Any]) -> EmotionRecord:
    """A record from its JSON object; raises ValueError (or TypeError) when it is not one."""
    status = obj.get("status")
    if status not in STATUSES:
        raise ValueError(f"record status {status!r} is not one of {', '.join(STATUSES)}")
    ratings = obj.get("ratings") or {}
    if not isinstance(ratings, dict):
        raise ValueError("ratings is not an object")
    attempt = obj.get("attempt")
    if not isinstance(attempt, dict):
        raise ValueError("attempt is not an object")
    return EmotionRecord(
        model=str(obj["model"]),
        run_id=str(obj["run_id"]),
        repeat=int(obj["repeat"]),
        situation=str(obj["situation"]),
        order=int(obj["order"]),
        item_ids=[int(i) for i in obj["item_ids"]],
        attempt=attempt,
        ratings={int(k): int(v) for k, v in ratings.items()},
        status=status,
        refusal=bool(obj.get("refusal", False)),
        raw_ratings=[None if v is None else int(v) for v in obj.get("raw_ratings") or []],
    )


@dataclass
class EmotionRun:
    path: Path
    header: RunHeader[EmotionHeader]
    records: list[EmotionRecord]
    warnings: list[str]

    def __post_init__(self) -> None:
        self.header = RunHeader.read(self.header, EmotionHeader)

    @property
    def model(self) -> str:
        return self.header.text("model", "")

    @property
    def run_id(self) -> str:
        return self.header.text("run_id", "")

    def settings(self) -> dict[str, Any]:
        """The design arguments of :func:`.task.run_emotionbench` that made this run (``repeats``,
        ``default_repeats``, ``per_factor``, ``emotions``), read back from its header (the situations asked give the
        last two), so that a notebook re-runs exactly the committed run's design and prints the command from the same
        values (:func:`command_line`). The endpoint's settings (its timeout: ``timeout_s``) are not design."""
        situations = list(self.header.own.situations or ())
        per_factor: dict[str, int] = {}
        for s in situations:
            factor = s.split("_")[0]
            per_factor[factor] = per_factor.get(factor, 0) + 1
        return {
            "repeats": 1 if self.header.own.repeats is None else self.header.own.repeats,
            "default_repeats": 1 if self.header.own.default_repeats is None else self.header.own.default_repeats,
            "per_factor": max(per_factor.values()) if per_factor else None,
            "emotions": list(dict.fromkeys(s.split("-")[0] for s in situations)),
        }

    @property
    def timeout_s(self) -> float | None:
        """The request timeout the run was made with (None when its header does not say)."""
        return self.header.timeout_s


def command_line(settings: dict[str, Any], timeout_s: float | None = None, out_dir: str = "data/runs") -> str:
    """The ``eqbench-nb run --benchmark emotionbench`` command for :meth:`EmotionRun.settings` (and a timeout)."""
    parts = ["eqbench-nb run --benchmark emotionbench", f"--repeats {settings['repeats']}"]
    parts.append(f"--default-repeats {settings['default_repeats']}")
    if settings.get("per_factor"):
        parts.append(f"--per-factor {settings['per_factor']}")
    if settings.get("emotions"):
        parts.append(f"--emotions {','.join(settings['emotions'])}")
    if timeout_s is not None:
        parts.append(f"--timeout {timeout_s:g}")
    return " ".join([*parts, f"--out {out_dir}"])


def planned_records(header: RunHeader[EmotionHeader]) -> int | None:
    """How many records the run's header plans: each situation ``repeats`` times and the default
    ``default_repeats`` times, in each of ``orders`` item orders (None when the header does not say)."""
    own = header.own
    orders = own.planned_orders
    if own.situations is None or own.repeats is None or own.default_repeats is None or orders is None:
        return None
    return (len(own.situations) * own.repeats + own.default_repeats) * orders


def read_emotion_run(path: str | os.PathLike) -> EmotionRun:
    """An EmotionBench run file as written by the runner (resume rules: first copy of a key, this run only)."""
    header, records, warnings = read_named_run(path, BENCHMARK, "EmotionBench", record_from_json, IDENTITY)
    return EmotionRun(Path(path), RunHeader.read(header, EmotionHeader), records, warnings)
