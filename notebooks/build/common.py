"""What the notebook build scripts share: the project-root cell, writing cells out, executing.

Each ``make_*.py`` holds its notebooks' cells as strings (``"md:"`` marks markdown) and calls
:func:`build`; ``--no-exec`` writes without executing. ``python -m eqbench_nb reproduce`` executes
them all the same way.
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

NB_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(NB_DIR.parent))

# First lines of every notebook: find the project from notebooks/ (or the root) and import it from there.
FIND_ROOT = """\
import sys
from pathlib import Path
ROOT = next(p for p in [Path.cwd().resolve(), *Path.cwd().resolve().parents] if (p / "eqbench_nb").is_dir())
sys.path.insert(0, str(ROOT))
"""


def cell(source):
    """A notebook cell from a string ("md:" prefix = markdown); nbformat cells pass through."""
    if not isinstance(source, str):
        return source
    if source.startswith("md:"):
        return new_markdown_cell(source[3:].strip("\n"))
    return new_code_cell(source.strip("\n"))


def write(name: str, cells: list) -> Path:
    nb = new_notebook(cells=[cell(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    path = NB_DIR / name
    nbformat.write(nb, path)
    return path


def build(notebooks: dict[str, list], argv: list[str]) -> None:
    """Write each notebook (name -> cells); execute it in place unless ``--no-exec``.

    Other arguments pick notebooks by a part of their name.
    """
    from eqbench_nb.reproduce import execute_notebook

    only = [a for a in argv if not a.startswith("--")]
    for name, cells in notebooks.items():
        if only and not any(o in name for o in only):
            continue
        path = write(name, cells)
        if "--no-exec" in argv:
            print(f"{name}: written")
            continue
        result = execute_notebook(path)
        print(f"{name}: {'FAILED: ' + result.error if result.error else 'executed'} in {result.seconds:.1f} s")
