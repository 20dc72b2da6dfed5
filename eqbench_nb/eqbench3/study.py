"""Notebook 10's analyses of EQ-Bench 3: how the rating is made and how stable it is, the judge's position bias,
the judgements lost to unreadable JSON, the rubric beside the Elo, v2 beside v3.

Every interval says what it resamples, at the unit that was sampled (the scenario: every pair of a scenario shares
its prompt, every iteration repeats it):

- the **order spread** re-solves the canonical file with its comparisons in shuffled orders (nothing resampled:
  the same judgements, another order), with upstream's window of 8 and without it (:class:`OrderSolver` prepares
  the comparisons once, so a re-solve costs only the solve);
- the **Elo interval** is a scenario-cluster bootstrap with a re-solve per resample (:func:`scenario_bootstrap`),
  and **separability** the share of model pairs whose intervals do not overlap (:func:`separability`);
- the **position bias** is a pooled mean over scenarios (:func:`clustered_mean_interval`): a cluster bootstrap
  from :data:`~eqbench_nb.analysis.stats.SMALL_N` scenarios on, Student's t over the scenarios below (each kind of
  task alone: 26 and 19 scenarios);
- correlations across models are percentile bootstraps over models (2,000 resamples) and, for small n, Fisher's z
  (the n is stated beside each).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ..analysis.stats import (
    DEFAULT_LEVEL,
    DEFAULT_REPS,
    SMALL_N,
    Interval,
    bootstrap_corr_bca,
    bootstrap_corr_ci,
    bootstrap_indices,
    correlation_summary,
    fisher_z_ci,
    pearson_r,
    percentile_interval,
    refuse_small_percentile,
    spearman_r,
)
from .canonical import CanonicalElo, error_kind, resolve
from .pairwise import FORWARD_ORDER, interpret, recompute
from .rating import ANCHORS, normalise, pseudo_wins
from .scenarios import kind_of
from .versions import FIRST_CANONICAL, HEAD, ScoringVersion

if TYPE_CHECKING:
    import pandas as pd

#: The position bias's interval from :data:`~eqbench_nb.analysis.stats.SMALL_N` scenarios on; below, Student's t
#: (:attr:`PositionBias.method` says which was used).
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


#: The normalisation's anchors and their fixed normalised ratings: no re-solve or resample moves them, and a
#: correlation with a normalised rating gets their values from the definition, not from a measurement.
ANCHOR_VALUES = dict(ANCHORS)
ANCHOR_TARGETS = tuple(ANCHOR_VALUES)


def anchor_map(elo: CanonicalElo) -> tuple[float, float]:
    """(scale, shift) of the normalisation from the published raw ratings of the two anchors."""
    raw = {m: r["elo"] for m, r in elo.ratings.items()}
    norm = normalise(raw)
    (a, b) = ANCHOR_TARGETS
    scale = (norm[a] - norm[b]) / (raw[a] - raw[b])
    return scale, norm[a] - scale * raw[a]


# ---------------------------------------------------------------- how stable it is


def _ranks(values: Sequence[float]) -> np.ndarray:
    order = np.argsort(-np.asarray(values, float), kind="stable")
    out = np.empty(len(values), int)
    out[order] = np.arange(1, len(values) + 1)
    return out


class OrderSolver:
    """Comparisons prepared once for many re-solves in other orders or over resampled scenarios: kept when valid
    (and within the version's rank window on a ladder, when one is given), and paired into groups (both orders of a
    pair on a scenario and iteration make one comparison, :func:`.rating.pair_comparisons`).

    ``OrderSolver(elo, version, windowed)`` takes the canonical file's comparisons re-derived under ``version``, the
    window on the file's published ladder (as :func:`.canonical.resolve` keeps them); :meth:`of` takes comparisons
    as they are given, as :func:`.league.standings` solves them.

    A re-solve then costs only the solve: the groups are played in the order their first comparison appears, which
    is what re-deriving, filtering and pairing a shuffled list would give (tests check it against
    :func:`.canonical.resolve` and :func:`.rating.final_solve`)."""

    def __init__(self, elo: CanonicalElo, version: ScoringVersion = FIRST_CANONICAL, windowed: bool = True) -> None:
        comps = [{**c, **d} if (d := recompute(c, version)) is not None else c for c in elo.comparisons]
        ladder = {m: r["elo"] for m, r in elo.ratings.items()} if windowed else None
        self._prepare(elo.models, comps, version, ladder)

    @classmethod
    def of(
        cls,
        models: Sequence[str],
        comparisons: Sequence[Mapping[str, Any]],
        version: ScoringVersion,
        ladder: Mapping[str, float] | None = None,
    ) -> OrderSolver:
        """A solver of ``comparisons`` as given (their derived fields not recomputed), with the version's window on
        ``ladder`` when one is given: the groups :func:`.rating.final_solve` plays for the same arguments."""
        solver = cls.__new__(cls)
        solver._prepare(models, comparisons, version, ladder)
        return solver

    def _prepare(
        self,
        models: Sequence[str],
        comps: Sequence[Mapping[str, Any]],
        version: ScoringVersion,
        ladder: Mapping[str, float] | None,
    ) -> None:
        from .rating import group_key, is_valid, pair_comparisons, within_window

        self.models, self.version, self.windowed = list(models), version, ladder is not None
        self.size = len(comps)  # the comparisons given, valid or not: what :meth:`in_order` permutes
        kept: list[Mapping[str, Any]] = [c for c in comps if is_valid(c)]
        if ladder is not None:
            kept = within_window(kept, ladder, version.rank_window)
        self.groups = pair_comparisons(kept, version)  # in file order
        index = {(p.a, p.b, p.scenario_id, p.iteration): i for i, p in enumerate(self.groups)}
        kept_ids = {id(c) for c in kept}
        # per comparison given, the group it is paired in (-1: left out)
        self.group_of = np.array(
            [index[k] if id(c) in kept_ids and (k := group_key(c)) is not None else -1 for c in comps], dtype=int
        )
        self.scenarios = sorted({p.scenario_id for p in self.groups})
        scenario_index = {sid: i for i, sid in enumerate(self.scenarios)}
        self.scenario_of = np.array([scenario_index[p.scenario_id] for p in self.groups], dtype=int)
        self.everyone = sorted(set(models) | {p.a for p in self.groups} | {p.b for p in self.groups})

    def scenarios_of(self, model: str) -> int:
        """How many scenarios the model's rating rests on: those with a comparison of it that the solve plays."""
        return len({p.scenario_id for p in self.groups if model in (p.a, p.b)})

    @property
    def label(self) -> str:
        v = self.version
        return f"{v.name} rules, window {v.rank_window}" if self.windowed else f"{v.name} rules, no window"

    def play(self, groups: Sequence[int] | np.ndarray) -> dict[str, float]:
        """Normalised ratings (o3 = 1500, llama-3.2-1b = 200) from the groups played in the order given: only the
        rating's solve (the interval's second solve is not needed here), unrounded."""
        from .rating import normalise, solve

        mu, _ = solve(self.everyone, [self.groups[i] for i in groups], self.version.bin_size,
                      self.version.inactive_start)  # fmt: skip
        return normalise(mu)

    def in_order(self, order: Sequence[int] | np.ndarray) -> dict[str, float]:
        """The re-solve with the file's comparisons in ``order`` (a permutation of their indices)."""
        g = self.group_of[np.asarray(order, dtype=int)]
        g = g[g >= 0]
        _, first = np.unique(g, return_index=True)
        return self.play(g[np.sort(first)])

    def resampled(self, counts: np.ndarray) -> dict[str, float]:
        """The re-solve over a resample of scenarios: ``counts[i]`` copies of each group of scenario
        ``self.scenarios[i]``, each group's copies played one after another where the group stands in the file."""
        repeats = np.asarray(counts, dtype=int)[self.scenario_of]
        return self.play(np.repeat(np.arange(len(self.groups)), repeats))


