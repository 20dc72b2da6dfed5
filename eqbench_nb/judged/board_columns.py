"""A Judgemark board file's columns, and the look that tells one: no pandas or scipy, since a folder listing asks it
of every file before it reads any (``judged.board`` reads and re-derives the board itself)."""

from __future__ import annotations

import os

from ..runner.looks import header_cells

#: A board file's columns, as the committed table has them.
BOARD_COLUMNS: tuple[str, ...] = ("judge", "board_label", "field", "value", "source")


def looks_like_board(path: str | os.PathLike) -> bool:
    """Whether a file is meant as a board table: its first line is a CSV header naming two or more of the board's
    columns (so a board missing a column is refused as one, not read as something else)."""
    cells = header_cells(path)
    if not cells or cells[0].startswith(("{", "[")):  # a JSON line split at its commas
        return False
    return len(set(cells) & set(BOARD_COLUMNS)) >= 2
