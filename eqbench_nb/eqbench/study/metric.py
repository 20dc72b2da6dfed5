"""How the EQ-Bench v2 metric behaves: baselines, the adjustment constant, parse failures.

Small pure functions; every scoring rule comes from :mod:`eqbench_nb.eqbench.scoring` and every run
convention from :mod:`eqbench_nb.eqbench.conventions`. Scores are in *run units* (10 x the
mean question score) unless a name says otherwise.

A v2 question score is ``10 - c * T`` where ``T = sum_e f(|answer_e - reference_e|)`` is the
question's *tally* and ``c`` the adjustment constant (upstream: :data:`~eqbench_nb.eqbench.scoring.ADJUST_CONST`
= 0.7477, "chosen such that answering randomly produces a score of zero"). Because the score is
linear in the tally, expectations over random answers are exact sums over the 11 possible
ratings of each emotion; no simulation is needed (simulations are offered to check them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...analysis import nulls
from ...analysis.stats import NO_LINEAGES, Interval, bootstrap_counts, lineage_units, percentile_interval
from ...runner.header import RunHeader
from ..conventions import CONVENTIONS, revised_pass_used, score_run
from ..header import EqBenchHeader
from ..parsing import Ratings
from ..questions import Question
from ..runs import EqBenchRun, RunRecord, score_record
from ..scoring import ADJUST_CONST, fullscale_penalty, score_question, score_v1

RATINGS = np.arange(11)  # the possible integer answers 0..10


# ---------------------------------------------------------------- the penalty


def penalty_curve(d: Sequence[float] | np.ndarray) -> np.ndarray:
    """f(d) for an array of absolute errors (vectorised :func:`~eqbench_nb.eqbench.scoring.fullscale_penalty`)."""
    return np.array([fullscale_penalty(x) for x in np.ravel(d)], dtype=float).reshape(np.shape(d))


_PENALTY_TABLE = penalty_curve(np.arange(11))  # f(0..10), for integer errors


def question_tally(answer: dict[str, float], question: Question) -> float | None:
    """T = sum f(d) of one answer, read back from :func:`score_question` (None if unparseable)."""
    s = score_question(answer, question, "v2")
    return None if s is None else (10.0 - s) / ADJUST_CONST


def rescale(score: float | np.ndarray, const: float, from_const: float = ADJUST_CONST):
    """A v2 question score recomputed with another constant: ``10 - const * T``."""
    tally = (10.0 - np.asarray(score, dtype=float)) / from_const
    return 10.0 - const * tally


def references(questions: Iterable[Question]) -> np.ndarray:
    """The fullscale keys as an array (questions x 4)."""
    return np.array([[q.reference[e] for e in q.emotions] for q in questions], dtype=float)


# ---------------------------------------------------------------- answer distributions


def uniform_probs(ref: np.ndarray) -> np.ndarray:
    """P(answer = k), k = 0..10, for uniform random integer answers (shape ref.shape + (11,))."""
    return np.full(np.shape(ref) + (11,), 1 / 11)


def constant_probs(ref: np.ndarray, k: int) -> np.ndarray:
    """P(answer = j) for the constant answer k (a point mass)."""
    p = np.zeros(np.shape(ref) + (11,))
    p[..., int(k)] = 1.0
    return p


def noisy_probs(ref: np.ndarray, sd: float) -> np.ndarray:
    """P(answer = j) for answer = clip(round(reference + N(0, sd)), 0, 10), exactly, for a reference of any shape.

    The clipped-noise null of :func:`eqbench_nb.analysis.nulls.rating_probabilities` (its one source);
    sd = 0 gives the reference itself.
    """
    ref = np.asarray(ref, dtype=float)
    return nulls.rating_probabilities(ref.ravel(), sd).reshape(ref.shape + (len(RATINGS),))


def expected_tallies(questions: Sequence[Question], probs: np.ndarray) -> np.ndarray:
    """E[T] per question, for answer probabilities ``probs`` (questions x 4 x 11)."""
    ref = references(questions)
    d = np.abs(RATINGS[None, None, :] - ref[..., None]).astype(int)
    return (probs * _PENALTY_TABLE[d]).sum(axis=(1, 2))


def expected_run_score(questions: Sequence[Question], probs: np.ndarray, const: float = ADJUST_CONST) -> float:
    """Exact expected run score (10 x mean question score) when each emotion's answer follows ``probs``."""
    return float(10 * np.mean(10.0 - const * expected_tallies(questions, probs)))


# ---------------------------------------------------------------- baselines


def expected_random_score(questions: Sequence[Question], const: float = ADJUST_CONST) -> float:
    """Exact expected run score of uniform random integer answers 0..10."""
    return expected_run_score(questions, uniform_probs(references(questions)), const)


