"""How far a leaderboard's order can be trusted: ranks, pairwise comparisons, conventions and power.

Pure functions in the style of google-research/rliable. The input is a *score matrix*
``(n_runs, n_questions)`` of question scores (NaN where a question is left out, as the official
convention leaves an unparseable answer out of the mean); ``scale`` x a row's mean is the run's
score. Every interval is a percentile bootstrap over **questions** in which the same resampled
questions are used for every run (:func:`eqbench_nb.analysis.stats.bootstrap_counts`), so
comparisons between runs are paired, unless a docstring says otherwise.

================================  ===================================================================
:func:`rank_intervals`             each run's rank (1 = best) with its interval
:func:`probability_of_improvement` P(X > Y): how often run X beats run Y on a random question
:func:`pairwise_comparisons`       every pair: score difference and P(X > Y), intervals and p-values
:func:`benjamini_hochberg`         the false-discovery-rate correction of many p-values
:func:`convention_matrix`          question values under official, lm-eval or evalscope
:func:`rank_changes`               ranks under two conventions and who moves
:func:`lm_eval_differences`        why a run's lm-eval score differs from its official one
:func:`performance_profiles`       share of questions scored at least tau, per run
:func:`required_questions`         questions needed to detect a difference (paired design)
:func:`required_iterations`        iterations needed to detect a difference on a fixed question set
================================  ===================================================================
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as _sps

from ...analysis.stats import (
    DEFAULT_LEVEL,
    DEFAULT_REPS,
    Interval,
    bootstrap_counts,
    bootstrap_means,
    percentile_interval,
    rowwise_pearson,
)
from ..conventions import question_value, records_by_iteration, revised_pass_used
from ..parsing import parse_answer
from ..questions import run_questions, scale_for
from ..runs import Run
from ..scoring import score_question

__all__ = [
    "PairwiseComparisons",
    "benjamini_hochberg",
    "bootstrap_p_value",
    "convention_matrix",
    "convention_rank_bootstrap",
    "explain_rank_changes",
    "lm_eval_differences",
    "pair_difference_sd",
    "paired_power",
    "pairwise_comparisons",
    "performance_profiles",
    "pooled_run_sd",
    "probability_of_improvement",
    "rank_changes",
    "rank_intervals",
    "ranks",
    "required_iterations",
    "required_questions",
    "run_labels",
]


# ---------------------------------------------------------------------------------------------
# ranks
# ---------------------------------------------------------------------------------------------


def ranks(scores, axis: int = -1) -> np.ndarray:
    """Ranks along ``axis`` with 1 = the highest score and ties averaged; NaN ranks last."""
    s = np.asarray(scores, dtype=float)
    return _sps.rankdata(np.where(np.isnan(s), np.inf, -s), axis=axis)


def rank_intervals(
    matrix,
    labels: Sequence[str] | None = None,
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
    scale: float = 10.0,
) -> pd.DataFrame:
    """Each run's rank among the rows of ``matrix`` with its percentile interval, questions resampled.

    One resample of the questions is drawn and used for every run (so every resample is a
    complete ranking); each resample's scores are ranked (1 = best, ties averaged) and the
    ``level`` percentile interval of each run's rank is taken. Returns one row per run, in the
    order of ``matrix``: ``label, score, rank, rank_low, rank_high, width`` (``rank_high -
    rank_low``), ``p_top`` (share of resamples in which the run ranks first).
    """
    m = np.atleast_2d(np.asarray(matrix, dtype=float))
    boot = bootstrap_means(m, reps, seed)
    r = ranks(boot, axis=1)
    lo, hi = percentile_interval(r, level)
    score = scale * np.nanmean(m, axis=1)
    return pd.DataFrame(
        {
            "label": list(labels) if labels is not None else list(range(m.shape[0])),
            "score": score,
            "rank": ranks(score),
            "rank_low": lo,
            "rank_high": hi,
            "width": hi - lo,
            "p_top": (r == 1).mean(axis=0),
        }
    )


# ---------------------------------------------------------------------------------------------
# pairwise comparisons
# ---------------------------------------------------------------------------------------------


def probability_of_improvement(x, y) -> float:
    """P(X > Y): the share of questions on which ``x`` scores higher than ``y``, ties counting half.

    ``x`` and ``y`` are two runs' scores on the same questions; a question where either is NaN
    is left out. 0.5 means neither run is better on a typical question; it is rliable's
    "probability of improvement" with questions in the place of tasks.
    """
    a, b = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(a) & np.isfinite(b)
    if not ok.any():
        return float("nan")
    return float(np.mean((a[ok] > b[ok]) + 0.5 * (a[ok] == b[ok])))


def bootstrap_p_value(estimate, boot, null: float = 0.0) -> np.ndarray:
    """Two-sided p-value of ``estimate == null`` from the bootstrap standard error (normal approximation).

    ``boot`` holds the bootstrap replicates along axis 0. Unlike counting replicates beyond the
    null, this p-value is not floored at ``1 / reps``, so it can be corrected for thousands of
    comparisons. A zero standard error gives 1 when the estimate equals the null, else 0.
    """
    est = np.asarray(estimate, float)
    se = np.nanstd(np.asarray(boot, float), axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(est - null) / se
    p = 2.0 * _sps.norm.sf(z)
    p = np.where(se > 0, p, np.where(np.isclose(est, null), 1.0, 0.0))
    return np.asarray(p, dtype=float)


def benjamini_hochberg(p_values, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Benjamini–Hochberg step-up procedure: ``(rejected, adjusted p-values)``, same shape as the input.

    Controls the false discovery rate at ``alpha`` for independent or positively dependent
    tests. The adjusted p-value of the i-th smallest of m p-values is
    ``min_{j >= i} p_(j) m / j`` (capped at 1); a hypothesis is rejected when its adjusted
    p-value is at most ``alpha``. NaN p-values are neither counted nor rejected.
    """
    p = np.asarray(p_values, dtype=float)
    flat = p.ravel()
    ok = np.isfinite(flat)
    adj = np.full(flat.shape, np.nan)
    q = flat[ok]
    m = len(q)
    if m:
        order = np.argsort(q, kind="stable")
        scaled = q[order] * m / np.arange(1, m + 1)
        scaled = np.minimum.accumulate(scaled[::-1])[::-1]
        out = np.empty(m)
        out[order] = np.minimum(scaled, 1.0)
        adj[ok] = out
    adjusted = adj.reshape(p.shape)
    return (np.where(np.isfinite(adjusted), adjusted, np.inf) <= alpha), adjusted


