"""EQ-Bench's answer key audited: where strong runs agree with each other but not with the reference key.

Moved out of :mod:`eqbench_nb.analysis.psychometrics` (issue 39): the audit scores the consensus answer with EQ-Bench's
v2 question score, so it is EQ-Bench's own study; the generic psychometric primitives stay below every benchmark.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..scoring import score_v2

__all__ = ["key_audit"]


def key_audit(
    answers: pd.DataFrame,
    strong: Sequence[str],
    min_error: float = 2.0,
    min_excess: float = 3.0,
    min_agree: float = 0.75,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Candidate key errors: questions where strong runs agree with each other but not with the reference.

    ``answers`` is the long run table (:func:`eqbench_nb.eqbench.study.table.run_table`: columns
    ``model, question_id, emotion, reference, answer``); ``strong`` the models taken as strong.
    For every (question, emotion), over the strong runs that answered it:

    - ``consensus``: the median rating; ``gap = consensus - reference``;
    - ``typical_gap``: the median ``gap`` over all (question, emotion) cells with the same
      reference value — strong runs' usual bias at that level (they rate a reference of 0 above 0
      everywhere), so that ``excess = gap - typical_gap`` is what is particular to this question;
    - ``agree``: the share of strong runs whose rating is at least ``min_error`` off the reference
      in the direction of the gap — how unanimous the disagreement is.

    An emotion is *flagged* when ``|excess| >= min_excess`` and ``agree >= min_agree``. Returns
    ``(cells, questions)``: the per-emotion table and one row per question with ``n_strong``,
    ``flagged`` (flagged emotions), ``max_excess`` (largest |excess|), ``strong_mean_score`` (the
    strong runs' mean question score), ``consensus_score`` (the consensus answer's v2 score
    against the key) and ``evidence`` (``max |excess| x agree`` of its most flagged emotion),
    sorted by ``flagged`` then ``evidence``, descending.
    """
    t = answers[answers["model"].isin(list(strong))]
    g = t.groupby(["question_id", "emotion"], sort=False)
    cells = g.agg(reference=("reference", "first"), n=("answer", "size"), consensus=("answer", "median")).reset_index()
    cells["gap"] = cells.consensus - cells.reference
    cells["typical_gap"] = cells.groupby("reference")["gap"].transform("median")
    cells["excess"] = cells.gap - cells.typical_gap
    merged = t.merge(cells[["question_id", "emotion", "gap"]], on=["question_id", "emotion"])
    err = merged.answer - merged.reference
    merged["agrees"] = (np.sign(err) == np.sign(merged.gap)) & (err.abs() >= min_error) & (merged.gap != 0)
    agree = merged.groupby(["question_id", "emotion"], sort=False)["agrees"].mean().rename("agree")
    cells = cells.merge(agree.reset_index(), on=["question_id", "emotion"])
    cells["flagged"] = (cells.excess.abs() >= min_excess) & (cells.agree >= min_agree)
    cells["evidence"] = cells.excess.abs() * cells.agree

    if "question_score" in t:
        per_q = t.drop_duplicates(["model", "question_id"] + (["iteration"] if "iteration" in t else []))
        strong_mean = per_q.groupby("question_id")["question_score"].mean()
    else:
        strong_mean = pd.Series(dtype=float)
    rows = []
    for qid, c in cells.groupby("question_id", sort=False):
        ref = dict(zip(c.emotion, c.reference))
        cons = dict(zip(c.emotion, c.consensus))
        top = c.loc[c.evidence.idxmax()]
        rows.append(
            {
                "question_id": qid,
                "n_strong": int(c.n.max()),
                "flagged": int(c.flagged.sum()),
                "max_excess": float(c.excess.abs().max()),
                "evidence": float(top.evidence),
                "emotion": top.emotion,
                "reference": float(top.reference),
                "consensus": float(top.consensus),
                "agree": float(top.agree),
                "consensus_score": score_v2(cons, ref),
                "strong_mean_score": float(strong_mean.get(qid, np.nan)),
            }
        )
    questions = pd.DataFrame(rows).sort_values(["flagged", "evidence"], ascending=False, kind="stable")
    return cells, questions.reset_index(drop=True)
