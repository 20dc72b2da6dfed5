"""EmotionBench's PANAS test as the command line sees it: its ``run`` options, its run, its ``score`` rows.

Its run files name it in their header (``"benchmark": "emotionbench"``). ``runs`` lists them; ``compare``,
``leaderboard`` and ``plot`` compare EQ-Bench scores and do not apply to its runs (a folder's are passed over, said).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..emotionbench.options import EmotionBenchRunOptions
from ..emotionbench.runs import BENCHMARK, EmotionRun, read_emotion_run
from ..emotionbench.samples import EMOTIONBENCH_FRAME
from ..emotionbench.summary import summarise_run
from ..runner.cost import Prices
from ..runner.redact import clip
from ..runner.settings import Endpoint, RunSettings
from ..viewer.contract import RunView, endpoint_text, shown, timestamp_text, usage_facts
from . import Benchmark, Table
from .options import CommandOptions


def run(given: EmotionBenchRunOptions, endpoint: Endpoint, settings: RunSettings) -> Any:
    from ..emotionbench.task import run_emotionbench

    return run_emotionbench(endpoint, settings, given)


def score_rows(path: Path, options: CommandOptions) -> list[dict[str, Any]]:
    """One EmotionBench run file's score row (``eqbench-nb score``); warnings go to stderr."""
    run = read_emotion_run(path)
    summary = summarise_run(run)
    warnings = [*run.warnings, *filter(None, [summary.incomplete_note(), summary.empty_note()])]
    for warning in warnings:
        print(f"warning: {clip(f'{path}: {warning}', 1000)}", file=sys.stderr)
    return [summary.as_row() | {"file": str(path), "warnings": len(warnings)}]


_TABLE = ("model", "run_id", "default_pa", "default_na", "evoked_pa", "evoked_na", "n_default", "n_evoked",
          "refusals", "unreadable", "incomplete", "overall_pa", "overall_na")  # fmt: skip


def score_tables(rows: list[dict[str, Any]]) -> list[Table]:
    """EmotionBench score rows as one table, each cell redacted and printable (a model name from a run file is
    hostile), ``-`` where there is no value."""
    import pandas as pd

    cols = list(_TABLE) + (["warnings"] if any(r.get("warnings") for r in rows) else [])
    cells = [["-" if r.get(c) is None else clip(r.get(c), 80) for c in cols] for r in rows]
    footnote = ("EmotionBench (PANAS): means over complete answers (n_default, n_evoked; - where there are none, the "
                "reason on stderr); overall: evoked vs default, F then t, α = 0.01")  # fmt: skip
    return [Table(pd.DataFrame(cells, columns=cols), footnote=footnote, text_columns=2)]


def runs(files: Sequence[Path], options: CommandOptions) -> Table:
    """One row per EmotionBench run file (``eqbench-nb runs``): who, what it planned and holds, how many answers
    are usable and why the others are not."""
    import pandas as pd

    rows = []
    for path in files:
        run = read_emotion_run(path)
        summary = summarise_run(run)
        rows.append(
            {
                "model": run.model,
                "run_id": run.run_id,
                "questionnaire": run.header.own.questionnaire,
                "situations": len(run.header.own.situations or ()),
                "repeats": run.header.own.repeats,
                "records": summary.records,
                "planned": summary.planned,
                "complete": summary.complete,
                "usable": summary.n_default + summary.n_evoked,
                "refusals": summary.refusals,
                "unreadable": summary.statuses.get("unreadable", 0),
                "incomplete": summary.statuses.get("incomplete", 0),
                "started": run.header.started_at,
                "file": str(path),
            }
        )
    table = pd.DataFrame(rows)
    if options.sort in table.columns:  # a column of another benchmark's table sorts that one (the command checks it)
        table = table.sort_values(options.sort, kind="stable").reset_index(drop=True)
    return Table(table, fractions={"usable": "records"})


# ---------------------------------------------------------------- the run viewer


def samples(run: EmotionRun, prices: Prices) -> Any:
    from ..emotionbench.samples import emotionbench_samples

    return emotionbench_samples(run, prices)


def summary(run: EmotionRun, items: Any, prices: Prices) -> RunView:
    """The viewer's header of an EmotionBench run: where it comes from, its design, the default and evoked means
    per sub-scale with the change and its interval at the unit that was sampled (the situation), the paper's
    verdict, the readers' statuses, tokens, requests and cost."""
    from ..emotionbench.clustered import clustered_compare
    from ..emotionbench.scoring import SUBSCALES
    from ..emotionbench.summary import scored_responses

    h = run.header
    totals = summarise_run(run)
    up: dict[str, Any] = h.upstream if isinstance(h.upstream, dict) else {}
    commit = str(up.get("commit") or "")
    facts = [
        ["model", run.model],
        ["run id", run.run_id],
        ["file", Path(run.path).name],
        ["pipeline", f"{up.get('pipeline', '?')} ({up.get('repository', '?')} @ {commit[:7]})"],
        ["questionnaire", f"{h.own.questionnaire or '?'}, scale {'–'.join(map(str, h.own.scale or ()))}, "
         f"{h.own.compute_mode or 'SUM'}"],
        ["situations", f"{len(h.own.situations or ())}; repeats {h.own.repeats}, default repeats "
         f"{h.own.default_repeats}, item orders {h.own.orders}"],
        ["reader", str(h.own.parser)],
        ["temperature", shown(h.own.temperature)],
        ["max tokens", shown(h.own.max_tokens)],
        ["endpoint", endpoint_text(h)],
        ["started", shown(timestamp_text(h.started_at))],
        ["answers", ", ".join(f"{k} {v}" for k, v in sorted(totals.statuses.items())) +
         f"; refusal rate {shown(totals.as_row()['refusal_rate'], 4)}"],
    ]  # fmt: skip
    facts += usage_facts(items, prices)
    scored = scored_responses(run)
    rows = []
    for scale in SUBSCALES:
        default = [s.scores[scale] for s in scored if s.situation == "General"]
        situations: dict[str, list[float]] = {}
        for s in scored:
            if s.situation != "General":
                situations.setdefault(s.situation, []).append(s.scores[scale])
        change = clustered_compare(situations, default) if default else None
        rows.append(
            [
                scale,
                f"{shown(totals.default[scale])} (n {len(default)})",
                f"{shown(totals.evoked[scale])} (n {sum(map(len, situations.values()))}, {len(situations)} situations)",
                "—" if change is None else f"{change.difference:+.2f} [{shown(change.low)}, {shown(change.high)}]",
                totals.overall.get(scale) or "—",
            ]
        )
    return RunView(
        title=f"{run.model} · {run.run_id} (EmotionBench)",
        facts=facts,
        scores={
            "caption": "means over complete answers; evoked − default with its 95 % t interval at the unit that was "
            "sampled: each situation's mean one unit (its repeats are not independent), against the default's "
            "answers (emotionbench.clustered); the paper's verdict: its F-test then t-test over answers, α = 0.01",
            "columns": ["sub-scale", "default", "evoked", "evoked − default [95 %]", "paper's verdict"],
            "rows": rows,
        },
        warnings=list(run.warnings),
    )


EMOTIONBENCH = Benchmark(
    name=BENCHMARK,
    title="EmotionBench",
    run_options=EmotionBenchRunOptions,
    run=run,
    score_rows=score_rows,
    score_tables=score_tables,
    option_hints={"iterations": "--repeats"},
    read=read_emotion_run,
    run_type=EmotionRun,
    samples=samples,
    frame_schemas=(EMOTIONBENCH_FRAME,),
    summary=summary,
    runs=runs,
)
