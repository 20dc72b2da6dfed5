"""The judged runs' item records, what the run viewer draws: one row per (iteration, item).

**A creative-writing item** is one prompt in one iteration: the piece the judge scored (or the last one written),
the prompts as sent (the writer's, rebuilt from the pinned prompts file and the iteration's seed modifier; the
judge's, rebuilt around the piece), every request of every round in order (each piece attempt with its temperature,
each judge request), the judge's analysis (its reply before ``[Scores]``), its score per criterion with whether
lower is better and the points the criterion adds, and the piece's score on 0–100.

**A Judgemark item** is one test-set piece (writer × prompt) in one iteration: the piece, the judge's prompt, its
requests, analysis and scores per criterion, and the piece's score.

Nothing is decided here: which requests were kept and why is :func:`.runs.next_step`'s, the points
:func:`.creative_writing.criterion_points`', the score :func:`.creative_writing.piece_score`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..runner.cost import Prices
from ..viewer.contract import AttemptCosts, FrameSchema, attempt_view, endpoint_items, endpoint_row
from . import creative_writing as cw
from .runs import (
    CREATIVE_WRITING,
    JUDGE,
    JUDGEMARK,
    PIECE,
    Ask,
    JudgedRun,
    Outcome,
    RequestRecord,
    item_keys,
    next_step,
    split_item,
)

if TYPE_CHECKING:
    import pandas as pd

#: How the item records name the endpoints.
SUBJECT, JUDGE_ENDPOINT = "model under test", "judge"
__all__ = ["JUDGE_ENDPOINT", "SUBJECT", "analysis_of", "endpoint_items", "judged_samples"]
OWN_COLUMNS = ("prompt_id", "writer", "iteration", "rounds", "piece_score", "analysis", "criteria", "endpoints")
TABLE = (
    ("label", "item", "text"),
    ("piece_score", "piece (0-100)", "num"),
    ("miss", "|piece - mean|", "num"),
    ("rounds", "rounds", "num"),
    ("n_attempts", "requests", "num"),
    ("decision", "outcome", "text"),
    ("text", "piece", "text"),
)
CREATIVE_WRITING_FRAME = FrameSchema(
    CREATIVE_WRITING, OWN_COLUMNS, TABLE, "piece_score", "|piece - mean piece|", "prompt"
)
JUDGEMARK_FRAME = FrameSchema(JUDGEMARK, OWN_COLUMNS, TABLE, "piece_score", "|piece - mean piece|", "writer")


def analysis_of(reply: str | None) -> str | None:
    """The judge's analysis: its reply before the ``[Scores]`` heading (the whole reply when it has none)."""
    if reply is None:
        return None
    head, sep, _ = reply.partition("[Scores]")
    return (head if sep else reply).strip() or None


def judged_samples(
    run: JudgedRun,
    prompts: Mapping[str, Mapping[str, Any]],
    pieces: Mapping[str, str] | None = None,
    prices: Prices | None = None,
) -> pd.DataFrame:
    """One row per (iteration, item) the run asks or holds (module docstring). ``prompts`` the pinned prompts by
    id; ``pieces`` Judgemark's test set by item (None for creative-writing); ``prices`` the run's endpoint's, and as
    its ``judge`` field the judge's (creative-writing)."""
    prices = prices or Prices()
    judgemark = run.benchmark == JUDGEMARK
    held = run.by_item()
    rows = []
    for iteration, item in item_keys(run):
        records = sorted(held.get((iteration, item), []), key=lambda r: (r.round, r.step != PIECE, r.attempt))
        given = (pieces or {}).get(item)
        state = next_step(records, given, writes_piece=not judgemark)
        rows.append(_row(run, iteration, item, records, state, prompts, given, prices, judgemark))
    scores = [s for r in rows if (s := r["piece_score"]) is not None and s == s]
    mean = sum(scores) / len(scores) if scores else None
    for r in rows:
        s = r["piece_score"]
        r["miss"] = None if s is None or s != s or mean is None else abs(s - mean)
    return (JUDGEMARK_FRAME if judgemark else CREATIVE_WRITING_FRAME).frame(rows)


def _row(
    run: JudgedRun,
    iteration: int,
    item: str,
    records: Sequence[RequestRecord],
    state: Ask | Outcome,
    prompts: Mapping[str, Mapping[str, Any]],
    given: str | None,
    prices: Prices,
    judgemark: bool,
) -> dict[str, Any]:
    writer, prompt_id = split_item(item)
    record = prompts.get(prompt_id)
    piece = state.piece if isinstance(state, Outcome) else given
    if piece is None and not judgemark:
        written = [r.text for r in records if r.step == PIECE and r.text]
        piece = written[-1] if written else None
    scores = state.scores if isinstance(state, Outcome) else None
    reply = state.reply if isinstance(state, Outcome) else None
    kept = state.kept_judge if isinstance(state, Outcome) and state.scored else None
    messages, asked = _prompts(records, record, iteration, given, judgemark)
    attempts = [_attempt(r, kept, judgemark, asked.get((r.round, r.step))) for r in records]
    subject = [r.request for r in records if r.step == PIECE]
    judged = [r.request for r in records if r.step == JUDGE]
    judge_prices = prices if judgemark else prices.of_judge
    endpoints = [endpoint_row(JUDGE_ENDPOINT, run.judge or run.model, judged, judge_prices)]
    if not judgemark:
        endpoints.insert(0, endpoint_row(SUBJECT, run.model, subject, prices))
    costs = [e["cost_usd"] for e in endpoints if e["requests"]]
    total = AttemptCosts.of([*subject, *judged]).columns(Prices())
    score = cw.piece_score(scores) if scores else None
    label = f"{writer} · prompt {prompt_id}" if judgemark else f"prompt {prompt_id}"
    decision, reason = _decision(state)
    return {
        "item_id": f"{item}-i{iteration}",
        "key": f"{item}-i{iteration}",
        "label": f"{label} · iteration {iteration}",
        "text": piece,
        "messages": messages,
        "prompt_source": "rebuilt from the pinned creative_writing_prompts.json (the iteration's seed modifier) "
        "and the piece judged"
        if messages is not None
        else f"prompt {prompt_id} is not in the pinned file",
        "attempts": attempts,
        "n_attempts": len(records),
        "kept_attempt": (records.index(kept) + 1) if kept is not None else None,
        "parsed": score is not None,
        "decision": decision,
        "reason": reason,
        "groups": [writer if judgemark and writer else f"prompt {prompt_id}"],
        "miss": None,
        **total,
        "cost_usd": sum(costs) if costs and None not in costs else None,
        "retried": len(records) > (1 if judgemark else 2),
        "events": [],
        "prompt_id": prompt_id,
        "writer": writer,
        "iteration": iteration,
        "rounds": max((r.round for r in records), default=0),
        "piece_score": None if score is None else 10 * score,
        "analysis": analysis_of(reply if reply is not None else _last_reply(records)),
        "criteria": _criteria(scores),
        "endpoints": endpoints,
    }


