"""Every notebook runs top to bottom in a fresh kernel and writes non-empty figures."""
import numpy as np
import pytest
from matplotlib import image

from conftest import needs_shared
from eqbench_nb.reproduce import execute_notebook, notebook_paths

NOTEBOOKS = notebook_paths()


@needs_shared
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_and_draws(path, tmp_path, monkeypatch):
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


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 1
