"""Finding the upstream files of every benchmark: never committed, always checked.

:class:`UpstreamFiles` is the one locator: each benchmark's ``files`` module (EQ-Bench 3, EmotionBench, the judged
files, Judgemark v2.1) and this module (:data:`EQBENCH`: EQ-Bench's question sets and published result files) make
one from their manifest of pinned commits and digests. Lookup order for every upstream file, the same for a package
used from its checkout and one installed anywhere:
1. an explicit ``path`` argument (the file itself, or a folder holding it);
2. the ``EQBENCH_NB_DATA`` environment variable (a folder laid out like ``shared/data``);
3. ``../shared/data`` beside the project checkout (the one holding the package, or the one
   above the working directory);
4. the cache folder (``EQBENCH_NB_CACHE``, default ``~/.cache/eqbench_nb``), filled by a download
   from the upstream repository at the pinned commit, checked against the pinned digest before it is kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .paths import PACKAGE_DIR, checkout_root


class DataError(Exception):
    """An upstream file could not be found, downloaded or verified. The message says what to do."""


def shared_data_dir() -> Path | None:
    """The data folder from ``EQBENCH_NB_DATA`` or beside the project checkout, if there is one."""
    root = checkout_root()
    for candidate in (os.environ.get("EQBENCH_NB_DATA"), root.parent / "shared" / "data" if root else None):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


def data_folders_said() -> str:
    """Each data folder :func:`shared_data_dir` looks in, and whether it is there: ``EQBENCH_NB_DATA=~/x (no such
    folder)``, ``EQBENCH_NB_DATA (not set)``, ``../shared/data beside the checkout (/home/u/shared/data: a folder,
    without it)``."""
    value = os.environ.get("EQBENCH_NB_DATA")
    said = [f"EQBENCH_NB_DATA={value} ({_folder_state(Path(value))})" if value else "EQBENCH_NB_DATA (not set)"]
    root = checkout_root()
    if root is not None:
        beside = root.parent / "shared" / "data"
        said.append(f"../shared/data beside the checkout ({beside}: {_folder_state(beside)})")
    return " or ".join(said)


def _folder_state(path: Path) -> str:
    if path.is_dir():
        return "a folder, without it"
    return "not a folder" if path.exists() else "no such folder"


def cache_root() -> Path:
    """``EQBENCH_NB_CACHE``, else ``$XDG_CACHE_HOME/eqbench_nb``, else ``~/.cache/eqbench_nb``."""
    return Path(
        os.environ.get("EQBENCH_NB_CACHE")
        or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "eqbench_nb"
    )


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def one_of(paths: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``: the places a hint names."""
    return paths[0] if len(paths) == 1 else f"{', '.join(paths[:-1])} or {paths[-1]}"


def _tails(rel: str) -> list[str]:
    """``a/b/c``, ``b/c``, ``c``: a layout seen from each folder on the way to the file."""
    parts = rel.split("/")
    return ["/".join(parts[i:]) for i in range(len(parts))]


