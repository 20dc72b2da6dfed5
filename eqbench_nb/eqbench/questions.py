"""EQ-Bench question sets as typed records.

Upstream files (EQ-bench/EQ-Bench ``data/``): v2, v1 and German at d28c60c, Polish at 92e4a8f. Each
protocol reads the files of its pipeline's commit: the German file was corrected upstream on 2024-06-06
(f84568e, before the v2.4 release; 9 of 171 questions name emotions, or list them in the prompt,
differently), so ``official-v2.4`` reads that corrected file and every other protocol the d28c60c one.
The English v2 and v1 files are the same at both commits.

Each file is a dict keyed "1".."N"; each record has ``prompt``, ``reference_answer`` (four emotions and
scores summing to 10: the v1 "normalised" key) and ``reference_answer_fullscale`` (raw 0-10: the v2 key).
Scores mix int and str ("6"): always read with float(). v1 and v2 ids differ even for shared dialogues.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

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
#: (protocol, version) -> the file that protocol's pipeline reads where it is not :data:`QUESTION_FILES`'s:
#: v2.4-era commits (92e4a8f) carry the corrected German file (upstream f84568e, "corr").
PROTOCOL_QUESTION_FILES = {("official-v2.4", "de"): "eq_bench_v2_questions_171_de_v2.4.json"}
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


def question_file_name(version: str = "v2", protocol: str | None = None) -> str:
    """The upstream file a protocol's pipeline reads for a question set (``protocol=None``: d28c60c's)."""
    _check_version(version)
    return PROTOCOL_QUESTION_FILES.get((protocol or "", version), QUESTION_FILES[version])


def question_file(version: str = "v2", path: str | os.PathLike | None = None, protocol: str | None = None) -> Path:
    return locate(question_file_name(version, protocol), path)


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


def load_questions(
    version: str = "v2", path: str | os.PathLike | None = None, protocol: str | None = None
) -> list[Question]:
    """All questions of a set, ordered by id. ``version`` is "v2" (171), "v1" (60), "de" or "pl" (171 each);
    ``protocol`` picks the file of that protocol's upstream commit (only German differs: see the module
    docstring)."""
    return list(_load(question_file(version, path, protocol), version))


def questions_by_id(
    version: str = "v2", path: str | os.PathLike | None = None, protocol: str | None = None
) -> dict[str, Question]:
    return {q.id: q for q in load_questions(version, path, protocol)}


class _RunLike(Protocol):
    @property
    def header(self) -> Mapping[str, Any]: ...

    @property
    def version(self) -> str: ...


def run_questions(run: _RunLike) -> dict[str, Question]:
    """The questions a run was asked and is scored against: its set, in the file of its header's protocol
    (a file without one, such as a published upstream result, is read against d28c60c's)."""
    protocol = run.header.get("protocol")
    return questions_by_id(run.version, protocol=protocol if isinstance(protocol, str) else None)


def dataset_sha256(version: str = "v2", path: str | os.PathLike | None = None, protocol: str | None = None) -> str:
    return sha256_of(question_file(version, path, protocol))
