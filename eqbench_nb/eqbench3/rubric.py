"""EQ-Bench 3's rubric judgement: the prompt, the judge's scores, which count, and the 0-100 score.

Reproduces ``prepare_rubric_prompt_text`` / ``_parse_rubric_scores`` (``core/conversation.py``),
``_execute_rubric_scoring_task`` and ``calculate_final_rubric_score`` (``core/benchmark.py``) of EQ-bench/eqbench3 at
``3c21bcc`` (the JSON reading of ``8c3a125`` selectable through :mod:`.versions`):

- **Prompt.** The transcript is every message as ``User:``/``Assistant:`` then the text and a line break, joined by
  ``---`` lines; a user message as sent (master prompt included); a role-play or drafting reply rebuilt from its
  sections (headings, each section, ``--`` last), an analysis or no-role-play reply as it is. The role-play template
  adds the debrief; the output format is a JSON object with ``chain_of_thought_reasoning`` and each criterion
  (``rubric_scoring_criteria.txt``: 18 for role-plays, 6 for analysis) as ``0-20``. Every ``*`` and ``#`` of the
  finished prompt is then deleted. (Upstream's optional truncation is hard-coded off.)
- **Judge.** One user message, temperature 0, 8,000 tokens, no ``min_p``.
- **Scores.** Every numeric value of the judge's object is a score; a string value (other than the reasoning)
  gives the first number in it (``"15/20"`` is 15); no score at all is a failed judgement.
- **What counts.** Role-play and drafting tasks count only ``demonstrated_empathy``, ``pragmatic_ei``,
  ``depth_of_insight``, ``social_dexterity``, ``emotional_reasoning`` and ``message_tailoring`` (upstream's allowed set
  also names four analysis criteria a role-play is never asked for); the other 12 (boundary setting, warmth,
  sycophancy...) only feed the site's ability chart. Analysis tasks count all six of theirs. A task's score is the
  mean of its counted scores (``overall_eq`` would weigh 3, but no prompt asks for it); the run's is the mean of its
  tasks' scores, rounded to 2 decimals on 0-20, times 5 on the 0-100 scale upstream prints.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..model_numbers import NotFinite, Scale, out_of_range, read_model_number
from . import files
from .judge_json import JudgeJSONError, rubric_object
from .scenarios import ANALYSIS, NO_RP, ROLEPLAY

JUDGE_TEMPERATURE = 0.0
JUDGE_MAX_TOKENS = 8000
#: From the criteria's 0-20 to the 0-100 upstream prints.
TO_100 = 5.0
#: The range the judge is asked to score each criterion in.
SCALE = Scale(0, 20)
PROMPT_FILES = {ROLEPLAY: "rubric_scoring_prompt.txt", ANALYSIS: "rubric_scoring_prompt_analysis.txt"}
CRITERIA_FILES = {ROLEPLAY: "rubric_scoring_criteria.txt", ANALYSIS: "rubric_scoring_criteria_analysis.txt"}
#: ``STANDARD_ALLOWED_RUBRIC_CRITERIA`` of ``calculate_final_rubric_score``.
STANDARD_COUNTED = frozenset(
    {
        "demonstrated_empathy",
        "pragmatic_ei",
        "depth_of_insight",
        "social_dexterity",
        "emotional_reasoning",
        "message_tailoring",
        "theory_of_mind",
        "subtext_identification",
        "intellectual_grounding",
        "correctness",
    }
)
REASONING_KEY = "chain_of_thought_reasoning"
REASONING_FORMAT = "detailed chain of thought reasoning about the coming scoring decisions"
_NUMBER = re.compile(r"\b(\d+(\.\d+)?)\b")
_SECTION_NAMES = (
    "thinking_feeling",
    "their_thinking_feeling",
    "response",
    "perspective_taking",
    "draft_brainstorming",
    "draft",
)


def rubric_family(kind: str) -> str:
    """Analysis tasks have their own rubric; role-play, drafting and no-role-play share the standard one."""
    return ANALYSIS if kind == ANALYSIS else ROLEPLAY


@dataclass(frozen=True)
class Rubric:
    template: str
    criteria: tuple[str, ...]

    @property
    def output_format(self) -> str:
        """``json.dumps({reasoning, criterion: 0...}, indent=2)`` with ``: 0`` made ``: 0-20``, as upstream."""
        shape: dict[str, Any] = {REASONING_KEY: REASONING_FORMAT}
        shape.update(dict.fromkeys(self.criteria, 0))
        return json.dumps(shape, indent=2).replace(": 0", ": 0-20")


def _criteria(text: str) -> tuple[str, ...]:
    return tuple(s for line in text.splitlines() if (s := line.strip()) and not s.startswith("#"))


@lru_cache(maxsize=8)
def load_rubric(family: str, path: str | None = None) -> Rubric:
    return Rubric(files.read_text(PROMPT_FILES[family], path), _criteria(files.read_text(CRITERIA_FILES[family], path)))


def counted_criteria(kind: str, rubric: Rubric) -> frozenset[str]:
    """The criteria whose scores make the task's score (module docstring)."""
    return frozenset(rubric.criteria) if kind == ANALYSIS else STANDARD_COUNTED


