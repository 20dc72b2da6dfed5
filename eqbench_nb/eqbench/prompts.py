"""The prompt sent for each question (SPEC §3). One user message, no system message.

Each question's ``prompt`` already holds the revision instructions. The official v2 default
(no revision) removes them and appends "Your answer:"; with revision (and always in v1) the
prompt is sent as it is.
"""

from __future__ import annotations

import re

from .questions import Question

_EN_REVISE_SENTENCE = (
    " Then critique your answer by thinking it through step by step. Finally, give your revised scores."
)
_EN_CRITIQUE = re.compile(r"Critique: <your critique here>.*?(?=\[End of answer\])", re.DOTALL)
_DE_INSTRUCTION = re.compile(r"^Geben Sie jeder dieser möglichen Emotionen.*$", re.MULTILINE)
_DE_INSTRUCTION_NO_REVISE = (
    "Geben Sie jeder dieser möglichen Emotionen eine Punktzahl von 0-10 für die relative "
    "Intensität, die sie wahrscheinlich fühlen werden."
)
_DE_CRITIQUE = re.compile(r"Kritik: <Ihre Kritik hier>.*?(?=\[Ende der Antwort\])", re.DOTALL)


def remove_revision_en(prompt: str) -> str:
    """The official v2 prompt without revision, from a question's prompt."""
    prompt = prompt.replace(_EN_REVISE_SENTENCE, "").replace("First pass scores:\n", "")
    return _EN_CRITIQUE.sub("\n", prompt) + "\nYour answer:\n"


def remove_revision_de(prompt: str) -> str:
    """The German equivalent of :func:`remove_revision_en`."""
    prompt = _DE_INSTRUCTION.sub(_DE_INSTRUCTION_NO_REVISE, prompt).replace("Erste Bewertung:\n", "")
    return _DE_CRITIQUE.sub("\n", prompt) + "\nIhre Antwort:\n"


def uses_revision(version: str, revise: bool) -> bool:
    """v1 always uses the revision prompt; v2 and German only when asked."""
    return True if version == "v1" else bool(revise)


def build_prompt(question: Question, revise: bool = False) -> str:
    """The exact user message for a question under the official protocol."""
    if uses_revision(question.version, revise):
        return question.prompt
    if question.version == "de":
        return remove_revision_de(question.prompt)
    return remove_revision_en(question.prompt)


def build_messages(question: Question, revise: bool = False) -> list[dict[str, str]]:
    return [{"role": "user", "content": build_prompt(question, revise)}]
