"""One EQ-Bench 3 run in a few numbers: the rubric score (0-100) with its interval, per-criterion means, and what
is missing.

The score is upstream's (:func:`.rubric.run_score`: the mean over every judged task of its counted criteria, all
iterations pooled, rounded on 0-20, times 5). Its interval is a percentile bootstrap over **scenarios** (each
resampled scenario brings all its iterations; 2,000 resamples, seed 0): how much the score depends on which
scenarios were asked, not how noisy the model or the judge was. Judgements recorded as errors (a reply that did not
parse) are counted and left out, as upstream leaves them out; scenarios not finished are counted too.

A run judged by a **panel** (:mod:`.panel`) is summarised for one judge (``judge=``, its judgements only) or for the
panel (the default): the panel's score of a task is the mean of its judges' task scores
(:func:`~eqbench_nb.analysis.judges.panel_scores`, Judgemark v2.1's ensemble average), a judge whose judgement did
not parse left out of that task's mean; the run's score is upstream's over those task scores. A run with one judge
reads the same either way.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..analysis.stats import DEFAULT_REPS, SMALL_N, bootstrap_indices, percentile_interval
from . import rubric
from .runs import RUBRIC, Eq3Run

INTERVAL_METHOD = "percentile bootstrap over scenarios, 2,000 resamples"
#: Below :data:`~eqbench_nb.analysis.stats.SMALL_N` scenarios (a ``--scenarios`` run): Student's t over the
#: scenarios, each scenario's tasks (all its iterations) one cluster (:func:`.study.clustered_mean_interval`).
SMALL_INTERVAL_METHOD = "Student t over scenarios (cluster-robust SE, iterations nested)"
#: Fewer than two scenarios: nothing to resample, no interval.
NO_INTERVAL = "no interval below 2 scenarios"


def interval_method_for(scenarios: int) -> str:
    """What a run's interval is over ``scenarios`` scored scenarios: the one label the run summary, the viewer and
    ``score`` give it."""
    if scenarios < 2:
        return NO_INTERVAL
    return SMALL_INTERVAL_METHOD if scenarios < SMALL_N else INTERVAL_METHOD


@dataclass
class RunSummary:
    model: str
    run_id: str
    judge: str
    scoring_version: str
    score: float | None  # 0-100, upstream's
    low: float | None
    high: float | None
    scenarios_scored: int
    tasks_scored: int
    tasks_expected: int
    judge_errors: int
    criteria: dict[str, float] = field(default_factory=dict)  # criterion -> mean score on 0-20
    error_examples: list[str] = field(default_factory=list)
    interval_method: str = INTERVAL_METHOD  # what the interval resamples: it depends on the number of scenarios
    #: criterion scores outside 0-20, kept and counted (as upstream keeps them), and flagged
    out_of_range: int = 0
    #: judgements that kept their other scores but left one or more out as not finite (NaN, Infinity, 1e309)
    left_out: int = 0

    @property
    def flags(self) -> list[str]:
        """What a reader of the score must know about the judge's numbers, one phrase each (none: [])."""
        out = []
        if self.out_of_range:
            out.append(
                f"{self.out_of_range} criterion score{'s' if self.out_of_range != 1 else ''} outside "
                f"{rubric.SCALE} (kept and counted, as upstream keeps them)"
            )
        if self.left_out:
            out.append(
                f"{self.left_out} judgement{'s' if self.left_out != 1 else ''} with a score that is not a finite "
                "number (left out, the rest kept)"
            )
        return out

    def as_row(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None or math.isnan(x) else round(x, 2)

        return {
            "benchmark": "eqbench3",
            "model": self.model,
            "run_id": self.run_id,
            "judge": self.judge,
            "scoring_version": self.scoring_version,
            "rubric": r(self.score),
            "low": r(self.low),
            "high": r(self.high),
            "scenarios": self.scenarios_scored,
            "tasks": self.tasks_scored,
            "expected": self.tasks_expected,
            "judge_errors": self.judge_errors,
            "interval_method": self.interval_method,
            "out_of_range": self.out_of_range,
            "left_out": self.left_out,
            **{f"mean_{k}": r(v) for k, v in self.criteria.items()},
        }

    def table(self) -> str:
        def f(x: float | None) -> str:
            return "—" if x is None or math.isnan(x) else f"{x:.2f}"

        lines = [
            f"rubric     {f(self.score)} / 100  [{f(self.low)}, {f(self.high)}] ({self.interval_method}; "
            f"{self.scenarios_scored} scenarios)",
            f"tasks      {self.tasks_scored} scored of {self.tasks_expected}; judge errors {self.judge_errors} "
            "(left out of the score)",
            f"judge      {self.judge}   scoring {self.scoring_version}",
            "criteria   mean of 0-20 over the tasks that have it (* counts toward the score)",
        ]
        for name, value in self.criteria.items():
            lines.append(f"  {'*' if name in self.counted else ' '} {name:<34}{value:6.2f}")
        for example in self.error_examples:
            lines.append(f"error      {example}")
        for flag in self.flags:
            lines.append(f"FLAGGED    {flag}")
        return "\n".join(lines)

    @property
    def counted(self) -> frozenset[str]:
        """The criteria that count toward the score in a task of some kind (the standard set, the analysis ones)."""
        try:
            analysis = rubric.load_rubric("analysis").criteria
        except Exception:  # the file cannot be read: mark only the standard ones
            analysis = ()
        return rubric.STANDARD_COUNTED | frozenset(analysis)


def panel_task_scores(per_judge: dict[tuple[int, str], dict[str, float]]) -> dict[tuple[int, str], float]:
    """The panel's score of each task ((iteration, scenario) -> {judge: task score}): the mean of its judges'
    scores (:func:`~eqbench_nb.analysis.judges.panel_scores`); a task one judge scored keeps that score."""
    if all(len(scores) == 1 for scores in per_judge.values()):
        return {task: next(iter(scores.values())) for task, scores in per_judge.items()}
    import pandas as pd

    from ..analysis.judges import panel_scores

    rows = [{"judge": j, "model": "run", "task": f"{i}:{sid}", "score": v}
            for (i, sid), scores in per_judge.items() for j, v in scores.items()]  # fmt: skip
    keys = {f"{i}:{sid}": (i, sid) for i, sid in per_judge}
    table = panel_scores(pd.DataFrame(rows, columns=["judge", "model", "task", "score"]))
    return {keys[str(t)]: float(v) for t, v in zip(table["task"], table["score"])}


def summarise_run(run: Eq3Run, reps: int = DEFAULT_REPS, seed: int = 0, judge: str | None = None) -> RunSummary:
    """The numbers above for one run file: for one ``judge`` of its panel, or (None) for the panel."""
    per_task: dict[tuple[int, str], dict[str, float]] = defaultdict(dict)
    criteria: dict[str, list[float]] = defaultdict(list)
    errors: list[str] = []
    first = run.judges[0] if run.judges else None
    outside = left_out = 0
    for r in run.records:
        if r.step != RUBRIC or (judge is not None and (r.judge or first) != judge):
            continue
        who = f" (judge {r.judge})" if judge is None and len(run.judges) > 1 else ""
        if r.scores is not None and r.error:  # scores kept, some left out as not finite (runs.step_from_json)
            left_out += 1
        if r.scores is None:
            errors.append(f"iteration {r.iteration}, scenario {r.scenario_id}{who}: {r.error}")
            continue
        task = rubric.scenario_task_score(r.scenario_id, r.scores)
        if task is None:
            errors.append(f"iteration {r.iteration}, scenario {r.scenario_id}{who}: no score for a counted criterion")
            continue
        per_task[(r.iteration, r.scenario_id)][str(r.judge)] = task
        outside += len(rubric.out_of_range_scores(r.scores))
        for name, value in r.scores.items():
            criteria[name].append(value)
    by_scenario: dict[str, list[float]] = defaultdict(list)
    panel = panel_task_scores(per_task)
    for key in per_task:  # in the file's order (the bootstrap's resamples follow it)
        by_scenario[key[1]].append(panel[key])
    scored = len(per_task)
    tasks = [t for values in by_scenario.values() for t in values]
    score = rubric.run_score(tasks)
    low = high = None
    method = interval_method_for(len(by_scenario))
    if len(by_scenario) >= 2:
        import numpy as np  # here, not at import: the parser imports this module's labels (test_import_cost)

        sums = np.array([[sum(v), len(v)] for v in by_scenario.values()], float)
        if len(sums) < SMALL_N:  # the house rule: a percentile bootstrap over so few scenarios is too narrow
            from .study import clustered_mean_interval

            t = clustered_mean_interval(sums[:, 0], sums[:, 1], unit="scenarios")
            low, high = t.low * rubric.TO_100, t.high * rubric.TO_100
        else:
            idx = bootstrap_indices(len(sums), reps, seed)
            means = sums[idx, 0].sum(1) / sums[idx, 1].sum(1)
            lo, hi = percentile_interval(np.round(means, 2) * rubric.TO_100)
            low, high = float(lo), float(hi)
    counts = run.header.own.scenario_turns
    expected = len(counts or {}) * (run.header.iterations or 1)
    return RunSummary(
        run.model,
        run.run_id,
        judge if judge is not None else " + ".join(run.judges) if len(run.judges) > 1 else run.judge,
        run.header.own.scoring_version or "",
        score,
        low,
        high,
        len(by_scenario),
        scored,
        expected,
        len(errors),
        {k: statistics.mean(v) for k, v in sorted(criteria.items())},
        errors[:3],
        method,
        out_of_range=outside,
        left_out=left_out,
    )


def by_judge(run: Eq3Run, reps: int = DEFAULT_REPS, seed: int = 0) -> list[dict[str, Any]]:
    """``score --by-judge``: one row per judge of the run's panel (its own judgements) and one for the panel (the
    mean of the judges' scores of each task), each with the columns of :data:`.panel.BY_JUDGE_COLUMNS`: the rubric
    score (0-100), its interval over scenarios (as ``score``'s), the tasks scored, and the judge's numbers flagged
    (criterion scores outside 0-20, kept and counted as upstream keeps them; judgements with a score left out as
    not finite), and in ``flags`` what they say in words."""
    from ..analysis.judges import PANEL

    def row(name: str, s: RunSummary) -> dict[str, Any]:
        out = s.as_row()
        return {"judge": name, "rubric": out["rubric"], "low": out["low"], "high": out["high"], "tasks": out["tasks"],
                "out_of_range": s.out_of_range, "left_out": s.left_out}  # fmt: skip

    rows = [row(j, summarise_run(run, reps, seed, judge=j)) for j in run.judges]
    return rows + [row(PANEL, summarise_run(run, reps, seed))]
