"""How repeatable a score is from run to run: the paper's "mean CV 2.93 %" question.

Pure functions over :class:`~eqbench_nb.eqbench.runs.EqBenchRun` objects holding several iterations (the
runner's ``--iterations N``), or over plain arrays.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ...analysis.spread import (
    coefficient_of_variation,
    sd_interval,
)
from ...analysis.stats import (
    DEFAULT_LEVEL,
    DEFAULT_REPS,
    Interval,
    bootstrap_means,
    mean_interval,
    percentile_interval,
    refuse_small_percentile,
)
from ..conventions import official_iteration_score, records_by_iteration, score_run
from ..runs import EqBenchRun


def iteration_scores(runs: EqBenchRun | Iterable[EqBenchRun], convention: str = "official") -> pd.DataFrame:
    """One row per run x iteration: model, run_id, temperature, iteration, score (0-100).

    ``official`` also gives each iteration's parseable count. evalscope's 0-1 score is
    multiplied by 100 so the three conventions share one axis.
    """
    runs = [runs] if isinstance(runs, EqBenchRun) else list(runs)
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


def first_temperature(run: EqBenchRun) -> float | None:
    """The temperature of a run's first attempt, from its header (official protocol: 0.01)."""
    t = run.header.get("temperature")  # upstream's files: one temperature
    if isinstance(t, (int, float)):
        return float(t)
    schedule = run.header.own.temperatures
    return float(schedule[0]) if schedule else None


def iteration_score_matrix(run: EqBenchRun) -> pd.DataFrame:
    """Questions x iterations of first-pass question scores (NaN where unparseable or missing)."""
    rows = {(r.question_id, r.iteration): r.first_pass_score for r in run.records}
    frame = pd.Series(rows, dtype=float).unstack()
    frame.index.name, frame.columns.name = "question_id", "iteration"
    return frame.sort_index(key=lambda ids: ids.astype(int))


def identical_first_attempts(run: EqBenchRun) -> float:
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


def single_run_interval(
    run: EqBenchRun, iteration: int = 1, reps: int = DEFAULT_REPS, seed: int | None = 0
) -> Interval:
    """A single iteration's score (0-100) with its interval over questions: a percentile bootstrap (unparseable
    questions resampled as left-out, as the official convention treats them) from 30 questions on, Student's t
    over the parsed questions below that (:func:`~eqbench_nb.analysis.stats.mean_interval`)."""
    scores = iteration_score_matrix(run)[iteration].to_numpy()
    return mean_interval(scores, reps=reps, seed=seed, scale=10.0)


def published_pairs(table: pd.DataFrame) -> pd.DataFrame:
    """Models with two published v2 scores (a ``paper_repeatability`` table): both, which is which, and the gap.

    ``run_a``/``run_b`` name where each score was published (the table's ``run`` column, e.g.
    ``leaderboard`` and ``results_json``). The pair CV is kept for reference; the two scores are
    not shown to come from repeated runs of one setup, so it is not a repeatability figure.
    """
    rows = table.dropna(subset=["score"])
    labels = rows["run"] if "run" in rows else pd.Series([""] * len(rows), index=rows.index)
    grouped = rows.assign(_run=labels.fillna("")).groupby("model")[["score", "_run"]].agg(list)
    grouped = grouped[grouped["score"].map(len) == 2]
    return pd.DataFrame(
        {
            "model": grouped.index,
            "run_a": [r[0] for r in grouped["_run"]],
            "score_a": [s[0] for s in grouped["score"]],
            "run_b": [r[1] for r in grouped["_run"]],
            "score_b": [s[1] for s in grouped["score"]],
            "gap": [abs(s[0] - s[1]) for s in grouped["score"]],
            "cv_percent": [coefficient_of_variation(s) for s in grouped["score"]],
        }
    ).reset_index(drop=True)


# ---------------------------------------------------------------- iterations, parse flips, where the spread comes from


def complete_iterations(run: EqBenchRun) -> list[int]:
    """The iterations in which every question of the run has a record.

    A run that is still being written (or was stopped) has a partial last iteration.
    """
    answered: dict[int, set[str]] = {}
    for r in run.records:
        answered.setdefault(r.iteration, set()).add(r.question_id)
    return [it for it in run.iterations if len(answered.get(it, ())) >= run.n_questions]


