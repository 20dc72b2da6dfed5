"""Aggregating a run into one number, under the three conventions people publish.

| | official | lm-eval | evalscope |
|---|---|---|---|
| unparseable question | left out of the mean | counts 0 | counts 0 |
| per-question value | score_q | score_q | clamp(score_q / 10, 0, 1) |
| run score | 10 * mean (may be < 0; NaN if none parse) | 10 * mean | mean (0-1) |
| answers read with | the run's parser (its protocol's) | v2.3 expression, whole text | v2.4's, whole text |
| names, ratings | the run's matching | exact | any case; 0-10 only |

Upstream: EQ-bench/EQ-Bench ``calculate_eq_bench_score`` (d28c60c), lm-evaluation-harness's
``eq_bench`` scorer, evalscope's EQ-Bench adapter. Official extras: with revision, an iteration uses
its revised pass when that pass's score is >= the first pass's and it has >= 95 % as many parseable
answers; the run score is the mean over iterations, rounded to 2 decimals; the run "fails" when fewer
than 83.33 % of questions parse. lm-eval and evalscope have no revision step: both read a revision
answer's whole text, a later value of a name replacing an earlier one (:func:`convention_reading`).

Rescoring stored runs takes their answers as stored. The 86 published result files hold all-zero first
passes that the v2.3 runner would have retried and, after the last attempt, not stored (an earlier
pipeline stored them); their published ``benchmark_score`` counts them, so rescoring counts them too
(the published scores are reproduced within 0.025 only that way). A run made by this project's runner
never stores one: its protocol makes the upstream runner's decisions (:mod:`.protocols`).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from .parsing import Ratings, parse_answer
from .questions import PASS_FRACTION, Question, run_questions, scale_for
from .runs import EqBenchRun, RunRecord
from .scoring import score_question

CONVENTIONS = ("official", "lm-eval", "evalscope")
#: The revised pass must keep at least this share of the first pass's parseable answers.
REVISED_MIN_PARSEABLE_RATIO = 0.95


@dataclass
class RunScore:
    """A run's headline numbers under one convention."""

    model: str
    run_id: str
    version: str
    convention: str
    score: float
    n_questions: int  # per iteration
    n_parseable: float  # per iteration (mean over iterations)
    failed: bool  # official failure flag: < 83.33 % parseable
    iteration_scores: list[float] = field(default_factory=list)
    used_revised: list[bool] = field(default_factory=list)

    @property
    def percent_parseable(self) -> float:
        return 100.0 * self.n_parseable / self.n_questions if self.n_questions else 0.0

    def as_row(self) -> dict:
        return {
            "model": self.model,
            "run_id": self.run_id,
            "version": self.version,
            "convention": self.convention,
            "iterations": max(1, len(self.iteration_scores)),
            "questions": self.n_questions,
            "parseable": round(self.n_parseable, 2),
            "score": self.score,
            "failed": self.failed,
        }


def records_by_iteration(run: EqBenchRun) -> dict[int, list[RunRecord]]:
    """A run's records grouped by iteration; every iteration of the header is a key, even if empty."""
    out: dict[int, list[RunRecord]] = {i: [] for i in run.iterations}
    for r in run.records:
        out.setdefault(r.iteration, []).append(r)
    return out


def revised_pass_used(run: EqBenchRun) -> dict[int, bool]:
    """For each iteration that has records: does the official rule score its revised pass?"""
    return {it: official_iteration_score(recs)[2] for it, recs in records_by_iteration(run).items() if recs}


def official_iteration_score(records: list[RunRecord]) -> tuple[float, int, bool]:
    """(score 0-100, parseable count, used revised pass) for one iteration, as upstream."""
    first = [r.first_pass_score for r in records if r.first_pass_score is not None]
    revised = [r.revised_score for r in records if r.revised_score is not None]
    score_first = 10 * statistics.fmean(first) if first else 0.0
    score_revised = 10 * statistics.fmean(revised) if revised else 0.0
    if score_revised >= score_first and len(revised) >= REVISED_MIN_PARSEABLE_RATIO * len(first):
        return score_revised, len(revised), True
    return score_first, len(first), False


def _score_official(run: EqBenchRun) -> RunScore:
    per_iteration = [official_iteration_score(recs) for recs in records_by_iteration(run).values()]
    scores = [s for s, _, _ in per_iteration]
    parseable = statistics.fmean(p for _, p, _ in per_iteration)
    n = run.n_questions
    # The official score is a mean over the parseable answers: with none in the whole run it is undefined
    # (NaN, printed "—"), not 0. An iteration with none among others that have some counts 0, as upstream.
    score = round(statistics.fmean(scores), 2) if parseable else float("nan")
    return RunScore(
        run.model,
        run.run_id,
        run.version,
        "official",
        score,
        n,
        parseable,
        parseable < PASS_FRACTION * n,
        scores,
        [u for _, _, u in per_iteration],
    )


