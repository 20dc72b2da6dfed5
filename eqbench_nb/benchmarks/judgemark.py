"""Judgemark v1 (the official pipeline's third benchmark, EQ-bench/EQ-Bench @ ``d28c60c``) as the command line sees
it: the glue only. The judge (``--judge-*``) scores the test set; there is no model under test. What is asked,
decided and computed is :mod:`eqbench_nb.judged`'s.

Its run files name it in their header (``"benchmark": "judgemark"``); ``score`` also reads a Judgemark v1 board
table (the published one is ``data/judgemark_v1_board.csv``; any file in its layout, recognised by its columns) and
re-derives every judge's statistics from that file's writer scores alone: the file given is the file read, validated
(:func:`~eqbench_nb.judged.board.read_board`) or refused in one line. ``runs`` lists runs, the viewer shows them (an
item per writer × prompt and iteration).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..judged.runs import JUDGEMARK, JudgedRun
from ..judged.samples import JUDGEMARK_FRAME
from ..runner.errors import RunnerError
from ..runner.looks import per_file_version
from ..runner.settings import Endpoint, RunSettings
from . import Benchmark, Report, Table
from .creative_writing import JUDGE_OPTIONS, JudgedRunOptions, judged_table, one_judge, samples, summary
from .options import CommandOptions

#: What a Judgemark run takes in place of a model-under-test feature (for the refusal).
JUDGE_HINTS = {
    "price_in": "--judge-price-in",
    "price_out": "--judge-price-out",
    "max_tokens": "--judge-max-tokens",
    "reasoning_effort": "--judge-reasoning-effort",
}
RUN_COLUMNS = ("model", "version", "Judgemark", "std_dev", "pearson_arena_elo", "kendall_arena_elo", "anova_f",
               "out_of_range", "left_out")  # fmt: skip
BOARD_PRINTED = ("judge", "published", "38a29f8", "31bd53b", "d28c60c", "derivable", "biases")


def run(options: JudgedRunOptions, endpoint: Endpoint, settings: RunSettings) -> Any:
    from ..judged.task import run_judgemark

    given = [flag for flag, value in _subject_options(endpoint).items() if value not in (None, False)]
    if given:
        raise RunnerError(
            f"Judgemark has no model under test, so it takes no {', '.join(given)}: the judge is the run's endpoint "
            "(--judge-base-url, --judge-model, --judge-api-key-env, --judge-timeout, --judge-concurrency, ...)"
        )
    if options.dry_run:
        return dry_run(one_judge(options, "Judgemark"), settings, options.iterations)
    return run_judgemark(None, settings, options)  # the judge the options name


def _subject_options(endpoint: Endpoint) -> dict[str, Any]:
    """The model-under-test options a Judgemark run refuses (it has none), each flag with its value (None or False:
    not given)."""
    return {
        "--base-url": endpoint.base_url,
        "--model": endpoint.model,
        "--api-key-env": endpoint.api_key_env,
        "--timeout": endpoint.timeout_s,
        "--concurrency": endpoint.concurrency,
        "--retry-budget": endpoint.retry_budget_s,
        "--no-adaptive": not endpoint.adaptive,
    }


def dry_run(judge: Endpoint, settings: RunSettings, iterations: int) -> Report:
    from ..judged import creative_writing as cw
    from ..judged import dryrun
    from ..judged.task import judgemark_pieces, prompts
    from ..runner.cost import JUDGE_PRICE_FLAGS, token_counter

    judge = judge.checked()
    pieces = judgemark_pieces(settings.data_path)
    estimate = dryrun.judgemark(prompts(settings.data_path), pieces, iterations, token_counter(judge.model or ""),
                                judge.prices, judge.max_tokens or cw.JUDGE_MAX_TOKENS)  # fmt: skip
    writers = len({item.rsplit("|", 1)[0] for item in pieces})
    return Report("\n".join([
        f"dry run: nothing sent; {len(pieces)} pieces of {writers} writers x {iterations} iteration(s)",
        "judge (one combined-criteria request per piece, the prompts exact; up to 3 requests in each of up to 4 "
        "rounds)",
        *(f"  {line}" for line in estimate.lines(JUDGE_PRICE_FLAGS)),
    ]))  # fmt: skip


# ---------------------------------------------------------------- files


def is_board(path: Path) -> bool:
    """A board table: its first line a CSV header naming the board's columns, or most of them (a board missing one is
    refused as a board, in one line naming the column)."""
    from ..judged.board_columns import looks_like_board

    return looks_like_board(path)


@per_file_version
def recognises(path: Path) -> bool:
    from ..runner.header import file_benchmark

    return file_benchmark(path) == JUDGEMARK or is_board(path)


# ---------------------------------------------------------------- score


def score_rows(path: Path, options: CommandOptions) -> list[dict[str, Any]]:
    """A run's rows (one per formula version), or a board file's (one per judge, re-derived from that file alone)."""
    if is_board(path):
        return _board_rows(path)
    from ..judged.overview import score_rows as rows

    return [r | {"kind": "run"} for r in rows(path, JUDGEMARK)]


def _board_rows(path: Path) -> list[dict[str, Any]]:
    from ..judged import board
    from ..judged import judgemark as jm
    from ..runner.runfile import RunFormatError

    try:
        given = board.read_board(path)  # the file given is the file read
    except board.BoardError as exc:
        raise RunFormatError(path, str(exc)) from None
    derived = dict(board.by_judge(board.rederive(table=given)))
    rows = []
    for judge, own in board.by_judge(given):
        mine = derived[judge]
        derivable = mine[mine["kind"] == "writer scores"]
        bias = mine[mine["kind"] == "writer scores + bias panel"]
        pub = board.published(judge, own)
        scores = board.writer_scores(judge, own)
        row: dict[str, Any] = {"kind": "board", "judge": judge, "published": pub.get("Judgemark", math.nan)}
        # the board's version is re-derived already (with the published ANOVA F); the two later ones here
        row[jm.BOARD_VERSION] = float(mine.loc[mine["statistic"] == "Judgemark", "rederived"].iloc[0])
        for version in ("31bd53b", "d28c60c"):
            row[version] = jm.judgemark(scores, version, anova_f=pub.get("anova_f"))
        row["derivable"] = f"{int(derivable['matches'].astype(bool).sum())}/{len(derivable)}"
        row["biases"] = f"{int(bias['matches'].astype(bool).sum())}/{len(bias)}"
        for stat, value in zip(mine["statistic"], mine["rederived"]):
            row[f"rederived_{stat}"] = value
        rows.append(row | {"file": str(path)})
    return [{k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in r.items()} for r in rows]


#: What the board's printed columns are (under its table, on stderr).
BOARD_CAPTION = (
    "published: the board's Judgemark; 38a29f8 (the board's version), 31bd53b, d28c60c: re-derived from the judge's "
    "published writer scores (38a29f8 with the published ANOVA F: the per-piece scores it needs were never published, "
    "nor were the average 95 % CI's); derivable: the 13 statistics from writer scores alone within 0.01 of the board; "
    "biases: self and family bias (upstream's panel) within 0.01, N/A counted as agreeing where both are N/A. Every "
    "re-derived value is in --format json/csv"
)


def score_tables(rows: list[dict[str, Any]]) -> list[Table]:
    """The runs' table, then the published board's: each where there are rows of its kind."""
    from ..judged.report import caption

    runs = [r for r in rows if r.get("kind") == "run"]
    boards = [r for r in rows if r.get("kind") == "board"]
    tables = []
    if runs:
        tables.append(judged_table(runs, RUN_COLUMNS, caption()))
    if boards:
        tables.append(judged_table(boards, BOARD_PRINTED, BOARD_CAPTION))
    return tables


def runs(files: Sequence[Path], options: CommandOptions) -> Table:
    import pandas as pd

    from ..judged.overview import read, runs_row

    frame = pd.DataFrame([runs_row(p, read(p, JUDGEMARK)) for p in files if not is_board(p)])
    if options.sort and options.sort in frame:
        frame = frame.sort_values(options.sort, ascending=options.sort != "score", na_position="last")
    return Table(frame.reset_index(drop=True), {"iterations": 0, "items": 0, "requests": 0})


def read(path: Path) -> JudgedRun:
    from ..judged.overview import read as read_run
    from ..runner.runfile import RunFormatError

    if is_board(path):
        raise RunFormatError(path, "the published Judgemark board is no run the viewer shows (`eqbench-nb score` "
                             "re-derives it); view a Judgemark run file")  # fmt: skip
    return read_run(path, JUDGEMARK)


JUDGEMARK_BENCHMARK = Benchmark(
    name=JUDGEMARK,
    title="Judgemark",
    run_options=JudgedRunOptions,
    run=run,
    score_rows=score_rows,
    score_tables=score_tables,
    features=frozenset({"dry_run"}),
    option_hints=JUDGE_HINTS,
    runs=runs,
    formats="eqbench_nb JSON Lines, a Judgemark v1 board CSV (the published one: data/judgemark_v1_board.csv)",
    shared_run_options=frozenset({"iterations"}) | JUDGE_OPTIONS,
    recognises=recognises,
    read=read,
    run_type=JudgedRun,
    samples=samples,
    frame_schemas=(JUDGEMARK_FRAME,),
    summary=summary,
    view_formats="eqbench_nb JSON Lines",
)