@dataclass(frozen=True)
class PairwiseComparisons:
    """Every pair ``i < j`` of runs: score difference and P(run i > run j), with intervals.

    ``table`` has one row per pair: ``i, j, diff, diff_low, diff_high, p_diff`` (difference of
    run scores, ``scale`` x mean, with its paired bootstrap interval and p-value) and ``poi,
    poi_low, poi_high, p_poi`` (P(X > Y) with its interval and the p-value of P = 0.5).
    ``poi`` is the full ``(n_runs, n_runs)`` matrix of P(row > column) (0.5 on the diagonal).
    """

    table: pd.DataFrame
    poi: np.ndarray

    def share_separated(self, test: str = "diff", alpha: float = 0.05, correction: str | None = None) -> float:
        """Share of pairs whose ``test`` ("diff" or "poi") p-value is below ``alpha``; ``correction="bh"``
        applies :func:`benjamini_hochberg` over all pairs first."""
        p = self.table[f"p_{test}"].to_numpy()
        if correction == "bh":
            return float(benjamini_hochberg(p, alpha)[0].mean())
        if correction is not None:
            raise ValueError("correction must be None or 'bh'")
        return float((p < alpha).mean())


def pairwise_comparisons(
    matrix, reps: int = DEFAULT_REPS, level: float = DEFAULT_LEVEL, seed: int | None = 0, scale: float = 10.0
) -> PairwiseComparisons:
    """Score differences and probabilities of improvement for every pair of rows of ``matrix``.

    Both use one resample of the questions for every run. The difference of two runs' scores
    is taken as each run's own (NaN-ignoring) mean, as the official convention does; P(X > Y)
    uses the questions both runs answered. p-values come from :func:`bootstrap_p_value`.
    """
    m = np.atleast_2d(np.asarray(matrix, dtype=float))
    k, n = m.shape
    i, j = np.triu_indices(k, 1)
    counts = bootstrap_counts(n, reps, seed).astype(float)

    boot = bootstrap_means(m, reps, seed) * scale
    d_boot = boot[:, i] - boot[:, j]
    d_est = scale * (np.nanmean(m, axis=1)[i] - np.nanmean(m, axis=1)[j])
    d_lo, d_hi = percentile_interval(d_boot, level)

    a, b = m[i], m[j]  # (pairs, questions)
    both = np.isfinite(a) & np.isfinite(b)
    win = np.where(both, (a > b) + 0.5 * (a == b), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        poi_est = win.sum(1) / both.sum(1)
        poi_boot = (counts @ win.T) / (counts @ both.T.astype(float))
    p_lo, p_hi = percentile_interval(poi_boot, level)

    poi = np.full((k, k), 0.5)
    poi[i, j], poi[j, i] = poi_est, 1.0 - poi_est
    table = pd.DataFrame(
        {
            "i": i,
            "j": j,
            "diff": d_est,
            "diff_low": d_lo,
            "diff_high": d_hi,
            "p_diff": bootstrap_p_value(d_est, d_boot, 0.0),
            "poi": poi_est,
            "poi_low": p_lo,
            "poi_high": p_hi,
            "p_poi": bootstrap_p_value(poi_est, poi_boot, 0.5),
        }
    )
    return PairwiseComparisons(table, poi)


# ---------------------------------------------------------------------------------------------
# conventions
# ---------------------------------------------------------------------------------------------


def run_labels(runs: Sequence[Run]) -> list[str]:
    """Row labels as :func:`eqbench_nb.eqbench.study.published.question_score_matrix` makes them."""
    counts: dict[str, int] = {}
    for r in runs:
        counts[r.model] = counts.get(r.model, 0) + 1
    return [r.model if counts[r.model] == 1 else f"{r.model}#{r.run_id}" for r in runs]


def convention_matrix(runs: Iterable[Run], convention: str) -> pd.DataFrame:
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


def lm_eval_differences(runs: Iterable[Run]) -> pd.DataFrame:
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


def pooled_run_sd(first, second, level: float = DEFAULT_LEVEL) -> Interval:
    """Run-to-run SD of a score from pairs of repeated runs, with its chi-square interval.

    Each pair ``(first[i], second[i])`` is two scores of one model; with normal run-to-run noise
    of SD σ, ``d_i = first - second`` has variance 2σ², so σ² is estimated by ``Σ d² / (2 m)``
    with m degrees of freedom and the interval is ``sqrt(Σ d² / (2 χ²_m))`` at the two tails.
    ``n`` = pairs.
    """
    a, b = np.asarray(first, float), np.asarray(second, float)
    ok = np.isfinite(a) & np.isfinite(b)
    d2 = float(((a[ok] - b[ok]) ** 2).sum())
    m = int(ok.sum())
    if m == 0:
        return Interval(float("nan"), float("nan"), float("nan"), 0)
    alpha = 1.0 - level
    lo = np.sqrt(d2 / (2.0 * _sps.chi2.ppf(1.0 - alpha / 2.0, m)))
    hi = np.sqrt(d2 / (2.0 * _sps.chi2.ppf(alpha / 2.0, m)))
    return Interval(float(np.sqrt(d2 / (2.0 * m))), float(lo), float(hi), m)


# ---------------------------------------------------------------------------------------------
# performance profiles
# ---------------------------------------------------------------------------------------------


def performance_profiles(
    matrix,
    taus,
    reps: int = 0,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
) -> dict[str, np.ndarray]:
    """Share of each run's questions scored at least ``tau``, for every ``tau``: rliable's profile per run.

    NaN (left-out) questions are left out of the share. Returns ``{"taus", "profile"}`` with
    ``profile`` of shape ``(n_runs, n_taus)``; with ``reps > 0`` also ``"low"`` and ``"high"``,
    the percentile interval with the questions resampled (the same resample for every run).
    """
    m = np.atleast_2d(np.asarray(matrix, dtype=float))
    t = np.asarray(taus, dtype=float)
    fin = np.isfinite(m)
    hit = (np.where(fin, m, -np.inf)[:, :, None] >= t[None, None, :]).astype(float)  # runs, questions, taus
    n_ok = fin.sum(1).astype(float)
    out = {"taus": t, "profile": hit.sum(1) / n_ok[:, None]}
    if reps > 0:
        counts = bootstrap_counts(m.shape[1], reps, seed).astype(float)
        r, q, nt = hit.shape
        num = (counts @ hit.transpose(1, 0, 2).reshape(q, r * nt)).reshape(-1, r, nt)
        den = counts @ fin.T.astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = num / den[:, :, None]
        lo, hi = percentile_interval(share, level)
        out["low"], out["high"] = lo, hi
    return out


# ---------------------------------------------------------------------------------------------
# power
# ---------------------------------------------------------------------------------------------


def pair_difference_sd(matrix) -> np.ndarray:
    """For every pair ``i < j`` of rows, the SD (ddof 1) across questions of ``row i - row j``.

    Questions where either run is NaN are left out. This is the per-question spread of a paired
    difference, the quantity that sets how many questions a comparison needs.
    """
    m = np.atleast_2d(np.asarray(matrix, dtype=float))
    i, j = np.triu_indices(m.shape[0], 1)
    d = m[i] - m[j]
    return np.asarray(np.nanstd(d, axis=1, ddof=1), dtype=float)


def _z_sum(alpha: float, power: float) -> float:
    return float(_sps.norm.ppf(1.0 - alpha / 2.0) + _sps.norm.ppf(power))


def paired_power(
    delta: float,
    n_questions: float,
    sd_question: float,
    iterations: float = 1,
    sd_iteration: float = 0.0,
    alpha: float = 0.05,
    scale: float = 10.0,
) -> float:
    """Power of a two-sided paired test of two models' score difference (normal approximation).

    The run score is ``scale`` x the mean over ``n_questions`` questions. ``sd_question`` is the SD
    across questions of the true per-question difference between the two models (question
    sampling); ``sd_iteration`` the SD of one model's score on one question from one iteration to
    the next (run-to-run noise), averaged over ``iterations`` per model. The difference has
    variance ``scale² (sd_question² + 2 sd_iteration² / iterations) / n_questions``.
    """
    se = scale * np.sqrt((sd_question**2 + 2.0 * sd_iteration**2 / iterations) / n_questions)
    z = _sps.norm.ppf(1.0 - alpha / 2.0)
    d = abs(delta) / se
    return float(_sps.norm.sf(z - d) + _sps.norm.cdf(-z - d))


def required_questions(
    delta, sd_diff: float, alpha: float = 0.05, power: float = 0.8, scale: float = 10.0
) -> np.ndarray:
    """Questions needed to detect a run-score difference ``delta`` at ``power`` (two-sided ``alpha``).

    Paired design: both models answer the same questions and ``sd_diff`` is the SD across
    questions of their per-question score difference (:func:`pair_difference_sd`). The run
    score is ``scale`` x the question mean, so ``n = (z_{1-α/2} + z_power)² scale² sd_diff² / delta²``
    (rounded up). An unpaired design is the same formula with ``sqrt(sd_a² + sd_b²)`` in place
    of ``sd_diff``.
    """
    d = np.abs(np.asarray(delta, dtype=float))
    return np.ceil((_z_sum(alpha, power) * scale * sd_diff / d) ** 2)


def required_iterations(delta, sd_run: float, alpha: float = 0.05, power: float = 0.8) -> np.ndarray:
    """Iterations per model needed to detect a run-score difference ``delta`` on a *fixed* question set.

    With the questions fixed, the only noise is run to run: one iteration's score has SD
    ``sd_run`` (points), the mean of r iterations ``sd_run / sqrt(r)``, and the difference of two
    models' means ``sd_run sqrt(2 / r)``, so ``r = 2 (z_{1-α/2} + z_power)² sd_run² / delta²``,
    rounded up, at least 1.
    """
    d = np.abs(np.asarray(delta, dtype=float))
    return np.maximum(1.0, np.ceil(2.0 * (_z_sum(alpha, power) * sd_run / d) ** 2))