@dataclass(frozen=True)
class OrderSpread:
    """:func:`order_spread`'s answer: the per-model table, each shuffled re-solve's Spearman with the published
    ratings, and which solve made them."""

    table: pd.DataFrame
    spearmans: list[float]
    solve: str
    shuffles: int
    seed: int

    @property
    def moved(self) -> pd.DataFrame:
        """The rows of the models that are not anchors (the anchors' normalised ratings are fixed)."""
        return self.table[~self.table["model"].isin(list(ANCHOR_TARGETS))]

    @property
    def published_outside(self) -> int:
        """Of the models that are not anchors, how many have their published rating outside the shuffled range."""
        m = self.moved
        return int(((m["published"] < m["lowest"]) | (m["published"] > m["highest"])).sum())

    @property
    def compression(self) -> float:
        """The SD across models of the mean shuffled rating over that of the published ratings (non-anchors): below
        1, the solve squeezes the ratings together."""
        m = self.moved
        return float(m["mean"].std(ddof=1) / m["published"].std(ddof=1))


def order_spread(
    elo: CanonicalElo,
    version: ScoringVersion = FIRST_CANONICAL,
    shuffles: int = 100,
    seed: int = 0,
    windowed: bool = True,
    solver: OrderSolver | None = None,
) -> OrderSpread:
    """Per model: the published normalised rating, the re-solve in the file's order, and over ``shuffles``
    re-solves with the comparisons shuffled: mean, SD, lowest, highest, best and worst rank; and the Spearman of
    each shuffled re-solve with the published ratings. Same comparisons and rules each time; ``windowed`` keeps
    upstream's canonical recalculation's rank window on the published ladder (False: every valid comparison, as
    the run's final solve at 8c3a125). The permutations come from ``np.random.default_rng(seed)``."""
    import pandas as pd

    solver = solver or OrderSolver(elo, version, windowed)
    models = elo.models
    published = [elo.ratings[m]["elo_norm"] for m in models]
    n = len(elo.comparisons)
    in_order = solver.in_order(np.arange(n))
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(shuffles):
        solved = solver.in_order(rng.permutation(n))
        runs.append([solved[m] for m in models])
    values = np.array(runs)
    ranks = np.array([_ranks(r) for r in runs])
    table = pd.DataFrame(
        {
            "model": models,
            "published": published,
            "file_order": [in_order[m] for m in models],
            "mean": values.mean(0),
            "sd": values.std(0, ddof=1) if shuffles > 1 else np.zeros(len(models)),
            "lowest": values.min(0),
            "highest": values.max(0),
            "published_rank": _ranks(published),
            "best_rank": ranks.min(0),
            "worst_rank": ranks.max(0),
        }
    ).sort_values("published", ascending=False)
    spearmans = [spearman_r(r, published) for r in runs]
    return OrderSpread(table.reset_index(drop=True), spearmans, solver.label, shuffles, seed)


