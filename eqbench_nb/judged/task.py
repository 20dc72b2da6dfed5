"""Running creative-writing and Judgemark on the generic runner (:mod:`eqbench_nb.runner`), as ``d28c60c`` runs them.

- :func:`run_creative_writing`: the model under test writes to the 19 prompts in each iteration (its seed modifier,
  :func:`.creative_writing.writing_prompt`), and the judge, a second endpoint, scores each piece with one
  combined-criteria request (:func:`.creative_writing.judge_prompt`, temperature 0, 3,000 tokens).
- :func:`run_judgemark`: the judge, the run's only endpoint, scores the test set's 360 pieces (19 writers), one
  request per piece.

Each (iteration, item) is one job of the runner: an async generator that asks :func:`.runs.next_step`'s request,
yields its record (appended and fsynced at once), and asks again until the item has ended. What to ask is decided
from the records alone, so the same call again resumes at the first request whose reply is not on disk and never
pays for one twice. The file is ``<out_dir>/<model>__<benchmark>__<run_id>.jsonl``, ``<model>`` the judge's for
Judgemark; its header names both endpoints, the sampling, the items and the sha256 of the data files read.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..eqbench3.options import judge_options_given
from ..runner.errors import RunnerError
from ..runner.header import RunHeader
from ..runner.runfile import display_path
from ..runner.session import Connection, RunResult, Second, Task, run_task, url_secrets
from ..runner.settings import Endpoint, RunSettings
from ..runner.transport import Transport, TransportStats, closing_lines
from . import creative_writing as cw
from . import files
from .header import JudgedHeader
from .options import JudgedRunOptions, one_judge
from .runs import (
    CREATIVE_WRITING,
    IDENTITY,
    JUDGE,
    JUDGEMARK,
    PIECE,
    Ask,
    JudgedRun,
    RequestRecord,
    judgemark_item,
    next_step,
    read_judged_run,
    record_from_json,
    split_item,
)
from .summary import CreativeWritingSummary, JudgemarkSummary, summarise_creative_writing, summarise_judgemark

UPSTREAM = {
    "repository": "EQ-bench/EQ-Bench",
    "commit": files.manifest()["commit"],
    "pipeline": "lib/creative_writing_utils.py: process_writing_prompt, process_criteria; lib/scoring.py",
}
SETTINGS_KEYS = ("benchmark", "model", "judge_model", "iterations", "items", "sampling", "seed", "files_sha256")
#: What the model under test may be asked beyond upstream's request (not the Batch API: a piece's retry waits for
#: its last attempt), and the judge: the Batch API too (``--judge-batch``: the judgements of the pieces written go
#: out as one batch, each round of re-asks as the next).
WIRED_FEATURES = ("max_tokens", "reasoning_effort", "price_in", "price_out")
JUDGE_FEATURES = ("max_tokens", "reasoning_effort", "price_in", "price_out", "batch")
JUDGE_LABEL = "judge"


def prompts(data_path: Any = None) -> dict[str, dict[str, Any]]:
    """The 19 creative-writing prompts, by id, in upstream's order (sha256 checked)."""
    return dict(files.read_json(files.PROMPTS_FILE, data_path))


def judgemark_pieces(data_path: Any = None) -> dict[str, str]:
    """Judgemark's 360 pieces as ``{"<writer>|<prompt id>": text}``, in the test set's order (sha256 checked)."""
    raw = files.read_json(files.TEST_SET_FILE, data_path)
    return {judgemark_item(w, p): text for w, by in raw.items() for p, text in by.items()}


def sampling(endpoint: Endpoint | None, judge: Endpoint) -> dict[str, Any]:
    """What each request is asked with (upstream's, or the token limits given instead)."""
    out: dict[str, Any] = {}
    if endpoint is not None:
        out |= {
            "piece_temperatures": cw.piece_temperatures(),
            "piece_max_tokens": endpoint.max_tokens or cw.WRITER_MAX_TOKENS,
        }
    return out | {
        "judge_temperature": cw.JUDGE_TEMPERATURE,
        "judge_max_tokens": judge.max_tokens or cw.JUDGE_MAX_TOKENS,
    }


@dataclass(frozen=True)
class Job:
    iteration: int
    item: str
    done: tuple[RequestRecord, ...]


