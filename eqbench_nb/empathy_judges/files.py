"""Finding Kumar et al.'s files (experts, crowd and LLM judges on 200 conversations): the same lookup as
:mod:`eqbench_nb.data`, its own manifest.

The repository (aakriti1kumar/replication-data-and-code-when-LLMs-reliable-empathic-communication, MIT) is never
committed here: each file is read at run time from an explicit ``path``, ``$EQBENCH_NB_DATA/empathy_judges/`` or
``../shared/data/empathy_judges/`` beside the checkout, else the cache, filled by a download of the pinned commit
(``EQBENCH_NB_EMPATHY_JUDGES_URL`` names a mirror) kept only when its sha256 matches ``upstream_manifest.json``.
"""

from __future__ import annotations

import io

import pandas as pd

from ..data import UpstreamFiles

MIRROR_ENV = "EQBENCH_NB_EMPATHY_JUDGES_URL"
FOLDER = "empathy_judges"
FILES = UpstreamFiles.for_package(FOLDER, "Kumar et al. (empathy judges)", MIRROR_ENV)


def read_csv(name: str, path: str | None = None, **kwargs: object) -> pd.DataFrame:
    """A pinned CSV of the study (``annotations/...``), checked against its sha256 before it is parsed."""
    return pd.read_csv(io.BytesIO(FILES.read_bytes(name, path)), **kwargs)
