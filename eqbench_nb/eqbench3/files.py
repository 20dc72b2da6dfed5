"""Finding the upstream EQ-Bench 3 files: the same lookup as :mod:`eqbench_nb.data`, its own manifest.

EQ-Bench 3 (EQ-bench/eqbench3) is MIT; its prompts, scenarios and judgements are still never committed here
(the project's rule for upstream data): every file is read at run time from

1. an explicit ``path`` argument (the file, or a folder holding it);
2. ``$EQBENCH_NB_DATA/eqbench3/`` or ``../shared/data/eqbench3/`` beside the checkout;
3. the cache (``EQBENCH_NB_CACHE``, default ``~/.cache/eqbench_nb``) under ``eqbench3/<commit>``, filled by a
   download from the pinned upstream commit (``EQBENCH_NB_EQBENCH3_URL`` names a mirror), kept only when its
   digest matches the manifest.

Each file is checked against its pinned sha256 when it is read (:func:`read_bytes`): a damaged or edited copy is
named as such. The prompts and scenarios are pinned at HEAD ``3c21bcc`` (2025-05-08), the first canonical Elo
results at ``8c3a125`` (2025-04-28). The canonical runs files (the transcripts of the published field) and HEAD's
Elo file were not in the offline snapshot this project was built from, so no sha256 of theirs is known: they are
pinned by the blob id of their commit's git tree (SHA-1 of the exact bytes) and checked against it on download.
The site's leaderboards are tables transcribed from EQ-bench/EQ-bench-site's JavaScript: read from the data
folder only (there is no file upstream to download).
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..data import DataError, download_verified, git_blob_id, one_of, shared_data_dir
from ..paths import PACKAGE_DIR

MANIFEST_PATH = PACKAGE_DIR / "eqbench3" / "upstream_manifest.json"
MIRROR_ENV = "EQBENCH_NB_EQBENCH3_URL"
FOLDER = "eqbench3"
#: HEAD of EQ-bench/eqbench3 when this project pinned it: the prompts, scenarios and scoring rules.
HEAD_COMMIT = "3c21bcc514bd43f93a00a5cf9c630aa3eb73a380"
#: "eqbench3 1st": the first canonical Elo results (27 models, 6,452 judgements).
FIRST_CANONICAL_COMMIT = "8c3a1255591c55246e8e667e1e62b0eb639f42c3"
CANONICAL_ELO_8C3A125 = "canonical_leaderboard_elo_results_8c3a125.json.gz"
SITE_LEADERBOARD = "leaderboard_eqbench3_site_04a8066.csv"
SITE_LEADERBOARD_V2 = "leaderboard_eqbench_v2_site_c5327da.csv"


@lru_cache(maxsize=1)
def manifest() -> dict[str, Any]:
    """Repository, pinned commits, digests of every EQ-Bench 3 file the project reads."""
    return dict(json.loads(MANIFEST_PATH.read_text()))


def entry(name: str) -> dict[str, Any]:
    files = manifest()["files"]
    if name not in files:
        raise DataError(f"{name!r} is not an upstream EQ-Bench 3 file this project knows")
    return {"repository": manifest()["repository"], **files[name]}


def _cache_root() -> Path:
    base = (
        os.environ.get("EQBENCH_NB_CACHE")
        or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "eqbench_nb"
    )
    return Path(base) / FOLDER


def url(name: str) -> str | None:
    """Where ``name`` is downloaded from (None for a table transcribed from the site)."""
    e = entry(name)
    if not e.get("upstream_path"):
        return None
    base = os.environ.get(MIRROR_ENV) or f"https://raw.githubusercontent.com/{e['repository']}/{e['commit']}"
    return f"{base.rstrip('/')}/{e['upstream_path']}"


def locate(name: str, path: str | os.PathLike | None = None, download: bool = True) -> Path:
    """Path of an upstream EQ-Bench 3 file (see the module docstring for where it is looked for)."""
    e = entry(name)
    if path is not None:
        p = Path(path)
        for candidate in (p, p / name, p / FOLDER / name):
            if candidate.is_file():
                return candidate
        raise DataError(f"EQ-Bench 3 file {name} not found at {p}")
    if (folder := shared_data_dir()) is not None:
        for rel in folder_layouts(name):
            if (folder / rel).is_file():
                return folder / rel
    cached = _cache_root() / e["commit"][:12] / name
    if cached.is_file():
        return cached
    source = url(name)
    if not download or source is None:
        raise DataError(_missing(name))
    digest, expected = ("sha256", e["sha256"]) if e.get("sha256") else ("git blob", e["git_blob"])
    return download_verified(source, expected, cached, name, _missing(name), MIRROR_ENV, digest)


def folder_layouts(name: str) -> list[str]:
    """Where inside a data folder :func:`locate` looks for ``name`` (the hint of a missing file names these)."""
    entry(name)  # a name this project knows
    return [f"{FOLDER}/{name}"]


def _missing(name: str) -> str:
    e = entry(name)
    where = (
        f"put it in the folder EQBENCH_NB_DATA names, or in ../shared/data beside the checkout, as "
        f"{one_of(folder_layouts(name))}"
    )
    source = url(name)
    if source is None:
        return (
            f"EQ-Bench 3 table {name} was not found; {where} (it is transcribed from {e['repository']} @ "
            f"{e['commit'][:7]}, {e.get('transcribed_from', 'the site')}: there is no file to download)."
        )
    return (
        f"EQ-Bench 3 file {name} was not found; {where}, or allow a download from {source} (pinned commit "
        f"{e['commit'][:7]}) into {_cache_root()} (set EQBENCH_NB_CACHE to cache elsewhere)."
    )


def check(name: str, data: bytes, where: str | os.PathLike) -> None:
    """Raise :class:`DataError` unless ``data`` is the pinned ``name`` (sha256, else the git blob id)."""
    e = entry(name)
    if e.get("sha256"):
        got, expected, kind = hashlib.sha256(data).hexdigest(), e["sha256"], "sha256"
    else:
        got, expected, kind = git_blob_id(data), e["git_blob"], "git blob id"
    if got != expected:
        raise DataError(
            f"EQ-Bench 3 file {where} does not match the pinned upstream {name} ({kind} {got[:12]}…, expected "
            f"{expected[:12]}…); restore it, or remove it so the pinned file is downloaded"
        )


def read_bytes(name: str, path: str | os.PathLike | None = None) -> bytes:
    """The bytes of a pinned file, checked against its digest before anything reads them."""
    where = locate(name, path)
    data = where.read_bytes()
    check(name, data, where)
    return data


def read_text(name: str, path: str | os.PathLike | None = None) -> str:
    return read_bytes(name, path).decode("utf-8")


def sha256(name: str) -> str | None:
    """The pinned sha256 of a file (recorded in run headers), None where only its git blob id is known."""
    value = entry(name).get("sha256")
    return str(value) if value else None
