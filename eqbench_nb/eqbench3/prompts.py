"""What EQ-Bench 3 sends the model under test, how it samples, and how its reply is read.

Reproduces ``core/conversation.py``, ``core/benchmark.py`` and ``utils/api.py`` of EQ-bench/eqbench3 at
``3c21bcc`` (unchanged since ``8c3a125`` in everything below), decision for decision:

- **Turns.** A scenario's prompts are sent one at a time, in order, each as a user message after the whole
  conversation so far (every earlier user message and the model's reply to it); each waits for the last answer.
  Every prompt is wrapped in its kind's master prompt (``template.format(scenario_prompt=prompt)``): the role-play
  one asks for three sections (``# I'm thinking & feeling``, ``# They're thinking & feeling``, ``# My response``),
  message drafting for ``# Perspective-taking``, ``# Draft brainstorming``, ``# Draft``, analysis for a written
  analysis of the transcript; a no-role-play prompt (none in the file) is sent as it is.
- **Debrief.** After a role-play or drafting task, the conversation plus ``debrief_prompt.txt`` as one more user
  message; its reply is stripped of surrounding white space. Analysis tasks have none.
- **Sampling.** Turns: temperature 0.7, ``min_p`` 0.1, 12,000 tokens. Debrief: temperature 0.5, 12,000 tokens,
  no ``min_p``. Upstream sends ``min_p`` only to the model under test and not at all to ``api.openai.com`` (which
  refuses it); here it is also dropped, and the run says so, where an endpoint refuses it with a 400.
- **OpenRouter's Qwen3.** Upstream's client puts a system message ``/no_think`` before every request to a model
  whose name contains ``qwen3`` at OpenRouter's API (it turns the model's thinking off); so does this one
  (:func:`system_messages`), for the model under test and the judge alike.
- **Reasoning.** Upstream keeps the reply's ``content`` (never a separate reasoning field) and, when it holds both
  ``<think>`` and ``</think>``, keeps what follows the *first* ``</think>``, stripped; then the same for
  ``<reasoning>``/``</reasoning>``; case-sensitive, and a block never closed is kept as it is. The runner's own
  rule (:func:`eqbench_nb.runner.reasoning.split_reasoning`) removes every block wherever it is, takes a lone
  ``</think>`` as the end of reasoning, drops an unclosed block, and does not know ``<reasoning>``: a text with
  words before its ``<think>`` block, or a ``<reasoning>`` block, would reach the judge differently, so EQ-Bench 3
  applies upstream's rule to the content as received (:func:`subject_text`).
- **Sections.** A role-play or drafting reply is read into its sections (``_parse_response``: each heading, any
  case, straight or curly apostrophe, up to the next ``#``; the last section up to ``--``); the raw reply is kept
  beside them. The judges see the sections, not the raw reply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from . import files
from .scenarios import ANALYSIS, DRAFTING, NO_RP, Scenario

TURN_TEMPERATURE = 0.7
TURN_MIN_P = 0.1
TURN_MAX_TOKENS = 12000
DEBRIEF_TEMPERATURE = 0.5
DEBRIEF_MAX_TOKENS = 12000
#: Where upstream never sends ``min_p`` (``APIClient.generate``: OpenAI's API refuses it).
NO_MIN_P_HOSTS = ("api.openai.com",)

MASTER_PROMPT_FILES = {
    "roleplay": "scenario_master_prompt.txt",
    DRAFTING: "scenario_master_prompt_message_drafting.txt",
    ANALYSIS: "scenario_master_prompt_analysis.txt",
}
DEBRIEF_FILE = "debrief_prompt.txt"

ROLEPLAY_SECTIONS = {
    "thinking_feeling": r"#\s*I[’']m thinking & feeling\s*\n([\s\S]*?)(?=#|\Z)",
    "their_thinking_feeling": r"#\s*They[’']re thinking & feeling\s*\n([\s\S]*?)(?=#|\Z)",
    "response": r"#\s*My response\s*\n([\s\S]*?)(?=--|\Z)",
}
DRAFTING_SECTIONS = {
    "perspective_taking": r"#\s*Perspective[- ]taking\s*\n([\s\S]*?)(?=#|\Z)",
    "draft_brainstorming": r"#\s*Draft brainstorming\s*\n([\s\S]*?)(?=#|\Z)",
    "draft": r"#\s*Draft\s*\n([\s\S]*?)(?=--|\Z)",
}


@dataclass(frozen=True)
class Templates:
    """The master prompt of each kind and the debrief prompt, as read from the pinned files."""

    master: dict[str, str]
    debrief: str


@lru_cache(maxsize=4)
def load_templates(path: str | None = None) -> Templates:
    master = {kind: files.read_text(name, path) for kind, name in MASTER_PROMPT_FILES.items()}
    return Templates(master, files.read_text(DEBRIEF_FILE, path))


def turn_prompt(scenario: Scenario, turn: int, templates: Templates) -> str:
    """The user message of turn ``turn`` (0-based): the prompt in its kind's master prompt (as it is for no-RP)."""
    prompt = scenario.prompts[turn]
    if scenario.kind == NO_RP:
        return prompt
    return templates.master[scenario.kind].format(scenario_prompt=prompt)


def conversation(scenario: Scenario, answers: list[str], templates: Templates) -> list[dict[str, str]]:
    """The messages of the conversation so far: each turn's user message and the answer to it, in order."""
    messages: list[dict[str, str]] = []
    for turn, answer in enumerate(answers):
        messages.append({"role": "user", "content": turn_prompt(scenario, turn, templates)})
        messages.append({"role": "assistant", "content": answer})
    return messages


def subject_text(content: str) -> str:
    """Upstream's reasoning removal on a reply's content (module docstring)."""
    for opening, closing in (("<think>", "</think>"), ("<reasoning>", "</reasoning>")):
        if opening in content and closing in content:
            content = content[content.find(closing) + len(closing) :].strip()
    return content


OPENROUTER_HOST = "openrouter.ai"


def system_messages(base_url: str | None, model: str) -> list[dict[str, str]]:
    """The system message upstream's client adds for this endpoint and model: ``/no_think`` for a Qwen3 model at
    OpenRouter, none otherwise."""
    if base_url and OPENROUTER_HOST in base_url and "qwen3" in model.lower():
        return [{"role": "system", "content": "/no_think"}]
    return []


def sends_min_p(base_url: str | None) -> bool:
    """Whether upstream would send ``min_p`` to this endpoint (not to OpenAI's own API)."""
    return not (base_url and any(host in base_url for host in NO_MIN_P_HOSTS))


def parse_sections(text: str, scenario_id: str, kind: str) -> dict[str, str]:
    """The reply's sections (``_parse_response``), each stripped, ``""`` when missing, plus ``raw``; only ``raw``
    for analysis and no-role-play replies."""
    if kind in (ANALYSIS, NO_RP):
        return {"raw": text}
    patterns = DRAFTING_SECTIONS if kind == DRAFTING else ROLEPLAY_SECTIONS
    parsed = dict.fromkeys(patterns, "")
    parsed["raw"] = text
    for name, pattern in patterns.items():
        found = re.search(pattern, text, flags=re.IGNORECASE | re.DOTALL)
        if found:
            parsed[name] = found.group(1).strip()
    return parsed
