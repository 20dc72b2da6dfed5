"""The prompt sent for each question. One user message, no system message.

Each question's ``prompt`` already holds the revision instructions (a critique, then revised scores).
Without revision the upstream pipeline cuts them out and appends an answer cue (EQ-bench/EQ-Bench
``remove_revision_instructions``: English and German at d28c60c, Polish at 92e4a8f); with revision, and
always for the v1 set (upstream only cuts v2 prompts), the prompt is sent as it is. The cuts below are the
upstream ones, ``str.find`` slicing included, so every prompt is byte-identical to what upstream sends.
"""

from __future__ import annotations

from .questions import Question


def _cut(prompt: str, start: str, end: str) -> str:
    # upstream: prompt[:prompt.find(start)] + '\n' + prompt[prompt.find(end):]
    return prompt[: prompt.find(start)] + "\n" + prompt[prompt.find(end) :]


def remove_revision_en(prompt: str) -> str:
    """The English v2 prompt without the revision step."""
    prompt = prompt.replace(
        " Then critique your answer by thinking it through step by step. Finally, give your revised scores.", ""
    )
    prompt = prompt.replace("First pass scores:\n", "")
    return _cut(prompt, "Critique: <your critique here>", "[End of answer]") + "\nYour answer:\n"


def remove_revision_de(prompt: str) -> str:
    """The German v2 prompt without the revision step (its instruction line is replaced whole)."""
    start = prompt.find("Geben Sie jeder dieser möglichen Emotionen")
    end = prompt.find("\n", start)
    replacement = (
        "Geben Sie jeder dieser möglichen Emotionen eine Punktzahl von 0-10 für die relative Intensität, "
        "die sie wahrscheinlich fühlen werden."
    )
    prompt = prompt[:start] + replacement + prompt[end:]
    prompt = prompt.replace("Erste Bewertung:\n", "")
    return _cut(prompt, "Kritik: <Ihre Kritik hier>", "[Ende der Antwort]") + "\nIhre Antwort:\n"


def remove_revision_pl(prompt: str) -> str:
    """The Polish v2 prompt without the revision step (v2.4 pipeline)."""
    prompt = prompt.replace(
        " Następnie skrytykuj swoją odpowiedź, przemyśl ją krok po kroku. "
        "Wprowadź zmiany i na koniec podaj ostateczne oceny.",
        "",
    )
    prompt = prompt.replace("Pierwsze oceny:\n", "")
    return _cut(prompt, "Weryfikacja: <twoja opinia tutaj>", "[Koniec odpowiedzi]") + "\nTwoja odpowiedź:\n"


_REMOVE_REVISION = {"v2": remove_revision_en, "de": remove_revision_de, "pl": remove_revision_pl}


def sends_revision_prompt(version: str, revise: bool) -> bool:
    """The v1 prompt is always sent whole; v2 sets (English, German, Polish) keep the revision step only
    when asked."""
    return True if version == "v1" else bool(revise)


def build_prompt(question: Question, revise: bool = False) -> str:
    """The exact user message the upstream pipeline sends for a question."""
    if sends_revision_prompt(question.version, revise):
        return question.prompt
    return _REMOVE_REVISION[question.version](question.prompt)


def build_messages(question: Question, revise: bool = False) -> list[dict[str, str]]:
    return [{"role": "user", "content": build_prompt(question, revise)}]
