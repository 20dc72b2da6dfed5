"""Every example output in README.md and docs/ is what its command prints on the committed data (issue 35, item 8:
the README printed the literal placeholders RUNS_OUTPUT, COMPARE_OUTPUT and LEADERBOARD_OUTPUT where output belonged).
docs/examples.py writes the blocks; these tests fail when one is stale, missing or pasted by hand undeclared."""

import importlib.util
import re
import subprocess
import sys

import pytest
from conftest import ROOT, needs_data

spec = importlib.util.spec_from_file_location("docs_examples", ROOT / "docs" / "examples.py")
examples = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = examples  # its dataclass looks its module up there
spec.loader.exec_module(examples)

#: A ```bash fence that runs the command, directly followed by a fence of what it printed.
COMMAND_THEN_OUTPUT = re.compile(r"```bash\n((?:(?!```).*\n)*?)```\n```\n", re.MULTILINE)


@needs_data
@pytest.mark.slow
def test_every_example_block_is_what_its_command_prints():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "examples.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, f"stale examples (run `python docs/examples.py`):\n{proc.stdout}{proc.stderr[-3000:]}"


def test_no_placeholder_and_every_pasted_output_is_declared():
    """An output fence after a command is either generated (inside <!-- example -->) or, in docs/ only, declared
    a recorded session (<!-- recorded: why -->: live runs and fake endpoints, whose output no script can repeat)."""
    for path in examples.documents():
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(ROOT)
        assert not re.search(r"^[A-Z]+_OUTPUT$", text, re.MULTILINE), f"{name}: a placeholder where output belongs"
        spans = [(e.start, e.end) for e in examples.examples(path)]
        for m in COMMAND_THEN_OUTPUT.finditer(text):
            if "eqbench-nb" not in m.group(1) or any(a <= m.start() < b for a, b in spans):
                continue
            previous_line = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
            recorded = previous_line.startswith("<!-- recorded: ")
            line = text.count("\n", 0, m.start()) + 1
            assert recorded, f"{name}:{line}: output pasted by hand; make it an <!-- example --> block"
            assert path.name != "README.md", f"{name}:{line}: every README output is generated"


def test_the_readme_has_an_example_of_each_main_command():
    commands = {e.command.split()[1] for e in examples.examples(ROOT / "README.md")}
    assert {"reproduce", "run", "score", "runs", "compare", "leaderboard", "plot", "view"} <= commands


def test_check_mode_names_a_stale_block_and_rewriting_fixes_it(tmp_path, monkeypatch):
    doc = tmp_path / "page.md"
    doc.write_text(
        "# p\n\n<!-- example -->\n```bash\necho hello; echo warned >&2\n```\n```\nRUNS_OUTPUT\n```\n"
        "<!-- /example -->\ntail\n"
    )
    monkeypatch.setattr(examples, "ROOT", tmp_path)
    monkeypatch.setattr(examples, "documents", lambda: [doc])
    assert examples._update(tmp_path, check=True) == ["page.md:3"]
    assert "RUNS_OUTPUT" in doc.read_text()  # --check changes nothing
    assert examples._update(tmp_path, check=False) == ["page.md:3"]
    assert doc.read_text().endswith("```\nhello\nwarned\n```\n<!-- /example -->\ntail\n")
    assert examples._update(tmp_path, check=True) == []
