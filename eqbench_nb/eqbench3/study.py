"""Notebook 10's analyses of EQ-Bench 3: how the rating is made and how stable it is, the judge's position bias,
the judgements lost to unreadable JSON, the rubric beside the Elo, v2 beside v3.

Every interval says what it resamples:

- the **order spread** re-solves the canonical file with its comparisons in shuffled orders (nothing resampled:
  the same judgements, another order), so its range is what the order alone moves;
- the **position bias** is a cluster bootstrap over scenarios (pairs of the same scenario share its prompt, so
  scenarios, not pairs, are the independent units), 2,000 resamples;
- correlations across models are percentile bootstraps over models (2,000 resamples) and, for small n, Fisher's z
  (the n is stated beside each).
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np

from ..analysis.stats import (
    DEFAULT_REPS,
    SMALL_N,
    bootstrap_corr_bca,
    bootstrap_corr_ci,
    bootstrap_indices,
    correlation_summary,
    fisher_z_ci,
    pearson_r,
    percentile_interval,
    spearman_r,
)
from .canonical import CanonicalElo, error_kind, resolve
from .pairwise import FORWARD_ORDER, interpret, recompute
from .rating import normalise, pseudo_wins
from .scenarios import kind_of
from .versions import FIRST_CANONICAL, HEAD, ScoringVersion

if TYPE_CHECKING:
    import pandas as pd

CLUSTER_METHOD = "cluster bootstrap over scenarios, 2,000 resamples"
ROLEPLAY_GROUP, ANALYSIS_GROUP = "role-play and drafting", "analysis"
MODEL_METHOD = "percentile bootstrap over models, 2,000 resamples"

# ---------------------------------------------------------------- how the rating is made


def paired_margins(elo: CanonicalElo) -> pd.DataFrame:
    """One row per pair of models judged on a scenario in both orders: each order's plus counts from the test
    model's side, their sums, and the win fraction and pseudo-wins under each scoring version."""
    import pandas as pd

    from .pairwise import fraction

    groups: dict[tuple, dict[str, dict]] = defaultdict(dict)
    for c in elo.valid:
        p = c["pair"]
        groups[(p["test_model"], p["neighbor_model"], c["scenario_id"], str(p["iteration_index"]))][c["order"]] = c
    rows = []
    for (test, other, sid, _), orders in groups.items():
        if len(orders) != 2:
            continue
        fwd = orders[FORWARD_ORDER]
        rev = next(c for o, c in orders.items() if o != FORWARD_ORDER)
        row: dict[str, Any] = {"test": test, "other": other, "scenario_id": sid}
        row["plus_test"] = fwd["plus_for_test"] + rev["plus_for_test"]
        row["plus_other"] = fwd["plus_for_other"] + rev["plus_for_other"]
        outcome = 1.0 if row["plus_test"] > row["plus_other"] else 0.0 if row["plus_test"] < row["plus_other"] else 0.5
        for v in (FIRST_CANONICAL, HEAD):
            f = fraction(outcome, row["plus_test"], row["plus_other"], v).fraction_for_test
            row[f"fraction_{v.name}"] = f
            row[f"wins_{v.name}"] = pseudo_wins(f, v.bin_size)
        rows.append(row)
    return pd.DataFrame(rows)


def anchor_map(elo: CanonicalElo) -> tuple[float, float]:
    """(scale, shift) of the normalisation from the published raw ratings of the two anchors."""
    raw = {m: r["elo"] for m, r in elo.ratings.items()}
    norm = normalise(raw)
    (a, b) = ("o3", "meta-llama/llama-3.2-1b-instruct")
    scale = (norm[a] - norm[b]) / (raw[a] - raw[b])
    return scale, norm[a] - scale * raw[a]


# ---------------------------------------------------------------- how stable it is


def _ranks(values: Sequence[float]) -> np.ndarray:
    order = np.argsort(-np.asarray(values, float), kind="stable")
    out = np.empty(len(values), int)
    out[order] = np.arange(1, len(values) + 1)
    return out


