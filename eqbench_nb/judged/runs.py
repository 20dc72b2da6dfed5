"""Run files of the two judged benchmarks, and the one rule that drives and reads them: :func:`next_step`.

Both are the runner's JSON Lines format (:mod:`eqbench_nb.runner.runfile`). The header names the benchmark
(``"creative-writing"`` or ``"judgemark"``), the model (for Judgemark: the judge, the run's only endpoint), the judge,
the prompts or pieces asked, the iterations, the sampling, the upstream commit and the sha256 of the data files.

**One record per request.** Every paid request is written (and fsynced) the moment its reply arrives, as a
:class:`RequestRecord`: the item (creative-writing: a prompt id; Judgemark: ``"<writer>|<prompt id>"``), the judging
round (1–4), the step (``piece``: the model under test writing; ``judge``: the judge scoring), the attempt within
that step of that round, and the request as :meth:`~eqbench_nb.runner.transport.Completion.attempt` stores it (the
text as received, temperature, tokens, latency, faults, error). A judge record also holds the scores parsed from its
reply (:func:`.creative_writing.read_scores`, the one reader of model numbers: finite, and in range or flagged;
``{}`` when nothing parsed), derived from the reply's text as stored (a reader that never raises: nothing in a
reply can keep it out of the file) and derived again on every read. A killed run therefore loses only the requests
in flight (their replies never arrived), and a resume asks nothing whose reply is on disk: what to ask next is
decided from the records alone, by :func:`next_step`, the same function that reads a finished run.

The decisions (``d28c60c``, ``lib/creative_writing_utils.py::process_writing_prompt``), as :func:`next_step` takes
them for one item in one iteration:

1. A round starts with the piece (creative-writing): up to 4 requests at temperatures 0.5, 0.6, 0.7, 0.8
   (:func:`.creative_writing.piece_temperatures`), until a reply of at least 300 characters (after upstream's
   ``strip``). If none, the item ends unscored (upstream returns None, whatever earlier rounds did).
   In Judgemark the piece is the test set's (a piece under 300 characters would end the item the same way; the
   test set has none).
2. Then the judge: up to 3 requests, until a reply that is not empty (upstream's ``process_criteria``).
3. A reply from which :func:`.creative_writing.parse_scores` reads at least one finite score ends the item, scored. Else
   (nothing parsed, or 3 empty replies) the round is repeated, up to 4 rounds in all; in creative-writing a repeated
   round writes a new piece first. After 4 rounds the item ends unscored (upstream's ``return {}``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..runner.header import RunHeader
from ..runner.runfile import RunFormatError, read_named_run, record_whole_number
from . import creative_writing as cw
from .header import JudgedHeader

CREATIVE_WRITING = "creative-writing"
JUDGEMARK = "judgemark"
TITLES = {CREATIVE_WRITING: "creative-writing", JUDGEMARK: "Judgemark"}
#: Fields a record shares with its header.
IDENTITY = ("model", "run_id")
PIECE, JUDGE = "piece", "judge"
STEPS = (PIECE, JUDGE)
#: Separates a Judgemark item's writer and prompt id (a writer name holds ``/`` but never ``|``).
ITEM_SEPARATOR = "|"


def judgemark_item(writer: str, prompt_id: str) -> str:
    return f"{writer}{ITEM_SEPARATOR}{prompt_id}"


def split_item(item: str) -> tuple[str | None, str]:
    """(writer or None, prompt id) of an item id."""
    writer, sep, prompt_id = item.rpartition(ITEM_SEPARATOR)
    return (writer, prompt_id) if sep else (None, item)


@dataclass
class RequestRecord:
    """One request of a judged run (module docstring). ``request`` is the attempt as the runner stores it."""

    model: str
    run_id: str
    iteration: int  # 1-based
    item: str
    round: int  # 1..MAX_JUDGING_ROUNDS
    step: str  # PIECE or JUDGE
    attempt: int  # 1-based, within the step of the round
    request: dict[str, Any]
    scores: dict[str, float] | None = None  # JUDGE: what parsed from the reply ({}: nothing)
    #: JUDGE: the numbers in the reply that are not finite, left out of ``scores`` and said (one phrase each)
    left_out: tuple[str, ...] = ()

    @classmethod
    def of(cls, model: str, run_id: str, iteration: int, item: str, round_: int, step: str, attempt: int,
           request: dict[str, Any]) -> RequestRecord:  # fmt: skip
        """A record of one request as stored (``request``: the attempt, the reply's text as received); a judge's
        scores are derived from that text by :func:`.creative_writing.read_scores`, the one reader, which never
        raises: the reply reaches the run file whatever it holds, and a resume never pays for it again."""
        read = cw.read_scores(_text_of(request)) if step == JUDGE else None
        return cls(model, run_id, iteration, item, round_, step, attempt, request,
                   read.scores if read else None, read.left_out if read else ())  # fmt: skip

    @property
    def key(self) -> tuple[int, str]:
        return (self.iteration, f"{self.item}:r{self.round}:{self.step}:{self.attempt}")

    @property
    def text(self) -> str | None:
        """The reply as upstream keeps it: the content stripped, None when missing or empty."""
        return _text_of(self.request)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "record",
            "model": self.model,
            "run_id": self.run_id,
            "iteration": self.iteration,
            "item": self.item,
            "round": self.round,
            "step": self.step,
            "attempt": self.attempt,
        }
        if self.step == JUDGE:
            out["scores"] = self.scores
            if self.left_out:
                out["left_out"] = list(self.left_out)
        out["request"] = self.request
        return out


def record_from_json(obj: dict[str, Any]) -> RequestRecord:
    """A record from its JSON object; ValueError (or TypeError, KeyError) when it is not one."""
    step = obj.get("step")
    if step not in STEPS:
        raise ValueError(f"record step {str(step)[:40]!r} is not piece or judge")
    request = obj.get("request")
    if not isinstance(request, dict):
        raise ValueError("request is not an object")
    text = request.get("text")
    if text is not None and not isinstance(text, str):
        raise ValueError("the request's text is not a string")
    round_, attempt = record_whole_number(obj.get("round"), "round"), record_whole_number(obj.get("attempt"), "attempt")
    limit = cw.MAX_PIECE_ATTEMPTS if step == PIECE else cw.MAX_JUDGE_REQUESTS
    if not 1 <= round_ <= cw.MAX_JUDGING_ROUNDS or not 1 <= attempt <= limit:
        raise ValueError(f"round {round_} or attempt {attempt} is out of range")
    item = obj.get("item")
    if not isinstance(item, str) or not item:
        raise ValueError("the record names no item")
    # a judge's scores are read again from the reply, never trusted from the file: a file edited to hold other
    # numbers reads as its text
    iteration = record_whole_number(obj.get("iteration"), "iteration")
    return RequestRecord.of(str(obj["model"]), str(obj["run_id"]), iteration, item, round_, str(step), attempt, request)


def _text_of(request: dict[str, Any]) -> str | None:
    """The reply as upstream reads it: the content stripped, None when missing or empty."""
    content = request.get("text")
    return (content.strip() or None) if isinstance(content, str) else None


# ---------------------------------------------------------------- the rule


@dataclass(frozen=True)
class Ask:
    """The next request of an item: in ``round``, ``step``'s attempt ``attempt`` at ``temperature``; for the judge,
    the ``piece`` it judges."""

    round: int
    step: str
    attempt: int
    temperature: float
    piece: str | None = None


@dataclass(frozen=True)
class Outcome:
    """How an item ended: ``scores`` (parsed, non-empty) or None with ``reason``; the piece judged (or the last one
    written), the judge's reply read, the round it ended in, and the records of each round."""

    scores: dict[str, float] | None
    reason: str
    piece: str | None
    reply: str | None
    rounds: int
    kept_piece: RequestRecord | None = None
    kept_judge: RequestRecord | None = None

    @property
    def scored(self) -> bool:
        return self.scores is not None


def _by_round(records: Iterable[RequestRecord]) -> dict[int, dict[str, list[RequestRecord]]]:
    out: dict[int, dict[str, list[RequestRecord]]] = {}
    for r in sorted(records, key=lambda r: (r.round, STEPS.index(r.step), r.attempt)):
        out.setdefault(r.round, {PIECE: [], JUDGE: []})[r.step].append(r)
    return out


def next_step(
    records: Sequence[RequestRecord], given_piece: str | None = None, *, writes_piece: bool = True
) -> Ask | Outcome:
    """What to ask next for one item in one iteration, or how it ended (module docstring), from its records alone.

    ``writes_piece`` False is Judgemark: no piece is written, ``given_piece`` (the test set's) is judged. Records
    past the point where upstream would have stopped (a file edited by hand) are not read.
    """
    rounds = _by_round(records)
    temperatures = cw.piece_temperatures()
    piece: str | None = given_piece
    last_piece: RequestRecord | None = None
    for round_ in range(1, cw.MAX_JUDGING_ROUNDS + 1):
        steps = rounds.get(round_, {PIECE: [], JUDGE: []})
        if writes_piece:
            piece, last_piece = None, None
            for k, r in enumerate(steps[PIECE]):
                if k >= cw.MAX_PIECE_ATTEMPTS or r.attempt != k + 1:
                    break
                last_piece = r
                if cw.piece_is_usable(r.text):
                    piece = r.text
                    break
            if piece is None:
                tried = len([r for r in steps[PIECE] if r.attempt <= cw.MAX_PIECE_ATTEMPTS])
                if tried < cw.MAX_PIECE_ATTEMPTS:
                    return Ask(round_, PIECE, tried + 1, temperatures[tried])
                return Outcome(None, f"round {round_}: no piece of {cw.MIN_PIECE_CHARS}+ characters in "
                               f"{cw.MAX_PIECE_ATTEMPTS} attempts", None, None, round_, last_piece)  # fmt: skip
        elif not cw.piece_is_usable(piece):
            return Outcome(None, f"the piece is under {cw.MIN_PIECE_CHARS} characters: never judged", piece, None, 0)
        reply: str | None = None
        kept: RequestRecord | None = None
        for k, r in enumerate(steps[JUDGE]):
            if k >= cw.MAX_JUDGE_REQUESTS or r.attempt != k + 1:
                break
            kept = r
            if r.text is not None:
                reply = r.text
                break
        if reply is None:
            asked = len(steps[JUDGE])
            if asked < cw.MAX_JUDGE_REQUESTS:
                return Ask(round_, JUDGE, asked + 1, cw.JUDGE_TEMPERATURE, piece)
        else:
            # the record read its reply once when it was made (RequestRecord.of); a resume asks this of every item
            scores = kept.scores if kept is not None and kept.scores is not None else cw.parse_scores(reply)
            if scores:
                return Outcome(scores, f"scored in round {round_}", piece, reply, round_, last_piece, kept)
        if round_ == cw.MAX_JUDGING_ROUNDS:
            why = "no reply" if reply is None else "no finite score" if kept and kept.left_out else "no score parsed"
            return Outcome(None, f"{cw.MAX_JUDGING_ROUNDS} rounds and the judge's last ({why}) gave no score",
                           piece, reply, round_, last_piece, kept)  # fmt: skip
    raise AssertionError("unreachable")  # pragma: no cover


# ---------------------------------------------------------------- reading a run


@dataclass
class JudgedRun:
    """A creative-writing or Judgemark run file as read: header, records (this run's, first copy of a key), the
    reader's warnings."""

    path: Path
    header: RunHeader[JudgedHeader]
    records: list[RequestRecord]
    warnings: list[str] = field(default_factory=list)

    @property
    def benchmark(self) -> str:
        return str(self.header.benchmark)

    @property
    def model(self) -> str:
        return self.header.model or ""

    @property
    def run_id(self) -> str:
        return self.header.run_id or ""

    @property
    def judge(self) -> str:
        return self.header.own.judge_model or ""

    @property
    def iterations(self) -> int:
        n = self.header.iterations
        return n if n is not None and n > 0 else 1

    def items_asked(self) -> list[str]:
        return list(self.header.own.items or ())

    def by_item(self) -> dict[tuple[int, str], list[RequestRecord]]:
        out: dict[tuple[int, str], list[RequestRecord]] = {}
        for r in self.records:
            out.setdefault((r.iteration, r.item), []).append(r)
        return out


#: The most iterations and items a header may plan: a reader lays out every (iteration, item) it plans, so a file
#: from elsewhere planning 10**9 is refused rather than filled in (upstream's runs: 1 to 10 iterations, 19 or 360
#: items); ``run --iterations`` takes no more either.
MAX_ITERATIONS = 1000
MAX_ITEMS = 10_000


def read_judged_run(path: str | os.PathLike, benchmark: str) -> JudgedRun:
    """A run file of ``benchmark`` (resume rules: the first copy of a key, this run's records only); a header whose
    plan is not a whole number of iterations and a list of items, within bounds, is a :class:`RunFormatError`."""
    header, records, warnings = read_named_run(path, benchmark, TITLES[benchmark], record_from_json, IDENTITY)
    read = RunHeader.read(header, JudgedHeader)
    n, items = read.iterations, read.own.items
    if n is None or not 1 <= n <= MAX_ITERATIONS:
        raise RunFormatError(path, f"the header's iterations is not a whole number from 1 to {MAX_ITERATIONS:,}")
    if items is None or len(items) > MAX_ITEMS:
        raise RunFormatError(path, f"the header's items is not a list of at most {MAX_ITEMS:,} names")
    return JudgedRun(Path(path), read, records, warnings)


def item_keys(run: JudgedRun) -> list[tuple[int, str]]:
    """Every (iteration, item) the header asks and the file holds, iteration by iteration in the order asked
    (upstream's order: its per-item lists, which the ANOVA cuts at the shortest, follow it)."""
    keys = {(i, item) for i in range(1, run.iterations + 1) for item in run.items_asked()} | set(run.by_item())
    place = {item: k for k, item in enumerate(run.items_asked())}
    return sorted(keys, key=lambda k: (k[0], place.get(k[1], len(place)), k[1]))


def outcomes(run: JudgedRun, pieces: Mapping[str, str] | None = None) -> dict[tuple[int, str], Ask | Outcome]:
    """:func:`next_step` of every :func:`item_keys` item (``pieces``: Judgemark's test-set piece per item; an item it
    lacks is never judged)."""
    held = run.by_item()
    writes = run.benchmark != JUDGEMARK
    given = pieces or {}
    return {k: next_step(held.get(k, []), given.get(k[1]), writes_piece=writes) for k in item_keys(run)}
