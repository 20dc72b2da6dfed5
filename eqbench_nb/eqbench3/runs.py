"""EQ-Bench 3 run files: the runner's JSON Lines format (:mod:`eqbench_nb.runner.runfile`), its own records.

A run file's header carries ``"benchmark": "eqbench3"``, the model, the judge, every setting, the scoring version,
the upstream commit and the sha256 of the files read. Each record is one **step** of one scenario in one
iteration, written (and fsynced) the moment it finishes, so a killed run resumes at the first unfinished step:

- ``turn-1``, ``turn-2``, ...: the model's answer to that turn (``text``, after upstream's reasoning rule), with
  every completion asked for it (``attempts``: text as received, settings, tokens, transport faults, errors);
- ``debrief``: the model's debrief of a role-play or drafting task;
- ``rubric``: a judge's rubric judgement of the finished task: the judge's ``scores``, or an ``error`` when no
  reply parsed, with the judge's raw text in every attempt either way. A run judged by a panel has one per judge,
  each naming its judge's id (:mod:`.panel`); the header lists the panel (``judges``).

A record's key is (iteration, ``"<scenario>:<step>"``), a rubric's with its judge's id after it. The prompts are not
stored (they are rebuilt from the pinned scenario file); the sections of a reply are re-read from its text
(:func:`.prompts.parse_sections`).

Pairwise judgements (``leaderboard --judge``) go to a file of their own (``"benchmark": "eqbench3-pairwise"``), one
record per judge, judgement and order, keyed (iteration, ``"<scenario>:<model>|<model>:<order>"`` and the judge's id),
the judge's raw text in every attempt and its object (``verdict``) or ``error``. Its header lists the panel.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..runner.header import RunHeader
from ..runner.runfile import RunFormatError, read_jsonl, read_named_run, record_whole_number
from . import prompts
from .header import Eq3Header, PairwiseHeader
from .pairwise import FORWARD_ORDER, REVERSED_ORDER, Transcript, recompute
from .rubric import finite_scores
from .scenarios import Scenario, kind_of
from .versions import ScoringVersion

BENCHMARK = "eqbench3"
PAIRWISE_BENCHMARK = "eqbench3-pairwise"
#: Fields a record must share with its header to belong to the run.
IDENTITY = ("model", "run_id")
#: A judgements file holds every judge's judgements (files from before panels hold one judge's).
PAIRWISE_IDENTITY = ("run_id",)
#: Header lists that grow as judges join the run (:mod:`.panel`).
JOINABLE = ("judges",)
DEBRIEF, RUBRIC = "debrief", "rubric"
ORDERS = ("forward", "reversed")


def turn_step(turn: int) -> str:
    """The step name of turn ``turn`` (0-based)."""
    return f"turn-{turn + 1}"


def _step_ok(step: str) -> bool:
    if step in (DEBRIEF, RUBRIC):
        return True
    head, _, number = step.partition("-")
    return head == "turn" and number.isdigit() and int(number) >= 1


def _field(obj: dict[str, Any], name: str) -> Any:
    """A field every record has; a ValueError naming it where the line lacks it (a file from elsewhere)."""
    if name not in obj:
        raise ValueError(f"the record has no {name!r}")
    return obj[name]


@dataclass
class StepRecord:
    model: str
    run_id: str
    iteration: int  # 1-based
    scenario_id: str
    step: str  # "turn-1", ..., "debrief", "rubric"
    attempts: list[dict[str, Any]]  # every completion asked for this step, in order
    text: str | None = None  # turn / debrief: the model's answer
    judge: str | None = None  # rubric: the judge model
    scores: dict[str, float] | None = None  # rubric: the judge's scores (None: error)
    error: str | None = None  # rubric: why there are no scores
    judge_json: str | None = None  # rubric: the scoring version whose JSON reading was used

    @property
    def key(self) -> tuple[int, str]:
        if self.step == RUBRIC:  # one per judge of the panel
            return (self.iteration, f"{self.scenario_id}:{self.step}:{self.judge}")
        return (self.iteration, f"{self.scenario_id}:{self.step}")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "record",
            "model": self.model,
            "run_id": self.run_id,
            "iteration": self.iteration,
            "scenario_id": self.scenario_id,
            "step": self.step,
        }
        if self.step == RUBRIC:
            out |= {"judge": self.judge, "scores": self.scores, "error": self.error, "judge_json": self.judge_json}
        else:
            out["text"] = self.text
        out["attempts"] = self.attempts
        return out


def step_from_json(obj: dict[str, Any]) -> StepRecord:
    """A step record from its JSON object; raises ValueError (or TypeError, KeyError) when it is not one."""
    step = obj.get("step")
    if not isinstance(step, str) or not _step_ok(step):
        raise ValueError(f"record step {str(step)[:40]!r} is not turn-N, debrief or rubric")
    attempts = obj.get("attempts")
    if not isinstance(attempts, list) or not all(isinstance(a, dict) for a in attempts):
        raise ValueError("attempts is not a list of objects")
    scores = obj.get("scores")
    if step == RUBRIC:
        if scores is not None and not (
            isinstance(scores, dict)
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in scores.values())
        ):
            raise ValueError("scores is not an object of numbers")
        if scores is None and not isinstance(obj.get("error"), str):
            raise ValueError("a rubric record has neither scores nor an error")
    elif not isinstance(obj.get("text"), str):
        raise ValueError("a turn or debrief record has no text")
    error = str(obj["error"]) if step == RUBRIC and obj.get("error") is not None else None
    if step == RUBRIC and scores is not None:  # a file written before scores were checked: NaN, Infinity, 1e309
        scores, left_out = finite_scores(scores)
        if left_out:
            error = "; ".join(filter(None, [error, left_out]))
        if not scores:
            scores, error = None, f"the judge's reply did not parse ({left_out})"
    return StepRecord(
        model=str(_field(obj, "model")),
        run_id=str(_field(obj, "run_id")),
        iteration=record_whole_number(_field(obj, "iteration"), "iteration"),
        scenario_id=str(_field(obj, "scenario_id")),
        step=step,
        attempts=attempts,
        text=obj.get("text") if step != RUBRIC else None,
        judge=str(obj["judge"]) if step == RUBRIC and obj.get("judge") is not None else None,
        scores=scores if step == RUBRIC else None,
        error=error,
        judge_json=str(obj["judge_json"]) if obj.get("judge_json") is not None else None,
    )


@dataclass
class Play:
    """One scenario played in one iteration, as far as the run file has it."""

    scenario_id: str
    iteration: int
    turns: list[str]  # the answers, turn by turn (contiguous from turn 1)
    n_prompts: int | None  # the scenario's turns (None when the scenario is unknown)
    debrief: str | None = None
    rubric: StepRecord | None = None  # the panel's first judge's (or the only judge's) judgement
    rubrics: dict[str, StepRecord] = field(default_factory=dict)  # every judge's, by judge id

    @property
    def kind(self) -> str:
        return kind_of(self.scenario_id)

    @property
    def played(self) -> bool:
        """Every turn answered, and the debrief where the kind has one."""
        if self.n_prompts is None or len(self.turns) < self.n_prompts:
            return False
        return self.kind == "analysis" or self.debrief is not None

    def transcript(self, scenario: Scenario, templates: prompts.Templates) -> Transcript:
        """What the judges see: the conversation as sent, each reply's sections, the debrief."""
        history = prompts.conversation(scenario, self.turns, templates)
        parsed = [prompts.parse_sections(t, self.scenario_id, self.kind) for t in self.turns]
        return Transcript(tuple(history), tuple(parsed), self.debrief)


