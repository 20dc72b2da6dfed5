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

from .. import __version__
from ..runner.endpoint import (
    check_reachable,
    discover_model,
    make_client,
    plain_http_warning,
    public_endpoint,
    resolve_api_key,
    split_base_url,
)
from ..runner.errors import RunnerError
from ..runner.loop import Terminated, run_coroutine
from ..runner.pool import Progress, answer_all
from ..runner.redact import remember
from ..runner.runfile import RunFile, display_path
from ..runner.transport import RetryPolicy, Transport, TransportStats
from .conventions import CONVENTIONS, RunScore, score_run
from .protocols import Protocol, answer_question, protocol_plan
from .questions import VERSIONS, Question, dataset_sha256, load_questions
from .runs import IDENTITY, MAX_ITERATIONS, Run, RunFormatError, RunRecord, read_run, record_from_json

#: Enough parallelism to hide a remote API's latency without tripping typical rate limits.
DEFAULT_CONCURRENCY = 8
#: The bundled model on 2 cores: one request per server slot; more only queue.
LOCAL_CONCURRENCY = 1
DEFAULT_TIMEOUT_S = 120.0
#: The most requests in flight: each worker holds a connection and a coroutine.
MAX_CONCURRENCY = 1024
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
) -> list[Question]:
    """The questions to run: the named ids (in set order), then at most ``limit`` of them."""
    if version not in VERSIONS:
        raise RunnerError(f"unknown EQ-Bench question set {version!r}; choose one of {', '.join(VERSIONS)}")
    questions = load_questions(version, data_path)
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


#: Longest model or run name kept whole in a file name (a file name is at most 255 bytes).
MAX_NAME_CHARS = 100


