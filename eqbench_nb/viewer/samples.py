"""A run's item records, whatever its benchmark: ``eqbench_nb.samples(run)``.

One row per item (what a benchmark scores once: an EQ-Bench question in one iteration, say): what the model was
asked, every attempt with what was decided about it and why, the answer beside its reference, the item's
share of the score, tokens, latency, cost, faults. Each benchmark builds its own rows (its ``samples`` hook in
:mod:`eqbench_nb.benchmarks`); this module finds the benchmark of a run through :mod:`eqbench_nb.registry` and
never names one. The columns every benchmark shares: :data:`eqbench_nb.viewer.contract.COMMON_COLUMNS`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..benchmarks import Benchmark
from ..registry import REGISTRY, benchmark_of
from ..runner.cost import Prices

__all__ = ["load_run", "samples"]


def load_run(run: Any) -> tuple[Benchmark, Any]:
    """(its benchmark, the run): a run object as given (or a run result's run), else the run in a file, read by
    the benchmark its header names. A benchmark the viewer cannot show is a ValueError (one line)."""
    inner = getattr(run, "run", None)
    if inner is not None and not isinstance(run, (str, os.PathLike)):
        run = inner  # what run_benchmark and the like return carry their run
    if isinstance(run, (str, os.PathLike)):
        benchmark = benchmark_of(run)
        if benchmark.read is None or benchmark.samples is None:
            raise ValueError(f"{run}: the viewer does not show {benchmark.title} runs")
        return benchmark, benchmark.read(Path(run))
    for benchmark in REGISTRY:
        if benchmark.run_type is not None and isinstance(run, benchmark.run_type) and benchmark.samples is not None:
            return benchmark, run
    raise ValueError(f"not a run the viewer shows: {type(run).__name__} (give a run file, or a run read from one)")


def samples(
    run: Any,
    price_in: float | None = None,
    price_out: float | None = None,
    judge_price_in: float | None = None,
    judge_price_out: float | None = None,
) -> Any:
    """The run's item records as a DataFrame, one row per item (see the module docstring); ``run`` is a run file,
    a run read from one, or what ``run_benchmark`` and the like returned. ``price_in`` / ``price_out``
    (dollars per million prompt / completion tokens) give each item's cost; ``judge_price_in`` /
    ``judge_price_out`` the share of a run's judge (its second endpoint), where it has one."""
    benchmark, loaded = load_run(run)
    assert benchmark.samples is not None  # load_run returns only benchmarks the viewer shows
    given = Prices.given(price_in, price_out, judge_price_in, judge_price_out)
    return benchmark.samples(loaded, given.of_run(loaded.header))
