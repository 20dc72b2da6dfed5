"""EQ-Bench 3's item records, what the run viewer draws: one row per (iteration, scenario) of a run, and one per
pair of models judged on a scenario in a judgements file.

**A run's item** is one scenario played in one iteration: the scenario's id, kind and title; the conversation as
the model under test was asked it (each turn's prompt in its kind's master prompt after the conversation so far,
the debrief prompt, rebuilt from the pinned scenario file and the stored answers, and last the rubric prompt the
judge was sent); every attempt of every step (each turn, the debrief, the judgement), each headed by its step and
the message it answered, its text as the step kept it (upstream's reasoning removal, :func:`.steps.kept_text`)
with the content as received and any reasoning apart; the judge's scores per criterion and which of them count;
the item's contribution to the rubric score (its task score on 0-100: the run's score is the mean of the
contributions, rounded on 0-20 as upstream rounds it, :func:`.rubric.run_score`); tokens, latency, transport faults
and cost, for the model under test and the judge apart (:data:`SUBJECT`, :data:`JUDGE`). A scenario the run asked
but has not finished is a row too, saying how far it got.

**A judgements file's item** is one pair of models on one scenario and iteration: the judgement in each order
(who was ``A0493``, the plus counts, the outcome and fraction for the test model, or the error), the plus counts
summed over both orders and the win fraction they give, as the rating's pairing makes them
(:func:`.rating.pair_comparisons`), every attempt with the judge's raw text. The prompt is not in the file (it is
built from both runs' transcripts) and is not rebuilt.

Nothing here decides anything of its own: the scores, the counted criteria, the outcomes and fractions are the
benchmark's rules, called as the run and the rating call them. The common columns and the attempts' reading are
:mod:`eqbench_nb.viewer.contract`'.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..runner.cost import Prices
from ..viewer.contract import (
    AttemptCosts,
    FrameSchema,
    attempt_view,
    endpoint_items,
    endpoint_row,
    text_or_none,
)
from . import prompts, rubric
from .pairwise import FORWARD_ORDER, REVERSED_ORDER, clamped
from .rating import pair_comparisons
from .runs import DEBRIEF, RUBRIC, Eq3Run, PairRecord, PairwiseFile, Play, StepRecord, turn_step
from .scenarios import Scenario, kind_of, load_scenarios
from .steps import kept_text, received_in
from .summary import panel_task_scores, summarise_run
from .versions import DEFAULT_VERSION, ScoringVersion, scoring_version

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "EQBENCH3_COLUMNS",
    "EQBENCH3_TABLE",
    "JUDGE",
    "PAIRWISE_COLUMNS",
    "PAIRWISE_TABLE",
    "SUBJECT",
    "endpoint_items",
    "eqbench3_samples",
    "pairwise_samples",
]

#: How the item records name the two endpoints of a run.
SUBJECT, JUDGE = "model under test", "judge"

EQBENCH3_COLUMNS = (
    "scenario_id",
    "kind",
    "title",
    "iteration",
    "turns",
    "task_score",
    "rubric",
    "judge_attempts",
    "criteria",
    "endpoints",
    "verdicts",
)
#: The item table's columns: (column, heading, kind).
EQBENCH3_TABLE = (
    ("label", "item", "text"),
    ("kind", "kind", "text"),
    ("rubric", "rubric (0-100)", "num"),
    ("miss", "|rubric - run score|", "num"),
    ("n_attempts", "requests", "num"),
    ("decision", "judgement", "text"),
    ("text", "answers", "text"),
)
PAIRWISE_COLUMNS = (
    "scenario_id",
    "kind",
    "iteration",
    "model_a",
    "model_b",
    "plus_a",
    "plus_b",
    "fraction_a",
    "judge_errors",
    "orders",
    "verdicts",
)
PAIRWISE_TABLE = (
    ("label", "item", "text"),
    ("kind", "kind", "text"),
    ("fraction_a", "fraction for A", "num"),
    ("plus_a", "plus A", "num"),
    ("plus_b", "plus B", "num"),
    ("n_attempts", "requests", "num"),
    ("decision", "outcome", "text"),
    ("text", "judge's replies", "text"),
)
EQBENCH3_FRAME = FrameSchema("eqbench3", EQBENCH3_COLUMNS, EQBENCH3_TABLE, "rubric", "|rubric - run score|", "kind")
PAIRWISE_FRAME = FrameSchema(
    "eqbench3", PAIRWISE_COLUMNS, PAIRWISE_TABLE, "fraction_a", "margin |fraction - 0.5|", "kind"
)
#: What the item's ``messages`` are, for a run's items.
RUN_PROMPT_SOURCE = (
    "the conversation as the model under test was asked it, rebuilt from the pinned scenario file and the stored "
    "answers (its kind's master prompt, each turn after the conversation so far, the debrief prompt); last, the "
    "rubric prompt the judge was sent, rebuilt from the transcript"
)
PAIRWISE_PROMPT_SOURCE = (
    "not in the judgements file: the judge was shown both models' transcripts of the scenario (upstream's pairwise "
    "prompt, built by `leaderboard --judge` from the two runs)"
)


# ---------------------------------------------------------------- a run


def eqbench3_samples(run: Eq3Run, prices: Prices | None = None) -> pd.DataFrame:
    """One row per (iteration, scenario) the run asked (module docstring); ``prices`` the model under test's, and as
    its ``judge`` field (:attr:`~eqbench_nb.runner.cost.Prices.judge`) the judge's.

    Beyond :data:`COMMON_COLUMNS` (whose tokens and latency are both endpoints' together, and whose cost is theirs
    together once both are priced): ``scenario_id``, ``kind``, ``title``, ``iteration``, ``turns`` (answered of the
    scenario's), ``task_score`` (the mean of the counted criteria, 0-20), ``rubric`` (the item's contribution on
    0-100; None where it is left out: a judge error, not judged yet), ``judge_attempts``, ``criteria`` (per criterion
    asked or given: the judge's score, whether it counts) and ``endpoints`` (per endpoint: its model, requests,
    tokens, latency, transport retries and faults, cost). ``kept_attempt`` is the judge's attempt whose reply was
    read (1: the first).
    """
    prices = prices or Prices()
    texts = _Texts.read()
    done: dict[tuple[int, str], dict[str, StepRecord]] = {}
    for record in run.records:
        if record.step != RUBRIC:
            done.setdefault((record.iteration, record.scenario_id), {})[record.step] = record
    plays = run.plays()
    for key, play in plays.items():  # the rubric step: the panel's first judge's (each judge's is in ``verdicts``)
        if play.rubric is not None:
            done.setdefault(key, {})[RUBRIC] = play.rubric
    score = summarise_run(run).score
    rows = []
    for iteration, sid in _every_play(run, done):
        steps = done.get((iteration, sid), {})
        play = plays.get((iteration, sid)) or Play(sid, iteration, [], texts.turns(run, sid))
        rows.append(_run_row(run, play, steps, texts, prices, score))
    return EQBENCH3_FRAME.frame(rows)


@dataclass(frozen=True)
class _Texts:
    """The pinned upstream texts a run's prompts are rebuilt from."""

    scenarios: dict[str, Scenario]
    templates: prompts.Templates

    @classmethod
    def read(cls) -> _Texts:
        return cls({s.id: s for s in load_scenarios()}, prompts.load_templates())

    def turns(self, run: Eq3Run, sid: str) -> int | None:
        counts = run.header.own.scenario_turns
        if isinstance(counts, dict) and isinstance(counts.get(sid), int):
            return int(counts[sid])
        return len(self.scenarios[sid].prompts) if sid in self.scenarios else None


