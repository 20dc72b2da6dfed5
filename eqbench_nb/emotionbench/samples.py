"""EmotionBench's item records: one row per situation (in one item order) x repeat of a run, what the run viewer
draws.

Each row holds the messages upstream sends (rebuilt from the upstream files, read at run time; without them the
row says so), the one attempt with the reader's status and why, the rating read for each item as asked, the
sub-scale scores of a complete answer (as upstream sums them, :mod:`.scoring`) and an evoked answer's change from
the mean of the run's complete default answers (what the paper's test compares), with tokens, latency, cost and
transport faults. The common columns and the attempts' reading are :mod:`eqbench_nb.viewer.contract`'.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..runner.cost import Prices
from ..viewer.contract import AttemptCosts, FrameSchema, attempt_view, text_or_none
from .runs import EmotionRecord, EmotionRun
from .scoring import NA, PA, subscale_scores

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EMOTIONBENCH_COLUMNS", "EMOTIONBENCH_TABLE", "emotionbench_samples"]


EMOTIONBENCH_COLUMNS = (
    "repeat",
    "situation",
    "order",
    "emotion",
    "factor",
    "status",
    "refusal",
    "ratings",
    "positive_affect",
    "negative_affect",
    "change_pa",
    "change_na",
)
EMOTIONBENCH_TABLE = (
    ("label", "item", "text"),
    ("positive_affect", "PA", "num"),
    ("negative_affect", "NA", "num"),
    ("change_pa", "PA - default", "num"),
    ("change_na", "NA - default", "num"),
    ("decision", "status", "text"),
    ("text", "answer", "text"),
)
EMOTIONBENCH_FRAME = FrameSchema("emotionbench", EMOTIONBENCH_COLUMNS, EMOTIONBENCH_TABLE, "negative_affect",
                                 "largest |change| from the default (PA, NA)")  # fmt: skip
_STATUS_REASONS = {
    "complete": "a rating on the scale read for every item",
    "incomplete": "ratings read for {found} of {n} items: not scored",
    "refused": "no rating read, and the text says it cannot feel: not scored",
    "unreadable": "no rating read: not scored",
    "no answer": "the request returned no text: not scored",
}


def emotionbench_samples(run: EmotionRun, prices: Prices | None = None) -> pd.DataFrame:
    """One row per record (situation in one item order x repeat) of an EmotionBench run.

    Beyond :data:`COMMON_COLUMNS`: ``repeat``, ``situation``, ``order``, ``emotion``, ``factor``, ``status``
    (the reader's), ``refusal``, ``ratings`` (per item as asked: its id, text, rating read),
    ``positive_affect`` / ``negative_affect`` (the sub-scale scores of a complete answer, as upstream sums
    them) and ``change_pa`` / ``change_na`` (an evoked answer's score minus the mean of the run's complete
    default answers: what the paper's test compares). The messages are rebuilt from the upstream files, read
    at run time; without them the row says so.
    """
    prices = prices or Prices()
    texts = _Texts.read(run)
    items = texts.items
    categories = run.header.own.categories or {}
    mode = run.header.own.compute_mode or "SUM"
    scored = {id(r): subscale_scores(r.ratings, categories, mode) for r in run.records if r.complete}
    default = [s for r in run.records if r.is_default and (s := scored.get(id(r)))]
    default_means = {k: sum(s[k] for s in default) / len(default) for k in (PA, NA)} if default else {}
    names = run.header.own.factor_names or {}
    rows = []
    for r in run.records:
        scores = scored.get(id(r), {})
        messages, source = texts.messages(r)
        row = {
            "item_id": f"{r.item}-r{r.repeat}",
            "key": f"{r.item}-r{r.repeat}",
            "label": f"{_situation_label(r, names)} · repeat {r.repeat}",
            "text": text_or_none(r.attempt.get("text")),
            "messages": messages,
            "prompt_source": source,
            "attempts": [attempt_view(r.attempt, 1, r.status, _status_reason(r), r.complete)],
            "n_attempts": 1,
            "kept_attempt": 1 if r.complete else None,
            "parsed": r.complete,
            "decision": r.status,
            "reason": _status_reason(r),
            "groups": [r.situation.split("-")[0] if not r.is_default else "Default"],
            "miss": _largest_change(r, scores, default_means),
            **AttemptCosts.of([r.attempt]).columns(prices),
            "retried": False,
            "events": [],
            "repeat": r.repeat,
            "situation": r.situation,
            "order": r.order,
            "emotion": "" if r.is_default else r.situation.split("-")[0],
            "factor": "" if r.is_default else str(names.get(r.situation.split("_")[0], "")),
            "status": r.status,
            "refusal": r.refusal,
            "ratings": _item_ratings(r, items),
            "positive_affect": scores.get(PA),
            "negative_affect": scores.get(NA),
            "change_pa": _change(r, scores, default_means, PA),
            "change_na": _change(r, scores, default_means, NA),
        }
        rows.append(row)
    return EMOTIONBENCH_FRAME.frame(rows)


@dataclass(frozen=True)
class _Texts:
    """The questionnaire and situations from the upstream files (read at run time), or why they are missing."""

    questionnaire: Any = None
    situations: dict[str, Any] | None = None
    missing: str | None = None

    @classmethod
    def read(cls, run: EmotionRun) -> _Texts:
        from ..data import DataError
        from .items import DEFAULT, load_questionnaire, load_situations

        try:
            questionnaire = load_questionnaire(run.header.own.questionnaire or "PANAS")
            situations = {s.key: s for s in load_situations()}
        except (DataError, OSError, ValueError, KeyError) as exc:
            return cls(missing=f"the EmotionBench files are not readable here ({exc}); they are read at run time")
        return cls(questionnaire, situations | {DEFAULT.key: DEFAULT})

    @property
    def items(self) -> dict[int, str]:
        return dict(self.questionnaire.items) if self.questionnaire is not None else {}

    def messages(self, record: EmotionRecord) -> tuple[list[dict[str, str]] | None, str]:
        """The messages upstream sends for the record, and where they come from."""
        from .prompts import build_messages

        if self.missing is not None or self.situations is None:
            return None, self.missing or "the EmotionBench files are not readable here"
        situation = self.situations.get(record.situation)
        if situation is None or any(i not in self.questionnaire.items for i in record.item_ids):
            return None, f"situation {record.situation} or its items are not in the upstream files"
        messages = build_messages(self.questionnaire, situation, record.item_ids)
        return messages, "the messages upstream sends, rebuilt from the EmotionBench files"


def _situation_label(record: EmotionRecord, names: Mapping[str, Any]) -> str:
    if record.is_default:
        label = "Default (no situation)"
    else:
        factor = record.situation.split("_")[0]
        label = f"{record.situation} ({names.get(factor, factor)})"
    return label + (f" · order {record.order}" if record.order else "")


def _status_reason(record: EmotionRecord) -> str:
    found = sum(v is not None for v in record.raw_ratings)
    reason = _STATUS_REASONS.get(record.status, record.status).format(found=found, n=len(record.item_ids))
    if record.refusal and record.status != "refused":
        reason += "; the text also holds a refusal phrase"
    return reason


def _item_ratings(record: EmotionRecord, items: dict[int, str]) -> list[dict[str, Any]]:
    read = record.raw_ratings + [None] * (len(record.item_ids) - len(record.raw_ratings))
    return [
        {"position": n, "item_id": i, "item": items.get(i, f"item {i}"), "rating": read[n - 1]}
        for n, i in enumerate(record.item_ids, 1)
    ]


def _change(record: EmotionRecord, scores: dict[str, float], default: dict[str, float], scale: str) -> float | None:
    if record.is_default or scale not in scores or scale not in default:
        return None
    return scores[scale] - default[scale]


def _largest_change(record: EmotionRecord, scores: dict[str, float], default: dict[str, float]) -> float | None:
    changes = [c for s in default if (c := _change(record, scores, default, s)) is not None]
    return max(map(abs, changes)) if changes else None
