"""The human baseline: 1,266 people's PANAS before and after imagining one situation (``crowd.xlsx``, sheet Raw).

Each column of the Raw sheet is a participant: the situation's label (``Angry_F1S1``), demographics, the 20 items
"current feeling" (before), the 20 items after imagining the situation, and PA/NA sums. Norms are recomputed
here from the item ratings (the Summary sheet has known errors: its before-PA SD is the after-PA SD, and some
per-emotion differences do not follow from Raw; see the data's PROVENANCE.md). Item ids are found by matching
each row's item word (``… - Interested``) to the questionnaire. The label -> situation map is inferred
(:attr:`.items.Situation.crowd_label`).
"""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass
from functools import lru_cache

from ..data import DataError
from .files import locate
from .items import CROWD_EMOTION, Questionnaire, load_questionnaire, load_situations
from .scoring import NA, PA, SUBSCALES, subscale_scores

BEFORE_MARK = "current feeling"


@dataclass(frozen=True)
class Participant:
    label: str  # the crowd label, "Angry_F1S1"
    situation: str  # our key, "Anger-0_scenario-0"
    before: dict[str, float]  # PA, NA before imagining the situation
    after: dict[str, float]
    stated: dict[str, float]  # the PA/NA sums the sheet itself gives (General, After Scenario)

    @property
    def factor(self) -> str:
        return self.situation.split("_")[0]

    @property
    def emotion(self) -> str:
        return self.situation.split("-")[0]

    def change(self, scale: str) -> float:
        return self.after[scale] - self.before[scale]


@lru_cache(maxsize=4)
def _participants(path: str | None) -> tuple[Participant, ...]:
    import openpyxl  # only here: the rest of the package does not need it

    workbook = openpyxl.load_workbook(locate("crowd.xlsx", path), read_only=True, data_only=True)
    rows = [list(r) for r in workbook["Raw"].iter_rows(values_only=True)]
    workbook.close()
    questionnaire = load_questionnaire("PANAS", path)
    by_word = {text.strip().lower(): i for i, text in questionnaire.items.items()}
    before_rows: dict[int, int] = {}
    after_rows: dict[int, int] = {}
    stated_rows: dict[str, int] = {}
    for r, row in enumerate(rows):
        title = str(row[1] or "")
        if " - " in title and "extent of your" in title:
            item = by_word.get(title.rsplit(" - ", 1)[1].strip().lower())
            if item is None:
                raise DataError(f"crowd.xlsx row {r + 1}: item {title!r} is not a PANAS item")
            (before_rows if BEFORE_MARK in title else after_rows)[item] = r
        for scale in SUBSCALES:
            if title == f"{scale}(General)":
                stated_rows[f"before {scale}"] = r
            elif title == f"{scale}(After Scenario)":
                stated_rows[f"after {scale}"] = r
    if len(before_rows) != 20 or len(after_rows) != 20:
        raise DataError("crowd.xlsx: the Raw sheet does not hold 20 items before and 20 after")
    labels = {s.crowd_label: s.key for s in load_situations(path)}
    out = []
    for col in range(2, len(rows[0])):
        label = rows[0][col]
        if label is None:
            continue
        if label not in labels:
            raise DataError(f"crowd.xlsx: label {label!r} names no situation of the PANAS test")
        out.append(
            Participant(
                str(label),
                labels[label],
                _scores(rows, before_rows, col, questionnaire),
                _scores(rows, after_rows, col, questionnaire),
                {k: float(rows[r][col]) for k, r in stated_rows.items()},
            )
        )
    return tuple(out)


def _scores(rows: list[list], item_rows: dict[int, int], col: int, questionnaire: Questionnaire) -> dict[str, float]:
    ratings = {i: int(rows[r][col]) for i, r in item_rows.items()}
    return subscale_scores(ratings, questionnaire.categories, questionnaire.compute_mode)


def load_participants(data_path: str | os.PathLike | None = None) -> list[Participant]:
    """The 1,266 participants, in the sheet's order."""
    return list(_participants(None if data_path is None else str(data_path)))


@dataclass(frozen=True)
class Norm:
    """One group's PANAS before and after (means, SDs), its paired change and the change's 95 % t interval."""

    group: str  # factor key, emotion, or "Overall"
    n: int
    before: dict[str, float]
    after: dict[str, float]
    sd_before: dict[str, float]
    sd_after: dict[str, float]
    change: dict[str, float]
    change_ci: dict[str, tuple[float, float]]
    t_value: dict[str, float]


def norm(group: str, people: list[Participant]) -> Norm:
    """Means and SDs before and after; the paired change with its t interval (over participants) and paired t."""
    from ..analysis.stats import DEFAULT_LEVEL, t_quantile

    n = len(people)
    before = {s: statistics.fmean(p.before[s] for p in people) for s in SUBSCALES}
    after = {s: statistics.fmean(p.after[s] for p in people) for s in SUBSCALES}
    sd_b = {s: statistics.stdev(p.before[s] for p in people) for s in SUBSCALES}
    sd_a = {s: statistics.stdev(p.after[s] for p in people) for s in SUBSCALES}
    change, ci, t = {}, {}, {}
    for s in SUBSCALES:
        d = [p.change(s) for p in people]
        m, sd = statistics.fmean(d), statistics.stdev(d)
        half = t_quantile(DEFAULT_LEVEL, n - 1) * sd / n**0.5
        change[s], ci[s], t[s] = m, (m - half, m + half), m / (sd / n**0.5) if sd else float("nan")
    return Norm(group, n, before, after, sd_b, sd_a, change, ci, t)


def norms(data_path: str | os.PathLike | None = None) -> dict[str, Norm]:
    """Norms per factor (``"Anger-0"``), per emotion (``"Anger"``) and ``"Overall"``."""
    people = load_participants(data_path)
    groups: dict[str, list[Participant]] = {}
    for p in people:
        groups.setdefault(p.factor, []).append(p)
    for p in people:
        groups.setdefault(p.emotion, []).append(p)
    out = {k: norm(k, v) for k, v in groups.items()}
    out["Overall"] = norm("Overall", people)
    return out


def crowd_emotion_name(emotion: str) -> str:
    """The crowd sheet's spelling of an emotion (Angry, Jealous)."""
    return CROWD_EMOTION.get(emotion, emotion)


__all__ = ["NA", "PA", "Norm", "Participant", "crowd_emotion_name", "load_participants", "norm", "norms"]