def _every_play(run: Eq3Run, done: Mapping[tuple[int, str], Any]) -> list[tuple[int, str]]:
    """Every (iteration, scenario) the header asks for and every one the file holds, by iteration, then scenario in
    the order asked."""
    asked = list(run.header.own.scenarios or ())
    iterations = run.header.iterations
    n = iterations if iterations is not None and iterations > 0 else 1
    place = {sid: k for k, sid in enumerate(asked)}
    keys = {(i, sid) for i in range(1, n + 1) for sid in asked} | set(done)
    return sorted(keys, key=lambda k: (k[0], place.get(k[1], len(place)), k[1]))


def _step_order(step: str) -> tuple[int, int]:
    if step.startswith("turn-"):
        return (0, int(step.split("-")[1]))
    return (1, 0) if step == DEBRIEF else (2, 0)


def _step_name(step: str) -> str:
    return step.replace("-", " ") if step.startswith("turn-") else f"{step} ({JUDGE})" if step == RUBRIC else step


def _run_row(
    run: Eq3Run,
    play: Play,
    steps: dict[str, StepRecord],
    texts: _Texts,
    prices: Prices,
    run_score: float | None,
) -> dict[str, Any]:
    sid, iteration, kind = play.scenario_id, play.iteration, play.kind
    scenario = texts.scenarios.get(sid)
    messages, asked = _conversation(run, play, steps, scenario, texts)
    ordered = sorted(steps.values(), key=lambda r: _step_order(r.step))
    several = len(run.judges) > 1
    # a panel: every judge's judgement, the first judge's where the run has one, each step named by its judge
    judgements = [r for r in play.rubrics.values() if r is not steps.get(RUBRIC)] if several else []
    attempts = []
    for record in [*ordered, *judgements]:
        views = _judge_attempts(record) if record.step == RUBRIC else _subject_attempts(record)
        for view in views:
            view["asked"] = asked.get(view["step_key"])
            view["step"] = _step_name(view.pop("step_key"))
            if record.step == RUBRIC and several:
                view["step"] = f"rubric (judge {record.judge})"
        attempts += views
    judged = steps.get(RUBRIC)
    task = rubric.scenario_task_score(sid, judged.scores) if judged and judged.scores is not None else None
    contribution = None if task is None else task * rubric.TO_100
    subject = [a for r in ordered if r.step != RUBRIC for a in r.attempts]
    judge = judged.attempts if judged else []
    judge_prices = prices.of_judge
    endpoints = [
        endpoint_row(SUBJECT, run.model, subject, prices),
        endpoint_row(JUDGE, (judged.judge if judged and several else None) or run.judge or "—", judge, judge_prices),
        *(endpoint_row(JUDGE, str(r.judge), r.attempts, judge_prices) for r in judgements),
    ]
    judge = [*judge, *(a for r in judgements for a in r.attempts)]
    costs = [e["cost_usd"] for e in endpoints if e["requests"]]
    total = AttemptCosts.of([*subject, *judge]).columns(Prices())
    n_turns = texts.turns(run, sid)
    return {
        "item_id": f"{sid}-i{iteration}",
        "key": f"{sid}-i{iteration}",
        "label": f"scenario {sid} · iteration {iteration}",
        "text": _answers(play, steps),
        "messages": messages,
        "prompt_source": RUN_PROMPT_SOURCE if messages is not None else f"scenario {sid} is not in the pinned file",
        "attempts": attempts,
        "n_attempts": len(subject) + len(judge),
        "kept_attempt": len(judge) if judged is not None and judged.scores is not None else None,
        "parsed": contribution is not None,
        **_run_decision(run, play, judged, task, contribution, n_turns),
        "groups": [kind],
        "miss": None if contribution is None or run_score is None else abs(contribution - run_score),
        **total,
        "cost_usd": sum(costs) if costs and None not in costs else None,
        "retried": any(len(r.attempts) > 1 for r in ordered),
        "events": [],
        "scenario_id": sid,
        "kind": kind,
        "title": " · ".join(p for p in (scenario.category, scenario.title) if p) if scenario else "",
        "iteration": iteration,
        "turns": f"{len(play.turns)} of {n_turns if n_turns is not None else '?'}",
        "task_score": task,
        "rubric": contribution,
        "judge_attempts": len(judge),
        "criteria": _criteria(sid, judged),
        "endpoints": endpoints,
        "verdicts": _rubric_verdicts(run, play) if several else [],
    }