def order_spread(
    elo: CanonicalElo, version: ScoringVersion = FIRST_CANONICAL, shuffles: int = 10, seed: int = 0
) -> tuple[pd.DataFrame, list[float]]:
    """(per model: the published normalised rating, the re-solve in the file's order, and over ``shuffles``
    re-solves with the comparisons shuffled: mean, SD, lowest, highest, best and worst rank; the Spearman of
    each shuffled re-solve with the published ratings). Same comparisons, window and rules each time."""
    import pandas as pd

    models = elo.models
    published = [elo.ratings[m]["elo_norm"] for m in models]
    in_order = resolve(elo, version).ratings
    rng = random.Random(seed)
    runs = []
    for _ in range(shuffles):
        comps = list(elo.comparisons)
        rng.shuffle(comps)
        solved = resolve(elo, version, comps).ratings
        runs.append([solved[m].elo_norm for m in models])
    values = np.array(runs)
    ranks = np.array([_ranks(r) for r in runs])
    table = pd.DataFrame(
        {
            "model": models,
            "published": published,
            "file_order": [in_order[m].elo_norm for m in models],
            "mean": values.mean(0),
            "sd": values.std(0, ddof=1) if shuffles > 1 else np.zeros(len(models)),
            "lowest": values.min(0),
            "highest": values.max(0),
            "published_rank": _ranks(published),
            "best_rank": ranks.min(0),
            "worst_rank": ranks.max(0),
        }
    ).sort_values("published", ascending=False)
    return table.reset_index(drop=True), [spearman_r(r, published) for r in runs]


@dataclass(frozen=True)
class Variant:
    label: str
    version: ScoringVersion
    window: int | None  # None: no window


def solve_variants(elo: CanonicalElo) -> pd.DataFrame:
    """The canonical re-solve under upstream's other choices, each against the published normalised ratings:
    8c3a125's canonical recalculation (window 8), its run-time final solve (no window), a wider window, and HEAD's
    rules (3c21bcc: linear blend, analysis clamp, window 16, 20 / 5 pseudo-wins)."""
    import pandas as pd

    from .rating import final_solve, is_valid, within_window

    variants = [
        Variant("8c3a125 canonical recalculation (window 8)", FIRST_CANONICAL, 8),
        Variant("8c3a125 run's final solve (no window)", FIRST_CANONICAL, None),
        Variant("8c3a125 rules, window 16", FIRST_CANONICAL, 16),
        Variant("3c21bcc rules (HEAD)", HEAD, HEAD.rank_window),
    ]
    published = {m: r["elo_norm"] for m, r in elo.ratings.items()}
    ladder = {m: r["elo"] for m, r in elo.ratings.items()}
    rows = []
    for v in variants:
        version = v.version
        comps = [{**c, **d} if (d := recompute(c, version)) is not None else c for c in elo.comparisons]
        valid = [c for c in comps if is_valid(c)]
        used = within_window(valid, ladder, v.window) if v.window is not None else valid
        ratings = final_solve(elo.models, used, version)
        ours = [ratings[m].elo_norm for m in elo.models]
        theirs = [published[m] for m in elo.models]
        gaps = np.abs(np.array(ours) - np.array(theirs))
        rows.append(
            {
                "solve": v.label,
                "comparisons": len(used),
                "spearman": spearman_r(ours, theirs),
                "max_abs_diff": float(gaps.max()),
                "mean_abs_diff": float(gaps.mean()),
            }
        )
    return pd.DataFrame(rows)


def interval_overlap(ratings: dict[str, dict[str, float]]) -> dict[str, float]:
    """Of the models ranked by normalised rating, the share of neighbours whose 95 % intervals overlap, and the
    median half-width of the intervals (normalised points)."""
    ordered = sorted(ratings.values(), key=lambda r: -r["elo_norm"])
    overlaps = [a["ci_low_norm"] <= b["ci_high_norm"] for a, b in pairwise(ordered)]
    half = [(r["ci_high_norm"] - r["ci_low_norm"]) / 2 for r in ordered]
    return {"neighbours": len(overlaps), "overlapping": sum(overlaps), "median_half_width": float(np.median(half))}


# ---------------------------------------------------------------- position bias


def position_effects(elo: CanonicalElo) -> pd.DataFrame:
    """One row per pair judged in both orders: the pluses of whoever sat in A0493 minus those of A0488, in each
    order, and their mean (the position effect: the two models' quality cancels between the orders), and the
    outcome of each order for A0493."""
    import pandas as pd

    groups: dict[tuple, dict[str, dict]] = defaultdict(dict)
    for c in elo.valid:
        p = c["pair"]
        groups[(p["test_model"], p["neighbor_model"], c["scenario_id"], str(p["iteration_index"]))][c["order"]] = c
    rows = []
    for (test, other, sid, _), orders in groups.items():
        if len(orders) != 2:
            continue
        (o1, a1, b1), (o2, a2, b2) = (interpret(c["judge_response"]) for c in orders.values())
        rows.append(
            {
                "test": test,
                "other": other,
                "scenario_id": sid,
                "kind": ANALYSIS_GROUP if kind_of(sid) == "analysis" else ROLEPLAY_GROUP,
                "a_minus_b_first": a1 - b1,
                "a_minus_b_second": a2 - b2,
                "effect": ((a1 - b1) + (a2 - b2)) / 2,
                "a_outcome_first": o1,
                "a_outcome_second": o2,
            }
        )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class PositionBias:
    n_pairs: int
    n_scenarios: int
    effect: float  # mean position effect, pluses per judgement towards A0493
    low: float
    high: float
    a_share: float  # share of decided judgements A0493 won
    a_share_low: float
    a_share_high: float
    order_decided: float  # share of pairs whose verdict followed the position (the same seat won both times)
    a_both: int  # of those, pairs where A0493 won both orders
    b_both: int  # ... where A0488 won both
    verdict: str


