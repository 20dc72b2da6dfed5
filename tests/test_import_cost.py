"""Every command starts fast (issue 44): building the command line's parser, as ``--help`` does, imports none of the
heavy libraries (scipy, pandas, matplotlib, the ``openai`` SDK, numpy); they are imported where they are used. And
the program leaves its heap to the system at exit. Each check runs in a fresh interpreter, since this process has
long imported them all."""

import json
import os
import subprocess
import sys

import pytest
from conftest import KEY, ROOT, needs_data
from fake_openai_server import FakeOpenAI

#: What no parser needs: pandas and scipy (through analysis.stats) cost 0.65 s, the openai SDK 0.5 s, against a
#: 0.35 s budget for ``eqbench-nb --help`` (issue 44).
HEAVY = ("scipy", "pandas", "matplotlib", "openai", "numpy", "seaborn", "ipywidgets", "anywidget", "nbclient")

#: Prints, as JSON, which of HEAVY the code given as its argument left in sys.modules.
PROBE = f"""
import contextlib, io, json, sys
with contextlib.redirect_stdout(io.StringIO()):
    exec(sys.argv[1])
print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))
"""


def heavy_after(code: str, **env_vars: str) -> list[str]:
    """The heavy libraries in sys.modules of a fresh interpreter that ran ``code`` (with this checkout first on the
    path, whatever is installed, and ``env_vars`` set)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), **env_vars}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def help_of(*args: str) -> str:
    """``eqbench-nb ARGS``, in process, as the console script runs it (its exit status checked)."""
    return f"""
from eqbench_nb.cli import main
try:
    main({list(args)!r})
except SystemExit as exc:
    assert exc.code == 0, exc.code
else:
    raise AssertionError("--help did not exit")
"""


def test_importing_the_command_line_imports_nothing_heavy():
    assert heavy_after("import eqbench_nb.cli") == []


def test_importing_the_package_imports_nothing_heavy():
    """The façade a notebook's first cell imports: its heavy functions are imported on first use."""
    assert heavy_after("import eqbench_nb") == []


@pytest.mark.parametrize("args", [("--help",), ("run", "--help"), ("score", "--help"), ("view", "--help")])
def test_help_builds_the_whole_parser_and_imports_nothing_heavy(args):
    """--help builds every command's parser (the registry, every benchmark's options) before it prints."""
    assert heavy_after(help_of(*args)) == []


def test_the_parser_built_holds_every_benchmark():
    """The check above sees the parser the command line uses: the one whose run options name every benchmark."""
    code = """
from eqbench_nb.cli import build_parser
from eqbench_nb import registry
usage = build_parser()._subparsers._group_actions[0].choices["run"].format_usage()
assert all(name in usage for name in registry.names()), usage
"""
    assert heavy_after(code) == []


def test_the_statistics_import_their_libraries_on_first_use():
    """A constant of the statistics, or a function named (as a benchmark's declaration does), costs no library; the
    first estimate imports what it uses, and gives the number it always gave."""
    assert heavy_after("from eqbench_nb.analysis.stats import SMALL_N, t_mean_ci, wilson_interval") == []
    code = """
from eqbench_nb.analysis import stats
low, high = stats.wilson_interval(3, 10)
assert (round(low, 4), round(high, 4)) == (0.1078, 0.6032), (low, high)
import numpy, scipy.stats
assert stats.np is numpy and stats._sps is scipy.stats  # the stand-ins gave way to the modules
"""
    assert heavy_after(code) == ["numpy", "scipy"]


def test_a_notebooks_imports_of_the_package_leave_scipy_for_the_first_computation():
    """Notebook 01's imports of the package (the plots, the run table, the report's helpers): scipy (scipy.stats
    alone costs as much as pandas) is imported by the first computation that needs it, not by the import cell."""
    code = """
from eqbench_nb import RunSettings, load_questions, plots, score_run
from eqbench_nb.eqbench.study.table import run_table
from eqbench_nb.report import record_headline, save_figure, show_markdown
"""
    assert "scipy" not in heavy_after(code, MPLBACKEND="Agg")


def test_a_run_imports_the_client_and_no_analysis_library(tmp_path):
    """A run imports the openai SDK when it starts, and no pandas, scipy or matplotlib: its summary is plain
    arithmetic."""
    with FakeOpenAI(api_key=KEY) as url:
        args = ["run", "--base-url", url, "--model", "fake-model", "--limit", "2", "--out", str(tmp_path)]
        code = f"from eqbench_nb.cli import main; assert main({args + ['--no-progress']!r}) == 0"
        assert heavy_after(code, OPENAI_API_KEY=KEY) == ["openai"]
    assert len(list(tmp_path.glob("*.jsonl"))) == 1


@needs_data
def test_telling_which_benchmark_a_file_is_imports_nothing_heavy():
    """A folder listing asks every file whose it is before it reads one: the 86 published runs and every committed
    run and table (a Judgemark board's look imported pandas and scipy, 1.7 s of a 3.4-s `plot intervals`)."""
    code = """
from pathlib import Path
from eqbench_nb import registry
from eqbench_nb.data import shared_data_dir
files = [*(shared_data_dir() / "eqbench" / "results" / "eq-bench").glob("*.json"), *Path("data").rglob("*.*")]
names = {b.name for f in files if f.is_file() and (b := registry.benchmark_of(f)) is not None}
assert {"eqbench", "emotionbench", "judgemark", "empathetic-responding", "judge-check"} <= names, names
assert sum(1 for f in files if f.suffix == ".json") >= 86
"""
    assert heavy_after(code) == []


def test_the_probe_sees_a_heavy_import():
    """The probe can fail: a command that does use pandas leaves it in sys.modules."""
    assert heavy_after("from eqbench_nb.cli.tabular import render; import pandas; render(pandas.DataFrame())") == [
        "numpy",
        "pandas",
    ]


EXIT = """
import atexit, gc, sys
atexit.register(lambda: print("frozen" if gc.get_freeze_count() else "not frozen"))  # runs after main's: last in
from eqbench_nb.cli import main
try:
    {call}
except SystemExit:
    pass
"""


@pytest.mark.parametrize(
    ("call", "said"),
    [('sys.argv = ["eqbench-nb", "--version"]; main()', "frozen"), ('main(["--version"])', "not frozen")],
)
def test_the_program_leaves_its_heap_to_the_system_at_exit(call, said):
    """The program (argv from the command line) freezes the collector at exit, after its exit handlers: the last
    collections walked every object a run imported (0.6 s of its exit, loaded); main() called from Python, which
    goes on after it, leaves the collector alone."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", EXIT.format(call=call)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == said