def _files_entries(m: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The usual manifest: ``files`` maps a name to its entry."""
    return dict(m["files"])


class UpstreamFiles:
    """One benchmark's pinned upstream files, found, downloaded and checked the same way as every other's.

    ``manifest_path`` holds ``repository``, ``commit`` and the entries (by default ``files``: name → entry;
    ``entries`` reads another shape). An entry has ``upstream_path`` (None: a table with no file to download, read
    from the data folder only), ``sha256`` and/or ``git_blob`` (the id in its commit's tree; the sha256 is checked
    when both are known), and may override ``commit`` and ``repository`` and set ``path``, its place below
    ``folder`` (default: its name). ``benchmark`` names the files in messages, ``folder`` is theirs inside a data
    folder, ``mirror_env`` the variable naming a mirror of the upstream repository, ``cache_folder`` theirs inside
    the cache (``{commit}``: the first 12 digits of the file's pinned commit). ``outside_folder``: a data folder may
    also hold a file at its ``path`` without ``folder/``, or under its bare name (EQ-Bench's older layouts).

    Every hint of a missing file is written from :meth:`folder_layouts`, the list :meth:`locate` searches, so it
    names exactly the places looked in.
    """

    def __init__(
        self,
        manifest_path: Path,
        benchmark: str,
        folder: str,
        mirror_env: str,
        cache_folder: str,
        entries: Callable[[dict[str, Any]], dict[str, dict[str, Any]]] = _files_entries,
        outside_folder: bool = False,
    ) -> None:
        self.manifest_path = manifest_path
        self.benchmark = benchmark
        self.folder = folder
        self.mirror_env = mirror_env
        self.cache_folder = cache_folder
        self._entries = entries
        self.outside_folder = outside_folder
        self._manifest: dict[str, Any] | None = None

    @classmethod
    def for_package(cls, package: str, benchmark: str, mirror_env: str, folder: str | None = None) -> UpstreamFiles:
        """The files of the benchmark in ``eqbench_nb/<package>``: its ``upstream_manifest.json``, cached under
        ``<package>/<commit>``, kept in a data folder under ``folder`` (default: ``package``)."""
        manifest_path = PACKAGE_DIR / package / "upstream_manifest.json"
        return cls(manifest_path, benchmark, folder or package, mirror_env, f"{package}/{{commit}}")

    def manifest(self) -> dict[str, Any]:
        """The manifest as committed (read once)."""
        if self._manifest is None:
            self._manifest = dict(json.loads(self.manifest_path.read_text()))
        return self._manifest

    def names(self) -> list[str]:
        """Every file name the manifest pins, in its order."""
        return list(self._entries(self.manifest()))

    def entry(self, name: str) -> dict[str, Any]:
        """``name``'s entry with its ``repository``, ``commit`` and ``path`` filled in from the manifest."""
        m = self.manifest()
        files = self._entries(m)
        if name not in files:
            raise DataError(f"{name!r} is not an upstream {self.benchmark} file this project knows")
        return {"repository": m.get("repository"), "commit": m.get("commit"), "path": name, **files[name]}

    def url(self, name: str) -> str | None:
        """Where ``name`` is downloaded from: the mirror in :attr:`mirror_env`, else the upstream repository at the
        file's pinned commit. None for a table with no file upstream."""
        e = self.entry(name)
        if not e.get("upstream_path"):
            return None
        base = os.environ.get(self.mirror_env) or f"https://raw.githubusercontent.com/{e['repository']}/{e['commit']}"
        return f"{base.rstrip('/')}/{urllib.parse.quote(e['upstream_path'])}"

    def cache_dir(self, name: str) -> Path:
        """The cache folder of the files pinned at ``name``'s commit."""
        return cache_root() / self.cache_folder.format(commit=self.entry(name)["commit"][:12])

    def cache_path(self, name: str) -> Path:
        return self.cache_dir(name) / self.entry(name)["path"]

    def folder_layouts(self, name: str) -> list[str]:
        """Where inside a data folder :meth:`locate` looks for ``name``, in order. The hint of a missing file is
        written from this list, so it names exactly what is searched."""
        rel = self.entry(name)["path"]
        inside = f"{self.folder}/{rel}"
        return list(dict.fromkeys([inside, rel, name] if self.outside_folder else [inside]))

    def locate(self, name: str, path: str | os.PathLike | None = None, download: bool = True) -> Path:
        """Path of an upstream file: ``path`` (the file, or a folder laid out like a data folder or any folder
        inside one), else the data folder (:func:`shared_data_dir`), else the cache, else a download checked
        against the pinned digest (unless ``download`` is false)."""
        layouts = self.folder_layouts(name)
        if path is not None:
            p = Path(path)
            within = dict.fromkeys([*(tail for rel in layouts for tail in _tails(rel)), name])
            found = p if p.is_file() else next((p / rel for rel in within if (p / rel).is_file()), None)
            if found is None:
                raise DataError(f"{self.benchmark} file {name} not found at {p}")
            return found
        folder = shared_data_dir()
        if folder is not None and (found := next((folder / r for r in layouts if (folder / r).is_file()), None)):
            return found
        cached = self.cache_path(name)
        if cached.is_file():
            return cached
        source = self.url(name)
        if not download or source is None:
            raise DataError(self.missing(name))
        digest, expected = self.pin(name)
        return download_verified(source, expected, cached, name, self.missing(name), self.mirror_env, digest)

    def missing(self, name: str) -> str:
        """The hint of a file found nowhere: what was looked for, each data folder searched and whether it exists
        (:func:`data_folders_said`: a mistyped ``EQBENCH_NB_DATA`` is named), and the download it may make."""
        e = self.entry(name)
        layouts = one_of(self.folder_layouts(name))
        looked = f"{self.benchmark} file {name} was not found as {layouts} in {data_folders_said()}"
        source = self.url(name)
        if source is None:
            return (
                f"{looked}; it has no file to download (it is transcribed from {e['repository']} @ "
                f"{e['commit'][:7]}, {e.get('transcribed_from', 'the site')})."
            )
        return f"{looked}, nor in the cache {self.cache_dir(name)} (it is downloaded from {source})."

    def pin(self, name: str) -> tuple[str, str]:
        """(digest, value) ``name`` is checked against: its sha256, else its git blob id (:func:`git_blob_id`)."""
        e = self.entry(name)
        return ("sha256", e["sha256"]) if e.get("sha256") else ("git blob", e["git_blob"])

    def sha256(self, name: str) -> str | None:
        """The pinned sha256 of a file (recorded in run headers), None where only its git blob id is known."""
        value = self.entry(name).get("sha256")
        return str(value) if value else None

    def mismatch(self, name: str, data: bytes) -> str | None:
        """None when ``data`` is the pinned ``name``, else how it differs (``sha256 1a2b…, expected 3c4d…``)."""
        digest, expected = self.pin(name)
        got = git_blob_id(data) if digest == "git blob" else hashlib.sha256(data).hexdigest()
        return None if got == expected else f"{digest} {got[:12]}…, expected {expected[:12]}…"

    def check(self, name: str, data: bytes, where: str | os.PathLike) -> None:
        """Raise :class:`DataError` unless ``data`` (read from ``where``) is the pinned ``name``."""
        if diff := self.mismatch(name, data):
            raise DataError(
                f"{self.benchmark} file {where} does not match the pinned upstream {name} ({diff}); restore it, or "
                "remove it so the pinned file is downloaded"
            )

    def read_bytes(self, name: str, path: str | os.PathLike | None = None) -> bytes:
        """The bytes of a pinned file, checked against its digest before anything reads them."""
        where = self.locate(name, path)
        data = where.read_bytes()
        self.check(name, data, where)
        return data

    def read_text(self, name: str, path: str | os.PathLike | None = None) -> str:
        return self.read_bytes(name, path).decode("utf-8")

    def read_json(self, name: str, path: str | os.PathLike | None = None) -> Any:
        return json.loads(self.read_bytes(name, path))


def _eqbench_entries(m: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """EQ-Bench's manifest: the question sets (each may pin its own commit, as the Polish and the v2.4 German sets
    do), and the published results by sha256 alone, kept as upstream lays them out."""
    results = {
        name: {"path": f"results/eq-bench/{name}", "upstream_path": f"{m['results_dir']}/{name}", "sha256": sha}
        for name, sha in m["results"].items()
    }
    return {**m["question_sets"], **results}


#: EQ-Bench's question sets and published results (``eqbench/`` in a data folder, where a file may also sit without
#: ``eqbench/`` or under its bare name; cached under ``<commit>/eqbench``).
EQBENCH = UpstreamFiles(
    PACKAGE_DIR / "eqbench" / "upstream_manifest.json",
    benchmark="EQ-Bench",
    folder="eqbench",
    mirror_env="EQBENCH_NB_UPSTREAM_URL",
    cache_folder="{commit}/eqbench",
    entries=_eqbench_entries,
    outside_folder=True,
)
manifest = EQBENCH.manifest
locate = EQBENCH.locate
folder_layouts = EQBENCH.folder_layouts


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
        raise DataError(f"{missing.removesuffix('.')}; the download failed: {exc}") from None
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
    if diff := EQBENCH.mismatch(name, path.read_bytes()):
        raise DataError(
            f"questions file {path} does not match the pinned upstream file {name} ({diff}); restore it, or remove "
            "it so the pinned file is downloaded"
        )


def published_result_names() -> list[str]:
    """File names of the 86 published v2 result files, sorted."""
    return sorted(manifest()["results"])


def published_results_dir(download: bool = True) -> Path:
    """Folder holding all 86 published result files (downloading missing ones if allowed)."""
    paths = [locate(n, download=download) for n in published_result_names()]
    return paths[0].parent
