"""Finding the upstream EmotionBench files: the same lookup as :mod:`eqbench_nb.data`, its own manifest.

EmotionBench (CUHK-ARISE/EmotionBench) is GPL-3.0 plus "research use only", and its questionnaire items
carry their authors' copyright: nothing of it is committed or packaged. Each file is read at run time from

1. an explicit ``path`` argument (the file, or a folder holding it);
2. ``$EQBENCH_NB_DATA/emotionbench/`` or ``../shared/data/emotionbench/`` beside the checkout (laid out as
   ``raw/...``, see ``upstream_manifest.json``);
3. the cache (``EQBENCH_NB_CACHE``, default ``~/.cache/eqbench_nb``) under ``emotionbench/<commit>``, filled by
   a download of the pinned upstream commit (``EQBENCH_NB_EMOTIONBENCH_URL`` names a mirror), kept only when
   its sha256 matches the manifest.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from functools import lru_cache
from pathlib import Path

from ..data import DataError, download_verified, one_of, shared_data_dir
from ..paths import PACKAGE_DIR

MANIFEST_PATH = PACKAGE_DIR / "emotionbench" / "upstream_manifest.json"
MIRROR_ENV = "EQBENCH_NB_EMOTIONBENCH_URL"


@lru_cache(maxsize=1)
def manifest() -> dict:
    """Repository, pinned commits, local layout and sha256 of every EmotionBench file the project reads."""
    return json.loads(MANIFEST_PATH.read_text())


def _entry(name: str) -> dict:
    files = manifest()["files"]
    if name not in files:
        raise DataError(f"{name!r} is not an upstream EmotionBench file this project knows")
    return {"commit": manifest()["commit"], **files[name]}


def _cache_root() -> Path:
    base = (
        os.environ.get("EQBENCH_NB_CACHE")
        or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "eqbench_nb"
    )
    return Path(base) / "emotionbench"


def _url(entry: dict) -> str:
    base = (
        os.environ.get(MIRROR_ENV) or f"https://raw.githubusercontent.com/{manifest()['repository']}/{entry['commit']}"
    )
    return f"{base.rstrip('/')}/{urllib.parse.quote(entry['upstream_path'])}"


def locate(name: str, path: str | os.PathLike | None = None, download: bool = True) -> Path:
    """Path of an upstream EmotionBench file (see the module docstring for where it is looked for)."""
    entry = _entry(name)
    rel = entry["path"]
    if path is not None:
        p = Path(path)
        candidates = [p] if p.is_file() else [p / rel, p / "emotionbench" / rel, p / name, p / Path(rel).name]
        for c in candidates:
            if c.is_file():
                return c
        raise DataError(f"EmotionBench file {name} not found at {p}")
    if (folder := shared_data_dir()) is not None:
        for layout in folder_layouts(name):
            if (folder / layout).is_file():
                return folder / layout
    cached = _cache_root() / entry["commit"][:12] / rel
    if cached.is_file():
        return cached
    if not download:
        raise DataError(_missing(name, entry))
    return _download(name, entry, cached)


def folder_layouts(name: str) -> list[str]:
    """Where inside a data folder :func:`locate` looks for ``name`` (the hint of a missing file names these)."""
    return [f"emotionbench/{_entry(name)['path']}"]


def _missing(name: str, entry: dict) -> str:
    return (
        f"EmotionBench file {name} was not found. Point EQBENCH_NB_DATA at a folder holding "
        f"{one_of(folder_layouts(name))}, "
        f"put that folder beside the project checkout as ../shared/data, or allow a download from {_url(entry)} "
        f"(pinned commit {entry['commit'][:12]}) into {_cache_root()} (set EQBENCH_NB_CACHE to cache elsewhere)."
    )


def _download(name: str, entry: dict, target: Path) -> Path:
    return download_verified(_url(entry), entry["sha256"], target, name, _missing(name, entry), MIRROR_ENV)


def sha256(name: str) -> str:
    """The pinned sha256 of a file (recorded in run headers)."""
    return str(_entry(name)["sha256"])


def panas_sheet_names() -> list[str]:
    """File names of the published PANAS test sheets (one per model), sorted."""
    return sorted(n for n in manifest()["files"] if n.endswith("-PANAS-testing.csv"))


def challenging_sheet_names() -> list[str]:
    """File names of the stored Challenging Bench sheets (gpt-3.5-turbo on eight scales), sorted."""
    return sorted(
        n for n in manifest()["files"] if n.startswith("gpt-3.5-turbo-") and not n.endswith("PANAS-testing.csv")
    )
