"""Regenerate (or check) the example outputs in README.md and docs/: each is what its command prints, never typed.

An example is a block of Markdown between two markers::

    <!-- example -->
    ```bash
    eqbench-nb runs data/runs
    ```
    ```
    (what the command printed: written by this script)
    ```
    <!-- /example -->

The ``bash`` fence is kept as written and run by bash, ``eqbench-nb`` being this checkout's package
(``python -m eqbench_nb``) and stderr following stdout as on a terminal; the fence after it is replaced by what it
printed. ``<!-- example markdown -->`` writes the output as Markdown (a ``--format markdown`` table) instead of a
fence. The commands run in a scratch folder where ``data`` is this checkout's committed ``data/`` and
``../shared/data`` the upstream data the package finds (``EQBENCH_NB_DATA`` or ``../shared/data``), so an example
reads only committed data and pinned upstream files, and a file it writes (``--out x.png``) lands in the scratch
folder. ``tiktoken``, which is not a dependency, is hidden from them (a dry run's token count names its counter),
so they print what the set-up's install prints. Only commands whose output does not depend on the clock or the
machine belong here.

    python docs/examples.py            # rewrite the blocks that differ
    python docs/examples.py --check    # exit 1, naming each stale block (tests/test_docs_examples.py)
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START = re.compile(r"^<!-- example( markdown)? -->\n", re.MULTILINE)
END = "<!-- /example -->"
COMMAND = re.compile(r"```bash\n(.*?)^```\n", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Example:
    path: Path
    start: int  # offset of the block's body (after the start marker)
    end: int  # offset of the end marker
    command: str
    markdown: bool

    @property
    def where(self) -> str:
        line = self.path.read_text(encoding="utf-8").count("\n", 0, self.start)  # the start marker's line
        return f"{self.path.relative_to(ROOT)}:{line}"


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def examples(path: Path) -> list[Example]:
    text = path.read_text(encoding="utf-8")
    found = []
    for m in START.finditer(text):
        end = text.find(END, m.end())
        if end < 0:
            raise SystemExit(f"error: {path.relative_to(ROOT)}: an example block has no {END}")
        command = COMMAND.match(text, m.end())
        if command is None:
            raise SystemExit(f"error: {path.relative_to(ROOT)}: an example block does not start with a ```bash fence")
        found.append(Example(path, m.end(), end, command.group(1), bool(m.group(1))))
    return found


def scratch_folder(top: Path) -> Path:
    """``top/work``, laid out like a checkout beside its data: ``work/data`` and ``shared/data`` are links."""
    sys.path.insert(0, str(ROOT))
    from eqbench_nb.data import shared_data_dir

    (top / "work").mkdir()
    (top / "hidden").mkdir()
    (top / "hidden" / "tiktoken.py").write_text('raise ImportError("not a dependency: hidden from the examples")\n')
    (top / "work" / "data").symlink_to(ROOT / "data")
    shared = shared_data_dir()
    if shared is not None:
        (top / "shared").mkdir()
        (top / "shared" / "data").symlink_to(shared.resolve())
    return top / "work"


def run(command: str, cwd: Path) -> str:
    """What the command prints, stdout and stderr interleaved, with the trailing newline normalised."""
    path = os.pathsep.join([str(cwd.parent / "hidden"), str(ROOT)])
    env = {**os.environ, "PYTHONPATH": path, "PYTHONUNBUFFERED": "1", "COLUMNS": "200", "NO_COLOR": "1"}
    env.pop("EQBENCH_NB_FIGURES", None)
    script = f'eqbench-nb() {{ "{sys.executable}" -m eqbench_nb "$@"; }}\nset -o pipefail\n{command}'
    proc = subprocess.run(
        ["bash", "-c", script], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    if proc.returncode not in (0, 141):  # 141: `| head` closed the pipe, as intended
        raise SystemExit(f"error: the example failed (exit {proc.returncode}):\n{command}\n{proc.stdout[-2000:]}")
    return proc.stdout.rstrip("\n") + "\n"


def render(example: Example, output: str) -> str:
    shown = output if example.markdown else f"```\n{output}```\n"
    return f"```bash\n{example.command}```\n{shown}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a block is stale")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="eqbench-nb-examples-") as top:
        stale = _update(scratch_folder(Path(top)), check=args.check)
    for where in stale:
        print(f"{'stale' if args.check else 'rewritten'}: {where}")
    return 1 if stale and args.check else 0


def _update(cwd: Path, check: bool) -> list[str]:
    """Run every example; rewrite the documents whose blocks differ unless ``check``. Returns the stale blocks."""
    stale = []
    printed: dict[str, str] = {}  # a command shown on two pages (`reproduce --list`, the dry run) runs once
    for path in documents():
        text = path.read_text(encoding="utf-8")
        new = text
        for example in reversed(examples(path)):  # from the end, so earlier offsets stay valid
            if example.command not in printed:
                printed[example.command] = run(example.command, cwd)
            block = render(example, printed[example.command])
            if text[example.start : example.end] != block:
                stale.append(example.where)
                new = new[: example.start] + block + new[example.end :]
        if new != text and not check:
            path.write_text(new, encoding="utf-8")
    return stale


if __name__ == "__main__":
    sys.exit(main())
