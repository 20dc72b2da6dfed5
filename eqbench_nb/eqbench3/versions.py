"""Scoring versions: where EQ-bench/eqbench3's first canonical results (``8c3a125``) and HEAD (``3c21bcc``) differ.

Every EQ-Bench 3 result here names the version it was scored with. Between the two commits upstream changed:

- win-margin blend: ``8c3a125``: ``custom_blend``: 5x linear below 0.11, smoothstep into a saturating curve;
  ``3c21bcc``: identity (``custom_blend`` returns x first: the fraction is linear in the plus margin)
- analysis items (id ≥ 400): ``8c3a125``: plus counts as the judge gave them; ``3c21bcc``: clamped to 1–0, 0–1 or 0–0
  (``f6042d3``, ``downscale_analysis_pair``)
- rank window (final solve): ``8c3a125``: 8 ranks (the canonical recalculation); ``3c21bcc``: 16 ranks (``RANK_WINDOW``)
- pseudo-wins per comparison: ``8c3a125``: up to 1 (``bin_size=1``) for rating and sigma alike; ``3c21bcc``: up to 20
  for the rating, up to 5 for the sigma (a second solve)
- judge JSON: ``8c3a125``: the text from its first ``{`` to its last ``}``; unescaped line breaks repaired; ``3c21bcc``:
  the last fenced block, fences dropped, the first balanced object; line breaks and stray inner quotes repaired
- start of a model with no comparison in the solve: ``8c3a125``: 1500 (the recalculation's fallback default);
  ``3c21bcc``: 1200 (``DEFAULT_ELO``)

Shared by both: the plus-count outcome, the 30-plus normalisation of the margin, the fraction
``0.5 ± blend/2``, TrueSkill with mu 1200, sigma 350/3, beta 350/6, tau 0, draw probability 0, the interval
mu ± 1.96 sigma, and the normalisation that puts ``o3`` at 1500 and ``meta-llama/llama-3.2-1b-instruct`` at 200.
"""

from __future__ import annotations

from dataclasses import dataclass

from .files import FIRST_CANONICAL_COMMIT, HEAD_COMMIT


@dataclass(frozen=True)
class ScoringVersion:
    name: str
    commit: str
    description: str
    blend: str  # "sigmoid" (8c3a125's custom_blend) or "linear" (HEAD's)
    clamp_analysis: bool  # analysis items' plus counts clamped to a minimal margin
    rank_window: int  # comparisons more than this many ladder places apart are left out of the final solve
    bin_size: int  # most pseudo-wins a comparison becomes in the rating's solve
    sigma_bin_size: int  # ... in the solve whose sigma gives the interval
    judge_json: str  # which reading of the judge's JSON: "8c3a125" or "3c21bcc"
    inactive_start: float  # starting rating of a model with no comparison in the solve (then never updated)


FIRST_CANONICAL = ScoringVersion(
    name="8c3a125",
    commit=FIRST_CANONICAL_COMMIT,
    description="EQ-bench/eqbench3 8c3a125 (2025-04-28), the first canonical results",
    blend="sigmoid",
    clamp_analysis=False,
    rank_window=8,
    bin_size=1,
    sigma_bin_size=1,
    judge_json="8c3a125",
    inactive_start=1500.0,
)
HEAD = ScoringVersion(
    name="3c21bcc",
    commit=HEAD_COMMIT,
    description="EQ-bench/eqbench3 3c21bcc (2025-05-08), HEAD",
    blend="linear",
    clamp_analysis=True,
    rank_window=16,
    bin_size=20,
    sigma_bin_size=5,
    judge_json="3c21bcc",
    inactive_start=1200.0,
)
SCORING_VERSIONS: dict[str, ScoringVersion] = {v.name: v for v in (FIRST_CANONICAL, HEAD)}
DEFAULT_VERSION = HEAD.name


def scoring_version(name: str | ScoringVersion) -> ScoringVersion:
    """The version named ``name`` (a commit's short id); ValueError naming the choices otherwise."""
    if isinstance(name, ScoringVersion):
        return name
    try:
        return SCORING_VERSIONS[name]
    except KeyError:
        raise ValueError(
            f"unknown EQ-Bench 3 scoring version {name!r}; choose one of {', '.join(SCORING_VERSIONS)}"
        ) from None
