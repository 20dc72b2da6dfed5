"""Running EQ-Bench: the benchmark's settings wired to the generic runner (:mod:`eqbench_nb.runner`).

:func:`run_benchmark` is the notebook and command-line entry point. It resolves EQ-Bench's settings
before a request is sent (questions, protocol, run id, header), then hands the runner a plan
(:func:`~eqbench_nb.runner.session.run_plan`): connect (the bundled model when the endpoint has no base
URL), ask each question under the protocol (:func:`~eqbench_nb.eqbench.protocols.answer_question`) with at
most C in flight, append each record to the run file as it finishes. It then scores the run under every
convention.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..runner import session
from ..runner.cost import Estimate, Prices, Usage, estimate, token_counter
from ..runner.errors import RunnerError
from ..runner.header import CommonFields, RunHeader
from ..runner.reasoning import BUDGET_SPENT, describe
from ..runner.runfile import display_path
from ..runner.session import Connection, Second, Task, run_task, url_secrets
from ..runner.settings import Endpoint, RunSettings, resolve
from ..runner.transport import closing_lines
from .conventions import CONVENTIONS, RunScore, score_run
from .header import EqBenchHeader
from .options import EqBenchRunOptions
from .prompts import build_messages
from .protocols import Protocol, answer_question, protocol_plan
from .questions import VERSIONS, Question, dataset_sha256, load_questions
from .runs import (
    EXTENDABLE,
    IDENTITY,
    EqBenchRun,
    RunFormatError,
    RunRecord,
    read_run,
    record_from_json,
)

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
    form: str | None = None,
) -> str:
    """A readable id derived from the settings, so running the same command again resumes: the selection is
    ``all``, ``firstK``, a short form's name, else a hash of the question ids."""
    if ids == all_ids:
        selection = "all"
    elif form is not None:
        selection = form
    elif ids == all_ids[: len(ids)]:
        selection = f"first{len(ids)}"
    else:
        selection = "q" + hashlib.sha256(",".join(ids).encode()).hexdigest()[:8]
    temp = "" if temperature is None else f"-t{temperature:g}"
    seeded = "" if seed is None else f"-s{seed}"
    return f"{protocol}{'-revise' if revise else ''}{temp}{seeded}-x{iterations}-{selection}"


def build_header(
    model: str,
    endpoint_url: str,
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
    endpoint: Endpoint | None = None,
    form: dict[str, Any] | None = None,
    protocol_max_tokens: int | None = None,
) -> RunHeader[EqBenchHeader]:
    """The run file's header: every setting, the upstream pipeline, the data's sha256, no credentials
    (``endpoint_url`` is the endpoint's public form, :func:`~eqbench_nb.runner.endpoint.public_endpoint`).

        What departs from the protocol is recorded beside it: ``protocol_max_tokens`` (the protocol's
        limit, when ``--max-tokens`` replaced it), ``reasoning_effort``, and ``deviations`` (what the
        endpoint refused, learnt during the run: :mod:`eqbench_nb.runner.reasoning`)."""
    endpoint = endpoint or Endpoint()
    common = CommonFields(
        model=model,
        run_id=run_id,
        endpoint=endpoint_url,
        local_model=local,
        concurrency=concurrency,
        timeout_s=timeout,
        seed=protocol.seed,
        iterations=iterations,
        reasoning_effort=endpoint.reasoning_effort,
        batch=endpoint.batch,
        api_key_env=endpoint.api_key_env,  # the variable's name, never its value: what every output redacts
        upstream=protocol.upstream,
    )
    own = EqBenchHeader(
        version=version,
        revise=bool(revise),
        protocol=protocol.name,
        parser=protocol.parser,
        match=protocol.match,
        split_revision=protocol.split_revision,
        n_questions=len(questions),
        question_ids=tuple(q.id for q in questions),
        temperatures=tuple(protocol.temperatures),
        max_tokens=protocol.max_tokens,
        attempts=protocol.attempts,
        stop=tuple(protocol.stop),
        adaptive_concurrency=endpoint.adaptive,
        dataset_sha256=dataset_sha256(version, data_path, protocol.name),
        form=form,
        protocol_max_tokens=protocol_max_tokens,
    )
    return RunHeader.new(common, own)


def options_suffix(endpoint: Endpoint, protocol_max_tokens: int) -> str:
    """What the default run id adds for endpoint options that change the answers (so a different one is a new
    run)."""
    suffix = ""
    if endpoint.max_tokens is not None and endpoint.max_tokens != protocol_max_tokens:
        suffix += f"-m{endpoint.max_tokens}"
    if endpoint.reasoning_effort is not None:
        suffix += f"-e{endpoint.reasoning_effort}"
    return suffix


def protocol_deviations(header: RunHeader[EqBenchHeader]) -> str:
    """What a run sent or read otherwise than its protocol says, one line ("" when nothing)."""
    extra = []
    if header.own.protocol_max_tokens is not None:
        extra.append(f"--max-tokens {header.own.max_tokens} (the protocol sends {header.own.protocol_max_tokens})")
    if header.reasoning_effort:
        extra.append(f"reasoning_effort {header.reasoning_effort} asked")
    return describe(header.deviations(), extra)


