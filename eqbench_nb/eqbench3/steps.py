"""EQ-Bench 3's conversation and judge steps, as async functions over the runner's :class:`Transport`.

- :func:`play` is a scenario played by the model under test: an **async generator** given the steps already in
  the run file for this (iteration, scenario); it asks each remaining turn in order (each after the last answer,
  with the conversation so far) and yields one :class:`~.runs.StepRecord` per finished turn, then the debrief.
  The runner appends and fsyncs each record as it is yielded, so a killed run resumes at the first unfinished
  turn and never asks a finished one again.
- :func:`judge_rubric` is the rubric judgement of a played scenario; :func:`judge_pair` one pairwise judgement.

Failures, upstream's way where it has one:

- A turn or debrief whose request fails on its own (a 400, a reply with no content) is asked again, up to
  :data:`SUBJECT_ATTEMPTS` times in all (upstream's client tries any failing request 3 times); then
  :class:`StepFailed`: the scenario stops there, its finished turns kept, and the next resume asks from that turn
  (upstream marks the task errored and resumes it the same way on its next run). Transport faults (429, 5xx,
  timeouts) are retried by the transport under its own budget and never count here.
- A judgement whose reply does not parse is asked again, up to :data:`JUDGE_ATTEMPTS` times; then it is recorded as
  an **error**, with the judge's raw text of every attempt, and left out of the score (and said). Upstream makes one
  attempt, keeps the error silently, and asks again only on a later run. A judgement that got no reply at all is
  :class:`StepFailed` (asked again on resume).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..model_numbers import finite_json
from ..runner.errors import RunnerError, TransportGaveUp
from ..runner.transport import Completion, Transport
from . import prompts, rubric
from .judge_json import JudgeJSONError, pairwise_object
from .pairwise import Transcript, pairwise_prompt
from .runs import DEBRIEF, RUBRIC, PairRecord, StepRecord, turn_step
from .scenarios import Scenario
from .versions import ScoringVersion

#: Tries of a request that fails on its own (upstream's ``MAX_RETRIES``).
SUBJECT_ATTEMPTS = 3
#: Tries of a judgement whose reply does not parse before it is recorded as an error.
JUDGE_ATTEMPTS = 3


class StepFailed(TransportGaveUp):
    """A step got no usable reply in its attempts: its scenario (or judgement) is left for the next resume."""


def received(c: Completion) -> str | None:
    """The reply's content as the endpoint sent it (before the runner's own reasoning removal), None if none."""
    return c.raw_text if c.raw_text is not None else c.text


def received_in(attempt: Mapping[str, Any]) -> str | None:
    """:func:`received` of an attempt as the run file stores it (``raw_text`` is there only when the runner took
    reasoning off the content); None when it got no text."""
    raw, text = attempt.get("raw_text"), attempt.get("text")
    content = raw if raw is not None else text
    return content if isinstance(content, str) else None


def kept_text(content: str, step: str) -> str:
    """What a step keeps of a reply's content: upstream's reasoning removal (:func:`.prompts.subject_text`), and a
    debrief or a judge's reply stripped (a turn's answer is kept as it is)."""
    text = prompts.subject_text(content)
    return text if step.startswith("turn-") else text.strip()


@dataclass(frozen=True)
class Subject:
    """How the model under test is asked: its transport and the settings every turn shares."""

    transport: Transport
    model: str
    run_id: str
    templates: prompts.Templates
    min_p: bool = True  # send upstream's min_p on turns (not to api.openai.com, as upstream)
    max_tokens: int = prompts.TURN_MAX_TOKENS
    seed: int | None = None
    system: tuple[dict[str, str], ...] = ()  # upstream's /no_think for Qwen3 at OpenRouter (prompts.system_messages)


@dataclass(frozen=True)
class Judge:
    """How the judge is asked: its transport, its name, and upstream's system message for it, if any."""

    transport: Transport
    model: str
    system: tuple[dict[str, str], ...] = ()
    max_tokens: int = rubric.JUDGE_MAX_TOKENS


async def _ask(
    transport: Transport,
    messages: list[dict[str, str]],
    temperature: float,
    max_tokens: int,
    seed: int | None,
    extra: dict[str, Any] | None,
    what: str,
) -> tuple[str, list[dict[str, Any]]]:
    """(the reply's content, every attempt) for one request asked up to :data:`SUBJECT_ATTEMPTS` times."""
    attempts: list[dict[str, Any]] = []
    for _ in range(SUBJECT_ATTEMPTS):
        c = await transport.complete(messages, temperature, max_tokens, (), seed, extra)
        attempt = c.attempt(temperature)
        if extra:
            attempt["sent"] = {k: v for k, v in extra.items() if f"no_{k}" not in transport.adapter.deviations}
        attempts.append(attempt)
        content = received(c)
        if content is not None:
            return content, attempts
    raise StepFailed(f"{what}: no reply in {SUBJECT_ATTEMPTS} attempts (last: {attempts[-1].get('error')})")


def _done_turns(scenario: Scenario, done: Mapping[str, StepRecord]) -> list[str]:
    answers: list[str] = []
    while (r := done.get(turn_step(len(answers)))) is not None and r.text is not None:
        answers.append(r.text)
    later = [s for s in done if s.startswith("turn-") and int(s.split("-")[1]) > len(answers) + 1]
    if later:
        raise RunnerError(
            f"the run file holds {', '.join(sorted(later))} of scenario {scenario.id} but not "
            f"{turn_step(len(answers))}: it was edited; move it aside"
        )
    return answers


