"""The house's floors (docs/architecture.md): every import of the package, lazy ones and those under
TYPE_CHECKING included, goes to its own floor or below; no two modules import each other, through any chain; the
generic layers never name a benchmark."""

import ast
import functools
import re
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "eqbench_nb"
#: Floor of each module, by the longest matching prefix (docs/architecture.md, in order).
FLOORS = {
    "eqbench_nb._version": 1,
    "eqbench_nb.paths": 1,
    "eqbench_nb.data": 1,
    "eqbench_nb.report": 1,
    "eqbench_nb.output_paths": 1,  # the one output-path guard (issue 34): no import of the package
    "eqbench_nb.model_numbers": 1,  # the one reader of a model's numbers (issue 34): no import of the package
    "eqbench_nb.runner": 2,
    "eqbench_nb.viewer.contract": 2,  # the viewer's contract, which every benchmark's samples write (issue 45)
    "eqbench_nb.analysis": 3,  # the generic statistics: below every benchmark (issue 39)
    "eqbench_nb.eqbench": 4,
    "eqbench_nb.eqbench.study": 5,  # EQ-Bench's own studies, beside EQ-Bench (issue 39)
    "eqbench_nb.plots": 6,
    "eqbench_nb.eqbench.study.plots": 6,  # its figures, beside it, on the generic plots' floor (issue 45)
    "eqbench_nb.emotionbench": 7,
    "eqbench_nb.eqbench3": 7,
    "eqbench_nb.judged": 7,  # creative-writing and Judgemark v1 (EQ-bench/EQ-Bench @ d28c60c)
    "eqbench_nb.judgemark_v2": 7,  # Judgemark v2.1's published results (a study, not a runnable benchmark)
    "eqbench_nb.welivita_pu": 7,  # Welivita & Pu's human-rated study (issue 46): read, re-derived
    "eqbench_nb.empathy_judges": 7,  # Kumar et al.'s experts, crowd and LLM judges (issue 47): tables re-derived
    "eqbench_nb.benchmarks": 8,
    "eqbench_nb.registry": 9,
    "eqbench_nb.cli": 10,
    "eqbench_nb.viewer": 10,  # the run viewer: generic, over the registry, beside the command line
    "eqbench_nb.__main__": 11,
    "eqbench_nb": 11,  # the package's __init__: the public façade
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _imports(name: str) -> set[str]:
    """The package's modules that ``name`` imports, anywhere in its body."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    package = name if _is_package(name) else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("eqbench_nb")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            elif (node.module or "").startswith("eqbench_nb"):
                target = node.module
            else:
                continue
            for alias in node.names:  # `from . import registry` names a module, `from .x import f` a name in x
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in MODULES else target)
    return {m for m in found if m in MODULES and m != name}


@functools.cache
def graph() -> dict[str, set[str]]:
    """Each module's imports of the package's modules; parsed when a test first asks (not at collection, where each
    of the suite's workers would parse all of them)."""
    return {name: _imports(name) for name in MODULES}


def floor(name: str) -> int:
    prefix = max((p for p in FLOORS if name == p or name.startswith(p + ".")), key=len)
    return FLOORS[prefix]


def test_every_module_has_a_floor():
    assert all(floor(name) for name in MODULES)


def test_no_import_runs_up_a_floor():
    upward = [
        f"{a} (floor {floor(a)}) imports {b} (floor {floor(b)})"
        for a, targets in graph().items()
        for b in targets
        if floor(b) > floor(a)
    ]
    assert not upward, "\n".join(upward)


def test_no_two_modules_import_each_other_through_any_chain():
    # a package's __init__ importing its own children is how a package exposes them, not a cycle to break;
    # a child importing its parent's __init__ (the contract of benchmarks/) is the other direction
    def edges(a: str) -> set[str]:
        return {b for b in graph()[a] if not (_is_package(a) and b.startswith(a + "."))}

    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges(node)):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt) :] + [nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for name in sorted(graph()):
        if name not in state:
            visit(name, [name])
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def test_the_generic_layers_name_no_benchmark_but_eqbench():
    """`grep -rn "emotionbench\\|eqbench3" eqbench_nb/runner eqbench_nb/analysis` finds nothing (the issue's check);
    the command line, the runner and the run viewer dispatch through the registry."""
    pattern = re.compile(r"emotionbench|eqbench3", re.IGNORECASE)
    hits = [
        f"{path.relative_to(ROOT)}:{n}"
        for layer in ("runner", "analysis", "cli", "viewer")
        for path in (PACKAGE / layer).rglob("*.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not hits, hits


def test_the_graph_is_read_right():
    """The parser of imports sees a lazy import, a relative module import and an import under TYPE_CHECKING."""
    assert "eqbench_nb.registry" in graph()["eqbench_nb.cli.research"]  # from .. import registry
    assert "eqbench_nb.eqbench.study.leaderboard" in graph()["eqbench_nb.benchmarks.eqbench"]  # lazy, in a function
    assert "eqbench_nb.runner.settings" in graph()["eqbench_nb"]  # under TYPE_CHECKING


#: The generic statistics: intervals, resampling, correlation, verdicts, power, the null models and the psychometric
#: primitives; every module of ``analysis/``, a floor below every benchmark package (issue 39), so a fourth benchmark's
#: studies use them as EQ-Bench's do (EQ-Bench's own studies sit in ``eqbench/study/``).
GENERIC_STATISTICS = tuple(sorted(name for name in MODULES if floor(name) == FLOORS["eqbench_nb.analysis"]))
BENCHMARK_PACKAGES = ("eqbench_nb.eqbench", "eqbench_nb.emotionbench", "eqbench_nb.eqbench3", "eqbench_nb.judged",
                      "eqbench_nb.judgemark_v2", "eqbench_nb.welivita_pu", "eqbench_nb.empathy_judges",
                      "eqbench_nb.benchmarks")  # fmt: skip


def test_the_generic_statistics_sit_below_every_benchmark_package():
    assert all(FLOORS["eqbench_nb.analysis"] < FLOORS[p] for p in BENCHMARK_PACKAGES)
    assert FLOORS["eqbench_nb.eqbench"] < FLOORS["eqbench_nb.eqbench.study"] < FLOORS["eqbench_nb.plots"]
    # every module of analysis/ is a generic statistic: the studies of one benchmark live in its own package
    assert set(GENERIC_STATISTICS) == {
        m for m in MODULES if m == "eqbench_nb.analysis" or m.startswith("eqbench_nb.analysis.")
    }
    assert {"eqbench_nb.analysis.stats", "eqbench_nb.analysis.psychometrics"} <= set(GENERIC_STATISTICS)


def _reached(name: str) -> set[str]:
    """Every module ``name`` imports, through any chain."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        for nxt in graph()[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_the_generic_statistics_import_no_benchmark_package_through_any_chain():
    assert all(name in MODULES for name in GENERIC_STATISTICS)
    found = {name: sorted(m for m in _reached(name) if m.startswith(BENCHMARK_PACKAGES)) for name in GENERIC_STATISTICS}
    assert not any(found.values()), found


def test_the_reach_of_an_import_is_read_through_chains():
    """The check above can fail: an EQ-Bench study reaches EQ-Bench's package (directly or through a chain)."""
    reached = _reached("eqbench_nb.eqbench.study.leaderboard")
    assert any(m.startswith("eqbench_nb.eqbench.") and not m.startswith("eqbench_nb.eqbench.study") for m in reached)


def test_generic_names_belong_to_generic_things():
    """A benchmark's run and result types carry its name (EqBenchRun, Eq3Run, EmotionRun, JudgedRun); the façade's
    ``RunResult`` is the runner's generic result, which every benchmark's result extends (issue 39)."""
    import eqbench_nb
    from eqbench_nb.eqbench.task import EqBenchRunResult
    from eqbench_nb.runner.session import RunResult

    def defined(node: ast.AST) -> set[str]:
        """The names a class or an assignment defines."""
        if isinstance(node, ast.ClassDef):
            return {node.name}
        if isinstance(node, ast.Assign):
            return {t.id for t in node.targets if isinstance(t, ast.Name)}
        return set()

    owned = [
        f"{name}: {sorted(defined(node) & {'Run', 'RunResult'})}"
        for name, path in MODULES.items()
        if not name.startswith("eqbench_nb.runner")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if defined(node) & {"Run", "RunResult"}
    ]
    assert not owned, owned
    assert eqbench_nb.RunResult is RunResult and issubclass(EqBenchRunResult, RunResult)
    assert eqbench_nb.EqBenchRun.__module__ == "eqbench_nb.eqbench.runs" and not hasattr(eqbench_nb, "Run")


def test_header_fields_outside_the_runner_are_read_through_the_typed_header():
    """Issue 39: outside ``runner/`` a header's fields are read through :class:`~eqbench_nb.runner.header.RunHeader`
    and each benchmark's typed part; at most a handful of dict lookups are left (the legacy panel fields of
    ``eqbench3/panel.panel_of``, read alike from two header parts, and the protocol ``run_questions`` takes only
    as text)."""
    import re

    lookup = re.compile(r"header\[|header\.get\(")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "eqbench_nb").rglob("*.py"))
        if "runner" not in path.relative_to(ROOT / "eqbench_nb").parts
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if lookup.search(line)
    ]
    assert len(found) <= 5, found
