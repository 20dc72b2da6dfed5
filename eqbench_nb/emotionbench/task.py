"""Running EmotionBench's PANAS test on the generic runner (:mod:`eqbench_nb.runner`).

:func:`run_emotionbench` resolves every setting before a request is sent (situations, item orders, endpoint,
key, model, run file), starts the bundled model when no ``base_url`` is given, asks each (repeat, situation,
item order) once at temperature 0 as upstream does (:mod:`.prompts`), appends each record to the run file as it
finishes (same lock, resume, fault handling, progress bar and exit codes as EQ-Bench), and summarises the run.

The paper's design: each situation asked N times and the default 5 x N times (N = 10 gives the published
sheets' 1,750 situation and 50 default responses), all in the questionnaire's item order; ``orders`` > 1 adds
shuffled orders (upstream's ``--default-shuffle-count`` / ``--emotion-shuffle-count``), each asked as often.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..runner.errors import RunnerError
from ..runner.header import CommonFields, RunHeader
from ..runner.runfile import display_path
from ..runner.session import Connection, RunResult, Second, Task, run_task, url_secrets
from ..runner.settings import Endpoint, RunSettings, resolve
from ..runner.transport import Transport, closing_lines
from . import files
from .header import EmotionHeader
from .items import DEFAULT, Questionnaire, Situation, load_questionnaire, select_situations
from .options import EmotionBenchRunOptions
from .parsing import parse_answer
from .prompts import MAX_TOKENS, TEMPERATURE, build_messages, item_order
from .runs import BENCHMARK, IDENTITY, EmotionRecord, EmotionRun, read_emotion_run, record_from_json
from .summary import RunSummary, summarise_run

#: The paper's default is asked this many times as often as each situation (50 against 10).
DEFAULT_FACTOR = 5
UPSTREAM = {
    "repository": "CUHK-ARISE/EmotionBench",
    "commit": files.manifest()["commit"],
    "pipeline": "utils.generate_testfile + example_generator.chat (PANAS)",
}
#: Header fields that define a run: a resume must match every one of them.
SETTINGS_KEYS = (
    "benchmark",
    "model",
    "questionnaire",
    "situations",
    "repeats",
    "default_repeats",
    "orders",
    "item_orders",
    "parser",
    "temperature",
    "max_tokens",
    "seed",
    "files_sha256",
)
DATA_FILES = ("questionnaires.json", "situations.json", "doc.csv")


@dataclass(frozen=True)
class Job:
    repeat: int
    situation: Situation
    order: int

    @property
    def key(self) -> tuple[int, str]:
        return (self.repeat, f"{self.situation.key}_order-{self.order}")


def plan_jobs(situations: list[Situation], repeats: int, default_repeats: int, orders: int) -> Iterator[Job]:
    """Repeat by repeat, so that a part-finished run covers every situation: in round r the default's repeats
    up to r x default_repeats / repeats, then each situation once; each in every item order."""
    given = 0
    for r in range(1, repeats + 1):
        upto = (r * default_repeats) // repeats
        for d in range(given + 1, upto + 1):
            yield from (Job(d, DEFAULT, k) for k in range(orders))
        given = upto
        for s in situations:
            yield from (Job(r, s, k) for k in range(orders))


def default_run_id(repeats: int, default_repeats: int, orders: int, situations: list[Situation], n_all: int) -> str:
    chosen = "all" if len(situations) == n_all else f"{len(situations)}sit"
    default = "" if default_repeats == DEFAULT_FACTOR * repeats else f"-d{default_repeats}"
    shuffled = "" if orders == 1 else f"-o{orders}"
    return f"panas-x{repeats}{default}{shuffled}-{chosen}"


def build_header(
    model: str,
    endpoint: str,
    run_id: str,
    local: bool,
    questionnaire: Questionnaire,
    situations: list[Situation],
    repeats: int,
    default_repeats: int,
    orders: int,
    parser: str,
    seed: int | None,
    concurrency: int,
    timeout: float,
) -> RunHeader[EmotionHeader]:
    """Every setting, the upstream pipeline and the data files' sha256; item ids only, never item texts."""
    common = CommonFields(
        model=model,
        run_id=run_id,
        endpoint=endpoint,
        local_model=local,
        concurrency=concurrency,
        timeout_s=timeout,
        seed=seed,
        benchmark=BENCHMARK,
        upstream=UPSTREAM,
    )
    own = EmotionHeader(
        questionnaire=questionnaire.name,
        categories={k: list(v) for k, v in questionnaire.categories.items()},
        compute_mode=questionnaire.compute_mode,
        scale=(1, questionnaire.scale_max),
        situations=tuple(s.key for s in situations),
        factor_names={s.factor_key: s.factor_name for s in situations},
        repeats=repeats,
        default_repeats=default_repeats,
        orders=orders,
        item_orders=tuple(item_order(questionnaire, k) for k in range(orders)),
        parser=parser,
        temperature=TEMPERATURE,
        max_tokens=MAX_TOKENS,
        files_sha256={name: files.sha256(name) for name in DATA_FILES},
    )
    return RunHeader.new(common, own)