def complete_run(run: EqBenchRun) -> EqBenchRun:
    """The run with only its complete iterations (see :func:`complete_iterations`).

    The header keeps its settings; ``iterations`` is replaced by the number kept and the planned
    number is kept as ``iterations_planned``.
    """
    keep = complete_iterations(run)
    header = run.header.replace(iterations_planned=run.header.get("iterations"))
    if keep == list(range(1, len(keep) + 1)):
        header = header.replace(iterations=len(keep))
    else:  # EqBenchRun.iterations then reads the iterations from the records
        header = header.without("iterations")
    return EqBenchRun(header, [r for r in run.records if r.iteration in set(keep)], run.path)


def parse_counts(matrix: pd.DataFrame) -> pd.DataFrame:
    """Per question (row of a questions x iterations score matrix, NaN = unparseable): how often it parsed.

    Columns: parsed (iterations in which it parsed), iterations, share, kind ("always", "never"
    or "flips": parsed in some iterations but not in others).
    """
    ok = np.isfinite(np.asarray(matrix, dtype=float))
    k = ok.shape[1]
    parsed = ok.sum(axis=1)
    kind = np.where(parsed == k, "always", np.where(parsed == 0, "never", "flips"))
    return pd.DataFrame(
        {"parsed": parsed, "iterations": k, "share": parsed / k if k else np.nan, "kind": kind},
        index=matrix.index if isinstance(matrix, pd.DataFrame) else None,
    )


def flip_summary(matrix: pd.DataFrame) -> dict[str, float]:
    """How many questions flip between parsed and unparseable across iterations, and how often.

    ``matrix`` is questions x iterations of question scores (NaN = unparseable). Returns
    questions, iterations, always / never / flips (question counts), parsed_per_iteration (mean
    count), flip_parse_share (mean share of iterations in which a flipping question parses),
    discordant_per_pair (mean number of questions that parse in one of two iterations and not
    the other, over all pairs of iterations), and the mean question score (run units, x 10) of
    the always-parsed questions and of the flipping ones when they parse.
    """
    m = np.asarray(matrix, dtype=float)
    counts = parse_counts(pd.DataFrame(m))
    n, k = m.shape
    p = counts["parsed"].to_numpy()
    flips = counts["kind"].to_numpy() == "flips"
    always = counts["kind"].to_numpy() == "always"
    pairs = k * (k - 1) / 2
    with np.errstate(invalid="ignore"):
        return {
            "questions": n,
            "iterations": k,
            "always": int(always.sum()),
            "never": int((counts["kind"] == "never").sum()),
            "flips": int(flips.sum()),
            "parsed_per_iteration": float(np.isfinite(m).sum(axis=0).mean()) if k else float("nan"),
            "flip_parse_share": float(counts["share"][flips].mean()) if flips.any() else float("nan"),
            "discordant_per_pair": float((p * (k - p)).sum() / pairs) if pairs else float("nan"),
            "score_always": 10 * float(np.nanmean(m[always])) if always.any() else float("nan"),
            "score_flips": 10 * float(np.nanmean(m[flips])) if flips.any() else float("nan"),
        }


def flip_score_difference(
    matrix: pd.DataFrame,
    reps: int = DEFAULT_REPS,
    seed: int | None = 0,
    level: float = DEFAULT_LEVEL,
    interval: str | None = None,
) -> Interval:
    """Mean score (run units) of flipping questions when they parse minus that of always-parsed ones.

    Means are over every parsed answer, as in :func:`flip_summary`. A flip can only shift the run
    score one way if the flipping questions score differently from the rest; the interval resamples
    questions within each kind (percentile bootstrap; refused when either kind has fewer than
    :data:`~eqbench_nb.analysis.stats.SMALL_N` questions, unless ``interval="percentile"`` is named). ``n`` =
    flipping questions. Null: no difference.
    """
    m = np.asarray(matrix, dtype=float)
    kind = parse_counts(pd.DataFrame(m))["kind"].to_numpy()
    fin = np.isfinite(m)
    sums, counts = np.where(fin, m, 0.0).sum(1) * 10, fin.sum(1).astype(float)
    f, a = np.flatnonzero(kind == "flips"), np.flatnonzero(kind == "always")
    if len(f) < 2 or len(a) < 2:
        return Interval(float("nan"), float("nan"), float("nan"), len(f))
    refuse_small_percentile(min(len(f), len(a)), interval, "flip_score_difference", "more questions of each kind")
    rng = np.random.default_rng(seed)

    def pooled(ix: np.ndarray) -> np.ndarray:  # mean over every parsed answer of the drawn questions
        return sums[ix].sum(-1) / counts[ix].sum(-1)

    draws = pooled(f[rng.integers(0, len(f), (reps, len(f)))]) - pooled(a[rng.integers(0, len(a), (reps, len(a)))])
    lo, hi = percentile_interval(draws, level)
    return Interval(float(pooled(f) - pooled(a)), float(lo), float(hi), len(f))