def quantile_range(values: ArrayLike, level: float = 0.90) -> tuple[float, float]:
    """The central ``level`` range of ``values`` (the 5th and 95th percentiles at 0.90; draws, not resampled units:
    no small-n rule): a range that settles as draws are added (the lowest and highest of the draws only widen)."""
    lo, hi = percentile_interval(values, level)
    return float(lo), float(hi)


SCENARIO_CLUSTER_METHOD = "scenario-cluster bootstrap with a re-solve per resample"


def scenario_bootstrap(
    solver: OrderSolver,
    reps: int = 200,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
    interval: str | None = None,
) -> pd.DataFrame:
    """Each model's normalised rating with a percentile interval over ``reps`` resamples of the scenarios: the
    scenarios are drawn with replacement, every comparison of a drawn scenario comes along (as often as it was
    drawn), and the ratings are solved again with the solver's rules and window. Scenarios, not comparisons, are
    the independent units: all pairs of a scenario share its prompt. The anchors' normalised ratings are fixed
    (o3 = 1500, llama-3.2-1b = 200), so their intervals are points.

    Columns: model, elo_norm (the solve in file order), low, high, and ``boot`` (the replicates, one array per
    model, for :func:`separability` and the Monte-Carlo error). Below :data:`~eqbench_nb.analysis.stats.SMALL_N`
    scenarios the percentile interval is refused unless named (``interval="percentile"``)."""
    import pandas as pd

    k = len(solver.scenarios)
    refuse_small_percentile(k, interval, "scenario_bootstrap", "more scenarios (no small-n form re-solves)")
    models = solver.models
    full = solver.in_order(np.arange(solver.size))
    counts = np.random.default_rng(seed).multinomial(k, np.full(k, 1.0 / k), size=reps)
    boot = np.array([[r[m] for m in models] for r in (solver.resampled(c) for c in counts)])
    lo, hi = percentile_interval(boot, level)
    table = pd.DataFrame({"model": models, "elo_norm": [full[m] for m in models], "low": lo, "high": hi})
    table["boot"] = list(boot.T)
    return table.sort_values("elo_norm", ascending=False).reset_index(drop=True)


