"""EQ-Bench's item records: one row per question x iteration of a run, what the run viewer draws.

Each row holds what the model was asked (the prompt the run's protocol sends, rebuilt from the question file),
every attempt with the protocol's decision about it and why (:func:`~.protocols.attempt_decision`, the test the run
applied), the attempt kept, the answer beside the reference with the error per emotion, and the question under
each convention (:mod:`.conventions`: parsed or not and why, its score, its share of the run's score, the ratings
that convention read), with tokens, latency, cost, transport faults and retries and the batches it went out in.
Nothing here decides anything of its own: the rules are the benchmark's, called as the run called them, so the
rows explain the run's own score (an iteration's mean of a convention's column is that iteration's score). A
question asked but without a record is a row too, saying why. The common columns and the attempts' reading are
:mod:`eqbench_nb.viewer.contract`'.

It reads every format :func:`~.runs.read_run` reads: this project's run files, the published upstream results files
(which store the answer kept, not the attempts or the prompt) and lm-evaluation-harness samples.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..runner.cost import Prices
from ..viewer.contract import AttemptCosts, FrameSchema, attempt_view, finite_number, text_or_none, words
from .conventions import CONVENTIONS, convention_answer, convention_reading, convention_score, revised_pass_used
from .parsing import parse_answer
from .prompts import build_messages
from .protocols import Protocol, attempt_decision
from .questions import Question, run_questions
from .runs import EqBenchRun, RunRecord
from .scoring import keyed_answer, unparseable_reason

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EQBENCH_COLUMNS", "EQBENCH_TABLE", "eqbench_samples"]


def eqbench_samples(run: EqBenchRun, prices: Prices | None = None) -> pd.DataFrame:
    """One row per record (question x iteration) of an EQ-Bench run; ``attrs`` says how to lay it out.

    Beyond :data:`COMMON_COLUMNS`: ``question_id``, ``iteration``, ``pass_used`` (the pass the official rule
    scores in this iteration), ``emotions`` (per key emotion: reference, answer, answer - reference),
    ``conventions`` (per convention: parsed, the question's score, its contribution, why not parsed, the
    ratings read), and ``official``, ``lm_eval``, ``evalscope``: the item's contribution on each convention's
    run scale (an iteration's score is the mean of the column over its items, left-out items excluded for
    official, where an unparseable answer is NaN).
    """
    prices = prices or Prices()
    questions = run_questions(run)
    used_revised = revised_pass_used(run)
    reading = Protocol(run.header.own.protocol or "?", (), 0, run.parser, run.split_revision, run.match)
    ours = run.header.own.source is None  # this project's runner wrote it: its attempts carry the decisions
    prompts: dict[str, list[dict[str, str]]] = {}
    batches = _batch_events(run.events)
    rows = []
    for record in _every_item(run, ours):
        question = questions[record.question_id]
        if question.id not in prompts:
            prompts[question.id] = build_messages(question, run.revise)
        row = _eqbench_row(record, question, run, reading, ours, used_revised.get(record.iteration, False), prices)
        row["messages"] = prompts[question.id]
        row["events"] = batches.get(f"{record.iteration}-{record.question_id}", [])
        rows.append(row)
    return EQBENCH_FRAME.frame(rows)


EQBENCH_COLUMNS = (
    "question_id",
    "iteration",
    "pass_used",
    "emotions",
    "conventions",
    "official",
    "lm_eval",
    "evalscope",
)
#: The item table's columns: (column, heading, kind).
EQBENCH_TABLE = (
    ("label", "item", "text"),
    ("official", "official", "num"),
    ("lm_eval", "lm-eval", "num"),
    ("evalscope", "evalscope", "num"),
    ("largest_error", "largest error", "num"),
    ("n_attempts", "attempts", "num"),
    ("decision", "parse", "text"),
    ("text", "answer", "text"),
)
#: EQ-Bench's item frame, declared (:class:`~eqbench_nb.viewer.contract.FrameSchema`)
#: ``miss`` is the largest |answer - reference| of the question's emotions, which EQ-Bench's own frame also calls
#: ``largest_error`` (notebook 01 and docs/viewer.md select it by that word).
EQBENCH_FRAME = FrameSchema("eqbench", EQBENCH_COLUMNS, EQBENCH_TABLE, "official", "largest |answer - reference|",
                            aliases=(("largest_error", "miss"),))  # fmt: skip


class _NoRecord(RunRecord):
    """A question the run asked in an iteration that has no record: unfinished, or (another pipeline's file)
    an answer it did not store. Official leaves it out of the mean, the harnesses count it 0, as they score."""

    unfinished: bool = False


def _every_item(run: EqBenchRun, ours: bool) -> list[RunRecord]:
    """The run's records and, for each asked question of each iteration without one, a :class:`_NoRecord`;
    by iteration, then question."""
    held = {r.key for r in run.records}
    missing: list[RunRecord] = []
    for iteration in run.iterations:
        for qid in run.asked_ids:
            if (iteration, qid) not in held:
                record = _NoRecord(run.model, run.run_id, iteration, qid)
                record.unfinished = ours
                missing.append(record)
    return sorted([*run.records, *missing], key=lambda r: (r.iteration, int(r.question_id)))


def _batch_events(events: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Per item (``iteration-question``, as the runner names batch requests), the batches it went out in."""
    out: dict[str, list[str]] = {}
    for event in events:
        if event.get("event") != "batch":
            continue
        for custom_id in words(event.get("custom_ids")):
            item = custom_id.split("~", 1)[0]
            out.setdefault(item, []).append(f"sent in batch {event.get('batch_id')}")
    return out


def _eqbench_row(
    record: RunRecord, question: Question, run: EqBenchRun, reading: Protocol, ours: bool, revised: bool, prices: Prices
) -> dict[str, Any]:
    attempts = _eqbench_attempts(record, question, reading, ours)
    answer = record.revised if revised else record.first_pass
    score = record.revised_score if revised else record.first_pass_score
    reference = question.reference_for("v2")  # the raw 0-10 key, on the scale the model answered
    keyed = keyed_answer(answer, reference, run.match) if score is not None else None
    emotions = [
        {
            "emotion": e,
            "reference": reference[e],
            "answer": keyed[e] if keyed else finite_number(answer.get(e)),
            "error": keyed[e] - reference[e] if keyed else None,
        }
        for e in question.emotions
    ]
    decision = _eqbench_decision(record, question, run, answer, score)
    conventions = _conventions(record, question, run, score, decision["reason"])
    costs = AttemptCosts.of(record.attempts)
    return {
        "item_id": f"q{record.question_id}-i{record.iteration}",
        "key": f"q{record.question_id}-i{record.iteration}",
        "label": f"Q{record.question_id} · iteration {record.iteration}",
        "text": record.final_text,
        "prompt_source": _prompt_source(run),
        "attempts": attempts,
        "n_attempts": len(record.attempts),
        "kept_attempt": None if record.answer_attempt is None else record.answer_attempt + 1,
        "parsed": score is not None,
        **decision,
        "groups": list(question.emotions),
        "miss": max(abs(keyed[e] - reference[e]) for e in question.emotions) if keyed else None,
        **costs.columns(prices),
        "retried": len(record.attempts) > 1,
        "question_id": record.question_id,
        "iteration": record.iteration,
        "pass_used": "revised" if revised else "first",
        "emotions": emotions,
        "conventions": conventions,
        "official": conventions[0]["contribution"],
        "lm_eval": conventions[1]["contribution"],
        "evalscope": conventions[2]["contribution"],
    }


def _prompt_source(run: EqBenchRun) -> str:
    source = run.header.own.source
    if source is None:
        return "the prompt the run's protocol sends, rebuilt from its question file"
    return f"not stored in the file ({source}): the upstream v2.3 prompt for this question, rebuilt"


def _eqbench_attempts(record: RunRecord, question: Question, reading: Protocol, ours: bool) -> list[dict[str, Any]]:
    """Each attempt with the protocol's decision about it (:func:`~eqbench_nb.eqbench.protocols.attempt_decision`,
    the test the run applied); a file another pipeline wrote holds only the answer it stored."""
    out = []
    for k, raw in enumerate(record.attempts):
        kept = record.answer_attempt == k or (not ours and k == len(record.attempts) - 1)
        text = text_or_none(raw.get("text"))
        if not ours:
            decision, reason = "stored", "the answer the file stores (its pipeline's decisions are not recorded)"
        elif text is None:
            decision, reason = "failed", f"no text: {text_or_none(raw.get('error')) or 'the request returned none'}"
        else:
            parsed = parse_answer(text, reading.split_revision, reading.parser)
            decision, reason = attempt_decision(parsed, question, reading)
        out.append(attempt_view(raw, k + 1, decision, reason, kept))
    return out


def _eqbench_decision(
    record: RunRecord, question: Question, run: EqBenchRun, answer: dict[str, Any], score: float | None
) -> dict[str, str]:
    """Whether the item counts under the official rule, and why (or why not)."""
    if score is not None:
        return {"decision": "parsed", "reason": "four key emotions rated: scored against the reference"}
    if isinstance(record, _NoRecord):
        if record.unfinished:
            return {"decision": "no record", "reason": "not answered yet: the run is unfinished (run it again)"}
        return {"decision": "no record", "reason": "the file holds no answer for this question: unparseable"}
    if not record.attempts:
        return {"decision": "unparseable", "reason": "no answer in the file"}
    if record.answer_attempt is None and run.header.own.source is None:
        n = len(record.attempts)
        return {"decision": "unparseable", "reason": f"no attempt of {n} accepted: nothing stored"}
    why = unparseable_reason(answer, question.reference_for("v2"), run.match) or "not scored"
    return {"decision": "unparseable", "reason": why}


def _conventions(
    record: RunRecord, question: Question, run: EqBenchRun, official: float | None, official_reason: str
) -> list[dict[str, Any]]:
    """The item under each convention: parsed or not (and why), the question score, its contribution to the
    run score on the convention's scale, and the ratings that convention read (the harnesses read the raw
    text again, their way; official scores the answer the run stored)."""
    out = []
    for convention in CONVENTIONS:
        if convention == "official":
            score, read, reason = official, None, official_reason
        else:
            score = convention_score(record, question, convention, run)
            read = convention_answer(record, convention, run)
            match = convention_reading(convention, run.parser, run.split_revision, run.match)[2]
            reason = unparseable_reason(read, question.reference_for("v2"), match) or (
                "a rating outside 0-10 (evalscope rejects the answer)"
            )
        out.append(
            {
                "convention": convention,
                "parsed": score is not None,
                "question_score": score,
                "contribution": _contribution(score, convention),
                "why_not": None if score is not None else reason,
                "ratings_read": "(the stored answer)" if read is None else _shown_ratings(read),
            }
        )
    return out


def _contribution(score: float | None, convention: str) -> float | None:
    """The question's share of the run score on the convention's scale (None: left out, official only)."""
    if convention == "official":
        return None if score is None else 10.0 * score
    if score is None:
        return 0.0
    return 10.0 * score if convention == "lm-eval" else min(max(score / 10.0, 0.0), 1.0)


def _shown_ratings(ratings: dict[str, Any]) -> str:
    """Ratings as read ("Angry: 7, Sad: 2"); a value that is not a number as written ("7,5")."""
    return ", ".join(f"{k}: {v:g}" if isinstance(v, float) else f"{k}: {v}" for k, v in ratings.items())