def plan_jobs(items: list[str], iterations: int, finished: list[RequestRecord], pieces: Mapping[str, str] | None):
    """Iteration by iteration, each item that has not ended, with the records the file holds for it."""
    held: dict[tuple[int, str], list[RequestRecord]] = {}
    for r in finished:
        held.setdefault((r.iteration, r.item), []).append(r)

    def jobs() -> Iterator[Job]:
        for i in range(1, iterations + 1):
            for item in items:
                done = held.get((i, item), [])
                given = pieces.get(item) if pieces is not None else None
                if isinstance(next_step(done, given, writes_piece=pieces is None), Ask):
                    yield Job(i, item, tuple(done))

    return jobs()


@dataclass(frozen=True)
class Asker:
    """How one endpoint is asked: its transport, model name, token limit and seed."""

    transport: Transport
    max_tokens: int
    seed: int | None = None


def solver_for(
    model: str,
    run_id: str,
    writer: Asker | None,
    judge: Asker,
    prompt_records: Mapping[str, Mapping[str, Any]],
    pieces: Mapping[str, str] | None,
):
    """The ``solve`` of one job: ask :func:`.runs.next_step`'s request, yield its record, until the item ends.

    A judge beside a model under test that rejects a request before it has answered any (a 4xx: a wrong model
    name, a token limit it refuses) stops the run in one line, as the runner stops for the first endpoint, rather
    than spend 12 requests on every piece and the pieces' cost with them."""

    async def solve(job: Job) -> AsyncIterator[RequestRecord]:
        records = list(job.done)
        prompt_id = split_item(job.item)[1]
        record = prompt_records[prompt_id]
        given = pieces.get(job.item) if pieces is not None else None
        while isinstance(ask := next_step(records, given, writes_piece=pieces is None), Ask):
            if ask.step == PIECE:
                assert writer is not None
                asker, text = writer, cw.retry_prompt(cw.writing_prompt(record, job.iteration), ask.attempt)
            else:
                asker, text = judge, cw.judge_prompt(record, job.iteration, ask.piece or "")
            c = await asker.transport.complete(
                [{"role": "user", "content": text}], ask.temperature, asker.max_tokens, (), asker.seed
            )
            # the runner's first-answers rule, for the second endpoint
            rejected = c.text is None and c.error is not None and judge.transport.stats.responses == 0
            if asker is judge and writer is not None and rejected:
                raise RunnerError(
                    f"the judge rejected its first request ({c.error}); nothing more is asked (the pieces written "
                    "are kept for the resume): check --judge-model and the judge endpoint's limits"
                )
            # the reply as received is the record; what the judge's numbers say is derived from it by the one
            # reader (never raising), so the paid reply reaches the file whatever it holds
            new = RequestRecord.of(model, run_id, job.iteration, job.item, ask.round, ask.step, ask.attempt,
                                   c.attempt(ask.temperature))  # fmt: skip
            records.append(new)
            yield new

    return solve


def _bar_summary(record: RequestRecord) -> tuple[bool, float | None]:
    """(fine?, the piece's score on 0-10) for the bar: a judge reply by what parsed from it, a piece as written."""
    if record.step != JUDGE:
        return record.text is not None, None
    return bool(record.scores), cw.piece_score(record.scores or {})


def _files_sha256() -> dict[str, str | None]:
    return {name: files.FILES.sha256(name) for name in (files.PROMPTS_FILE, files.TEST_SET_FILE)}


def _header(
    benchmark: str,
    conn: Connection,
    rid: str,
    endpoint: Endpoint,
    iterations: int,
    items: list[str],
    settings: RunSettings,
    judge: Connection,
    judge_endpoint: Endpoint,
    subject: Endpoint | None,
) -> RunHeader[JudgedHeader]:
    """A new run's header: the common fields, the items, and the judge (a second endpoint's fields only when the
    judge is one: creative-writing)."""
    common = conn.common_fields(rid, endpoint, settings, benchmark=benchmark, iterations=iterations, upstream=UPSTREAM)
    second = judge is not conn
    own = JudgedHeader(
        judge_model=judge.model,
        judge_endpoint=judge.endpoint if second else None,
        judge_concurrency=judge.concurrency if second else None,
        items=tuple(items),
        sampling=sampling(subject, judge_endpoint),
        files_sha256=_files_sha256(),
    )
    return RunHeader.new(common, own)


