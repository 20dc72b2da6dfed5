"""A leaderboard of EQ-Bench 3 runs: their pairwise judgements solved into ratings with intervals.

The final solve is upstream's for the scoring version (:func:`.rating.final_solve`): the valid comparisons within
the rank window on a ladder, the rating from the version's pseudo-wins, sigma from its second solve, the interval
mu ± 1.96 sigma, the normalisation to ``o3`` = 1500 and ``meta-llama/llama-3.2-1b-instruct`` = 200 when both are in
the field (the canonical field is; a field of this project's runs alone is not, and its ratings stay raw).
The ladder is the one the placement ended on when judgements were asked in this call; otherwise (the judgements
already stored) a first solve without the window gives it, since no sampling loop ran to leave one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .rating import anchored, final_solve, is_valid, pair_comparisons, solve
from .versions import ScoringVersion

if TYPE_CHECKING:
    import pandas as pd


def provisional_ladder(
    models: Sequence[str], comparisons: Sequence[Mapping[str, Any]], version: ScoringVersion
) -> dict[str, float]:
    """Ratings from every valid comparison, no window: the ladder a window is taken on when no placement ran."""
    paired = pair_comparisons([c for c in comparisons if is_valid(c)], version)
    mu, _ = solve(sorted(set(models)), paired, version.bin_size, version.inactive_start)
    return mu


def standings(
    models: Sequence[str],
    comparisons: Sequence[Mapping[str, Any]],
    version: ScoringVersion,
    ladder: Mapping[str, float] | None = None,
    rubric: Mapping[str, float | None] | None = None,
) -> pd.DataFrame:
    """One row per model, best first: rating (raw and, when anchored, normalised), sigma, the 95 % interval on the
    normalised scale when anchored (else raw), its judgements and errors, and its rubric score where known."""
    import pandas as pd

    if ladder is None:
        ladder = provisional_ladder(models, comparisons, version)
    ratings = final_solve(models, list(comparisons), version, ladder)
    is_anchored = anchored({m: r.elo for m, r in ratings.items()})
    judged: Counter = Counter()
    errors: Counter = Counter()
    for c in comparisons:
        pair = c.get("pair") or {}
        for m in (pair.get("test_model"), pair.get("neighbor_model")):
            (errors if "error" in c else judged)[m] += 1
    rows = []
    for m, r in ratings.items():
        rows.append(
            {
                "model": m,
                "elo": r.elo,
                "elo_norm": r.elo_norm if is_anchored else None,
                "sigma": r.sigma,
                "ci_low": r.ci_low_norm if is_anchored else r.ci_low,
                "ci_high": r.ci_high_norm if is_anchored else r.ci_high,
                "judgements": judged[m],
                "judge_errors": errors[m],
                "rubric": (rubric or {}).get(m),
            }
        )
    columns = ["model", "elo", "elo_norm", "sigma", "ci_low", "ci_high", "judgements", "judge_errors", "rubric"]
    table = pd.DataFrame(rows, columns=columns).sort_values("elo", ascending=False).reset_index(drop=True)
    table.insert(0, "rank", range(1, len(table) + 1))
    table["scoring_version"] = version.name
    return table
