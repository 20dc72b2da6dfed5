"""What a researcher asks of a folder of runs: which runs are there, is A better than B, how do they rank.

Three functions, each returning a DataFrame (the ``eqbench-nb runs / compare / leaderboard``
commands print them):

- :func:`runs_overview`: one row per run file: model, set, protocol, iterations, records, score
- :func:`compare_runs`: A - B on their shared questions, its interval, P(A > B), separated or not
- :func:`leaderboard`: score with interval, rank with interval, group letters, covariates

A comparison states its basis and never changes a run's score behind the user's back
(:func:`comparison_basis`): runs that set out to answer the same questions are compared on them; a leaderboard
scores every run on its own questions and ranks those of the set most runs share, listing the others unranked;
``compare`` refuses two runs of different questions, naming the remedy; with ``common`` every run is rescored on
the questions all set out to answer, its own score beside. Every interval resamples **questions**: the same
resample for every run, so differences are paired (:mod:`eqbench_nb.analysis.stats`,
:mod:`eqbench_nb.eqbench.study.ranking`), as a percentile bootstrap from 30 questions on; below 30 a percentile
bootstrap is too narrow, and Student's t over the questions (paired for a difference) takes its place, with no
rank interval (:class:`ScoredRuns`). A question's value is its
score under the convention (:func:`eqbench_nb.eqbench.study.ranking.convention_matrix`); an iteration's
score is ``scale`` x its mean over the shared questions and a run's is the mean over its iterations,
so on a run's full set it is its :func:`eqbench_nb.eqbench.conventions.score_run` score (before
rounding), iterations included, and every replicate resamples the questions of every iteration
alike (:func:`bootstrap_runs`). P(A > B) compares the questions' values averaged over iterations. Under the
official convention an unparseable answer is left out of the mean, so a run with no parseable
answer has no score (NaN, printed ``—``), not 0.

Group letters are a compact letter display (Piepho 2004) of the pairwise separation: two runs share a
letter exactly when the paired interval of their difference includes 0 (each pair tested at ``level``,
uncorrected, as :func:`eqbench_nb.analysis.stats.pairwise_separation`); the groups are found greedily,
in polynomial time (:func:`compact_letters`).
"""

from __future__ import annotations

import dataclasses
import os
import string
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ...analysis.ranks import pairwise_comparisons, ranks
from ...analysis.stats import (
    DEFAULT_LEVEL,
    DEFAULT_REPS,
    SMALL_N,
    bootstrap_means,
    percentile_interval,
    separated_pairs,
    t_mean_ci,
    t_quantile,
    wilson_interval,
)
from ...runner.runfile import id_ranges
from ...viewer.contract import timestamp_text
from ..conventions import CONVENTIONS, convention_score, records_by_iteration, score_run
from ..questions import questions_by_id
from ..runs import EqBenchRun, RunFormatError, find_run_files, is_eqbench_file, is_run_file, read_run
from ..short_form import run_prediction
from .ranking import convention_matrix, run_labels

RunLike = EqBenchRun | str | os.PathLike
LETTERS = string.ascii_lowercase + string.ascii_uppercase

__all__ = [
    "Basis",
    "ScoredRuns",
    "bootstrap_runs",
    "compact_letters",
    "compare_by_question",
    "compare_runs",
    "compare_statement",
    "comparison_basis",
    "group_names",
    "leaderboard",
    "leaderboard_caption",
    "letter_groups",
    "load_runs",
    "question_matrix",
    "runs_overview",
    "score_together",
    "separation",
    "shared_matrix",
]


def load_runs(runs: RunLike | Iterable[RunLike]) -> list[EqBenchRun]:
    """EQ-Bench runs from EqBenchRun objects, run files, or folders of them (folders expanded, files sorted).

    A folder's runs of other benchmarks (``data/runs/`` holds one) are passed over: these tables compare EQ-Bench
    scores; a named one is a :class:`RunFormatError` that says so."""
    items = [runs] if isinstance(runs, (EqBenchRun, str, os.PathLike)) else list(runs)
    out: list[EqBenchRun] = []
    for item in items:
        if isinstance(item, EqBenchRun):
            out.append(item)
            continue
        for path in find_run_files([item], is_run_file):  # a folder's files of no run format passed over, said
            if not is_eqbench_file(path):
                if Path(item).is_dir():
                    continue
                raise RunFormatError(path, "a run of another benchmark; this compares EQ-Bench runs")
            out.append(read_run(path))
    return out


def scale_of(convention: str) -> float:
    """Multiplier from a convention's question values to its run score (evalscope's is 0-1)."""
    return 0.1 if convention == "evalscope" else 10.0


# ---------------------------------------------------------------- runs


