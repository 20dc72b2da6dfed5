"""The ``run`` options of creative-writing and Judgemark, declared once (:mod:`eqbench_nb.runner.options`): none of
their own, EQ-Bench's ``--iterations`` and EQ-Bench 3's judge options. The command line generates them;
:func:`~eqbench_nb.judged.task.run_creative_writing` and :func:`~eqbench_nb.judged.task.run_judgemark` check and
default their keywords by building them."""

from __future__ import annotations

from dataclasses import dataclass

from ..eqbench.options import EqBenchRunOptions
from ..eqbench3.options import JudgeOptions, judges_of
from ..runner.errors import RunnerError
from ..runner.options import RunOptions, same_option
from ..runner.settings import Endpoint


@dataclass(frozen=True)
class JudgedRunOptions(JudgeOptions, RunOptions):
    """The ``run`` options of creative-writing and Judgemark: none of their own, --iterations (EQ-Bench's) and the
    judge's options (EQ-Bench 3's group; the judge's token limit defaults to upstream's 3,000 here)."""

    iterations: int = same_option(EqBenchRunOptions, "iterations")


def one_judge(options: JudgeOptions, title: str) -> Endpoint:
    """The judge the options name (EQ-Bench 3's judge options, or a ``--judges`` file of one): one judge, as
    upstream's pipeline runs these benchmarks; a panel is refused in one line."""
    judges = judges_of(options)
    if len(judges) != 1:
        raise RunnerError(f"{title} takes one judge, as upstream runs it, not a panel of {len(judges)}")
    return judges[0].endpoint