def zero_random_constant(questions: Sequence[Question]) -> float:
    """The constant c that makes uniform random answers score exactly 0 on these questions."""
    return float(10.0 / np.mean(expected_tallies(questions, uniform_probs(references(questions)))))


def constant_answer_scores(
    questions: Sequence[Question], values: Iterable[int] = range(11), scale: str = "v2"
) -> pd.DataFrame:
    """Run score of answering the same number k for every emotion of every question.

    Computed with :func:`score_question` on ``scale`` ("v2" fullscale, or "v1" normalised, where
    every k > 0 gives the same normalised answer and k = 0 is unparseable: NaN) question by
    question (no shortcut). Columns: k, score.
    """
    rows = []
    for k in values:
        s = [score_question({e: k for e in q.emotions}, q, scale) for q in questions]
        rows.append({"k": int(k), "score": 10 * float(np.mean(np.asarray(s, dtype=float)))})
    return pd.DataFrame(rows)


def simulate_run_scores(
    questions: Sequence[Question],
    kind: str = "random",
    sd: float = 1.0,
    n_runs: int = 1000,
    seed: int = 0,
    const: float = ADJUST_CONST,
) -> np.ndarray:
    """Run scores (10 x mean question score) of ``n_runs`` simulated runs over ``questions``.

    ``kind`` "random": uniform integer answers 0..10; "noisy": clip(round(reference + N(0, sd))).
    Vectorised with the same f table as :func:`expected_tallies`; use it to check the exact
    expectations and to see the spread of one run's score.
    """
    rng = np.random.default_rng(seed)
    ref = references(questions)
    if kind == "random":
        ans = rng.integers(0, 11, size=(n_runs,) + ref.shape)
    elif kind == "noisy":
        ans = np.clip(np.rint(ref + rng.normal(0.0, sd, size=(n_runs,) + ref.shape)), 0, 10).astype(int)
    else:
        raise ValueError(f"kind must be 'random' or 'noisy', not {kind!r}")
    tally = _PENALTY_TABLE[np.abs(ans - ref.astype(int))].sum(axis=2)
    return 10 * (10.0 - const * tally).mean(axis=1)


def noisy_answer_scores(
    questions: Sequence[Question], sds: Iterable[float], const: float = ADJUST_CONST, n_runs: int = 0, seed: int = 0
) -> pd.DataFrame:
    """Expected run score of reference + noise (SD ``sd``, rounded, clipped) for each sd.

    Columns: sd, expected (exact), and with ``n_runs`` > 0 also sim_mean, sim_lo, sim_hi (the
    2.5 and 97.5 percentiles of single-run scores).
    """
    ref = references(questions)
    rows = []
    for i, sd in enumerate(sds):
        row = {"sd": float(sd), "expected": expected_run_score(questions, noisy_probs(ref, float(sd)), const)}
        if n_runs:
            sims = simulate_run_scores(questions, "noisy", float(sd), n_runs, seed + i, const)
            lo, hi = percentile_interval(sims)  # simulated runs, not resampled units: no small-n rule
            row |= {"sim_mean": sims.mean(), "sim_lo": float(lo), "sim_hi": float(hi)}
        rows.append(row)
    return pd.DataFrame(rows)


def constant_choices(low: float = 0.70, high: float = 0.80, step: float = 0.0025) -> list[tuple[str, float]]:
    """The values of notebook 06's teaching slider for the constant c, as (label, value) pairs: a grid from ``low`` to
    ``high`` by ``step``, rounded to 4 decimals (no 0.7474999999999999), with the official :data:`ADJUST_CONST`
    (0.7477) itself among them, each labelled with 4 decimals (so "0.7477" is not shown as "0.75")."""
    steps = round((high - low) / step)
    grid = {round(low + i * step, 4) for i in range(steps + 1)} | {ADJUST_CONST}
    return [(f"{c:.4f}", c) for c in sorted(grid)]


def random_score_by_constant(questions: Sequence[Question], consts: Iterable[float]) -> pd.DataFrame:
    """Expected random-answer run score for each constant c (linear in c)."""
    return pd.DataFrame({"const": list(consts)}).assign(
        expected=lambda df: [expected_random_score(questions, c) for c in df["const"]]
    )


# ---------------------------------------------------------------- parse failures and conventions


def synthetic_run(
    questions: Sequence[Question],
    failure_rate: float = 0.0,
    sd: float = 0.0,
    seed: int = 0,
    model: str = "synthetic",
    answers: Sequence[dict[str, float]] | None = None,
    fail_order: Sequence[int] | None = None,
) -> EqBenchRun:
    """A one-iteration v2 :class:`EqBenchRun` with a chosen share of unparseable answers.

    Parseable answers are ``answers`` (one dict per question) when given, otherwise the
    reference plus rounded, clipped noise of SD ``sd`` (seeded). ``round(failure_rate * n)``
    questions get an empty answer (what a parser returns for text without the four emotions):
    drawn at random with the seed, or, with ``fail_order`` (question positions), the first ones
    of that order (e.g. :func:`hardest_first`: a model that fails where it does worst). The noise
    does not depend on which questions fail. Records carry no raw text, so every convention
    scores the stored answers.
    """
    return _SyntheticModel.draw(questions, sd, seed, model, answers, fail_order).run(failure_rate)