def runs_overview(runs: RunLike | Iterable[RunLike], sort: str | None = None) -> pd.DataFrame:
    """One row per run: file, model, run_id, set, protocol, form (a short form's name: only its questions were
    asked, so its score is not a full one; None for a whole set; with a form among the runs, ``predicted_full``,
    ``predicted_low``, ``predicted_high``: its predicted full official score and 95 % prediction interval), revise,
    iterations, questions (per iteration),
    records (found / expected), complete, score (official; NaN when no answer parsed), parseable (questions
    parsed per iteration, the mean over iterations: of ``questions``, as ``score`` counts them), started and
    finished (where the file records them: upstream files record only when
    they finished, this project's only when they started).

    ``sort`` names a column; ``score`` sorts best first, the others ascending.
    """
    rows = []
    for run in load_runs(runs):
        s = score_run(run, "official")
        expected = run.n_questions * len(run.iterations)
        rows.append(
            {
                "model": run.model,
                "run_id": run.run_id,
                "set": run.version,
                "protocol": run.header.own.protocol,
                "form": run.form,
                "revise": run.revise,
                "iterations": len(run.iterations),
                "questions": run.n_questions,
                "records": len(run.records),
                "complete": len(run.records) >= expected,
                "score": s.score,
                "parseable": round(s.n_parseable, 2),
                **_predicted(run, s.score),
                "started": timestamp_text(run.header.started_at),
                "finished": timestamp_text(run.header.finished_at),
                "file": run.path,
            }
        )
    table = pd.DataFrame(rows, columns=_OVERVIEW_COLUMNS)
    if table.form.notna().any():  # a short form's predicted full score and interval, beside its own score
        at = table.columns.get_loc("score") + 1
        for offset, column in enumerate(("predicted_full", "predicted_low", "predicted_high")):
            table.insert(at + offset, column, [row.get(column, np.nan) for row in rows])
    return sort_table(table, sort)


def _predicted(run: EqBenchRun, official: float) -> dict[str, float]:
    """A short form's predicted full official score and its 95 % prediction interval ({} for a whole set)."""
    found = run_prediction(run.header, official) if run.form is not None else None
    if found is None:
        return {}
    return {k: round(v, 2) for k, v in zip(("predicted_full", "predicted_low", "predicted_high"), found[1:])}


_OVERVIEW_COLUMNS = [
    "model",
    "run_id",
    "set",
    "protocol",
    "form",
    "revise",
    "iterations",
    "questions",
    "records",
    "complete",
    "score",
    "parseable",
    "started",
    "finished",
    "file",
]


