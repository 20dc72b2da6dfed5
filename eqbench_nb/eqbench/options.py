"""EQ-Bench's ``run`` options, declared once (:mod:`eqbench_nb.runner.options`): the command line generates
``run``'s EQ-Bench group from them, and :func:`~eqbench_nb.eqbench.task.run_benchmark` checks and defaults its
keywords by building them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..runner.options import RunOptions, at_least, not_negative, option, positive_int
from .protocols import PROTOCOLS
from .questions import VERSIONS
from .runs import MAX_ITERATIONS

#: ``--iterations``, every benchmark's: what a reader of the run file lays out
ITERATIONS = at_least(1, MAX_ITERATIONS, " (what a reader of the run file lays out)")


@dataclass(frozen=True)
class EqBenchRunOptions(RunOptions):
    """EQ-Bench's ``run`` options (:func:`~eqbench_nb.eqbench.task.run_benchmark`'s keywords, and ``form``)."""

    GROUP: ClassVar[str | None] = "EQ-Bench (--benchmark eqbench, the default)"

    version: str = option(
        "--set",
        default="v2",
        choices=VERSIONS,
        help="question set: v2 (171), v1 (60), de (German v2) or pl (Polish v2; the official-v2.4 and lm-eval "
        "protocols)",
    )
    protocol: str = option(
        "--protocol",
        default="official",
        choices=PROTOCOLS,
        help="the upstream pipeline whose decisions the run makes (see docs/run.md)",
    )
    revise: bool = option("--revise", default=False, flag=True, help="use the critique-and-revise prompt")
    temperature: float | None = option(
        "--temperature",
        type=not_negative,
        metavar="T",
        help="first attempt's temperature (default: the protocol's, 0.01 official / 0 lm-eval)",
    )
    iterations: int = option("--iterations", default=1, type=ITERATIONS, metavar="N",
                             help="times the whole set is run")  # fmt: skip
    limit: int | None = option(
        "--limit", type=positive_int, metavar="K", help="only the first K questions (default: all)"
    )
    questions: str | None = option("--questions", metavar="IDS", help="question ids, e.g. 1,5,10-12 (default: all)")
    form: str | None = option(
        "--form",
        metavar="NAME",
        help="a validated v2 short form (short20, short40, short60: notebook 08 §5): asks only its questions and "
        "reports the predicted full score with a 95%% prediction interval",
    )
