"""The test suite finds the upstream data as the package does (``EQBENCH_NB_DATA``, ``../shared/data``, the cache,
a download), and a run that leaves data tests out fails when data is required (``.ci/run``)."""

import os
import shutil
import subprocess
import sys

import pytest
from conftest import DATA, ROOT, needs_data_folder


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """The checkout's files (committed or not, never ignored ones) copied where no ../shared/data sits beside."""
    files = (
        subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=True
        )
        .stdout.decode()
        .split("\0")
    )
    clone = tmp_path_factory.mktemp("clones") / "fresh clone"
    for rel in filter(None, files):
        if (ROOT / rel).is_file():
            (clone / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, clone / rel)
    assert not (clone.parent / "shared").exists()
    return clone


def _pytest(clone, *args, **env):
    base = {k: v for k, v in os.environ.items() if k not in ("EQBENCH_NB_DATA", "EQBENCH_NB_REQUIRE_DATA", "CI")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-n", "0", "-p", "no:cacheprovider", *args],
        cwd=clone,
        env={**base, "PYTHONPATH": str(clone), **env},
        capture_output=True,
        text=True,
        timeout=600,
    )


#: One test that needs the upstream data, and starts the command line (it failed on this route when a test gave the
#: command a fresh environment), and one that reads a file only a data folder holds: each subprocess pytest costs its
#: imports, so the route is proven on small tests (tests/test_data_route.py holds it for every test).
NEEDS_DATA = "tests/test_compare_verdicts.py::test_a_side_with_no_score_gets_no_verdict_and_the_reason"
NEEDS_DATA_FOLDER = "tests/test_published.py::test_write_tables_reproduces_committed"


@needs_data_folder
@pytest.mark.slow
def test_a_clone_with_the_data_only_in_EQBENCH_NB_DATA_runs_the_data_tests(clone):
    proc = _pytest(clone, NEEDS_DATA, NEEDS_DATA_FOLDER, EQBENCH_NB_DATA=str(DATA), CI="true")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and "skipped" not in proc.stdout, proc.stdout[-3000:]


@pytest.mark.own_data_route  # no data at all
@pytest.mark.slow
def test_without_data_the_data_tests_skip_saying_why_and_fail_where_data_is_required(clone, tmp_path):
    nowhere = {
        "EQBENCH_NB_CACHE": str(tmp_path / "empty cache"),
        "EQBENCH_NB_UPSTREAM_URL": "http://127.0.0.1:9",  # nothing listens: the download fails at once
    }
    skipped = _pytest(clone, NEEDS_DATA, **nowhere)
    assert skipped.returncode == 0, skipped.stdout[-3000:]
    assert "SKIPPED" in skipped.stdout and "the upstream data was not found" in skipped.stdout
    assert "EQBENCH_NB_DATA" in skipped.stdout  # the package's own hint says where data may be put
    for required in ({"CI": "true"}, {"EQBENCH_NB_REQUIRE_DATA": "1"}):
        failed = _pytest(clone, NEEDS_DATA, **nowhere, **required)
        assert failed.returncode == 1, failed.stdout[-3000:]
        assert "missing upstream data (required here)" in failed.stdout and "SKIPPED" not in failed.stdout
