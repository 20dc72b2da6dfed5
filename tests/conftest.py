import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "data"
RESULTS = SHARED / "eqbench" / "results" / "eq-bench"

needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data (upstream data) is not next to the project")