def _prompts(
    records: Sequence[RequestRecord],
    record: Mapping[str, Any] | None,
    iteration: int,
    given: str | None,
    judgemark: bool,
) -> tuple[list[dict[str, str]] | None, dict[tuple[int, str], int]]:
    """(the messages the item's requests were made of, the index each (round, step) answered): the writing prompt
    (creative-writing: the same in every attempt and round, as upstream sends it), then the judge's prompt of each
    round, around the piece that round judged; None where the prompt is not in the pinned file."""
    if record is None:
        return None, {}
    messages: list[dict[str, str]] = []
    asked: dict[tuple[int, str], int] = {}
    if not judgemark:
        messages.append({"role": "user", "content": cw.writing_prompt(record, iteration)})
    for round_ in sorted({r.round for r in records}):
        if not judgemark:
            asked[(round_, PIECE)] = 0
            written = [r.text for r in records if r.round == round_ and r.step == PIECE and cw.piece_is_usable(r.text)]
            piece = written[0] if written else None
        else:
            piece = given
        if piece is not None and any(r.round == round_ and r.step == JUDGE for r in records):
            asked[(round_, JUDGE)] = len(messages)
            messages.append({"role": f"user (to the {JUDGE_ENDPOINT})", "content": cw.judge_prompt(record, iteration,
                                                                                                  piece)})  # fmt: skip
    return messages, asked


def _last_reply(records: Sequence[RequestRecord]) -> str | None:
    replies = [r.text for r in records if r.step == JUDGE and r.text]
    return replies[-1] if replies else None


def _decision(state: Ask | Outcome) -> tuple[str, str]:
    if isinstance(state, Ask):
        return "unfinished", f"next: round {state.round}, {state.step} request {state.attempt} (run it again)"
    if state.scored:
        reason = f"{len(state.scores or {})} criteria parsed, {state.reason}"
        outside = cw.out_of_range_scores(state.scores or {})
        if outside:
            shown = ", ".join(f"{k[:40]} {v:g}" for k, v in list(outside.items())[:5])
            reason += f"; FLAGGED: outside {cw.SCALE}, kept as upstream keeps them: {shown}"
        if state.kept_judge is not None and state.kept_judge.left_out:
            reason += f"; FLAGGED: left out, not finite: {'; '.join(state.kept_judge.left_out[:5])}"
        return "scored", reason
    return "unscored", f"{state.reason}; left out of the score, as upstream leaves it out"


def _attempt(r: RequestRecord, kept: RequestRecord | None, judgemark: bool, asked: int | None) -> dict[str, Any]:
    text = r.text
    if r.step == PIECE:
        if text is None:
            decision, reason = "missing", "no text; asked again" if r.attempt < cw.MAX_PIECE_ATTEMPTS else "no text"
        elif cw.piece_is_usable(text):
            decision, reason = "written", "the piece (300 characters or more)"
        else:
            decision, reason = "too short", f"{len(text)} characters, under {cw.MIN_PIECE_CHARS}"
        who = SUBJECT
    else:
        if text is None:
            decision, reason = "empty", "no reply"
        elif r.scores:
            decision, reason = "parsed", f"{len(r.scores)} scores read"
            if r.left_out:
                reason += f"; left out, not finite: {'; '.join(r.left_out[:5])}"
        elif r.left_out:
            decision, reason = "unparsed", f"no finite score ({'; '.join(r.left_out[:5])}): the round is repeated"
        else:
            decision, reason = "unparsed", "no 'name: number' in the reply: the round is repeated"
        who = JUDGE_ENDPOINT
    view = attempt_view(r.request, r.attempt, decision, reason, r is kept)
    view["step"] = f"round {r.round} · {'the piece' if r.step == PIECE else 'the judgement'} ({who})"
    view["endpoint"] = who
    view["asked"] = asked
    return view


def _criteria(scores: Mapping[str, float] | None) -> list[dict[str, Any]]:
    if not scores:
        return []
    outside = cw.out_of_range_scores(scores)
    return [
        {"criterion": name, "score": value, "lower_is_better": cw.criterion_is_negative(name),
         "points": cw.criterion_points(name, value), "out_of_range": name in outside}
        for name, value in scores.items()
    ]  # fmt: skip
