"""Kumar et al.'s 150 conversations with public text, and **this project's** judge prompts for their frameworks.

The study's LLM judges' prompts are not public, so the prompts here are the project's own, written from each
framework's published definitions (:data:`PROMPT_NOTE` says so in every run header):

- EmpatheticDialogues (Rashkin et al. 2019): the three questions ED's crowd workers answered on a 1-5 scale:
  empathy, relevance and fluency of the supporter's responses.
- EPITOME (Sharma et al. 2020): its three communication mechanisms, emotional reactions, interpretations and
  explorations, each at level 0 (none), 1 (weak) or 2 (strong), with the paper's definitions of the levels.
- Lend an Ear (the authors' pilot): its six behaviours, validating emotions, encouraging elaboration, demonstrating
  understanding, advice giving, self-oriented and dismissing emotions, each rated 1 (not at all) to 5 (very much),
  the scale the experts' files use.

A reply is read leniently (:func:`parse_ratings`): the last JSON object it holds, each dimension an integer on the
framework's scale; a reply without every dimension is unreadable (asked again, never guessed). Perceived Empathy's
conversations are not public: its nine dimensions cannot be judged here.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass

from .files import FILES
from .tables import FRAMEWORKS

#: The frameworks whose conversations are public, each with its text file and rating scale (lowest, highest).
TEXT: dict[str, tuple[str, tuple[int, int]]] = {
    "empatheticdialogues": ("original_data/sample_empatheticdialogues.csv", (1, 5)),
    "epitome": ("original_data/sample_epitome.csv", (0, 2)),
    "lend_an_ear": ("original_data/sample_lend_an_ear_conversations.csv", (1, 5)),
}
PROMPT_NOTE = (
    "the judge prompts for Kumar et al.'s frameworks are this project's, written from each framework's published "
    "definitions (EmpatheticDialogues: Rashkin et al. 2019; EPITOME: Sharma et al. 2020; Lend an Ear: the "
    "behaviours Kumar et al. name); the study's own LLM prompts are not public"
)

#: Each framework's task and each dimension's definition, keyed by the expert files' column names.
DEFINITIONS: dict[str, tuple[str, dict[str, str]]] = {
    "empatheticdialogues": (
        "Rate the Supporter's responses in this conversation on three questions, each from 1 (not at all) to 5 "
        "(very much).",
        {
            "empathy": "Did the responses show understanding of the feelings of the person talking about their "
            "experience?",
            "relevance": "Did the responses seem appropriate to the conversation? Were they on-topic?",
            "fluency": "Could you understand the responses? Did the language seem accurate?",
        },
    ),
    "epitome": (
        "Rate the Supporter's response to the Seeker's post on three communication mechanisms of empathy, each at "
        "level 0 (the response does not communicate it), 1 (weak communication) or 2 (strong communication).",
        {
            "level_emotional_reactions": "Emotional reactions: expressing emotions such as warmth, compassion and "
            "concern experienced by the supporter after reading the seeker's post. Weak: alludes to these emotions "
            "without naming them (e.g. 'Everything will be fine'). Strong: names the emotions (e.g. 'I feel really "
            "sad for you').",
            "level_interpretations": "Interpretations: communicating an understanding of the feelings and "
            "experiences inferred from the seeker's post. Weak: a generic acknowledgment of understanding (e.g. 'I "
            "understand how you feel'). Strong: names the inferred feeling or experience (e.g. 'This must be "
            "terrifying') or shows understanding through a similar experience of one's own.",
            "level_explorations": "Explorations: improving one's understanding of the seeker by exploring feelings "
            "and experiences not stated in the post. Weak: a generic question (e.g. 'What happened?'). Strong: a "
            "specific one that labels the seeker's feelings or experiences (e.g. 'Are you feeling alone right "
            "now?').",
        },
    ),
    "lend_an_ear": (
        "Rate how much the Supporter shows each of six behaviours over this conversation, each from 1 (not at "
        "all) to 5 (very much).",
        {
            "validating_emotions": "Validating emotions: acknowledging the seeker's feelings as understandable and "
            "legitimate.",
            "encouraging_elaboration": "Encouraging elaboration: inviting the seeker to say more about their "
            "situation and feelings.",
            "demonstrating_understanding": "Demonstrating understanding: reflecting back what the seeker said or "
            "feels, showing it was understood.",
            "advice_giving": "Advice giving: offering suggestions or solutions the seeker did not ask for.",
            "self_oriented": "Self-oriented: turning the conversation to the supporter's own experiences, views or "
            "feelings.",
            "dismissing_emotions": "Dismissing emotions: minimising, judging or brushing aside the seeker's feelings.",
        },
    ),
}


@dataclass(frozen=True)
class Conversation:
    """One conversation: its framework (folder name), its id in the raters' files and its text as judged."""

    framework: str
    id: str
    text: str


