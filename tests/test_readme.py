"""Every Python block of the README runs as written (in a fresh interpreter, from a scratch folder)."""

import re
import subprocess
import sys

import pytest
from conftest import _WHY_NO_MODEL, ROOT, needs_shared

BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)


def test_readme_has_python_blocks():
    assert len(BLOCKS) >= 2


@needs_shared
@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_block_runs(index, tmp_path):
    code = BLOCKS[index]
    if "run_benchmark(" in code and _WHY_NO_MODEL:
        pytest.skip(_WHY_NO_MODEL)
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"README block {index + 1} failed:\n{code}\n{proc.stderr[-3000:]}"
    assert proc.stdout.strip(), "each block prints what it shows"
