"""``python -m eqbench_nb reproduce``: execute every notebook in a fresh kernel, regenerate every figure.

Notebooks run in order, each in its own fresh kernel with ``notebooks/`` as working directory,
and are saved back with their outputs so they read well on GitHub. Headline numbers the
notebooks record are gathered into ``figures/SUMMARY.md``.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

from .data import PROJECT_ROOT

NOTEBOOKS_DIR = PROJECT_ROOT / "notebooks"


@dataclass
class NotebookResult:
    path: Path
    seconds: float
    error: str | None = None


def notebook_paths(folder: Path = NOTEBOOKS_DIR) -> list[Path]:
    """The notebooks ``reproduce`` executes, in order (their names start with a number)."""
    return sorted(p for p in folder.glob("[0-9]*.ipynb"))


def execute_notebook(path: Path, timeout: int = 900, save: bool = True) -> NotebookResult:
    """Run one notebook top to bottom in a fresh kernel; return how long it took and any error."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)  # timestamps of an earlier run
    # record_timing=False: no per-cell timestamps, so a re-run changes only what the cells print
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    error = None
    try:
        client.execute()
    except CellExecutionError as exc:
        error = _short_error(exc)
    except Exception as exc:  # a kernel that dies or never starts: report, keep going
        error = f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - start
    if save:
        nbformat.write(nb, path)
    return NotebookResult(path, seconds, error)


def _short_error(exc: Exception) -> str:
    """The last line of a cell's traceback, without the terminal colour codes IPython adds."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__


def reproduce(paths: list[Path] | None = None, timeout: int = 900) -> list[NotebookResult]:
    """Execute the notebooks (all by default) with a progress bar, then write figures/SUMMARY.md."""
    from tqdm.auto import tqdm

    from .report import write_summary

    paths = paths or notebook_paths()
    results = []
    with tqdm(paths, desc="notebooks", unit="nb") as bar:
        for path in bar:
            bar.set_postfix_str(path.name)
            results.append(execute_notebook(path, timeout=timeout))
            r = results[-1]
            bar.write(f"{'FAILED' if r.error else 'ok':6} {path.name} ({r.seconds:.1f} s)"
                      + (f": {r.error}" if r.error else ""))
    write_summary()
    return results
