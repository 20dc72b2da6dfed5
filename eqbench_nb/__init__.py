"""eqbench_nb: run, score and study EQ-Bench (Paech, arXiv 2312.06281) from Python and Jupyter.

Layout (docs/architecture.md): :mod:`eqbench_nb.eqbench` holds every rule of EQ-Bench, :mod:`eqbench_nb.runner`
the generic runner (its :class:`Endpoint` and :class:`RunSettings` are what every benchmark's run takes),
:mod:`eqbench_nb.analysis` the generic statistics, :mod:`eqbench_nb.eqbench.study` EQ-Bench's own studies (the
paper's analyses), :mod:`eqbench_nb.plots` every plot, :mod:`eqbench_nb.emotionbench` the second benchmark and
:mod:`eqbench_nb.eqbench3` the third, :mod:`eqbench_nb.judged` the official pipeline's creative-writing and Judgemark
v1, :mod:`eqbench_nb.registry` the list of benchmarks the command line (:mod:`eqbench_nb.cli`) dispatches through;
:mod:`eqbench_nb.viewer` the run viewer. The names below are the public API; ``run_benchmark``, ``run_eqbench3``,
``run_table``, ``samples`` (a run's item records), ``view`` (the viewer in a notebook) and the like are imported on
first use (they pull in the HTTP client, pandas and the widget library). :class:`RunResult` is the runner's generic
result, every benchmark's result a subclass of it (:class:`EqBenchRunResult` is EQ-Bench's).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from typing import TYPE_CHECKING, Any

from ._version import __version__
from .eqbench.conventions import CONVENTIONS, RunScore, score_run
from .eqbench.parsing import PARSERS, ParsedAnswer, parse_answer
from .eqbench.prompts import build_messages, build_prompt
from .eqbench.questions import VERSIONS, Question, load_questions
from .eqbench.runs import EqBenchRun, RunFormatError, RunRecord, read_run
from .eqbench.scoring import ADJUST_CONST, fullscale_penalty, score_question

if TYPE_CHECKING:
    from .emotionbench.task import run_emotionbench
    from .eqbench.study.table import published_runs, read_runs, run_table
    from .eqbench.task import EqBenchRunResult, run_benchmark
    from .eqbench3.task import run_eqbench3
    from .judged.task import run_creative_writing, run_judgemark
    from .runner.session import RunResult
    from .runner.settings import Endpoint, RunSettings
    from .viewer.samples import samples
    from .viewer.widget import view

_LAZY = {
    "run_benchmark": "eqbench.task",
    "EqBenchRunResult": "eqbench.task",
    "RunResult": "runner.session",
    "run_table": "eqbench.study.table",
    "read_runs": "eqbench.study.table",
    "published_runs": "eqbench.study.table",
    "run_emotionbench": "emotionbench.task",
    "run_eqbench3": "eqbench3.task",
    "run_creative_writing": "judged.task",
    "run_judgemark": "judged.task",
    "Endpoint": "runner.settings",
    "RunSettings": "runner.settings",
    "samples": "viewer.samples",
    "view": "viewer.widget",
}

__all__ = [
    "ADJUST_CONST",
    "CONVENTIONS",
    "PARSERS",
    "VERSIONS",
    "Endpoint",
    "EqBenchRun",
    "EqBenchRunResult",
    "ParsedAnswer",
    "Question",
    "RunFormatError",
    "RunRecord",
    "RunResult",
    "RunScore",
    "RunSettings",
    "__version__",
    "build_messages",
    "build_prompt",
    "fullscale_penalty",
    "load_questions",
    "parse_answer",
    "published_runs",
    "read_run",
    "read_runs",
    "run_benchmark",
    "run_creative_writing",
    "run_emotionbench",
    "run_eqbench3",
    "run_judgemark",
    "run_table",
    "samples",
    "score_question",
    "score_run",
    "view",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Modules moved to their subject (issue 45) whose old paths the committed notebooks still import (02, 05 and 06:
#: ``from eqbench_nb.analysis import emotions``), old path to new. Only the notebooks' code is meant to use them.
MOVED_MODULES = {
    "eqbench_nb.analysis.emotions": "eqbench_nb.eqbench.study.emotions",
    "eqbench_nb.analysis.protocol": "eqbench_nb.eqbench.study.protocol",
}


class _MovedModule(importlib.abc.Loader):
    """The loader of an old path: the module at its new path, the same object (so it is imported once)."""

    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        module = importlib.import_module(self.new)
        self.own_spec = module.__spec__  # the import system sets __spec__ to the old path's; exec_module puts it back
        return module

    def exec_module(self, module: Any) -> None:
        module.__spec__ = self.own_spec


class _OldPaths:
    """Asked last on ``sys.meta_path``, so only for a name no file has: an old path of :data:`MOVED_MODULES`. The
    façade installs it because every import of ``eqbench_nb.analysis.x`` imports the façade first; ``analysis`` itself
    sits below every benchmark and may not name one."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        new = MOVED_MODULES.get(name)
        return None if new is None else importlib.machinery.ModuleSpec(name, _MovedModule(new))


if not any(isinstance(f, _OldPaths) for f in sys.meta_path):
    sys.meta_path.append(_OldPaths())