def _judgement_of(record: StepRecord | None) -> str:
    if record is None:
        return "not judged"
    return "scored" if record.scores is not None else f"error: {record.error}"


def _rubric_verdicts(run: Eq3Run, play: Play) -> list[dict[str, Any]]:
    """Each judge's verdict on the item side by side, one column per judge of the panel (and the panel's mean):
    the item's rubric contribution (0-100), the decision, then each criterion's score (0-20)."""
    judges = run.judges
    by_judge = {j: play.rubrics.get(j) for j in judges}
    tasks = {j: rubric.scenario_task_score(play.scenario_id, r.scores) if r and r.scores is not None else None
             for j, r in by_judge.items()}  # fmt: skip
    scored = {j: t for j, t in tasks.items() if t is not None}
    panel = panel_task_scores({(play.iteration, play.scenario_id): scored}) if scored else {}
    rows: list[dict[str, Any]] = [
        {"measure": "rubric (0-100)"}
        | {j: None if t is None else t * rubric.TO_100 for j, t in tasks.items()}
        | {"panel": next((v * rubric.TO_100 for v in panel.values()), None)},
        {"measure": "judgement"}
        | {j: _judgement_of(r) for j, r in by_judge.items()}
        | {"panel": f"{len(scored)} of {len(judges)} judges scored"},
    ]
    names = list(dict.fromkeys(n for r in by_judge.values() if r and r.scores for n in r.scores))
    counted = _counted(play.scenario_id)
    for name in names:
        row = {"measure": name + (" (counts)" if name in counted else "")}
        rows.append(row | {j: (r.scores or {}).get(name) if r else None for j, r in by_judge.items()} | {"panel": None})
    return rows