@dataclass(frozen=True)
class _SyntheticModel:
    """What :func:`synthetic_run` draws that does not depend on the failure rate: the order in which questions fail
    and each question's answer, scored. :func:`parse_failure_sweep` draws and scores them once for all its rates
    (scoring the same answers again at every rate was most of notebook 06's sweeps)."""

    questions: Sequence[Question]
    model: str
    order: np.ndarray  # question positions, the first ``round(rate * n)`` fail
    answered: list[RunRecord]  # per question: its parseable answer, scored as at rate 0

    @classmethod
    def draw(
        cls,
        questions: Sequence[Question],
        sd: float,
        seed: int,
        model: str,
        answers: Sequence[dict[str, float]] | None,
        fail_order: Sequence[int] | None,
    ) -> _SyntheticModel:
        rng = np.random.default_rng(seed)
        n = len(questions)
        order = rng.permutation(n)  # drawn even when fail_order is given, so the noise below is the same
        if fail_order is not None:
            order = np.asarray(fail_order, dtype=int)
        noise = rng.normal(0.0, sd, size=(n, 4)) if sd else np.zeros((n, 4))
        if answers is None:  # reference + noise, rounded and clipped: the same operations on the whole array at once
            noisy = np.clip(np.rint(np.array([[q.reference[e] for e in q.emotions] for q in questions]) + noise), 0, 10)
        answered = []
        for i, q in enumerate(questions):
            answer: Ratings
            if answers is not None:
                answer = {e: float(v) for e, v in answers[i].items()}
            else:
                answer = {e: float(noisy[i, j]) for j, e in enumerate(q.emotions)}
            answered.append(score_record(RunRecord(model, "", 1, q.id, first_pass=answer), q))
        return cls(questions, model, order, answered)

    def run(self, failure_rate: float) -> EqBenchRun:
        """The run that fails the first ``round(failure_rate * n)`` questions of the order: every record its own
        object (a caller may change one), the others' scores copied, as scoring them again gives."""
        n = len(self.questions)
        run_id = f"fail{failure_rate:.3f}"
        failed = set(self.order[: round(failure_rate * n)].tolist())
        records = []
        for i, q in enumerate(self.questions):
            if i in failed:
                records.append(score_record(RunRecord(self.model, run_id, 1, q.id, first_pass={}), q))
            else:
                kept = self.answered[i]
                records.append(
                    RunRecord(
                        self.model,
                        run_id,
                        1,
                        q.id,
                        first_pass=dict(kept.first_pass),
                        first_pass_score=kept.first_pass_score,
                        revised_score=kept.revised_score,
                    )
                )
        header = {
            "model": self.model,
            "run_id": run_id,
            "version": "v2",
            "revise": False,
            "n_questions": n,
            "iterations": 1,
            "protocol": "synthetic",
        }
        return EqBenchRun(RunHeader.read(header, EqBenchHeader), records)


def parse_failure_sweep(
    questions: Sequence[Question],
    rates: Iterable[float],
    sd: float = 0.0,
    seed: int = 0,
    answers: Sequence[dict[str, float]] | None = None,
    fail_order: Sequence[int] | None = None,
) -> pd.DataFrame:
    """Score the same synthetic model under every convention as the parse-failure rate grows.

    The same seed is used at every rate, so a run's failed set grows with the rate (the
    permutation, or ``fail_order``, is shared) and the parseable answers stay the same.
    Columns: rate, convention, score (as that convention reports it), score_100 (evalscope x 100,
    for one axis), parseable, failed (official flag: < 83.33 % parseable).
    """
    drawn = _SyntheticModel.draw(questions, sd, seed, "synthetic", answers, fail_order)  # once, for every rate
    rows = []
    for rate in rates:
        run = drawn.run(rate)
        for conv in CONVENTIONS:
            rs = score_run(run, conv)
            rows.append(
                {
                    "rate": float(rate),
                    "convention": conv,
                    "score": rs.score,
                    "score_100": rs.score * (100 if conv == "evalscope" else 1),
                    "parseable": rs.n_parseable,
                    "failed": rs.failed,
                }
            )
    return pd.DataFrame(rows)


def convention_scores(run: EqBenchRun) -> dict[str, float]:
    """{convention: score} for one run."""
    return {conv: score_run(run, conv).score for conv in CONVENTIONS}


