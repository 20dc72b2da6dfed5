"""Two clones sharing one installed package: `reproduce` says which checkout's figures it wrote (an absolute path)
and warns when the package imported is not the checkout it is run in."""

import shutil
import subprocess
import sys
from pathlib import Path

from cli_helper import cli, environment
from conftest import ROOT

from eqbench_nb.cli.reproduce import ran_line
from eqbench_nb.paths import figures_dir


def _reproduce_list(cwd: Path) -> subprocess.CompletedProcess:
    return cli("reproduce", "--list", cwd=cwd)


def test_the_last_line_names_the_figures_folder_as_an_absolute_path():
    line = ran_line(10, 54)
    where = line.rsplit(" are in ", 1)[1]
    assert Path(where).is_absolute() and Path(where) == figures_dir().resolve(), line


def test_a_second_clone_using_the_first_clones_package_is_warned(tmp_path):
    clone = tmp_path / "second clone"
    (clone / "notebooks").mkdir(parents=True)
    shutil.copy(ROOT / "pyproject.toml", clone / "pyproject.toml")  # a checkout of this project, its package unused
    warned = _reproduce_list(clone)
    assert warned.returncode == 0, warned.stderr
    assert warned.stderr.startswith("warning: the eqbench_nb imported is") and str(clone) in warned.stderr
    assert str(ROOT) in warned.stderr and f"PYTHONPATH={clone}" in warned.stderr
    at_home = _reproduce_list(ROOT / "notebooks")
    assert at_home.returncode == 0 and "warning" not in at_home.stderr, at_home.stderr


def test_a_notebook_worker_imports_the_reproduce_module_without_the_analyses():
    """`reproduce` runs notebooks in spawned worker processes, which import eqbench_nb.cli.reproduce to run them;
    importing the command-line package must not pull in pandas, scipy and every benchmark there (1.2 CPU-s a
    worker, where each notebook's kernel imports what it needs itself)."""
    probe = (
        "import sys, eqbench_nb.cli.reproduce; "
        "print(sorted(m for m in ('pandas', 'scipy', 'eqbench_nb.registry', 'eqbench_nb.cli.research') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env=environment({"PYTHONPATH": str(ROOT)}))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
