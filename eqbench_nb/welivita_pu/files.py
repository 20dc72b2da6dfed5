"""Finding Welivita & Pu's files: the same lookup as :mod:`eqbench_nb.data`, its own manifest.

The study's repository (anuradha1992/llm-empathy-evaluation, no licence file; its text is EmpatheticDialogues',
CC BY-NC 4.0) is never committed here: each file is read at run time from an explicit ``path``,
``$EQBENCH_NB_DATA/welivita_pu/`` or ``../shared/data/welivita_pu/`` beside the checkout, else the cache, filled by
a download of the pinned commit (``EQBENCH_NB_WELIVITA_PU_URL`` names a mirror) kept only when its sha256 matches
``upstream_manifest.json``.
"""

from __future__ import annotations

from ..data import UpstreamFiles

MIRROR_ENV = "EQBENCH_NB_WELIVITA_PU_URL"
FOLDER = "welivita_pu"
FILES = UpstreamFiles.for_package(FOLDER, "Welivita & Pu", MIRROR_ENV)
#: The study's one table: prompts, the three arms' responses, ratings, raters and their empathy propensity.
RATINGS_FILE = "data/dataset_and_ratings.csv"
