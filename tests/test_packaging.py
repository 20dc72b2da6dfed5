"""The package as a user installs it: requirements.txt agrees with pyproject.toml, and a wheel built from
the checkout works from another directory (imports, the command, the committed tables, the data lookup)."""

import os
import re
import subprocess
import sys
import tomllib
import zipfile

import pytest
from conftest import DATA, ROOT


def _names(requirements):
    return sorted(re.split(r"[<>=\[ ]", r, maxsplit=1)[0].lower() for r in requirements)


def test_requirements_txt_agrees_with_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    lines = [x.split("#")[0].strip() for x in (ROOT / "requirements.txt").read_text().splitlines()]
    listed = [x for x in lines if x and not x.startswith("-e")]
    assert sorted(listed) == sorted(declared)
    assert "-e ." in lines, "requirements.txt installs the project itself"
    assert _names(listed) == _names(declared)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    (path,) = out.glob("eqbench_nb-*.whl")
    return path


def test_wheel_carries_the_package_data(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "eqbench_nb/eqbench/upstream_manifest.json" in names
    assert "eqbench_nb/judged/upstream_manifest.json" in names and "eqbench_nb/_data/judgemark_v1_board.csv" in names
    assert "eqbench_nb/viewer/viewer.js" in names and "eqbench_nb/viewer/viewer.css" in names  # the run viewer
    assert "eqbench_nb/_data/benchmarks_joined.csv" in names and "eqbench_nb/_data/emotion_families.csv" in names
    assert any(n.startswith("eqbench_nb/_data/runs/") and n.endswith(".jsonl") for n in names)
    assert not any(n.startswith(("tests/", "notebooks/")) for n in names)
    assert any(n.endswith("entry_points.txt") for n in names)


@pytest.mark.own_data_route  # the installed wheel with no data, then with EQBENCH_NB_DATA alone
@pytest.mark.slow
def test_installed_wheel_works_outside_the_checkout(wheel, tmp_path):
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
        check=True,
        timeout=300,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("EQBENCH_NB_")}
    env |= {
        "PYTHONPATH": str(site),
        "EQBENCH_NB_CACHE": str(tmp_path / "cache"),
        "EQBENCH_NB_UPSTREAM_URL": "http://127.0.0.1:9",
    }  # no download can succeed

    def python(code, **extra):
        return subprocess.run(
            [sys.executable, "-c", code], cwd=elsewhere, env=env | extra, capture_output=True, text=True, timeout=120
        )

    proc = python(
        "import eqbench_nb, eqbench_nb.eqbench.study.published as p; print(eqbench_nb.__file__); "
        "print(len(p.benchmarks_joined()))"
    )
    assert proc.returncode == 0, proc.stderr
    where, n_models = proc.stdout.split()
    assert where.startswith(str(site)) and int(n_models) > 100
    help_text = subprocess.run(
        [sys.executable, "-m", "eqbench_nb", "--help"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert help_text.returncode == 0 and "reproduce" in help_text.stdout
    # no data anywhere: one clear message, saying what to do
    proc = python("import eqbench_nb; eqbench_nb.load_questions('v2')")
    assert proc.returncode != 0 and "EQBENCH_NB_DATA" in proc.stderr and "download" in proc.stderr
    if DATA.is_dir():  # the upstream data found through EQBENCH_NB_DATA, from outside any checkout
        proc = python(
            "import eqbench_nb; from eqbench_nb.eqbench.study.table import bundled_model_runs; "
            "print(len(eqbench_nb.load_questions('v2')), len(bundled_model_runs()))",
            EQBENCH_NB_DATA=str(DATA),
        )
        assert proc.returncode == 0, proc.stderr
        n_questions, n_runs = map(int, proc.stdout.split())
        assert n_questions == 171 and n_runs >= 1