def plays(
    records: Iterable[StepRecord], n_prompts: Mapping[str, int], first_judge: str | None = None
) -> dict[tuple[int, str], Play]:
    """The run's records gathered per (iteration, scenario); turns after a missing one are not counted; each
    play's ``rubric`` is ``first_judge``'s judgement (else the first in the file), ``rubrics`` every judge's."""
    steps: dict[tuple[int, str], dict[str, StepRecord]] = {}
    judged: dict[tuple[int, str], dict[str, StepRecord]] = {}
    for r in records:
        steps.setdefault((r.iteration, r.scenario_id), {}).setdefault(r.step, r)
        if r.step == RUBRIC:
            judged.setdefault((r.iteration, r.scenario_id), {})[str(r.judge)] = r
    out: dict[tuple[int, str], Play] = {}
    for (iteration, sid), done in sorted(steps.items(), key=lambda kv: (kv[0][0], _sid_order(kv[0][1]))):
        turns: list[str] = []
        while (step := done.get(turn_step(len(turns)))) is not None and step.text is not None:
            turns.append(step.text)
        debrief_record = done.get(DEBRIEF)
        rubrics = judged.get((iteration, sid), {})
        first = rubrics.get(first_judge) if first_judge is not None else None
        out[(iteration, sid)] = Play(
            sid, iteration, turns, n_prompts.get(sid), debrief_record.text if debrief_record else None,
            first or done.get(RUBRIC), rubrics,
        )  # fmt: skip
    return out


