"""One item record for every benchmark: what a run is made of, one row per item, as a DataFrame.

An item is what a benchmark scores once: an EQ-Bench question in one iteration, an EmotionBench situation (in
one item order) in one repeat. Its row holds what the model was asked (``messages``), every attempt's raw text
with the reasoning apart, what was decided about each attempt and why, the attempt kept, the answer beside the
reference with the error, the item's share of the run's score under each convention, and what it cost (tokens,
latency, dollars at given prices, transport faults and retries, events). The page and the notebook widget
(:mod:`eqbench_nb.viewer.page`, :mod:`eqbench_nb.viewer.widget`) draw only from these rows.

Nothing here decides anything of its own: the parsers, the retry test, the scoring and the conventions are the
benchmark's (:mod:`eqbench_nb.eqbench.protocols`, ``parsing``, ``scoring``, ``conventions``;
:mod:`eqbench_nb.emotionbench.parsing`, ``scoring``), called as the run itself called them, so a row explains
the run's own score. Everything a file holds is treated as hostile: a value of the wrong type is shown as
absent, never trusted.

:func:`samples` takes a run (or a path) of either benchmark; :func:`eqbench_samples` reads this project's
EQ-Bench run files, the published upstream results files and lm-evaluation-harness samples (all through
:func:`eqbench_nb.eqbench.runs.read_run`), :func:`emotionbench_samples` EmotionBench runs. Each frame carries
in ``attrs`` what a view needs to lay it out (``benchmark``, ``table_columns``, ``compare_column``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..emotionbench.runs import EmotionRecord, EmotionRun, is_emotionbench_file, read_emotion_run
from ..eqbench.conventions import (
    CONVENTIONS,
    convention_answer,
    convention_reading,
    convention_score,
    revised_pass_used,
)
from ..eqbench.parsing import parse_answer
from ..eqbench.prompts import build_messages
from ..eqbench.protocols import Protocol, attempt_decision
from ..eqbench.questions import Question, run_questions
from ..eqbench.runs import Run, RunRecord, read_run
from ..eqbench.scoring import keyed_answer, unparseable_reason
from ..runner.cost import Prices, Usage

__all__ = ["AnyRun", "emotionbench_samples", "eqbench_samples", "load_run", "samples"]

AnyRun = Run | EmotionRun
#: Columns every benchmark's frame has (the views filter, sort and search on them).
COMMON_COLUMNS = (
    "item_id",  # unique in the run, and the page's data-item-id
    "key",  # what pairs an item of one run with the same item of another
    "label",
    "text",  # the kept attempt's text (else the last attempt's), whole
    "messages",
    "prompt_source",
    "attempts",
    "n_attempts",
    "kept_attempt",  # 1 = the first attempt; None when none was kept
    "parsed",
    "decision",
    "reason",
    "emotion_names",
    "largest_error",
    "prompt_tokens",
    "completion_tokens",
    "reasoning_tokens",
    "latency_s",
    "cost_usd",
    "transport_retries",
    "faults",
    "retried",
    "has_fault",
    "events",
)


def load_run(run: AnyRun | str | os.PathLike) -> AnyRun:
    """A run object as given, or the run in a file: an EmotionBench run when its header names that benchmark,
    else an EQ-Bench run of any format :func:`~eqbench_nb.eqbench.runs.read_run` reads."""
    if isinstance(run, (Run, EmotionRun)):
        return run
    return read_emotion_run(run) if is_emotionbench_file(run) else read_run(run)


def samples(
    run: AnyRun | str | os.PathLike, price_in: float | None = None, price_out: float | None = None
) -> pd.DataFrame:
    """The run's item records, one row per item (see the module docstring); ``price_in`` / ``price_out``
    (dollars per million prompt / completion tokens) give each item's cost."""
    loaded = load_run(run)
    prices = run_prices(loaded.header, price_in, price_out)
    if isinstance(loaded, EmotionRun):
        return emotionbench_samples(loaded, prices)
    return eqbench_samples(loaded, prices)


