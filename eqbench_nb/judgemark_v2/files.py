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

from ..data import UpstreamFiles

MIRROR_ENV = "EQBENCH_NB_JUDGEMARK_V2_URL"
FOLDER = "judgemark_v2"
SCORES = "results/scores.csv"

FILES = UpstreamFiles.for_package(FOLDER, "Judgemark v2.1", MIRROR_ENV)
#: The module's names for its files' lookups (callers and tests use these).
manifest, locate, read_bytes = FILES.manifest, FILES.locate, FILES.read_bytes


def stats_files() -> list[str]:
    """The per-judge stats files (``results/stats/*.json``), sorted."""
    return sorted(n for n in FILES.names() if n.startswith("results/stats/"))
