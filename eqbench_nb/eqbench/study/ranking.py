"""How far EQ-Bench's order can be trusted across its scoring conventions: question values under official, lm-eval
or evalscope, the ranks each gives, and why they differ.

The statistics over a score matrix (ranks and their intervals, pairwise comparisons, performance profiles, power) are
generic and live in :mod:`eqbench_nb.analysis.ranks` (issue 39); this module keeps what needs EQ-Bench's runs.

- :func:`convention_matrix`: question values under official, lm-eval or evalscope
- :func:`rank_changes`: ranks under two conventions and who moves
- :func:`convention_rank_bootstrap`: the rank correlation between two conventions, with its interval
- :func:`lm_eval_differences`: why a run's lm-eval score differs from its official one
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ...analysis.ranks import ranks
from ...analysis.stats import (
    DEFAULT_LEVEL,
    DEFAULT_REPS,
    Interval,
    bootstrap_means,
    percentile_interval,
    rowwise_pearson,
)
from ..conventions import question_value, records_by_iteration, revised_pass_used
from ..parsing import parse_answer
from ..questions import run_questions, scale_for
from ..runs import EqBenchRun
from ..scoring import score_question

__all__ = [
    "convention_matrix",
    "convention_rank_bootstrap",
    "explain_rank_changes",
    "lm_eval_differences",
    "rank_changes",
    "run_labels",
]


# ---------------------------------------------------------------------------------------------
# conventions
# ---------------------------------------------------------------------------------------------


def run_labels(runs: Sequence[EqBenchRun]) -> list[str]:
    """Row labels as :func:`eqbench_nb.eqbench.study.published.question_score_matrix` makes them."""
    counts: dict[str, int] = {}
    for r in runs:
        counts[r.model] = counts.get(r.model, 0) + 1
    return [r.model if counts[r.model] == 1 else f"{r.model}#{r.run_id}" for r in runs]


def convention_matrix(runs: Iterable[EqBenchRun], convention: str) -> pd.DataFrame:
    """Runs x questions values under ``convention``, on the question-score scale (10 x row mean = run score).

    - ``"official"``: the question score of the pass the official rule uses; NaN where the answer is
      unparseable or the question has no record (left out of the mean).
    - ``"lm-eval"``: what lm-evaluation-harness's scorer gives the run's whole raw output (its parser
      over the full text, no revision split; see :func:`eqbench_nb.eqbench.conventions.question_value`);
      0 when unparseable or missing. The row mean over all questions x 10 is the lm-eval score.
    - ``"evalscope"``: ``clamp(score_q, 0, 10)`` with evalscope's parser, 0 when unparseable or
      missing; 10 x the row mean is 100 x evalscope's 0–1 score.

    Every question of the run's set is a column, in numeric order. With several iterations the
    per-question values are averaged over iterations.
    """
    from .published import official_question_scores

    runs = list(runs)
    rows = []
    for run in runs:
        questions = run_questions(run)
        if convention == "official":
            s = official_question_scores(run)
        elif convention in ("lm-eval", "evalscope"):
            per_it = []
            for recs in records_by_iteration(run).values():
                vals = {q: 0.0 for q in questions}
                for r in recs:
                    v = question_value(r, questions[r.question_id], convention, run)
                    vals[r.question_id] = v / 10.0 if convention == "lm-eval" else 10.0 * v
                per_it.append(pd.Series(vals, dtype=float))
            s = pd.concat(per_it, axis=1).mean(axis=1)
        else:
            raise ValueError(f"convention must be official, lm-eval or evalscope, not {convention!r}")
        rows.append(s.reindex(list(questions)))
    out = pd.DataFrame(rows, index=run_labels(runs))
    return out[sorted(out.columns, key=lambda q: (len(str(q)), str(q)))]


def rank_changes(scores_a, scores_b, labels: Sequence[str] | None = None) -> pd.DataFrame:
    """Ranks (1 = best, ties averaged) of the same runs under two scorings and the change.

    Returns ``label, score_a, score_b, rank_a, rank_b, change`` (``rank_b - rank_a``: positive =
    the run falls under b), sorted by decreasing ``|change|``.
    """
    a, b = np.asarray(scores_a, float), np.asarray(scores_b, float)
    t = pd.DataFrame(
        {
            "label": list(labels) if labels is not None else list(range(len(a))),
            "score_a": a,
            "score_b": b,
            "rank_a": ranks(a),
            "rank_b": ranks(b),
        }
    )
    t["change"] = t.rank_b - t.rank_a
    return t.iloc[np.argsort(-t.change.abs().to_numpy(), kind="stable")].reset_index(drop=True)


def convention_rank_bootstrap(
    matrix_a,
    matrix_b,
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
) -> dict[str, Interval]:
    """Spearman ρ between two scorings of the same runs and the largest rank change, questions resampled.

    ``matrix_a`` and ``matrix_b`` score the same runs (rows) on the same questions (columns);
    each resample draws the same questions for both. Returns ``{"spearman": Interval,
    "max_change": Interval}`` (``n`` = runs).
    """
    a = np.atleast_2d(np.asarray(matrix_a, float))
    b = np.atleast_2d(np.asarray(matrix_b, float))
    if a.shape != b.shape:
        raise ValueError("the two matrices must have the same shape")
    ba, bb = bootstrap_means(a, reps, seed), bootstrap_means(b, reps, seed)
    ra, rb = ranks(ba, axis=1), ranks(bb, axis=1)
    rho_boot = rowwise_pearson(ra, rb)
    move_boot = np.abs(ra - rb).max(axis=1)
    sa, sb = np.nanmean(a, axis=1), np.nanmean(b, axis=1)
    rho = float(rowwise_pearson(ranks(sa)[None], ranks(sb)[None])[0])
    move = float(np.abs(ranks(sa) - ranks(sb)).max())
    k = a.shape[0]
    lo, hi = percentile_interval(rho_boot, level)
    mlo, mhi = percentile_interval(move_boot, level)
    return {"spearman": Interval(rho, float(lo), float(hi), k), "max_change": Interval(move, float(mlo), float(mhi), k)}


def lm_eval_differences(runs: Iterable[EqBenchRun]) -> pd.DataFrame:
    """Why each run's lm-eval score differs from its official one, question by question.

    For every run (one row, labelled as :func:`run_labels`), the questions are counted by what
    separates the two conventions:

    - ``missing``: no record (official: left out; lm-eval: 0);
    - ``unparseable``: the official pass is unparseable (official: left out; lm-eval: 0, unless
      its whole-text parse happens to succeed);
    - ``extra_pair``: the official pass scores, but lm-eval's parse of the whole text holds the
      four emotions *and* another ``word: number`` pair ("Confidence: 8"), so lm-eval's
      exactly-four rule rejects it (0);
    - ``other_reject``: the official pass scores, lm-eval's parse misses an emotion;
    - ``whole_output``: a revision run where lm-eval reads the whole output (both passes and the
      critique; a repeated name keeps its last, revised, value) and gets another score than the
      pass the official rule uses;

    with ``points_*`` the contribution of each group to ``lm-eval - official`` (points on the
    0–100 scale; the official score's re-weighting over fewer questions is in ``points_mean``): for
    a single-iteration run the ``points_*`` columns sum to ``lm_eval - official``. Also ``revise``,
    ``official`` and ``lm_eval`` (the two run scores, before the official rounding).
    """
    rows = []
    runs = list(runs)
    for label, run in zip(run_labels(runs), runs):
        questions = run_questions(run)
        scale = scale_for(run.version)
        used = revised_pass_used(run)
        n_q = len(questions)
        c = dict.fromkeys(("missing", "unparseable", "extra_pair", "other_reject", "whole_output"), 0)
        pts = dict.fromkeys(c, 0.0)
        off_vals, lm_vals = [], []
        seen = set()
        for rec in run.records:
            q = questions[rec.question_id]
            seen.add((rec.iteration, rec.question_id))
            use_rev = used.get(rec.iteration, False) and rec.revised_score is not None
            off = rec.revised_score if use_rev else rec.first_pass_score
            ans = parse_answer(rec.final_text, revise=False, parser="official").first_pass
            lm = score_question(ans, q, scale) if rec.final_text is not None else rec.first_pass_score
            lm_v = 0.0 if lm is None else float(lm)
            lm_vals.append(lm_v)
            if off is None:
                c["unparseable"] += 1
                pts["unparseable"] += lm_v
                continue
            off_vals.append(float(off))
            if lm is None:
                key = "extra_pair" if set(q.emotions) <= set(ans) else "other_reject"
                c[key] += 1
                pts[key] += -float(off)
            elif abs(lm - off) > 1e-9:
                c["whole_output"] += 1
                pts["whole_output"] += float(lm) - float(off)
        n_iter = max(1, len([it for it, recs in records_by_iteration(run).items() if recs]))
        c["missing"] = n_iter * n_q - len(seen)
        official = 10.0 * float(np.mean(off_vals)) if off_vals else float("nan")
        lm_eval = 10.0 * float(np.sum(lm_vals)) / (n_iter * n_q)
        # lm-eval - official = sum of the per-question changes / N  +  official-mean x (answered / N - 1)
        denom = n_iter * n_q / 10.0
        row = {"label": label, "revise": run.revise, "official": official, "lm_eval": lm_eval, **c}
        row |= {f"points_{k}": v / denom for k, v in pts.items() if k != "missing"}
        row["points_mean"] = official * (len(off_vals) / (n_iter * n_q) - 1.0)
        rows.append(row)
    return pd.DataFrame(rows)


def explain_rank_changes(changes: pd.DataFrame, differences: pd.DataFrame, k: int = 5) -> pd.DataFrame:
    """One sentence per run for the ``k`` largest rank changes between the official and lm-eval scores.

    ``changes`` is :func:`rank_changes` (official as ``a``, lm-eval as ``b``); ``differences`` is
    :func:`lm_eval_differences` for the same runs. A run whose own score drops is explained by
    the groups of :func:`lm_eval_differences` that cost it at least half a point; a run whose
    own score hardly moves (under half a point) is explained by the runs that passed it or that
    it passed (how many, and how many of those are revision runs or lost points to extra pairs).
    Returns ``label, change, official_rank, lm_eval_rank, own_change, reason``.
    """
    d = differences.set_index("label")
    ch = changes.set_index("label")
    causes = {
        "extra_pair": "answers lm-eval rejects for an extra 'word: number' line",
        "other_reject": "answers lm-eval's parser reads without all four emotions",
        "whole_output": "revision answers where lm-eval reads the whole output (its revised scores and critique)",
        "unparseable": "unparseable answers, left out by the official score and 0 under lm-eval",
        "mean": "unanswered or unparseable questions: left out by the official mean, 0 under lm-eval",
    }
    rows = []
    for label, c in ch.head(k).iterrows():
        r = d.loc[label]
        own = float(r.lm_eval - r.official)
        if abs(own) >= 0.5:
            parts = []
            for key, text in causes.items():
                pts = float(r[f"points_{key}"])
                if abs(pts) >= 0.5:
                    n = int(r[key]) if key != "mean" else int(r["missing"] + r["unparseable"])
                    parts.append((pts, f"{n} {text} ({pts:+.1f} points)"))
            reason = f"its own score changes by {own:+.1f} points: " + "; ".join(t for _, t in sorted(parts))
        else:
            passed = ch[(ch.rank_a < c.rank_a) & (ch.rank_b > c.rank_b)].index if c.change < 0 else []
            passers = ch[(ch.rank_a > c.rank_a) & (ch.rank_b < c.rank_b)].index if c.change > 0 else []
            others = d.loc[list(passed) + list(passers)]
            n_rev = int(others.revise.sum())
            n_extra = int((others.extra_pair > 0).sum())
            verb = "it passes" if c.change < 0 else "it is passed by"
            who = "were above it and fall below it" if c.change < 0 else "were below it and rise above it"
            reason = (
                f"its own score changes by only {own:+.1f} points; {verb} {len(others)} runs that {who} under "
                f"lm-eval ({n_rev} of them revision runs whose whole output lm-eval reads, {n_extra} with answers "
                "rejected for an extra 'word: number' line)"
            )
        rows.append(
            {
                "label": label,
                "change": float(c.change),
                "official_rank": float(c.rank_a),
                "lm_eval_rank": float(c.rank_b),
                "own_change": own,
                "reason": reason,
            }
        )
    return pd.DataFrame(rows)