def flip_effect(matrix: pd.DataFrame) -> pd.DataFrame:
    """Each iteration's official score, and the same score with the parse flips or the values held fixed.

    ``matrix`` is questions x iterations of question scores (NaN = unparseable). Per iteration
    (run units, 10 x a mean):

    * ``official``: the mean over the questions that parsed in that iteration (the official rule);
    * ``fixed_set``: the mean over the questions that parsed in *every* iteration, so the set of
      questions never changes and only their scores move;
    * ``fixed_values``: the mean over that iteration's parsed questions of each question's mean
      score over the iterations in which it parsed, so only *which* questions parse changes.

    The SD of ``fixed_values`` across iterations is what the flips alone do to the run score;
    the SD of ``fixed_set`` is what decoding noise alone does on a fixed set.
    """
    m = np.asarray(matrix, dtype=float)
    ok = np.isfinite(m)
    always = ok.all(axis=1)
    parsed = ok.sum(axis=1)
    q_mean = np.where(ok, m, 0.0).sum(axis=1) / np.maximum(parsed, 1)  # never-parsed rows are never used
    fixed_values = np.where(ok, q_mean[:, None], np.nan)
    with np.errstate(invalid="ignore"):
        out = pd.DataFrame(
            {
                "official": 10 * np.nanmean(m, axis=0),
                "fixed_set": 10 * m[always].mean(axis=0) if always.any() else np.nan,
                "fixed_values": 10 * np.nanmean(fixed_values, axis=0),
            },
            index=matrix.columns if isinstance(matrix, pd.DataFrame) else None,
        )
    out.index.name = "iteration"
    return out


