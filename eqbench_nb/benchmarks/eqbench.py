"""EQ-Bench (v2, v1, German, Polish) as the command line sees it: its ``run`` options, its run, its ``score``
rows, and the research commands over its runs (the analyses of :mod:`eqbench_nb.eqbench.study.leaderboard`, the
figures of :mod:`eqbench_nb.eqbench.study.plots.runs`).

EQ-Bench reads the run files that name no benchmark: this project's EQ-Bench files (their header predates the
field), upstream EQ-Bench results JSON and lm-evaluation-harness samples.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..eqbench.conventions import CONVENTIONS, score_run
from ..eqbench.options import EqBenchRunOptions
from ..eqbench.runs import EqBenchRun, is_run_file, read_run
from ..eqbench.samples import EQBENCH_FRAME
from ..runner.cost import Prices
from ..runner.redact import clip
from ..runner.settings import FEATURES, Endpoint, RunSettings
from ..viewer.contract import RunView, endpoint_text, shown, timestamp_text, usage_facts
from . import Benchmark, Report, Table, count_of
from .options import CommandOptions, OptionError, option, value_type, whole_number

#: Digits per column in printed tables (two otherwise).
DIGITS: dict[str, int | None] = {
    "rank": None,  # 3, or 2.5 for a tie
    "rank_low": None,
    "rank_high": None,
    "parseable": 2,  # a count of questions per iteration, shown as parsed/questions (FRACTIONS)
    "p_a_better": 3,
    "p_low": 3,
    "p_high": 3,
    "level": 2,
}
#: Counts shown as ``count/total`` in the text formats, as ``score`` shows them.
FRACTIONS = {"parseable": "questions"}
PLOT_KINDS = {
    "intervals": "runs ranked by score, each with its 95 % interval (questions resampled)",
    "emotions": "mean |rating - reference| by emotion family, per run (questions resampled)",
    "reference": "a run's answers against the reference intensities",
}


def _digits(convention: str) -> dict[str, int | None]:
    if convention != "evalscope":
        return DIGITS
    return DIGITS | {
        c: 4 for c in ("score", "low", "high", "score_a", "score_b", "diff", "diff_low", "diff_high", "own_score")
    }


# ---------------------------------------------------------------- options of the commands


@value_type(float)
def _level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise OptionError(f"must be a number between 0 and 1, not {text!r}") from None
    if not 0 < value < 1:
        raise OptionError(f"must be between 0 and 1 (e.g. 0.95), not {value}")
    return value


@value_type(int)
def _reps(text: str) -> int:
    value = whole_number(text)
    if value < 100:
        raise OptionError(f"must be at least 100 for a percentile interval, not {value}")
    return value


@dataclass(frozen=True)
class EqBenchOptions(CommandOptions):
    """What EQ-Bench's ``score``, ``runs``, ``compare``, ``leaderboard`` and ``plot`` read: the convention a run is
    aggregated by (``score`` takes ``all`` as well: one row per convention); the interval's level, resamples and
    seed, the common questions, and what ``compare`` and ``leaderboard`` add."""

    convention: str = option(
        "--convention",
        default="official",
        choices=CONVENTIONS,
        help="how a run is aggregated",
        commands=("score", "compare", "leaderboard", "plot"),
        per_command={
            "score": {"choices": (*CONVENTIONS, "all"), "help": "how a run is aggregated; all: one row per convention"},
            "plot": {"help": "how a run is aggregated (intervals)"},
        },
    )
    level: float = option("--level", default=0.95, type=_level, help="interval level",
                          commands=("compare", "leaderboard"))  # fmt: skip
    reps: int | None = option(
        "--reps",
        default=2000,
        type=_reps,
        help="bootstrap resamples of the questions (at least 100)",
        commands=("compare", "leaderboard"),
        per_command={  # EQ-Bench 3's leaderboard takes it too, with its own default (None here: the hook's)
            "leaderboard": {
                "default": None,
                "help": "bootstrap resamples, at least 100 (default: 2,000 of the questions; EQ-Bench 3: its own "
                "number of the scenarios, each re-solved, said in its caption)",
            }
        },
    )
    seed: int = option("--seed", default=0, type=whole_number, commands=("compare", "leaderboard"),
                       help="seed of the resampling (the same call, the same interval)")  # fmt: skip
    common: bool = option(
        "--common",
        default=False,
        flag=True,
        help="rescore every run on the questions all set out to answer (said beside each score, with its own); "
        "default: each run on its own questions, the runs of the set most share ranked, the others listed unranked",
        commands=("compare", "leaderboard"),
        per_command={
            "compare": {
                "help": "rescore every run on the questions all set out to answer (said beside each score, with its "
                "own); default: each run on its own questions, runs of different questions refused"
            }
        },
    )
    by_question: bool = option(
        "--by-question",
        default=False,
        flag=True,
        help="one row per question: A's and B's value and A - B (in the question's 0-10 points)",
        commands=("compare",),
    )
    with_published: bool = option(
        "--with-published",
        default=False,
        flag=True,
        help="place the runs among the 86 published v2 runs (EQ-bench/EQ-Bench @ d28c60c)",
        commands=("leaderboard",),
    )


# ---------------------------------------------------------------- run


def run(given: EqBenchRunOptions, endpoint: Endpoint, settings: RunSettings) -> Any:
    from ..eqbench.task import estimate_run, run_benchmark

    if given.dry_run:
        est = estimate_run(endpoint, settings, given)
        return Report("\n".join([f"dry run: nothing sent{' (Batch API prices)' if endpoint.batch else ''}",
                                 *est.lines()]))  # fmt: skip
    return run_benchmark(endpoint, settings, given)


# ---------------------------------------------------------------- score


def score_rows(path: Path, options: EqBenchOptions) -> list[dict[str, Any]]:
    """One row per convention asked (``--convention``, or all), each naming the file and its warnings' count."""
    conventions = CONVENTIONS if options.convention == "all" else (options.convention,)
    run = read_run(path)
    for warning in run.warnings:
        print(f"warning: {clip(f'{path}: {warning}', 1000)}", file=sys.stderr)
    extra = {"form": run.form, **_prediction(run), "file": str(path), "warnings": len(run.warnings),
             "out_of_range": run.out_of_range}  # fmt: skip
    return [score_run(run, c).as_row() | extra for c in conventions]