# ---------------------------------------------------------------- which questions fail: random or hardest


def hardest_first(run: EqBenchRun) -> list[int]:
    """Positions of a run's questions (in record order), lowest first-pass score first.

    Used as ``fail_order``: a model whose parse failures fall on the questions it does worst on.
    Unparseable questions come last; ties keep record order.
    """
    s = np.array([np.nan if r.first_pass_score is None else r.first_pass_score for r in run.records], dtype=float)
    return np.argsort(np.where(np.isfinite(s), s, np.inf), kind="stable").tolist()


def failure_mechanism_sweep(
    questions: Sequence[Question], rates: Iterable[float], sd: float = 0.0, seed: int = 0
) -> pd.DataFrame:
    """:func:`parse_failure_sweep` of one synthetic model (reference + noise ``sd``) under two mechanisms.

    ``mechanism`` "random": the failing questions are drawn at random; "hardest": they are the
    model's own lowest-scoring questions (:func:`hardest_first` of its run with no failures). The
    parseable answers are the same in both.
    """
    order = hardest_first(synthetic_run(questions, 0.0, sd, seed))
    rates = list(rates)
    return pd.concat(
        [
            parse_failure_sweep(questions, rates, sd, seed).assign(mechanism="random"),
            parse_failure_sweep(questions, rates, sd, seed, fail_order=order).assign(mechanism="hardest"),
        ],
        ignore_index=True,
    )


