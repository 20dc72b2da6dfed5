import atexit
import contextlib
import dataclasses
import functools
import http.server
import inspect
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import hypothesis
import pytest

from eqbench_nb.data import DataError, shared_data_dir

ROOT = Path(__file__).resolve().parent.parent

#: The key the runner tests send to the loopback server; tests assert it is never written anywhere.
KEY = "sk-test-NEVER-WRITE-ME-0123456789"


@pytest.fixture
def key(monkeypatch):
    """OPENAI_API_KEY set to :data:`KEY` (modules that always need it use ``pytestmark``)."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return KEY


def split_fields(kw: dict) -> tuple[dict, dict, dict]:
    """``kw`` as (Endpoint's fields, RunSettings' fields, the rest: a benchmark's own options), by field name."""
    from eqbench_nb.runner.settings import Endpoint, RunSettings

    names = [{f.name for f in dataclasses.fields(t)} for t in (Endpoint, RunSettings)]
    endpoint = {k: v for k, v in kw.items() if k in names[0]}
    settings = {k: v for k, v in kw.items() if k in names[1]}
    return endpoint, settings, {k: v for k, v in kw.items() if k not in names[0] | names[1]}


@contextlib.contextmanager
def serve_folder(root: Path) -> Iterator[str]:
    """A real HTTP server on loopback serving the files below ``root`` (a mirror of an upstream repository at its
    pinned commit); yields its URL."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


@pytest.fixture
def no_local_data(monkeypatch, tmp_path):
    """No data folder (``EQBENCH_NB_DATA`` unset, nothing beside the checkout) and a fresh cache, which it returns:
    an upstream file must be downloaded."""
    from eqbench_nb import data

    monkeypatch.delenv("EQBENCH_NB_DATA", raising=False)
    monkeypatch.setattr(data, "checkout_root", lambda: tmp_path / "project")  # a checkout with nothing beside it
    monkeypatch.setenv("EQBENCH_NB_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def run(url, tmp_path, **kw):
    """``run_benchmark`` against a loopback server, quiet, with fast retries; ``kw`` overrides any field of the
    :class:`Endpoint` and :class:`RunSettings` it builds, or is one of EQ-Bench's own options."""
    from eqbench_nb.eqbench.task import run_benchmark
    from eqbench_nb.runner import RetryPolicy
    from eqbench_nb.runner.settings import Endpoint, RunSettings

    fast = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
    kw = {"model": "fake-model", "out_dir": tmp_path, "progress": False, "retry": fast, "timeout_s": 5, **kw}
    endpoint, settings, options = split_fields({"base_url": url, **kw})
    return run_benchmark(Endpoint(**endpoint), RunSettings(**settings), **options)


def _upstream_files() -> Iterator[tuple[str, Callable[[], Path]]]:
    """(path inside a data folder, how the package finds it) for every downloadable upstream file the tests read."""
    from eqbench_nb import data
    from eqbench_nb.emotionbench import files as emotionbench
    from eqbench_nb.empathy_judges import files as empathy_judges
    from eqbench_nb.eqbench3 import files as eqbench3
    from eqbench_nb.judged import files as judged
    from eqbench_nb.judgemark_v2 import files as judgemark_v2
    from eqbench_nb.welivita_pu import files as welivita_pu

    for name in [*data.manifest()["question_sets"], *data.manifest()["results"]]:
        yield data.folder_layouts(name)[0], lambda name=name: data.locate(name)
    for name, entry in eqbench3.manifest()["files"].items():
        if entry.get("sha256") and entry.get("upstream_path"):  # the files the offline data folder holds too
            yield f"{eqbench3.FOLDER}/{name}", lambda name=name: eqbench3.locate(name)
    for name, entry in emotionbench.manifest()["files"].items():
        yield f"emotionbench/{entry['path']}", lambda name=name: emotionbench.locate(name)
    for name in judged.manifest()["files"]:
        yield f"{judged.FOLDER}/{name}", lambda name=name: judged.locate(name)
    for name in judgemark_v2.manifest()["files"]:
        yield f"{judgemark_v2.FOLDER}/{name}", lambda name=name: judgemark_v2.locate(name)
    for study in (empathy_judges, welivita_pu):
        for name in study.FILES.names():
            yield f"{study.FOLDER}/{name}", lambda name=name, study=study: study.FILES.locate(name)


def _find_data() -> tuple[Path | None, str | None, bool]:
    """The upstream data folder, found as the package finds its files: ``EQBENCH_NB_DATA``, ``../shared/data``
    beside the checkout, else one assembled here (links) from the package's cache, downloading from the pinned
    commits where the network allows. ``EQBENCH_NB_DATA`` is set to the folder found, whichever way it was found,
    so the package in a test and every command a test starts read the very same files, named in the variable: the
    suite runs the README's ``EQBENCH_NB_DATA`` route whether the data lie beside the checkout or not, and a
    process started without the variable is refused (:func:`_refuse_a_process_without_the_data`). Returns (folder
    or None, why not, assembled)."""
    if (folder := shared_data_dir()) is not None:
        os.environ["EQBENCH_NB_DATA"] = str(folder)
        return folder, None, False
    assembled = Path(tempfile.mkdtemp(prefix="eqbench_nb_test_data_"))
    atexit.register(shutil.rmtree, assembled, ignore_errors=True)
    try:
        for rel, find in _upstream_files():  # the first failure stops it: offline, one failed download says enough
            (assembled / rel).parent.mkdir(parents=True, exist_ok=True)
            (assembled / rel).symlink_to(find())
    except DataError as exc:
        return None, f"the upstream data was not found ({exc})", False
    os.environ["EQBENCH_NB_DATA"] = str(assembled)
    return assembled, None, True


#: The upstream data folder (the package's lookup, see :func:`_find_data`); a path that does not exist when there
#: is none, so module-level paths can be written (the tests that read them are marked :data:`needs_data`).
_FOUND, WHY_NO_DATA, _ASSEMBLED = _find_data()
DATA = _FOUND or ROOT.parent / "no-upstream-data-found"
RESULTS = DATA / "eqbench" / "results" / "eq-bench"
#: Files no download gives (the paper's tables, tables transcribed from a site, maps made for the tests) are only in
#: a data folder (``EQBENCH_NB_DATA`` or ``../shared/data``), never in one assembled from downloads.
WHY_NO_DATA_FOLDER = WHY_NO_DATA or (
    "no upstream data folder (EQBENCH_NB_DATA or ../shared/data): the downloads hold only the pinned upstream files"
    if _ASSEMBLED
    else None
)

#: The test reads upstream data: it is skipped without it, and fails instead when ``EQBENCH_NB_REQUIRE_DATA=1`` or
#: ``CI=true`` (``.ci/run``), so a run that leaves tests out for want of data never passes as CI.
needs_data = pytest.mark.needs_data
#: The test reads a file only a data folder holds (see :data:`WHY_NO_DATA_FOLDER`); skipped or failed likewise.
needs_data_folder = pytest.mark.needs_data_folder


def _data_required() -> bool:
    return os.environ.get("EQBENCH_NB_REQUIRE_DATA") == "1" or os.environ.get("CI", "").lower() in ("1", "true")


def pytest_configure(config):
    config.addinivalue_line("markers", "needs_data: reads the upstream data (see tests/conftest.py)")
    config.addinivalue_line("markers", "needs_data_folder: reads a file only a data folder holds")
    config.addinivalue_line(
        "markers",
        "own_data_route: starts processes with a data route of their own (none, or a wheel installed elsewhere)",
    )


#: Whether the running test may start a process whose environment lacks ``EQBENCH_NB_DATA`` (``own_data_route``).
_OWN_DATA_ROUTE = False
_ENV_AT = list(inspect.signature(subprocess.Popen._execute_child).parameters).index("env") - 1  # after self


def _refuse_a_process_without_the_data(execute_child: Callable[..., Any]) -> Callable[..., Any]:
    """``Popen._execute_child`` that refuses an environment without ``EQBENCH_NB_DATA`` while this process has it:
    a test that builds a process's environment from scratch gives it no data where the data are only in the
    variable (the README's route), so the suite failed there and passed beside ``../shared`` (issue 44)."""

    @functools.wraps(execute_child)
    def checked(self: Any, *args: Any, **kwargs: Any) -> Any:
        env = args[_ENV_AT] if len(args) > _ENV_AT else kwargs.get("env")
        wanted = os.environ.get("EQBENCH_NB_DATA")
        if env is not None and wanted and not _OWN_DATA_ROUTE and env.get("EQBENCH_NB_DATA") != wanted:
            raise AssertionError(
                f"a process started without EQBENCH_NB_DATA={wanted} in its environment: {args[0]!r}; pass "
                "os.environ through (tests/cli_helper.py) or mark the test own_data_route"
            )
        return execute_child(self, *args, **kwargs)

    return checked


subprocess.Popen._execute_child = _refuse_a_process_without_the_data(subprocess.Popen._execute_child)  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _data_route(request):
    global _OWN_DATA_ROUTE
    _OWN_DATA_ROUTE = request.node.get_closest_marker("own_data_route") is not None
    yield
    _OWN_DATA_ROUTE = False


#: Compiled bytecode is kept for the suite's own processes (its workers, ~80 commands, kernels and pytests it starts):
#: with PYTHONDONTWRITEBYTECODE set (this workplace sets it) every one of them compiled each module it imports again.
#: On two idle cores the whole suite took 6 min 12 s with it set and 5 min 49 s without (685 -> 616 CPU-s). The
#: files go to __pycache__/ folders, which git ignores, as an installed package's do (pip compiles at install).
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    sys.dont_write_bytecode = False

#: hypothesis's 200 ms deadline per example failed test_redact at load 10 (283 ms): CI shares its cores, and the
#: deadline measures the machine's load, not the code; too_slow likewise.
hypothesis.settings.register_profile(
    "shared-machine", deadline=None, suppress_health_check=[hypothesis.HealthCheck.too_slow]
)
hypothesis.settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "shared-machine"))


