"""How EQ-Bench asks each question: the decoding schedule and the retry decisions (SPEC §4, §7).

A protocol reproduces one upstream pipeline, named in every run header (:data:`UPSTREAM`).
:func:`protocol_plan` gives the schedule; :func:`answer_question` makes the pipeline's
decisions for one question (when to retry, what to store).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..runner.errors import RunnerError
from ..runner.transport import Transport
from .parsing import default_parser, parse_answer
from .prompts import build_messages, uses_revision
from .questions import Question
from .runs import RunRecord, score_record
from .scoring import attempt_succeeded

PROTOCOLS = ("official", "lm-eval")

#: The upstream pipeline each protocol reproduces, recorded in every run header.
UPSTREAM: dict[str, dict[str, str]] = {
    "official": {
        "pipeline": "EQ-Bench v2.3",
        "repository": "EQ-bench/EQ-Bench",
        "commit": "d28c60c514fe6667dc5818114ed10088f91f09f3",
    },
    "lm-eval": {"pipeline": "lm-evaluation-harness eq_bench task", "repository": "EleutherAI/lm-evaluation-harness"},
}
OFFICIAL_TEMPERATURE = 0.01
OFFICIAL_TEMPERATURE_STEP = 0.15


@dataclass(frozen=True)
class Protocol:
    """How each question is decoded: one temperature per attempt, a token limit, stop strings."""

    name: str
    temperatures: tuple[float, ...]
    max_tokens: int
    stop: tuple[str, ...] = ()
    #: sent with every request when set (the upstream pipelines send none); for reproducible demos
    seed: int | None = None

    @property
    def attempts(self) -> int:
        return len(self.temperatures)


def protocol_plan(
    protocol: str, version: str, revise: bool, temperature: float | None = None, seed: int | None = None
) -> Protocol:
    """The decoding schedule: ``official`` (SPEC §4) or ``lm-eval`` (SPEC §7).

    official: temperature 0.01, +0.15 after each failed parse, 3 attempts; 60 tokens, 600 with
    revision, 1000 for v1 (its prompt always asks for a critique). lm-eval: greedy, 80 tokens,
    one attempt, stop at the first blank line. ``temperature`` replaces the first attempt's
    temperature (0.01 / 0) for studies of sampling noise; the +0.15 steps stay. ``seed`` is sent
    with every request (no upstream pipeline sends one): with a fresh local server it makes a run
    repeat exactly, for demonstrations.
    """
    if temperature is not None and not 0 <= temperature <= 2:
        raise RunnerError(f"--temperature must be between 0 and 2, not {temperature}")
    if protocol == "official":
        base = OFFICIAL_TEMPERATURE if temperature is None else temperature
        temps = tuple(round(base + OFFICIAL_TEMPERATURE_STEP * i, 4) for i in range(3))
        tokens = 1000 if version == "v1" else 600 if uses_revision(version, revise) else 60
        return Protocol("official", temps, tokens, seed=seed)
    if protocol == "lm-eval":
        if revise:
            raise RunnerError("--revise needs the official protocol (lm-eval has no revision step)")
        return Protocol("lm-eval", (0.0 if temperature is None else float(temperature),), 80, ("\n\n",), seed)
    raise RunnerError(f"unknown protocol {protocol!r}; choose one of {', '.join(PROTOCOLS)}")


async def answer_question(
    transport: Transport, question: Question, plan: Protocol, revise: bool, model: str, run_id: str, iteration: int
) -> RunRecord:
    """Ask one question under the protocol, retrying failed parses at rising temperature.

    The decisions of the pinned upstream pipeline (EQ-bench/EQ-Bench d28c60c, process_question):
    an attempt succeeds when the v1 scorer accepts its first pass (and, revising, its revised pass
    too); an all-zero answer fails. After the last attempt nothing is stored, unless revising and
    an earlier attempt had one scoring pass: the first such partial answer is kept.
    """
    revising = uses_revision(question.version, revise)
    parser = default_parser(question.version)
    messages = build_messages(question, revise)
    ref = question.reference_normalised
    attempts: list[dict[str, Any]] = []
    stored, stored_at, partial, partial_at = None, None, None, None
    for temperature in plan.temperatures:
        done = await transport.complete(messages, temperature, plan.max_tokens, plan.stop, plan.seed)
        attempts.append(
            {
                "text": done.text,
                "temperature": temperature,
                "latency_s": done.latency_s,
                "prompt_tokens": done.prompt_tokens,
                "completion_tokens": done.completion_tokens,
                "finish_reason": done.finish_reason,
                "transport_retries": len(done.faults),
                "transport_faults": done.faults,
                "error": done.error,
            }
        )
        parsed = parse_answer(done.text, revise=revising, parser=parser)
        first_ok = attempt_succeeded(parsed.first_pass, ref)
        revised_ok = revising and attempt_succeeded(parsed.revised, ref)
        if first_ok and (revised_ok or not revising):
            stored, stored_at = parsed, len(attempts) - 1
            break
        if revising and partial is None and (first_ok or revised_ok):
            partial, partial_at = parsed, len(attempts) - 1
    if stored is None and partial is not None:
        stored, stored_at = partial, partial_at
    record = RunRecord(
        model,
        run_id,
        iteration,
        question.id,
        attempts,
        dict(stored.first_pass) if stored else {},
        dict(stored.revised) if stored else {},
        answer_attempt=stored_at,
    )
    return score_record(record, question)