def _conversation(
    run: Eq3Run, play: Play, steps: Mapping[str, StepRecord], scenario: Scenario | None, texts: _Texts
) -> tuple[list[dict[str, str]] | None, dict[str, int]]:
    """(the messages the item's requests were made of, the index of the message each step answered): the model
    under test's system messages and conversation (with the debrief prompt when it was asked), then the judge's
    system messages and rubric prompt when it was judged; None where the scenario is unknown."""
    if scenario is None:
        return None, {}
    system = prompts.system_messages(run.header.endpoint, run.model)
    messages = [*system, *prompts.conversation(scenario, play.turns, texts.templates)]
    asked = {turn_step(t): len(system) + 2 * t for t in range(len(play.turns))}
    if DEBRIEF in steps:
        asked[DEBRIEF] = len(messages)
        messages.append({"role": "user", "content": texts.templates.debrief})
    if RUBRIC in steps and play.played:
        transcript = play.transcript(scenario, texts.templates)
        family = rubric.rubric_family(scenario.kind)
        prompt = rubric.rubric_prompt(
            rubric.load_rubric(family), scenario.kind, transcript.history, transcript.parsed, transcript.debrief
        )
        judge_system = prompts.system_messages(run.header.own.judge_endpoint, run.judge)
        messages += [{"role": f"{m['role']} (to the {JUDGE})", "content": m["content"]} for m in judge_system]
        asked[RUBRIC] = len(messages)
        messages.append({"role": f"user (to the {JUDGE})", "content": prompt})
    return messages, asked


def _answers(play: Play, steps: Mapping[str, StepRecord]) -> str | None:
    """The model's answers, turn by turn, then its debrief: the item's text, whole."""
    parts = [f"[turn {t}]\n{text}" for t, text in enumerate(play.turns, 1)]
    debrief = steps.get(DEBRIEF)
    if debrief is not None and debrief.text is not None:
        parts.append(f"[debrief]\n{debrief.text}")
    return "\n\n".join(parts) or None