def key_of(dimension: str) -> str:
    """A dimension's name in the judge's JSON reply (EPITOME's ``level_`` prefix dropped)."""
    return dimension.removeprefix("level_")


def _rows(framework: str, path: str | None) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(FILES.read_text(TEXT[framework][0], path))))


def _clean(text: str) -> str:
    """ED's ``_comma_`` as a comma, each turn on a line of its own, no trailing blanks."""
    lines = [line.strip() for line in text.replace("_comma_", ",").split("\n")]
    return "\n".join(line for line in lines if line)


def conversations(path: str | None = None) -> list[Conversation]:
    """The 150 conversations, framework by framework (in :data:`TEXT`'s order), each in its file's order; a
    ValueError naming a missing column."""
    out: list[Conversation] = []
    for framework in TEXT:
        id_col = FRAMEWORKS[framework][1]
        seen: set[str] = set()
        for row in _rows(framework, path):
            if id_col not in row:
                raise ValueError(f"{TEXT[framework][0]}: no column {id_col}")
            cid = row[id_col]
            if cid in seen:  # ED's file holds one row per turn, each with the whole conversation
                continue
            seen.add(cid)
            if framework == "epitome":
                text = f"Seeker: {row['seeker_post'].strip()}\nSupporter: {row['response_post'].strip()}"
            else:
                text = _clean(row["full_conversation"])
            out.append(Conversation(framework, cid, text))
    return out


def judge_prompt(conversation: Conversation) -> list[dict[str, str]]:
    """The framework's task, each dimension's definition, the conversation and the JSON reply asked for."""
    task, dims = DEFINITIONS[conversation.framework]
    low, high = TEXT[conversation.framework][1]
    keys = ", ".join(f'"{key_of(d)}": <{low}-{high}>' for d in dims)
    text = "\n".join(
        [
            task,
            "",
            *(f"- {key_of(d)}: {definition}" for d, definition in dims.items()),
            "",
            "The conversation:",
            conversation.text,
            "",
            f"Answer with one JSON object and nothing else: {{{keys}}}",
        ]
    )
    return [{"role": "user", "content": text}]


def parse_ratings(text: str | None, framework: str) -> dict[str, float] | None:
    """The reply's ratings, by the expert files' dimension names: the last JSON object in the reply holding every
    dimension as a whole number on the framework's scale; None otherwise (never guessed)."""
    dims = DEFINITIONS[framework][1]
    low, high = TEXT[framework][1]
    for found in reversed(re.findall(r"\{[^{}]*\}", text or "")):
        try:
            obj = json.loads(found)
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        lowered = {str(k).strip().lower(): v for k, v in obj.items()}
        out: dict[str, float] = {}
        for d in dims:
            v = lowered.get(key_of(d), lowered.get(d))
            if isinstance(v, str) and v.strip().isdigit():
                v = int(v.strip())
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not low <= v <= high or v != int(v):
                break
            out[d] = float(v)
        else:
            return out
    return None
