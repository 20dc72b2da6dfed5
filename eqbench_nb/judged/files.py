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

from ..data import UpstreamFiles

MIRROR_ENV = "EQBENCH_NB_JUDGED_URL"
FOLDER = "eqbench/judged"
PROMPTS_FILE = "creative_writing_prompts.json"
TEST_SET_FILE = "judgemark_test_set.json"

FILES = UpstreamFiles.for_package("judged", "EQ-Bench judged", MIRROR_ENV, folder=FOLDER)
#: The module's names for its files' lookups (callers and tests use these).
manifest, locate, read_json = FILES.manifest, FILES.locate, FILES.read_json