def sort_table(table: pd.DataFrame, column: str | None) -> pd.DataFrame:
    """``table`` sorted by ``column`` (score-like columns best first, NaN last); unchanged for None."""
    if column is None:
        return table.reset_index(drop=True)
    if column not in table.columns:
        raise ValueError(f"cannot sort by {column!r}; choose from {', '.join(table.columns)}")
    descending = column in ("score", "parseable", "diff")
    return table.sort_values(column, ascending=not descending, na_position="last", kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------- which questions runs are compared on


@dataclasses.dataclass(frozen=True)
class Basis:
    """The questions a table compares runs on.

    ``questions`` are the ranked runs' (those with ``on_board`` true): without ``common``, the question set that
    most runs set out to answer (on a tie the larger set, then the first), each run scored on its own set as
    ``score`` scores it, and a run of another set left unranked; with ``common``, the questions every run set out
    to answer, every run rescored on them (asked for, and said beside each score)."""

    questions: list[str]
    on_board: list[bool]
    common: bool

    @property
    def all_on_board(self) -> bool:
        return all(self.on_board)


def comparison_basis(runs: Sequence[EqBenchRun], common: bool = False) -> Basis:
    """The :class:`Basis` of ``runs``. With ``common``, runs of different question sets (v1 and v2) or that share
    no question raise ``ValueError``."""
    if not runs:
        raise ValueError("no runs to compare")
    asked = [r.asked_ids for r in runs]
    if common:
        sets = sorted({r.version for r in runs})
        if len(sets) > 1:
            raise ValueError(f"runs of different question sets ({', '.join(sets)}) have no questions in common")
        shared = set(asked[0]).intersection(*map(set, asked[1:]))
        if not shared:
            raise ValueError("the runs share no question")
        return Basis([q for q in asked[0] if q in shared], [True] * len(runs), True)
    keys = [(r.version, frozenset(a)) for r, a in zip(runs, asked)]
    counts = Counter(keys)
    board = max(counts, key=lambda k: (counts[k], len(k[1]), -keys.index(k)))
    return Basis(list(asked[keys.index(board)]), [k == board for k in keys], False)


def shared_matrix(runs: Sequence[EqBenchRun], convention: str = "official") -> pd.DataFrame:
    """Runs x the questions every run set out to answer: each question's value under ``convention`` (NaN = left
    out, official only). Runs of different question sets cannot be compared and raise ``ValueError``."""
    return question_matrix(runs, comparison_basis(runs, common=True).questions, convention)


def question_matrix(runs: Sequence[EqBenchRun], questions: Sequence[str], convention: str = "official") -> pd.DataFrame:
    """Runs x ``questions``: each question's value under ``convention``, averaged over iterations."""
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {', '.join(CONVENTIONS)}, not {convention!r}")
    matrix = convention_matrix(runs, convention)
    return matrix.reindex(columns=list(questions))


def _iterations(run: EqBenchRun) -> list[EqBenchRun]:
    """Each iteration of ``run`` that has records, as a one-iteration run of its own."""
    return [
        EqBenchRun(run.header.replace(iterations=1), [dataclasses.replace(r, iteration=1) for r in recs], run.path)
        for recs in records_by_iteration(run).values()
        if recs
    ]


@dataclasses.dataclass(frozen=True)
class RunBootstrap:
    """Runs' scores on a set of questions and ``reps`` bootstrap replicates of them.

    ``boot[b, k]`` is run k's score when the questions are resampled (replicate b, the
    same resample for every run and every iteration): each iteration's score is ``scale`` x its
    mean over the resampled questions (NaNs left out), and a run's is the mean over its
    iterations, as the official score is. ``questions`` holds each question's value averaged
    over iterations (for P(A > B) and the small-sample intervals).
    """

    estimate: np.ndarray
    boot: np.ndarray
    questions: pd.DataFrame


def bootstrap_runs(
    runs: Sequence[EqBenchRun],
    convention: str = "official",
    reps: int = DEFAULT_REPS,
    seed: int | None = 0,
    questions: Sequence[str] | None = None,
) -> RunBootstrap:
    """:class:`RunBootstrap` of ``runs`` on ``questions`` (default: those every run set out to answer,
    :func:`shared_matrix`)."""
    matrix = shared_matrix(runs, convention) if questions is None else question_matrix(runs, questions, convention)
    owners, pieces = [], []
    for k, run in enumerate(runs):
        for one in _iterations(run):
            owners.append(k)
            pieces.append(one)
    owner = np.array(owners)
    per_iteration = question_matrix(pieces, list(matrix.columns), convention).to_numpy(float)
    scale = scale_of(convention)
    with warnings.catch_warnings():  # an iteration, or a run, with no parseable answer: NaN, said as such
        warnings.simplefilter("ignore", RuntimeWarning)
        boot_it = bootstrap_means(per_iteration, reps, seed) * scale
        est_it = scale * np.nanmean(per_iteration, axis=1)
        boot = np.stack([np.nanmean(boot_it[:, owner == k], axis=1) for k in range(len(runs))], axis=1)
        estimate = np.array(
            [np.nanmean(est_it[owner == k]) if (owner == k).any() else np.nan for k in range(len(runs))]
        )
    return RunBootstrap(estimate, boot, matrix)


@dataclasses.dataclass(frozen=True)
class ScoredRuns:
    """Runs scored together on one set of ``n`` questions, with the intervals that n calls for (``method``).

    From :data:`~eqbench_nb.analysis.stats.SMALL_N` questions on: percentile bootstrap intervals over the questions,
    one resample for every run (paired), rank intervals from ranking every resample, and ``separated[i, j]`` when
    the paired difference's interval excludes 0. Below it a percentile bootstrap is too narrow (docs/contributing.md,
    statistical checklist): each score gets Student's t interval over its questions' values, a pair is separated
    when the paired t interval of their difference (over the questions both parsed) excludes 0, and there is no
    rank interval (NaN): ranking resamples of so few questions would understate how uncertain a rank is."""

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    separated: np.ndarray
    n: int
    method: str
    bootstrap: RunBootstrap


def score_together(
    runs: Sequence[EqBenchRun],
    questions: Sequence[str],
    convention: str = "official",
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
) -> ScoredRuns:
    """:class:`ScoredRuns` of ``runs`` on ``questions``."""
    bs = bootstrap_runs(runs, convention, reps, seed, questions)
    n, k = len(questions), len(runs)
    defined = np.isfinite(bs.estimate)
    separated = np.zeros((k, k), dtype=bool)
    idx = np.flatnonzero(defined)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if n >= SMALL_N:
            low, high = percentile_interval(bs.boot, level)
            rank_low, rank_high = percentile_interval(ranks(_ties(bs.boot), axis=1), level)
            if len(idx):
                separated[np.ix_(idx, idx)] = separation(bs.boot[:, idx], level)
            method = PERCENTILE_OVER_QUESTIONS
        else:
            values = bs.questions.to_numpy(float)
            half = np.array([_t_half(v, level) for v in values]) * scale_of(convention)
            low, high = bs.estimate - half, bs.estimate + half
            rank_low = rank_high = np.full(k, np.nan)
            separated = t_separation(values, bs.estimate, idx, level, scale_of(convention))
            method = T_OVER_QUESTIONS
    undefined = ~defined
    return ScoredRuns(
        bs.estimate,
        np.where(undefined, np.nan, low),
        np.where(undefined, np.nan, high),
        np.where(undefined, np.nan, rank_low),
        np.where(undefined, np.nan, rank_high),
        separated,
        n,
        method,
        bs,
    )


#: How a table's intervals are described: by the n they were computed over.
PERCENTILE_OVER_QUESTIONS = "percentile bootstrap over questions"
T_OVER_QUESTIONS = "Student t over questions"


def _t_half(values: np.ndarray, level: float) -> float:
    """Student's t half-width of the mean of the finite ``values`` (NaN below two)."""
    return t_mean_ci(values, level).half_width


def t_separation(
    values: np.ndarray, estimate: np.ndarray, idx: np.ndarray, level: float, scale: float = 1.0
) -> np.ndarray:
    """Which pairs among the runs ``idx`` differ beyond noise below 30 questions: the difference of their
    estimates exceeds the Student t half-width (:func:`_t_half`, times ``scale``) of their per-question
    differences (``values``: runs x questions). Each run's pairs with every later run at once: the t quantile is
    computed once per degrees of freedom, not once per pair (a 1,000-run board has 499,500 pairs); a pair with a
    question undefined for either run (NaN) goes through :func:`_t_half` on its own, dropping it."""
    k = len(estimate)
    separated = np.zeros((k, k), dtype=bool)
    n = values.shape[1]
    t = t_quantile(level, n - 1) if n >= 2 else float("nan")
    for i in idx:
        later = idx[idx > i]
        if not len(later):
            continue
        d = values[i][None, :] - values[later]
        whole = np.isfinite(d).all(axis=1)
        half = np.full(len(later), np.nan)
        if n >= 2 and whole.any():
            rows = d[whole]
            h, mean = t * rows.std(axis=1, ddof=1) / np.sqrt(n), rows.mean(axis=1)
            half[whole] = ((mean + h) - (mean - h)) / 2.0 * scale  # as Interval.half_width, to the last bit
        for m in np.flatnonzero(~whole):
            half[m] = _t_half(d[m], level) * scale
        apart = np.abs(estimate[i] - estimate[later]) > half
        separated[i, later] = separated[later, i] = apart
    return separated


def _ties(scores: np.ndarray) -> np.ndarray:
    """Scores rounded far below any shown digit, so that two runs equal but for floating-point noise tie (their
    point rank then lies in their rank interval, as both are ranked alike)."""
    return np.round(np.asarray(scores, dtype=float), 9)


def separation(boot: np.ndarray, level: float = DEFAULT_LEVEL) -> np.ndarray:
    """Which pairs of runs differ beyond noise: the ``level`` percentile interval of their bootstrap
    difference excludes 0 (each pair on its own, uncorrected), as
    :func:`eqbench_nb.analysis.stats.pairwise_separation` decides it from a score matrix."""
    return separated_pairs(boot, level)


def _parseable_count(run: EqBenchRun, questions: set[str], convention: str) -> float:
    """Questions of ``questions`` parsed per iteration (mean over iterations), as the convention reads them."""
    by_id = questions_by_id(run.version)
    counts = []
    for recs in records_by_iteration(run).values():
        mine = [r for r in recs if r.question_id in questions]
        if convention == "official":
            revised = _uses_revised(recs)
            ok = sum((r.revised_score if revised else r.first_pass_score) is not None for r in mine)
        else:
            ok = sum(convention_score(r, by_id[r.question_id], convention, run) is not None for r in mine)
        counts.append(ok)
    return round(float(np.mean(counts)), 2) if counts else float("nan")


def _uses_revised(records: list) -> bool:
    from ..conventions import official_iteration_score

    return bool(records) and official_iteration_score(records)[2]


# ---------------------------------------------------------------- compare


def _different_questions(runs: Sequence[EqBenchRun], names: Sequence[str]) -> str:
    """Why runs that set out to answer different questions are not compared as they stand, and what to do."""
    asked = [r.asked_ids for r in runs]
    sets = ", ".join(f"{name} {len(a)} ({id_ranges(a, 4)})" for name, a in zip(names, asked))
    shared = set(asked[0]).intersection(*map(set, asked[1:]))
    remedy = (
        f"compare them on the {_plural(len(shared), 'question')} they all set out to answer with --common, or "
        if shared
        else ""
    )
    return (
        f"the runs set out to answer different questions ({sets}): their scores are over different questions, so "
        f"their difference would mix the models with how hard the questions are; {remedy}give them the same "
        "questions (eqbench-nb run --extend FILE with the other's selection)"
    )


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def compare_runs(
    a: RunLike,
    b: RunLike,
    convention: str = "official",
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
    common: bool = False,
) -> pd.DataFrame:
    """A - B, paired over the questions both runs set out to answer: one row with the difference, its interval,
    P(A > B) and whether they are separated.

    Two runs that set out to answer different questions are refused (``ValueError`` naming the remedy): a
    difference of scores over different questions mixes the models with the questions' difficulty. With
    ``common`` they are compared on the questions both set out to answer, each rescored on them; their own scores
    stay beside (``own_score_a``, ``own_score_b``, over ``own_questions_a``, ``own_questions_b``).

    Columns: ``a, b, convention, basis`` (``same questions`` or ``common questions``), ``questions``, ``score_a,
    score_b, diff, diff_low, diff_high``, ``p_a_better`` (P(A > B): the share of questions both parsed on which A
    scores higher, ties half) with ``p_low, p_high``, ``separated`` (the difference's interval excludes 0; None
    with no verdict), ``verdict`` (``A higher``, ``B higher``, ``not separated`` or ``no verdict``), ``no_verdict``
    (why there is none: a side with no score, a difference with no interval; else None), ``interval`` (how: a
    paired percentile bootstrap over the questions from :data:`~eqbench_nb.analysis.stats.SMALL_N` questions on;
    below, Student's t over the paired question differences and a Wilson interval for P(A > B)), ``level, reps``,
    and with ``common`` the own scores.
    """
    ra, rb = load_runs(a), load_runs(b)
    if len(ra) != 1 or len(rb) != 1:
        raise ValueError("compare takes exactly one run file for A and one for B")
    runs = [ra[0], rb[0]]
    if len({r.version for r in runs}) > 1:
        raise ValueError(f"runs of different question sets ({', '.join(sorted({r.version for r in runs}))}) have no "
                         "questions in common")  # fmt: skip
    basis = comparison_basis(runs, common)
    if not basis.all_on_board:
        raise ValueError(_different_questions(runs, ["A", "B"]))
    scored = score_together(runs, basis.questions, convention, reps, level, seed)
    bs, n = scored.bootstrap, scored.n
    values = bs.questions.to_numpy(float)
    diff = float(bs.estimate[0] - bs.estimate[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if n >= SMALL_N:
            diff_low, diff_high = (float(x) for x in percentile_interval(bs.boot[:, 0] - bs.boot[:, 1], level))
            poi = pairwise_comparisons(values, reps, level, seed).table.iloc[0]
            p, p_low, p_high = float(poi["poi"]), float(poi["poi_low"]), float(poi["poi_high"])
        else:
            half = _t_half(values[0] - values[1], level) * scale_of(convention)
            diff_low, diff_high = diff - half, diff + half
            p, p_low, p_high = _wilson_poi(values[0], values[1], level)
    la, lb = run_labels(runs) if runs[0].model != runs[1].model else _distinct_labels(runs)
    no_verdict = _why_no_verdict(bs.estimate[0], bs.estimate[1], diff_low, diff_high)
    separated = None if no_verdict else bool(diff_low > 0 or diff_high < 0)
    verdict = "A higher" if diff > 0 else "B higher"
    verdict = "no verdict" if no_verdict else verdict if separated else "not separated"
    row = {
        "a": la,
        "b": lb,
        "convention": convention,
        "basis": "common questions" if common and not _same_questions(runs) else "same questions",
        "questions": n,
        "score_a": bs.estimate[0],
        "score_b": bs.estimate[1],
        "diff": diff,
        "diff_low": float(diff_low),
        "diff_high": float(diff_high),
        "p_a_better": p,
        "p_low": p_low,
        "p_high": p_high,
        "separated": separated,
        "verdict": verdict,
        "no_verdict": no_verdict,
        "interval": scored.method,
        "level": level,
        "reps": reps,
    }
    if common:
        for side, run in zip("ab", runs):
            row[f"own_score_{side}"] = score_run(run, convention).score
            row[f"own_questions_{side}"] = len(run.asked_ids)
    return pd.DataFrame([row])


def _why_no_verdict(
    score_a: float, score_b: float, low: float, high: float, names: tuple[str, str] = ("A", "B")
) -> str | None:
    """Why A - B has no verdict (None when it has one): a side with no score, or a difference with no interval."""
    unscored = [side for side, score in zip(names, (score_a, score_b)) if not np.isfinite(score)]
    if unscored:
        sides = " and ".join(unscored)
        return f"{sides} {'has' if len(unscored) == 1 else 'have'} no score on these questions (no answer parsed)"
    if not (np.isfinite(low) and np.isfinite(high)):
        return "the difference has no interval (too few questions both parsed)"
    return None


def _same_questions(runs: Sequence[EqBenchRun]) -> bool:
    return len({frozenset(r.asked_ids) for r in runs}) == 1


def _wilson_poi(a: np.ndarray, b: np.ndarray, level: float) -> tuple[float, float, float]:
    """P(A > B) over the questions both parsed (ties half) with its Wilson score interval."""
    both = np.isfinite(a) & np.isfinite(b)
    wins = float(((a > b) + 0.5 * (a == b))[both].sum())
    n = int(both.sum())
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    low, high = wilson_interval(wins, n, level)
    return wins / n, low, high


def compare_by_question(a: RunLike, b: RunLike, convention: str = "official", common: bool = False) -> pd.DataFrame:
    """A and B question by question, on the questions :func:`compare_runs` compares them on (the same refusal
    without ``common`` when they set out to answer different questions): ``question``, ``score_a``, ``score_b``
    (the question's value under ``convention``, averaged over iterations: 0-10 for official, NaN where left out)
    and ``diff`` (A - B), in the set's order."""
    runs = [*load_runs(a), *load_runs(b)]
    if len(runs) != 2:
        raise ValueError("compare takes exactly one run file for A and one for B")
    basis = comparison_basis(runs, common)
    if not basis.all_on_board:
        raise ValueError(_different_questions(runs, ["A", "B"]))
    values = question_matrix(runs, basis.questions, convention).to_numpy(float)
    if convention == "evalscope":
        values = values / 10.0  # evalscope's question values are 0-1
    return pd.DataFrame(
        {"question": basis.questions, "score_a": values[0], "score_b": values[1], "diff": values[0] - values[1]}
    )


def _distinct_labels(runs: Sequence[EqBenchRun]) -> list[str]:
    a, b = runs
    if a.run_id != b.run_id:
        return [f"{a.model}#{a.run_id}", f"{b.model}#{b.run_id}"]
    return [f"{a.model} ({Path(a.path or 'A').name})", f"{b.model} ({Path(b.path or 'B').name})"]


def _num(x: float, digits: int) -> str:
    return "—" if not np.isfinite(x) else f"{x:+.{digits}f}"


def compare_statement(row: pd.Series | pd.DataFrame, names: tuple[str, str] = ("A", "B")) -> str:
    """The comparison in one sentence, rliable-style: both scores, the difference with its interval, what was
    resampled (or how the interval was made, below 30 questions), P(A > B), and the basis. ``names`` are what the
    sentence calls the row's A and B (the viewer, which compares its second run against its first: ("B", "A"))."""
    r = row.iloc[0] if isinstance(row, pd.DataFrame) else row
    A, B = names
    d = 4 if r["convention"] == "evalscope" else 2
    conclusion = {
        "A higher": f"separated: {A} scores higher",
        "B higher": f"separated: {B} scores higher",
        "not separated": "not separated: the interval includes 0",
        "no verdict": f"no verdict: {_why_no_verdict(r.score_a, r.score_b, r.diff_low, r.diff_high, names)}",
    }[r["verdict"]]
    defined = bool(np.isfinite(r["p_a_better"]))
    p = f"{r['p_a_better']:.2f} [{r['p_low']:.2f}, {r['p_high']:.2f}]" if defined else "—"
    n = int(r["questions"])
    if r.get("interval", PERCENTILE_OVER_QUESTIONS) == T_OVER_QUESTIONS:
        how = f"{r['level']:.0%} Student t over the paired question differences; fewer than {SMALL_N} questions"
        poi_how = " (Wilson interval)" if defined else ""
    else:
        how = f"{r['level']:.0%} percentile bootstrap over questions, {r['reps']:,} resamples"
        poi_how = ""
    if r.get("basis") == "common questions":
        where = (
            f"on the {_plural(n, 'question')} both set out to answer (their own scores: {A} "
            f"{_plain(r['own_score_a'], d)} on {r['own_questions_a']:,}, {B} {_plain(r['own_score_b'], d)} on "
            f"{r['own_questions_b']:,})"
        )
    else:
        where = f"on {_plural(n, 'shared question')}"
    return (
        f"{A} {_plain(r['score_a'], d)}, {B} {_plain(r['score_b'], d)}: {A} - {B} = {_num(r['diff'], d)} "
        f"[{_num(r['diff_low'], d)}, {_num(r['diff_high'], d)}] {r['convention']} points {where} ({how}); "
        f"P({A} > {B}) on a question = {p}{poi_how}; {conclusion}"
    )


def _plain(x: float, digits: int) -> str:
    return "—" if not np.isfinite(x) else f"{x:.{digits}f}"


# ---------------------------------------------------------------- leaderboard


def compact_letters(separated: np.ndarray, order: Sequence[int] | None = None) -> list[str]:
    """Group letters: items share a letter exactly when they are not separated.

    ``separated`` is a symmetric boolean matrix. The groups are maximal sets of items no two of which
    are separated (cliques of the "not separated" graph) that together hold every pair not separated
    and every item (:func:`letter_groups`). Letters go to groups in the order of their best member in
    ``order`` (the ranking, best first), so the top group is ``a``. Polynomial in the number of items
    (Piepho's 2004 insert-and-absorb lists every maximal clique, which grows exponentially on some
    separation patterns: 100 runs did not finish in 150 s; ``benchmarks/bench_letters.py``).
    """
    sep = np.asarray(separated, dtype=bool)
    k = sep.shape[0]
    order = list(range(k)) if order is None else list(order)
    groups = letter_groups(sep, order)
    position = {item: p for p, item in enumerate(order)}
    groups.sort(key=lambda g: sorted(position[x] for x in g))
    held: list[list[int]] = [[] for _ in range(k)]  # each item's groups, in letter order
    for n, g in enumerate(groups):
        for item in g:
            held[item].append(n)
    if len(groups) <= len(LETTERS):
        return [_letter_ranges(mine) for mine in held]
    # past z and Z: groups are numbered, consecutive ones as a range ("1-3,17"), so each entry reads one way
    return [_ranges([n + 1 for n in mine]) for mine in held]


def _letter_ranges(groups: list[int]) -> str:
    """Ascending group numbers as letters, three or more consecutive ones as a range (``lmnopqrstu`` reads
    ``l-u``): [0, 1] -> "ab", [0, 1, 2, 3, 5] -> "a-d,f", [0, 2, 3, 4, 7, 8] -> "a,c-e,hi"."""
    runs: list[list[int]] = []
    for n in groups:
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    if all(len(r) < 3 for r in runs):
        return "".join(LETTERS[n] for n in groups)
    parts: list[str] = []
    for r in runs:
        if len(r) >= 3:
            parts.append(f"{LETTERS[r[0]]}-{LETTERS[r[-1]]}")
        elif parts and "-" not in parts[-1]:
            parts[-1] += "".join(LETTERS[n] for n in r)
        else:
            parts.append("".join(LETTERS[n] for n in r))
    return ",".join(parts)


def letter_groups(separated: np.ndarray, order: Sequence[int]) -> list[frozenset[int]]:
    """Maximal groups of items no two of which are ``separated``, covering every pair that is not and every item.

    For each item in ``order`` (best first) and each partner it shares no group with yet (best first), one
    group is grown from the pair by adding, best first, every item not separated from all its members
    (those that share no group with the item yet before the others, so each group covers many new pairs),
    so it is maximal and holds a pair no earlier group held (it is new). Sets of items are bit masks over the
    positions in ``order``: each group costs O(k) mask operations, and there are at most as many groups as
    pairs not separated, so the whole is polynomial (about k² mask operations when separation follows the
    ranking, as it mostly does)."""
    sep = np.asarray(separated, dtype=bool)
    order = list(order)
    k = len(order)
    together = ~sep[np.ix_(order, order)]  # in rank positions
    neighbours = [sum(1 << int(q) for q in np.flatnonzero(together[p]) if q != p) for p in range(k)]
    shared = [0] * k  # positions each position already shares a group with
    groups: list[frozenset[int]] = []
    for p in range(k):
        if not neighbours[p]:
            groups.append(frozenset({order[p]}))
        while missing := neighbours[p] & ~shared[p]:
            q = _lowest(missing)
            members = (1 << p) | (1 << q)
            candidates = neighbours[p] & neighbours[q]
            while candidates:  # add the best item still not separated from every member, first of those that
                # share no group with p yet (each group then covers many new pairs), then of the others
                fresh = candidates & missing
                r = _lowest(fresh or candidates)
                members |= 1 << r
                candidates &= neighbours[r]
            for m in _positions(members):
                shared[m] |= members & ~(1 << m)
            groups.append(frozenset(order[m] for m in _positions(members)))
    return groups


def _lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _positions(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _ranges(numbers: list[int]) -> str:
    """Ascending numbers as ranges: [1, 2, 3, 7] -> "1-3,7"."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def group_names(entry: str) -> set[str]:
    """The groups in a :func:`compact_letters` entry: ``"ab"``, ``"a-d,f"``, or ``"1-3,17"`` past 52 groups."""
    names: set[str] = set()
    for part in filter(None, entry.split(",")):
        first, dash, last = part.partition("-")
        if part[0].isdigit():
            names.update(str(n) for n in range(int(first), int(last or first) + 1))
        elif dash:
            names.update(LETTERS[LETTERS.index(first) : LETTERS.index(last) + 1])
        else:
            names.update(part)
    return names


#: The leaderboard's ``basis`` of a run that set out to answer other questions than the ranked runs.
OWN_QUESTIONS = "own questions, not ranked"
#: The leaderboard's ``basis`` of a run with no score on the questions it is scored over (no answer parsed).
NO_SCORE = "no score, not ranked"


def leaderboard(
    runs: RunLike | Iterable[RunLike],
    convention: str = "official",
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
    common: bool = False,
    with_published: bool = False,
) -> pd.DataFrame:
    """One row per run: ``rank, group, model, run_id, score, low, high, rank_low, rank_high, basis, parseable``
    (questions parsed per iteration, of ``questions``), ``questions`` (those the score is over), ``iterations,
    protocol, form`` (a short form's name, None for a whole set)``, revise, engine, quantisation, interval, file``.

    What each score is over (:func:`comparison_basis`): by default every run is scored on its own questions, the
    score ``score`` gives it, and the runs of the set most runs share are ranked together (``basis`` ``ranked``):
    their intervals resample those questions (one resample for every run), ranks are 1 = best with ties
    averaged, ``group`` is :func:`compact_letters` of the pairwise separation at ``level``. A run that set out to
    answer other questions (a ``--limit 5`` run beside full ones) keeps its own score and interval and is not
    ranked (``basis`` ``own questions, not ranked``): a rank between scores over different questions would mix
    the models with the questions' difficulty. With ``common`` every run is rescored on the questions all set
    out to answer and ranked (``basis`` ``common questions``), its own score beside (``own_score``, over
    ``own_questions``). Below 30 questions the intervals are Student's t and there are no rank intervals
    (:class:`ScoredRuns`); ``interval`` says which. With ``with_published`` the 86 published v2 runs
    (:func:`eqbench_nb.eqbench.study.table.published_runs`) join the given ones, ``published`` marking them.

    Ranked runs come first, best first, then the others by score; a run with no parseable answer has no score,
    rank or group (NaN / empty) and comes last of its part.
    """
    loaded = load_runs(runs)
    published: set[int] = set()
    if with_published:
        from .table import published_runs

        mine = {os.path.realpath(r.path) for r in loaded if r.path is not None}
        extra = [r for r in published_runs() if os.path.realpath(r.path or "") not in mine]
        published = set(range(len(loaded), len(loaded) + len(extra)))
        loaded = loaded + extra
    basis = comparison_basis(loaded, common)
    ranked = [k for k, on in enumerate(basis.on_board) if on]
    on_board = score_together([loaded[k] for k in ranked], basis.questions, convention, reps, level, seed)
    rows: list[dict] = []
    ranked_rows = _ranked_rows([loaded[k] for k in ranked], on_board, convention)
    for k, row in zip(ranked, ranked_rows):
        basis_of = ("common questions" if common else "ranked") if np.isfinite(row["score"]) else NO_SCORE
        rows.append({"_k": k, **row, "basis": basis_of})
    for k in (k for k, on in enumerate(basis.on_board) if not on):
        own = score_together([loaded[k]], loaded[k].asked_ids, convention, reps, level, seed)
        rows.append({"_k": k, **_ranked_rows([loaded[k]], own, convention, rank=False)[0],
                     "basis": OWN_QUESTIONS})  # fmt: skip
    for row in rows:
        run = loaded[row["_k"]]
        row |= {
            "iterations": len(run.iterations),
            "protocol": run.header.own.protocol,
            "form": run.form,
            "revise": run.revise,
            "engine": _engine(run),
            "quantisation": run.header.quantisation,
        }
        if common:
            row |= {"own_score": score_run(run, convention).score, "own_questions": len(run.asked_ids)}
        if with_published:
            row["published"] = row["_k"] in published
        row["file"] = run.path
    table = pd.DataFrame(rows)
    part = table.basis.map({OWN_QUESTIONS: 1, NO_SCORE: 2}).fillna(0)
    table = table.assign(_part=part).sort_values(
        ["_part", "score", "model"], ascending=[True, False, True], na_position="last", kind="stable"
    )
    return table.drop(columns=["_k", "_part"]).reset_index(drop=True)


def _ranked_rows(runs: Sequence[EqBenchRun], scored: ScoredRuns, convention: str, rank: bool = True) -> list[dict]:
    """The leaderboard's columns from ``rank`` to ``questions`` (and ``interval``) of runs scored together."""
    defined = np.isfinite(scored.estimate)
    letters = [""] * len(runs)
    idx = np.flatnonzero(defined)
    if rank and len(idx):
        order = np.argsort(-scored.estimate[idx], kind="stable").tolist()
        for i, letter in zip(idx, compact_letters(scored.separated[np.ix_(idx, idx)], order)):
            letters[i] = letter
    point_rank = np.where(defined, ranks(_ties(scored.estimate)), np.nan) if rank else np.full(len(runs), np.nan)
    questions = set(scored.bootstrap.questions.columns)
    return [
        {
            "rank": point_rank[k],
            "group": letters[k],
            "model": run.model,
            "run_id": run.run_id,
            "score": scored.estimate[k],
            "low": scored.low[k],
            "high": scored.high[k],
            "rank_low": scored.rank_low[k] if rank else np.nan,
            "rank_high": scored.rank_high[k] if rank else np.nan,
            "parseable": _parseable_count(run, questions, convention),
            "questions": scored.n,
            "interval": scored.method,
        }
        for k, run in enumerate(runs)
    ]


def leaderboard_caption(table: pd.DataFrame, convention: str, level: float, reps: int) -> str:
    """What a leaderboard's numbers are, in words: each part's questions and interval method, the runs left
    unranked and why, and what the group letters mean."""
    ranked = table[~table.basis.isin([OWN_QUESTIONS, NO_SCORE])]
    own = table[table.basis == OWN_QUESTIONS]
    unscored = table[table.basis == NO_SCORE]
    parts = [f"score: {convention}"]
    if len(ranked):
        n = int(ranked.questions.iloc[0])
        common = (ranked.basis == "common questions").any()
        over = (
            f"every run rescored on the {_plural(n, 'question')} all set out to answer (--common; own_score: its score "
            "on its own questions)"
            if common
            else f"{_plural(len(ranked), 'ranked run')} on the {_plural(n, 'question')} "
            f"{'it' if len(ranked) == 1 else 'they'} set out to answer"
        )
        if ranked.interval.iloc[0] == T_OVER_QUESTIONS:
            how = (
                f"low-high: {level:.0%} Student t over those questions (a percentile bootstrap is too narrow below "
                f"{SMALL_N}); no rank intervals below {SMALL_N} questions; group letters: paired t intervals"
            )
        else:
            how = (
                f"low-high and rank_low-rank_high: {level:.0%} percentile bootstrap over those questions ({reps:,} "
                "resamples, the same for every run)"
            )
        parts.append(f"{over}; {how}; runs sharing a group letter are not separated (paired difference's interval "
                     f"includes 0, each pair at {level:.0%}, uncorrected)")  # fmt: skip
    if len(own):
        parts.append(
            f"{len(own):,} run{'s' if len(own) != 1 else ''} set out to answer other questions (basis: own questions, "
            "not ranked): each is scored on its own questions, as `score` scores it, with its own interval, and not "
            "ranked, since a rank over different questions mixes the models with the questions' difficulty; "
            "--common ranks every run on the questions all set out to answer"
        )
    if len(unscored):
        parts.append(
            f"{_plural(len(unscored), 'run')} with no score (basis: {NO_SCORE}): no answer parsed on "
            f"{'its' if len(unscored) == 1 else 'their'} questions, so no score, interval, rank or group"
        )
    return "; ".join(parts)


def _engine(run: EqBenchRun) -> str | None:
    engine = run.header.inference_engine
    if engine:
        return str(engine)
    return "llama.cpp (bundled)" if run.header.local_model else None