def position_bias_verdict(low: float, high: float) -> str:
    """Null: the judge has no position preference, so the mean position effect is 0. ``"favours A0493"`` when the
    interval lies above 0, ``"favours A0488"`` below, ``"not detected"`` when it includes 0."""
    if low > 0:
        return "favours A0493"
    if high < 0:
        return "favours A0488"
    return "not detected"


def position_bias(effects: pd.DataFrame, reps: int = DEFAULT_REPS, seed: int = 0) -> PositionBias:
    """The mean position effect and the share of decided judgements won by A0493, each with a cluster bootstrap
    interval over scenarios; the share of pairs decided by position; the verdict against no preference."""
    sids = sorted(effects["scenario_id"].unique())
    by = {s: effects[effects["scenario_id"] == s] for s in sids}
    sums = np.array([[by[s]["effect"].sum(), len(by[s])] for s in sids], float)
    outcomes = np.concatenate([effects["a_outcome_first"].to_numpy(), effects["a_outcome_second"].to_numpy()])
    scen2 = np.concatenate([effects["scenario_id"].to_numpy(), effects["scenario_id"].to_numpy()])
    wins = np.array(
        [[np.sum((scen2 == s) & (outcomes == 1.0)), np.sum((scen2 == s) & (outcomes != 0.5))] for s in sids], float
    )
    idx = bootstrap_indices(len(sids), reps, seed)
    boot_effect = sums[idx, 0].sum(1) / sums[idx, 1].sum(1)
    boot_share = wins[idx, 0].sum(1) / wins[idx, 1].sum(1)
    lo, hi = percentile_interval(boot_effect)
    slo, shi = percentile_interval(boot_share)
    effect = float(effects["effect"].mean())
    decided = (effects["a_outcome_first"] == effects["a_outcome_second"]) & (effects["a_outcome_first"] != 0.5)
    a_both = int((decided & (effects["a_outcome_first"] == 1.0)).sum())
    return PositionBias(
        len(effects),
        len(sids),
        effect,
        float(lo),
        float(hi),
        float(wins[:, 0].sum() / wins[:, 1].sum()),
        float(slo),
        float(shi),
        float(decided.mean()),
        a_both,
        int(decided.sum()) - a_both,
        position_bias_verdict(float(lo), float(hi)),
    )


def position_bias_by_kind(effects: pd.DataFrame, reps: int = DEFAULT_REPS, seed: int = 0) -> dict[str, PositionBias]:
    """:func:`position_bias` over all pairs and within each kind of task (the two kinds use different prompts)."""
    out = {"all tasks": position_bias(effects, reps, seed)}
    for group in (ROLEPLAY_GROUP, ANALYSIS_GROUP):
        subset = effects[effects["kind"] == group]
        if len(subset):
            out[group] = position_bias(subset, reps, seed)
    return out


# ---------------------------------------------------------------- lost judgements


def lost_judgements(elo: CanonicalElo) -> pd.DataFrame:
    """The error records by what went wrong and by order (forward: the test model was A0493)."""
    import pandas as pd

    counts = Counter((error_kind(c), c.get("order", "")) for c in elo.errors)
    rows = [{"kind": k, "order": o, "judgements": n} for (k, o), n in sorted(counts.items())]
    return pd.DataFrame(rows)


_TRAILING_COMMA = re.compile(r",\s*}\s*$")


def recovered(elo: CanonicalElo, version: ScoringVersion = FIRST_CANONICAL) -> list[dict[str, Any]]:
    """The comparisons with every error that is a complete object with a trailing comma read as the object it is
    (the comma removed), in its place in the file; what a reader tolerant of that one slip would have kept."""
    import json

    out = []
    for c in elo.comparisons:
        if "error" in c and error_kind(c) == "complete object with a trailing comma":
            raw = str(c["raw_judge_response"]).strip()
            verdict = json.loads(_TRAILING_COMMA.sub("}", raw[raw.find("{") :]))
            test_is_a = c.get("order") == "forward"
            fixed = {
                "scenario_id": c["scenario_id"],
                "pair": c["pair"],
                "order": FORWARD_ORDER if test_is_a else "A0493:other / A0488:test",
                "judge_response": verdict,
            }
            out.append({**fixed, **(recompute(fixed, version) or {})})
        else:
            out.append(c)
    return out


