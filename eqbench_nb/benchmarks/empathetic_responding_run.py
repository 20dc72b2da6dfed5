"""A run of ``eqbench-nb run --benchmark empathetic-responding`` read beside Welivita & Pu's study (notebook 13,
section 5).

A judge's run rates two arms per prompt, the subject's response and the ED listener's (the human arm). The human
arm is the one place where a judge's rating and a person's rating (the study's rater's) fall on the **same
response**, so it is where the judge can be checked against people; the subject's responses have no human rating.
This module gives the command a committed run was made with, each arm's ratings under the judge, how often the
judge's replies could be read, and the judge's ratings of the human arm against the study's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..analysis.agreement import Kappa, weighted_kappa
from ..paths import tables_dir
from ..runner.samples import SampleRun
from ..welivita_pu.study import LABELS
from . import empathetic_responding as er

#: The committed run of the bundled model, subject and judge at once, and its judge's human-arm file. A folder of
#: their own, not ``data/runs/``: a folder holding runs of two benchmarks with a leaderboard is refused by
#: ``leaderboard`` (``eqbench-nb leaderboard data/runs`` is the EQ-Bench runs' board).
COMMITTED_FOLDER = "empathetic_responding_runs"
COMMITTED_GLOB = "SmolLM2-135M-Instruct__empathetic-responding__*.jsonl"
ARM_NAMES = {"model": "the subject's responses", "human": "the ED listener's responses (human arm)"}


def committed_run_path() -> Path:
    """The committed run file (a ValueError naming the folder when there is none)."""
    folder = tables_dir() / COMMITTED_FOLDER
    found = sorted(folder.glob(COMMITTED_GLOB))
    if len(found) != 1:
        raise ValueError(f"runs: {len(found)} files match {COMMITTED_GLOB} in {folder}; the notebook reads one")
    return found[0]


def command_line(run: SampleRun, prompts: list[er.Prompt], out_dir: str = f"data/{COMMITTED_FOLDER}") -> str:
    """The ``eqbench-nb run`` command that selects this run's prompts, checked by selecting them again: a seeded
    ``--sample``, a ``--limit``, or (neither gives them) a ValueError."""
    items = list(run.header.own.items or ())
    seed = run.header.seed
    sampling = run.header.own.sampling or {}
    if [p.id for p in er.select(prompts, None, len(items), None, seed)] == items:
        chosen = f"--sample {len(items)} --seed {0 if seed is None else seed}"
    elif [p.id for p in er.select(prompts, None, None, len(items), seed)] == items:
        chosen = f"--limit {len(items)}"
    else:
        raise ValueError(f"items: {run.path.name}'s prompts are neither a --sample nor a --limit of the study's")
    extra = "" if sampling.get("max_tokens", er.SUBJECT_MAX_TOKENS) == er.SUBJECT_MAX_TOKENS else (
        f" --max-tokens {sampling['max_tokens']}")  # fmt: skip
    return (f"eqbench-nb run --benchmark empathetic-responding --prompt {sampling.get('prompt', 'plain')} {chosen}"
            f"{extra} --out {out_dir}")  # fmt: skip


def _attempts(run: SampleRun) -> dict[str, dict[tuple[str, str], list[Any]]]:
    """Each arm's judge attempts: (prompt, judge) -> attempts in order."""
    human: dict[tuple[str, str], list[Any]] = {}
    judged = er._judgements(run.records)
    for judge in dict.fromkeys(j for _, j in judged):
        path = er.human_arm_path(run.path.parent, judge)
        human |= er._judgements(er.read_human_arm(path)) if path.exists() else {}
    return {"model": judged, "human": human}


