"""creative-writing (the official pipeline's second benchmark, EQ-bench/EQ-Bench @ ``d28c60c``) as the command line
sees it: the glue only. The model under test writes, the judge (``--judge-*``, EQ-Bench 3's judge options) scores;
what is asked, decided and scored is :mod:`eqbench_nb.judged`'s.

Its run files name it in their header (``"benchmark": "creative-writing"``). ``score`` and ``runs`` read them, the
viewer shows them (an item per prompt and iteration); ``compare``, ``leaderboard`` and ``plot`` do not apply.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..judged.options import JudgedRunOptions, one_judge
from ..judged.runs import CREATIVE_WRITING, JudgedRun
from ..judged.samples import CREATIVE_WRITING_FRAME
from ..runner.cost import Prices
from ..runner.settings import Endpoint, RunSettings
from . import Benchmark, Report, Table
from .options import CommandOptions

#: The judge's options (EQ-Bench 3's group) that a judged benchmark takes as well.
JUDGE_OPTIONS = frozenset(
    f"judge_{name}"
    for name in (
        "base_url",
        "model",
        "api_key_env",
        "timeout",
        "concurrency",
        "retry_budget",
        "max_tokens",
        "reasoning_effort",
        "no_adaptive",
        "price_in",
        "price_out",
        "batch",
        "poll_interval",
        "batch_wait",
        "resubmit_unconfirmed",
    )
) | frozenset({"judges"})
RUN_COLUMNS = ("model", "run_id", "judge", "score", "low", "high", "iterations_counted", "pieces_scored", "unscored",
               "out_of_range", "left_out")  # fmt: skip


def run(options: JudgedRunOptions, endpoint: Endpoint, settings: RunSettings) -> Any:
    from ..judged.task import run_creative_writing

    if options.dry_run:
        return dry_run(endpoint, one_judge(options, "creative-writing"), settings, options.iterations)
    return run_creative_writing(endpoint, None, settings, options)  # the judge the options name


def dry_run(endpoint: Endpoint, judge: Endpoint, settings: RunSettings, iterations: int) -> Report:
    from ..judged import creative_writing as cw
    from ..judged import dryrun
    from ..judged.task import prompts
    from ..runner.cost import JUDGE_PRICE_FLAGS, token_counter, total_lines

    endpoint, judge = endpoint.checked(), judge.checked()
    records = prompts(settings.data_path)
    writer, judged = dryrun.creative_writing(
        records, iterations, token_counter(endpoint.model or ""), token_counter(judge.model or ""), endpoint.prices,
        judge.prices, endpoint.max_tokens or cw.WRITER_MAX_TOKENS, judge.max_tokens or cw.JUDGE_MAX_TOKENS,
    )  # fmt: skip
    return Report("\n".join([
        f"dry run: nothing sent; {len(records)} prompts x {iterations} iteration(s)",
        "model under test (one piece per prompt; up to 4 attempts in each of up to 4 rounds)",
        *(f"  {line}" for line in writer.lines()),
        "judge (one combined-criteria request per piece, each counted with the prompt's reference output in the "
        "piece's place; up to 3 requests in each of up to 4 rounds)",
        *(f"  {line}" for line in judged.lines(JUDGE_PRICE_FLAGS)),
        "total (the model under test and the judge)",
        *(f"  {line}" for line in total_lines([writer, judged])),
    ]))  # fmt: skip


def score_rows(path: Path, options: CommandOptions) -> list[dict[str, Any]]:
    from ..judged.overview import score_rows as rows

    return [r | {"kind": "run"} for r in rows(path, CREATIVE_WRITING)]


def judged_table(rows: list[dict[str, Any]], columns: Sequence[str], caption: str) -> Table:
    """Judged rows as ``score`` prints them: each cell by :func:`~eqbench_nb.judged.report.cell` ("undefined" for a
    number that is not one), the first column left-aligned."""
    import pandas as pd

    from ..judged.report import cell

    frame = pd.DataFrame([[cell(r.get(c)) for c in columns] for r in rows], columns=list(columns))
    return Table(frame, caption=caption, text_columns=1)


def score_tables(rows: list[dict[str, Any]]) -> list[Table]:
    caption = ("score: upstream's 0-100 (— when no iteration had more than 10 scored prompts: upstream prints 0); "
               "low-high: 95 % Student's t interval over prompts")  # fmt: skip
    return [judged_table(rows, RUN_COLUMNS, caption)]


def runs(files: Sequence[Path], options: CommandOptions) -> Table:
    import pandas as pd

    from ..judged.overview import read, runs_row

    frame = pd.DataFrame([runs_row(p, read(p, CREATIVE_WRITING)) for p in files])
    if options.sort and options.sort in frame:
        frame = frame.sort_values(options.sort, ascending=options.sort != "score", na_position="last")
    return Table(frame.reset_index(drop=True), {"iterations": 0, "items": 0, "requests": 0})


def read(path: Path) -> JudgedRun:
    from ..judged.overview import read as read_run

    return read_run(path, CREATIVE_WRITING)


def samples(run: JudgedRun, prices: Prices) -> Any:
    from ..judged.overview import samples as judged

    return judged(run, prices)


def summary(run: JudgedRun, items: Any, prices: Prices) -> Any:
    from ..judged.overview import viewer_summary

    return viewer_summary(run, items, prices)


CREATIVE_WRITING_BENCHMARK = Benchmark(
    name=CREATIVE_WRITING,
    title="creative-writing",
    run_options=JudgedRunOptions,
    run=run,
    score_rows=score_rows,
    score_tables=score_tables,
    features=frozenset({"max_tokens", "reasoning_effort", "price_in", "price_out", "dry_run"}),
    runs=runs,
    shared_run_options=frozenset({"iterations"}) | JUDGE_OPTIONS,
    read=read,
    run_type=JudgedRun,
    samples=samples,
    frame_schemas=(CREATIVE_WRITING_FRAME,),
    summary=summary,
)