async def ask(
    transport: Transport,
    questionnaire: Questionnaire,
    job: Job,
    parser: str,
    model: str,
    run_id: str,
    seed: int | None = None,
) -> EmotionRecord:
    """One question: the messages upstream sends, one completion at temperature 0, the answer read and mapped
    back from the order asked to item ids."""
    ids = item_order(questionnaire, job.order)
    done = await transport.complete(
        build_messages(questionnaire, job.situation, ids), TEMPERATURE, MAX_TOKENS, (), seed
    )
    names = [questionnaire.items[i] for i in ids]
    parsed = parse_answer(done.text, names, parser, (1, questionnaire.scale_max))
    ratings = {i: int(v) for i, v in zip(ids, parsed.ratings) if v is not None} if parsed.complete else {}
    attempt = done.attempt(TEMPERATURE)
    return EmotionRecord(
        model, run_id, job.repeat, job.situation.key, job.order, ids, attempt, ratings, parsed.status,
        parsed.refusal, list(parsed.ratings),
    )  # fmt: skip


# ---------------------------------------------------------------- results


@dataclass
class EmotionRunResult(RunResult[EmotionRun, RunSummary]):
    """What a run produced (:class:`~eqbench_nb.runner.session.RunResult`): its file, the run as read back, its
    summary (:class:`~eqbench_nb.emotionbench.summary.RunSummary`), and this session's transport counts."""

    def table(self, timing: bool = True) -> str:
        h = self.run.header
        lines = [
            f"run file   {display_path(self.path)}",
            f"model      {self.run.model}   benchmark emotionbench (PANAS)   repeats {h.own.repeats}   "
            f"default {h.own.default_repeats}   orders {h.own.orders}   "
            f"situations {len(h.own.situations or ())}",
            "",
            self.summary.table(),
            "",
            f"records    {len(self.run.records)} of {self.expected} ({self.answered_now} answered now, "
            f"{self.unfinished} left unfinished)",
        ]
        if timing:
            lines.append(self.stats.line())
        lines += closing_lines(self.wall_s, self.unfinished, self.last_fault, timing)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def progress_summary(questionnaire: Questionnaire) -> Any:
    """(complete?, its NA score) of a record, for the bar's parse rate and running mean."""
    na_ids = set(questionnaire.categories.get("Negative Affect", ()))

    def summary(record: EmotionRecord) -> tuple[bool, float | None]:
        if not record.complete:
            return False, None
        return True, float(sum(v for i, v in record.ratings.items() if i in na_ids))

    return summary


#: The endpoint features EmotionBench's runs are wired for (:data:`eqbench_nb.runner.settings.FEATURES`): none
#: yet, so ``--batch``, ``--max-tokens``, ``--reasoning-effort`` and prices are refused in one line.
WIRED_FEATURES: tuple[str, ...] = ()


