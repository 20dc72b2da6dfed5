"""Floors by subject (issue 45): EQ-Bench's figures, per-emotion errors and protocol comparisons sit beside EQ-Bench's
study, the viewer's contract beside the viewer; the generic plots import nothing of EQ-Bench, ``plots`` names only
modules on its own floor, and the old paths the committed notebooks import give the moved modules themselves."""

import re
import subprocess
import sys

from conftest import ROOT
from test_architecture import MODULES, _reached, floor

GENERIC_PLOTS = sorted(m for m in MODULES if m.startswith("eqbench_nb.plots."))


def test_the_generic_plots_import_nothing_of_eqbench_through_any_chain():
    assert {"eqbench_nb.plots.common", "eqbench_nb.plots.stats"} <= set(GENERIC_PLOTS)
    found = {m: sorted(r for r in _reached(m) if r.startswith("eqbench_nb.eqbench")) for m in GENERIC_PLOTS}
    assert not any(found.values()), found


def test_plots_names_only_modules_on_its_floor_and_of_eqbench_only_its_studys_figures():
    """``plots`` imports its modules by name on first use, which the floor test's reading of imports cannot see."""
    import importlib

    from eqbench_nb import plots

    targets = {importlib.util.resolve_name(where, "eqbench_nb.plots") for where in plots._WHERE.values()}
    assert targets <= set(MODULES), targets - set(MODULES)
    assert all(floor(t) <= floor("eqbench_nb.plots") for t in targets)
    outside = {t for t in targets if not t.startswith("eqbench_nb.plots.")}
    assert outside and all(t.startswith("eqbench_nb.eqbench.study.plots.") for t in outside), outside


def test_the_moved_modules_are_where_their_subject_is():
    for old in ("analysis.emotions", "analysis.protocol", "plots.metric", "plots.runs", "runner.items"):
        assert f"eqbench_nb.{old}" not in MODULES, old
    for new in ("eqbench.study.emotions", "eqbench.study.protocol", "eqbench.study.plots.metric",
                "eqbench.study.plots.runs", "viewer.contract"):  # fmt: skip
        assert f"eqbench_nb.{new}" in MODULES, new


def test_the_old_paths_the_notebooks_import_are_exactly_the_aliased_ones():
    """An alias lives only while a committed notebook imports its old path (they are executed as committed)."""
    from eqbench_nb import MOVED_MODULES

    imported = set()
    for source in sorted((ROOT / "notebooks").glob("*.py")):
        for names in re.findall(r"^from eqbench_nb\.analysis import (.+)$", source.read_text(), re.MULTILINE):
            imported |= {f"eqbench_nb.analysis.{n.split(' as ')[0].strip()}" for n in names.split(",")}
    assert set(MOVED_MODULES) == {m for m in imported if m not in MODULES}


def test_an_old_path_gives_the_moved_module_itself_imported_once():
    code = """
import sys
import eqbench_nb.analysis.stats
assert not [m for m in sys.modules if ".study" in m], "the generic statistics pulled in a study"
from eqbench_nb.analysis import emotions as em, protocol
import eqbench_nb.analysis.protocol as p2
from eqbench_nb.eqbench.study import emotions, protocol as p3
assert em is emotions and protocol is p2 is p3
assert em.__name__ == em.__spec__.name == "eqbench_nb.eqbench.study.emotions", em.__spec__
try:
    from eqbench_nb.analysis import no_such_module
except ImportError:
    pass
else:
    raise AssertionError("an unknown name imported")
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr
