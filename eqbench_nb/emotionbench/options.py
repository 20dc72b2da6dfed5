"""EmotionBench's ``run`` options, declared once (:mod:`eqbench_nb.runner.options`): the command line generates
``run``'s EmotionBench group from them, and :func:`~eqbench_nb.emotionbench.task.run_emotionbench` checks and
defaults its keywords by building them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..runner.options import RunOptions, at_least, names, option
from .items import EMOTIONS
from .parsing import PARSERS


@dataclass(frozen=True)
class EmotionBenchRunOptions(RunOptions):
    """EmotionBench's ``run`` options (:func:`~eqbench_nb.emotionbench.task.run_emotionbench`'s keywords)."""

    GROUP: ClassVar[str | None] = "EmotionBench (with --benchmark emotionbench)"

    repeats: int = option("--repeats", default=10, type=at_least(1), metavar="N",
                          help="times each situation is asked (the paper: 10)")  # fmt: skip
    default_repeats: int | None = option("--default-repeats", type=at_least(2), metavar="M",
                                         help="times the default (no situation) is asked (default 5 x N, as the "
                                         "paper's 50)")  # fmt: skip
    per_factor: int | None = option("--per-factor", type=at_least(1), metavar="K",
                                    help="only the first K situations of each factor (default all: 175 "
                                    "situations)")  # fmt: skip
    emotions: tuple[str, ...] | None = option("--emotions", type=names, metavar="LIST",
                                  help=f"only these emotions, comma-separated: EmotionBench's {', '.join(EMOTIONS)}; "
                                  "empathetic-responding's the study's 32")  # fmt: skip
    orders: int = option("--orders", default=1, type=at_least(1), metavar="K",
                         help="item orders: 1 = the questionnaire's; K > 1 adds K-1 seeded shuffles")  # fmt: skip
    parser: str = option("--parser", default="robust", choices=PARSERS,
                         help="reader of the answers: this project's, or upstream's last-character reader")  # fmt: skip
