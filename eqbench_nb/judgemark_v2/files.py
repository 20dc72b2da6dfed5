"""Finding Judgemark v2.1's published files: the lookup of :mod:`eqbench_nb.data`, its own manifest.

Every file is read at run time, never committed, from

1. an explicit ``path`` argument (a folder laid out like upstream's, or ``judgemark_v2/`` inside one);
2. ``$EQBENCH_NB_DATA/judgemark_v2/`` or ``../shared/data/judgemark_v2/`` beside the checkout;
3. the cache (``EQBENCH_NB_CACHE``, default ``~/.cache/eqbench_nb``) under ``judgemark_v2/<commit>``, filled by a
   download from the pinned commit (``EQBENCH_NB_JUDGEMARK_V2_URL`` names a mirror), kept only when its sha256
   matches the manifest.

Each file is checked against its pinned sha256 when it is read (:func:`read_bytes`).
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..data import DataError, download_verified, one_of, shared_data_dir
from ..paths import PACKAGE_DIR

MANIFEST_PATH = PACKAGE_DIR / "judgemark_v2" / "upstream_manifest.json"
MIRROR_ENV = "EQBENCH_NB_JUDGEMARK_V2_URL"
FOLDER = "judgemark_v2"
SCORES = "results/scores.csv"


@lru_cache(maxsize=1)
def manifest() -> dict[str, Any]:
    """Repository, pinned commit and sha256 of every Judgemark v2.1 file the project reads."""
    return dict(json.loads(MANIFEST_PATH.read_text()))


def stats_files() -> list[str]:
    """The per-judge stats files (``results/stats/*.json``), sorted."""
    return sorted(n for n in manifest()["files"] if n.startswith("results/stats/"))


def _entry(name: str) -> dict[str, Any]:
    files = manifest()["files"]
    if name not in files:
        raise DataError(f"{name!r} is not a Judgemark v2.1 file this project knows")
    return dict(files[name])


def _cache_root() -> Path:
    base = (
        os.environ.get("EQBENCH_NB_CACHE")
        or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "eqbench_nb"
    )
    return Path(base) / FOLDER / manifest()["commit"][:12]


def folder_layouts(name: str) -> list[str]:
    """Where inside a data folder :func:`locate` looks for ``name`` (the hint of a missing file names these)."""
    _entry(name)  # a name this project knows
    return [f"{FOLDER}/{name}"]


def _missing(name: str, source: str) -> str:
    return (
        f"Judgemark v2.1 file {name} was not found; put it in the folder EQBENCH_NB_DATA names, or in "
        f"../shared/data beside the checkout, as {one_of(folder_layouts(name))}, or allow a download from {source} "
        f"into {_cache_root()} (set EQBENCH_NB_CACHE to cache elsewhere)."
    )


def locate(name: str, path: str | os.PathLike | None = None, download: bool = True) -> Path:
    """Path of a pinned Judgemark v2.1 file (see the module docstring for where it is looked for)."""
    e = _entry(name)
    if path is not None:
        for candidate in (Path(path) / name, Path(path) / FOLDER / name):
            if candidate.is_file():
                return candidate
        raise DataError(f"Judgemark v2.1 file {name} not found under {path}")
    if (folder := shared_data_dir()) is not None:
        for rel in folder_layouts(name):
            if (folder / rel).is_file():
                return folder / rel
    cached = _cache_root() / name
    if cached.is_file():
        return cached
    m = manifest()
    base = os.environ.get(MIRROR_ENV) or f"https://raw.githubusercontent.com/{m['repository']}/{m['commit']}"
    source = f"{base.rstrip('/')}/{e['upstream_path']}"
    if not download:
        raise DataError(_missing(name, source))
    return download_verified(source, e["sha256"], cached, name, _missing(name, source), MIRROR_ENV)


def read_bytes(name: str, path: str | os.PathLike | None = None) -> bytes:
    """The bytes of a pinned file, checked against its sha256 before anything reads them."""
    where = locate(name, path)
    data = where.read_bytes()
    got = hashlib.sha256(data).hexdigest()
    if got != _entry(name)["sha256"]:
        raise DataError(
            f"Judgemark v2.1 file {where} does not match the pinned upstream {name} (sha256 {got[:12]}…); restore "
            "it, or remove it so the pinned file is downloaded"
        )
    return data