def _prediction(run: Any) -> dict[str, Any]:
    """A short form's predicted full official score and its 95 % prediction interval (None for a whole set; NaN
    when no answer parsed), the same on every convention's row: it is predicted from the official score."""
    from ..eqbench.short_form import run_prediction

    if run.form is None:
        return {}
    found = run_prediction(run.header, score_run(run, "official").score)
    values = found[1:] if found is not None else (float("nan"),) * 3
    return {k: round(v, 2) for k, v in zip(("predicted_full", "predicted_low", "predicted_high"), values)}


def _undefined(score: float | None) -> bool:
    return score is None or score != score  # NaN: no parseable answer under the official convention


def _score_cell(row: dict[str, Any]) -> str:
    if row.get("score_not_finite"):
        return row["score_not_finite"]
    if _undefined(row["score"]):
        return "—"
    return f"{row['score']:.4f}" if row["convention"] == "evalscope" else f"{row['score']:.2f}"


def _parseable_cell(row: dict[str, Any]) -> str:
    return count_of(row["parseable"], row["questions"])


def _predicted_cell(row: dict[str, Any]) -> str:
    if "predicted_full" not in row:
        return ""
    full, low, high = (row.get(k) for k in ("predicted_full", "predicted_low", "predicted_high"))
    if _undefined(full):
        return "— (none parsed)"
    return f"{full:.2f} [{low:.2f}, {high:.2f}]"