def sanitise(name: str) -> str:
    """A model or run name safe as part of a file name. A name that is cut (over
    :data:`MAX_NAME_CHARS`) or has nothing left (``.``, ``..``) ends with a hash of the whole name, so
    two names never share a file; the header keeps the name as given."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")
    if safe and len(safe) <= MAX_NAME_CHARS:
        return safe
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{safe[: MAX_NAME_CHARS - 13]}-{digest}" if safe else f"id-{digest}"


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
) -> dict[str, Any]:
    """The run file's header: every setting, the upstream pipeline, the data's sha256, no credentials."""
    return {
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
        "timeout_s": timeout,
        "eqbench_nb_version": __version__,
        "upstream": protocol.upstream,
        "dataset_sha256": dataset_sha256(version, data_path),
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


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
        attempts = [a for r in self.run.records for a in r.attempts]
        prompt = sum(_tokens(a.get("prompt_tokens")) for a in attempts)
        return prompt, sum(_tokens(a.get("completion_tokens")) for a in attempts)

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
            score = f"{s.score:.4f}" if name == "evalscope" else f"{s.score:.2f}"
            lines.append(f"{name:<11}{score:>9}  {s.n_parseable:>6.4g}/{n_q:<4}  {'FAILED' if s.failed else 'no'}")
        prompt, completion = self.tokens
        lines += [
            "",
            f"records    {len(self.run.records)} of {n_q * iters} ({self.answered_now} answered now, "
            f"{self.unfinished} left unfinished)",
            f"tokens     prompt {prompt:,}  completion {completion:,}",
        ]
        failed = self.failed_requests
        if failed:
            named = ", ".join(f"{q}" if iters == 1 else f"{q} (iteration {i})" for i, q, _ in failed[:12])
            lines.append(
                f"failed     {len(failed)} question{'s' if len(failed) > 1 else ''} whose requests failed, "
                f"counted unparseable: {named}{' …' if len(failed) > 12 else ''}; last: {failed[-1][2]}"
            )
        if timing:
            faults = ", ".join(f"{k} x{v}" for k, v in sorted(self.stats.faults.items())) or "none"
            lines.append(f"requests   {self.stats.requests:,}  transport retries {self.stats.retries} ({faults})")
            if self.stats.failed:
                kinds = ", ".join(f"{k} x{v}" for k, v in sorted(self.stats.failed.items()))
                lines.append(f"           failed requests {sum(self.stats.failed.values())} ({kinds})")
            lines.append(f"wall time  {self.wall_s:.1f} s")
        if self.unfinished:
            lines.append(f"unfinished {self.unfinished}; last fault: {self.last_fault or 'none'}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def _tokens(value: Any) -> int:
    """A stored token count, or 0 where a file (or a non-conforming server, before it was checked) holds
    something else."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


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
        client = make_client(plan.base_url, plan.api_key, plan.timeout)
        transport = Transport(
            client,
            plan.model,
            plan.endpoint,
            plan.api_key,
            plan.retry,
            deadline_s=plan.timeout,
            secrets=plan.secrets,
            notice=progress.write,
        )

        async def solve(job: tuple[int, Question]) -> RunRecord:
            iteration, question = job
            return await answer_question(transport, question, plan.protocol, plan.revise, plan.model, run_id, iteration)

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
    )


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
) -> RunResult:
    """Run EQ-Bench and return a :class:`RunResult`; the same call again resumes the same run file.

    With ``base_url=None`` the bundled SmolLM2-135M-Instruct is served on 127.0.0.1 for the run.
    Otherwise any OpenAI-compatible endpoint, the key read from ``OPENAI_API_KEY`` or the
    variable named by ``api_key_env``. ``version`` is the question set ("v2", "v1" or "de"). The
    file is ``<out_dir>/<model>__<version>__<run_id>.jsonl``. ``temperature`` replaces the first
    attempt's temperature; ``seed`` is sent with every request (see :func:`protocol_plan`).

    ``timeout`` bounds each request as a whole. ``retry_budget`` is how many seconds one request
    may spend waiting between retries of transport faults (429, 5xx, resets) before its question is
    left for the next resume (default :class:`RetryPolicy`'s, which outlasts a 60 s rate-limit
    window). ``repair`` moves unreadable lines in the middle of the run file aside (to
    ``<file>.unreadable``) and asks their questions again. Another process writing the same run
    file, a file that cannot be written, or credentials in ``base_url`` stop the call with a
    :class:`RunnerError` before any request is sent. The result's :attr:`RunResult.unfinished`
    counts questions left for the next resume.
    """
    if iterations < 1:
        raise RunnerError("--iterations must be at least 1")
    if iterations > MAX_ITERATIONS:
        raise RunnerError(f"--iterations must be at most {MAX_ITERATIONS:,} (not {iterations:,})")
    if concurrency is not None and concurrency < 1:
        raise RunnerError("--concurrency must be at least 1")
    if concurrency is not None and concurrency > MAX_CONCURRENCY:
        print(
            f"note: --concurrency {concurrency:,} capped at {MAX_CONCURRENCY:,} (more requests in flight only "
            "cost memory; no endpoint serves them at once)",
            file=sys.stderr,
        )
        concurrency = MAX_CONCURRENCY
    if timeout is not None and timeout <= 0:
        raise RunnerError("--timeout must be positive")
    if retry_budget is not None and retry_budget < 0:
        raise RunnerError("--retry-budget must be 0 or more")
    policy = retry or RetryPolicy()
    if retry_budget is not None:
        policy = dataclasses.replace(policy, budget_s=float(retry_budget))
    secrets = split_base_url(base_url)[2] if base_url is not None else []
    remember(*secrets)  # from here on every message and record is redacted of them
    chosen = select_questions(version, questions, limit, data_path)
    plan_protocol = protocol_plan(protocol, version, revise, temperature, seed)
    timeout = float(timeout or DEFAULT_TIMEOUT_S)
    local = base_url is None
    with ExitStack() as stack:
        if base_url is None:
            from ..runner.local_model import MODEL_NAME, LocalModelError, LocalServer

            if model not in (None, MODEL_NAME):
                raise RunnerError(f"without --base-url the bundled {MODEL_NAME} is used; drop --model {model!r}")
            model, concurrency = MODEL_NAME, concurrency or LOCAL_CONCURRENCY
            try:
                base_url = stack.enter_context(LocalServer(n_parallel=concurrency))
            except LocalModelError as exc:
                raise RunnerError(str(exc)) from None
        concurrency = concurrency or DEFAULT_CONCURRENCY
        endpoint = public_endpoint(base_url)
        api_key = resolve_api_key(api_key_env, base_url)
        warning = plain_http_warning(base_url, bool(os.environ.get(api_key_env or "OPENAI_API_KEY")) or bool(secrets))
        if warning:
            print(warning, file=sys.stderr)
        check_reachable(base_url, timeout)
        if model is None:
            url = base_url
            model = run_coroutine(lambda: discover_model(url, endpoint, api_key, timeout))
        all_ids = [q.id for q in load_questions(version, data_path)]
        rid = run_id or default_run_id(
            plan_protocol.name, revise, iterations, [q.id for q in chosen], all_ids, temperature, seed
        )
        path = Path(out_dir) / f"{sanitise(model)}__{version}__{sanitise(rid)}.jsonl"
        header = build_header(
            model,
            endpoint,
            rid,
            version,
            revise,
            plan_protocol,
            chosen,
            iterations,
            concurrency,
            timeout,
            data_path,
            local,
        )
        plan = _Plan(
            base_url,
            endpoint,
            model,
            api_key,
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
        )
        try:
            return run_coroutine(lambda: _execute(plan))
        except KeyboardInterrupt as exc:
            how = "terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted"
            print(
                f"{how}: finished answers, and those in flight that arrived within a few seconds, are saved in "
                f"{display_path(path)}; run the same command again to resume",
                file=sys.stderr,
            )
            raise
