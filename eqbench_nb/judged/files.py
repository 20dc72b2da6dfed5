"""Finding the judged benchmarks' upstream files: the same lookup as :mod:`eqbench_nb.data`, their own manifest.

``creative_writing_prompts.json`` and ``judgemark_test_set.json`` (EQ-bench/EQ-Bench @ ``d28c60c``, MIT) are never
committed. Each is read from

1. an explicit ``path`` argument (the file, or a folder holding it);
2. ``$EQBENCH_NB_DATA/eqbench/judged/`` or ``../shared/data/eqbench/judged/`` beside the checkout;
3. the cache (``EQBENCH_NB_CACHE``, default ``~/.cache/eqbench_nb``) under ``judged/<commit>``, filled by a download
   from the pinned commit (``EQBENCH_NB_JUDGED_URL`` names a mirror), kept only when its sha256 matches.

Every read checks the sha256 (:func:`read_json`), so an edited or truncated copy is named as such.
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

MANIFEST_PATH = PACKAGE_DIR / "judged" / "upstream_manifest.json"
MIRROR_ENV = "EQBENCH_NB_JUDGED_URL"
FOLDER = "eqbench/judged"
PROMPTS_FILE = "creative_writing_prompts.json"
TEST_SET_FILE = "judgemark_test_set.json"


@lru_cache(maxsize=1)
def manifest() -> dict[str, Any]:
    """Repository, pinned commit and digests of the two files."""
    return dict(json.loads(MANIFEST_PATH.read_text()))


def entry(name: str) -> dict[str, Any]:
    files = manifest()["files"]
    if name not in files:
        raise DataError(f"{name!r} is not an upstream file of the judged benchmarks this project knows")
    return dict(files[name])


def url(name: str) -> str:
    m = manifest()
    base = os.environ.get(MIRROR_ENV) or f"https://raw.githubusercontent.com/{m['repository']}/{m['commit']}"
    return f"{base.rstrip('/')}/{entry(name)['upstream_path']}"


def _cache_path(name: str) -> Path:
    base = (
        os.environ.get("EQBENCH_NB_CACHE")
        or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "eqbench_nb"
    )
    return Path(base) / "judged" / manifest()["commit"][:12] / name


def folder_layouts(name: str) -> list[str]:
    """Where inside a data folder :func:`locate` looks for ``name`` (the hint of a missing file names these)."""
    entry(name)  # a name this project knows
    return [f"{FOLDER}/{name}"]


def _missing(name: str) -> str:
    return (
        f"{name} was not found; put it in the folder EQBENCH_NB_DATA names, or in ../shared/data beside the "
        f"checkout, as {one_of(folder_layouts(name))}, "
        f"or allow a download from {url(name)} (pinned commit {manifest()['commit'][:7]}) into "
        f"{_cache_path(name).parent} (set EQBENCH_NB_CACHE to cache elsewhere)."
    )


def locate(name: str, path: str | os.PathLike | None = None, download: bool = True) -> Path:
    """Path of one of the two files (see the module docstring for where it is looked for)."""
    entry(name)
    if path is not None:
        p = Path(path)
        for candidate in (p, p / name, p / FOLDER / name, p / "judged" / name):
            if candidate.is_file():
                return candidate
        raise DataError(f"{name} not found at {p}")
    if (folder := shared_data_dir()) is not None:
        for rel in folder_layouts(name):
            if (folder / rel).is_file():
                return folder / rel
    cached = _cache_path(name)
    if cached.is_file():
        return cached
    if not download:
        raise DataError(_missing(name))
    return download_verified(url(name), entry(name)["sha256"], cached, name, _missing(name), MIRROR_ENV)


def read_json(name: str, path: str | os.PathLike | None = None) -> Any:
    """The parsed file, after its sha256 is checked against the manifest."""
    where = locate(name, path)
    data = where.read_bytes()
    got = hashlib.sha256(data).hexdigest()
    if got != entry(name)["sha256"]:
        raise DataError(
            f"{where} does not match the pinned upstream {name} (sha256 {got[:12]}…, expected "
            f"{entry(name)['sha256'][:12]}…); restore it, or remove it so the pinned file is downloaded"
        )
    return json.loads(data)
