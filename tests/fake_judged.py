"""Creative-writing and Judgemark answers for the loopback fake (:mod:`fake_openai_server`, ``responder`` hook).

One responder plays both roles, told apart by the prompt (the last user message):

- the **judge** (a prompt holding ``[TEST MODEL RESPONSE]``) writes an analysis, then ``name: score`` for every
  criterion listed after upstream's "Now, rate the supplied model output on the following criteria:" line, each at
  ``score(piece)`` (a number, or a function of the piece judged); ``first``, where given, replaces the scores of the
  first criteria listed, in order (numbers, or text written as it is: a 400-digit score). The first ``unparseable``
  judge requests get prose with no number, the first ``empty`` ones an empty reply (counted apart);
- the **model under test** (a prompt starting with upstream's writer preamble) writes a piece of ``piece_chars``
  characters naming ``tag``; the first ``short`` writer requests get a piece under 300 characters.
"""

from __future__ import annotations

from collections.abc import Callable

CRITERIA_HEAD = "Now, rate the supplied model output on the following criteria:\n\n"
WRITER_HEAD = "You are a talented creative writer"


def criteria_in(prompt: str) -> list[str]:
    """The criteria a judge prompt asks for (the lines after the head, up to the trailing tab)."""
    tail = prompt.split(CRITERIA_HEAD, 1)[1]
    return [line for line in tail.split("\n") if line.strip()]


def piece_in(prompt: str) -> str:
    return prompt.split("[TEST MODEL RESPONSE]\n\n", 1)[1].split("\n\n[TEST MODEL RESPONSE END]", 1)[0]


def responder(
    tag: str = "writer",
    score: float | Callable[[str], float] = 7,
    piece_chars: int = 600,
    short: int = 0,
    unparseable: int = 0,
    empty: int = 0,
    first: tuple[float | str, ...] = (),
) -> Callable[[str, float], str]:
    state = {"short": short, "unparseable": unparseable, "empty": empty}

    def respond(prompt: str, temperature: float) -> str:
        if "[TEST MODEL RESPONSE]" in prompt and CRITERIA_HEAD in prompt:
            if state["empty"] > 0:
                state["empty"] -= 1
                return ""
            if state["unparseable"] > 0:
                state["unparseable"] -= 1
                return "I find this piece moving, but I will not put numbers on it."
            value = score(piece_in(prompt)) if callable(score) else score
            names = criteria_in(prompt)
            values = [*first[: len(names)], *[value] * max(0, len(names) - len(first))]
            lines = "\n".join(f"{n}: {v if isinstance(v, str) else format(v, 'g')}" for n, v in zip(names, values))
            return f"[Analysis]\n\nThe piece holds together.\n\n[Scores]\n\n{lines}"
        if prompt.startswith(WRITER_HEAD):
            if state["short"] > 0:
                state["short"] -= 1
                return f"Too short, by {tag}."
            body = f"A story by {tag} at temperature {temperature:.2f}. "
            return (body * (piece_chars // len(body) + 1))[:piece_chars]
        return None  # type: ignore[return-value]  # the server's default answer

    return respond
