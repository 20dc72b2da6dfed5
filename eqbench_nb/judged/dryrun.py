"""What a creative-writing or Judgemark run would send and cost, before anything is sent (``run --dry-run``).

Counted with :func:`eqbench_nb.runner.cost.estimate` (tiktoken offline where it loads, else 4 characters per token),
each endpoint at its own prices:

- **creative-writing**: the model under test's first requests are the 19 writing prompts per iteration, exactly as
  sent; at most 16 requests each (4 attempts at a piece in each of 4 rounds). The judge's requests hold the piece,
  which is not written yet: each is counted with the prompt's reference output in its place (the exemplar the judge
  is shown beside it, a piece of the length asked for), and at most 12 each (3 requests in each of 4 rounds).
- **Judgemark**: the judge's 360 requests per iteration are exact (the test set's pieces); at most 12 each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..runner.cost import Estimate, Prices, TokenCounter, estimate
from . import creative_writing as cw
from .runs import split_item

MAX_PIECE_REQUESTS = cw.MAX_PIECE_ATTEMPTS * cw.MAX_JUDGING_ROUNDS
MAX_JUDGE_REQUESTS = cw.MAX_JUDGE_REQUESTS * cw.MAX_JUDGING_ROUNDS


def _user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def creative_writing(
    prompts: Mapping[str, Mapping[str, Any]],
    iterations: int,
    counter: TokenCounter,
    judge_counter: TokenCounter,
    prices: Prices,
    judge_prices: Prices,
    max_tokens: int = cw.WRITER_MAX_TOKENS,
    judge_max_tokens: int = cw.JUDGE_MAX_TOKENS,
) -> tuple[Estimate, Estimate]:
    """(the model under test's estimate, the judge's)."""
    writer = [_user(cw.writing_prompt(r, i)) for i in range(1, iterations + 1) for r in prompts.values()]
    judge = [
        _user(cw.judge_prompt(r, i, str(r["reference_output"])))
        for i in range(1, iterations + 1)
        for r in prompts.values()
    ]
    return (
        estimate(writer, MAX_PIECE_REQUESTS, max_tokens, counter, prices),
        estimate(judge, MAX_JUDGE_REQUESTS, judge_max_tokens, judge_counter, judge_prices),
    )


def judgemark(
    prompts: Mapping[str, Mapping[str, Any]],
    pieces: Mapping[str, str],
    iterations: int,
    counter: TokenCounter,
    prices: Prices,
    max_tokens: int = cw.JUDGE_MAX_TOKENS,
) -> Estimate:
    """The judge's estimate over the test set."""
    requests = [
        _user(cw.judge_prompt(prompts[split_item(item)[1]], i, piece))
        for i in range(1, iterations + 1)
        for item, piece in pieces.items()
    ]
    return estimate(requests, MAX_JUDGE_REQUESTS, max_tokens, counter, prices)
