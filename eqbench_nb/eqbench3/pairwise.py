"""EQ-Bench 3's pairwise judgement: the prompt, the plus-count outcome, the win fraction, each comparison's record.

Reproduces ``core/pairwise_judging.py`` and ``core/elo_helpers.py`` of EQ-bench/eqbench3 at ``8c3a125`` and
``3c21bcc`` (differences selected by :mod:`.versions`):

- **Both orders.** Each pair of transcripts (two models, one scenario, one iteration) is judged twice: the
  *test* model as respondent ``A0493`` and the other as ``A0488`` (``forward``), then swapped (``reversed``).
- **Outcome.** In the judge's JSON every value that is a string (``chain_of_thought_reasoning`` excepted) adds its
  count of ``+`` to ``A0493`` if it contains ``A0493``, else to ``A0488`` if it contains ``A0488``; the respondent
  with more pluses wins (1.0 / 0.0 / 0.5 on a tie, and 0.5 for an empty object). A reversed judgement's counts
  and outcome are turned round to be the test model's.
- **Fraction.** ``diff = |plus_test - plus_other|``, normalised by 30 and capped at 1, blended (8c3a125: 5x linear
  below 0.11, smoothstep into ``(1 - e^(-3 x^0.75)) / (1 - e^-3)``; HEAD: x itself), then the fraction for the
  test model is ``0.5 + blend/2`` for a win, ``0.5 - blend/2`` for a loss, 0.5 for a tie.
- **Analysis clamp** (HEAD, from ``f6042d3``): for a scenario id ≥ 400 the plus counts become 1–0, 0–1 or 0–0 by
  the outcome before the fraction is computed, so an analysis item carries the smallest margin.
- **The prompt.** Each transcript is the conversation, each assistant turn rebuilt from its parsed sections (each
  cut to its character limit with ``... [truncated]``), ``*`` and ``#`` deleted; the debrief likewise, cut at 4,000
  characters; the scenario's notes; placeholders filled by plain replacement in upstream's order. Analysis items
  show the transcript analysed and each model's first answer (cut at 6,000 characters).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .scenarios import ANALYSIS_SCENARIO_IDS, MESSAGE_DRAFTING_SCENARIO_IDS, NO_RP_SCENARIO_IDS
from .versions import ScoringVersion

#: ``MAX_POSSIBLE_DIFF`` (``core/elo_config.py``): the plus margin that counts as the largest.
MAX_POSSIBLE_DIFF = 30
#: Respondent codes in the pairwise prompts.
CODE_A, CODE_B = "A0493", "A0488"
FORWARD_ORDER = "A0493:test / A0488:other"
REVERSED_ORDER = "A0493:other / A0488:test"
#: ``utils/constants.py``: characters kept of each parsed section in the pairwise transcript.
SECTION_CHAR_LIMITS = {"thinking_feeling": 2200, "their_thinking_feeling": 1600, "response": 1600}
SECTION_CHAR_LIMITS_MESSAGE_DRAFT = {"perspective_taking": 2200, "draft_brainstorming": 1600, "draft": 1600}
RAW_RESPONSE_CHAR_LIMIT = 4000
DEBRIEF_CHAR_LIMIT = 4000
ANALYSIS_RESPONSE_CHAR_LIMIT = 6000
TRUNCATED = "... [truncated]"
NO_DEBRIEF = "[No Debrief Provided]"
NO_NOTES = "[No scenario notes available]"


def interpret(verdict: Mapping[str, Any] | None) -> tuple[float, int, int]:
    """(outcome for A0493, pluses for A0493, pluses for A0488) of one judge object (``interpret_pairwise_result``)."""
    if not verdict:
        return 0.5, 0, 0
    a = b = 0
    for key, value in verdict.items():
        if key == "chain_of_thought_reasoning" or not isinstance(value, str):
            continue
        pluses = value.count("+")
        if CODE_A in value:
            a += pluses
        elif CODE_B in value:
            b += pluses
    return (1.0 if a > b else 0.0 if b > a else 0.5), a, b


def blend_sigmoid(x: float) -> float:
    """``custom_blend`` at 8c3a125 (linear gradient 5, sigmoid power 0.75, transition 0 to 0.11), float for float."""
    x = max(0.0, min(1.0, x))
    linear = 5 * x
    if x == 0:
        sig = 0.0
    else:
        sig = (1.0 - math.exp(-3 * (max(0.0, x) ** 0.75))) / (1.0 - math.exp(-3))
    if x <= 0.0:
        weight = 0.0
    elif x >= 0.11:
        weight = 1.0
    else:
        t = (x - 0.0) / (0.11 - 0.0)
        weight = t * t * (3 - 2 * t)
    return (1.0 - weight) * linear + weight * sig


def blend(x: float, version: ScoringVersion) -> float:
    return blend_sigmoid(x) if version.blend == "sigmoid" else x


@dataclass(frozen=True)
class Margin:
    """The derived fields of a comparison, as upstream stores them (the test model's view)."""

    plus_for_test: int
    plus_for_other: int
    plus_diff: int
    plus_diff_normalized: float
    plus_diff_blended: float
    fraction_for_test: float


def fraction(outcome: float, plus_test: int, plus_other: int, version: ScoringVersion) -> Margin:
    """``compute_fraction_for_test``: the margin-based win fraction of the test model."""
    diff = abs(plus_test - plus_other)
    normalized = min(diff / MAX_POSSIBLE_DIFF if MAX_POSSIBLE_DIFF > 0 else 0.0, 1.0)
    blended = blend(normalized, version)
    margin = blended / 2.0 + 0.5
    if outcome == 0.5:
        value = 0.5
    elif outcome == 1.0:
        value = margin
    else:
        value = 1.0 - margin
    return Margin(plus_test, plus_other, diff, normalized, blended, max(0.0, min(1.0, value)))


def clamped(scenario_id: str, outcome: float, plus_test: int, plus_other: int) -> tuple[int, int]:
    """HEAD's ``downscale_analysis_pair``: an analysis item (numeric id ≥ 400) keeps only who won."""
    try:
        analysis = int(scenario_id) >= 400
    except ValueError:
        return plus_test, plus_other
    if not analysis:
        return plus_test, plus_other
    if outcome == 1.0:
        return 1, 0
    if outcome == 0.0:
        return 0, 1
    return 0, 0


def flip(outcome: float) -> float:
    return 0.0 if outcome == 1.0 else 1.0 if outcome == 0.0 else 0.5


def score_verdict(
    verdict: Mapping[str, Any], test_is_a: bool, scenario_id: str, version: ScoringVersion
) -> tuple[float, Margin]:
    """(outcome for the test model, its margin) of one judgement: the judge object, whether the test model was
    ``A0493`` (the forward order), the scenario (for the analysis clamp)."""
    outcome_a, plus_a, plus_b = interpret(verdict)
    if test_is_a:
        outcome, plus_test, plus_other = outcome_a, plus_a, plus_b
    else:
        outcome, plus_test, plus_other = flip(outcome_a), plus_b, plus_a
    if version.clamp_analysis:
        plus_test, plus_other = clamped(scenario_id, outcome, plus_test, plus_other)
    return outcome, fraction(outcome, plus_test, plus_other, version)


def recompute(comparison: Mapping[str, Any], version: ScoringVersion) -> dict[str, Any] | None:
    """The fields ``_recompute_comparison_stats`` derives for a stored comparison (None for an error record or one
    without a judge object): the order string says whether the test model was ``A0493``."""
    if "error" in comparison or not isinstance(comparison.get("judge_response"), dict):
        return None
    test_is_a = str(comparison.get("order", "")).startswith("A0493:test")
    outcome, m = score_verdict(comparison["judge_response"], test_is_a, str(comparison.get("scenario_id")), version)
    return {
        "plus_for_test": m.plus_for_test,
        "plus_for_other": m.plus_for_other,
        "plus_diff": m.plus_diff,
        "plus_diff_normalized": m.plus_diff_normalized,
        "plus_diff_blended": m.plus_diff_blended,
        "outcome_for_test_model": outcome,
        "fraction_for_test": m.fraction_for_test,
    }


# ---------------------------------------------------------------- the prompt


def _cut(text: str, limit: int) -> str:
    return text if not text or len(text) <= limit else text[:limit] + TRUNCATED


def _sections_cut(parsed: Mapping[str, Any], limits: Mapping[str, int]) -> dict[str, str]:
    """``truncate_parsed_sections``: the sections named in ``limits``, each cut to its limit (the raw text left out)."""
    out: dict[str, str] = {}
    for name, content in parsed.items():
        if name == "raw" or name not in limits:
            continue
        out[name] = content[: limits[name]] + TRUNCATED if content and len(content) > limits[name] else content
    for name in limits:
        out.setdefault(name, "")
    return out


def _sections_text(sections: Mapping[str, str]) -> str:
    """``format_parsed_response`` of ``core/elo_helpers.py`` (parts joined by blank lines, ``--`` last)."""
    parts: list[str] = []
    if "thinking_feeling" in sections:
        parts += [
            "# I'm thinking & feeling",
            sections.get("thinking_feeling", ""),
            "# They're thinking & feeling",
            sections.get("their_thinking_feeling", ""),
            "# My response",
            sections.get("response", ""),
        ]
    elif "perspective_taking" in sections:
        parts += [
            "# Perspective-taking",
            sections.get("perspective_taking", ""),
            "# Draft brainstorming",
            sections.get("draft_brainstorming", ""),
            "# Draft",
            sections.get("draft", ""),
        ]
    if parts:
        parts.append("--")
    return "\n\n".join(parts)


def conversation_text(
    history: Sequence[Mapping[str, str]], parsed: Sequence[Mapping[str, Any]], scenario_id: str
) -> str:
    """``format_conversation_history`` (no token cap in effect: upstream's is 9,999,999 words)."""
    no_rp = scenario_id in NO_RP_SCENARIO_IDS
    drafting = scenario_id in MESSAGE_DRAFTING_SCENARIO_IDS
    analysis = scenario_id in ANALYSIS_SCENARIO_IDS
    entries: list[str] = []
    index = 0
    for message in history:
        role = str(message.get("role", "unknown")).capitalize()
        content = str(message.get("content", ""))
        if role.lower() == "assistant":
            if parsed and index < len(parsed) and not no_rp and not analysis:
                limits = SECTION_CHAR_LIMITS_MESSAGE_DRAFT if drafting else SECTION_CHAR_LIMITS
                content = _sections_text(_sections_cut(parsed[index], limits))
                index += 1
            elif no_rp or analysis:
                content = _cut(content, RAW_RESPONSE_CHAR_LIMIT if no_rp else ANALYSIS_RESPONSE_CHAR_LIMIT)
                if parsed and index < len(parsed):
                    index += 1
            else:
                content = _cut(content, RAW_RESPONSE_CHAR_LIMIT)
                if parsed and index < len(parsed):
                    index += 1
        content = content.replace("*", "").replace("#", "")
        entries.append(f"{role}:\n{content}\n---")
    return "\n".join(entries)


@dataclass(frozen=True)
class Transcript:
    """What the pairwise judge sees of one model's play of one scenario."""

    history: tuple[Mapping[str, str], ...]  # user and assistant messages, in order (no debrief)
    parsed: tuple[Mapping[str, Any], ...]  # each assistant turn's sections (and "raw")
    debrief: str | None


def _debrief_text(debrief: str | None) -> str:
    if not debrief:
        return NO_DEBRIEF
    text = debrief.replace("*", "").replace("#", "")
    return _cut(text, DEBRIEF_CHAR_LIMIT)


def _first_answer(t: Transcript) -> str:
    raw = next((str(m.get("content", "")) for m in t.history if m.get("role") == "assistant"), "")
    raw = raw.replace("*", "").replace("#", "")
    if not raw and t.parsed:
        raw = str(t.parsed[0].get("raw", ""))
    return _cut(raw, ANALYSIS_RESPONSE_CHAR_LIMIT)


def pairwise_prompt(
    template: str, scenario_id: str, description: str, notes: Mapping[str, str], a: Transcript, b: Transcript
) -> str:
    """The pairwise judge's prompt with ``a`` as A0493 and ``b`` as A0488 (``do_pairwise_judge``)."""
    analysis = scenario_id in ANALYSIS_SCENARIO_IDS
    note = notes.get(scenario_id.replace("scenario", "").split("_")[0], NO_NOTES)
    prompt = template.replace("{scenario_description}", description)
    prompt = prompt.replace("{scenario_notes}", note)
    prompt = prompt.replace("{conversation_history_A}", conversation_text(a.history, a.parsed, scenario_id))
    prompt = prompt.replace("{conversation_history_B}", conversation_text(b.history, b.parsed, scenario_id))
    if not analysis:
        prompt = prompt.replace("{debrief_A}", _debrief_text(a.debrief))
        prompt = prompt.replace("{debrief_B}", _debrief_text(b.debrief))
    else:
        prompt = prompt.replace("{transcript_being_analysed}", description.strip())
        prompt = prompt.replace("{response_A}", _first_answer(a))
        prompt = prompt.replace("{response_B}", _first_answer(b))
    return prompt


PAIRWISE_FILES = {"roleplay": "pairwise_prompt_eqbench3.txt", "analysis": "pairwise_prompt_eqbench3_analysis.txt"}


def pairwise_template(kind: str, path: str | None = None) -> str:
    """The pairwise prompt of a task's kind (analysis tasks have their own), read from the pinned file."""
    from . import files

    return files.read_text(PAIRWISE_FILES["analysis" if kind == "analysis" else "roleplay"], path)
