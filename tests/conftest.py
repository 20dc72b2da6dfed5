import dataclasses
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
RESULTS = SHARED / "eqbench" / "results" / "eq-bench"

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


needs_shared = pytest.mark.skipif(
    not SHARED.is_dir(), reason="../shared/data (upstream data) is not next to the project"
)


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
