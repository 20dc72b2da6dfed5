"""The models a leaderboard compares: each with the transcripts a pairwise judge may see.

A contender comes from this project's run file (:func:`from_run`) or from upstream's canonical runs file
(:func:`from_upstream_runs`: ``data/canonical_leaderboard_results.json.gz``, a JSON object of runs, each with its
``model_name`` and ``scenario_tasks`` by iteration and scenario, every task holding ``conversation_history``,
``parsed_responses``, ``debrief_response``, ``status``). Upstream's canonical transcripts are used as stored (their
user turns are the prompts of the commit they were made with), this project's rebuilt from the pinned prompts.

Which tasks may be judged, as ``run_elo_analysis_eqbench3`` and ``_judge_scenario_pairs_in_parallel`` decide
(EQ-bench/eqbench3 ``3c21bcc``): a role-play or drafting task once its debrief is done, an analysis task once its
rubric judgement succeeded (upstream waits for ``rubric_scored``), and either only if one of its replies has at
least 100 characters. A later run of the same model replaces an earlier one's tasks (upstream merges run dicts).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .pairwise import Transcript
from .prompts import Templates
from .runs import Eq3Run
from .scenarios import ANALYSIS_SCENARIO_IDS, Scenario

MIN_REPLY_CHARS = 100


@dataclass
class Contender:
    name: str
    source: str
    transcripts: dict[tuple[str, str], Transcript] = field(default_factory=dict)  # (iteration, scenario) -> it

    @property
    def ready(self) -> set[tuple[str, str]]:
        return set(self.transcripts)


def _long_enough(history: Any) -> bool:
    """Upstream's baseline: one reply of at least :data:`MIN_REPLY_CHARS` characters (stripped)."""
    replies = [str(m.get("content", "")) for m in history if isinstance(m, Mapping) and m.get("role") == "assistant"]
    return any(len(r.strip()) >= MIN_REPLY_CHARS for r in replies)


def from_run(
    run: Eq3Run, scenarios: Mapping[str, Scenario], templates: Templates, name: str | None = None
) -> Contender:
    """A run's judgeable tasks (module docstring), named by its model (or ``name``)."""
    out = Contender(name or run.model, str(run.path))
    for (iteration, sid), play in run.plays().items():
        scenario = scenarios.get(sid)
        if scenario is None or not play.played:
            continue
        if sid in ANALYSIS_SCENARIO_IDS and (play.rubric is None or play.rubric.scores is None):
            continue
        transcript = play.transcript(scenario, templates)
        if _long_enough(transcript.history):
            out.transcripts[(str(iteration), sid)] = transcript
    return out


def eligible_upstream_task(task: Any, scenario_id: str) -> bool:
    """Whether upstream would judge this stored task (module docstring)."""
    if not isinstance(task, Mapping) or not isinstance(task.get("conversation_history"), list):
        return False
    history = task["conversation_history"]
    if not history or not _long_enough(history):
        return False
    if scenario_id in ANALYSIS_SCENARIO_IDS:
        return task.get("status") == "rubric_scored"
    return task.get("status") in ("completed", "rubric_scored") and task.get("debrief_response") is not None


def from_upstream_runs(obj: Any, source: str) -> dict[str, Contender]:
    """Contenders from upstream's runs object (module docstring), by logical model name."""
    if not isinstance(obj, Mapping):
        raise ValueError(f"{source}: not an EQ-Bench 3 runs file (a JSON object of runs)")
    out: dict[str, Contender] = {}
    for run in obj.values():
        if not isinstance(run, Mapping):
            continue
        model = run.get("model_name", run.get("test_model"))
        tasks = run.get("scenario_tasks")
        if not model or not isinstance(tasks, Mapping):
            continue
        contender = out.setdefault(str(model), Contender(str(model), source))
        for iteration, by_scenario in tasks.items():
            if not isinstance(by_scenario, Mapping):
                continue
            for sid, task in by_scenario.items():
                if not eligible_upstream_task(task, str(sid)):
                    continue
                parsed = task.get("parsed_responses") if isinstance(task.get("parsed_responses"), list) else []
                contender.transcripts[(str(iteration), str(sid))] = Transcript(
                    tuple(m for m in task["conversation_history"] if isinstance(m, Mapping)),
                    tuple(p for p in parsed if isinstance(p, Mapping)),
                    task.get("debrief_response"),
                )
    return {name: c for name, c in out.items() if c.transcripts}
