"""A benchmark as a declaration: its items, its prompt, its parse rule and its score, and nothing else.

:func:`declare` turns a :class:`Declaration` into the :class:`~eqbench_nb.benchmarks.Benchmark` every command
reads: ``run`` (through :func:`~eqbench_nb.runner.session.run_task`: the bundled model or any endpoint, resume,
``--extend``, the Batch API, a dry run's estimate), ``score``, ``runs``, ``leaderboard`` and the run viewer, all
over the one sample schema (:mod:`eqbench_nb.runner.samples`). Each item is asked on its own (no step waits on
another), so every declared benchmark can go through the Batch API.

The score is computed when the answer arrives and stored in the sample as named values; the parsed answer first
passes :func:`~eqbench_nb.model_numbers.finite_json` (a model's ``NaN`` or ``1e999`` is left out, said, and never
reaches a score or the strict-JSON run file). The declared breakdowns give the primary score's mean per group of
items (a task, a language, a category), with Wilson's interval over the items (each item's mean over iterations a
fractional success: :func:`~eqbench_nb.analysis.stats.wilson_interval`; a score outside 0-1, a rating say, gets
the mean's interval instead).
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..analysis.stats import mean_interval, wilson_interval
from ..eqbench.options import EqBenchRunOptions
from ..model_numbers import finite_json
from ..paths import tables_dir
from ..runner.cost import Prices, estimate, token_counter
from ..runner.errors import RunnerError
from ..runner.header import RunHeader
from ..runner.redact import clip
from ..runner.samples import IDENTITY, Sample, SampleHeader, SampleRun, SampleRunResult, read_sample_run
from ..runner.settings import FEATURES, Endpoint, RunSettings
from ..viewer.contract import (
    AttemptCosts,
    FrameSchema,
    RunView,
    attempt_view,
    endpoint_text,
    shown,
    text_or_none,
    usage_facts,
)
from . import Benchmark, Report, Table
from .options import CommandOptions, RunOptions, same_option

__all__ = ["Declaration", "Item", "declare"]


@dataclass(frozen=True)
class Item:
    """One item of a declared benchmark: its id (unique in the benchmark), what its prompt is built from, what its
    score compares with, and the metadata its scores are grouped by (kept in every sample)."""

    id: str
    data: Mapping[str, Any]
    target: Any
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Declaration:
    """What a benchmark declares (the module docstring).

    ``items(data_path)`` reads its items, in order (a :class:`~eqbench_nb.data.DataError` when its files are not
    there); ``prompt(item, model)`` the messages one item sends (``model``: the served model's name, for a rule that
    reads it); ``parse(text)`` the answer read from a reply (None: nothing could be read; ``text`` is None when the
    request failed on its own); ``score(item, answer)`` the named scores, ``primary`` the one tables lead with,
    ``scores`` the others (the viewer shows each). ``breakdowns`` are the metadata fields the primary score is
    reported by, each tuple one table section.
    ``temperature`` and ``max_tokens`` are how each item is asked (``--max-tokens`` replaces the limit).
    ``upstream`` names the pipeline followed (recorded in the header); ``files_sha256(data_path)`` the digests of the
    files read. ``published`` names a committed table of published numbers (a CSV in ``data/``: model, group, the
    primary score, source), shown beside runs by ``leaderboard``."""

    name: str
    title: str
    items: Callable[[Any], list[Item]]
    prompt: Callable[[Item, str], list[dict[str, str]]]
    parse: Callable[[str | None], Any]
    score: Callable[[Item, Any], Mapping[str, float | None]]
    primary: str
    scores: tuple[str, ...]
    breakdowns: tuple[tuple[str, ...], ...]
    temperature: float
    max_tokens: int
    upstream: Mapping[str, Any]
    files_sha256: Callable[[Any], Mapping[str, str]]
    published: str | None = None


@dataclass(frozen=True)
class DeclaredRunOptions(RunOptions):
    """A declared benchmark's ``run`` options: EQ-Bench's ``--iterations`` and ``--limit`` (the first K items),
    taken as well."""

    iterations: int = same_option(EqBenchRunOptions, "iterations")
    limit: int | None = same_option(EqBenchRunOptions, "limit")


Job = tuple[int, Item]

# ---------------------------------------------------------------- running


def _run(decl: Declaration) -> Callable[[DeclaredRunOptions, Endpoint, RunSettings], Any]:
    def run(given: DeclaredRunOptions, endpoint: Endpoint, settings: RunSettings) -> SampleRunResult | Report:
        from ..data import DataError
        from ..runner.session import Task, run_task, url_secrets

        endpoint = endpoint.checked()
        url_secrets(endpoint)
        try:
            items = decl.items(settings.data_path)[: given.limit]
            shas = decl.files_sha256(settings.data_path)
        except (DataError, OSError, ValueError, KeyError) as exc:
            raise RunnerError(f"{decl.title}: {exc}") from None
        max_tokens = endpoint.max_tokens or decl.max_tokens
        if given.dry_run:
            model = endpoint.model or ""
            est = estimate(
                [decl.prompt(i, model) for i in items] * given.iterations,
                1,
                max_tokens,
                token_counter(model),
                endpoint.prices,
            )
            return Report(
                "\n".join(
                    [f"dry run: nothing sent; {len(items)} items x {given.iterations} iteration(s)", *est.lines()]
                )
            )
        sampling = {"temperature": decl.temperature, "max_tokens": max_tokens}
        ids = tuple(i.id for i in items)

        def header(conn: Any, rid: str, _others: Any) -> RunHeader[SampleHeader]:
            common = conn.common_fields(rid, endpoint, settings, benchmark=decl.name, iterations=given.iterations,
                                        upstream=dict(decl.upstream), reasoning_effort=endpoint.reasoning_effort,
                                        batch=endpoint.batch, api_key_env=endpoint.api_key_env)  # fmt: skip
            return RunHeader.new(common, SampleHeader(items=ids, sampling=sampling, files_sha256=shas))

        def jobs(finished: list[Sample]) -> list[Job]:
            done = {s.key for s in finished}
            return [(k, i) for k in range(1, given.iterations + 1) for i in items if (k, i.id) not in done]

        def solver(transport: Any, h: RunHeader[SampleHeader]) -> Callable[[Job], Any]:
            async def solve(job: Job) -> Sample:
                iteration, item = job
                done = await transport.complete(
                    decl.prompt(item, transport.model), decl.temperature, max_tokens, (), settings.seed
                )
                answer, _ = finite_json(decl.parse(done.text))
                metadata = {**item.metadata, "target": item.target}
                return Sample(
                    transport.model,
                    h.text("run_id", ""),
                    iteration,
                    item.id,
                    [done.attempt(decl.temperature)],
                    answer,
                    dict(decl.score(item, answer)),
                    metadata,
                )

            return solve

        limit = "all" if given.limit is None else f"first{given.limit}"
        task = Task(
            decl.name,
            f"x{given.iterations}-{limit}",
            header,
            _sample_from_json,
            ("benchmark", "model", "iterations", "items", "sampling", "seed", "files_sha256", "reasoning_effort"),
            IDENTITY,
            jobs,
            len(items) * given.iterations,
            solver,
            lambda s: (s.parsed, s.scores.get(decl.primary)),
            desc=decl.title,
            read=_reader(decl),
            summarise=lambda run: _breakdown_text(decl, run),
            score_label=decl.primary,
            score_scale=1.0,
            batch_key=lambda job: f"{job[0]}-{job[1].id}",
            extendable=("items",),
        )
        return run_task(endpoint, settings, task, SampleRunResult)

    return run


def _sample_from_json(obj: dict[str, Any]) -> Sample:
    from ..runner.samples import sample_from_json

    return sample_from_json(obj)


def _reader(decl: Declaration) -> Callable[[Path], SampleRun]:
    return lambda path: read_sample_run(path, decl.name, decl.title)


# ---------------------------------------------------------------- scores


@dataclass(frozen=True)
class GroupScore:
    """The primary score of one group of items: its mean over the items (each item's mean over iterations), with
    Wilson's interval over the items, and how many items answered with something readable."""

    group: str
    items: int
    parsed: int
    mean: float | None
    low: float | None
    high: float | None


def breakdown(decl: Declaration, run: SampleRun) -> list[GroupScore]:
    """The primary score overall and by each declared breakdown, in the order of the breakdowns then the groups'
    first appearance."""
    by_item: dict[str, list[Sample]] = {}
    for s in run.records:
        by_item.setdefault(s.item, []).append(s)
    out = []
    for fields in ((), *decl.breakdowns):
        groups: dict[str, list[list[Sample]]] = {}
        for samples in by_item.values():
            label = " · ".join(str(samples[0].metadata.get(f, "?")) for f in fields) or "all"
            groups.setdefault(label, []).append(samples)
        for label, members in groups.items():
            means = [
                sum(v) / len(v)
                for m in members
                if (v := [x for s in m if (x := s.scores.get(decl.primary)) is not None])
            ]
            low, high = _interval(means)
            mean = sum(means) / len(means) if means else None
            parsed = sum(any(s.parsed for s in m) for m in members)
            out.append(GroupScore(label, len(members), parsed, mean, low, high))
    return out


def _interval(means: list[float]) -> tuple[float | None, float | None]:
    """Wilson's interval when every item's score is a share (0 to 1: right or wrong, or a mean of such), else the
    mean's interval its n calls for (:func:`~eqbench_nb.analysis.stats.mean_interval`: a 1-5 rating, say)."""
    if not means:
        return None, None
    if all(0.0 <= m <= 1.0 for m in means):
        return wilson_interval(sum(means), len(means))
    found = mean_interval(means)
    return (found.low, found.high) if found.low == found.low else (None, None)


def _cell(g: GroupScore) -> str:
    return "—" if g.mean is None else f"{g.mean:.3f} [{shown(g.low, 3)}, {shown(g.high, 3)}]"


def _breakdown_text(decl: Declaration, run: SampleRun) -> str:
    rows = breakdown(decl, run)
    width = max([len(g.group) for g in rows] + [5])
    head = f"{'group':<{width}}  items  parsed  {decl.primary} [95 %, over items]"
    return "\n".join([head, *(f"{g.group:<{width}}  {g.items:>5}  {g.parsed:>6}  {_cell(g)}" for g in rows)])


def _score_rows(decl: Declaration) -> Callable[[Path, CommandOptions], list[dict[str, Any]]]:
    def score_rows(path: Path, options: CommandOptions) -> list[dict[str, Any]]:
        run = read_sample_run(path, decl.name, decl.title)
        for warning in run.warnings:
            print(f"warning: {clip(f'{path}: {warning}', 1000)}", file=sys.stderr)
        return [
            {
                "model": run.model,
                "run_id": run.run_id,
                "group": g.group,
                "items": g.items,
                "parsed": g.parsed,
                "score": g.mean,
                "low": g.low,
                "high": g.high,
                "file": str(path),
            }
            for g in breakdown(decl, run)
        ]

    return score_rows


def _score_tables(decl: Declaration) -> Callable[[list[dict[str, Any]]], list[Table]]:
    def score_tables(rows: list[dict[str, Any]]) -> list[Table]:
        import pandas as pd

        cols = ["model", "run_id", "group", "items", "parsed", decl.primary]
        cells = [
            [
                clip(r["model"], 80),
                clip(r["run_id"], 80),
                clip(r["group"], 80),
                str(r["items"]),
                str(r["parsed"]),
                _cell(GroupScore(r["group"], r["items"], r["parsed"], r["score"], r["low"], r["high"])),
            ]
            for r in rows
        ]
        note = f"{decl.title}: {decl.primary}, the mean over items, 95 % interval over the items (Wilson's for a share)"
        return [Table(pd.DataFrame(cells, columns=cols), footnote=note, text_columns=3)]

    return score_tables


def _runs(decl: Declaration) -> Callable[[Sequence[Path], CommandOptions], Table]:
    def runs(files: Sequence[Path], options: CommandOptions) -> Table:
        import pandas as pd

        rows = []
        for path in files:
            run = read_sample_run(path, decl.name, decl.title)
            overall = breakdown(decl, run)[0]
            rows.append(
                {
                    "model": run.model,
                    "run_id": run.run_id,
                    "items": len(run.header.own.items or ()),
                    "iterations": run.header.iterations,
                    "records": len(run.records),
                    "planned": run.planned,
                    "parsed": sum(s.parsed for s in run.records),
                    decl.primary: overall.mean,
                    "started": run.header.started_at,
                    "file": str(path),
                }
            )
        table = pd.DataFrame(rows)
        if options.sort in table.columns:
            table = table.sort_values(options.sort, kind="stable").reset_index(drop=True)
        return Table(table, digits={decl.primary: 3}, fractions={"parsed": "records"})

    return runs


def _leaderboard(decl: Declaration) -> Callable[[Sequence[Path], CommandOptions], Table]:
    def leaderboard(files: Sequence[Path], options: CommandOptions) -> Table:
        """Each run's primary score by the first breakdown, with the published numbers (and their sources)
        beside them."""
        import pandas as pd

        rows = []
        for path in files:
            run = read_sample_run(path, decl.name, decl.title)
            groups = {g.group: g.mean for g in breakdown(decl, run)}
            rows += [
                {"model": run.model, "group": k, decl.primary: v, "source": f"this run ({run.run_id})"}
                for k, v in groups.items()
            ]
        if decl.published is not None:
            with (tables_dir() / decl.published).open(encoding="utf-8", newline="") as f:
                rows += [
                    {
                        "model": r["model"],
                        "group": r["group"],
                        decl.primary: float(r[decl.primary]),
                        "source": r["source"],
                    }
                    for r in csv.DictReader(f)
                ]
        return Table(pd.DataFrame(rows, columns=["model", "group", decl.primary, "source"]), digits={decl.primary: 3})

    return leaderboard


# ---------------------------------------------------------------- the run viewer


def _samples(decl: Declaration) -> Callable[[SampleRun, Prices], Any]:
    def samples(run: SampleRun, prices: Prices) -> Any:

        from ..data import DataError

        try:
            known: dict[str, Item] | None = {i.id: i for i in decl.items(None)}
            source = f"the messages {decl.title} sends, rebuilt from its files"
        except (DataError, OSError, ValueError, KeyError) as exc:
            known, source = None, f"the {decl.title} files are not readable here ({exc})"
        schema = frame_schema(decl)
        group = schema.group_label
        rows = []
        for s in run.records:
            item = (known or {}).get(s.item)
            primary = s.scores.get(decl.primary)
            decision = "no answer read" if not s.parsed else f"{decl.primary} {shown(primary, 3)}"
            reason = f"answer read: {clip(s.answer, 200)}" if s.parsed else "nothing could be read from the reply"
            rows.append(
                {
                    "item_id": f"{s.item}-i{s.iteration}",
                    "key": f"{s.item}-i{s.iteration}",
                    "label": f"{s.item} · iteration {s.iteration}",
                    "text": text_or_none(s.attempts[-1].get("text")) if s.attempts else None,
                    "messages": decl.prompt(item, run.model) if item else None,
                    "prompt_source": source if item or known is None else f"item {s.item} is not in the files read",
                    "attempts": [
                        attempt_view(a, n, decision, reason, n == len(s.attempts)) for n, a in enumerate(s.attempts, 1)
                    ],
                    "n_attempts": len(s.attempts),
                    "kept_attempt": len(s.attempts) if s.parsed else None,
                    "parsed": s.parsed,
                    "decision": decision,
                    "reason": reason,
                    "groups": [str(s.metadata.get(group, ""))] if group else [],
                    "miss": None if primary is None else 1.0 - primary,
                    **AttemptCosts.of(s.attempts).columns(prices),
                    "retried": False,
                    "events": [],
                    **{k: s.metadata.get(k) for k in _metadata_columns(decl)},
                    **{f"score_{k}": s.scores.get(k) for k in (decl.primary, *decl.scores)},
                }
            )
        return schema.frame(rows)

    return samples


def _metadata_columns(decl: Declaration) -> tuple[str, ...]:
    return (*dict.fromkeys(f for fields in decl.breakdowns for f in fields), "target")


def frame_schema(decl: Declaration) -> FrameSchema:
    """The declared benchmark's item frame: the common columns, its metadata (what it is broken down by, and the
    target), one ``score_<name>`` column per score, the table and comparison on its primary score."""
    table = (("label", "item", "text"), (f"score_{decl.primary}", decl.primary, "num"),
             ("decision", "decision", "text"), ("text", "answer", "text"))  # fmt: skip
    scores = tuple(f"score_{k}" for k in (decl.primary, *decl.scores))
    group = decl.breakdowns[0][0] if decl.breakdowns and decl.breakdowns[0] else None
    return FrameSchema(decl.name, (*_metadata_columns(decl), *scores), table, f"score_{decl.primary}",
                       f"1 − {decl.primary}", group)  # fmt: skip


def _summary(decl: Declaration) -> Callable[[SampleRun, Any, Prices], RunView]:
    def summary(run: SampleRun, items: Any, prices: Prices) -> RunView:
        h = run.header
        up = h.upstream if isinstance(h.upstream, dict) else {}
        facts = [
            ["model", run.model],
            ["run id", run.run_id],
            ["file", Path(run.path).name],
            ["pipeline", f"{up.get('pipeline', '?')} ({up.get('repository', '?')} @ {str(up.get('commit'))[:7]})"],
            ["items", f"{len(h.own.items or ())} x {shown(h.iterations)} iteration(s); {len(run.records)} records"],
            ["sampling", ", ".join(f"{k} {shown(v)}" for k, v in (h.own.sampling or {}).items())],
            ["endpoint", endpoint_text(h)],
            ["started", shown(h.started_at)],
        ]
        facts += usage_facts(items, prices)
        rows = [[g.group, str(g.items), str(g.parsed), _cell(g)] for g in breakdown(decl, run)]
        scores = {
            "caption": f"{decl.primary}: the mean over items, 95 % interval over the items (Wilson's for a share)",
            "columns": ["group", "items", "parsed", decl.primary],
            "rows": rows,
        }
        return RunView(f"{run.model} · {run.run_id} ({decl.title})", facts, scores, list(run.warnings))

    return summary


def declare(decl: Declaration) -> Benchmark:
    """The :class:`~eqbench_nb.benchmarks.Benchmark` of a declaration: every command, from the four parts."""
    return Benchmark(
        name=decl.name,
        title=decl.title,
        run_options=DeclaredRunOptions,
        run=_run(decl),
        score_rows=_score_rows(decl),
        score_tables=_score_tables(decl),
        features=frozenset(FEATURES) | {"dry_run"},
        shared_run_options=frozenset({"iterations", "limit"}),
        runs=_runs(decl),
        leaderboard=_leaderboard(decl),
        read=_reader(decl),
        run_type=SampleRun,
        samples=_samples(decl),
        frame_schemas=(frame_schema(decl),),
        summary=_summary(decl),
    )