# ---------------------------------------------------------------- results


@dataclass
class EqBenchRunResult(session.RunResult[EqBenchRun, dict[str, RunScore]]):
    """What a run produced (:class:`~eqbench_nb.runner.session.RunResult`): its file, the run as read back, and its
    score under each convention (``summary``, also :attr:`scores`); ``prices`` price its tokens."""

    prices: Prices = field(default_factory=Prices)

    @property
    def scores(self) -> dict[str, RunScore]:
        """The run's score under each convention."""
        return self.summary

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
        if "official" not in self.scores:
            return None
        from .short_form import run_prediction

        return run_prediction(self.run.header, self.scores["official"].score)

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
            f"{self.run.header.own.protocol}   revise {'yes' if self.run.revise else 'no'}   iterations {iters}",
            "",
            f"{'convention':<11}{'score':>9}  {'parseable' + per:>11}  failed",
        ]
        for name, s in self.scores.items():
            score = "—" if s.score != s.score else f"{s.score:.4f}" if name == "evalscope" else f"{s.score:.2f}"
            lines.append(f"{name:<11}{score:>9}  {s.n_parseable:>6.4g}/{n_q:<4}  {'FAILED' if s.failed else 'no'}")
        if (fp := self.form_prediction) is not None and math.isfinite(fp[1]):
            lines += [
                "",
                f"short form {fp[0]}: predicted full v2 score {fp[1]:.2f}, 95 % prediction interval {fp[2]:.2f} to "
                f"{fp[3]:.2f} (from the official score over its {self.run.n_questions} questions; notebook 08 §5)",
            ]
        elif fp is not None:
            lines += ["", f"short form {fp[0]}: no predicted full v2 score (no answer parsed under the official "
                          "convention, so the form has no score to predict from)"]  # fmt: skip
        deviations = protocol_deviations(self.run.header)
        if deviations:
            lines.insert(2, f"protocol   {self.run.header.own.protocol} protocol; {deviations}")
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
                    f"hint       the token budget ({self.run.header.own.max_tokens}) went on reasoning before "
                    "any answer: raise --max-tokens (e.g. --max-tokens 4000) or lower --reasoning-effort"
                )
        if timing:
            lines.append(self.stats.line())
            if self.stats.failed:
                kinds = ", ".join(f"{k} x{v}" for k, v in sorted(self.stats.failed.items()))
                lines.append(f"           failed requests {sum(self.stats.failed.values())} ({kinds})")
            if self.concurrency:
                lines.append(f"concurrency {self.concurrency}")
            if self.batch:
                lines.append(f"batch      {self.batch}")
        lines += closing_lines(self.wall_s, self.unfinished, self.last_fault, timing)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


# ---------------------------------------------------------------- the run


def _record_summary(record: RunRecord) -> tuple[bool, float | None]:
    score = record.revised_score if record.revised_score is not None else record.first_pass_score
    return score is not None, score


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
    endpoint: Endpoint | None = None,
    settings: RunSettings | None = None,
    options: EqBenchRunOptions | None = None,
    **given: Any,
) -> EqBenchRunResult:
    """Run EQ-Bench and return an :class:`EqBenchRunResult`; the same call again resumes the same run file.

    ``endpoint`` (:class:`~eqbench_nb.runner.settings.Endpoint`; default: the bundled SmolLM2-135M-Instruct,
    served on 127.0.0.1 for the run) says where the requests go and how they are paced, retried and priced;
    ``settings`` (:class:`~eqbench_nb.runner.settings.RunSettings`) where the run file goes
    (``<out_dir>/<model>__<version>__<run_id>.jsonl``), the seed, the data folder, the progress bar and repair.

    EQ-Bench's own options are :class:`~eqbench_nb.eqbench.options.EqBenchRunOptions` (``options``), or its fields
    as keywords (``run_benchmark(version="v1", limit=5)``; with ``options``, in place of its fields), checked as the
    command line checks them: ``version`` is the question set ("v2", "v1", "de" or "pl"), read from the file of the
    protocol's upstream commit; ``protocol`` the upstream pipeline whose decisions the run makes; ``revise`` the
    critique-and-revise prompt; ``iterations`` how often the whole set is run; ``limit`` and ``questions`` which
    questions; ``temperature`` replaces the first attempt's temperature (see :func:`protocol_plan`); ``form`` names
    a validated short form (:mod:`eqbench_nb.eqbench.short_form`): only its questions are asked, the header records
    it, and the result reports the predicted full score with its prediction interval.

    Another process writing the same run file, a file that cannot be written, or credentials in the base URL stop
    the call with a :class:`RunnerError` before any request is sent. The result's :attr:`EqBenchRunResult.unfinished`
    counts questions left for the next resume.
    """
    o = EqBenchRunOptions.of(options, **given)
    if o.dry_run:
        raise RunnerError("dry_run: estimate_run says what a run would send and cost, sending nothing")
    endpoint, settings = resolve(endpoint, settings)
    endpoint = endpoint.checked()
    url_secrets(endpoint)  # from here on every message and record is redacted of them
    chosen, form_spec = _chosen(o, settings)
    plan = protocol_plan(o.protocol, o.version, o.revise, o.temperature, settings.seed)
    task = eqbench_task(endpoint, settings, o.version, o.revise, o.iterations, chosen, plan, o.temperature, form_spec)
    result = run_task(endpoint, settings, task, EqBenchRunResult)
    for warning in result.run.warnings:  # what the resume did not already say (ratings out of range)
        if f"{display_path(result.path)}: {warning}" not in result.notes:
            print(f"warning: {display_path(result.path)}: {warning}", file=sys.stderr)
    # each attempt says whether it was a batch's; a file from before they said so is priced by its header
    result.prices = endpoint.prices.of_run(result.run.header)
    return result