#: The score table's column of answers rated outside 0-10 (scored as given, as upstream scores them).
OUT_OF_RANGE = "off-scale"
OUT_OF_RANGE_CAPTION = (
    "off-scale: answers with a rating outside 0-10, scored as given as upstream scores them (evalscope rejects them)"
)


def score_tables(rows: list[dict[str, Any]]) -> list[Table]:
    """Score rows as one table (parseable: mean count per iteration of n questions); a score that is not a finite
    number comes as None, an infinite one flagged in ``score_not_finite``; a short form's runs are marked."""
    import pandas as pd

    several = len({r["convention"] for r in rows}) > 1
    cols = ["model", "run_id"] + (["convention"] if several else []) + ["iterations", "parseable", "score", "failed"]
    table = [
        [clip(r["model"], 80), clip(r["run_id"], 80)]
        + ([r["convention"]] if several else [])
        + [str(r["iterations"]), _parseable_cell(r), _score_cell(r), "FAILED" if r["failed"] else ""]
        for r in rows
    ]
    left = 3 if several else 2  # text columns, left-aligned
    if any(r.get("form") for r in rows):  # a short form's score is over its questions only: never unmarked
        left += 1
        cols.insert(2, "form")
        cols.append("full v2 predicted (95 % PI)")
        for t, r in zip(table, rows):
            t.insert(2, clip(r.get("form") or "", 20))
            t.append(_predicted_cell(r))
    if any(r.get("out_of_range") for r in rows):  # beside the score it may have sunk: a student reads the number
        at = cols.index("score") + 1
        cols.insert(at, OUT_OF_RANGE)
        for t, r in zip(table, rows):
            t.insert(at, str(r.get("out_of_range") or ""))
    if any(r.get("warnings") for r in rows):  # said on stderr; marked here so a reader of the table sees it
        cols.append("warnings")
        for t, r in zip(table, rows):
            t.append(str(r.get("warnings") or ""))
    several_iterations = any(r["iterations"] > 1 for r in rows)
    notes = ["parseable: questions parsed per iteration (mean over iterations) / questions"] * several_iterations
    if OUT_OF_RANGE in cols:
        notes.append(OUT_OF_RANGE_CAPTION)
    caption = "; ".join(notes) or None
    return [Table(pd.DataFrame(table, columns=cols), caption=caption, text_columns=left)]


# ---------------------------------------------------------------- research commands


def runs(files: Sequence[Path], options: EqBenchOptions) -> Table:
    from ..eqbench.study.leaderboard import runs_overview, sort_table

    table = runs_overview(files)
    if options.sort in table.columns:  # a column of another benchmark's table sorts that one (the command checks it)
        table = sort_table(table, options.sort)
    return Table(table, DIGITS, fractions=FRACTIONS)


def compare(a: Path, b: Path, options: EqBenchOptions) -> Table:
    from ..analysis.stats import DEFAULT_REPS
    from ..eqbench.study.leaderboard import compare_by_question, compare_runs, compare_statement

    if options.by_question:
        table = compare_by_question(a, b, options.convention, options.common)
        caption = (
            f"A = {a}, B = {b}: each question's {options.convention} value (averaged over iterations; — where left "
            f"out) and A - B, on the {len(table):,} question{'s' if len(table) != 1 else ''} compared"
        )
        return Table(table, _digits(options.convention), caption=caption)
    reps = options.reps or DEFAULT_REPS  # 2000 from the command line; None only from Python
    row = compare_runs(a, b, options.convention, reps, options.level, options.seed, options.common)
    sentence = f"A = {row.a.iloc[0]}\nB = {row.b.iloc[0]}\n{compare_statement(row)}"
    return Table(row, _digits(options.convention), sentence=sentence, single=True)