def _subject_attempts(record: StepRecord) -> list[dict[str, Any]]:
    """A turn's or the debrief's attempts: the first with content is the step's answer (:func:`.steps._ask`)."""
    out = []
    for k, raw in enumerate(record.attempts):
        content = received_in(raw)
        if content is None:  # never the last: a step whose every attempt failed is not recorded
            decision = "failed"
            reason = f"no text: {text_or_none(raw.get('error')) or 'the request returned none'}; asked again"
        else:
            decision, reason = "answered", "the step's answer (its first reply with content)"
        out.append(_view(raw, k + 1, decision, reason, content is not None, content, record.step, SUBJECT))
    return out


def _judge_attempts(record: StepRecord | PairRecord) -> list[dict[str, Any]]:
    """A judgement's attempts: asked until a reply's JSON is read (:func:`.steps._judge`); the last is kept when the
    judgement has its scores (or verdict)."""
    judged = (record.scores if isinstance(record, StepRecord) else record.verdict) is not None
    step = RUBRIC if isinstance(record, StepRecord) else record.order
    out = []
    for k, raw in enumerate(record.attempts, 1):
        content = received_in(raw)
        error = text_or_none(raw.get("parse_error"))
        last = k == len(record.attempts)
        if content is None:
            decision = "failed"
            reason = f"no reply: {text_or_none(raw.get('error')) or 'the request returned none'}"
            reason += "" if last else "; asked again"
        elif error is not None:
            decision, reason = "unparsed", f"the judge's JSON did not parse: {error}"
        elif judged and last:
            decision, reason = "read", "the judgement, as read from the reply's JSON"
        else:  # read, then refused (a pairwise object with upstream's "error" key)
            decision, reason = "refused", record.error or "the judgement was not kept"
        out.append(_view(raw, k, decision, reason, judged and last, content, step, JUDGE))
    return out


def _view(
    raw: dict[str, Any], n: int, decision: str, reason: str, kept: bool, content: str | None, step: str, endpoint: str
) -> dict[str, Any]:
    """:func:`~eqbench_nb.viewer.contract.attempt_view` with the text as the step kept it and the content as received
    apart when they differ; what else was sent (``min_p``), the step and the endpoint."""
    view = attempt_view(raw, n, decision, reason, kept)
    if content is not None:
        view["text"] = kept_text(content, step)
        view["raw_text"] = content if content != view["text"] else None
    sent = raw.get("sent")
    view["sent"] = ", ".join(f"{k} {v}" for k, v in sent.items()) if isinstance(sent, dict) else None
    view["endpoint"] = endpoint
    view["step_key"] = step
    return view


def _run_decision(
    run: Eq3Run,
    play: Play,
    judged: StepRecord | None,
    task: float | None,
    contribution: float | None,
    n_turns: int | None,
) -> dict[str, str]:
    """Whether the item counts in the rubric score, and why (or why not)."""
    if contribution is not None and task is not None and judged is not None and judged.scores is not None:
        counted = len(set(judged.scores) & _counted(play.scenario_id))
        reason = f"the mean of the {counted} counted criteria, {task:.2f} of 20: {contribution:.2f} of 100"
        outside = rubric.out_of_range_scores(judged.scores)
        if outside:
            shown_ = ", ".join(f"{k} {v:g}" for k, v in outside.items())
            reason += f"; FLAGGED: outside {rubric.SCALE}, kept as upstream keeps them: {shown_}"
        if judged.error:  # scores left out as not finite (NaN, Infinity): said
            reason += f"; FLAGGED: {judged.error}"
        return {"decision": "scored", "reason": reason}
    if judged is not None and judged.scores is not None:
        return {"decision": "no counted score", "reason": "the judge scored no criterion that counts: left out"}
    if judged is not None:
        return {"decision": "judge error", "reason": f"{judged.error}; left out of the score, as upstream leaves it"}
    if not run.header.own.rubric:
        return {"decision": "not judged", "reason": "the run asks no judge (--no-rubric)"}
    if play.played:
        return {"decision": "not judged yet", "reason": "played, not judged yet: the run is unfinished (run it again)"}
    got = f"{len(play.turns)} of {n_turns if n_turns is not None else '?'} turns answered"
    debrief = ", the debrief not yet" if play.kind != "analysis" else ""
    return {"decision": "unfinished", "reason": f"{got}{debrief}: the run is unfinished (run it again)"}