class JudgedRunResult(RunResult[JudgedRun, CreativeWritingSummary | JudgemarkSummary]):
    """What a run produced (:class:`~eqbench_nb.runner.session.RunResult`): its file, the run as read back, its
    summary, this session's counts of each endpoint. Complete when every item has ended (scored or not): the
    requests an item takes vary, so the count of records says nothing of it."""

    @property
    def judge_stats(self) -> TransportStats | None:
        """The judge's requests this session: a creative-writing run's second endpoint's."""
        return self.endpoint_stats.get(JUDGE_LABEL)

    UNIT = "item"

    @property
    def complete(self) -> bool:
        return self.summary.progress.complete and not self.unfinished

    @property
    def left(self) -> int:
        return self.unfinished or self.summary.progress.pending

    def table(self, timing: bool = True) -> str:
        from .report import summary_lines

        head = [
            f"run file   {display_path(self.path)}",
            f"{'judge' if self.run.benchmark == JUDGEMARK else 'model'}      {self.run.model}   benchmark "
            f"{self.run.benchmark}   items {len(self.run.items_asked())}   iterations {self.run.iterations}",
        ]
        if self.run.benchmark == CREATIVE_WRITING:
            head.append(f"judge      {self.run.judge}")
        lines = [*head, "", *summary_lines(self.summary), "",
                 f"requests   {len(self.run.records)} in the file ({self.answered_now} written now, "
                 f"{self.unfinished} items left unfinished)"]  # fmt: skip
        if timing:
            if self.run.benchmark == CREATIVE_WRITING:
                lines.append(self.stats.line())
                if self.judge_stats is not None:
                    lines.append(self.judge_stats.line("judge"))
            else:
                lines.append(self.stats.line("judge"))
        lines += closing_lines(self.wall_s, self.unfinished, self.last_fault, timing)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def run_creative_writing(
    endpoint: Endpoint | None = None,
    judge: Endpoint | None = None,
    settings: RunSettings | None = None,
    options: JudgedRunOptions | None = None,
    **given: Any,
) -> JudgedRunResult:
    """Run creative-writing (module docstring) and return a :class:`JudgedRunResult`; the same call again resumes.

    ``endpoint`` is the model under test, ``judge`` the judge (None: the one judge ``options`` names; without base
    URLs the bundled SmolLM2-135M-Instruct plays both: an offline demonstration that says nothing about writing).
    Its options are :class:`~eqbench_nb.judged.options.JudgedRunOptions` (``options``), or its fields as keywords
    (``iterations=2``; with ``options``, in place of its fields), checked as the command line checks them."""
    o = JudgedRunOptions.of(options, **given)
    endpoint, settings = endpoint or Endpoint(), settings or RunSettings()
    judge = _judge(judge, o, "creative-writing")
    endpoint.refuse_features(WIRED_FEATURES, "creative-writing")
    judge.refuse_features(JUDGE_FEATURES, "creative-writing's judge")
    endpoint, judge = endpoint.checked(), judge.checked()
    url_secrets(endpoint)
    url_secrets(judge)
    task = creative_writing_task(endpoint, judge, settings, o.iterations)
    return run_task(endpoint, settings, task, JudgedRunResult)


def _judge(judge: Endpoint | None, options: JudgedRunOptions, title: str) -> Endpoint:
    """The judge given as ``judge``, or the one the options name; both at once, or a dry run, is refused."""
    if options.dry_run:
        raise RunnerError(f"dry_run: `eqbench-nb run --benchmark {title.lower()} --dry-run` says what a run would send")
    if judge is not None and judge_options_given(options):
        raise RunnerError("the judge is given twice: as judge= and as judge options; give one")
    return judge if judge is not None else one_judge(options, title)