def flip_effect_summary(matrix: pd.DataFrame, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
    """SD across iterations of each column of :func:`flip_effect`, with chi-square intervals.

    ``variance_ratio`` is each variant's variance over the official score's variance: the
    run-to-run variance the parse flips alone (``fixed_values``) or the score noise on a fixed
    question set alone (``fixed_set``) would give, relative to what the official score shows. The
    two need not add up to 1: when they covary negatively (the questions that happen to parse
    score differently from the rest), each alone moves the score more than both together.
    """
    eff = flip_effect(matrix)
    rows = []
    var_official = sd_interval(eff["official"], level).estimate ** 2
    for col in eff.columns:
        iv = sd_interval(eff[col], level)
        share = iv.estimate**2 / var_official if var_official > 0 else float("nan")
        rows.append(
            {
                "variant": col,
                "mean": float(eff[col].mean()),
                "sd": iv.estimate,
                "sd_low": iv.low,
                "sd_high": iv.high,
                "variance_ratio": share,
                "iterations": iv.n,
            }
        )
    return pd.DataFrame(rows)


def uncertainty_decomposition(
    matrix: pd.DataFrame, reps: int = DEFAULT_REPS, seed: int | None = 0, level: float = DEFAULT_LEVEL
) -> pd.DataFrame:
    """Two SDs of one iteration's official score, like with like: question sampling and run-to-run noise.

    ``matrix`` is questions x iterations of question scores (NaN = unparseable, left out of the
    mean as the official convention does).

    * ``question sampling``: the SD of one iteration's score over ``reps`` percentile-bootstrap
      resamples of the questions (NaN positions resampled too), i.e. the standard error behind a
      single run's bootstrap interval. One SD per iteration; the row gives their root mean
      square, and ``spread_low``/``spread_high`` the smallest and largest over iterations.
    * ``run to run``: the SD of the iteration scores with the questions fixed, with its
      chi-square interval (``sd_low``/``sd_high``, see :func:`sd_interval`).

    The bootstrap treats each question's score as fixed, decoding noise included, so the two are two
    different "what ifs" for the same score (other questions; the same questions decoded again), not
    two additive parts of one: they are set side by side, never as shares of a summed variance.
    """
    m = np.asarray(matrix, dtype=float)
    boots = 10 * bootstrap_means(m.T, reps, seed)  # reps x iterations, same resampled questions for each
    per_iteration_se = np.nanstd(boots, axis=0, ddof=1)
    se = float(np.sqrt(np.mean(per_iteration_se**2)))
    run = sd_interval(10 * np.nanmean(m, axis=0), level)
    rows = [
        {
            "source": "question sampling",
            "sd": se,
            "sd_low": np.nan,
            "sd_high": np.nan,
            "spread_low": float(per_iteration_se.min()),
            "spread_high": float(per_iteration_se.max()),
            "n": m.shape[0],
            "n_unit": "questions",
            "method": f"SD of {reps:,} percentile-bootstrap resamples of the questions, per iteration (RMS)",
        },
        {
            "source": "run to run",
            "sd": run.estimate,
            "sd_low": run.low,
            "sd_high": run.high,
            "spread_low": np.nan,
            "spread_high": np.nan,
            "n": run.n,
            "n_unit": "iterations",
            "method": "SD of the iteration scores (questions fixed), chi-square interval",
        },
    ]
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# a real-model anchor: near-identical endpoints run on one day (the upstream results)
# ---------------------------------------------------------------------------------------------

#: Four gpt-3.5-turbo endpoint names the benchmark's author ran within about 90 minutes on 2024-01-14 (upstream
#: results, EQ-bench/EQ-Bench @ d28c60c): the 0613 snapshot, its 16k-context sibling, and the two aliases, which
#: pointed to those snapshots that day. The 0301 and 1106 runs of the same session are other snapshots (other
#: weights) and are not repeats.
SAME_DAY_GPT35 = ("gpt-3.5-turbo", "gpt-3.5-turbo-0613", "gpt-3.5-turbo-16k", "gpt-3.5-turbo-16k-0613")
SAME_DAY = "2024-01-14"
#: What the anchor can and cannot say, for the notebook, the headline and the figure.
ALIAS_CAVEAT = (
    "the four runs are four endpoint names, not one model asked four times: on 2024-01-14 the aliases gpt-3.5-turbo "
    "and gpt-3.5-turbo-16k pointed to the 0613 snapshots (OpenAI's model list of the time; the results files record "
    "only the name asked for), and the 16k endpoints may be served apart from the 4k ones; any difference between "
    "them adds to the SD, so it bounds the run-to-run noise of one such model from above, up to its own sampling error"
)

# What the real-model anchor can speak for (issue 38): one model family on one afternoon, at the official settings,
# with every answer parsed. Every sentence and headline that leans on the anchor carries this scope.
ANCHOR_SCOPE = (
    "the anchor is one model family (four gpt-3.5-turbo endpoint names, one afternoon, temperature 0.01, 171 of 171 "
    "questions parsed in each run): it cannot speak for local or quantised models, nor for models whose answers fail "
    "to parse, where parse flips between runs dominate the run-to-run change (notebook 03's bundled runs)"
)


def same_day_runs(
    runs: Iterable[EqBenchRun], models: Sequence[str] = SAME_DAY_GPT35, day: str = SAME_DAY
) -> pd.DataFrame:
    """The published runs of ``models`` finished on ``day`` (UTC): model, finish time, official score (rescored),
    parseable answers. Raises ``ValueError`` when one is missing or finished on another day."""
    import datetime as _dt

    rows = []
    for run in runs:
        if run.model not in models:
            continue
        finished = _dt.datetime.fromtimestamp(float(run.header.finished_at), tz=_dt.UTC)
        result = score_run(run)
        rows.append(
            {"model": run.model, "finished_utc": finished.strftime("%Y-%m-%d %H:%M"), "score": result.score,
             "parseable": int(result.n_parseable)}
        )  # fmt: skip
    table = pd.DataFrame(rows).sort_values("finished_utc").reset_index(drop=True)
    missing = set(models) - set(table.model) if len(table) else set(models)
    if missing or not table.finished_utc.str.startswith(day).all():
        raise ValueError(f"the same-day runs are not all there, or not all of {day}: missing {sorted(missing)}")
    return table


def identical_question_share(runs: Iterable[EqBenchRun], models: Sequence[str] = SAME_DAY_GPT35) -> float:
    """The mean, over pairs of the ``models``' runs, of the share of questions that got the same official score."""
    from itertools import combinations

    from .ranking import convention_matrix

    m = convention_matrix([r for r in runs if r.model in models], "official").to_numpy()
    shares = [np.mean(np.isclose(m[i], m[j], equal_nan=True)) for i, j in combinations(range(len(m)), 2)]
    return float(np.mean(shares))
