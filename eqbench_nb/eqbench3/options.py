"""EQ-Bench 3's ``run`` options, declared once (:mod:`eqbench_nb.runner.options`), and its judge's: the run's
endpoint options (:class:`~eqbench_nb.runner.settings.Endpoint`'s fields), prefixed ``--judge-``, those of a panel
once per judge. creative-writing and Judgemark take the judge's as well. The command line generates them;
:func:`~eqbench_nb.eqbench3.task.run_eqbench3` checks and defaults its keywords by building them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..eqbench.options import EqBenchRunOptions
from ..runner.options import Options, RunOptions, SecondEndpoint, option, same_option
from ..runner.settings import DEFAULT_BATCH_WAIT_S, DEFAULT_POLL_INTERVAL_S, Endpoint
from .panel import IN_STEP_OPTIONS
from .versions import DEFAULT_VERSION, SCORING_VERSIONS

JUDGE_PREFIX = "judge-"

#: The judge's endpoint: the run's endpoint options, prefixed (``--judge-model``, ...), those of
#: :data:`~eqbench_nb.eqbench3.panel.IN_STEP_OPTIONS` once per judge of a panel; the Batch API's once for every judge
#: (a ``--judges`` file's ``batch`` sets it per judge): the judgements of finished items go out as batches.
JUDGE_ENDPOINT = SecondEndpoint(
    endpoint=Endpoint,
    prefix=JUDGE_PREFIX,
    title="EQ-Bench 3's judge, and creative-writing's and Judgemark's (default: the bundled model); an EQ-Bench 3 "
    "panel repeats --judge-model, and each other judge option once per judge in the same order or once for all",
    repeated=tuple(f"judge_{name}" for name, _ in IN_STEP_OPTIONS),
    omitted=(),
    help={
        "judge_batch": "send the judges' requests through the Batch API at half the price: each judge's "
        "judgements of finished items as one batch (the model under test's steps first, one request at a time); "
        "written ahead in the run file, so the same command after a kill collects them, never paying twice",
        "judge_poll_interval": "seconds between polls of the judges' batches",
        "judge_batch_wait": "seconds a run polls a judge's batch before it stops (exit 3), the batch left in the "
        "run file for the same command to collect; default 25 h",
        "judge_resubmit_unconfirmed": "send again a judge's batch create that a stopped run wrote ahead when the "
        "endpoint cannot say whether it made the batch: it may be paid for twice (default: stop and say)",
        "judge_base_url": "the judge endpoint, e.g. https://api.openai.com/v1 (default: the bundled model)",
        "judge_model": "the judge model name (default: the endpoint's first listed model)",
        "judge_max_tokens": "the judge's token limit (default: upstream's, 8,000 for EQ-Bench 3, 3,000 for "
        "creative-writing and Judgemark)",
    },
    metavar={"judge_base_url": "URL"},
    commands=("run", "leaderboard"),
)


@dataclass(frozen=True)
class JudgeOptions(Options):
    """The judge's options (:data:`JUDGE_ENDPOINT`; creative-writing and Judgemark take them as well): those a panel
    repeats hold one value per time given, None when not given; or a ``--judges`` file naming the panel.
    :func:`judges_of` makes the judges of them."""

    ENDPOINT: ClassVar[SecondEndpoint | None] = JUDGE_ENDPOINT

    judge_base_url: Sequence[str] | None = None
    judge_model: Sequence[str] | None = None
    judge_api_key_env: Sequence[str] | None = None
    judge_timeout: Sequence[float] | None = None
    judge_concurrency: Sequence[int] | None = None
    judge_retry_budget: Sequence[float] | None = None
    judge_max_tokens: Sequence[int] | None = None
    judge_reasoning_effort: Sequence[str] | None = None
    judge_price_in: Sequence[float] | None = None
    judge_price_out: Sequence[float] | None = None
    judge_no_adaptive: bool = False
    judge_batch: bool = False
    judge_poll_interval: float = DEFAULT_POLL_INTERVAL_S
    judge_batch_wait: float = DEFAULT_BATCH_WAIT_S
    judge_resubmit_unconfirmed: bool = False
    judges: str | None = option(
        "--judges",
        metavar="FILE",
        help='a panel of judges from a JSON file, {"judges": [{"model": ..., "base_url": ..., "api_key_env": VAR, '
        '"id": ...}, ...]} (every field checked before anything is asked; instead of the --judge-* options)',
        group=JUDGE_ENDPOINT.title,
        commands=("run", "leaderboard"),
    )


@dataclass(frozen=True)
class Eq3RunOptions(JudgeOptions, RunOptions):
    """EQ-Bench 3's ``run`` options (``--iterations`` and ``--limit`` are EQ-Bench's, taken as well), the judge's
    among them."""

    GROUP: ClassVar[str | None] = "EQ-Bench 3 (with --benchmark eqbench3; --iterations and --limit as above)"

    iterations: int = same_option(EqBenchRunOptions, "iterations")
    limit: int | None = same_option(EqBenchRunOptions, "limit")
    scenarios: str | None = option("--scenarios", metavar="IDS", help="scenario ids, e.g. 1,2,401 (default: all 45)")
    scoring: str = option(
        "--scoring",
        default=DEFAULT_VERSION,
        choices=list(SCORING_VERSIONS),
        help="scoring version: upstream HEAD (3c21bcc) or its first canonical results (8c3a125); here it chooses "
        "how the judge's JSON is read",
    )
    no_rubric: bool = option("--no-rubric", default=False, flag=True, help="play the scenarios only: no judge is asked")


def judges_of(options: JudgeOptions) -> list[Any]:
    """The judges the options name (:class:`~eqbench_nb.eqbench3.panel.JudgeSpec`): a ``--judges`` file's, or the
    judge options' in step; a ValueError in one line for a count mismatch or for both ways at once."""
    from . import panel

    given = {name: getattr(options, f"judge_{name}") for name, _ in panel.IN_STEP_OPTIONS}
    if options.judges:
        named = [flag for name, flag in panel.IN_STEP_OPTIONS if given[name]]
        if named:
            raise ValueError(f"--judges names every judge and its settings; drop {', '.join(named)}")
        return [_batched(spec, options) for spec in panel.read_judges_file(options.judges)]
    return [
        _batched(
            panel.JudgeSpec(
                None,
                Endpoint(
                    base_url=row["base_url"],
                    model=row["model"],
                    api_key_env=row["api_key_env"],
                    timeout_s=row["timeout"],
                    concurrency=row["concurrency"],
                    adaptive=not options.judge_no_adaptive,
                    retry_budget_s=row["retry_budget"],
                    max_tokens=row["max_tokens"],
                    reasoning_effort=row["reasoning_effort"],
                    price_in=row["price_in"],
                    price_out=row["price_out"],
                ),
            ),
            options,
        )
        for row in panel.in_step(given)
    ]


def _batched(spec: Any, options: JudgeOptions) -> Any:
    """A judge with the Batch API options of the command (``--judge-batch`` for every judge, or a ``--judges``
    file's ``batch`` for its own)."""
    import dataclasses

    batch = options.judge_batch or spec.endpoint.batch
    endpoint = dataclasses.replace(
        spec.endpoint,
        batch=batch,
        poll_interval_s=options.judge_poll_interval,
        batch_wait_s=options.judge_batch_wait,
        resubmit_unconfirmed=options.judge_resubmit_unconfirmed,
    )
    return dataclasses.replace(spec, endpoint=endpoint)


def judge_options_given(options: JudgeOptions) -> bool:
    """Whether ``options`` name a judge (a judge option or a ``--judges`` file), not the defaults."""
    from . import panel

    named = [getattr(options, f"judge_{name}") for name, _ in panel.IN_STEP_OPTIONS]
    return (
        any(v is not None for v in named)
        or options.judge_no_adaptive
        or options.judges is not None
        or options.judge_batch
        or options.judge_resubmit_unconfirmed
    )