def _sections_text(sections: Mapping[str, Any]) -> str:
    """``_format_parsed_response`` of ``core/conversation.py`` (lines, each heading after a blank line, ``--``)."""
    if "thinking_feeling" in sections:
        parts = [
            "# I'm thinking & feeling",
            sections.get("thinking_feeling", ""),
            "\n# They're thinking & feeling",
            sections.get("their_thinking_feeling", ""),
            "\n# My response",
            sections.get("response", ""),
        ]
    elif "perspective_taking" in sections:
        parts = [
            "# Perspective-taking",
            sections.get("perspective_taking", ""),
            "\n# Draft brainstorming",
            sections.get("draft_brainstorming", ""),
            "\n# Draft",
            sections.get("draft", ""),
        ]
    else:  # neither layout: the non-empty sections of either, as upstream's fallback
        return "\n\n".join(str(v) for k, v in sections.items() if k in _SECTION_NAMES and v)
    parts.append("\n--")
    return "\n".join(str(p) for p in parts)


def transcript_text(history: Sequence[Mapping[str, str]], parsed: Sequence[Mapping[str, Any]], kind: str) -> str:
    parts: list[str] = []
    index = 0
    for message in history:
        user = message.get("role") == "user"
        content = str(message.get("content", ""))
        if not user:
            if kind not in (NO_RP, ANALYSIS):
                content = _sections_text(parsed[index]) if index < len(parsed) else content
            index += 1
        parts.append(f"{'User' if user else 'Assistant'}:\n{content}\n")
    return "---\n".join(parts)


def rubric_prompt(
    rubric: Rubric,
    kind: str,
    history: Sequence[Mapping[str, str]],
    parsed: Sequence[Mapping[str, Any]],
    debrief: str | None,
) -> str:
    """The rubric judge's prompt for one task (module docstring)."""
    fields = {"transcript": transcript_text(history, parsed, kind), "output_format": rubric.output_format}
    if kind != ANALYSIS:
        fields["debrief"] = debrief or ""
    return rubric.template.format(**fields).replace("*", "").replace("#", "")


def read_scores(text: str, version: str) -> dict[str, float]:
    """The judge's finite scores (module docstring); raises :class:`JudgeJSONError` where upstream got none, or
    where every number the judge wrote is not finite. :func:`read_judgement` also says which were left out."""
    return read_judgement(text, version)[0]


def read_judgement(text: str, version: str) -> tuple[dict[str, float], str | None]:
    """(the judge's finite scores, a line naming the scores left out as not finite, or None); raises
    :class:`JudgeJSONError` where upstream got no score, or where none of the judge's numbers is finite."""
    obj = rubric_object(text, version)
    raw: dict[str, Any] = {}
    for key, value in obj.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            raw[key] = value
        elif isinstance(value, bool):  # JSON true is no score; upstream's isinstance(True, int) reads it as 1
            raw[key] = int(value)
        elif key != REASONING_KEY and (found := _NUMBER.search(str(value))):
            raw[key] = found.group(1)
    if not raw:
        raise JudgeJSONError("no numeric score in the judge's JSON")
    scores, left_out = finite_scores(raw)
    if not scores:
        raise JudgeJSONError(f"no finite score in the judge's JSON ({left_out})")
    return scores, left_out


def finite_scores(raw: Mapping[str, Any]) -> tuple[dict[str, float], str | None]:
    """(the scores that are finite numbers, a line naming the others, left out, or None): every criterion score,
    from a judge's reply or a run file, passes :func:`eqbench_nb.model_numbers.read_model_number` here."""
    scores: dict[str, float] = {}
    dropped: list[str] = []
    for key, value in raw.items():
        try:
            scores[str(key)] = read_model_number(value, str(key))
        except NotFinite as exc:
            dropped.append(str(exc))
        except ValueError as exc:
            dropped.append(f"{key}: {exc}")
    note = f"left out, not finite: {'; '.join(dropped)}" if dropped else None
    return scores, note


def out_of_range_scores(scores: Mapping[str, float]) -> dict[str, float]:
    """The scores outside the criteria's 0-20: kept and counted, as upstream keeps them, and flagged."""
    return {k: v for k, v in scores.items() if out_of_range(v, SCALE)}


def task_score(scores: Mapping[str, float], counted: frozenset[str]) -> float | None:
    """The mean of a task's counted scores (``overall_eq`` x3, as upstream, though never asked); None when none."""
    values: list[float] = []
    for name, score in scores.items():
        if name in counted and isinstance(score, (int, float)):
            values.extend([float(score)] * (3 if name == "overall_eq" else 1))
    return statistics.mean(values) if values else None


def scenario_task_score(scenario_id: str, scores: Mapping[str, float]) -> float | None:
    """:func:`task_score` with the criteria that count for the scenario's kind."""
    from .scenarios import kind_of

    kind = kind_of(scenario_id)
    return task_score(scores, counted_criteria(kind, load_rubric(rubric_family(kind))))


def run_score(task_scores: Sequence[float]) -> float | None:
    """Upstream's rubric score on 0-100: the mean of task scores, rounded to 2 decimals on 0-20, times 5."""
    if not task_scores:
        return None
    return round(statistics.mean(task_scores), 2) * TO_100
