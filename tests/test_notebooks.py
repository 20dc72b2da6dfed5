"""Every notebook runs top to bottom in a fresh kernel, writes non-empty figures, and is a clean jupytext pair."""

import jupytext
import nbformat
import numpy as np
import pytest
from conftest import _WHY_NO_MODEL, needs_data
from matplotlib import image

from eqbench_nb.cli.reproduce import _inputs, execute_notebook, notebook_sources

NOTEBOOKS = notebook_sources()
USES_LOCAL_MODEL: set[str] = set()  # 01_quickstart reads its committed run unless EQBENCH_NB_FRESH is set


@needs_data
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
@pytest.mark.slow
def test_notebook_runs_and_draws(path, tmp_path, monkeypatch):
    if path.stem in USES_LOCAL_MODEL and _WHY_NO_MODEL:
        pytest.skip(_WHY_NO_MODEL)
    figures = tmp_path / "figures"
    monkeypatch.setenv("EQBENCH_NB_FIGURES", str(figures))  # the kernel inherits it
    result = execute_notebook(path, timeout=600, save=False)
    assert result.error is None, f"{path.name}: {result.error}"
    pngs = sorted(figures.glob("*.png"))
    assert pngs, f"{path.name} wrote no figure"
    for png in pngs:
        pixels = image.imread(png)
        assert pixels.size and float(np.std(pixels)) > 0.01, f"{png.name} is blank"
    assert list((figures / "headlines").glob("*.json")), f"{path.name} recorded no headline number"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_pair_is_in_step_and_imports_the_installed_package(path):
    ipynb = path.with_suffix(".ipynb")
    assert ipynb.exists(), f"{ipynb.name} is missing: run `eqbench-nb reproduce {path.stem}`"
    assert _inputs(jupytext.read(path)) == _inputs(nbformat.read(ipynb, as_version=4)), (
        f"{path.name} and {ipynb.name} differ: run `jupytext --sync {path}`"
    )
    assert "sys.path" not in path.read_text(), f"{path.name} changes sys.path"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_saved_outputs_name_no_path_of_this_machine(path):
    """Outputs that print where the checkout lies would differ on every machine (and leak a home folder)."""
    from conftest import ROOT

    nb = nbformat.read(path.with_suffix(".ipynb"), as_version=4)
    text = "\n".join(str(o) for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    for mark in (str(ROOT), "PosixPath(", "/home/", "/root/"):
        assert mark not in text, f"{path.with_suffix('.ipynb').name} prints {mark!r} in an output"


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 6


def test_a_failing_notebook_is_not_saved_and_a_passing_one_is_stable(tmp_path):
    good = tmp_path / "01_good.py"
    good.write_text("# %% [markdown]\n# A title\n\n# %%\nprint(6 * 7)\n")
    result = execute_notebook(good)
    assert result.error is None
    saved = good.with_suffix(".ipynb").read_text()
    assert '"42' in saved and "widget" not in saved
    assert execute_notebook(good).error is None
    assert good.with_suffix(".ipynb").read_text() == saved, "a re-run with nothing changed rewrites nothing"

    bad = tmp_path / "02_bad.py"
    bad.write_text("# %%\nraise ValueError('boom')\n")
    committed = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    bad.with_suffix(".ipynb").write_text(committed)
    bad_ipynb = bad.with_suffix(".ipynb")
    import os

    os.utime(bad_ipynb, (1, 1))  # older than the .py: the .py is the source to run
    result = execute_notebook(bad)
    assert result.error == "ValueError: boom"
    assert bad_ipynb.read_text() == committed, "a failed notebook leaves the saved one as it was"


def test_an_edit_in_the_ipynb_wins_when_it_is_newer(tmp_path):
    import os

    source = tmp_path / "01_pair.py"
    source.write_text("# %%\nx = 1\n")
    assert execute_notebook(source).error is None
    nb = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    nb.cells[0].source = "x = 2\nprint(x)"
    nbformat.write(nb, source.with_suffix(".ipynb"))
    os.utime(source, (1, 1))
    result = execute_notebook(source)
    assert result.error is None and "copied to 01_pair.py" in result.note
    assert "x = 2" in source.read_text()


def test_reproduce_names_the_notebooks_it_knows():
    from cli_helper import cli
    from conftest import ROOT

    proc = cli("reproduce", "99_nothing", cwd=ROOT / "notebooks")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "99_nothing" in proc.stderr and "03_repeatability" in proc.stderr


def test_a_notebook_records_its_headlines_afresh_and_a_failure_keeps_the_old_ones(tmp_path, monkeypatch):
    import json

    figures = tmp_path / "figures"
    monkeypatch.setenv("EQBENCH_NB_FIGURES", str(figures))
    source = tmp_path / "07_heads.py"
    cell = "# %%\nfrom eqbench_nb.report import record_headline\nrecord_headline('07_heads', 'c', 's', 1.0, key='{}')\n"
    source.write_text(cell.format("old"))
    assert execute_notebook(source, save=False).error is None
    source.write_text(cell.format("new"))
    assert execute_notebook(source, save=False).error is None
    path = figures / "headlines" / "07_heads.json"
    assert [r["key"] for r in json.loads(path.read_text())] == ["new"], "a key no longer recorded is gone"
    kept = path.read_bytes()
    source.write_text(cell.format("newer") + "raise ValueError('boom')\n")
    assert execute_notebook(source, save=False).error == "ValueError: boom"
    assert path.read_bytes() == kept, "a failed notebook leaves its recorded headlines as they were"


# A notebook whose numbers go through OpenBLAS (a least-squares line, a correlation, a long dot product) and numpy's
# run-time code paths (exp), printed to the last bit and drawn: what notebook 04's scatter did when its figure came
# out in other bytes on another CPU (issue 29).
CPU_PROBE = """# %%
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from eqbench_nb.report import save_figure

rng = np.random.default_rng(0)
x = rng.normal(size=171)
y = 2 * x + rng.normal(size=171)
X = rng.normal(size=(171, 5))
slope, intercept = np.polyfit(x, y, 1)
big = rng.normal(size=1_000_000)
fit = np.linalg.lstsq(X, y, rcond=None)[0]
values = [slope, intercept, np.corrcoef(x, y)[0, 1], *fit, big @ big, np.exp(3 * x).sum()]
print([float(v).hex() for v in values])
fig, ax = plt.subplots(figsize=(4, 3))
xs = np.linspace(x.min(), x.max(), 50)
ax.plot(xs, slope * xs + intercept, color="black", lw=1, alpha=0.7)
ax.scatter(x, y, s=8)
save_figure(fig, "cpu_probe")
"""

#: What other machines would have OpenBLAS and numpy run (the variables they read at start): an older x86 CPU with AVX
#: and no AVX2, an AMD one with AVX2 and no AVX-512, one core.
OTHER_CPUS = {
    "an AVX-only CPU's BLAS": {"OPENBLAS_CORETYPE": "Sandybridge"},
    "an AVX2 CPU without AVX-512": {"OPENBLAS_CORETYPE": "Zen", "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL"},
    "a one-core machine (one BLAS thread)": {"OPENBLAS_NUM_THREADS": "1"},
}


def test_a_notebook_draws_the_same_bytes_whichever_code_paths_the_cpu_offers(tmp_path, monkeypatch):
    """reproduce pins the floating-point code paths of its kernels (issue 29, item 2): a figure drawn where
    OpenBLAS and numpy would pick other kernels, or another thread count, has the same bytes. Without the pin the
    least-squares line moves in its last bit and the PNG differs."""
    from eqbench_nb.cli.reproduce import cpu_features

    features, _ = cpu_features()
    if not (features.get("AVX2") and features.get("FMA3")):
        pytest.skip("not an x86-64 CPU with AVX2 and FMA: the code paths are not pinned there")
    for var in ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES", "OPENBLAS_NUM_THREADS"):
        monkeypatch.delenv(var, raising=False)

    def draw(folder, env):
        folder.mkdir()
        (folder / "04_probe.py").write_text(CPU_PROBE)
        with monkeypatch.context() as m:
            m.setenv("EQBENCH_NB_FIGURES", str(folder / "figures"))
            for k, v in env.items():
                m.setenv(k, v)  # as this machine would be: the kernel inherits it unless reproduce pins it
            result = execute_notebook(folder / "04_probe.py")
        assert result.error is None, result.error
        nb = nbformat.read(folder / "04_probe.ipynb", as_version=4)
        return nb.cells[0].outputs[0]["text"], (folder / "figures" / "cpu_probe.png").read_bytes()

    here = draw(tmp_path / "here", {})
    for i, (name, env) in enumerate(OTHER_CPUS.items()):
        printed, png = draw(tmp_path / f"other{i}", env)
        assert printed == here[0], f"the numbers differ in their last bits on {name}"
        assert png == here[1], f"the figure's bytes differ on {name}"


def test_the_pin_needs_avx2_and_fma_and_switches_off_every_numpy_path_above_them():
    from eqbench_nb.cli.reproduce import OPENBLAS_BASELINE, pinned_numerics

    avx512 = {"AVX2": True, "FMA3": True, "AVX512F": True, "X86_V4": True}
    numpy2 = ["X86_V3", "X86_V4", "AVX512_ICL", "AVX512_SPR"]
    assert pinned_numerics(avx512, numpy2) == {
        "OPENBLAS_NUM_THREADS": "1",
        "OPENBLAS_CORETYPE": OPENBLAS_BASELINE,
        "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
    }
    numpy1 = ["SSE41", "AVX2", "FMA3", "AVX512F", "AVX512_SKX"]  # numpy 1.x names its targets by feature
    assert pinned_numerics(avx512, numpy1)["NPY_DISABLE_CPU_FEATURES"] == "AVX512F AVX512_SKX"
    assert "NPY_DISABLE_CPU_FEATURES" not in pinned_numerics(avx512, ["X86_V3"])
    # Haswell's kernels would stop an older CPU (illegal instruction), and an ARM CPU has neither: threads only
    assert pinned_numerics({"AVX": True, "AVX2": False}, numpy2) == {"OPENBLAS_NUM_THREADS": "1"}
    assert pinned_numerics({"ASIMD": True}, ["ASIMDHP"]) == {"OPENBLAS_NUM_THREADS": "1"}
