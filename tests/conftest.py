from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
RESULTS = SHARED / "eqbench" / "results" / "eq-bench"

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