def eqbench_task(
    endpoint: Endpoint,
    settings: RunSettings,
    version: str,
    revise: bool,
    iterations: int,
    chosen: list[Question],
    plan: Protocol,
    temperature: float | None,
    form_spec: Any,
) -> Task[tuple[int, Question]]:
    """EQ-Bench's run declared for :func:`~eqbench_nb.runner.session.run_task` (options already checked): the
    questions ``chosen`` asked ``iterations`` times under the protocol ``plan`` (``--max-tokens`` replacing its
    token limit, and recorded beside it)."""
    protocol_max_tokens = plan.max_tokens
    if endpoint.max_tokens is not None:
        plan = dataclasses.replace(plan, max_tokens=endpoint.max_tokens)
    all_ids = [q.id for q in load_questions(version, settings.data_path, plan.name)]
    form_name = form_spec.name if form_spec is not None else None
    rid = default_run_id(plan.name, revise, iterations, [q.id for q in chosen], all_ids, temperature, settings.seed,
                         form_name) + options_suffix(endpoint, protocol_max_tokens)  # fmt: skip

    def header(conn: Connection, rid: str, _others: Mapping[str, Second]) -> RunHeader[EqBenchHeader]:
        return build_header(
            conn.model, conn.endpoint, rid, version, revise, plan, chosen, iterations, conn.concurrency,
            endpoint.timeout, settings.data_path, conn.local, endpoint,
            form_spec.header() if form_spec is not None else None,
            protocol_max_tokens if plan.max_tokens != protocol_max_tokens else None,
        )  # fmt: skip

    def jobs(finished: list[RunRecord]) -> Iterable[tuple[int, Question]]:
        done = {r.key for r in finished}
        return ((it, q) for it in range(1, iterations + 1) for q in chosen if (it, q.id) not in done)

    def solver(transport: Any, header: RunHeader[EqBenchHeader]) -> Any:
        run_id, model = header.text("run_id", ""), transport.model  # the file's run id: a resume keeps it

        async def solve(job: tuple[int, Question]) -> RunRecord:
            iteration, question = job
            return await answer_question(transport, question, plan, revise, model, run_id, iteration)

        return solve

    return Task(
        version,
        rid,
        header,
        record_from_json,
        SETTINGS_KEYS,
        IDENTITY,
        jobs,
        len(chosen) * iterations,
        solver,
        _record_summary,
        desc=version,
        read=_read_back,
        summarise=lambda run: {c: score_run(run, c) for c in CONVENTIONS},
        batch_key=lambda job: f"{job[0]}-{job[1].id}",
        extendable=EXTENDABLE,
    )


def _read_back(path: Path) -> EqBenchRun:
    try:
        return read_run(path)
    except RunFormatError as exc:  # changed under us after the last write
        raise RunnerError(f"the run finished but its file cannot be read back: {exc}") from None


def estimate_run(
    endpoint: Endpoint | None = None,
    settings: RunSettings | None = None,
    options: EqBenchRunOptions | None = None,
    **given: Any,
) -> Estimate:
    """What ``run_benchmark`` with these options would send and cost, sending nothing (``run --dry-run``); the
    options (as ``run_benchmark`` takes them) are checked as the run checks them (an unknown ``form`` is refused)."""
    o = EqBenchRunOptions.of(options, **given)
    endpoint = (endpoint or Endpoint()).checked()
    settings = settings or RunSettings()
    chosen, _ = _chosen(o, settings)
    plan = protocol_plan(o.protocol, o.version, o.revise, o.temperature)
    max_tokens = endpoint.max_tokens or plan.max_tokens
    first = [build_messages(q, o.revise) for q in chosen] * o.iterations
    return estimate(first, plan.attempts, max_tokens, token_counter(endpoint.model or ""), endpoint.prices)


def _chosen(o: EqBenchRunOptions, settings: RunSettings) -> tuple[list[Question], Any]:
    """The questions ``o`` selects, and its short form's spec (None for none)."""
    form_spec = _short_form(o.form, o.version, o.questions, o.limit)
    questions = form_spec.question_ids if form_spec is not None else o.questions
    return select_questions(o.version, questions, o.limit, settings.data_path, o.protocol), form_spec