def _counted(sid: str) -> frozenset[str]:
    kind = kind_of(sid)
    return rubric.counted_criteria(kind, rubric.load_rubric(rubric.rubric_family(kind)))


def _criteria(sid: str, judged: StepRecord | None) -> list[dict[str, Any]]:
    """Each criterion the judge was asked for or gave: its score (0-20; none when not given) and whether it counts
    toward the score."""
    if judged is None or judged.scores is None:
        return []
    asked = rubric.load_rubric(rubric.rubric_family(kind_of(sid))).criteria
    counted = _counted(sid)
    names = [*asked, *(name for name in judged.scores if name not in asked)]
    return [{"criterion": n, "score": judged.scores.get(n), "counts": n in counted} for n in names]


# ---------------------------------------------------------------- a judgements file


def pairwise_samples(judged: PairwiseFile, prices: Prices | None = None) -> pd.DataFrame:
    """One row per pair of models judged on one scenario and iteration, in the file's order (module docstring);
    every request went to the judge, priced at ``prices``' ``judge`` field.

    Beyond :data:`COMMON_COLUMNS`: ``scenario_id``, ``kind``, ``iteration``, ``model_a`` / ``model_b`` (by name, as
    the rating pairs them), ``plus_a`` / ``plus_b`` (the plus counts summed over both orders), ``fraction_a`` (the
    win fraction of A the rating solves; None when no order has a verdict), ``judge_errors`` and ``orders`` (per
    order: who was A0493 and A0488, the plus counts, outcome and fraction for the test model, or the error).
    """
    judge_prices = (prices or Prices()).of_judge
    version = scoring_version(judged.header.own.scoring_version or DEFAULT_VERSION)
    groups: dict[tuple[int, str, str, str], list[PairRecord]] = {}
    for record in judged.records:
        a, b = sorted([record.test, record.other])
        groups.setdefault((record.iteration, record.scenario_id, a, b), []).append(record)
    judges = judged.judges
    rows = [
        _pair_row(key, sorted(group, key=lambda r: (r.order, judges.index(r.judge))), version, judge_prices, judges)
        for key, group in groups.items()
    ]
    return PAIRWISE_FRAME.frame(rows)


