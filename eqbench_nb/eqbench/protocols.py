"""How EQ-Bench asks each question: each protocol reproduces one upstream pipeline, decision for decision.

Each protocol and the upstream pipeline it reproduces (EQ-bench/EQ-Bench unless said), with its decisions:

- ``official``: v2.3, commit d28c60c (``lib/eq_bench_utils.py`` ``process_question``): sets v2, v1, de. 60 tokens with
  or without revision (``COMPLETION_TOKENS = 60``). The text is split into first and revised passes only with
  ``--revise``, v1 included (its ``-revise`` flag defaults to off, so a v1 answer is parsed whole although its prompt
  asks for a critique). Parsers ``official`` / ``de``; names matched exactly.
- ``official-v2.4``: v2.4, commit 92e4a8f: sets v2, de, pl, German from the file every v2.4-era commit carries
  (corrected in f84568e; :mod:`.questions`). 600 tokens with revision, 60 without; markdown stripped (parsers ``v2.4`` /
  ``de-v2.4`` / ``pl``); names matched case-insensitively, exactly four names as written.
- ``official-v1.1``: v1.1, branch main_v1_1 (commit 8e64f95, ``lib/run_bench.py``), the paper-era pipeline: set v1 only,
  always split into first and revised passes, 1000 tokens.
- ``lm-eval``: EleutherAI/lm-evaluation-harness ``eq_bench`` task: greedy, 80 tokens, stop at the first blank line, one
  attempt, the whole text parsed. The harness's task is set v2 (v2.3 parser, exact names); sets de and pl run the same
  way, read with their own parser and matching.

Shared by the three official pipelines: temperature 0.01 on the first attempt, +0.15 after each failed
one, 3 attempts. An attempt fails when the v1 scorer (``calculate_score``) returns nothing for its first
pass or, when the text is split, for its revised pass (:func:`~eqbench_nb.eqbench.scoring.upstream_v1_accepts`:
an all-zero answer fails). After the last attempt nothing is stored — the question is unparseable, an
all-zero last answer included — unless the text is split and an earlier attempt had one accepted pass: the
first such partial answer is stored. An attempt whose rating upstream's float() cannot read fails outright.

A deliberate departure from every upstream pipeline: transport faults (429, 5xx, timeouts, resets) are
retried by the transport and never cost an attempt (upstream spends one), since a fault says nothing about
the model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..runner.errors import RunnerError
from ..runner.transport import Transport
from .parsing import ParsedAnswer, parse_answer
from .prompts import build_messages
from .questions import Question
from .runs import RunRecord, score_record
from .scoring import upstream_v1_problem

PROTOCOLS = ("official", "official-v2.4", "official-v1.1", "lm-eval")

#: The upstream pipeline each protocol reproduces, recorded in every run header.
UPSTREAM: dict[str, dict[str, str]] = {
    "official": {
        "pipeline": "EQ-Bench v2.3",
        "repository": "EQ-bench/EQ-Bench",
        "commit": "d28c60c514fe6667dc5818114ed10088f91f09f3",
    },
    "official-v2.4": {
        "pipeline": "EQ-Bench v2.4",
        "repository": "EQ-bench/EQ-Bench",
        "commit": "92e4a8f425acc9551aad63f93d79f7112988d554",
    },
    "official-v1.1": {
        "pipeline": "EQ-Bench v1.1 (paper era, branch main_v1_1)",
        "repository": "EQ-bench/EQ-Bench",
        "commit": "8e64f957b32779f8a570adf5dfe367336322a5ed",
    },
    "lm-eval": {"pipeline": "lm-evaluation-harness eq_bench task", "repository": "EleutherAI/lm-evaluation-harness"},
}
#: The question sets each protocol's pipeline runs.
SETS: dict[str, tuple[str, ...]] = {
    "official": ("v2", "v1", "de"),
    "official-v2.4": ("v2", "de", "pl"),
    "official-v1.1": ("v1",),
    "lm-eval": ("v2", "de", "pl"),
}
OFFICIAL_TEMPERATURE = 0.01
OFFICIAL_TEMPERATURE_STEP = 0.15
OFFICIAL_ATTEMPTS = 3


@dataclass(frozen=True)
class Protocol:
    """How each question of one set is asked, read and retried under one upstream pipeline."""

    name: str
    temperatures: tuple[float, ...]  # one per attempt
    max_tokens: int
    parser: str  # see eqbench_nb.eqbench.parsing
    split_revision: bool  # read first and revised passes
    match: str  # how names are matched to the key: "exact" or "casefold"
    stop: tuple[str, ...] = ()
    #: sent with every request when set (no upstream pipeline sends one); for reproducible demos
    seed: int | None = None
    upstream: dict[str, str] = field(default_factory=dict)

    @property
    def attempts(self) -> int:
        return len(self.temperatures)


def protocol_plan(
    protocol: str, version: str, revise: bool, temperature: float | None = None, seed: int | None = None
) -> Protocol:
    """The protocol's decisions for one question set (see the module docstring's table).

    ``temperature`` replaces the first attempt's temperature (0.01, or 0 for lm-eval) for studies of
    sampling noise; the +0.15 steps stay. ``seed`` is sent with every request: with a fresh local server
    it makes a run repeat exactly, for demonstrations.
    """
    if protocol not in PROTOCOLS:
        raise RunnerError(f"unknown protocol {protocol!r}; choose one of {', '.join(PROTOCOLS)}")
    if version not in SETS[protocol]:
        raise RunnerError(
            f"the {protocol} protocol ({UPSTREAM[protocol]['pipeline']}) runs the question sets "
            f"{', '.join(SETS[protocol])}, not {version!r}"
            + ("; Polish is run by official-v2.4 and lm-eval" if version == "pl" else "")
        )
    if temperature is not None and not 0 <= temperature <= 2:
        raise RunnerError(f"--temperature must be between 0 and 2, not {temperature}")
    up = UPSTREAM[protocol]
    if protocol == "lm-eval":
        if revise:
            raise RunnerError("--revise needs an official protocol (lm-eval has no revision step)")
        greedy = (0.0 if temperature is None else float(temperature),)
        # the harness's task is English v2; a German or Polish run is read with that set's own parser and the
        # name matching of the pipeline that has it (v2.3 German exact, v2.4 Polish case-insensitive)
        parser, match = {"v2": ("official", "exact"), "de": ("de", "exact"), "pl": ("pl", "casefold")}[version]
        return Protocol("lm-eval", greedy, 80, parser, False, match, ("\n\n",), seed, up)
    base = OFFICIAL_TEMPERATURE if temperature is None else temperature
    temps = tuple(round(base + OFFICIAL_TEMPERATURE_STEP * i, 4) for i in range(OFFICIAL_ATTEMPTS))
    if protocol == "official":
        parser = "de" if version == "de" else "official"
        return Protocol(protocol, temps, 60, parser, bool(revise), "exact", seed=seed, upstream=up)
    if protocol == "official-v2.4":
        parser = {"v2": "v2.4", "de": "de-v2.4", "pl": "pl"}[version]
        return Protocol(
            protocol, temps, 600 if revise else 60, parser, bool(revise), "casefold", seed=seed, upstream=up
        )
    return Protocol(protocol, temps, 1000, "official", True, "exact", seed=seed, upstream=up)  # official-v1.1


def attempt_outcome(parsed: ParsedAnswer, question: Question, plan: Protocol) -> str:
    """ "stored" (the attempt succeeds), "partial" (one pass accepted, text split), or "failed"."""
    return attempt_decision(parsed, question, plan)[0]


def attempt_decision(parsed: ParsedAnswer, question: Question, plan: Protocol) -> tuple[str, str]:
    """(:func:`attempt_outcome`, why) for one attempt: what the v1 scorer made of each pass read."""
    ref = question.reference_normalised
    try:
        first = upstream_v1_problem(parsed.first_pass, ref, plan.match)
        revised = upstream_v1_problem(parsed.revised, ref, plan.match) if plan.split_revision else None
    except ValueError:  # upstream's float() raised: the attempt fails, nothing of it is kept
        return "failed", "a rating upstream's float() cannot read (e.g. 7,5): the whole attempt fails"
    if first is None and revised is None:
        return "stored", "the v1 scorer accepts " + ("both passes" if plan.split_revision else "the answer")
    if plan.split_revision and (first is None or revised is None):
        failing, problem = ("revised", revised) if first is None else ("first", first)
        return "partial", f"only one pass accepted; the {failing} pass: {problem}"
    if plan.split_revision:
        return "failed", f"first pass: {first}; revised pass: {revised}"
    return "failed", str(first)


async def answer_question(
    transport: Transport, question: Question, plan: Protocol, revise: bool, model: str, run_id: str, iteration: int
) -> RunRecord:
    """Ask one question under the protocol, retrying failed attempts at rising temperature (see above)."""
    messages = build_messages(question, revise)
    attempts: list[dict[str, Any]] = []
    stored: tuple[int, ParsedAnswer] | None = None
    partial: tuple[int, ParsedAnswer] | None = None
    for temperature in plan.temperatures:
        done = await transport.complete(messages, temperature, plan.max_tokens, plan.stop, plan.seed)
        attempts.append(done.attempt(temperature))
        parsed = parse_answer(done.text, revise=plan.split_revision, parser=plan.parser)
        outcome = attempt_outcome(parsed, question, plan)
        if outcome == "stored":
            stored = (len(attempts) - 1, parsed)
            break
        if outcome == "partial" and partial is None:
            partial = (len(attempts) - 1, parsed)
    kept = stored or partial
    record = RunRecord(
        model,
        run_id,
        iteration,
        question.id,
        attempts,
        dict(kept[1].first_pass) if kept else {},
        dict(kept[1].revised) if kept else {},
        answer_attempt=kept[0] if kept else None,
    )
    return score_record(record, question, plan.match)