def pytest_runtest_setup(item):
    for marker, why in (("needs_data", WHY_NO_DATA), ("needs_data_folder", WHY_NO_DATA_FOLDER)):
        if why is not None and item.get_closest_marker(marker) is not None:
            if _data_required():
                pytest.fail(f"missing upstream data (required here): {why}", pytrace=False)
            pytest.skip(why)


def _local_model_missing() -> str | None:
    """Why the bundled model cannot run here, or None when it can."""
    try:
        import xllamacpp  # noqa: F401

        from eqbench_nb.runner.local_model import weights_path

        weights_path()
    except Exception as exc:  # any reason: runtime or weights not installed
        return f"the bundled model is not installed ({exc})"
    return None


_WHY_NO_MODEL = _local_model_missing()
needs_local_model = pytest.mark.skipif(_WHY_NO_MODEL is not None, reason=_WHY_NO_MODEL or "")


def pytest_collection_modifyitems(config, items):
    """The files that hold a ``slow`` test first, each file's tests kept together and in order (so a module's
    fixture, a browser or a JupyterLab server, still starts once): on two cores the longest tests then start while
    the short ones can still fill the other core, instead of one of them running alone at the end (longest first,
    the classic rule for packing jobs onto machines)."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow_files)  # stable: the order within each group is kept


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker more than the cores. About a fifth of the suite's wall time is waiting, not computing
    (rate-limit windows, a server's reply, a killed process's resume, a poll interval), and a third worker fills it:
    on two idle cores the whole suite took 7 min 13 s with two workers and 6 min 15 s with three (701 CPU-s)."""
    return (os.cpu_count() or 1) + 1
