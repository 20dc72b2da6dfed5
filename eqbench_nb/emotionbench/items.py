"""EmotionBench's items: the PANAS questionnaire and the 175 situations of the paper's PANAS test.

Both are read at run time from the upstream files (:mod:`.files`); nothing of their text is committed.

- The questionnaire (``questionnaires.json``, entry ``PANAS``): 20 items by id, the user prompt template with
  its ``SCENARIO`` placeholder, the system prompt (``inner_setting``), and the two sub-scales (Positive Affect
  = items 1,3,5,9,10,12,14,16,17,19; Negative Affect = the rest), each scored as a SUM (10-50).
- The situations: the 175 the published runs were made on are the situation columns of the test sheet template
  upstream used (``doc.csv``: ``<Emotion>-<k>_scenario-<j>_test-<t>_order-0``, row 1 ``Imagine you are the
  protagonist in the scenario: "<text>"``): 5 per factor, 2 and 3 for Jealousy's factors 2 and 3 (0-based),
  36 factors, 8 emotions. Factor names are ``situations.json``'s.
- The human labels (``crowd.xlsx``: ``Angry_F1S1`` …) name emotion, factor and situation 1-based, with two
  emotions spelt differently (Angry, Jealous). The map to ``Anger-0_scenario-0`` is inferred, not documented
  upstream: the situation counts per factor match exactly (see the data's PROVENANCE.md).
"""

from __future__ import annotations

import csv
import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache

from ..data import DataError
from .files import locate

#: The emotions in upstream order (situations.json, the test sheets, the paper's tables).
EMOTIONS = ("Anger", "Anxiety", "Depression", "Frustration", "Jealousy", "Guilt", "Fear", "Embarrassment")
#: The crowd sheet's spelling of an emotion where it differs.
CROWD_EMOTION = {"Anger": "Angry", "Jealousy": "Jealous"}
#: The key of the default (no situation) in test sheets and run files.
DEFAULT_KEY = "General"
SCENARIO_PREFIX = 'Imagine you are the protagonist in the scenario: "'


@dataclass(frozen=True)
class Questionnaire:
    name: str
    items: dict[int, str]  # id (1-based, the questionnaire's) -> text
    prompt: str  # the user prompt template, with SCENARIO
    system: str  # inner_setting
    scale_max: int
    categories: dict[str, tuple[int, ...]]  # sub-scale name -> item ids
    compute_mode: str  # SUM, SUM*2 or AVG
    reverse: tuple[int, ...] = ()

    @property
    def ids(self) -> list[int]:
        return list(self.items)


@dataclass(frozen=True)
class Situation:
    """One situation of the PANAS test, or the default (``key == "General"``, no text)."""

    key: str  # "Anger-0_scenario-0", or "General"
    emotion: str  # "" for the default
    factor_index: int  # 0-based within the emotion; -1 for the default
    factor_name: str
    scenario_index: int  # 0-based within the factor; -1 for the default
    text: str  # what the model is asked to imagine; "" for the default

    @property
    def factor_key(self) -> str:
        return f"{self.emotion}-{self.factor_index}"

    @property
    def crowd_label(self) -> str:
        """The presumed label of this situation in ``crowd.xlsx`` (inferred mapping, see the module docstring)."""
        return f"{CROWD_EMOTION.get(self.emotion, self.emotion)}_F{self.factor_index + 1}S{self.scenario_index + 1}"


DEFAULT = Situation(DEFAULT_KEY, "", -1, "Default", -1, "")


@lru_cache(maxsize=8)
def _questionnaires(path: str | None) -> list[dict]:
    with open(locate("questionnaires.json", path), encoding="utf-8") as f:
        return list(json.load(f))


def load_questionnaire(name: str = "PANAS", data_path: str | os.PathLike | None = None) -> Questionnaire:
    """One questionnaire of ``questionnaires.json`` (upstream ``utils.get_questionnaire``)."""
    for q in _questionnaires(None if data_path is None else str(data_path)):
        if q["name"] == name:
            return Questionnaire(
                name=q["name"],
                items={int(k): str(v) for k, v in q["questions"].items()},
                prompt=q["prompt"],
                system=q["inner_setting"],
                scale_max=int(q["scale"]) - 1,
                categories={c["cat_name"]: tuple(int(i) for i in c["cat_questions"]) for c in q["categories"]},
                compute_mode=q["compute_mode"],
                reverse=tuple(int(i) for i in q["reverse"]),
            )
    raise DataError(f"questionnaire {name!r} is not in questionnaires.json")


@lru_cache(maxsize=8)
def _factor_names(path: str | None) -> dict[str, str]:
    with open(locate("situations.json", path), encoding="utf-8") as f:
        data = json.load(f)
    return {f"{e['name']}-{i}": factor["name"] for e in data["emotions"] for i, factor in enumerate(e["factors"])}


def factor_names(data_path: str | os.PathLike | None = None) -> dict[str, str]:
    """``"Anger-0"`` -> ``"Facing Self-Opinioned People"`` for the 36 factors, in upstream order."""
    return dict(_factor_names(None if data_path is None else str(data_path)))


_COLUMN = re.compile(r"(?P<emotion>[A-Za-z]+)-(?P<factor>\d+)_scenario-(?P<scenario>\d+)_test-\d+_order-\d+")


@lru_cache(maxsize=8)
def _situations(path: str | None) -> tuple[Situation, ...]:
    names = _factor_names(path)
    with open(locate("doc.csv", path), encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        header, first = next(reader), next(reader)
    seen: dict[str, Situation] = {}
    for column, cell in zip(header, first):
        m = _COLUMN.fullmatch(column)
        if not m:
            continue
        key = f"{m['emotion']}-{m['factor']}_scenario-{m['scenario']}"
        if key in seen:
            continue
        if not (cell.startswith(SCENARIO_PREFIX) and cell.endswith('"')):
            raise DataError(f'doc.csv column {column}: the situation cell does not read {SCENARIO_PREFIX}…"')
        factor_key = f"{m['emotion']}-{m['factor']}"
        seen[key] = Situation(
            key, m["emotion"], int(m["factor"]), names[factor_key], int(m["scenario"]), cell[len(SCENARIO_PREFIX) : -1]
        )
    return tuple(seen.values())


def load_situations(data_path: str | os.PathLike | None = None) -> list[Situation]:
    """The 175 situations of the PANAS test, in upstream order (emotion, factor, situation)."""
    return list(_situations(None if data_path is None else str(data_path)))


def select_situations(
    per_factor: int | None = None, emotions: list[str] | None = None, data_path: str | os.PathLike | None = None
) -> list[Situation]:
    """The situations to run: those of the named emotions (default all), at most ``per_factor`` of each factor
    (the first ones, in upstream order; default all)."""
    chosen = load_situations(data_path)
    if emotions is not None:
        if not emotions:
            raise ValueError("--emotions names no emotion; name at least one, or leave it out for all")
        unknown = [e for e in emotions if e not in EMOTIONS]
        if unknown:
            raise ValueError(f"unknown emotion {unknown[0]!r}; choose from {', '.join(EMOTIONS)}")
        chosen = [s for s in chosen if s.emotion in emotions]
    if per_factor is not None:
        if per_factor < 1:
            raise ValueError("--per-factor must be at least 1")
        chosen = [s for s in chosen if s.scenario_index < per_factor]
    return chosen
