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

import dataclasses
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..runner.endpoint import NO_KEY
from ..runner.errors import RunnerError
from ..runner.header import RunHeader, first_line
from ..runner.pool import PARKING
from ..runner.runfile import RunFormatError, display_path, read_jsonl
from ..runner.selection import named
from ..runner.session import Connection, RunPlan, RunResult, Second, Task, run_task, url_secrets
from ..runner.settings import Endpoint, RunSettings
from ..runner.transport import Transport, TransportStats, closing_lines
from . import files, panel, prompts, rubric, steps
from .header import Eq3Header
from .options import Eq3RunOptions, judge_options_given, judges_of
from .runs import (
    BENCHMARK,
    DEBRIEF,
    IDENTITY,
    JOINABLE,
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
from .versions import ScoringVersion, scoring_version

UPSTREAM = {
    "repository": files.manifest()["repository"],
    "commit": files.HEAD_COMMIT,
    "pipeline": "eqbench3.py: ScenarioTask.run_scenario, run_debrief, _execute_rubric_scoring_task",
}
#: Header fields that define a run: a resume must match every one of them. The judges are not among them: a judge
#: may join the run's panel (``judges``, :mod:`.panel`); ``judge_model`` is the panel's first, which never changes.
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
#: ... and the judge's: its own token limit (upstream's is 8,000), reasoning effort, prices, and the Batch API (a
#: judgement needs only the finished transcript: each judge's go out as one batch once the conversations are played).
JUDGE_FEATURES = ("max_tokens", "reasoning_effort", "price_in", "price_out", "batch")
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
    done: dict[str, StepRecord]  # the steps already in the run file (a rubric: the first judge's)
    judges: tuple[str, ...] = ()  # the judges of this command that lack this task's rubric judgement


def steps_of(scenario: Scenario, rubric_on: bool) -> list[str]:
    """The steps of one (iteration, scenario): its turns, its debrief (not for analysis), its rubric judgement."""
    out = [turn_step(t) for t in range(len(scenario.prompts))]
    out += [DEBRIEF] if scenario.has_debrief else []
    return out + ([RUBRIC] if rubric_on else [])


def expected_records(header: RunHeader[Eq3Header]) -> int:
    """The records a run file's header promises: every step of every scenario, in every iteration (a rubric
    judgement per judge of its panel)."""
    turns = header.own.scenario_turns or {}
    judges = max(1, len(panel.panel_of(header))) if header.own.rubric else 0
    per = sum(int(n) + (kind_of(str(sid)) != ANALYSIS) + judges for sid, n in turns.items())
    return per * (header.iterations or 1)


def plan_jobs(
    chosen: list[Scenario], iterations: int, finished: list[StepRecord], rubric_on: bool, judges: Sequence[str] = ()
) -> Iterator[Job]:
    """Iteration by iteration, each scenario not yet played, or lacking the rubric judgement of one of ``judges``
    (the ids of this command's judges), with the steps the file holds for it and the judges it lacks."""
    done: dict[tuple[int, str], dict[str, StepRecord]] = {}
    judged: dict[tuple[int, str], set[str]] = {}
    for r in finished:
        done.setdefault((r.iteration, r.scenario_id), {}).setdefault(r.step, r)
        if r.step == RUBRIC:
            judged.setdefault((r.iteration, r.scenario_id), set()).add(str(r.judge))
    for i in range(1, iterations + 1):
        for s in chosen:
            have = done.get((i, s.id), {})
            lack = tuple(panel.lacking(judges, judged.get((i, s.id), ()))) if rubric_on else ()
            if lack or any(step not in have for step in steps_of(s, False)):
                yield Job(i, s, have, lack)


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
        """The panel's first judge's requests this session (None for a run with ``--no-rubric``, or when this
        command did not name it): each judge's are in ``endpoint_stats``, by label."""
        return self.endpoint_stats.get(JUDGE)

    UNIT = "scenario"

    def table(self, timing: bool = True) -> str:
        h = self.run.header
        lines = [
            f"run file   {display_path(self.path)}",
            f"model      {self.run.model}   benchmark eqbench3   scenarios {len(h.own.scenarios or ())}   "
            f"iterations {h.iterations}   scoring {h.own.scoring_version}",
            "",
            self.summary.table() if h.own.rubric else "rubric     not asked (--no-rubric)",
            *self._by_judge(),
            "",
            f"records    {len(self.run.records)} of {self.expected} ({self.answered_now} written now, "
            f"{self.unfinished} scenarios left unfinished)",
        ]
        if timing:
            lines.append(self.stats.line())
            for label, stats in self.endpoint_stats.items():
                lines.append(stats.line(label))
        if self.batch:
            lines.append(f"batches    {self.batch}")
        lines += closing_lines(self.wall_s, self.unfinished, self.last_fault, timing)
        return "\n".join(lines)

    def _by_judge(self) -> list[str]:
        """A panel's judges, each with its own rubric score beside the panel's (the score above)."""
        if len(self.run.judges) < 2:
            return []
        from .summary import by_judge

        def f(x: float | None) -> str:
            return "—" if x is None else f"{x:.2f}"

        def flagged(r: dict[str, Any]) -> str:
            said = [f"{r['out_of_range']} outside {rubric.SCALE}" if r["out_of_range"] else "",
                    f"{r['left_out']} with a score not finite" if r["left_out"] else ""]  # fmt: skip
            return f"; FLAGGED: {', '.join(x for x in said if x)}" if any(said) else ""

        return [f"  {r['judge'] if r['judge'] == 'panel' else 'judge ' + r['judge']}: {f(r['rubric'])} "
                f"[{f(r['low'])}, {f(r['high'])}], {r['tasks']} tasks{flagged(r)}"
                for r in by_judge(self.run)]  # fmt: skip

    def __str__(self) -> str:
        return self.table()


Judges = Endpoint | panel.JudgeSpec | Sequence[Endpoint | panel.JudgeSpec]


def _judge_specs(judge: Judges | None) -> list[panel.JudgeSpec]:
    """The judges given: one Endpoint (as before panels), a :class:`~.panel.JudgeSpec`, or several of either."""
    given = [judge] if judge is None or isinstance(judge, (Endpoint, panel.JudgeSpec)) else list(judge)
    if not given:
        raise RunnerError("no judge given; --no-rubric runs without one")
    specs = [g if isinstance(g, panel.JudgeSpec) else panel.JudgeSpec(None, g or Endpoint()) for g in given]
    if len(specs) > panel.MAX_JUDGES:
        raise RunnerError(f"{len(specs)} judges: a panel holds at most {panel.MAX_JUDGES}")
    return specs


def _file_header(path: Path) -> dict[str, Any] | None:
    """The header a run file holds now, with the judges that joined it (None: no such file yet). An unreadable
    file gives its first line (opening it for the run then says what is wrong)."""
    if not path.is_file():
        return None
    try:
        return read_jsonl(path, step_from_json, IDENTITY, JOINABLE).header
    except (RunFormatError, OSError, ValueError):
        return first_line(path)


def run_eqbench3(
    endpoint: Endpoint | None = None,
    judge: Judges | None = None,
    settings: RunSettings | None = None,
    options: Eq3RunOptions | None = None,
    **given: Any,
) -> Eq3RunResult:
    """Run EQ-Bench 3 and return an :class:`Eq3RunResult`; the same call again resumes (module docstring).

    ``endpoint`` is the model under test and ``judge`` the judge (:class:`~eqbench_nb.runner.settings.Endpoint`;
    without a base URL, the bundled SmolLM2-135M-Instruct), or a panel of judges (several Endpoints or
    :class:`~.panel.JudgeSpec`, each with its id): every judge scores every task, and a judge that joins a finished
    run judges only what it lacks, the model under test asked nothing; None: the judges ``options`` names (its
    judge options, or a ``--judges`` file; by default the bundled model). ``settings`` where results go.

    EQ-Bench 3's own options are :class:`~eqbench_nb.eqbench3.options.Eq3RunOptions` (``options``), or its fields as
    keywords (with ``options``, in place of its fields), checked as the command line checks them: ``scenarios``
    names ids (``"1,2,401"``), ``limit`` keeps the first K; ``iterations`` repeats the set;
    ``scoring`` is the scoring version whose reading of the judge's JSON is used (``3c21bcc``, HEAD, or
    ``8c3a125``); ``no_rubric`` asks no judge.
    """
    o = Eq3RunOptions.of(options, **given)
    if o.dry_run:
        raise RunnerError("dry_run: `eqbench-nb run --benchmark eqbench3 --dry-run` says what a run would send")
    endpoint, settings = endpoint or Endpoint(), settings or RunSettings()
    specs = _judge_specs(judge) if judge is not None or not judge_options_given(o) else judges_of(o)
    if judge is not None and judge_options_given(o):
        raise RunnerError("the judge is given twice: as judge= and as judge options; give one")
    endpoint.refuse_features(WIRED_FEATURES, "EQ-Bench 3")
    for spec in specs:
        spec.endpoint.refuse_features(JUDGE_FEATURES, "EQ-Bench 3's judge")
    version = scoring_version(o.scoring)
    endpoint = endpoint.checked()
    specs = [panel.JudgeSpec(s.id, s.endpoint.checked("judge-")) for s in specs]
    if len(specs) > 1 and any(s.id is None and s.endpoint.model is None for s in specs):
        raise RunnerError("name each judge of a panel (--judge-model, or a --judges file's model or id)")
    panel.refuse_duplicate_ids(str(s.id or s.endpoint.model) for s in specs if s.id or s.endpoint.model)
    url_secrets(endpoint)
    for spec in specs:
        url_secrets(spec.endpoint)
    chosen = select_scenarios(o.scenarios, o.limit, settings.data_path)
    task = eqbench3_task(endpoint, specs, settings, chosen, o.iterations, version, not o.no_rubric)
    return run_task(endpoint, settings, task, Eq3RunResult)


def eqbench3_task(
    endpoint: Endpoint,
    judges: Sequence[panel.JudgeSpec],
    settings: RunSettings,
    chosen: list[Scenario],
    iterations: int,
    version: ScoringVersion,
    rubric_on: bool,
) -> Task[Job]:
    """EQ-Bench 3's run declared for :func:`~eqbench_nb.runner.session.run_task` (options already checked): the
    judges of ``judges`` are connected under provisional labels; once connected, :func:`complete_plan` joins them to
    the run file's panel and gives each its label, its jobs and the records the run then promises."""
    total = len(load_scenarios(settings.data_path))
    templates = prompts.load_templates(str(settings.data_path) if settings.data_path else None)
    min_p = prompts.sends_min_p(endpoint.base_url)
    specs = list(judges)
    provisional = [JUDGE] if len(specs) == 1 else [f"{JUDGE} #{i + 1}" for i in range(len(specs))]
    connected: dict[str, Any] = {"ids": [], "seconds": []}  # this command's judges, once connected

    def header(conn: Connection, rid: str, others: Mapping[str, Second]) -> RunHeader[Eq3Header]:
        seconds = [others[label] for label in provisional if label in others]
        ids = [spec.id or second.connection.model for spec, second in zip(specs, seconds)]
        panel.refuse_duplicate_ids(ids)
        connected.update(ids=ids, seconds=seconds)
        common = conn.common_fields(
            rid,
            endpoint,
            settings,
            benchmark=BENCHMARK,
            iterations=iterations,
            # the key variables' names, never their values: what every output of the run redacts
            api_key_env=endpoint.api_key_env or "OPENAI_API_KEY",
            upstream=UPSTREAM,
        )
        own = Eq3Header(
            judge_concurrency=seconds[0].connection.concurrency if seconds else None,
            rubric=rubric_on,
            scenarios=tuple(s.id for s in chosen),
            scenario_turns={str(s.id): len(s.prompts) for s in chosen},
            scoring_version=version.name,
            sampling=sampling(endpoint, specs[0].endpoint, min_p),
            files_sha256={name: files.sha256(name) for name in DATA_FILES},
        )
        return RunHeader.new(common, own)  # its panel: complete_plan's, once the file's is known

    def complete_plan(plan: RunPlan[Job], others: Mapping[str, Second]) -> RunPlan[Job]:
        ids, seconds = connected["ids"], connected["seconds"]
        asked = [
            panel.panel_entry(i, second.connection.model, second.connection.endpoint, spec.endpoint,
                              spec.endpoint.max_tokens or rubric.JUDGE_MAX_TOKENS, second.connection.local,
                              second.connection.api_key != NO_KEY)
            for i, spec, second in zip(ids, specs, seconds)
        ]  # fmt: skip
        old = _file_header(plan.path)
        merged = panel.merge_panel(panel.panel_of(old) if old is not None else [], asked) if rubric_on else []
        first = merged[0] if merged else None
        # the sampling the header records is the panel's first judge's, whoever this command names
        first_spec = next((s for i, s in zip(ids, specs) if first and i == first["id"]), None)
        first_judge = first_spec.endpoint if first_spec else Endpoint(max_tokens=(first or {}).get("max_tokens"))
        header = RunHeader.read(plan.header, Eq3Header).replace(
            judge_model=first["model"] if first else None,
            judge_endpoint=first["endpoint"] if first else None,
            judges=merged,
            judge_local_model=bool(first.get("local")) if first else None,
            judge_api_key_env=first.get("api_key_env") if first else None,
            sampling=sampling(endpoint, first_judge, min_p),
        )
        return dataclasses.replace(
            plan,
            header=header,
            jobs=lambda finished: plan_jobs(chosen, iterations, finished, rubric_on, ids if rubric_on else ()),
            total=expected_records(header),
            joinable=JOINABLE,
            labels={p: panel.label_of(merged, i) for p, i in zip(provisional, ids)},
        )

    def solver(transport: Transport, header: RunHeader[Eq3Header], *judge_transports: Transport) -> Any:
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
        judged = {
            judge_id: steps.Judge(
                t,
                judge_id,
                tuple(prompts.system_messages(spec.endpoint.base_url, t.model)),  # the connected judge's
                spec.endpoint.max_tokens or rubric.JUDGE_MAX_TOKENS,
            )
            for judge_id, spec, t in zip(connected["ids"], specs, judge_transports)
        }

        async def solve(job: Job) -> AsyncIterator[StepRecord]:
            new: dict[str, StepRecord] = {}
            async for record in steps.play(subject, job.scenario, job.iteration, job.done):
                new[record.step] = record
                yield record
            if not job.judges:
                return
            answers = {**job.done, **new}
            turns = [answers[turn_step(t)].text or "" for t in range(len(job.scenario.prompts))]
            debrief = answers[DEBRIEF].text if DEBRIEF in answers else None
            play = Play(job.scenario.id, job.iteration, turns, len(job.scenario.prompts), debrief)
            transcript = play.transcript(job.scenario, templates)
            asks = [steps.judge_rubric(judged[j], job.scenario, transcript, version, model, run_id, job.iteration)
                    for j in job.judges]  # fmt: skip
            parking = PARKING.get()
            if parking is None:  # no batched judge: one after another, each written as it arrives
                for ask in asks:
                    yield await ask
                return
            # batched judges side by side: each judge's batch goes out in the same round, not one 24 h window after
            # another; each judgement is written once all have ended (a kill meanwhile leaves them in their batches)
            outcomes = await parking.side_by_side(asks)
            for outcome in outcomes:
                if not isinstance(outcome, BaseException):
                    yield outcome
            for outcome in outcomes:
                if isinstance(outcome, BaseException):
                    raise outcome

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
        endpoints=tuple(zip(provisional, (s.endpoint for s in specs))) if rubric_on else (),
        complete_plan=complete_plan,
        item_noun="scenarios",
        item_key=job_key,
    )


def job_key(job: Job) -> str:
    """A job's name in a batched judge's custom ids: its iteration and scenario."""
    return f"{job.iteration}-{job.scenario.id}"