def separability(low: ArrayLike, high: ArrayLike) -> float:
    """Arena-Hard's separability: the share of all pairs of models whose intervals do not overlap (one's upper end
    below the other's lower end). NaN for fewer than two models."""
    lo, hi = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    n = len(lo)
    if n < 2:
        return float("nan")
    i, j = np.triu_indices(n, 1)
    return float(((hi[i] < lo[j]) | (hi[j] < lo[i])).mean())


def bootstrap_separability(boot: np.ndarray, level: float = DEFAULT_LEVEL) -> float:
    """:func:`separability` of the percentile intervals of replicates ``boot`` (resamples x models)."""
    lo, hi = percentile_interval(np.asarray(boot, dtype=float), level)
    return separability(lo, hi)


def quantile_range_low(values: ArrayLike) -> float:
    """The lower end of :func:`quantile_range` (a statistic for
    :meth:`~eqbench_nb.report.MonteCarlo.from_batches_range`)."""
    return quantile_range(values)[0]


def quantile_range_high(values: ArrayLike) -> float:
    """The upper end of :func:`quantile_range`."""
    return quantile_range(values)[1]


#: The seed replicates of notebook 10's tail statistics: a table under ``data/`` written by
#: ``benchmarks/eqbench3_seed_replicates.py`` (16 seeds x (200 re-solves + 2 x 100 orders) took 171 s on the shared
#: two cores, far more than the notebook's share of ``reproduce``), read by the notebook, which recomputes seed 0 and
#: checks it against the row.
SEED_REPLICATES_FILE = "eqbench3_seed_replicates.csv"


def rated_separability(solver: OrderSolver, reps: int = 200, seed: int = 0) -> float:
    """Separability of the scenario-bootstrap intervals (:func:`scenario_bootstrap`, ``reps`` re-solves, ``seed``) of
    the models that are not anchors (the anchors' intervals are points)."""
    boot = scenario_bootstrap(solver, reps=reps, seed=seed)
    rated = boot[~boot["model"].isin(ANCHOR_TARGETS)]
    return separability(rated["low"], rated["high"])


def order_statistics(elo: CanonicalElo, solver: OrderSolver, shuffles: int = 100, seed: int = 0) -> dict[str, float]:
    """For one seed of :func:`order_spread`: the 5th and 95th percentiles and the median of the Spearmans of the
    shuffled re-solves with the published ratings."""
    return spearman_statistics(order_spread(elo, FIRST_CANONICAL, shuffles, seed=seed, solver=solver).spearmans)


