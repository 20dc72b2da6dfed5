"""Running EQ-Bench: the benchmark's settings wired to the generic runner (:mod:`eqbench_nb.runner`).

:func:`run_benchmark` is the notebook and command-line entry point. It resolves every setting
before a request is sent (questions, protocol, endpoint, key, model, run file), starts the bundled
model when no ``base_url`` is given, asks each question under the protocol
(:func:`~eqbench_nb.eqbench.protocols.answer_question`) with at most C in flight, appends each
record to the run file as it finishes, and scores the run under every convention.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import sys
import time
from collections.abc import Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._version import __version__
from ..runner.batch import BatchTransport, answer_all_batched
from ..runner.cost import Estimate, Prices, Usage, estimate, token_counter
from ..runner.endpoint import (
    make_client,
    split_base_url,
)
from ..runner.errors import RunnerError
from ..runner.loop import run_coroutine
from ..runner.pool import PoolCounts, Progress, answer_all
from ..runner.ratelimit import AdaptiveLimiter
from ..runner.reasoning import BUDGET_SPENT, DEVIATIONS, REASONING_EFFORTS, ParameterAdapter, describe
from ..runner.redact import remember
from ..runner.runfile import RunFile, display_path
from ..runner.session import (
    check_settings,
    connect,
    reported_interrupt,
    sanitise,
)
from ..runner.transport import MAX_BODY_BYTES, RetryPolicy, Transport, TransportStats
from .conventions import CONVENTIONS, RunScore, score_run
from .prompts import build_messages
from .protocols import Protocol, answer_question, protocol_plan
from .questions import VERSIONS, Question, dataset_sha256, load_questions
from .runs import IDENTITY, MAX_ITERATIONS, Run, RunFormatError, RunRecord, read_run, record_from_json

#: Cap on a batch's output file (a 10-iteration run's is a few MB; the cap stops a runaway server)
BATCH_FILE_BYTES = 512 * 2**20
#: Header fields that define a run: a resume must match every one of them.
SETTINGS_KEYS = (
    "model",
    "version",
    "revise",
    "protocol",
    "parser",
    "match",
    "split_revision",
    "question_ids",
    "iterations",
    "temperatures",
    "max_tokens",
    "attempts",
    "stop",
    "seed",
    "dataset_sha256",
    "reasoning_effort",
)


# ---------------------------------------------------------------- settings


def parse_question_ids(spec: str | Iterable[str] | None) -> list[str] | None:
    """ "1,5,10-12" (or a list) into ids; None means all."""
    if spec is None:
        return None
    parts = spec.split(",") if isinstance(spec, str) else [str(s) for s in spec]
    ids: list[str] = []
    for part in (p.strip() for p in parts):
        if not part:
            continue
        if re.fullmatch(r"\d+-\d+", part):
            lo, hi = map(int, part.split("-"))
            ids.extend(str(i) for i in range(lo, hi + 1))
        elif re.fullmatch(r"\d+", part):
            ids.append(str(int(part)))
        else:
            raise RunnerError(f"bad question id {part!r} in --questions (use e.g. 1,5,10-12)")
    if not ids:
        raise RunnerError("--questions named no question ids")
    return list(dict.fromkeys(ids))


def select_questions(
    version: str,
    ids: str | Iterable[str] | None = None,
    limit: int | None = None,
    data_path: str | os.PathLike | None = None,
    protocol: str | None = None,
) -> list[Question]:
    """The questions to run (from the file of ``protocol``'s commit): the named ids (in set order), then at
    most ``limit`` of them."""
    if version not in VERSIONS:
        raise RunnerError(f"unknown EQ-Bench question set {version!r}; choose one of {', '.join(VERSIONS)}")
    questions = load_questions(version, data_path, protocol)
    wanted = parse_question_ids(ids)
    if wanted is not None:
        known = {q.id for q in questions}
        unknown = [i for i in wanted if i not in known]
        if unknown:
            raise RunnerError(
                f"question ids not in the {version} set (1-{len(questions)}): "
                f"{', '.join(unknown[:8])}{' …' if len(unknown) > 8 else ''}"
            )
        chosen = set(wanted)
        questions = [q for q in questions if q.id in chosen]
    if limit is not None:
        if limit < 1:
            raise RunnerError("--limit must be at least 1")
        questions = questions[:limit]
    return questions


def default_run_id(
    protocol: str,
    revise: bool,
    iterations: int,
    ids: list[str],
    all_ids: list[str],
    temperature: float | None = None,
    seed: int | None = None,
) -> str:
    """A readable id derived from the settings, so running the same command again resumes."""
    if ids == all_ids:
        selection = "all"
    elif ids == all_ids[: len(ids)]:
        selection = f"first{len(ids)}"
    else:
        selection = "q" + hashlib.sha256(",".join(ids).encode()).hexdigest()[:8]
    temp = "" if temperature is None else f"-t{temperature:g}"
    seeded = "" if seed is None else f"-s{seed}"
    return f"{protocol}{'-revise' if revise else ''}{temp}{seeded}-x{iterations}-{selection}"


def build_header(
    model: str,
    endpoint: str,
    run_id: str,
    version: str,
    revise: bool,
    protocol: Protocol,
    questions: list[Question],
    iterations: int,
    concurrency: int,
    timeout: float,
    data_path: str | os.PathLike | None,
    local: bool,
    options: RunOptions | None = None,
) -> dict[str, Any]:
    """The run file's header: every setting, the upstream pipeline, the data's sha256, no credentials.

    What departs from the protocol is recorded beside it: ``protocol_max_tokens`` (the protocol's
    limit, when ``--max-tokens`` replaced it), ``reasoning_effort``, and ``deviations`` (what the
    endpoint refused, learnt during the run: :mod:`eqbench_nb.runner.reasoning`)."""
    options = options or RunOptions()
    extra: dict[str, Any] = {}
    if options.reasoning_effort is not None:
        extra["reasoning_effort"] = options.reasoning_effort
    if options.batch:
        extra["batch"] = True
    return extra | {
        "model": model,
        "run_id": run_id,
        "endpoint": endpoint,
        "local_model": local,
        "version": version,
        "revise": bool(revise),
        "protocol": protocol.name,
        "parser": protocol.parser,
        "match": protocol.match,
        "split_revision": protocol.split_revision,
        "n_questions": len(questions),
        "question_ids": [q.id for q in questions],
        "iterations": iterations,
        "temperatures": list(protocol.temperatures),
        "max_tokens": protocol.max_tokens,
        "attempts": protocol.attempts,
        "stop": list(protocol.stop),
        "seed": protocol.seed,
        "concurrency": concurrency,
        "adaptive_concurrency": options.adaptive,
        "timeout_s": timeout,
        "eqbench_nb_version": __version__,
        "upstream": protocol.upstream,
        "dataset_sha256": dataset_sha256(version, data_path, protocol.name),
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


@dataclass(frozen=True)
class RunOptions:
    """What a run sends beyond its protocol, and how (reasoning models, the Batch API, pacing, prices)."""

    #: replaces the protocol's token limit (recorded as a deviation)
    max_tokens: int | None = None
    #: OpenAI's ``reasoning_effort``, sent while the endpoint accepts it
    reasoning_effort: str | None = None
    #: ``--concurrency`` as a ceiling, paced by the server's limits (:mod:`eqbench_nb.runner.ratelimit`)
    adaptive: bool = True
    #: through OpenAI's Batch API (:mod:`eqbench_nb.runner.batch`) at half price
    batch: bool = False
    poll_interval_s: float = 60.0
    #: dollars per million prompt / completion tokens, for the cost in the table
    price_in: float | None = None
    price_out: float | None = None

    @property
    def prices(self) -> Prices:
        return Prices(self.price_in, self.price_out, self.batch)


def check_options(options: RunOptions) -> None:
    """One line for each option a run cannot take."""
    if options.max_tokens is not None and options.max_tokens < 1:
        raise RunnerError("--max-tokens must be at least 1")
    if options.reasoning_effort is not None and options.reasoning_effort not in REASONING_EFFORTS:
        raise RunnerError(f"--reasoning-effort must be one of {', '.join(REASONING_EFFORTS)}")
    if options.poll_interval_s <= 0:
        raise RunnerError("--poll-interval must be positive")
    for name, price in (("--price-in", options.price_in), ("--price-out", options.price_out)):
        if price is not None and not price >= 0:
            raise RunnerError(f"{name} must be 0 or more dollars per million tokens")


def options_suffix(options: RunOptions, protocol_max_tokens: int) -> str:
    """What the default run id adds for options that change the answers (so a different one is a new run)."""
    suffix = ""
    if options.max_tokens is not None and options.max_tokens != protocol_max_tokens:
        suffix += f"-m{options.max_tokens}"
    if options.reasoning_effort is not None:
        suffix += f"-e{options.reasoning_effort}"
    return suffix


def protocol_deviations(header: dict[str, Any]) -> str:
    """What a run sent or read otherwise than its protocol says, one line ("" when nothing)."""
    extra = []
    if header.get("protocol_max_tokens") is not None:
        extra.append(f"--max-tokens {header.get('max_tokens')} (the protocol sends {header['protocol_max_tokens']})")
    if header.get("reasoning_effort"):
        extra.append(f"reasoning_effort {header['reasoning_effort']} asked")
    return describe(header.get("deviations") or (), extra)


def _batches_closed(events: list[dict[str, Any]]) -> bool:
    closed = {e.get("batch_id") for e in events if e.get("event") == "batch_closed"}
    return all(e.get("batch_id") in closed for e in events if e.get("event") == "batch")


# ---------------------------------------------------------------- results


@dataclass
class RunResult:
    """What a run produced: its file, the run as read back, and its score under each convention."""

    path: Path
    run: Run
    scores: dict[str, RunScore]
    stats: TransportStats
    wall_s: float
    answered_now: int
    unfinished: int
    notes: list[str] = field(default_factory=list)
    #: the last transport fault or failed request of this session ("" if none)
    last_fault: str = ""
    #: the rate limiter's last word (None for a batch run)
    concurrency: str | None = None
    prices: Prices = field(default_factory=Prices)
    #: the Batch API's figures for this session (None without --batch)
    batch: str | None = None

    @property
    def complete(self) -> bool:
        """Every question of every iteration has a record (answered, or failed and recorded as such)."""
        return len(self.run.records) >= self.run.n_questions * len(self.run.iterations) and not self.unfinished

    @property
    def failed_requests(self) -> list[tuple[int, str, str]]:
        """(iteration, question id, error) for each record with no stored answer and a failed request
        (rejected 400/413/422, no content, body too large): counted unparseable, as upstream would."""
        out = []
        for r in self.run.records:
            errors = [a["error"] for a in r.attempts if a.get("error") and a.get("text") is None]
            if errors and r.answer_attempt is None:
                out.append((r.iteration, r.question_id, errors[-1]))
        return out

    @property
    def tokens(self) -> tuple[int, int]:
        """(prompt, completion) tokens over every attempt in the run file."""
        usage = self.usage
        return usage.prompt, usage.completion

    @property
    def usage(self) -> Usage:
        """Prompt, completion and reasoning tokens over every attempt in the run file."""
        return Usage.of(a for r in self.run.records for a in r.attempts)

    @property
    def form_prediction(self) -> tuple[str, float, float, float] | None:
        """For a short-form run: (form name, predicted full score, 95 % prediction interval low, high)."""
        form = self.run.header.get("form")
        if not form or "official" not in self.scores:
            return None
        from .short_form import predict

        return (form["name"], *predict(form, self.scores["official"].score))

    def table(self, timing: bool = True) -> str:
        """The final summary: score, parseable count and failure flag under each convention.

        ``timing=False`` leaves out what changes from one identical run to the next (wall time,
        requests), for notebooks whose saved output should not churn.
        """
        n_q, iters = self.run.n_questions, len(self.run.iterations)
        per = " per iteration (mean)" if iters > 1 else ""
        lines = [
            f"run file   {display_path(self.path)}",
            f"model      {self.run.model}   set {self.run.version}   protocol "
            f"{self.run.header.get('protocol')}   revise {self.run.revise}   iterations {iters}",
            "",
            f"{'convention':<11}{'score':>9}  {'parseable' + per:>11}  failed",
        ]
        for name, s in self.scores.items():
            score = "—" if s.score != s.score else f"{s.score:.4f}" if name == "evalscope" else f"{s.score:.2f}"
            lines.append(f"{name:<11}{score:>9}  {s.n_parseable:>6.4g}/{n_q:<4}  {'FAILED' if s.failed else 'no'}")
        if (fp := self.form_prediction) is not None:
            lines += [
                "",
                f"short form {fp[0]}: predicted full v2 score {fp[1]:.2f}, 95 % prediction interval {fp[2]:.2f} to "
                f"{fp[3]:.2f} (from the official score over its {self.run.n_questions} questions; notebook 08 §5)",
            ]
        deviations = protocol_deviations(self.run.header)
        if deviations:
            lines.insert(2, f"protocol   {self.run.header.get('protocol')} protocol; {deviations}")
        usage = self.usage
        lines += [
            "",
            f"records    {len(self.run.records)} of {n_q * iters} ({self.answered_now} answered now, "
            f"{self.unfinished} left unfinished)",
            f"tokens     {usage.describe(self.prices)}",
        ]
        stripped = sum(1 for r in self.run.records for a in r.attempts if "raw_text" in a or "reasoning" in a)
        if stripped:
            lines.append(
                f"reasoning  taken off {stripped} repl{'ies' if stripped > 1 else 'y'} before parsing (<think> blocks, "
                "reasoning fields); the raw text is kept in each attempt's raw_text / reasoning"
            )
        failed = self.failed_requests
        if failed:
            named = ", ".join(f"{q}" if iters == 1 else f"{q} (iteration {i})" for i, q, _ in failed[:12])
            lines.append(
                f"failed     {len(failed)} question{'s' if len(failed) > 1 else ''} whose requests failed, "
                f"counted unparseable: {named}{' …' if len(failed) > 12 else ''}; last: {failed[-1][2]}"
            )
            if any(e.startswith(BUDGET_SPENT) for _, _, e in failed):
                lines.append(
                    f"hint       the token budget ({self.run.header.get('max_tokens')}) went on reasoning before "
                    "any answer: raise --max-tokens (e.g. --max-tokens 4000) or lower --reasoning-effort"
                )
        if timing:
            faults = ", ".join(f"{k} x{v}" for k, v in sorted(self.stats.faults.items())) or "none"
            lines.append(f"requests   {self.stats.requests:,}  transport retries {self.stats.retries} ({faults})")
            if self.stats.failed:
                kinds = ", ".join(f"{k} x{v}" for k, v in sorted(self.stats.failed.items()))
                lines.append(f"           failed requests {sum(self.stats.failed.values())} ({kinds})")
            if self.concurrency:
                lines.append(f"concurrency {self.concurrency}")
            if self.batch:
                lines.append(f"batch      {self.batch}")
            lines.append(f"wall time  {self.wall_s:.1f} s")
        if self.unfinished:
            lines.append(f"unfinished {self.unfinished}; last fault: {self.last_fault or 'none'}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


# ---------------------------------------------------------------- the run


@dataclass
class _Plan:
    """Everything a run needs, resolved from the arguments before any request is sent."""

    base_url: str
    endpoint: str
    model: str
    api_key: str
    questions: list[Question]
    protocol: Protocol
    revise: bool
    iterations: int
    concurrency: int
    timeout: float
    path: Path
    header: dict[str, Any]
    retry: RetryPolicy
    progress: bool
    secrets: list[str] = field(default_factory=list)
    repair: bool = False
    options: RunOptions = field(default_factory=lambda: RunOptions())


def _record_summary(record: RunRecord) -> tuple[bool, float | None]:
    score = record.revised_score if record.revised_score is not None else record.first_pass_score
    return score is not None, score


async def _execute(plan: _Plan) -> RunResult:
    started = time.perf_counter()
    run_file = RunFile(plan.path, plan.header, record_from_json, SETTINGS_KEYS, IDENTITY, plan.repair)
    for note in filter(None, run_file.notes):
        print(note, file=sys.stderr)
    run_id = run_file.header["run_id"]
    done = {r.key for r in run_file.finished}
    # planned lazily: the pool pulls one job at a time
    jobs = ((it, q) for it in range(1, plan.iterations + 1) for q in plan.questions if (it, q.id) not in done)
    progress: Progress | None = None
    client: Any = None
    failed = True
    try:  # from here on the run file (and its lock) is closed whatever happens
        progress = Progress(
            len(plan.questions) * plan.iterations,
            run_file.finished,
            _record_summary,
            plan.progress,
            desc=f"{plan.model} {plan.header['version']}",
        )
        options = plan.options
        shown = progress

        def deviation(code: str) -> None:  # learnt from the endpoint: in the run file at once, and said
            run_file.append_event({"event": "deviation", "code": code})
            shown.write(f"note: {DEVIATIONS[code]}; recorded in the run header")

        adapter = ParameterAdapter(options.reasoning_effort, run_file.header.get("deviations") or (), deviation)
        limiter = (
            None
            if options.batch
            else AdaptiveLimiter(plan.concurrency, options.adaptive, max_pause_s=plan.retry.max_retry_after_s)
        )
        client = make_client(
            plan.base_url,
            plan.api_key,
            plan.timeout,
            BATCH_FILE_BYTES if options.batch else MAX_BODY_BYTES,
            on_response=limiter.observe if limiter is not None else None,
        )
        common: dict[str, Any] = dict(
            deadline_s=plan.timeout, secrets=plan.secrets, notice=progress.write, adapter=adapter, limiter=limiter
        )
        transport: Transport
        if options.batch:
            transport = BatchTransport(
                client,
                plan.model,
                plan.endpoint,
                plan.api_key,
                plan.retry,
                run_file=run_file,
                poll_interval_s=options.poll_interval_s,
                bars=plan.progress,
                **common,
            )
        else:
            transport = Transport(client, plan.model, plan.endpoint, plan.api_key, plan.retry, **common)

        async def solve(job: tuple[int, Question]) -> RunRecord:
            iteration, question = job
            return await answer_question(transport, question, plan.protocol, plan.revise, plan.model, run_id, iteration)

        if isinstance(transport, BatchTransport):
            answered, unfinished = await answer_all_batched(
                jobs, solve, lambda job: f"{job[0]}-{job[1].id}", run_file, transport, shown.update
            )
            counts = PoolCounts(answered, unfinished)
        else:
            if any(e.get("event") == "batch" for e in run_file.events) and not _batches_closed(run_file.events):
                raise RunnerError(
                    f"{display_path(plan.path)} has batches submitted through the Batch API; run with --batch to "
                    "collect them (they are paid for) rather than asking their questions again"
                )
            counts = await answer_all(jobs, solve, run_file, transport, plan.concurrency, progress, plan.endpoint)
        failed = False
    finally:
        if progress is not None:
            progress.close(failed)
        run_file.close()
        if client is not None:
            await client.close()
        if run_file.error:  # a failed write says more than whatever it made fail
            raise RunnerError(
                f"{run_file.error}; {run_file.lost} answer{'s' if run_file.lost != 1 else ''} received since the "
                f"last write could not be saved and no new request was sent; {run_file.error_hint}"
            )
    try:
        run = read_run(plan.path)
    except RunFormatError as exc:  # changed under us after the last write
        raise RunnerError(f"the run finished but its file cannot be read back: {exc}") from None
    for warning in run.warnings:  # what the resume did not already say (ratings out of range)
        if f"{display_path(plan.path)}: {warning}" not in run_file.notes:
            print(f"warning: {display_path(plan.path)}: {warning}", file=sys.stderr)
    scores = {c: score_run(run, c) for c in CONVENTIONS}
    return RunResult(
        plan.path,
        run,
        scores,
        transport.stats,
        time.perf_counter() - started,
        counts.answered,
        counts.unfinished,
        [n for n in run_file.notes if n] + run.warnings,
        transport.last_fault,
        limiter.describe() if limiter is not None else None,
        plan.options.prices,
        transport.batch_stats.describe() if isinstance(transport, BatchTransport) else None,
    )


def _short_form(form: str | None, version: str, questions: Any, limit: int | None):
    """The :class:`~eqbench_nb.eqbench.short_form.FormSpec` named by ``form`` (None for none), or a RunnerError."""
    if form is None:
        return None
    from .short_form import form_names, load_forms

    names = form_names()
    if form not in names:
        raise RunnerError(f"unknown short form {form!r}; the validated forms are: {', '.join(names) or 'none'}")
    if version != "v2":
        raise RunnerError("--form needs --set v2: the short forms were fitted on v2 runs")
    if questions is not None or limit is not None:
        raise RunnerError("--form chooses the questions itself; drop --questions and --limit")
    return load_forms()[form]


def run_benchmark(
    base_url: str | None = None,
    model: str | None = None,
    version: str = "v2",
    protocol: str = "official",
    revise: bool = False,
    iterations: int = 1,
    concurrency: int | None = None,
    limit: int | None = None,
    questions: str | Iterable[str] | None = None,
    out_dir: str | os.PathLike = "runs",
    run_id: str | None = None,
    api_key_env: str | None = None,
    timeout: float | None = None,
    progress: bool = True,
    retry: RetryPolicy | None = None,
    data_path: str | os.PathLike | None = None,
    temperature: float | None = None,
    seed: int | None = None,
    retry_budget: float | None = None,
    repair: bool = False,
    form: str | None = None,
    options: RunOptions | None = None,
) -> RunResult:
    """Run EQ-Bench and return a :class:`RunResult`; the same call again resumes the same run file.

    With ``base_url=None`` the bundled SmolLM2-135M-Instruct is served on 127.0.0.1 for the run.
    Otherwise any OpenAI-compatible endpoint, the key read from ``OPENAI_API_KEY`` or the
    variable named by ``api_key_env``. ``version`` is the question set ("v2", "v1", "de" or "pl"), read
    from the file of the protocol's upstream commit. The file is
    ``<out_dir>/<model>__<version>__<run_id>.jsonl``. ``temperature`` replaces the first attempt's
    temperature; ``seed`` is sent with every request (see :func:`protocol_plan`).

    ``timeout`` bounds each request as a whole. ``retry_budget`` is how many seconds one request
    may spend waiting between retries of transport faults (429, 5xx, resets) before its question is
    left for the next resume (default :class:`RetryPolicy`'s, which outlasts a 60 s rate-limit
    window). ``repair`` moves unreadable lines in the middle of the run file aside (to
    ``<file>.unreadable``) and asks their questions again. ``form`` names a validated short form
    (:mod:`eqbench_nb.eqbench.short_form`): only its questions are asked, the header records it, and the
    result reports the predicted full score with its prediction interval. Another process writing the same run
    file, a file that cannot be written, or credentials in ``base_url`` stop the call with a
    :class:`RunnerError` before any request is sent. The result's :attr:`RunResult.unfinished`
    counts questions left for the next resume.

    ``options`` (:class:`RunOptions`): ``max_tokens`` replaces the protocol's token limit and
    ``reasoning_effort`` is sent (both recorded in the header); ``adaptive`` (default on) makes
    ``concurrency`` a ceiling paced by the server's rate limits; ``batch`` sends the run through
    OpenAI's Batch API; ``price_in`` / ``price_out`` give the cost in the table.
    """
    options = options or RunOptions()
    check_options(options)
    if iterations < 1:
        raise RunnerError("--iterations must be at least 1")
    if iterations > MAX_ITERATIONS:
        raise RunnerError(f"--iterations must be at most {MAX_ITERATIONS:,} (not {iterations:,})")
    concurrency, timeout, policy = check_settings(concurrency, timeout, retry_budget, retry)
    secrets = split_base_url(base_url)[2] if base_url is not None else []
    form_spec = _short_form(form, version, questions, limit)
    if form_spec is not None:
        questions = form_spec.question_ids
    remember(*secrets)  # from here on every message and record is redacted of them
    chosen = select_questions(version, questions, limit, data_path, protocol)
    plan_protocol = protocol_plan(protocol, version, revise, temperature, seed)
    protocol_max_tokens = plan_protocol.max_tokens
    if options.max_tokens is not None:
        plan_protocol = dataclasses.replace(plan_protocol, max_tokens=options.max_tokens)
    with ExitStack() as stack:
        conn = connect(stack, base_url, model, concurrency, api_key_env, timeout, secrets)
        model, concurrency = conn.model, conn.concurrency
        all_ids = [q.id for q in load_questions(version, data_path, plan_protocol.name)]
        rid = run_id or default_run_id(
            plan_protocol.name, revise, iterations, [q.id for q in chosen], all_ids, temperature, seed
        ) + options_suffix(options, protocol_max_tokens)
        path = Path(out_dir) / f"{sanitise(model)}__{version}__{sanitise(rid)}.jsonl"
        header = build_header(
            model,
            conn.endpoint,
            rid,
            version,
            revise,
            plan_protocol,
            chosen,
            iterations,
            concurrency,
            timeout,
            data_path,
            conn.local,
            options,
        )
        if form_spec is not None:
            header["form"] = form_spec.header()
        if plan_protocol.max_tokens != protocol_max_tokens:
            header["protocol_max_tokens"] = protocol_max_tokens
        plan = _Plan(
            conn.base_url,
            conn.endpoint,
            model,
            conn.api_key,
            chosen,
            plan_protocol,
            revise,
            iterations,
            concurrency,
            timeout,
            path,
            header,
            policy,
            progress,
            secrets,
            repair,
            options,
        )
        with reported_interrupt(path):
            return run_coroutine(lambda: _execute(plan))


def estimate_run(
    model: str | None = None,
    version: str = "v2",
    protocol: str = "official",
    revise: bool = False,
    iterations: int = 1,
    limit: int | None = None,
    questions: str | Iterable[str] | None = None,
    data_path: str | os.PathLike | None = None,
    temperature: float | None = None,
    options: RunOptions | None = None,
) -> Estimate:
    """What ``run_benchmark`` with these settings would send and cost, sending nothing (``run --dry-run``)."""
    options = options or RunOptions()
    check_options(options)
    chosen = select_questions(version, questions, limit, data_path, protocol)
    plan = protocol_plan(protocol, version, revise, temperature)
    max_tokens = options.max_tokens or plan.max_tokens
    first = [build_messages(q, revise) for q in chosen] * iterations
    return estimate(first, plan.attempts, max_tokens, token_counter(model or ""), options.prices)
