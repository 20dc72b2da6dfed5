"""The benchmarks this toolkit runs and reads, one :class:`~eqbench_nb.benchmarks.Benchmark` each, and the two
look-ups the generic layers need: a benchmark by name (``run --benchmark``) and the benchmark of a run file (its
header's ``benchmark`` field; files naming none are EQ-Bench's). Adding a benchmark is one line here and one module
in :mod:`eqbench_nb.benchmarks`.
"""

from __future__ import annotations

import os
from pathlib import Path

from .benchmarks import Benchmark
from .benchmarks.creative_writing import CREATIVE_WRITING_BENCHMARK
from .benchmarks.emobench import EMOBENCH
from .benchmarks.emotionbench import EMOTIONBENCH
from .benchmarks.empathetic_responding import EMPATHETIC_RESPONDING
from .benchmarks.eqbench import EQBENCH
from .benchmarks.eqbench3 import EQBENCH3
from .benchmarks.judge_check import JUDGE_CHECK
from .benchmarks.judgemark import JUDGEMARK_BENCHMARK
from .runner.looks import per_file_version
from .runner.runfile import header_benchmark

#: Every benchmark, in the order ``run --help`` lists their options.
REGISTRY: tuple[Benchmark, ...] = (
    EQBENCH, EMOTIONBENCH, EQBENCH3, CREATIVE_WRITING_BENCHMARK, JUDGEMARK_BENCHMARK, EMOBENCH,
    EMPATHETIC_RESPONDING, JUDGE_CHECK,
)  # fmt: skip
#: ``run``'s default.
DEFAULT = EQBENCH.name


def names() -> list[str]:
    return [b.name for b in REGISTRY]


def by_name(name: str) -> Benchmark:
    for b in REGISTRY:
        if b.name == name:
            return b
    raise ValueError(f"unknown benchmark {name!r}; choose one of {', '.join(names())}")


def recognised(path: Path) -> bool | None:
    """Whether a file a folder holds is a run file of any format its benchmark reads (a ``config.json`` beside the
    runs is not); a file of an unknown benchmark is, so that reading it says so. None: a file of a benchmark's own
    that is no run (Welivita & Pu's judges' human-arm ratings, kept beside the runs), passed over unsaid."""
    try:
        benchmark = benchmark_of(path)
    except ValueError:
        return True
    return benchmark.recognises is None or benchmark.recognises(path)


@per_file_version
def benchmark_of(path: str | os.PathLike) -> Benchmark:
    """The benchmark whose run ``path`` is: the one its header names, else one not reading unnamed files that
    recognises the file (an upstream format of its own), else the one that reads files naming none; a ValueError
    (one line) for a benchmark this version does not know."""
    name = header_benchmark(path)
    for b in REGISTRY:
        if b.name == name:
            return b
    for b in REGISTRY:
        if not b.reads_unnamed and b.recognises is not None and b.recognises(Path(path)):
            return b
    if name is None:
        return next(b for b in REGISTRY if b.reads_unnamed)
    raise ValueError(f"{path}: a run of benchmark {name!r}, which this version of eqbench-nb does not know")
