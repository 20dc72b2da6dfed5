"""Finding the upstream EQ-Bench files: never committed, always checked.

Lookup order for every upstream file (question sets, published result files), the same for a
package used from its checkout and one installed anywhere:
1. an explicit ``path`` argument (the file itself, or a folder holding it);
2. the ``EQBENCH_NB_DATA`` environment variable (a folder laid out like ``shared/data``);
3. ``../shared/data`` beside the project checkout (the one holding the package, or the one
   above the working directory);
4. the cache folder (``EQBENCH_NB_CACHE``, default ``~/.cache/eqbench_nb``), filled by a download
   from the upstream repository at the pinned commit, checked against the sha256 in
   ``eqbench/upstream_manifest.json`` before it is kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import urllib.error
import urllib.request
from functools import lru_cache
from pathlib import Path

from .paths import PACKAGE_DIR, checkout_root

MANIFEST_PATH = PACKAGE_DIR / "eqbench" / "upstream_manifest.json"


class DataError(Exception):
    """An upstream file could not be found, downloaded or verified. The message says what to do."""


@lru_cache(maxsize=1)
def manifest() -> dict:
    """Pinned commit, file names and sha256 of every upstream file the project reads."""
    return json.loads(MANIFEST_PATH.read_text())


def upstream_url(commit: str | None = None) -> str:
    """Where files are downloaded from: ``EQBENCH_NB_UPSTREAM_URL`` (a mirror), else the upstream repository
    at the pinned commit (a file may pin its own, as the Polish and the v2.4 German sets do)."""
    base = os.environ.get("EQBENCH_NB_UPSTREAM_URL")
    commit = commit or manifest()["commit"]
    return (base or f"https://raw.githubusercontent.com/{manifest()['repository']}/{commit}").rstrip("/")


def cache_dir(commit: str | None = None) -> Path:
    base = (
        os.environ.get("EQBENCH_NB_CACHE")
        or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "eqbench_nb"
    )
    return Path(base) / (commit or manifest()["commit"])[:12]


def shared_data_dir() -> Path | None:
    """The data folder from ``EQBENCH_NB_DATA`` or beside the project checkout, if there is one."""
    root = checkout_root()
    for candidate in (os.environ.get("EQBENCH_NB_DATA"), root.parent / "shared" / "data" if root else None):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


def _entry(name: str) -> tuple[str, str, str, str]:
    """(local path relative to a data folder, upstream path, sha256, upstream commit) for a file name."""
    m = manifest()
    if name in m["question_sets"]:
        e = m["question_sets"][name]
        return f"eqbench/{name}", e["upstream_path"], e["sha256"], e.get("commit", m["commit"])
    if name in m["results"]:
        return f"eqbench/results/eq-bench/{name}", f"{m['results_dir']}/{name}", m["results"][name], m["commit"]
    raise DataError(f"{name!r} is not an upstream EQ-Bench file this project knows")


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def folder_layouts(name: str) -> list[str]:
    """Where inside a data folder :func:`locate` looks for ``name``, in order: the upstream layout
    (``eqbench/results/eq-bench/<name>`` for a results file), the same without ``eqbench/``, the bare name. The
    hint of a missing file is written from this list, so it names exactly what is searched."""
    rel = _entry(name)[0]
    return list(dict.fromkeys([rel, rel.removeprefix("eqbench/"), name]))


def one_of(paths: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``: the places a hint names."""
    return paths[0] if len(paths) == 1 else f"{', '.join(paths[:-1])} or {paths[-1]}"


def _in_folder(folder: Path, name: str) -> Path | None:
    return next((folder / rel for rel in folder_layouts(name) if (folder / rel).is_file()), None)


def locate(name: str, path: str | os.PathLike | None = None, download: bool = True) -> Path:
    """Path of an upstream file, found or downloaded as described in the module docstring."""
    rel, upstream_path, sha, commit = _entry(name)
    if path is not None:
        p = Path(path)
        found = p if p.is_file() else (_in_folder(p, name) if p.is_dir() else None)
        if found is None:
            raise DataError(f"{name} not found at {p}")
        return found
    folder = shared_data_dir()
    if folder is not None and (found := _in_folder(folder, name)):
        return found
    cached = cache_dir(commit) / rel
    if cached.is_file():
        return cached
    if not download:
        raise DataError(_missing_message(name, commit))
    return _download(upstream_path, sha, cached, name, commit)


def _missing_message(name: str, commit: str | None = None) -> str:
    return (
        f"EQ-Bench data file {name} was not found. Point EQBENCH_NB_DATA at a folder holding it as "
        f"{one_of(folder_layouts(name))} (the upstream data), put that folder beside the project checkout as "
        f"../shared/data, "
        f"or allow a download from {upstream_url(commit)} (pinned commit {(commit or manifest()['commit'])[:12]}) "
        f"into {cache_dir(commit)} (set EQBENCH_NB_CACHE to cache elsewhere)."
    )


def _download(upstream_path: str, sha: str, target: Path, name: str, commit: str) -> Path:
    url = f"{upstream_url(commit)}/{upstream_path}"
    return download_verified(url, sha, target, name, _missing_message(name, commit), "EQBENCH_NB_UPSTREAM_URL")


def git_blob_id(body: bytes) -> str:
    """The id git gives these bytes as a blob (SHA-1 of ``blob <size>`` NUL + bytes): what a commit's tree pins."""
    return hashlib.sha1(b"blob %d\0" % len(body) + body).hexdigest()


def download_verified(
    url: str,
    sha: str,
    target: Path,
    name: str,
    missing: str,
    mirror_env: str,
    digest: str = "sha256",
) -> Path:
    """Download ``url`` into ``target`` only if its ``digest`` is ``sha`` (every benchmark's upstream files
    come through here): ``"sha256"``, or ``"git blob"`` (:func:`git_blob_id`) for a file known only by the id its
    commit's tree gives it. ``missing`` says how else the file can be had, ``mirror_env`` names the mirror
    variable. Raises :class:`DataError`, and caches nothing, on a failed download or another file."""
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            body = response.read()
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise DataError(f"{missing} The download from {url} failed: {exc}") from None
    got = git_blob_id(body) if digest == "git blob" else hashlib.sha256(body).hexdigest()
    if got != sha:
        raise DataError(
            f"downloaded {name} from {url} has {digest} {got}, expected {sha}; nothing was cached. "
            f"The upstream file or the mirror in {mirror_env} is not the pinned version."
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as tmp:
        tmp.write(body)
    os.replace(tmp.name, target)  # atomic: a partial download is never seen as cached
    return target


def check_pinned(name: str, path: Path) -> None:
    """Raise :class:`DataError` unless the file at ``path`` is the pinned upstream ``name`` (its sha256 in the
    manifest): a truncated, edited or wrong file is named as such, never blamed on what is read with it."""
    expected = _entry(name)[2]
    got = sha256_of(path)
    if got != expected:
        raise DataError(
            f"questions file {path} does not match the pinned upstream file {name} (sha256 {got[:12]}…, "
            f"expected {expected[:12]}…); restore it, or remove it so the pinned file is downloaded"
        )


def published_result_names() -> list[str]:
    """File names of the 86 published v2 result files, sorted."""
    return sorted(manifest()["results"])


def published_results_dir(download: bool = True) -> Path:
    """Folder holding all 86 published result files (downloading missing ones if allowed)."""
    paths = [locate(n, download=download) for n in published_result_names()]
    return paths[0].parent
