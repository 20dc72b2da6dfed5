"""EQ-Bench 3's pairwise judgements as the tidy table the generic judge diagnostics read.

:mod:`eqbench_nb.analysis.judges` knows no benchmark; this turns EQ-Bench 3 comparisons (the canonical file's or a
run's) into its pairwise table: one row per judgement with the respondent read first (``A0493``) as ``model_a``,
the outcome for that position from the judge's plus counts (:func:`.pairwise.interpret`), the scenario as the task
and the iteration, so each pair's two orders are found. The comparisons carry only each model's *average* response
length, not the length of the transcripts judged, so no length column is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .pairwise import interpret
from .rating import is_valid

if TYPE_CHECKING:
    import pandas as pd


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