def spearman_statistics(spearmans: ArrayLike) -> dict[str, float]:
    """The 5th and 95th percentiles, the median and the best of one seed's Spearmans over shuffled orders."""
    values = np.asarray(spearmans, dtype=float)
    low, high = quantile_range(values)
    return {"p05": low, "p95": high, "median": float(np.median(values)), "best": float(np.max(values))}


def seed_replicates(
    elo: CanonicalElo, seeds: Sequence[int] = range(16), reps: int = 200, shuffles: int = 100
) -> pd.DataFrame:
    """Independent full-size replicates of notebook 10's tail statistics, one row per statistic and seed: the
    separability of the scenario bootstrap (``reps`` re-solves, window 8), and for both solves (window 8, no window)
    the 5th and 95th percentiles and the median of the Spearmans over ``shuffles`` orders. A percentile end or a
    separability from a fraction of the draws is biased against the full statistic, so its Monte-Carlo error is the
    spread over seeds (:meth:`~eqbench_nb.report.MonteCarlo.from_seeds`), not over batches of one seed's draws."""
    import pandas as pd

    solvers = {w: OrderSolver(elo, FIRST_CANONICAL, w) for w in (True, False)}
    rows = []
    for seed in seeds:
        value = rated_separability(solvers[True], reps, seed)
        rows.append({"statistic": "separability", "solve": "window 8", "seed": seed, "draws": reps, "value": value})
        for windowed, solve in ((True, "window 8"), (False, "no window")):
            stats = order_statistics(elo, solvers[windowed], shuffles, seed)
            rows += [
                {"statistic": f"order_spearman_{k}", "solve": solve, "seed": seed, "draws": shuffles, "value": v}
                for k, v in stats.items()
            ]
    return pd.DataFrame(rows)


def read_seed_replicates() -> pd.DataFrame:
    """The committed table of :func:`seed_replicates` (``data/`` :data:`SEED_REPLICATES_FILE`), with its source."""
    import pandas as pd

    from ..paths import tables_dir

    table = pd.read_csv(tables_dir() / SEED_REPLICATES_FILE)
    if table["source"].isna().any():
        raise ValueError(f"data/{SEED_REPLICATES_FILE}: every row needs a source")
    return table


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
    method: str = ""  # what the intervals resample (:func:`clustered_mean_interval`)


def position_bias_verdict(low: float, high: float) -> str:
    """Null: the judge has no position preference, so the mean position effect is 0. ``"favours the first-listed
    respondent"`` when the interval lies above 0, ``"favours the second-listed respondent"`` below, ``"not detected"``
    when it includes 0. The first-listed respondent is always labelled A0493, so position and label are confounded:
    the verdict names the position, which the label cannot be told from."""
    if low > 0:
        return FIRST_LISTED
    if high < 0:
        return SECOND_LISTED
    return "not detected"


FIRST_LISTED = "favours the first-listed respondent"
SECOND_LISTED = "favours the second-listed respondent"


