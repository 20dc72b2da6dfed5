"""What an EQ-Bench 3 run would send and cost, before anything is sent (``run --dry-run``), the judge's share apart.

A conversation's later turns carry the model's earlier answers, and the rubric judge reads them all, so prompt
tokens depend on answers not yet written. Three figures bound and place them:

- **at least**: every answer empty (the prompts alone);
- **about**: every answer as long as the prompts ask (role-play, drafting and analysis turns "1000 words", the
  debrief "800 words"), at 0.75 words per token (English prose in OpenAI's BPE encodings), so about 1,333 and
  1,067 tokens, or the token limit where that is lower (a model stops there);
- **at most**: every answer at its token limit (``--max-tokens``, default 12,000), every judge reply at its own
  (``--judge-max-tokens``, default 8,000).

So no "about" exceeds its "at most".

Tokens are counted with :func:`eqbench_nb.runner.cost.token_counter` (tiktoken offline where it loads, else 4
characters per token); prices are each endpoint's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..runner.cost import Prices, TokenCounter
from . import prompts, rubric
from .scenarios import Scenario

WORDS_PER_TOKEN = 0.75
TURN_WORDS = 1000
DEBRIEF_WORDS = 800


def _as_sections(answer: str, kind: str) -> dict[str, str]:
    """An answer as the judge is shown it: all in the first section of its kind (raw for analysis)."""
    names = {"roleplay": prompts.ROLEPLAY_SECTIONS, "drafting": prompts.DRAFTING_SECTIONS}.get(kind)
    if names is None:
        return {"raw": answer}
    first, *rest = names
    return {first: answer, **dict.fromkeys(rest, ""), "raw": answer}


@dataclass(frozen=True)
class Side:
    """One endpoint's share: requests, prompt tokens (at least / about / at most), completion tokens (about / at
    most), and its prices."""

    label: str
    requests: int
    prompt: tuple[int, int, int]
    completion: tuple[int | None, int]  # (about: None when nothing says how long, at most)
    prices: Prices

    @property
    def costs(self) -> tuple[float, float, float] | None:
        """Dollars (prompts alone, about, at most) at this side's prices (half with the Batch API); None: no
        prices given."""
        if not self.prices.known:
            return None
        return (
            self.prices.cost(self.prompt[0], 0),
            self.prices.cost(self.prompt[1], self.completion[0] or 0),
            self.prices.cost(self.prompt[2], self.completion[1]),
        )

    def lines(self, method: str, price_flags: str = "--price-in and --price-out") -> list[str]:
        """The share as lines; ``price_flags``: what prices this endpoint, named where no price was given."""
        batched = " (through the Batch API: half price, answered within its 24 h window)" if self.prices.batch else ""
        out = [
            f"{self.label}",
            f"  requests   {self.requests:,}{batched}",
            f"  prompt     at least {self.prompt[0]:,} tokens (empty answers), about {self.prompt[1]:,} (answers as "
            f"long as asked, within the token limit), at most {self.prompt[2]:,} ({method})",
            f"  completion {'' if self.completion[0] is None else f'about {self.completion[0]:,} tokens, '}at most "
            f"{self.completion[1]:,} (every token limit used)",
        ]
        if self.costs is not None:
            low, typical, high = self.costs
            out.append(
                f"  cost       ${low:,.4f} (prompts alone), about ${typical:,.4f}, at most ${high:,.4f}; "
                f"{self.prices.describe()}"
            )
        else:
            out.append(f"  cost       give {price_flags} (dollars per million tokens) for a cost")
        return out


def estimate(
    chosen: Sequence[Scenario],
    iterations: int,
    templates: prompts.Templates,
    counter: TokenCounter,
    judge_counter: TokenCounter,
    prices: Prices,
    judge_prices: Prices,
    max_tokens: int = prompts.TURN_MAX_TOKENS,
    rubric_on: bool = True,
    judge_max_tokens: int = rubric.JUDGE_MAX_TOKENS,
) -> tuple[Side, Side | None]:
    """(the model under test's share, the rubric judge's share or None) for ``iterations`` of ``chosen``: the prompts
    counted with empty answers, each earlier answer then added at its typical length (never beyond the token limit,
    where a model is cut off) or at the token limit."""
    typical_turn = min(round(TURN_WORDS / WORDS_PER_TOKEN), max_tokens)
    typical_debrief = min(round(DEBRIEF_WORDS / WORDS_PER_TOKEN), max_tokens)
    requests = j_requests = 0
    prompt, completion, j_prompt = [0, 0, 0], [0, 0], [0, 0, 0]
    for scenario in chosen:
        empty = [""] * len(scenario.prompts)
        for turn in range(len(scenario.prompts)):
            messages = prompts.conversation(scenario, empty[:turn], templates)
            messages.append({"role": "user", "content": prompts.turn_prompt(scenario, turn, templates)})
            base = counter.messages(messages)
            prompt[0] += base
            prompt[1] += base + turn * typical_turn
            prompt[2] += base + turn * max_tokens
        turns = len(scenario.prompts)
        if scenario.has_debrief:
            messages = prompts.conversation(scenario, empty, templates)
            messages.append({"role": "user", "content": templates.debrief})
            base = counter.messages(messages)
            prompt[0] += base
            prompt[1] += base + turns * typical_turn
            prompt[2] += base + turns * max_tokens
        n = turns + scenario.has_debrief
        requests += n
        completion[0] += turns * typical_turn + scenario.has_debrief * typical_debrief
        completion[1] += n * max_tokens
        if rubric_on:
            family = rubric.rubric_family(scenario.kind)
            history = prompts.conversation(scenario, empty, templates)
            parsed = [_as_sections("", scenario.kind) for _ in empty]
            text = rubric.rubric_prompt(rubric.load_rubric(family), scenario.kind, history, parsed, "")
            base = judge_counter.messages([{"role": "user", "content": text}])
            j_requests += 1
            j_prompt[0] += base
            j_prompt[1] += base + turns * typical_turn + scenario.has_debrief * typical_debrief
            j_prompt[2] += base + n * max_tokens
    k = max(1, iterations)
    subject = Side(
        "model under test",
        requests * k,
        (prompt[0] * k, prompt[1] * k, prompt[2] * k),
        (completion[0] * k, completion[1] * k),
        prices,
    )
    if not rubric_on:
        return subject, None
    judge = Side(
        "judge (rubric, one request per task; pairwise judgements are asked by `leaderboard --judge`)",
        j_requests * k,
        (j_prompt[0] * k, j_prompt[1] * k, j_prompt[2] * k),
        (None, j_requests * k * judge_max_tokens),
        judge_prices,
    )
    return subject, judge


def total_lines(label: str, sides: Sequence[Side]) -> list[str]:
    """The sum of ``sides`` (a panel's judges; the model under test and its judges): requests, token bounds, and
    the cost, each side at its own prices (a batched side at half), where every side has prices."""
    batched = sum(s.requests for s in sides if s.prices.batch)
    prompt = [sum(s.prompt[i] for s in sides) for i in range(3)]
    abouts = [s.completion[0] for s in sides]
    about = None if any(a is None for a in abouts) else sum(a or 0 for a in abouts)
    out = [
        label,
        f"  requests   {sum(s.requests for s in sides):,}"
        + (f" ({batched:,} through the Batch API)" if batched else ""),
        f"  prompt     at least {prompt[0]:,} tokens, about {prompt[1]:,}, at most {prompt[2]:,}",
        f"  completion {'' if about is None else f'about {about:,} tokens, '}at most "
        f"{sum(s.completion[1] for s in sides):,}",
    ]
    unpriced = [s.label.split(" (")[0] for s in sides if s.costs is None]
    if unpriced:
        out.append(f"  cost       not known: no prices for {', '.join(unpriced)}")
        return out
    costs = [s.costs for s in sides if s.costs is not None]
    low, typical, high = (sum(c[i] for c in costs) for i in range(3))
    out.append(
        f"  cost       ${low:,.4f} (prompts alone), about ${typical:,.4f}, at most ${high:,.4f}; each at its own prices"
        + (", the Batch API's at half" if batched else "")
    )
    return out
