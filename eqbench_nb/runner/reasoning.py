"""Reasoning models: what is sent to them, and what of their reply is the answer.

Two jobs, each visible in the run file and the final table, neither touching scoring:

- **What is sent.** OpenAI's o-series and GPT-5 refuse ``max_tokens`` (they take
  ``max_completion_tokens``) and any temperature but their default. :class:`ParameterAdapter`
  builds each request body from the protocol's settings and, when the endpoint answers 400 naming a
  parameter it refuses, switches to what it accepts and says so once (a *deviation*, recorded in the
  run header and shown in the table). The rejected request is sent again at once: a refusal of a
  parameter says nothing about the model, so it costs no attempt.
- **What is the answer.** Open reasoning models put their reasoning in a ``<think>…</think>`` block
  before the answer (DeepSeek-R1 distills, QwQ, Qwen3 on vLLM, llama.cpp, SGLang), sometimes without
  the opening tag (the chat template sends it), or in a separate ``reasoning_content`` / ``reasoning``
  field. :func:`split_reasoning` takes the block off so the benchmark's parser never reads ratings out
  of the reasoning; the raw text is kept in the record beside the answer.

A model that spends its whole budget reasoning (``finish_reason`` "length" and no answer after the
reasoning) makes a failed attempt whose error is :data:`BUDGET_SPENT` (the table then suggests a
larger ``--max-tokens``). One case cannot be caught: when the chat template sent the opening tag and
the reply was cut off before ``</think>``, the reply carries no tag at all and reads like an answer.
Give such a model a budget it can finish in, or serve it with a reasoning parser (vLLM's
``--reasoning-parser``), which moves the reasoning into its own field.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

#: The error of an attempt whose token budget went on reasoning before any answer.
BUDGET_SPENT = "length: budget spent on reasoning"
#: ``--reasoning-effort`` choices (OpenAI's ``reasoning_effort``).
REASONING_EFFORTS = ("low", "medium", "high")

#: Deviation codes and what each means, in the words of the final table.
DEVIATIONS: dict[str, str] = {
    "max_completion_tokens": "max_completion_tokens sent in place of max_tokens (the endpoint refused max_tokens)",
    "default_temperature": "temperature fixed by the endpoint (its default sent on every attempt, not the protocol's)",
    "no_reasoning_effort": "reasoning_effort not sent (the endpoint refused it)",
    "no_min_p": "min_p not sent (the endpoint refused it)",
}
#: Sampling parameters a benchmark may add to its requests (``extra``); each is dropped, as a deviation
#: ``no_<name>``, once the endpoint refuses it.
EXTRA_PARAMETERS = ("min_p",)

_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.IGNORECASE | re.DOTALL)
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_TRAILING_CLOSE = re.compile(r"</think>\s*\Z", re.IGNORECASE)


@dataclass(frozen=True)
class Reply:
    """A completion's text split into the answer (parsed) and the reasoning (kept, never parsed).

    ``answer`` is None when nothing of an answer is left (an unclosed ``<think>`` block);
    ``reasoning`` is None when the reply had none; ``raw`` is the content as received (None when
    it equals ``answer``)."""

    answer: str | None
    reasoning: str | None
    raw: str | None
    unclosed: bool = False
    #: the reply ended with a ``</think>`` that closed nothing, taken off the answer (see :func:`split_reasoning`)
    trailing_close: bool = False


def split_reasoning(content: str | None, reasoning_field: str | None = None) -> Reply:
    """The answer of a reply, without its reasoning.

    ``<think>…</think>`` blocks are removed wherever they are; a ``</think>`` with no opening tag
    ends a block that began with the reply (the template sent the opening tag); an opening tag
    never closed starts reasoning that runs to the end (the budget ran out mid-thought); a ``</think>`` with
    nothing after it closes no reasoning before an answer: it is taken off as a stray tag after the answer
    (``trailing_close``; a reply cut off by its token limit there is reasoning, which the transport decides,
    since only it knows the finish reason). A separate
    reasoning field is kept as the reasoning; the content is then the answer as it is.
    """
    if content is None:
        return Reply(None, reasoning_field or None, None)
    thoughts: list[str] = [reasoning_field] if reasoning_field else []
    answer = content
    trailing_close = False
    if _THINK_OPEN.search(answer) or _THINK_CLOSE.search(answer):
        thoughts += [m.group(0) for m in _THINK_BLOCK.finditer(answer)]
        answer = _THINK_BLOCK.sub("", answer)
        trailing = _TRAILING_CLOSE.search(answer)
        if trailing is not None and answer[: trailing.start()].strip():
            # "answer</think>": nothing follows the tag, so it ends no reasoning before an answer; a literal tag
            # after the answer (a reply cut off by its token limit right there is read by the transport instead)
            answer, trailing_close = answer[: trailing.start()], True
        close = list(_THINK_CLOSE.finditer(answer))
        if close:  # "reasoning…</think>answer": the opening tag was in the prompt's template
            thoughts.insert(0, answer[: close[-1].end()])
            answer = answer[close[-1].end() :]
        opened = _THINK_OPEN.search(answer)
        if opened:  # never closed: the rest is reasoning, cut off
            thoughts.append(answer[opened.start() :])
            answer = answer[: opened.start()]
            if not answer.strip():
                return Reply(None, "\n".join(thoughts), content, unclosed=True)
        answer = answer.lstrip()
    reasoning = "\n".join(thoughts) if thoughts else None
    return Reply(answer, reasoning, content if answer != content else None, trailing_close=trailing_close)


def reasoning_tokens(usage: Any) -> int | None:
    """``usage.completion_tokens_details.reasoning_tokens``, where the endpoint reports it."""
    details = usage.get("completion_tokens_details") if isinstance(usage, dict) else None
    value = details.get("reasoning_tokens") if isinstance(details, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def message_reasoning(message: dict[str, Any]) -> str | None:
    """The reasoning a server sends beside the content (``reasoning_content``: vLLM, SGLang, DeepSeek;
    ``reasoning``: newer vLLM, OpenRouter, Ollama)."""
    for name in ("reasoning_content", "reasoning"):
        value = message.get(name)
        if isinstance(value, str) and value:
            return value
    return None


@dataclass
class ParameterAdapter:
    """Builds request bodies and adapts them to what the endpoint accepts (see the module docstring).

    ``max_tokens`` replaces the protocol's limit when set (``--max-tokens``); ``reasoning_effort`` is
    sent while the endpoint accepts it. ``known`` are deviations learnt earlier (a resumed run's
    header), applied from the first request. ``on_deviation`` is told each new one once.
    """

    reasoning_effort: str | None = None
    known: Iterable[str] = ()
    on_deviation: Callable[[str], None] | None = None
    deviations: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.deviations = [d for d in dict.fromkeys(self.known) if d in DEVIATIONS]

    def body(
        self,
        model: str,
        messages: list[dict[str, str]],
        temperature: float,
        max_tokens: int,
        stop: tuple[str, ...] = (),
        seed: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The request body for these protocol settings (``extra``: sampling parameters of
        :data:`EXTRA_PARAMETERS` the protocol sends), as the endpoint accepts them."""
        body: dict[str, Any] = {"model": model, "messages": messages}
        if "default_temperature" not in self.deviations:
            body["temperature"] = temperature
        body["max_completion_tokens" if "max_completion_tokens" in self.deviations else "max_tokens"] = max_tokens
        if stop:
            body["stop"] = list(stop)
        if seed is not None:
            body["seed"] = seed
        if self.reasoning_effort and "no_reasoning_effort" not in self.deviations:
            body["reasoning_effort"] = self.reasoning_effort
        for name, value in (extra or {}).items():
            if f"no_{name}" not in self.deviations:
                body[name] = value
        return body

    def adapt(self, sent: dict[str, Any], param: str | None, message: str) -> bool:
        """Whether a 400 for ``sent`` names a parameter this adapter can change (it then has); the
        request is to be sent again with a new :meth:`body`."""
        refused = _refused_parameter(param, message)
        if refused == "max_tokens" and "max_tokens" in sent:
            return self._learn("max_completion_tokens")
        if refused == "temperature" and "temperature" in sent:
            return self._learn("default_temperature")
        if refused == "reasoning_effort" and "reasoning_effort" in sent:
            return self._learn("no_reasoning_effort")
        if refused in EXTRA_PARAMETERS and refused in sent:
            return self._learn(f"no_{refused}")
        return False

    def _learn(self, code: str) -> bool:
        if code not in self.deviations:
            self.deviations.append(code)
            if self.on_deviation is not None:
                self.on_deviation(code)
        return True


