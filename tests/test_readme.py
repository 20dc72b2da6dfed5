"""Every Python block of the README runs as written (in a fresh interpreter, from a scratch folder)."""

import re
import subprocess
import sys

import pytest
from conftest import _WHY_NO_MODEL, ROOT, needs_data

BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)


def test_readme_has_python_blocks():
    assert len(BLOCKS) >= 2


@needs_data
@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_block_runs(index, tmp_path):
    code = BLOCKS[index]
    if "run_benchmark(" in code and _WHY_NO_MODEL:
        pytest.skip(_WHY_NO_MODEL)
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"README block {index + 1} failed:\n{code}\n{proc.stderr[-3000:]}"
    assert proc.stdout.strip(), "each block prints what it shows"


def test_the_quick_start_comes_first_and_says_what_a_fresh_machine_needs():
    """Issue 29, item 12: the two commands sat at line 25 of 717, with no word of a virtual environment or of the
    model's 93 MB download. The quick start is the first section; it makes a virtual environment, says the size of
    the weights download, and gives the two commands (set-up and CI use the same install line)."""
    text = (ROOT / "README.md").read_text()
    sections = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert sections[0] == "Quick start"
    start = text.index("## Quick start")
    quick = text[start : text.index("\n## ", start + 1)]
    assert text[:start].count("\n") < 40, "the quick start is on the first screen"
    assert "python3 -m venv" in quick
    assert re.search(r"weights \(.*\b\d+ MB download", quick)
    first = quick.index("```bash", quick.index("two commands"))
    block = quick[first : quick.index("```\n", first + 7)]
    assert re.findall(r"^(\S+(?: \S+)*?)\s+#", block, re.MULTILINE) == ["eqbench-nb reproduce", "python -m pytest -q"]
