"""Running EQ-Bench 3 on the generic runner (:mod:`eqbench_nb.runner`): the model under test and the judge.

:func:`run_eqbench3` plays every (iteration, scenario) as one job of the runner: an async generator that asks the
remaining turns in order and the debrief (:func:`.steps.play`), then has the judge score the transcript on the
rubric (:func:`.steps.judge_rubric`). Each step's record is appended and fsynced as it finishes, so the same call
again resumes at the first unfinished step and never asks a finished one. The two endpoints are separate: each its
own key variable, pacing under its own ``concurrency``, retry budget, deviations and prices (the judge's are
recorded in the run header as ``judge_deviations``). Without base URLs the bundled model plays both roles (an
offline demonstration of the pipeline; it says nothing about emotional intelligence).

The file is ``<out_dir>/<model>__eqbench3__<run_id>.jsonl``; its header names the judge, the scoring version, the
sampling, the scenarios asked and the sha256 of every upstream file read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..runner.errors import RunnerError
from ..runner.header import CommonFields, RunHeader
from ..runner.runfile import display_path
from ..runner.selection import named
from ..runner.session import Connection, RunResult, Second, Task, run_task, url_secrets
from ..runner.settings import Endpoint, RunSettings
from ..runner.transport import Transport, TransportStats, closing_lines
from . import files, prompts, rubric, steps
from .header import Eq3Header
from .runs import (
    BENCHMARK,
    DEBRIEF,
    IDENTITY,
    RUBRIC,
    Eq3Run,
    Play,
    StepRecord,
    read_eq3_run,
    step_from_json,
    turn_step,
)
from .scenarios import ANALYSIS, Scenario, kind_of, load_scenarios
from .summary import RunSummary, summarise_run
from .versions import DEFAULT_VERSION, ScoringVersion, scoring_version

UPSTREAM = {
    "repository": files.manifest()["repository"],
    "commit": files.HEAD_COMMIT,
    "pipeline": "eqbench3.py: ScenarioTask.run_scenario, run_debrief, _execute_rubric_scoring_task",
}
#: Header fields that define a run: a resume must match every one of them.
SETTINGS_KEYS = (
    "benchmark",
    "model",
    "judge_model",
    "iterations",
    "scenarios",
    "scoring_version",
    "rubric",
    "sampling",
    "seed",
    "files_sha256",
)
DATA_FILES = (
    "scenario_prompts.txt",
    "scenario_master_prompt.txt",
    "scenario_master_prompt_analysis.txt",
    "scenario_master_prompt_message_drafting.txt",
    "debrief_prompt.txt",
    "rubric_scoring_prompt.txt",
    "rubric_scoring_prompt_analysis.txt",
    "rubric_scoring_criteria.txt",
    "rubric_scoring_criteria_analysis.txt",
)
#: The endpoint features EQ-Bench 3's runs are wired for: a token limit for the model under test, reasoning
#: effort, prices; not the Batch API (each turn waits for the last answer).
WIRED_FEATURES = ("max_tokens", "reasoning_effort", "price_in", "price_out")
#: ... and the judge's: its own token limit (upstream's is 8,000), reasoning effort, prices.
JUDGE_FEATURES = ("max_tokens", "reasoning_effort", "price_in", "price_out")
JUDGE = "judge"


def select_scenarios(ids: str | None = None, limit: int | None = None, data_path: Any = None) -> list[Scenario]:
    """The scenarios to ask, in file order: those named (``"1,2,401"``), or the first ``limit``, or all 45."""
    everything = load_scenarios(data_path)
    if limit is not None and limit < 1:
        raise RunnerError("--limit must be at least 1")
    wanted = named(ids, "--scenarios")
    if wanted is not None:
        known = {s.id for s in everything}
        unknown = [i for i in wanted if i not in known]
        if unknown:
            raise RunnerError(
                f"no EQ-Bench 3 scenario {', '.join(unknown)} (upstream drops 409); the 45 ids: "
                + ",".join(s.id for s in everything)
            )
        everything = [s for s in everything if s.id in set(wanted)]
    return everything[:limit] if limit is not None else everything


def default_run_id(iterations: int, chosen: list[Scenario], total: int, version: str, rubric_on: bool) -> str:
    which = "all" if len(chosen) == total else f"{len(chosen)}sc"
    return f"{version}-x{iterations}-{which}{'' if rubric_on else '-norubric'}"


def sampling(endpoint: Endpoint, judge: Endpoint, min_p: bool) -> dict[str, Any]:
    """What the run asks each endpoint for (upstream's, or the token limits given instead)."""
    return {
        "turn_temperature": prompts.TURN_TEMPERATURE,
        "min_p": prompts.TURN_MIN_P if min_p else None,
        "max_tokens": endpoint.max_tokens or prompts.TURN_MAX_TOKENS,
        "debrief_temperature": prompts.DEBRIEF_TEMPERATURE,
        "judge_temperature": rubric.JUDGE_TEMPERATURE,
        "judge_max_tokens": judge.max_tokens or rubric.JUDGE_MAX_TOKENS,
    }


@dataclass(frozen=True)
class Job:
    iteration: int
    scenario: Scenario
    done: dict[str, StepRecord]  # the steps already in the run file


def steps_of(scenario: Scenario, rubric_on: bool) -> list[str]:
    """The steps of one (iteration, scenario): its turns, its debrief (not for analysis), its rubric judgement."""
    out = [turn_step(t) for t in range(len(scenario.prompts))]
    out += [DEBRIEF] if scenario.has_debrief else []
    return out + ([RUBRIC] if rubric_on else [])


def expected_records(header: RunHeader[Eq3Header]) -> int:
    """The records a run file's header promises: every step of every scenario, in every iteration."""
    turns = header.own.scenario_turns or {}
    rubric_on = header.own.rubric
    per = sum(int(n) + (kind_of(str(sid)) != ANALYSIS) + rubric_on for sid, n in turns.items())
    return per * (header.iterations or 1)


def plan_jobs(chosen: list[Scenario], iterations: int, finished: list[StepRecord], rubric_on: bool) -> Iterator[Job]:
    """Iteration by iteration, each scenario not yet finished, with the steps the file holds for it."""
    done: dict[tuple[int, str], dict[str, StepRecord]] = {}
    for r in finished:
        done.setdefault((r.iteration, r.scenario_id), {})[r.step] = r
    for i in range(1, iterations + 1):
        for s in chosen:
            have = done.get((i, s.id), {})
            if any(step not in have for step in steps_of(s, rubric_on)):
                yield Job(i, s, have)


def _bar_summary(record: StepRecord) -> tuple[bool, float | None]:
    """(fine?, the rubric task score) for the bar: turns and debriefs count as answered, a rubric by its score."""
    if record.step != RUBRIC:
        return True, None
    if record.scores is None:
        return False, None
    return True, rubric.scenario_task_score(record.scenario_id, record.scores)


@dataclass
class Eq3RunResult(RunResult[Eq3Run, RunSummary]):
    """What a run produced (:class:`~eqbench_nb.runner.session.RunResult`): its file, the run as read back, its
    summary (:class:`~eqbench_nb.eqbench3.summary.RunSummary`), this session's counts of both endpoints."""

    @property
    def judge_stats(self) -> TransportStats | None:
        """The judge's requests this session (None for a run with ``--no-rubric``)."""
        return self.endpoint_stats.get(JUDGE)

    def table(self, timing: bool = True) -> str:
        h = self.run.header
        lines = [
            f"run file   {display_path(self.path)}",
            f"model      {self.run.model}   benchmark eqbench3   scenarios {len(h.own.scenarios or ())}   "
            f"iterations {h.iterations}   scoring {h.own.scoring_version}",
            "",
            self.summary.table() if h.own.rubric else "rubric     not asked (--no-rubric)",
            "",
            f"records    {len(self.run.records)} of {self.expected} ({self.answered_now} written now, "
            f"{self.unfinished} scenarios left unfinished)",
        ]
        if timing:
            lines.append(self.stats.line())
            if self.judge_stats is not None:
                lines.append(self.judge_stats.line("judge"))
        lines += closing_lines(self.wall_s, self.unfinished, self.last_fault, timing)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def run_eqbench3(
    endpoint: Endpoint | None = None,
    judge: Endpoint | None = None,
    settings: RunSettings | None = None,
    *,
    iterations: int = 1,
    scenarios: str | None = None,
    limit: int | None = None,
    scoring: str = DEFAULT_VERSION,
    rubric_on: bool = True,
) -> Eq3RunResult:
    """Run EQ-Bench 3 and return an :class:`Eq3RunResult`; the same call again resumes (module docstring).

    ``endpoint`` is the model under test and ``judge`` the judge (:class:`~eqbench_nb.runner.settings.Endpoint`;
    without a base URL, the bundled SmolLM2-135M-Instruct); ``settings`` where results go. ``scenarios`` names ids
    (``"1,2,401"``), ``limit`` keeps the first K; ``iterations`` repeats the set; ``scoring`` is the scoring version
    whose reading of the judge's JSON is used (``3c21bcc``, HEAD, or ``8c3a125``); ``rubric_on`` False asks no judge.
    """
    endpoint, judge, settings = endpoint or Endpoint(), judge or Endpoint(), settings or RunSettings()
    endpoint.refuse_features(WIRED_FEATURES, "EQ-Bench 3")
    judge.refuse_features(JUDGE_FEATURES, "EQ-Bench 3's judge")
    if iterations < 1:
        raise RunnerError("--iterations must be at least 1")
    try:
        version = scoring_version(scoring)
    except ValueError as exc:
        raise RunnerError(str(exc)) from None
    endpoint, judge = endpoint.checked(), judge.checked("judge-")
    url_secrets(endpoint)
    url_secrets(judge)
    chosen = select_scenarios(scenarios, limit, settings.data_path)
    task = eqbench3_task(endpoint, judge, settings, chosen, iterations, version, rubric_on)
    return run_task(endpoint, settings, task, Eq3RunResult)


def eqbench3_task(
    endpoint: Endpoint,
    judge: Endpoint,
    settings: RunSettings,
    chosen: list[Scenario],
    iterations: int,
    version: ScoringVersion,
    rubric_on: bool,
) -> Task[Job]:
    """EQ-Bench 3's run declared for :func:`~eqbench_nb.runner.session.run_task` (options already checked)."""
    total = len(load_scenarios(settings.data_path))
    templates = prompts.load_templates(str(settings.data_path) if settings.data_path else None)
    min_p = prompts.sends_min_p(endpoint.base_url)

    def header(conn: Connection, rid: str, others: Mapping[str, Second]) -> RunHeader[Eq3Header]:
        second = others.get(JUDGE)
        common = CommonFields(
            model=conn.model,
            run_id=rid,
            endpoint=conn.endpoint,
            local_model=conn.local,
            concurrency=conn.concurrency,
            timeout_s=endpoint.timeout,
            seed=settings.seed,
            benchmark=BENCHMARK,
            iterations=iterations,
            # the key variables' names, never their values: what every output of the run redacts
            api_key_env=endpoint.api_key_env or "OPENAI_API_KEY",
            upstream=UPSTREAM,
        )
        own = Eq3Header(
            judge_model=second.connection.model if second else None,
            judge_endpoint=second.connection.endpoint if second else None,
            judge_local_model=second.connection.local if second else None,
            judge_api_key_env=(judge.api_key_env or "OPENAI_API_KEY") if second else None,
            judge_concurrency=second.connection.concurrency if second else None,
            rubric=rubric_on,
            scenarios=tuple(s.id for s in chosen),
            scenario_turns={str(s.id): len(s.prompts) for s in chosen},
            scoring_version=version.name,
            sampling=sampling(endpoint, judge, min_p),
            files_sha256={name: files.sha256(name) for name in DATA_FILES},
        )
        return RunHeader.new(common, own)

    def solver(transport: Transport, header: RunHeader[Eq3Header], judge_transport: Transport | None = None) -> Any:
        model, run_id = header.text("model", ""), header.text("run_id", "")
        subject = steps.Subject(
            transport,
            model,
            run_id,
            templates,
            min_p=min_p,
            max_tokens=endpoint.max_tokens or prompts.TURN_MAX_TOKENS,
            seed=settings.seed,
            system=tuple(prompts.system_messages(endpoint.base_url, transport.model)),
        )
        judged = None
        if judge_transport is not None:
            judge_model = judge_transport.model  # the connected judge's
            judged = steps.Judge(
                judge_transport,
                judge_model,
                tuple(prompts.system_messages(judge.base_url, judge_model)),
                judge.max_tokens or rubric.JUDGE_MAX_TOKENS,
            )

        async def solve(job: Job) -> AsyncIterator[StepRecord]:
            new: dict[str, StepRecord] = {}
            async for record in steps.play(subject, job.scenario, job.iteration, job.done):
                new[record.step] = record
                yield record
            if judged is not None and RUBRIC not in job.done:
                answers = {**job.done, **new}
                turns = [answers[turn_step(t)].text or "" for t in range(len(job.scenario.prompts))]
                debrief = answers[DEBRIEF].text if DEBRIEF in answers else None
                play = Play(job.scenario.id, job.iteration, turns, len(job.scenario.prompts), debrief)
                transcript = play.transcript(job.scenario, templates)
                yield await steps.judge_rubric(judged, job.scenario, transcript, version, model, run_id, job.iteration)

        return solve

    return Task(
        BENCHMARK,
        default_run_id(iterations, chosen, total, version.name, rubric_on),
        header,
        step_from_json,
        SETTINGS_KEYS,
        IDENTITY,
        lambda finished: plan_jobs(chosen, iterations, finished, rubric_on),
        iterations * sum(len(steps_of(s, rubric_on)) for s in chosen),
        solver,
        _bar_summary,
        desc="EQ-Bench 3",
        read=read_eq3_run,
        summarise=summarise_run,
        score_label="rubric",
        score_scale=rubric.TO_100,
        endpoints=((JUDGE, judge),) if rubric_on else (),
    )