def sweep_band(sweeps: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """The central ``level`` range of a simulated sweep's scores over its seeds, per convention and failure rate:
    ``sweeps`` holds :func:`parse_failure_sweep` rows of several seeds (a ``seed`` column). Columns: convention,
    rate, low, high, seeds."""
    g = sweeps.groupby(["convention", "rate"], sort=False)["score_100"]
    bands = g.agg(lambda s: percentile_interval(s.to_numpy(), level))  # seeds of a simulation: no small-n rule
    return pd.DataFrame(
        {"low": bands.map(lambda b: float(b[0])), "high": bands.map(lambda b: float(b[1])), "seeds": g.size()}
    ).reset_index()


def hardest_failures_by_seed(
    questions: Sequence[Question], rate: float, sd: float, seeds: Iterable[int]
) -> pd.DataFrame:
    """Each convention's score (score_100) of a synthetic model (reference + noise ``sd``) that fails its hardest
    ``rate`` of questions, one row per seed: the repeats that give the Monte-Carlo error of one seed's number."""
    rows = []
    for seed in seeds:
        order = hardest_first(synthetic_run(questions, 0.0, sd, seed))
        sweep = parse_failure_sweep(questions, [rate], sd, seed, fail_order=order)
        rows.append({"seed": seed, **dict(zip(sweep["convention"], sweep["score_100"]))})
    return pd.DataFrame(rows)


def question_failures(matrix: pd.DataFrame) -> pd.DataFrame:
    """Per question of a runs x questions score matrix (NaN = unparseable): how many runs fail it, how hard it is.

    Columns: runs (with the question in the matrix), failed (runs in which it is unparseable),
    difficulty (run units, 10 x the mean score of the runs that parsed it; lower = harder).
    """
    m = np.asarray(matrix, dtype=float)
    ok = np.isfinite(m)
    with np.errstate(invalid="ignore", divide="ignore"):
        difficulty = 10 * np.where(ok, m, 0.0).sum(axis=0) / ok.sum(axis=0)
    return pd.DataFrame(
        {"runs": m.shape[0], "failed": (~ok).sum(axis=0), "difficulty": difficulty},
        index=matrix.columns if isinstance(matrix, pd.DataFrame) else None,
    )


def failed_question_difficulty(matrix: pd.DataFrame) -> pd.DataFrame:
    """For each run with unparseable answers: how hard its failed questions are for the *other* runs.

    ``matrix`` is runs x questions of official question scores (NaN = unparseable). A question's
    difficulty for run i is 10 x its mean score over the other runs that parsed it (leave-one-out,
    so a run's own answers never enter). Columns: run (the row label), failed (count),
    difficulty_failed and difficulty_parsed (the mean difficulty of the run's failed and of its
    parsed questions), difference (failed - parsed: negative when a run fails on questions the
    other runs find harder).
    """
    m = np.asarray(matrix, dtype=float)
    ok = np.isfinite(m)
    total = np.where(ok, m, 0.0).sum(axis=0)
    count = ok.sum(axis=0)
    labels = list(matrix.index) if isinstance(matrix, pd.DataFrame) else list(range(m.shape[0]))
    rows = []
    for i in range(m.shape[0]):
        failed = ~ok[i]
        if not failed.any():
            continue
        others_total = total - np.where(ok[i], m[i], 0.0)
        others_count = count - ok[i]
        with np.errstate(invalid="ignore", divide="ignore"):
            loo = 10 * others_total / others_count  # NaN where no other run parsed the question
        rows.append(
            {
                "run": labels[i],
                "failed": int(failed.sum()),
                "difficulty_failed": float(np.nanmean(loo[failed])) if np.isfinite(loo[failed]).any() else np.nan,
                "difficulty_parsed": float(np.nanmean(loo[~failed])) if np.isfinite(loo[~failed]).any() else np.nan,
            }
        )
    out = pd.DataFrame(rows, columns=["run", "failed", "difficulty_failed", "difficulty_parsed"])
    out["difference"] = out["difficulty_failed"] - out["difficulty_parsed"]
    return out


def failed_difficulty_verdict(low: float, high: float) -> str:
    """From the interval of (difficulty of failed - of parsed questions) over runs, against the null of
    *failures unrelated to difficulty* (difference 0): "harder", "easier" or "neither"."""
    if high < 0:
        return "harder"
    if low > 0:
        return "easier"
    return "neither"


# ---------------------------------------------------------------- v1 against v2


def answers_from_table(table: pd.DataFrame) -> pd.DataFrame:
    """One row per answered question of the run table with its answer as a dict.

    Columns: model, run_id, iteration, question_id, answer (emotion -> rating), v2 (the question
    score the table holds).
    """
    keys = ["model", "run_id", "iteration", "question_id"]
    # groupby(keys, sort=True)'s groups, without a sub-frame per group (86 runs have 14,600): the rows sorted by
    # the keys, stably so that each group keeps its rows' order, and cut where a key changes; NaN keys left out
    t = table.dropna(subset=keys).sort_values(keys, kind="stable")
    cols = [t[k].to_numpy() for k in keys]
    changed = np.any([c[1:] != c[:-1] for c in cols], axis=0) if len(t) > 1 else np.zeros(0, dtype=bool)
    starts = np.flatnonzero(np.r_[len(t) > 0, changed]).tolist()
    emotions, answers, scores = t["emotion"].tolist(), t["answer"].tolist(), t["question_score"].tolist()
    rows = [
        (*(c[s] for c in cols), dict(zip(emotions[s:e], answers[s:e])), float(scores[s]))
        for s, e in zip(starts, [*starts[1:], len(t)])
    ]
    return pd.DataFrame(rows, columns=keys + ["answer", "v2"])


def v1_v2_question_scores(table: pd.DataFrame, questions: dict[str, Question]) -> pd.DataFrame:
    """Each answered question scored both ways: v2 (fullscale key) and v1 (normalised key).

    v1 rescales the answer to sum 10, so it returns None (NaN here) for an all-zero answer.
    """
    a = answers_from_table(table)
    a["v1"] = [score_question(ans, questions[qid], "v1") for ans, qid in zip(a["answer"], a["question_id"])]
    a["v1"] = a["v1"].astype(float)
    return a


def v1_v2_run_scores(question_scores: pd.DataFrame) -> pd.DataFrame:
    """Per model: 10 x mean v2 and 10 x mean v1 question score (each over its own parseable answers)."""
    g = question_scores.groupby("model")
    return pd.DataFrame(
        {"v2": g["v2"].mean() * 10, "v1": g["v1"].mean() * 10, "n_v2": g["v2"].count(), "n_v1": g["v1"].count()}
    ).reset_index()


V1_QUESTION_RANGE = (-10.0, 10.0)  # 10 - sum |u_e - ref_e| with u and ref each summing to 10: sum <= 20


def _all_v1_answers() -> np.ndarray:
    """Every answer of four integer ratings 0..10 except all-zero (11**4 - 1 rows), normalised to sum 10."""
    grid = np.stack(np.meshgrid(RATINGS, RATINGS, RATINGS, RATINGS, indexing="ij"), axis=-1).reshape(-1, 4)
    grid = grid[grid.sum(1) > 0].astype(float)
    return grid / grid.sum(1, keepdims=True) * 10.0


def exact_random_v1_question_scores(questions: Sequence[Question]) -> np.ndarray:
    """Exact expected v1 question score of uniform random integer answers, one per question.

    Enumerates all 11**4 answers of each question (14,641; the all-zero answer is unparseable under
    v1 and left out, as the official pipeline retries it), so no simulation is involved.
    """
    u = _all_v1_answers()
    out = []
    for q in questions:
        ref = np.array([q.reference_normalised[e] for e in q.emotions], dtype=float)
        out.append(float(np.mean(10.0 - np.abs(u - ref).sum(1))))
    return np.array(out)


def expected_random_v1_score(questions: Sequence[Question], n_answers: int | None = None, seed: int = 0) -> float:
    """Run score (run units: 10 x mean question score, -100 to 100) of uniform random integer answers under v1.

    Exact by default (:func:`exact_random_v1_question_scores`). With ``n_answers`` it is instead
    the mean of that many seeded random answers per question, scored with :func:`score_v1` (a
    check on the enumeration). All-zero answers are unparseable under v1 and left out, as the
    official convention does.
    """
    if n_answers is None:
        return 10 * float(np.mean(exact_random_v1_question_scores(questions)))
    rng = np.random.default_rng(seed)
    scores = []
    for q in questions:
        ref = q.reference_normalised
        for a in rng.integers(0, 11, size=(n_answers, 4)):
            s = score_v1(dict(zip(q.emotions, a.tolist())), ref)
            if s is not None:
                scores.append(s)
    return 10 * float(np.mean(scores))


# ---------------------------------------------------------------- the clipped-noise null (compression)
#
# A model that rates every emotion as reference + symmetric noise, rounded to a whole number and
# clipped to 0..10, has *no* compression in its intent; clipping alone still pulls the mean rating
# toward the middle at both ends (at reference 0 every error is >= 0), so the least-squares slope
# of rating on reference falls below 1. The lead should unify this with
# ``analysis.nulls.clipped_noise_null`` (issue 21, notebook 05) when merging: the model is the same.

NULL_SD_GRID = np.round(np.arange(0.05, 8.0001, 0.005), 3)


def clipped_noise_moments(sds: Sequence[float] | np.ndarray) -> dict[str, np.ndarray]:
    """Per reference value v = 0..10 and noise SD s: E[answer], E|answer - v| and P(answer = v).

    The clipped-noise null of :mod:`eqbench_nb.analysis.nulls`, on the grid of SDs the compression
    fit searches. Arrays of shape (len(sds), 11).
    """
    sds = np.ravel(sds)
    return {
        "mean": np.stack([nulls.expected_rating(RATINGS, float(s)) for s in sds]),
        "abs_error": np.stack([nulls.expected_abs_error(RATINGS, float(s)) for s in sds]),
        "exact": np.stack([np.diagonal(nulls.rating_probabilities(RATINGS, float(s))) for s in sds]),
    }


def _ls_slope(counts: np.ndarray, sums: np.ndarray) -> np.ndarray:
    """Least-squares slope of rating on reference from per-reference-value counts and rating sums."""
    n = counts.sum(-1)
    sr = counts @ RATINGS
    srr = counts @ (RATINGS**2)
    sa = sums.sum(-1)
    sra = sums @ RATINGS
    return (n * sra - sr * sa) / (n * srr - sr**2)


@dataclass(frozen=True)
class CompressionNull:
    """The observed slope of rating on reference against the slope clipping alone would give."""

    observed: Interval  # least-squares slope of the ratings
    null: Interval  # expected slope under the clipped-noise null, noise SD fitted to the observed MAE
    difference: Interval  # observed - null
    noise_sd: float  # the fitted SD of the Gaussian noise before rounding and clipping
    mae: float  # observed mean absolute error (what the noise SD is fitted to)
    exact_observed: float  # share of ratings equal to the reference
    exact_null: float  # the same under the null (a check of the noise model, not fitted; a weak one)
    n_ratings: int
    verdict: str  # :func:`compression_verdict`
    ratio: Interval  # observed / null slope, the same resamples
    key_floor: nulls.KeyErrorNull  # the lowest ratio independent key error can give (nulls.key_error_floor)

    noise_model = (
        "rating = clip(round(reference + N(0, s²)), 0, 10), s fitted so the expected mean absolute error "
        "equals the observed one, on the observed references"
    )


def compression_verdict(
    low: float, high: float, ratio_high: float | None = None, key_floor: float | None = None
) -> str:
    """From the interval of observed - null slope: is there compression relative to the key beyond what clipping
    does, and beyond what independent errors in the key could produce?

    * ``"compressed beyond clipping and independent key error"``: the difference lies below 0 and the upper end of
      the observed / null ratio (``ratio_high``) lies below ``key_floor`` (:func:`~eqbench_nb.analysis.nulls.
      key_error_floor`): neither clipping nor a key with independent errors produces it. A key whose own ratings are
      more extreme than the truth still could; the data cannot tell that from raters who compress;
    * ``"compressed beyond clipping, or key error"``: the difference lies below 0 but independent key error could
      produce the ratio (or no floor was given);
    * ``"less compressed than clipped noise"`` / ``"not distinguishable from clipped noise"``.
    """
    if high < 0:
        if ratio_high is not None and key_floor is not None and ratio_high < key_floor:
            return "compressed beyond clipping and independent key error"
        return "compressed beyond clipping, or key error"
    if low > 0:
        return "less compressed than clipped noise"
    return "not distinguishable from clipped noise"


def _null_at(mae_target: np.ndarray, mae_grid: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the fitted SD where ``mae_grid`` (rows x grid, increasing) reaches ``mae_target``, and
    ``values`` (rows x grid) interpolated there."""
    idx = np.clip((mae_grid < mae_target[:, None]).sum(1), 1, mae_grid.shape[1] - 1)
    rows = np.arange(len(idx))
    lo, hi = mae_grid[rows, idx - 1], mae_grid[rows, idx]
    w = np.clip((mae_target - lo) / (hi - lo), 0.0, 1.0)
    sd = NULL_SD_GRID[idx - 1] + w * (NULL_SD_GRID[idx] - NULL_SD_GRID[idx - 1])
    return sd, values[rows, idx - 1] + w * (values[rows, idx] - values[rows, idx - 1])


def compression_null_slope(
    table: pd.DataFrame,
    cluster: Sequence[str] = ("model", "run_id"),
    reps: int = 2000,
    level: float = 0.95,
    seed: int | None = 0,
    *,
    lineages: object = None,
) -> CompressionNull:
    """Observed slope of rating on reference against the **clipped-noise null** (no compression intended).

    ``table`` has integer ``reference`` and ``answer`` columns (the run table; a rating above 10,
    which the parser lets through and the null cannot produce, is kept as given). Intervals are
    percentile bootstraps over the models' **lineages** (``lineages``: a map model → lineage,
    :func:`~eqbench_nb.eqbench.study.published.lineage_map`; refused without one,
    :func:`~eqbench_nb.analysis.stats.lineage_units`), or over the ``cluster`` units (runs) under
    ``lineages=NO_LINEAGES``, and the null is refitted in every resample (its SD to that resample's mean absolute
    error), so the null's interval carries the uncertainty of the fit. The null's expected slope is exact given
    the references (least squares is linear in the ratings).
    """
    ref = table["reference"].to_numpy().astype(int)
    ans = table["answer"].to_numpy(dtype=float)
    if (ans < 0).any() or np.any(ans != np.round(ans)):
        raise ValueError("ratings must be whole numbers >= 0 for the clipped-noise null")
    if lineages is NO_LINEAGES:
        groups = table.groupby(list(cluster), sort=False).ngroup().to_numpy()
    else:
        units = lineage_units(table["model"], lineages, "compression_null_slope")
        groups = pd.Series(units).astype("category").cat.codes.to_numpy()
    g = int(groups.max()) + 1
    counts = np.zeros((g, 11))
    sums = np.zeros((g, 11))
    abs_err = np.zeros((g, 11))
    exact = np.zeros((g, 11))
    np.add.at(counts, (groups, ref), 1.0)
    np.add.at(sums, (groups, ref), ans)
    np.add.at(abs_err, (groups, ref), np.abs(ans - ref))
    np.add.at(exact, (groups, ref), (ans == ref).astype(float))

    w = np.vstack([np.ones((1, g)), bootstrap_counts(g, reps, seed).astype(float)])  # row 0: the data
    c, s_, e_ = w @ counts, w @ sums, w @ abs_err
    mae = e_.sum(1) / c.sum(1)
    observed = _ls_slope(c, s_)
    mom = clipped_noise_moments(NULL_SD_GRID)
    n = c.sum(1, keepdims=True)
    mae_grid = (c @ mom["abs_error"].T) / n
    null_grid = np.stack([_ls_slope(c, c * mom["mean"][j]) for j in range(len(NULL_SD_GRID))], axis=1)
    sd, null = _null_at(mae, mae_grid, null_grid)
    _, exact_null = _null_at(mae[:1], mae_grid[:1], (c[:1] @ mom["exact"].T) / n[:1])
    diff = observed - null

    def interval(x: np.ndarray) -> Interval:
        lo, hi = percentile_interval(x[1:], level)
        return Interval(float(x[0]), float(lo), float(hi), g)

    d = interval(diff)
    ratio = interval(observed / null)
    floor = nulls.key_error_floor(ref, float(mae[0]))
    return CompressionNull(
        observed=interval(observed),
        null=interval(null),
        difference=d,
        noise_sd=float(sd[0]),
        mae=float(mae[0]),
        exact_observed=float(exact.sum() / counts.sum()),
        exact_null=float(exact_null[0]),
        n_ratings=int(counts.sum()),
        verdict=compression_verdict(d.low, d.high, ratio.high, floor.ratio),
        ratio=ratio,
        key_floor=floor,
    )


def mean_rating_by_reference(table: pd.DataFrame, noise_sd: float) -> pd.DataFrame:
    """Per reference value: ratings, observed mean rating, and the clipped-noise null's mean at ``noise_sd``."""
    obs = table.groupby("reference")["answer"].agg(["size", "mean"]).rename(columns={"size": "n", "mean": "observed"})
    null = clipped_noise_moments([noise_sd])["mean"][0]
    obs["null"] = null[obs.index.to_numpy().astype(int)]
    return obs.reset_index()


# ---------------------------------------------------------------- systematic shift against noise


def shift_probs(ref: np.ndarray, shift: int) -> np.ndarray:
    """P(answer = j) for answer = clip(reference + shift, 0, 10) (a systematic bias, no noise)."""
    p = np.zeros(np.shape(ref) + (11,))
    k = np.clip(np.asarray(ref, dtype=int) + int(shift), 0, 10)
    np.put_along_axis(p, k[..., None], 1.0, axis=-1)
    return p


def _expected_abs_error(ref: np.ndarray, probs: np.ndarray) -> float:
    return float((probs * np.abs(RATINGS - ref[..., None])).sum(-1).mean())


def shift_against_noise(questions: Sequence[Question], shifts: Iterable[int] = (1, 2, 3)) -> pd.DataFrame:
    """What a systematic shift costs against noise of the same mean absolute error, exactly.

    For each shift b (answers clip(reference ± b), every emotion moved the same way): its mean
    absolute error and expected run score, and the run score of reference + rounded, clipped
    Gaussian noise whose SD gives the same mean absolute error. Columns: shift, abs_error,
    shift_score, noise_sd, noise_score.
    """
    from scipy.optimize import brentq

    ref = references(questions)
    rows = []
    for b in shifts:
        probs = shift_probs(ref, b)
        mae = _expected_abs_error(ref, probs)
        sd = brentq(lambda s, target=mae: _expected_abs_error(ref, noisy_probs(ref, s)) - target, 0.05, 20)
        rows.append(
            {
                "shift": int(b),
                "abs_error": mae,
                "shift_score": expected_run_score(questions, probs),
                "noise_sd": sd,
                "noise_score": expected_run_score(questions, noisy_probs(ref, sd)),
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- the distribution of question scores


def question_score_tail(scores) -> dict[str, float]:
    """How heavy the negative tail of question scores is (v2: range -19.908..10).

    ``scores``: question scores (NaN ignored). Returns n, median, mean, share_below_0,
    share_below_minus5, p01 (1st percentile), min, and worst_decile_loss_share: the share of the
    total loss (sum of 10 - score) carried by the 10 % worst question scores.
    """
    s = np.asarray(scores, dtype=float)
    s = np.sort(s[np.isfinite(s)])
    loss = 10.0 - s
    k = max(1, round(0.1 * len(s)))
    return {
        "n": float(len(s)),
        "median": float(np.median(s)),
        "mean": float(s.mean()),
        "share_below_0": float((s < 0).mean()),
        "share_below_minus5": float((s < -5).mean()),
        "p01": float(np.quantile(s, 0.01)),
        "min": float(s[0]),
        "worst_decile_loss_share": float(loss[:k].sum() / loss.sum()),
    }


# ---------------------------------------------------------------- revision: the better of two passes


def best_of_two(runs: Iterable[EqBenchRun]) -> pd.DataFrame:
    """What scoring a revision run with the better of its two passes does to its score.

    Per run with revision (and a revised pass): ``first_pass`` and ``revised`` (10 x mean over each
    pass's parseable answers), ``official`` (:func:`score_run`, the better pass where the revised one
    parses >= 95 % as many), ``share_revised_used`` (iterations scored with the revised pass),
    ``lift`` = official - first pass (what revising and keeping the better pass add; never < 0 but
    for rounding), and ``null_lift``: what picking the larger of two passes of *equal* expected
    score adds by itself, ``se x phi(0)``
    (``se`` the standard error of the difference of the two pass scores, from the paired question
    differences), i.e. E[max(0, D)] for D ~ N(0, se²).
    """
    from scipy import stats  # here: the plots import this module, and scipy.stats costs 0.4 s

    rows = []
    for run in runs:
        if not run.revise:
            continue
        pairs = [(r.first_pass_score, r.revised_score) for r in run.records]
        f = [a for a, _ in pairs if a is not None]
        v = [b for _, b in pairs if b is not None]
        both = np.array([(a, b) for a, b in pairs if a is not None and b is not None], dtype=float)
        if not v or len(both) < 2:
            continue
        first, revised = 10 * float(np.mean(f)), 10 * float(np.mean(v))
        se = 10 * float(np.std(both[:, 1] - both[:, 0], ddof=1) / np.sqrt(len(both)))
        official = score_run(run, "official").score
        rows.append(
            {
                "model": run.model,
                "first_pass": first,
                "revised": revised,
                "official": official,
                "share_revised_used": float(np.mean(list(revised_pass_used(run).values()))),
                "lift": official - first,
                "se_difference": se,
                "null_lift": se * stats.norm.pdf(0.0),
            }
        )
    return pd.DataFrame(rows)