def _sid_order(sid: str) -> tuple[int, str]:
    return (int(sid), sid) if sid.isdigit() else (10**9, sid)


@dataclass
class Eq3Run:
    path: Path
    header: RunHeader[Eq3Header]
    records: list[StepRecord]
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.header = RunHeader.read(self.header, Eq3Header)

    @property
    def model(self) -> str:
        return self.header.text("model", "")

    @property
    def run_id(self) -> str:
        return self.header.text("run_id", "")

    @property
    def judge(self) -> str:
        """The judge (a panel's first; ``judges`` names them all)."""
        return self.header.own.judge_model or ""

    @property
    def panel(self) -> list[dict[str, Any]]:
        """The panel's entries (:func:`.panel.panel_of`), then any judge whose records the header does not list."""
        from .panel import panel_of

        entries = panel_of(self.header)
        listed = {e["id"] for e in entries}
        for r in self.records:
            if r.step == RUBRIC and r.judge is not None and r.judge not in listed:
                listed.add(r.judge)
                entries.append({"id": r.judge, "model": r.judge, "endpoint": None, "api_key_env": None})
        return entries

    @property
    def judges(self) -> list[str]:
        """The panel's judge ids, in the order they joined."""
        return [e["id"] for e in self.panel]

    def plays(self) -> dict[tuple[int, str], Play]:
        counts = self.header.own.scenario_turns
        known = {str(k): int(v) for k, v in counts.items()} if isinstance(counts, dict) else {}
        judges = self.judges
        return plays(self.records, known, judges[0] if judges else None)


def first_line(path: str | os.PathLike) -> dict[str, Any] | None:
    """The file's first line as a JSON object, or None (a cheap look: one line is read)."""
    try:
        with open(path, "rb") as f:
            obj = json.loads(f.readline(1 << 20))
    except (OSError, ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def is_eqbench3_file(path: str | os.PathLike) -> bool:
    header = first_line(path)
    return header is not None and header.get("type") == "header" and header.get("benchmark") == BENCHMARK


def read_eq3_run(path: str | os.PathLike) -> Eq3Run:
    """An EQ-Bench 3 run file (resume rules: the first copy of a key, this run's records only)."""
    header, records, warnings = read_named_run(path, BENCHMARK, "EQ-Bench 3", step_from_json, IDENTITY, JOINABLE)
    return Eq3Run(Path(path), RunHeader.read(header, Eq3Header), records, warnings)


# ---------------------------------------------------------------- pairwise judgements


@dataclass
class PairRecord:
    """One pairwise judgement: the judge compared ``test`` (as A0493 when ``order`` is forward) and ``other``."""

    judge: str
    run_id: str
    iteration: int
    scenario_id: str
    test: str
    other: str
    order: str  # "forward" (test is A0493) or "reversed"
    attempts: list[dict[str, Any]]
    verdict: dict[str, Any] | None = None  # the judge's object
    error: str | None = None  # why there is none
    judge_json: str | None = None

    @property
    def key(self) -> tuple[int, str]:
        return pair_key(self.judge, self.iteration, self.scenario_id, self.test, self.other, self.order)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "record",
            "judge": self.judge,
            "run_id": self.run_id,
            "iteration": self.iteration,
            "scenario_id": self.scenario_id,
            "test": self.test,
            "other": self.other,
            "order": self.order,
            "verdict": self.verdict,
            "error": self.error,
            "judge_json": self.judge_json,
            "attempts": self.attempts,
        }

    def comparison(self, version: ScoringVersion) -> dict[str, Any]:
        """The comparison as upstream stores it (``pair``, ``order``, ``judge_response`` and the derived fields), or
        its error record; what :mod:`.rating` solves."""
        pair = {"test_model": self.test, "neighbor_model": self.other, "iteration_index": str(self.iteration)}
        if self.verdict is None:
            return {"scenario_id": self.scenario_id, "pair": pair, "order": self.order, "error": self.error or "error"}
        stored = {
            "scenario_id": self.scenario_id,
            "pair": pair,
            "order": FORWARD_ORDER if self.order == "forward" else REVERSED_ORDER,
            "judge_response": self.verdict,
        }
        return {**stored, **(recompute(stored, version) or {})}