def arm_ratings(run: SampleRun) -> pd.DataFrame:
    """One row per arm and judge: prompts judged, rated, unrated (no readable rating in :data:`er.JUDGE_ATTEMPTS`
    requests), the Bad / Okay / Good counts among the rated and the mean rating; the judge's requests, how many of
    them held one rating word, and how many responses needed more than one request."""
    rows = []
    for arm, attempts in _attempts(run).items():
        for judge in dict.fromkeys(j for _, j in attempts):
            mine = {pid: a for (pid, j), a in attempts.items() if j == judge}
            finals = {pid: er.final_rating(a) for pid, a in mine.items()}
            rated = [r for r in finals.values() if type(r) is int]  # not None (unrated) nor False (unfinished)
            requests = [s for a in mine.values() for s in a]
            row: dict[str, Any] = {"arm": ARM_NAMES[arm], "judge": judge, "prompts": len(mine),
                                   "rated": len(rated), "unrated": sum(r is None for r in finals.values())}  # fmt: skip
            row |= {label: rated.count(value) for value, label in LABELS.items()}
            row["mean rating"] = sum(rated) / len(rated) if rated else float("nan")
            row["requests"] = len(requests)
            row["readable"] = sum(s.scores.get("rating") is not None for s in requests)
            row["asked again"] = sum(len(a) > 1 for a in mine.values())
            rows.append(row)
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class AgainstPeople:
    """A judge's ratings of the human arm beside the study's raters' ratings of the same responses."""

    judge: str
    pairs: pd.DataFrame  # one row per prompt: dialog_id, people, judge (1 Bad, 2 Okay, 3 Good)
    table: pd.DataFrame  # people's rating (rows) against the judge's (columns), counts
    exact: float  # share of responses the two rate alike
    kappa: Kappa  # quadratic-weighted Cohen's kappa
    good_people: float  # the people's Good share on these responses
    good_judge: float  # the judge's


def against_people(run: SampleRun, long: pd.DataFrame, judge: str | None = None) -> AgainstPeople:
    """The judge's (default: the run's first) final ratings of the human arm, joined by prompt to the study's
    ratings of the same ED listener's responses (``long``: :func:`eqbench_nb.welivita_pu.study.ratings`); prompts
    the judge left unrated are left out."""
    human = _attempts(run)["human"]
    judges = list(dict.fromkeys(j for _, j in human))
    if not judges:
        raise ValueError(f"{run.path.name}: no judge's ratings of the human arm beside it")
    judge = judges[0] if judge is None else judge
    if judge not in judges:
        raise ValueError(f"judge: {judge!r} rated no human response of this run; it has {', '.join(judges)}")
    theirs = {pid: er.final_rating(a) for (pid, j), a in human.items() if j == judge}
    people = long[long["arm"] == "human"].set_index("dialog_id")["rating"]
    rated = {pid: r for pid, r in theirs.items() if type(r) is int}  # not None (unrated) nor False (unfinished)
    pairs = pd.DataFrame([{"dialog_id": pid, "people": int(people[pid]), "judge": r} for pid, r in rated.items()])
    table = pd.crosstab(pairs["people"], pairs["judge"]).reindex(index=list(LABELS), columns=list(LABELS),
                                                                 fill_value=0)  # fmt: skip
    table = table.rename(index=LABELS, columns=LABELS).rename_axis(index="people", columns="judge")
    return AgainstPeople(
        judge,
        pairs,
        table,
        float((pairs["people"] == pairs["judge"]).mean()),
        weighted_kappa(pairs["people"], pairs["judge"], list(LABELS)),
        float((pairs["people"] == 3).mean()),
        float((pairs["judge"] == 3).mean()),
    )


def response_words(run: SampleRun, prompts: list[er.Prompt]) -> pd.DataFrame:
    """Words per response, the subject's and the ED listener's, over the run's answered prompts."""
    human = {p.id: p.human for p in prompts}
    rows = [{"subject": len((s.answer or "").split()), "human": len(human[s.item].split())} for s in run.records
            if s.metadata.get("step") == "answer" and s.answer is not None and s.item in human]  # fmt: skip
    return pd.DataFrame(rows, columns=["subject", "human"])


def _words(text: str) -> list[str]:
    import re

    return re.findall(r"[a-z0-9']+", text.lower())


def longest_shared_run(a: str, b: str) -> int:
    """The most consecutive words ``a`` and ``b`` share (case and punctuation ignored)."""
    x, y = _words(a), _words(b)
    best, previous = 0, [0] * (len(y) + 1)
    for u in x:
        current = [0] * (len(y) + 1)
        for j, v in enumerate(y, 1):
            if u == v:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


def echoes(run: SampleRun, prompts: list[er.Prompt]) -> pd.DataFrame:
    """Per answered prompt: how many consecutive words of the speaker's utterance the subject's response repeats
    (``shared``), of how many words the utterance has (``speaker``)."""
    speaker = {p.id: p.speaker for p in prompts}
    rows = [{"dialog_id": s.item, "shared": longest_shared_run(s.answer, speaker[s.item]),
             "speaker": len(_words(speaker[s.item]))} for s in run.records
            if s.metadata.get("step") == "answer" and s.answer is not None and s.item in speaker]  # fmt: skip
    return pd.DataFrame(rows, columns=["dialog_id", "shared", "speaker"])