def leaderboard(files: Sequence[Path], options: EqBenchOptions) -> Table:
    from ..analysis.stats import DEFAULT_REPS
    from ..eqbench.study.leaderboard import leaderboard as board
    from ..eqbench.study.leaderboard import leaderboard_caption

    reps = options.reps or DEFAULT_REPS  # the option's default is None: EQ-Bench 3's leaderboard has its own
    table = board(files, options.convention, reps, options.level, options.seed, options.common,
                  options.with_published)  # fmt: skip
    caption = leaderboard_caption(table, options.convention, options.level, reps)
    return Table(
        table, _digits(options.convention), machine_only=("interval", "file"), fractions=FRACTIONS, caption=caption
    )


def plot(kind: str, files: Sequence[Path], options: EqBenchOptions) -> Any:
    from ..eqbench.study.leaderboard import load_runs
    from ..eqbench.study.plots.runs import figure_for_runs

    return figure_for_runs(kind, load_runs(files), convention=options.convention)


# ---------------------------------------------------------------- the run viewer


def samples(run: EqBenchRun, prices: Prices) -> Any:
    from ..eqbench.samples import eqbench_samples

    return eqbench_samples(run, prices)


def summary(run: EqBenchRun, items: Any, prices: Prices) -> RunView:
    """The viewer's header of an EQ-Bench run: where it comes from, its settings, its score under each
    convention with its 95 % interval over the run's questions, the share parsed, tokens, requests and cost."""
    h = run.header
    expected = run.n_questions * len(run.iterations)
    facts = [
        ["model", run.model],
        ["run id", run.run_id],
        ["file", Path(run.path).name if run.path else "—"],
        ["pipeline", _pipeline(run)],
        ["set", f"{run.version}, {run.n_questions} questions per iteration"],
        ["protocol", f"{h.own.protocol or '—'}; revise {shown(run.revise)}; parser {run.parser}, names {run.match}"],
        ["iterations", shown(len(run.iterations))],
        ["records", f"{len(run.records):,} of {expected:,}" + ("" if len(run.records) >= expected else ", unfinished")],
    ]
    settings = [
        ("temperatures", list(h.own.temperatures) if h.own.temperatures is not None else None),
        ("max tokens", h.own.max_tokens),
        ("seed", h.seed),
        ("endpoint", endpoint_text(h)),
        ("started", timestamp_text(h.started_at)),
        ("finished", timestamp_text(h.finished_at)),
        ("deviations", ", ".join(h.deviations()) or None),
        ("question file sha256", h.own.dataset_sha256),
        ("eqbench_nb version", h.eqbench_nb_version),
    ]
    facts += [[label, shown(value)] for label, value in settings if value not in (None, "", [])]
    facts += usage_facts(items, prices)
    intervals, caption = _intervals(run)
    rows = []
    for convention in CONVENTIONS:
        s = score_run(run, convention)
        digits = 4 if convention == "evalscope" else 2
        parsed = f"{s.n_parseable:g} / {s.n_questions} ({s.percent_parseable:.1f} %)"
        rows.append([convention, shown(s.score, digits), intervals.get(convention, "—"), parsed,
                     "FAILED" if s.failed else "no"])  # fmt: skip
    if h.own.published_score is not None:
        rows.append(["published", shown(h.own.published_score), "", "the file's benchmark_score", ""])
    return RunView(
        title=f"{run.model} · {run.run_id}",
        facts=facts,
        scores={
            "caption": caption,
            "columns": ["convention", "score", "95 % interval", "parseable per iteration", "failed (< 83.33 %)"],
            "rows": rows,
        },
        warnings=list(run.warnings),
    )


