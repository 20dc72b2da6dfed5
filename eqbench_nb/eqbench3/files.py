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

from ..data import UpstreamFiles

MIRROR_ENV = "EQBENCH_NB_EQBENCH3_URL"
FOLDER = "eqbench3"
#: HEAD of EQ-bench/eqbench3 when this project pinned it: the prompts, scenarios and scoring rules.
HEAD_COMMIT = "3c21bcc514bd43f93a00a5cf9c630aa3eb73a380"
#: "eqbench3 1st": the first canonical Elo results (27 models, 6,452 judgements).
FIRST_CANONICAL_COMMIT = "8c3a1255591c55246e8e667e1e62b0eb639f42c3"
CANONICAL_ELO_8C3A125 = "canonical_leaderboard_elo_results_8c3a125.json.gz"
SITE_LEADERBOARD = "leaderboard_eqbench3_site_04a8066.csv"
SITE_LEADERBOARD_V2 = "leaderboard_eqbench_v2_site_c5327da.csv"

#: Each file pins its own commit; the site tables have no ``upstream_path`` (no download).
FILES = UpstreamFiles.for_package(FOLDER, "EQ-Bench 3", MIRROR_ENV)
#: The module's names for its files' lookups (callers and tests use these).
manifest, locate, url, sha256 = FILES.manifest, FILES.locate, FILES.url, FILES.sha256
check, read_bytes, read_text = FILES.check, FILES.read_bytes, FILES.read_text