def recovery_effect(elo: CanonicalElo, version: ScoringVersion = FIRST_CANONICAL) -> dict[str, float]:
    """How far the re-solved ratings move when the trailing-comma verdicts are kept: the largest and mean absolute
    change of a normalised rating, and the Spearman between the two re-solves."""
    before = resolve(elo, version).ratings
    after = resolve(elo, version, recovered(elo, version)).ratings
    b = np.array([before[m].elo_norm for m in elo.models])
    a = np.array([after[m].elo_norm for m in elo.models])
    return {
        "recovered": sum(1 for c in elo.errors if error_kind(c) == "complete object with a trailing comma"),
        "max_abs_change": float(np.abs(a - b).max()),
        "mean_abs_change": float(np.abs(a - b).mean()),
        "spearman": spearman_r(a, b),
    }


# ---------------------------------------------------------------- the site's boards


def correlation(x: Sequence[float], y: Sequence[float], seed: int = 0) -> dict[str, Any]:
    """Pearson and Spearman r of the finite pairs with the intervals their n allows, and n.

    From :data:`~eqbench_nb.analysis.stats.SMALL_N` models on: percentile bootstrap intervals over models
    (``pearson_low``/``high``, ``spearman_low``/``high``), the BCa interval of the same resamples and Fisher's z.
    Below it a bootstrap over so few models is too narrow, so the main intervals are Fisher's z (Bonett–Wright for
    Spearman) and the BCa keys are NaN. ``interval_method`` names what the main intervals are; the ``pearson_fisher``
    keys are Fisher's z at every n (NaN below 4 models)."""
    xs, ys = _finite_pairs(x, y)
    n = len(xs)
    fz = fisher_z_ci(pearson_r(xs, ys), n) if n > 1 else (float("nan"), float("nan"))
    out: dict[str, Any] = {"pearson_fisher_low": fz[0], "pearson_fisher_high": fz[1]}
    if n >= SMALL_N:
        p = bootstrap_corr_ci(xs, ys, "pearson", seed=seed)
        bca = bootstrap_corr_bca(xs, ys, "pearson", seed=seed)
        s = bootstrap_corr_ci(xs, ys, "spearman", seed=seed)
        out |= {"pearson_bca_low": bca.low, "pearson_bca_high": bca.high, "interval_method": MODEL_METHOD}
        out |= {"pearson": p.estimate, "pearson_low": p.low, "pearson_high": p.high}
        out |= {"spearman": s.estimate, "spearman_low": s.low, "spearman_high": s.high}
    else:
        summary = correlation_summary(xs, ys, seed=seed, interval="fisher")
        out |= {k: summary[k] for k in ("pearson", "pearson_low", "pearson_high", "spearman")}
        out |= {k: summary[k] for k in ("spearman_low", "spearman_high", "interval_method")}
        out |= {"pearson_bca_low": float("nan"), "pearson_bca_high": float("nan")}
    return {"n": n, **out}


def _finite_pairs(x: Sequence[float], y: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(a) & np.isfinite(b)
    return a[keep], b[keep]


def rank_disagreements(board: pd.DataFrame, k: int = 5) -> pd.DataFrame:
    """The ``k`` models whose rubric rank and Elo rank differ most (rank 1 = best)."""
    df = board[["model", "elo_norm", "rubric_0_100"]].copy()
    df["elo_rank"] = df["elo_norm"].rank(ascending=False, method="min").astype(int)
    df["rubric_rank"] = df["rubric_0_100"].rank(ascending=False, method="min").astype(int)
    df["rubric_minus_elo_rank"] = df["rubric_rank"] - df["elo_rank"]
    return df.reindex(df["rubric_minus_elo_rank"].abs().sort_values(ascending=False).index).head(k)


def abilities_against(board: pd.DataFrame, abilities: Sequence[str]) -> pd.DataFrame:
    """Each ability score's Spearman with the Elo and with the rubric score, each with a bootstrap interval."""
    import pandas as pd

    rows = []
    for a in abilities:
        e = bootstrap_corr_ci(board[a], board["elo_norm"], "spearman")
        r = bootstrap_corr_ci(board[a], board["rubric_0_100"], "spearman")
        rows.append(
            {
                "ability": a,
                "vs_elo": e.estimate,
                "elo_low": e.low,
                "elo_high": e.high,
                "vs_rubric": r.estimate,
                "rubric_low": r.low,
                "rubric_high": r.high,
                "n": e.n,
            }
        )
    return pd.DataFrame(rows).sort_values("vs_elo", ascending=False).reset_index(drop=True)
