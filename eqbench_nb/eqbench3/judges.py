"""EQ-Bench 3's pairwise judgements as the tidy table the generic judge diagnostics read.

:mod:`eqbench_nb.analysis.judges` knows no benchmark; this turns EQ-Bench 3 comparisons (the canonical file's or a
run's) into its pairwise table: one row per judgement with the respondent read first (``A0493``) as ``model_a``,
the outcome for that position from the judge's plus counts (:func:`.pairwise.interpret`), the scenario as the task
and the iteration, so each pair's two orders are found. The comparisons carry only each model's *average* response
length, not the length of the transcripts judged, so no length column is given; :func:`judgements_table` reads a
judgements file of one judge or a panel, with each answer's length from the runs judged (:func:`answer_lengths`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .pairwise import interpret
from .rating import is_valid

if TYPE_CHECKING:
    import pandas as pd

    from .runs import Eq3Run, PairwiseFile
    from .versions import ScoringVersion


def pairwise_table(comparisons: Iterable[Mapping[str, Any]], judge: str) -> pd.DataFrame:
    """One row per valid comparison with a judge object: ``judge``, ``task`` (the scenario), ``iteration``,
    ``model_a`` (read first), ``model_b``, ``outcome`` for the first position (1 / 0 / 0.5)."""
    import pandas as pd

    rows = []
    for c in comparisons:
        if not is_valid(c) or not isinstance(c.get("judge_response"), Mapping):
            continue
        pair = c["pair"]
        test_first = str(c.get("order", "")).startswith("A0493:test")
        first, second = (
            (pair["test_model"], pair["neighbor_model"]) if test_first else (pair["neighbor_model"], pair["test_model"])
        )
        outcome, _, _ = interpret(c["judge_response"])
        rows.append(
            {
                "judge": judge,
                "task": str(c.get("scenario_id")),
                "iteration": str(pair.get("iteration_index")),
                "model_a": str(first),
                "model_b": str(second),
                "outcome": outcome,
            }
        )
    return pd.DataFrame(rows, columns=["judge", "task", "iteration", "model_a", "model_b", "outcome"])


def answer_lengths(run: Eq3Run) -> dict[tuple[str, str], int]:
    """The length (characters) of what the model under test wrote in each task of a run, (iteration, scenario) ->
    its turns' answers and its debrief: what a pairwise judge weighs when it weighs length."""
    return {
        (str(i), sid): sum(len(t) for t in play.turns) + len(play.debrief or "")
        for (i, sid), play in run.plays().items()
    }


def judgements_table(
    judged: PairwiseFile,
    version: ScoringVersion,
    lengths: Mapping[str, Mapping[tuple[str, str], int]] | None = None,
) -> pd.DataFrame:
    """A judgements file (one judge or a panel) as the generic pairwise table, one judge per record's ``judge``
    (:func:`pairwise_table`); with ``lengths`` (model -> :func:`answer_lengths` of its run), ``len_a`` and
    ``len_b`` too (NaN where a model's run is not given)."""
    import pandas as pd

    by_judge: dict[str, list[dict[str, Any]]] = {}
    for r in judged.records:
        by_judge.setdefault(r.judge, []).append(r.comparison(version))
    parts = [pairwise_table(comps, judge) for judge, comps in by_judge.items()]
    table = pd.concat(parts, ignore_index=True) if parts else pairwise_table([], "")
    if lengths is not None:

        def length(model: str, iteration: str, task: str) -> float:
            return float(lengths.get(model, {}).get((iteration, task), math.nan))

        table["len_a"] = [length(m, i, t) for m, i, t in zip(table["model_a"], table["iteration"], table["task"])]
        table["len_b"] = [length(m, i, t) for m, i, t in zip(table["model_b"], table["iteration"], table["task"])]
    return table
