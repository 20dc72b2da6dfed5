"""The long table every notebook starts from: one row per model x iteration x question x emotion."""

from __future__ import annotations

import os
from collections.abc import Iterable

import pandas as pd

from ...paths import tables_dir
from ..conventions import revised_pass_used
from ..questions import run_questions, scale_for
from ..runs import EqBenchRun, find_run_files, is_eqbench_file, read_run
from ..scoring import fullscale_penalty, keyed_answer

COLUMNS = [
    "model",
    "run_id",
    "iteration",
    "question_id",
    "emotion",
    "emotion_index",
    "reference",
    "answer",
    "error",
    "abs_error",
    "penalty",
    "question_score",
    "pass_used",
]


def run_table(runs: EqBenchRun | Iterable[EqBenchRun]) -> pd.DataFrame:
    """Rows for every emotion of every parseable answer, using the pass the official rule picks.

    Columns: model, run_id, iteration, question_id, emotion, emotion_index (1-4 as in the key),
    reference (0-10), answer, error (answer - reference, signed), abs_error, penalty (f(|d|)),
    question_score (the question's score on its scale), pass_used ("first_pass"/"revised").
    Unparseable answers have no rows; :func:`question_table` lists every record.
    """
    runs = [runs] if isinstance(runs, EqBenchRun) else list(runs)
    rows = []
    for run in runs:
        questions = run_questions(run)
        revised_used = revised_pass_used(run)
        for rec in run.records:
            use_revised = revised_used.get(rec.iteration, False) and rec.revised_score is not None
            answer = rec.revised if use_revised else rec.first_pass
            score = rec.revised_score if use_revised else rec.first_pass_score
            if score is None:
                continue
            q = questions[rec.question_id]
            ref = q.reference_for(scale_for(q.version))
            keyed = keyed_answer(answer, q.emotions, run.match)
            assert keyed is not None  # a scored answer is parseable
            for i, emotion in enumerate(q.emotions, 1):
                err = keyed[emotion] - ref[emotion]
                rows.append(
                    (
                        run.model,
                        run.run_id,
                        rec.iteration,
                        rec.question_id,
                        emotion,
                        i,
                        ref[emotion],
                        keyed[emotion],
                        err,
                        abs(err),
                        fullscale_penalty(err),
                        score,
                        "revised" if use_revised else "first_pass",
                    )
                )
    return pd.DataFrame(rows, columns=COLUMNS)


def question_table(runs: EqBenchRun | Iterable[EqBenchRun]) -> pd.DataFrame:
    """One row per record: model, run_id, iteration, question_id, parseable, first/revised scores."""
    runs = [runs] if isinstance(runs, EqBenchRun) else list(runs)
    rows = [
        (
            run.model,
            run.run_id,
            r.iteration,
            r.question_id,
            r.first_pass_score is not None,
            r.first_pass_score,
            r.revised_score,
        )
        for run in runs
        for r in run.records
    ]
    return pd.DataFrame(
        rows, columns=["model", "run_id", "iteration", "question_id", "parseable", "first_pass_score", "revised_score"]
    )


def read_runs(paths: Iterable[str | os.PathLike]) -> list[EqBenchRun]:
    """Read every run file under the given files or folders."""
    return [read_run(p) for p in find_run_files(list(paths))]


def published_runs() -> list[EqBenchRun]:
    """The 86 published v2 runs (from ../shared/data, or downloaded and checked)."""
    from ...data import published_results_dir

    return read_runs([published_results_dir()])


def bundled_model_runs() -> list[EqBenchRun]:
    """This project's own EQ-Bench runs of the bundled SmolLM2-135M-Instruct (``data/runs/``), for repeatability
    (the runs of other benchmarks beside them are left to their readers)."""
    return [read_run(p) for p in find_run_files([tables_dir() / "runs"]) if is_eqbench_file(p)]
