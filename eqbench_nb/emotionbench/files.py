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

from ..data import UpstreamFiles

MIRROR_ENV = "EQBENCH_NB_EMOTIONBENCH_URL"
FOLDER = "emotionbench"

#: Each file sits at its ``path`` (``raw/...``) below ``emotionbench/``; the leaderboard pins its own commit.
FILES = UpstreamFiles.for_package(FOLDER, "EmotionBench", MIRROR_ENV)
#: The module's names for its files' lookups (callers and tests use these).
manifest, locate, sha256 = FILES.manifest, FILES.locate, FILES.sha256


def panas_sheet_names() -> list[str]:
    """File names of the published PANAS test sheets (one per model), sorted."""
    return sorted(n for n in manifest()["files"] if n.endswith("-PANAS-testing.csv"))


def challenging_sheet_names() -> list[str]:
    """File names of the stored Challenging Bench sheets (gpt-3.5-turbo on eight scales), sorted."""
    return sorted(
        n for n in manifest()["files"] if n.startswith("gpt-3.5-turbo-") and not n.endswith("PANAS-testing.csv")
    )