def pair_key(judge: str, iteration: int, scenario_id: str, test: str, other: str, order: str) -> tuple[int, str]:
    """A pairwise judgement's key: one per judge, pair, scenario, iteration and order."""
    return (int(iteration), f"{scenario_id}:{test}|{other}:{order}:{judge}")


def pair_from_json(obj: dict[str, Any]) -> PairRecord:
    if obj.get("order") not in ORDERS:
        raise ValueError(f"order {str(obj.get('order'))[:20]!r} is not forward or reversed")
    verdict = obj.get("verdict")
    if verdict is not None and not isinstance(verdict, dict):
        raise ValueError("verdict is not an object")
    if verdict is None and not isinstance(obj.get("error"), str):
        raise ValueError("a judgement has neither a verdict nor an error")
    attempts = obj.get("attempts")
    if not isinstance(attempts, list) or not all(isinstance(a, dict) for a in attempts):
        raise ValueError("attempts is not a list of objects")
    return PairRecord(
        judge=str(_field(obj, "judge")),
        run_id=str(_field(obj, "run_id")),
        iteration=record_whole_number(_field(obj, "iteration"), "iteration"),
        scenario_id=str(_field(obj, "scenario_id")),
        test=str(_field(obj, "test")),
        other=str(_field(obj, "other")),
        order=str(obj["order"]),
        attempts=attempts,
        verdict=verdict,
        error=str(obj["error"]) if obj.get("error") is not None else None,
        judge_json=str(obj["judge_json"]) if obj.get("judge_json") is not None else None,
    )


def is_pairwise_file(path: str | os.PathLike) -> bool:
    header = first_line(path)
    return header is not None and header.get("type") == "header" and header.get("benchmark") == PAIRWISE_BENCHMARK


@dataclass
class PairwiseFile:
    path: Path
    header: RunHeader[PairwiseHeader]
    records: list[PairRecord]
    warnings: list[str] = field(default_factory=list)

    @property
    def panel(self) -> list[dict[str, Any]]:
        """The panel's entries (a file from before panels: its one judge), then any judge the header does not list."""
        from .panel import panel_of

        entries = panel_of(self.header, "judge")
        listed = {e["id"] for e in entries}
        for r in self.records:
            if r.judge not in listed:
                listed.add(r.judge)
                entries.append({"id": r.judge, "model": r.judge, "endpoint": None, "api_key_env": None})
        return entries

    @property
    def judges(self) -> list[str]:
        return [e["id"] for e in self.panel]


def read_pairwise(path: str | os.PathLike) -> PairwiseFile:
    contents = read_jsonl(path, pair_from_json, PAIRWISE_IDENTITY, JOINABLE)
    if contents.header is None:
        raise RunFormatError(path, "no header line")
    if contents.header.get("benchmark") != PAIRWISE_BENCHMARK:
        raise RunFormatError(path, "not an EQ-Bench 3 judgements file (benchmark 'eqbench3-pairwise')")
    from .panel import panel_of

    listed = {e["id"] for e in panel_of(contents.header, "judge")}
    records = [r for r in contents.records if not listed or r.judge in listed]
    warnings = list(contents.warnings)
    if len(records) < len(contents.records):  # a judge joins the header (an event) before its first judgement
        n = len(contents.records) - len(records)
        warnings.append(f"{n} judgement{'s' if n != 1 else ''} by a judge the header does not list (another file's "
                        "lines?) left out")  # fmt: skip
    return PairwiseFile(Path(path), RunHeader.read(contents.header, PairwiseHeader), records, warnings)
