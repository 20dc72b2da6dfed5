"""EQ-Bench question sets as typed records.

Upstream files (EQ-bench/EQ-Bench ``data/``): v2, v1 and German at d28c60c, Polish at 92e4a8f. Each is
a dict keyed "1".."N"; each record has ``prompt``, ``reference_answer`` (four emotions and scores summing
to 10: the v1 "normalised" key) and ``reference_answer_fullscale`` (raw 0-10: the v2 key). Scores mix
int and str ("6"): always read with float(). v1 and v2 ids differ even for shared dialogues.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..data import check_pinned, locate, manifest, sha256_of

#: version -> upstream file. "de" (German) and "pl" (Polish) are v2: the English reference scores with
#: translated emotion names.
QUESTION_FILES = {
    "v2": "eq_bench_v2_questions_171.json",
    "v1": "eq_bench_v1_questions_60.json",
    "de": "eq_bench_v2_questions_171_de.json",
    "pl": "eq_bench_v2_questions_171_pl.json",
}
VERSIONS = tuple(QUESTION_FILES)
#: A run "fails" when fewer than this share of questions parse (upstream: ``parseable / n < 0.8333``);
#: its score is still computed and reported.
PASS_FRACTION = 0.8333


@dataclass(frozen=True)
class Question:
    """One EQ-Bench item: a dialogue prompt and reference intensities for four emotions."""

    id: str
    version: str
    prompt: str
    emotions: tuple[str, str, str, str]
    reference: dict[str, float]  # raw 0-10 intensities (v2 "fullscale" key)
    reference_normalised: dict[str, float]  # sums to 10 (v1 key)

    def reference_for(self, scale: str) -> dict[str, float]:
        """The key a scale scores against: "v2" fullscale, "v1" normalised."""
        return self.reference if scale == "v2" else self.reference_normalised


def scale_for(version: str) -> str:
    """v1 questions are scored with v1 (normalised) scoring; v2, German and Polish with fullscale."""
    return "v1" if version == "v1" else "v2"


def _key(raw: dict) -> dict[str, float]:
    return {str(raw[f"emotion{i}"]): float(raw[f"emotion{i}_score"]) for i in range(1, 5)}


def _check_version(version: str) -> None:
    if version not in QUESTION_FILES:
        raise ValueError(f"unknown EQ-Bench question set {version!r}; choose one of {', '.join(VERSIONS)}")


def question_file(version: str = "v2", path: str | os.PathLike | None = None) -> Path:
    _check_version(version)
    return locate(QUESTION_FILES[version], path)


@lru_cache(maxsize=16)
def _load(file: Path, version: str) -> tuple[Question, ...]:
    # checked before it is parsed: a damaged file is named, never read as a run's fault
    check_pinned(file.name if file.name in manifest()["question_sets"] else QUESTION_FILES[version], file)
    raw = json.loads(file.read_text(encoding="utf-8"))
    out = []
    for qid in sorted(raw, key=int):
        item = raw[qid]
        ref = _key(item["reference_answer_fullscale"])
        e1, e2, e3, e4 = ref
        out.append(Question(qid, version, item["prompt"], (e1, e2, e3, e4), ref, _key(item["reference_answer"])))
    return tuple(out)


def load_questions(version: str = "v2", path: str | os.PathLike | None = None) -> list[Question]:
    """All questions of a set, ordered by id. ``version`` is "v2" (171), "v1" (60), "de" or "pl" (171 each)."""
    return list(_load(question_file(version, path), version))


def questions_by_id(version: str = "v2", path: str | os.PathLike | None = None) -> dict[str, Question]:
    return {q.id: q for q in load_questions(version, path)}


def dataset_sha256(version: str = "v2", path: str | os.PathLike | None = None) -> str:
    return sha256_of(question_file(version, path))