async def play(
    subject: Subject, scenario: Scenario, iteration: int, done: Mapping[str, StepRecord]
) -> AsyncIterator[StepRecord]:
    """Play ``scenario`` (module docstring): yield each remaining turn's record, then the debrief's."""
    answers = _done_turns(scenario, done)
    extra = {"min_p": prompts.TURN_MIN_P} if subject.min_p else None
    for turn in range(len(answers), len(scenario.prompts)):
        messages = [*subject.system, *prompts.conversation(scenario, answers, subject.templates)]
        messages.append({"role": "user", "content": prompts.turn_prompt(scenario, turn, subject.templates)})
        content, attempts = await _ask(
            subject.transport,
            messages,
            prompts.TURN_TEMPERATURE,
            subject.max_tokens,
            subject.seed,
            extra,
            f"scenario {scenario.id} {turn_step(turn)}",
        )
        text = kept_text(content, turn_step(turn))
        answers.append(text)
        yield StepRecord(subject.model, subject.run_id, iteration, scenario.id, turn_step(turn), attempts, text)
    if scenario.has_debrief and DEBRIEF not in done:
        messages = [*subject.system, *prompts.conversation(scenario, answers, subject.templates)]
        messages.append({"role": "user", "content": subject.templates.debrief})
        content, attempts = await _ask(
            subject.transport,
            messages,
            prompts.DEBRIEF_TEMPERATURE,
            subject.max_tokens,
            subject.seed,
            None,
            f"scenario {scenario.id} debrief",
        )
        text = kept_text(content, DEBRIEF)
        yield StepRecord(subject.model, subject.run_id, iteration, scenario.id, DEBRIEF, attempts, text)


async def _judge(
    judge: Judge, prompt: str, read: Any, what: str
) -> tuple[Any | None, str | None, list[dict[str, Any]]]:
    """(the parsed judgement or None, the last parse error, every attempt): asked until a reply parses, at most
    :data:`JUDGE_ATTEMPTS` times; :class:`StepFailed` when no attempt got a reply at all."""
    attempts: list[dict[str, Any]] = []
    error: str | None = None
    replies = 0
    for _ in range(JUDGE_ATTEMPTS):
        c = await judge.transport.complete(
            [*judge.system, {"role": "user", "content": prompt}], rubric.JUDGE_TEMPERATURE, judge.max_tokens
        )
        attempt = c.attempt(rubric.JUDGE_TEMPERATURE)
        attempts.append(attempt)
        content = received(c)
        if content is None:
            continue
        replies += 1
        text = kept_text(content, RUBRIC)  # upstream's client strips the judge's reasoning too
        try:
            return read(text), None, attempts
        except JudgeJSONError as exc:
            error = str(exc)
            attempt["parse_error"] = error
    if not replies:
        raise StepFailed(f"{what}: the judge sent no reply in {JUDGE_ATTEMPTS} attempts")
    return None, error, attempts


async def judge_rubric(
    judge: Judge,
    scenario: Scenario,
    transcript: Transcript,
    version: ScoringVersion,
    model: str,
    run_id: str,
    iteration: int,
) -> StepRecord:
    """The rubric judgement of one played scenario: its scores, or an error with the judge's raw texts."""
    family = rubric.rubric_family(scenario.kind)
    prompt = rubric.rubric_prompt(
        rubric.load_rubric(family), scenario.kind, transcript.history, transcript.parsed, transcript.debrief
    )
    judged, error, attempts = await _judge(
        judge, prompt, lambda text: rubric.read_judgement(text, version.judge_json), f"scenario {scenario.id} rubric"
    )
    scores, error = judged if judged is not None else (None, error)  # with scores, error says what was left out
    if scores is None:
        error = f"the judge's reply did not parse in {len(attempts)} attempts (last: {error})"
    return StepRecord(
        model, run_id, iteration, scenario.id, RUBRIC, attempts, None, judge.model, scores, error, version.judge_json
    )


async def judge_pair(
    judge: Judge,
    run_id: str,
    template: str,
    scenario: Scenario,
    notes: Mapping[str, str],
    iteration: int,
    test: tuple[str, Transcript],
    other: tuple[str, Transcript],
    order: str,
    version: ScoringVersion,
) -> PairRecord:
    """One pairwise judgement: ``test`` as A0493 for ``forward``, as A0488 for ``reversed``."""
    first, second = (test, other) if order == "forward" else (other, test)
    prompt = pairwise_prompt(template, scenario.id, scenario.description, notes, first[1], second[1])
    verdict, error, attempts = await _judge(
        judge,
        prompt,
        lambda text: pairwise_object(text, version.judge_json),
        f"scenario {scenario.id} {test[0]} vs {other[0]} ({order})",
    )
    if isinstance(verdict, dict):  # its numbers count for nothing, but must not make the run file non-JSON
        verdict, not_finite = finite_json(verdict)
        if not_finite:
            attempts[-1]["not_finite"] = f"left out as null, not finite: {', '.join(not_finite)}"
    if isinstance(verdict, dict) and "error" in verdict:  # upstream takes an "error" key for its own error record
        error, verdict = f"the judge's object has an 'error' key: {str(verdict['error'])[:200]}", None
    elif verdict is None:
        error = f"the judge's reply did not parse in {len(attempts)} attempts (last: {error})"
    return PairRecord(
        judge.model,
        run_id,
        iteration,
        scenario.id,
        test[0],
        other[0],
        order,
        attempts,
        verdict,
        error,
        version.judge_json,
    )