def clustered_mean_interval(
    sums: ArrayLike,
    counts: ArrayLike,
    reps: int = DEFAULT_REPS,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
    unit: str = "scenarios",
) -> Interval:
    """The pooled mean sum(sums) / sum(counts) of values held in clusters (``sums[g]``, ``counts[g]``: cluster
    g's total and size), with the interval the number of clusters G calls for under the house rule
    (:data:`~eqbench_nb.analysis.stats.SMALL_N`):

    - below it, Student's t with G - 1 degrees of freedom around the cluster-robust standard error
      sqrt(G / (G - 1) * sum((sums[g] - mean * counts[g])^2)) / sum(counts) (Miller 2024, clustered at the unit
      sampled); with equal cluster sizes it is the t interval over the cluster means;
    - from it on, a percentile bootstrap over clusters (``reps`` resamples, ``seed``).

    ``method`` of the result says which, with G and ``unit``; ``n`` is G."""
    from scipy import stats as sps

    totals, sizes = np.asarray(sums, dtype=float), np.asarray(counts, dtype=float)
    g = len(totals)
    mean = float(totals.sum() / sizes.sum()) if g else float("nan")
    if g < 2:
        return Interval(mean, float("nan"), float("nan"), g, f"no interval: {g} {unit}")
    if g < SMALL_N:
        se = float(np.sqrt(g / (g - 1) * np.sum((totals - mean * sizes) ** 2)) / sizes.sum())
        half = float(sps.t.ppf(0.5 + level / 2, g - 1)) * se
        return Interval(mean, mean - half, mean + half, g, f"Student t over {g} {unit} (cluster-robust SE)")
    idx = bootstrap_indices(g, reps, seed)
    lo, hi = percentile_interval(totals[idx].sum(1) / sizes[idx].sum(1), level)
    return Interval(mean, float(lo), float(hi), g, f"cluster bootstrap over {g} {unit}, {reps:,} resamples")


def position_bias(effects: pd.DataFrame, reps: int = DEFAULT_REPS, seed: int = 0) -> PositionBias:
    """The mean position effect and the share of decided judgements won by A0493, each with the interval over
    scenarios that their number calls for (:func:`clustered_mean_interval`: Student t below
    :data:`~eqbench_nb.analysis.stats.SMALL_N` scenarios, a cluster bootstrap from there on); the share of pairs
    decided by position; the verdict against no preference."""
    sids = sorted(effects["scenario_id"].unique())
    by = {s: effects[effects["scenario_id"] == s] for s in sids}
    sums = np.array([[by[s]["effect"].sum(), len(by[s])] for s in sids], float)
    outcomes = np.concatenate([effects["a_outcome_first"].to_numpy(), effects["a_outcome_second"].to_numpy()])
    scen2 = np.concatenate([effects["scenario_id"].to_numpy(), effects["scenario_id"].to_numpy()])
    wins = np.array(
        [[np.sum((scen2 == s) & (outcomes == 1.0)), np.sum((scen2 == s) & (outcomes != 0.5))] for s in sids], float
    )
    effect = clustered_mean_interval(sums[:, 0], sums[:, 1], reps, seed)
    share = clustered_mean_interval(wins[:, 0], wins[:, 1], reps, seed)
    decided = (effects["a_outcome_first"] == effects["a_outcome_second"]) & (effects["a_outcome_first"] != 0.5)
    a_both = int((decided & (effects["a_outcome_first"] == 1.0)).sum())
    return PositionBias(
        len(effects),
        len(sids),
        effect.estimate,
        effect.low,
        effect.high,
        share.estimate,
        share.low,
        share.high,
        float(decided.mean()),
        a_both,
        int(decided.sum()) - a_both,
        position_bias_verdict(effect.low, effect.high),
        effect.method,
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


def _finite_pairs(x: ArrayLike, y: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(a) & np.isfinite(b)
    return a[keep], b[keep]


def leave_one_out(x: ArrayLike, y: ArrayLike, labels: Sequence[str]) -> pd.DataFrame:
    """Pearson r with each model left out in turn (:func:`~eqbench_nb.analysis.stats.leave_one_out_corr`): one row
    per model (``left_out``, ``r``, ``change`` = r without it minus r with all, ``anchor``: whether it is an anchor
    of the normalisation), the model whose absence moves r most first."""
    import pandas as pd

    from ..analysis.stats import leave_one_out_corr

    r = leave_one_out_corr(x, y)
    full = pearson_r(*_finite_pairs(x, y))
    table = pd.DataFrame({"left_out": list(labels), "r": r, "change": r - full})
    table["anchor"] = table["left_out"].isin(ANCHOR_TARGETS)
    return table.reindex(table["change"].abs().sort_values(ascending=False).index).reset_index(drop=True)


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