def run_prices(header: dict[str, Any], price_in: float | None, price_out: float | None) -> Prices:
    """Prices given, else those the header records (none today), at the Batch API's half when the run used it."""
    given_in = price_in if price_in is not None else _number(header.get("price_in"))
    given_out = price_out if price_out is not None else _number(header.get("price_out"))
    return Prices(given_in, given_out, header.get("batch") is True)


# ---------------------------------------------------------------- what a file holds, typed


def _number(value: Any) -> float | None:
    """A finite number from a file, else None (a string, a bool, an object, NaN)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _count(value: Any) -> int | None:
    """A token count from a file: a whole number of 0 or more, else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _texts(value: Any) -> list[str]:
    """A list of words from a file (fault kinds, parameters adapted); anything else in it is named by its type."""
    return [v if isinstance(v, str) else f"(a {type(v).__name__})" for v in value] if isinstance(value, list) else []


def _ratings(ratings: dict[str, Any]) -> dict[str, float | str]:
    return {str(k): v if isinstance(v, (float, str)) else str(v) for k, v in ratings.items()}


def _total(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return float(sum(present)) if present else None


@dataclass(frozen=True)
class _Costs:
    """What an item's attempts cost, summed: usage as billed, latency, transport faults and errors."""

    usage: Usage
    latency_s: float | None
    retries: int
    faults: list[str]
    errors: list[str]

    @classmethod
    def of(cls, attempts: list[dict[str, Any]]) -> _Costs:
        return cls(
            Usage.of(attempts),
            _total(_number(a.get("latency_s")) for a in attempts),
            sum(_count(a.get("transport_retries")) or 0 for a in attempts),
            [f for a in attempts for f in _texts(a.get("transport_faults"))],
            [e for a in attempts if (e := _text(a.get("error")))],
        )

    def columns(self, prices: Prices) -> dict[str, Any]:
        u = self.usage
        return {
            "prompt_tokens": u.prompt,
            "completion_tokens": u.completion,
            "reasoning_tokens": u.reasoning,
            "latency_s": self.latency_s,
            "cost_usd": prices.cost(u.prompt, u.completion) if prices.known else None,
            "transport_retries": self.retries,
            "faults": self.faults,
            "has_fault": bool(self.retries or self.faults or self.errors),
        }


def _attempt(raw: dict[str, Any], n: int, decision: str, reason: str, kept: bool) -> dict[str, Any]:
    """One attempt as the views show it: the text as parsed, the raw text and reasoning apart, its settings,
    what the transport saw, and the decision about it."""
    return {
        "attempt": n,
        "decision": decision,
        "reason": reason,
        "kept": kept,
        "text": _text(raw.get("text")),
        "raw_text": _text(raw.get("raw_text")),
        "reasoning": _text(raw.get("reasoning")),
        "temperature": _number(raw.get("temperature")),
        "latency_s": _number(raw.get("latency_s")),
        "prompt_tokens": _count(raw.get("prompt_tokens")),
        "completion_tokens": _count(raw.get("completion_tokens")),
        "reasoning_tokens": _count(raw.get("reasoning_tokens")),
        "finish_reason": _text(raw.get("finish_reason")),
        "transport_retries": _count(raw.get("transport_retries")),
        "transport_faults": ", ".join(_texts(raw.get("transport_faults"))),
        "error": _text(raw.get("error")),
        "adapted": ", ".join(_texts(raw.get("adapted"))),
    }


# ---------------------------------------------------------------- EQ-Bench


def eqbench_samples(run: Run, prices: Prices | None = None) -> pd.DataFrame:
    """One row per record (question x iteration) of an EQ-Bench run; ``attrs`` says how to lay it out.

    Beyond :data:`COMMON_COLUMNS`: ``question_id``, ``iteration``, ``pass_used`` (the pass the official rule
    scores in this iteration), ``emotions`` (per key emotion: reference, answer, answer - reference),
    ``conventions`` (per convention: parsed, the question's score, its contribution, why not parsed, the
    ratings read), and ``official``, ``lm_eval``, ``evalscope``: the item's contribution on each convention's
    run scale (an iteration's score is the mean of the column over its items, left-out items excluded for
    official, where an unparseable answer is NaN).
    """
    prices = prices or run_prices(run.header, None, None)
    questions = run_questions(run)
    used_revised = revised_pass_used(run)
    reading = Protocol(str(run.header.get("protocol") or "?"), (), 0, run.parser, run.split_revision, run.match)
    ours = run.header.get("source") is None  # this project's runner wrote it: its attempts carry the decisions
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
    frame = pd.DataFrame(rows, columns=[*COMMON_COLUMNS, *EQBENCH_COLUMNS]).astype({"kept_attempt": "Int64"})
    frame.attrs.update(
        benchmark="eqbench",
        table_columns=EQBENCH_TABLE,
        compare_column="official",
        error_label="largest |answer - reference|",
    )
    return frame


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


class _NoRecord(RunRecord):
    """A question the run asked in an iteration that has no record: unfinished, or (another pipeline's file)
    an answer it did not store. Official leaves it out of the mean, the harnesses count it 0, as they score."""

    unfinished: bool = False


def _every_item(run: Run, ours: bool) -> list[RunRecord]:
    """The run's records and, for each asked question of each iteration without one, a :class:`_NoRecord`;
    by iteration, then question."""
    from ..analysis.leaderboard import asked_questions

    held = {r.key for r in run.records}
    missing: list[RunRecord] = []
    for iteration in run.iterations:
        for qid in asked_questions(run):
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
        for custom_id in _texts(event.get("custom_ids")):
            item = custom_id.split("~", 1)[0]
            out.setdefault(item, []).append(f"sent in batch {event.get('batch_id')}")
    return out


def _eqbench_row(
    record: RunRecord, question: Question, run: Run, reading: Protocol, ours: bool, revised: bool, prices: Prices
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
            "answer": keyed[e] if keyed else _number(answer.get(e)),
            "error": keyed[e] - reference[e] if keyed else None,
        }
        for e in question.emotions
    ]
    decision = _eqbench_decision(record, question, run, answer, score)
    conventions = _conventions(record, question, run, score, decision["reason"])
    costs = _Costs.of(record.attempts)
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
        "emotion_names": list(question.emotions),
        "largest_error": max(abs(keyed[e] - reference[e]) for e in question.emotions) if keyed else None,
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


