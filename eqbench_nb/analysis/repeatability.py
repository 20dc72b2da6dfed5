"""How repeatable a score is from run to run: the paper's "mean CV 2.93 %" question.

Pure functions over :class:`~eqbench_nb.runs.Run` objects holding several iterations (the
runner's ``--iterations N``), or over plain arrays.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ..eqbench.conventions import official_iteration_score, records_by_iteration, score_run
from ..eqbench.runs import Run
from .stats import DEFAULT_REPS, Interval, bootstrap_indices, bootstrap_mean_ci, percentile_interval


def iteration_scores(runs: Run | Iterable[Run], convention: str = "official") -> pd.DataFrame:
    """One row per run x iteration: model, run_id, temperature, iteration, score (0-100).

    ``official`` also gives each iteration's parseable count. evalscope's 0-1 score is
    multiplied by 100 so the three conventions share one axis.
    """
    runs = [runs] if isinstance(runs, Run) else list(runs)
    rows = []
    for run in runs:
        base = {
            "model": run.model,
            "run_id": run.run_id,
            "temperature": first_temperature(run),
            "convention": convention,
        }
        if convention == "official":
            for it, recs in sorted(records_by_iteration(run).items()):
                if not recs:
                    continue
                score, parseable, _ = official_iteration_score(recs)
                rows.append(base | {"iteration": it, "score": score, "parseable": parseable, "questions": len(recs)})
        else:
            scale = 100.0 if convention == "evalscope" else 1.0
            per_iteration = score_run(run, convention).iteration_scores
            rows += [
                base | {"iteration": it, "score": scale * score} for it, score in zip(run.iterations, per_iteration)
            ]
    return pd.DataFrame(rows)


def first_temperature(run: Run) -> float | None:
    """The temperature of a run's first attempt, from its header (official protocol: 0.01)."""
    t = run.header.get("temperature")
    if isinstance(t, (int, float)):
        return float(t)
    schedule = run.header.get("temperatures")
    return float(schedule[0]) if isinstance(schedule, list) and schedule else None


def coefficient_of_variation(scores: Sequence[float] | np.ndarray) -> float:
    """Sample SD over mean, in percent (the paper's repeatability statistic). NaN for < 2 scores."""
    s = np.asarray(scores, dtype=float)
    s = s[np.isfinite(s)]
    if len(s) < 2 or s.mean() == 0:
        return float("nan")
    return float(100.0 * s.std(ddof=1) / abs(s.mean()))


def summarise_scores(scores: Sequence[float]) -> dict[str, float]:
    """n, mean, SD (ddof 1), range and CV % of repeated run scores."""
    s = np.asarray(scores, dtype=float)
    return {
        "n": len(s),
        "mean": float(np.mean(s)),
        "sd": float(np.std(s, ddof=1)) if len(s) > 1 else float("nan"),
        "min": float(np.min(s)),
        "max": float(np.max(s)),
        "cv_percent": coefficient_of_variation(s),
    }


def iteration_score_matrix(run: Run) -> pd.DataFrame:
    """Questions x iterations of first-pass question scores (NaN where unparseable or missing)."""
    rows = {(r.question_id, r.iteration): r.first_pass_score for r in run.records}
    frame = pd.Series(rows, dtype=float).unstack()
    frame.index.name, frame.columns.name = "question_id", "iteration"
    return frame.sort_index(key=lambda ids: ids.astype(int))


def icc_2_1(matrix) -> float:
    """ICC(2,1) of Shrout & Fleiss: two-way random effects, absolute agreement, single measurement.

    ``matrix`` is targets (questions) x raters (iterations); rows with any NaN are dropped.
    1 means every iteration gives every question the same score; 0 means the question explains
    none of the variation between scores.
    """
    m = np.asarray(matrix, dtype=float)
    m = m[np.isfinite(m).all(axis=1)]
    n, k = m.shape
    if n < 2 or k < 2:
        return float("nan")
    grand = m.mean()
    ss_rows = k * ((m.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((m.mean(axis=0) - grand) ** 2).sum()
    ss_err = ((m - grand) ** 2).sum() - ss_rows - ss_cols
    msr, msc, mse = ss_rows / (n - 1), ss_cols / (k - 1), ss_err / ((n - 1) * (k - 1))
    denom = msr + (k - 1) * mse + k * (msc - mse) / n
    return float((msr - mse) / denom) if denom else float("nan")


def icc_interval(matrix, reps: int = DEFAULT_REPS, seed: int | None = 0) -> Interval:
    """ICC(2,1) with a percentile bootstrap interval over questions (rows)."""
    m = np.asarray(matrix, dtype=float)
    m = m[np.isfinite(m).all(axis=1)]
    if len(m) < 3 or m.shape[1] < 2:  # too few complete questions to resample
        return Interval(icc_2_1(m), float("nan"), float("nan"), len(m))
    idx = bootstrap_indices(len(m), reps, seed)
    boots = np.array([icc_2_1(m[i]) for i in idx])
    lo, hi = percentile_interval(boots)
    return Interval(icc_2_1(m), float(lo), float(hi), len(m))


def identical_first_attempts(run: Run) -> float:
    """Share of questions whose first attempt returned the very same text in every iteration.

    Separates what the endpoint's sampling changes (the first attempt, at the protocol's lowest
    temperature) from what the retries at higher temperatures add. Questions missing from an
    iteration are left out; NaN with fewer than two iterations.
    """
    texts: dict[str, dict[int, str | None]] = {}
    for r in run.records:
        texts.setdefault(r.question_id, {})[r.iteration] = r.attempts[0].get("text") if r.attempts else None
    complete = [t for t in texts.values() if len(t) == len(run.iterations)]
    if len(run.iterations) < 2 or not complete:
        return float("nan")
    return sum(len(set(t.values())) == 1 for t in complete) / len(complete)


def single_run_interval(run: Run, iteration: int = 1, reps: int = DEFAULT_REPS, seed: int | None = 0) -> Interval:
    """A single iteration's score (0-100) with its bootstrap interval over questions.

    Unparseable questions are resampled as left-out, as the official convention treats them.
    """
    scores = iteration_score_matrix(run)[iteration].to_numpy()
    return bootstrap_mean_ci(scores, reps=reps, seed=seed, scale=10.0)


def published_pairs(table: pd.DataFrame) -> pd.DataFrame:
    """Models with two published v2 scores (a ``paper_repeatability`` table): both, gap and pair CV."""
    paired = table.dropna(subset=["score"]).groupby("model")["score"].agg(list)
    paired = paired[paired.map(len) == 2]
    return pd.DataFrame(
        {
            "model": paired.index,
            "score_a": [s[0] for s in paired],
            "score_b": [s[1] for s in paired],
            "gap": [abs(s[0] - s[1]) for s in paired],
            "cv_percent": [coefficient_of_variation(s) for s in paired],
        }
    ).reset_index(drop=True)