#: Parsers of English answers; a German or Polish run is read with its own parser under every convention.
ENGLISH_PARSERS = ("official", "v2.4", "evalscope")


def convention_reading(convention: str, parser: str, split: bool, match: str) -> tuple[str, bool, str]:
    """(parser, split into passes, name matching) with which a convention reads a record's raw text.

    Neither harness has a revision step, so both read the whole output, never the run's split: a two-pass
    text's "Name: n" lines are all read, a later value of a name replacing an earlier one. lm-eval's scorer
    applies the v2.3 expression with exact names. evalscope's adapter (``match_score``) always calls its
    ``parse_answers(text, REVISE=False)`` (v2.4's: markdown stripped) and matches names in any case.
    Sets those harnesses do not run (German, Polish) are read with the run's parser (German v2.4 for
    evalscope), whole.
    """
    if convention == "lm-eval":
        return ("official", False, "exact") if parser in ENGLISH_PARSERS else (parser, False, match)
    if convention == "evalscope":
        return ("evalscope" if parser in ENGLISH_PARSERS else {"de": "de-v2.4"}.get(parser, parser), False, "casefold")
    return parser, split, match


def convention_answer(
    record: RunRecord, convention: str, run: EqBenchRun, reading: tuple[str, bool, str] | None = None
) -> Ratings:
    """The ratings lm-eval or evalscope reads in a record: its raw text read again the harness's way
    (:func:`convention_reading`; ``reading``, when given, is that reading of ``run``, worked out once per run
    by a caller that scores all its records); a record without text keeps its stored first pass."""
    parser, split, _ = reading or _run_reading(convention, run)
    text = record.final_text
    return parse_answer(text, split, parser).first_pass if text is not None else record.first_pass


def _run_reading(convention: str, run: EqBenchRun) -> tuple[str, bool, str]:
    return convention_reading(convention, run.parser, run.split_revision, run.match)


def convention_score(
    record: RunRecord,
    question: Question,
    convention: str,
    run: EqBenchRun,
    reading: tuple[str, bool, str] | None = None,
) -> float | None:
    """One question's score (question scale) under lm-eval or evalscope; None when that harness finds it
    unparseable. The raw text is read again the harness's way (:func:`convention_reading`, from how ``run``
    was read; ``reading`` as in :func:`convention_answer`); a record without text keeps its answers.

    evalscope also rejects an answer with a rating outside 0-10 (its ``validate_answer_format``).
    """
    reading = reading or _run_reading(convention, run)
    answer = convention_answer(record, convention, run, reading)
    score = score_question(answer, question, scale_for(run.version), reading[2])
    if score is None:
        return None
    out_of_range = convention == "evalscope" and not all(0 <= float(v) <= 10 for v in answer.values())
    return None if out_of_range else score


def question_value(record: RunRecord, question: Question, convention: str, run: EqBenchRun) -> float:
    """One question's contribution to ``run``'s score under lm-eval (0-100) or evalscope (0-1); 0 if
    unparseable."""
    return _contribution(convention_score(record, question, convention, run), convention)


def _contribution(score: float | None, convention: str) -> float:
    if score is None:
        return 0.0
    return 10.0 * score if convention == "lm-eval" else min(max(score / 10.0, 0.0), 1.0)


def _score_flat(run: EqBenchRun, convention: str) -> RunScore:
    questions = run_questions(run)
    reading = _run_reading(convention, run)  # once, not per record: the run's header is read for each
    per_iteration, parseable = [], []
    for recs in records_by_iteration(run).values():
        scores = [convention_score(r, questions[r.question_id], convention, run, reading) for r in recs]
        # questions with no record at all (never answered) count 0, like unparseable ones
        per_iteration.append(sum(_contribution(s, convention) for s in scores) / max(run.n_questions, len(recs), 1))
        parseable.append(sum(s is not None for s in scores))
    score = statistics.fmean(per_iteration)
    n_ok = statistics.fmean(parseable)
    return RunScore(
        run.model,
        run.run_id,
        run.version,
        convention,
        round(score, 4 if convention == "evalscope" else 2),
        run.n_questions,
        n_ok,
        n_ok < PASS_FRACTION * run.n_questions,
        per_iteration,
    )


def score_run(run: EqBenchRun, convention: str = "official") -> RunScore:
    """A run's score under ``convention`` ("official", "lm-eval" or "evalscope")."""
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {', '.join(CONVENTIONS)}, not {convention!r}")
    return _score_official(run) if convention == "official" else _score_flat(run, convention)
