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


def run(url, tmp_path, **kw):
    """``run_benchmark`` against a loopback server, quiet, with fast retries; ``kw`` overrides any setting (given as
    the old keywords, split into an Endpoint, RunSettings and EQ-Bench's own options)."""
    from eqbench_nb.eqbench.task import run_benchmark
    from eqbench_nb.runner import RetryPolicy
    from eqbench_nb.runner.settings import from_keywords

    fast = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
    kw = {"model": "fake-model", "out_dir": tmp_path, "progress": False, "retry": fast, "timeout": 5, **kw}
    endpoint, settings, options = from_keywords({"base_url": url, **kw})
    return run_benchmark(endpoint, settings, **options)


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