def _prompt_source(run: Run) -> str:
    source = run.header.get("source")
    if source is None:
        return "the prompt the run's protocol sends, rebuilt from its question file"
    return f"not stored in the file ({source}): the upstream v2.3 prompt for this question, rebuilt"


def _eqbench_attempts(record: RunRecord, question: Question, reading: Protocol, ours: bool) -> list[dict[str, Any]]:
    """Each attempt with the protocol's decision about it (:func:`~eqbench_nb.eqbench.protocols.attempt_decision`,
    the test the run applied); a file another pipeline wrote holds only the answer it stored."""
    out = []
    for k, raw in enumerate(record.attempts):
        kept = record.answer_attempt == k or (not ours and k == len(record.attempts) - 1)
        text = _text(raw.get("text"))
        if not ours:
            decision, reason = "stored", "the answer the file stores (its pipeline's decisions are not recorded)"
        elif text is None:
            decision, reason = "failed", f"no text: {_text(raw.get('error')) or 'the request returned none'}"
        else:
            parsed = parse_answer(text, reading.split_revision, reading.parser)
            decision, reason = attempt_decision(parsed, question, reading)
        out.append(_attempt(raw, k + 1, decision, reason, kept))
    return out


def _eqbench_decision(
    record: RunRecord, question: Question, run: Run, answer: dict[str, Any], score: float | None
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
    if record.answer_attempt is None and run.header.get("source") is None:
        n = len(record.attempts)
        return {"decision": "unparseable", "reason": f"no attempt of {n} accepted: nothing stored"}
    why = unparseable_reason(answer, question.reference_for("v2"), run.match) or "not scored"
    return {"decision": "unparseable", "reason": why}


def _conventions(
    record: RunRecord, question: Question, run: Run, official: float | None, official_reason: str
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
    return ", ".join(f"{k}: {v:g}" if isinstance(v, float) else f"{k}: {v}" for k, v in _ratings(ratings).items())


# ---------------------------------------------------------------- EmotionBench


EMOTIONBENCH_COLUMNS = (
    "repeat",
    "situation",
    "order",
    "emotion",
    "factor",
    "status",
    "refusal",
    "ratings",
    "positive_affect",
    "negative_affect",
    "change_pa",
    "change_na",
)
EMOTIONBENCH_TABLE = (
    ("label", "item", "text"),
    ("positive_affect", "PA", "num"),
    ("negative_affect", "NA", "num"),
    ("change_pa", "PA - default", "num"),
    ("change_na", "NA - default", "num"),
    ("decision", "status", "text"),
    ("text", "answer", "text"),
)
_STATUS_REASONS = {
    "complete": "a rating on the scale read for every item",
    "incomplete": "ratings read for {found} of {n} items: not scored",
    "refused": "no rating read, and the text says it cannot feel: not scored",
    "unreadable": "no rating read: not scored",
    "no answer": "the request returned no text: not scored",
}


def emotionbench_samples(run: EmotionRun, prices: Prices | None = None) -> pd.DataFrame:
    """One row per record (situation in one item order x repeat) of an EmotionBench run.

    Beyond :data:`COMMON_COLUMNS`: ``repeat``, ``situation``, ``order``, ``emotion``, ``factor``, ``status``
    (the reader's), ``refusal``, ``ratings`` (per item as asked: its id, text, rating read),
    ``positive_affect`` / ``negative_affect`` (the sub-scale scores of a complete answer, as upstream sums
    them) and ``change_pa`` / ``change_na`` (an evoked answer's score minus the mean of the run's complete
    default answers: what the paper's test compares). The messages are rebuilt from the upstream files, read
    at run time; without them the row says so.
    """
    from ..emotionbench.scoring import NA, PA, subscale_scores

    prices = prices or run_prices(run.header, None, None)
    texts = _Texts.read(run)
    items = texts.items
    categories = run.header.get("categories") or {}
    mode = str(run.header.get("compute_mode") or "SUM")
    scored = {id(r): subscale_scores(r.ratings, categories, mode) for r in run.records if r.complete}
    default = [s for r in run.records if r.is_default and (s := scored.get(id(r)))]
    default_means = {k: sum(s[k] for s in default) / len(default) for k in (PA, NA)} if default else {}
    names = run.header.get("factor_names") or {}
    rows = []
    for r in run.records:
        scores = scored.get(id(r), {})
        messages, source = texts.messages(r)
        row = {
            "item_id": f"{r.item}-r{r.repeat}",
            "key": f"{r.item}-r{r.repeat}",
            "label": f"{_situation_label(r, names)} · repeat {r.repeat}",
            "text": _text(r.attempt.get("text")),
            "messages": messages,
            "prompt_source": source,
            "attempts": [_attempt(r.attempt, 1, r.status, _status_reason(r), r.complete)],
            "n_attempts": 1,
            "kept_attempt": 1 if r.complete else None,
            "parsed": r.complete,
            "decision": r.status,
            "reason": _status_reason(r),
            "emotion_names": [r.situation.split("-")[0] if not r.is_default else "Default"],
            "largest_error": _largest_change(r, scores, default_means),
            **_Costs.of([r.attempt]).columns(prices),
            "retried": False,
            "events": [],
            "repeat": r.repeat,
            "situation": r.situation,
            "order": r.order,
            "emotion": "" if r.is_default else r.situation.split("-")[0],
            "factor": "" if r.is_default else str(names.get(r.situation.split("_")[0], "")),
            "status": r.status,
            "refusal": r.refusal,
            "ratings": _item_ratings(r, items),
            "positive_affect": scores.get(PA),
            "negative_affect": scores.get(NA),
            "change_pa": _change(r, scores, default_means, PA),
            "change_na": _change(r, scores, default_means, NA),
        }
        rows.append(row)
    frame = pd.DataFrame(rows, columns=[*COMMON_COLUMNS, *EMOTIONBENCH_COLUMNS]).astype({"kept_attempt": "Int64"})
    frame.attrs.update(
        benchmark="emotionbench",
        table_columns=EMOTIONBENCH_TABLE,
        compare_column="negative_affect",
        error_label="largest |change| from the default (PA, NA)",
    )
    return frame


@dataclass(frozen=True)
class _Texts:
    """The questionnaire and situations from the upstream files (read at run time), or why they are missing."""

    questionnaire: Any = None
    situations: dict[str, Any] | None = None
    missing: str | None = None

    @classmethod
    def read(cls, run: EmotionRun) -> _Texts:
        from ..data import DataError
        from ..emotionbench.items import DEFAULT, load_questionnaire, load_situations

        try:
            questionnaire = load_questionnaire(str(run.header.get("questionnaire") or "PANAS"))
            situations = {s.key: s for s in load_situations()}
        except (DataError, OSError, ValueError, KeyError) as exc:
            return cls(missing=f"the EmotionBench files are not readable here ({exc}); they are read at run time")
        return cls(questionnaire, situations | {DEFAULT.key: DEFAULT})

    @property
    def items(self) -> dict[int, str]:
        return dict(self.questionnaire.items) if self.questionnaire is not None else {}

    def messages(self, record: EmotionRecord) -> tuple[list[dict[str, str]] | None, str]:
        """The messages upstream sends for the record, and where they come from."""
        from ..emotionbench.prompts import build_messages as emotionbench_messages

        if self.missing is not None or self.situations is None:
            return None, self.missing or "the EmotionBench files are not readable here"
        situation = self.situations.get(record.situation)
        if situation is None or any(i not in self.questionnaire.items for i in record.item_ids):
            return None, f"situation {record.situation} or its items are not in the upstream files"
        messages = emotionbench_messages(self.questionnaire, situation, record.item_ids)
        return messages, "the messages upstream sends, rebuilt from the EmotionBench files"


def _situation_label(record: EmotionRecord, names: dict[str, Any]) -> str:
    if record.is_default:
        label = "Default (no situation)"
    else:
        factor = record.situation.split("_")[0]
        label = f"{record.situation} ({names.get(factor, factor)})"
    return label + (f" · order {record.order}" if record.order else "")


def _status_reason(record: EmotionRecord) -> str:
    found = sum(v is not None for v in record.raw_ratings)
    reason = _STATUS_REASONS.get(record.status, record.status).format(found=found, n=len(record.item_ids))
    if record.refusal and record.status != "refused":
        reason += "; the text also holds a refusal phrase"
    return reason


def _item_ratings(record: EmotionRecord, items: dict[int, str]) -> list[dict[str, Any]]:
    read = record.raw_ratings + [None] * (len(record.item_ids) - len(record.raw_ratings))
    return [
        {"position": n, "item_id": i, "item": items.get(i, f"item {i}"), "rating": read[n - 1]}
        for n, i in enumerate(record.item_ids, 1)
    ]


def _change(record: EmotionRecord, scores: dict[str, float], default: dict[str, float], scale: str) -> float | None:
    if record.is_default or scale not in scores or scale not in default:
        return None
    return scores[scale] - default[scale]


def _largest_change(record: EmotionRecord, scores: dict[str, float], default: dict[str, float]) -> float | None:
    changes = [c for s in default if (c := _change(record, scores, default, s)) is not None]
    return max(map(abs, changes)) if changes else None