def run_emotionbench(
    endpoint: Endpoint | None = None,
    settings: RunSettings | None = None,
    options: EmotionBenchRunOptions | None = None,
    **given: Any,
) -> EmotionRunResult:
    """Run EmotionBench's PANAS test and return an :class:`EmotionRunResult`; the same call again resumes.

    ``endpoint`` and ``settings`` (:class:`~eqbench_nb.runner.settings.Endpoint`,
    :class:`~eqbench_nb.runner.settings.RunSettings`) behave as in :func:`eqbench_nb.eqbench.task.run_benchmark`
    (default: the bundled SmolLM2-135M-Instruct; endpoint, key, timeout, retries, rate-limit pacing, resume and
    repair alike). The file is ``<out_dir>/<model>__emotionbench__<run_id>.jsonl``.

    EmotionBench's own options are :class:`~eqbench_nb.emotionbench.options.EmotionBenchRunOptions` (``options``),
    or its fields as keywords (with ``options``, in place of its fields), checked as the command line checks them:
    ``repeats`` (N) is how often each situation is asked; the default (no situation) is asked ``default_repeats``
    times (5 x N unless given). ``per_factor`` keeps the first K situations of each factor, ``emotions`` only the
    named emotions. ``orders`` > 1 adds shuffled item orders. ``parser`` is the reader whose statuses the records
    carry (``"robust"`` or upstream's).
    """
    o = EmotionBenchRunOptions.of(options, **given)
    if o.dry_run:
        raise RunnerError("EmotionBench runs do not take --dry-run")
    endpoint, settings = resolve(endpoint, settings)
    endpoint.refuse_features(WIRED_FEATURES, "EmotionBench")
    endpoint = endpoint.checked()
    url_secrets(endpoint)
    try:
        situations = select_situations(o.per_factor, list(o.emotions) if o.emotions else None, settings.data_path)
    except ValueError as exc:
        raise RunnerError(str(exc)) from None
    design = (o.repeats, o.default_repeats or DEFAULT_FACTOR * o.repeats, o.orders)
    return run_task(
        endpoint, settings, emotionbench_task(endpoint, settings, situations, design, o.parser), EmotionRunResult
    )


def emotionbench_task(
    endpoint: Endpoint, settings: RunSettings, situations: list[Situation], design: tuple[int, int, int], parser: str
) -> Task[Job]:
    """EmotionBench's run declared for :func:`~eqbench_nb.runner.session.run_task` (options already checked):
    ``design`` is (repeats, default repeats, orders)."""
    repeats, default_repeats, orders = design
    n_all = len(select_situations(None, None, settings.data_path))
    questionnaire = load_questionnaire("PANAS", settings.data_path)
    all_jobs = list(plan_jobs(situations, repeats, default_repeats, orders))

    def header(conn: Connection, rid: str, _others: Mapping[str, Second]) -> RunHeader[EmotionHeader]:
        return build_header(
            conn.model, conn.endpoint, rid, conn.local, questionnaire, situations, repeats, default_repeats, orders,
            parser, settings.seed, conn.concurrency, endpoint.timeout,
        )  # fmt: skip

    def jobs(finished: list[EmotionRecord]) -> list[Job]:
        done = {r.key for r in finished}
        return [j for j in all_jobs if j.key not in done]

    def solver(transport: Transport, header: RunHeader[EmotionHeader]) -> Any:
        model, run_id = transport.model, header.text("run_id", "")

        async def solve(job: Job) -> EmotionRecord:
            return await ask(transport, questionnaire, job, parser, model, run_id, settings.seed)

        return solve

    return Task(
        BENCHMARK,
        default_run_id(repeats, default_repeats, orders, situations, n_all),
        header,
        record_from_json,
        SETTINGS_KEYS,
        IDENTITY,
        jobs,
        len(all_jobs),
        solver,
        progress_summary(questionnaire),
        desc="EmotionBench",
        read=read_emotion_run,
        summarise=summarise_run,
        score_label="NA",
        score_scale=1.0,
        item_noun="situations",
    )