def _pair_row(
    key: tuple[int, str, str, str],
    group: list[PairRecord],
    version: ScoringVersion,
    prices: Prices,
    panel_judges: Sequence[str] = (),
) -> dict[str, Any]:
    iteration, sid, a, b = key
    comparisons = [r.comparison(version) for r in group]
    paired = pair_comparisons(comparisons, version)
    pair = paired[0] if paired else None
    attempts, texts = [], []
    judges = list(dict.fromkeys(r.judge for r in group))
    several = len(judges) > 1 or len(panel_judges) > 1
    for record in group:
        views = _judge_attempts(record)
        by = f" (judge {record.judge})" if several else ""
        for view in views:
            view.pop("step_key")
            view["step"] = (f"{record.order}{by}: {_respondents(record)[0]} as A0493, {_respondents(record)[1]} as "
                            "A0488")  # fmt: skip
        attempts += views
        replied = [v["text"] for v in views if v["text"] is not None]  # the reply the judgement rests on, or the last
        texts += [f"[{record.order}{by}]\n{replied[-1]}"] if replied else []
    errors = [f"{r.order}: {r.error}" for r in group if r.verdict is None]
    raw = [a for r in group for a in r.attempts]
    if pair is None:
        decision, reason = "judge error", "; ".join(errors) + " — left out of the rating"
    else:
        decision = f"{a} wins" if pair.fraction_a > 0.5 else f"{b} wins" if pair.fraction_a < 0.5 else "tie"
        n = len(group) - len(errors)
        reason = (f"plus counts over {n} order{'s' if n != 1 else ''}: {a} {pair.plus_a}, {b} {pair.plus_b}; win "
                  f"fraction of {a} {pair.fraction_a:.4f} ({version.name})")  # fmt: skip
        if version.clamp_analysis and clamped(sid, 1.0, 2, 0) == (1, 0):
            reason += "; each order's counts clamped to who won, as HEAD does for an analysis item"
        if errors:
            reason += "; " + "; ".join(errors)
    return {
        "item_id": f"{sid}-i{iteration}-{a}-vs-{b}",
        "key": f"{sid}-i{iteration}-{a}-vs-{b}",
        "label": f"scenario {sid} · iteration {iteration} · A {a} vs B {b}",
        "text": "\n\n".join(texts) or None,
        "messages": None,
        "prompt_source": PAIRWISE_PROMPT_SOURCE,
        "attempts": attempts,
        "n_attempts": len(raw),
        "kept_attempt": None,  # a judgement per order, each with its own kept attempt
        "parsed": pair is not None,
        "decision": decision,
        "reason": reason,
        "groups": [kind_of(sid)],
        "miss": None if pair is None else abs(pair.fraction_a - 0.5),
        **AttemptCosts.of(raw).columns(prices),
        "retried": any(len(r.attempts) > 1 for r in group),
        "events": [],
        "scenario_id": sid,
        "kind": kind_of(sid),
        "iteration": iteration,
        "model_a": a,
        "model_b": b,
        "plus_a": None if pair is None else pair.plus_a,
        "plus_b": None if pair is None else pair.plus_b,
        "fraction_a": None if pair is None else pair.fraction_a,
        "judge_errors": len(errors),
        "orders": [_order_row(r, c) | ({"judge": r.judge} if several else {}) for r, c in zip(group, comparisons)],
        "verdicts": _pair_verdicts(group, version, a, b, panel_judges) if several else [],
    }


def _pair_verdicts(
    group: list[PairRecord], version: ScoringVersion, a: str, b: str, judges: Sequence[str]
) -> list[dict[str, Any]]:
    """Each judge's verdict on the pair side by side, one column per judge of the panel (and the pooled panel's):
    the win fraction of A its judgements give, then each order's outcome for the test model (or its error)."""
    from ..analysis.judges import PANEL

    mine = {j: [r for r in group if r.judge == j] for j in judges}

    def fraction(records: list[PairRecord]) -> float | None:
        paired = pair_comparisons([r.comparison(version) for r in records], version)
        return paired[0].fraction_a if paired else None

    rows: list[dict[str, Any]] = [
        {"measure": f"win fraction of A ({a})"} | {j: fraction(rs) for j, rs in mine.items()} | {PANEL: fraction(group)}
    ]
    for order in ("forward", "reversed"):
        row: dict[str, Any] = {"measure": f"{order}: outcome for the test model"}
        for j, records in mine.items():
            record = next((r for r in records if r.order == order), None)
            outcome = record.comparison(version).get("outcome_for_test_model") if record and record.verdict else None
            row[j] = "not judged" if record is None else f"error: {record.error}" if record.verdict is None else outcome
        rows.append(row | {PANEL: None})
    return rows


def _respondents(record: PairRecord) -> tuple[str, str]:
    """(the model shown as A0493, the one shown as A0488): the test model first in the forward order."""
    return (record.test, record.other) if record.order == "forward" else (record.other, record.test)


def _order_row(record: PairRecord, comparison: Mapping[str, Any]) -> dict[str, Any]:
    first, second = _respondents(record)
    return {
        "order": f"{record.order} ({FORWARD_ORDER if record.order == 'forward' else REVERSED_ORDER})",
        "A0493": first,
        "A0488": second,
        "test": record.test,
        "plus_for_test": comparison.get("plus_for_test"),
        "plus_for_other": comparison.get("plus_for_other"),
        "outcome_for_test": comparison.get("outcome_for_test_model"),
        "fraction_for_test": comparison.get("fraction_for_test"),
        "error": record.error if record.verdict is None else None,
    }
