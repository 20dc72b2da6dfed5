"""The one output-path guard: no command writes over (or appends into) a file it reads.

Every command that writes a file (``view --out`` and its default page name, ``plot --out``, ``run --out`` /
``--extend``, ``leaderboard --judge --judgements``, ``reproduce``'s notebooks and summary) asks
:func:`refuse_output_over_inputs` first, with every file it reads. Two paths are the same file when they resolve to
the same place (a relative path, ``..``, a symlink on the way) or, both existing, are one file on disk
(``os.path.samefile``: a hard link, a bind mount). A write that is atomic (a temporary file renamed over the target)
would otherwise replace a run file holding paid answers with a page; an append would write into it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["OutputOverInput", "refuse_output_over_inputs", "same_file"]


class OutputOverInput(ValueError):
    """An output path that names one of the command's inputs: one line, exit 2."""


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether ``a`` and ``b`` name one file: the same resolved path, or (both existing) the same inode."""
    first, second = Path(a), Path(b)
    try:
        if first.resolve() == second.resolve():
            return True
    except (OSError, RuntimeError):  # a symlink loop: compare what can be compared below
        pass
    try:
        return os.path.samefile(first, second)
    except (OSError, ValueError):  # one of them does not exist (yet): not the same file
        return False


def refuse_output_over_inputs(
    out: str | os.PathLike, inputs: Iterable[str | os.PathLike], option: str = "--out", verb: str = "write"
) -> None:
    """Raise :class:`OutputOverInput` when ``out`` is one of ``inputs`` (:func:`same_file`); ``option`` and
    ``verb`` ("write", "append to") say in the message what would have happened."""
    for given in inputs:
        if same_file(out, given):
            shown = f"{out}" if str(out) == str(given) else f"{out} (the same file as {given})"
            raise OutputOverInput(
                f"{option} {shown} is a file this command reads; it would {verb} it and lose what it holds: "
                "name another file"
            )
