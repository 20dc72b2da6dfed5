"""The messages EmotionBench sends, byte for byte as upstream builds them (CUHK-ARISE/EmotionBench @ 48f6e1b).

Upstream writes a test sheet (``utils.generate_testfile``) and then asks each column of it
(``example_generator.example_generator``):

- system: the questionnaire's ``inner_setting``;
- user: the sheet's question column joined with newlines, which is ``"Prompt: " + template`` followed by the
  items, one a line, numbered from 1 in the order asked (``"1. Interested"``); then every ``SCENARIO`` in that
  text is replaced by the column's first cell: ``Imagine you are the protagonist in the scenario: "<text>"``
  for a situation, a single space for the default.
- temperature 0 (``chat``'s default), one completion, ``max_tokens`` 1024 (``chat``'s default).

Item orders: order 0 is the questionnaire's; order k > 0 is a shuffle (upstream ``random.shuffle``, unseeded;
here seeded by k so that a run can be resumed and repeated), and the answers are mapped back to item ids.
"""

from __future__ import annotations

import random

from .items import SCENARIO_PREFIX, Questionnaire, Situation

TEMPERATURE = 0.0
MAX_TOKENS = 1024


def item_order(questionnaire: Questionnaire, order: int) -> list[int]:
    """The item ids in the order asked: the questionnaire's for order 0, a seeded shuffle for order k > 0."""
    ids = questionnaire.ids
    if order:
        random.Random(f"emotionbench-order-{order}").shuffle(ids)
    return ids


def scenario_phrase(situation: Situation) -> str:
    """What replaces ``SCENARIO``: the situation sentence, or a single space for the default."""
    return f'{SCENARIO_PREFIX}{situation.text}"' if situation.text else " "


def user_prompt(questionnaire: Questionnaire, situation: Situation, ids: list[int]) -> str:
    lines = [f"Prompt: {questionnaire.prompt}"] + [f"{n}. {questionnaire.items[i]}" for n, i in enumerate(ids, 1)]
    return "\n".join(lines).replace("SCENARIO", scenario_phrase(situation))


def build_messages(questionnaire: Questionnaire, situation: Situation, ids: list[int]) -> list[dict[str, str]]:
    """The chat messages for one situation (or the default) with the items in the order ``ids``."""
    return [
        {"role": "system", "content": questionnaire.system},
        {"role": "user", "content": user_prompt(questionnaire, situation, ids)},
    ]
