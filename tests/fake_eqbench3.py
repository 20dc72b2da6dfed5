"""EQ-Bench 3 answers for the loopback fake (:mod:`fake_openai_server`, through its ``responder`` hook).

One responder plays both roles, told apart by the prompt it is shown (the last user message):

- the **rubric judge** (a prompt asking for JSON "in this format" with ``"criterion": 0-20`` lines) returns every
  criterion of the format at ``rubric_score`` (a number, or ``"<n>/20"`` strings), or an unparseable reply the
  first ``bad_rubric`` times it is asked;
- the **pairwise judge** (a prompt naming respondents A0493 and A0488) returns each criterion of its format won by
  the respondent ``pairwise_winner`` picks from the two respondents' texts, with ``+++``;
- the **model under test** answers a debrief prompt with a paragraph, a role-play turn in the three sections, a
  message-drafting turn in its three sections and an analysis task with prose; ``tag`` names each answer so tests
  can tell answers (and their models) apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

_FORMAT_KEY = re.compile(r'"(\w+)": 0-20')
_PAIR_KEY = re.compile(r'"(\w+)": "winner & disparity rating"')


def subject_answer(prompt: str, tag: str) -> str:
    if prompt.startswith("This was a role-play scenario"):
        return f"Debrief by {tag}: I could have listened more closely to what they needed."
    if "# I'm thinking & feeling" in prompt:
        return (
            f"<think>planning {tag}</think>\n# I'm thinking & feeling\n{tag} feels torn between the two.\n\n"
            f"# They're thinking & feeling\nThey feel unheard.\n\n# My response\n{tag} says: let us talk.\n\n--"
        )
    if "# Perspective-taking" in prompt:
        draft = f"# Draft brainstorming\nOptions, weighed one by one.\n# Draft\nDear friend, I hear you. {tag}."
        return f"# Perspective-taking\n{tag} sees their side and what they fear.\n{draft}"
    return (
        f"Analysis by {tag}: the subtext is a bid for reassurance; the reply takes it as a test of loyalty, and "
        "answers the test instead of the person."
    )


def responder(
    tag: str = "subject",
    rubric_score: float | str = 15,
    bad_rubric: int = 0,
    pairwise_winner: Callable[[str, str], str] | None = None,
) -> Callable[[str, float], str]:
    """The responder (module docstring); ``pairwise_winner(text_a, text_b)`` returns "A0493" or "A0488"."""
    state = {"bad": bad_rubric}

    def respond(prompt: str, temperature: float) -> str:
        if "Output in valid JSON in this format" in prompt and _FORMAT_KEY.search(prompt):
            if state["bad"] > 0:
                state["bad"] -= 1
                return '{"chain_of_thought_reasoning": "cut off mid'
            names = _FORMAT_KEY.findall(prompt)
            return json.dumps({"chain_of_thought_reasoning": "Scored.", **dict.fromkeys(names, rubric_score)})
        if "A0493" in prompt and "A0488" in prompt and _PAIR_KEY.search(prompt):
            a, _, rest = prompt.partition("A0488")
            winner = pairwise_winner(a, rest) if pairwise_winner else "A0493"
            names = _PAIR_KEY.findall(prompt)
            return json.dumps({"chain_of_thought_reasoning": "Compared.", **dict.fromkeys(names, f"{winner}+++")})
        return subject_answer(prompt, tag)

    return respond