def creative_writing_task(endpoint: Endpoint, judge: Endpoint, settings: RunSettings, iterations: int) -> Task[Job]:
    """creative-writing's run declared for :func:`~eqbench_nb.runner.session.run_task` (options already checked)."""
    records = prompts(settings.data_path)
    items = list(records)

    def header(conn: Connection, rid: str, others: Mapping[str, Second]) -> RunHeader[JudgedHeader]:
        second = others[JUDGE_LABEL].connection
        return _header(CREATIVE_WRITING, conn, rid, endpoint, iterations, items, settings, second, judge, endpoint)

    def solver(transport: Transport, header: RunHeader[Any], judge_transport: Transport | None = None) -> Any:
        assert judge_transport is not None
        writer = Asker(transport, endpoint.max_tokens or cw.WRITER_MAX_TOKENS, settings.seed)
        judged = Asker(judge_transport, judge.max_tokens or cw.JUDGE_MAX_TOKENS, settings.seed)
        return solver_for(header.text("model", ""), header.text("run_id", ""), writer, judged, records, None)

    return Task(
        CREATIVE_WRITING,
        f"d28c60c-x{iterations}",
        header,
        record_from_json,
        SETTINGS_KEYS,
        IDENTITY,
        lambda finished: plan_jobs(items, iterations, finished, None),
        2 * iterations * len(items),  # the fewest requests: a piece and its judgement per prompt
        solver,
        _bar_summary,
        desc="creative-writing",
        read=lambda path: read_judged_run(path, CREATIVE_WRITING),
        summarise=summarise_creative_writing,
        score_label="piece",
        score_scale=10.0,
        endpoints=((JUDGE_LABEL, judge),),
        item_noun="prompts",
        item_key=job_key,
    )


def run_judgemark(
    judge: Endpoint | None = None,
    settings: RunSettings | None = None,
    options: JudgedRunOptions | None = None,
    **given: Any,
) -> JudgedRunResult:
    """Run Judgemark (module docstring): ``judge`` scores the test set (None: the one judge ``options`` names); the
    same call again resumes. Its options are :class:`~eqbench_nb.judged.options.JudgedRunOptions`, or its fields as
    keywords, as :func:`run_creative_writing` takes them."""
    o = JudgedRunOptions.of(options, **given)
    judge, settings = _judge(judge, o, "Judgemark"), settings or RunSettings()
    judge.refuse_features(JUDGE_FEATURES, "Judgemark's judge")
    judge = judge.checked()
    url_secrets(judge)
    return run_task(judge, settings, judgemark_task(judge, settings, o.iterations), JudgedRunResult)


def judgemark_task(judge: Endpoint, settings: RunSettings, iterations: int) -> Task[Job]:
    """Judgemark's run declared for :func:`~eqbench_nb.runner.session.run_task`: the judge is the run's endpoint."""
    records = prompts(settings.data_path)
    pieces = judgemark_pieces(settings.data_path)
    items = list(pieces)

    def header(conn: Connection, rid: str, others: Mapping[str, Second]) -> RunHeader[JudgedHeader]:
        return _header(JUDGEMARK, conn, rid, judge, iterations, items, settings, conn, judge, None)

    def solver(transport: Transport, header: RunHeader[Any]) -> Any:
        judged = Asker(transport, judge.max_tokens or cw.JUDGE_MAX_TOKENS, settings.seed)
        return solver_for(header.text("model", ""), header.text("run_id", ""), None, judged, records, pieces)

    return Task(
        JUDGEMARK,
        f"d28c60c-x{iterations}",
        header,
        record_from_json,
        SETTINGS_KEYS,
        IDENTITY,
        lambda finished: plan_jobs(items, iterations, finished, pieces),
        iterations * len(items),
        solver,
        _bar_summary,
        desc="Judgemark",
        read=lambda path: read_judged_run(path, JUDGEMARK),
        summarise=lambda run: summarise_judgemark(run, pieces),
        option_prefix="judge-",  # Judgemark's one endpoint is its judge's
        score_label="piece",
        score_scale=10.0,
        item_noun="pieces",
        key_owner=JUDGE_LABEL,  # the judge is the run's own endpoint: its key is --judge-api-key-env's
        batch_key=job_key,
    )


def job_key(job: Job) -> str:
    """A job's name in the Batch API's custom ids: its iteration and a digest of its item (a writer's name may hold
    any character)."""
    return f"{job.iteration}-{hashlib.sha256(job.item.encode()).hexdigest()[:16]}"
