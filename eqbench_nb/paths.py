"""Where things are, for a package used from its checkout (editable install) or installed anywhere.

- The project checkout: the folder holding ``pyproject.toml`` of this project, found beside the
  package (editable install, or run from the checkout) or above the working directory.
- Committed tables and runs (``data/`` in the checkout): shipped inside the wheel as
  ``eqbench_nb/_data``, so an installed package finds them without a checkout.
- Figures: ``figures/`` of the checkout, or of the working directory when there is no checkout.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
PROJECT_NAME = "eqbench-nb"


def _is_checkout(folder: Path) -> bool:
    pyproject = folder / "pyproject.toml"
    try:
        return pyproject.is_file() and f'name = "{PROJECT_NAME}"' in pyproject.read_text(encoding="utf-8")
    except OSError:
        return False


@lru_cache(maxsize=1)
def _checkout_beside_package() -> Path | None:
    return PACKAGE_DIR.parent if _is_checkout(PACKAGE_DIR.parent) else None


def checkout_above(start: str | os.PathLike | None = None) -> Path | None:
    """The nearest project checkout above ``start`` (default: cwd), whichever package is imported."""
    here = Path(start or Path.cwd()).resolve()
    return next((p for p in (here, *here.parents) if _is_checkout(p)), None)


def checkout_root(start: str | os.PathLike | None = None) -> Path | None:
    """The project checkout: beside the package, else the nearest one above ``start`` (default: cwd)."""
    if (beside := _checkout_beside_package()) is not None:
        return beside
    return checkout_above(start)


def other_checkout_warning(start: str | os.PathLike | None = None) -> str | None:
    """A warning when the package imported belongs to another checkout than the one the working directory is in
    (two clones sharing one virtual environment, the package installed editable from the first): then the
    notebooks run and the figures written are that other checkout's. None when they are the same."""
    here, beside = checkout_above(start), _checkout_beside_package()
    if here is None or beside is None or here == beside.resolve():
        return None
    return (
        f"warning: the eqbench_nb imported is {PACKAGE_DIR}, not this checkout's ({here}); its notebooks and "
        f"figures ({beside}) are the ones used. To use this checkout run `pip install -e .` in it, or set "
        f"PYTHONPATH={here}"
    )


def tables_dir() -> Path:
    """The committed tables and runs: ``EQBENCH_NB_TABLES``, the wheel's ``_data``, or the checkout's ``data/``."""
    if env := os.environ.get("EQBENCH_NB_TABLES"):
        return Path(env)
    packaged = PACKAGE_DIR / "_data"
    if packaged.is_dir():
        return packaged
    root = checkout_root()
    if root is None:
        raise FileNotFoundError(
            "the project's data tables are missing: reinstall eqbench_nb, or set "
            "EQBENCH_NB_TABLES to a copy of the project's data/ folder"
        )
    return root / "data"


def figures_dir() -> Path:
    """Where notebooks save figures: ``EQBENCH_NB_FIGURES``, the checkout's ``figures/``, or ``./figures``."""
    env = os.environ.get("EQBENCH_NB_FIGURES")
    root = checkout_root()
    d = Path(env) if env else (root / "figures" if root else Path.cwd() / "figures")
    d.mkdir(parents=True, exist_ok=True)
    return d


def notebooks_dir() -> Path | None:
    """The checkout's ``notebooks/`` folder (None without a checkout)."""
    root = checkout_root()
    return root / "notebooks" if root else None