def _refused_parameter(param: str | None, message: str) -> str | None:
    """Which of our parameters a 400 refuses: OpenAI names it in ``param`` ("unsupported_parameter",
    "unsupported_value"); other servers only in the message."""
    if param in ("max_tokens", "temperature", "reasoning_effort", *EXTRA_PARAMETERS):
        return param
    text = message.lower()
    # "Unrecognized request argument supplied: min_p" (OpenAI), "Extra inputs are not permitted" (pydantic servers)
    for name in EXTRA_PARAMETERS:
        if name in text and any(w in text for w in ("unrecognized", "unsupported", "not supported", "not permitted")):
            return name
    if "max_tokens" in text and ("max_completion_tokens" in text or "unsupported" in text or "not supported" in text):
        return "max_tokens"
    if "temperature" in text and ("unsupported" in text or "not supported" in text or "only the default" in text):
        return "temperature"
    if "reasoning_effort" in text and ("unsupported" in text or "unrecognized" in text or "not supported" in text):
        return "reasoning_effort"
    return None


def describe(deviations: Iterable[str], extra: Iterable[str] = ()) -> str:
    """One line for the table: "official protocol" or what departed from it, and why."""
    parts = [*extra, *(DEVIATIONS.get(d, d) for d in deviations)]
    return "; ".join(parts)