def _intervals(run: EqBenchRun) -> tuple[dict[str, str], str]:
    """Each convention's 95 % interval as text, and the caption saying what was resampled: the percentile
    bootstrap over the run's questions of ``eqbench-nb leaderboard`` from :data:`~eqbench_nb.analysis.stats.SMALL_N`
    questions on, Student's t over the questions' values below (a percentile bootstrap is too narrow there)."""
    import warnings

    from ..analysis.stats import DEFAULT_LEVEL, DEFAULT_REPS, SMALL_N, percentile_interval, t_mean_ci
    from ..eqbench.study.leaderboard import bootstrap_runs, scale_of, shared_matrix

    out: dict[str, str] = {}
    n = 0
    for convention in CONVENTIONS:
        try:
            questions = shared_matrix([run], convention)
        except ValueError:  # no question to resample
            continue
        n = questions.shape[1]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if n < SMALL_N:
                t = t_mean_ci(questions.iloc[0].to_numpy(float), DEFAULT_LEVEL, scale_of(convention))
                low, high = t.low, t.high
            else:
                bounds = percentile_interval(bootstrap_runs([run], convention).boot[:, 0], DEFAULT_LEVEL)
                low, high = float(bounds[0]), float(bounds[1])
        digits = 4 if convention == "evalscope" else 2
        out[convention] = f"{shown(float(low), digits)} – {shown(float(high), digits)}"
    if n < SMALL_N:
        how = (f"Student's t over the run's {n} questions (each question's value averaged over the iterations; "
               f"below {SMALL_N} questions a percentile bootstrap would be too narrow)")  # fmt: skip
    else:
        how = (f"percentile bootstrap over the run's {n} questions ({DEFAULT_REPS:,} resamples, seed 0; every "
               "iteration resampled alike), as `eqbench-nb leaderboard`")  # fmt: skip
    caption = (
        f"{DEFAULT_LEVEL * 100:g} % interval: {how}; official leaves unparseable answers out of the mean, lm-eval "
        "and evalscope count them 0"
    )
    return out, caption


def _pipeline(run: EqBenchRun) -> str:
    """The upstream pipeline a run reproduces and its commit, or where a file another pipeline wrote comes from
    (a published results file is checked against the sha256 pinned for it)."""
    up = run.header.upstream
    if isinstance(up, dict) and up:
        commit = str(up.get("commit") or "")
        where = f"{up.get('repository', '')} @ {commit[:7]}" if commit else str(up.get("repository", ""))
        return f"{up.get('pipeline', '?')} ({where})"
    source = run.header.own.source
    if source == "upstream EQ-Bench results":
        return _published_source(run)
    return str(source or "—")


def _published_source(run: EqBenchRun) -> str:
    from ..data import manifest, sha256_of

    m = manifest()
    name = Path(run.path).name if run.path else ""
    pinned = m["results"].get(name)
    where = f"{m['repository']} {m['results_dir']}/{name} @ {m['commit'][:7]}"
    if pinned is None:
        return "an upstream EQ-Bench results file (not one of the published files this toolkit pins)"
    if run.path and sha256_of(Path(run.path)) == pinned:
        return f"published upstream results: {where} (sha256 matches the pinned file)"
    return f"an upstream EQ-Bench results file named as {where}, but not that file (its sha256 differs)"


def comparison(a: EqBenchRun, b: EqBenchRun) -> str:
    """B against A on their shared questions, as ``eqbench-nb compare B A`` says it."""
    from ..eqbench.study.leaderboard import compare_runs, compare_statement

    try:
        return "B against A: " + compare_statement(compare_runs(b, a), names=("B", "A"))
    except ValueError as exc:  # different sets, no shared question
        return f"B against A: not compared ({exc})"


EQBENCH = Benchmark(
    name="eqbench",
    title="EQ-Bench",
    run_options=EqBenchRunOptions,
    run=run,
    score_rows=score_rows,
    score_tables=score_tables,
    reads_unnamed=True,
    features=frozenset(FEATURES) | {"dry_run"},
    runs=runs,
    compare=compare,
    leaderboard=leaderboard,
    plot=plot,
    plot_kinds=PLOT_KINDS,
    command_options=EqBenchOptions,
    formats="eqbench_nb JSON Lines, upstream EQ-Bench results JSON, lm-evaluation-harness samples",
    recognises=is_run_file,
    read=read_run,
    run_type=EqBenchRun,
    samples=samples,
    frame_schemas=(EQBENCH_FRAME,),
    summary=summary,
    comparison=comparison,
)
