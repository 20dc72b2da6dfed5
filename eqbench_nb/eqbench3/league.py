"""A leaderboard of EQ-Bench 3 runs: their pairwise judgements solved into ratings with intervals.

The final solve is upstream's for the scoring version (:func:`.rating.final_solve`): the valid comparisons within
the rank window on a ladder, the rating from the version's pseudo-wins, sigma from its second solve (upstream's
``sigma`` column, kept as it reports it), the normalisation to ``o3`` = 1500 and ``meta-llama/llama-3.2-1b-instruct``
= 200 when both are in the field (the canonical field is; a field of this project's runs alone is not, and its
ratings stay raw). The ladder is the one the placement ended on when judgements were asked in this call; otherwise
(the judgements already stored) a first solve without the window gives it, since no sampling loop ran to leave one.

The interval (``ci_low``, ``ci_high``) is not TrueSkill's mu ± 1.96 sigma (one pass over the games, each counted as
independent) but notebook 10's scenario-cluster bootstrap (:func:`.study.scenario_bootstrap`): the scenarios are
resampled, every comparison of a drawn scenario comes along, and the same final solve runs again on each resample
(the window kept on the same ladder); the percentile interval over the resamples, with the Monte-Carlo error of its
ends (:class:`~eqbench_nb.report.MonteCarlo`, batches of the resamples). Scenarios are the unit sampled: every pair
of a scenario shares its prompt. The house's small-n rule (:data:`~eqbench_nb.analysis.stats.SMALL_N`) holds for
the field and for each model: below it no interval is given (no small-n form re-solves the ratings), and the row
says why. **Separability** is Arena-Hard's: the share of the pairs of models with an interval whose intervals do
not overlap (the anchors left out when the ratings are normalised: their normalised ratings are fixed).
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..analysis.stats import DEFAULT_LEVEL, SMALL_N, percentile_interval
from .rating import ANCHORS, anchored, final_solve, is_valid, pair_comparisons, solve
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


#: Resamples of the standings' interval, each a re-solve (``leaderboard --reps`` sets another, at least 100): a
#: re-solve of the canonical field takes about 0.01 s under 8c3a125's rules and 0.05 s under 3c21bcc's
#: (benchmarks/bench_eqbench3.py measures it), and the Monte-Carlo error of the interval ends is stated beside them.
DEFAULT_ELO_REPS = 500
#: Batches of the resamples that give the Monte-Carlo error of the interval ends and of separability.
MC_BATCHES = 10
#: The standings' columns that describe the interval rather than a model: the same on every row of one judge's
#: standings (JSON and CSV carry them; the terminal says them once, :func:`interval_caption`).
INTERVAL_COLUMNS = ("interval_method", "reps", "separability", "separability_se", "separability_pairs", "ci_mc_se")


def interval_method(level: float, reps: int, seed: int) -> str:
    return f"{level * 100:g} % scenario-cluster bootstrap, {reps:,} resamples (seed {seed}), re-solved"


def no_interval(scenarios: int) -> str:
    """The one line saying why a rating has no interval below the house's small-n rule (the rubric's interval
    switches to Student's t there; no such form re-solves a rating)."""
    return (
        f"no interval: {scenarios} scenarios, below {SMALL_N}: a percentile bootstrap over fewer than {SMALL_N} "
        "scenarios is too narrow, and no small-n form re-solves the ratings"
    )


@dataclass(frozen=True)
class EloInterval:
    """:func:`elo_interval`'s answer: per model ``low``, ``high`` (None without an interval), ``mc_se`` (the larger
    Monte-Carlo standard error of the two ends) and ``scenarios`` (those its rating rests on); over the field
    ``method`` (what the interval is, or why there is none), ``separability`` with its Monte-Carlo error and the
    number of ``pairs`` it is over."""

    low: dict[str, float | None]
    high: dict[str, float | None]
    mc_se: dict[str, float | None]
    scenarios_of: dict[str, int]
    scenarios: int
    reps: int
    level: float
    seed: int
    method: str
    separability: float | None = None
    separability_se: float | None = None
    pairs: int = 0

    @property
    def given(self) -> bool:
        """Whether the field has enough scenarios for an interval (a model of it may still have too few)."""
        return self.scenarios >= SMALL_N


def elo_interval(
    models: Sequence[str],
    comparisons: Sequence[Mapping[str, Any]],
    version: ScoringVersion,
    ladder: Mapping[str, float],
    reps: int = DEFAULT_ELO_REPS,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
) -> EloInterval:
    """The standings' interval of each model's rating (module docstring): :func:`.study.scenario_bootstrap` of the
    comparisons as :func:`.rating.final_solve` takes them (valid, within the window on ``ladder``), on the scale
    the standings give (normalised when anchored, else raw), from ``reps`` resamples drawn with ``seed``. Below
    :data:`~eqbench_nb.analysis.stats.SMALL_N` scenarios in the field no model has an interval; from there on a
    model whose rating rests on fewer scenarios has none either."""
    import numpy as np

    from ..report import MonteCarlo
    from .study import OrderSolver, bootstrap_separability, scenario_bootstrap, separability

    solver = OrderSolver.of(models, comparisons, version, ladder)
    rated = {m: solver.scenarios_of(m) for m in solver.everyone}
    k = len(solver.scenarios)
    empty: dict[str, float | None] = {m: None for m in solver.everyone}
    if k < SMALL_N:
        return EloInterval(empty, dict(empty), dict(empty), rated, k, reps, level, seed, no_interval(k))
    boot = scenario_bootstrap(solver, reps=reps, seed=seed, level=level)
    fixed = set(ANCHORS) if anchored(dict.fromkeys(solver.everyone, 0.0)) else set()
    low, high, mc_se = dict(empty), dict(empty), dict(empty)
    separable: dict[str, tuple[float, float]] = {}  # the models with an interval of their own
    for row in boot.itertuples(index=False):
        m = str(row.model)
        if m in fixed:  # its normalised rating is fixed: the interval is that point, and no separation
            low[m], high[m] = float(row.low), float(row.high)
            continue
        if rated[m] < SMALL_N:
            continue
        low[m], high[m] = separable[m] = float(row.low), float(row.high)
        mc_se[m] = MonteCarlo.from_batches_range(row.boot, _low_end(level), _high_end(level), MC_BATCHES).se
    out = EloInterval(low, high, mc_se, rated, k, reps, level, seed, interval_method(level, reps, seed))
    if len(separable) < 2:
        return out
    where = {m: i for i, m in enumerate(boot["model"])}
    replicates = np.stack([boot["boot"].iloc[where[m]] for m in separable]).T
    sep_mc = MonteCarlo.from_batches(
        list(range(reps)), lambda rows: bootstrap_separability(replicates[rows.astype(int)], level), MC_BATCHES
    )
    n = len(separable)
    sep = separability([lo for lo, _ in separable.values()], [hi for _, hi in separable.values()])
    return dataclasses.replace(out, separability=sep, separability_se=sep_mc.se, pairs=n * (n - 1) // 2)


def _low_end(level: float) -> Any:
    """The interval's lower end as a statistic of draws (for :meth:`~eqbench_nb.report.MonteCarlo.from_batches`)."""
    return lambda draws: float(percentile_interval(draws, level)[0])


def _high_end(level: float) -> Any:
    return lambda draws: float(percentile_interval(draws, level)[1])


def standings(
    models: Sequence[str],
    comparisons: Sequence[Mapping[str, Any]],
    version: ScoringVersion,
    ladder: Mapping[str, float] | None = None,
    rubric: Mapping[str, float | None] | None = None,
    reps: int = DEFAULT_ELO_REPS,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
) -> pd.DataFrame:
    """One row per model, best first: rating (raw and, when anchored, normalised), TrueSkill's sigma (upstream's
    column, not the interval), the interval of :func:`elo_interval` on the normalised scale when anchored (else
    raw) with the Monte-Carlo error of its ends, the scenarios the rating rests on, its judgements and errors, its
    rubric score where known; and on every row what the interval is (``interval_method``: the method, or why there
    is none), its ``reps``, the field's ``separability`` and the number of pairs it is over."""
    import pandas as pd

    if ladder is None:
        ladder = provisional_ladder(models, comparisons, version)
    ratings = final_solve(models, list(comparisons), version, ladder)
    is_anchored = anchored({m: r.elo for m, r in ratings.items()})
    interval = elo_interval(models, comparisons, version, ladder, reps, seed, level)
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
                "ci_low": _rounded(interval.low.get(m)),
                "ci_high": _rounded(interval.high.get(m)),
                "ci_mc_se": _rounded(interval.mc_se.get(m)),
                "scenarios": interval.scenarios_of.get(m, 0),
                "judgements": judged[m],
                "judge_errors": errors[m],
                "rubric": (rubric or {}).get(m),
            }
        )
    columns = ["model", "elo", "elo_norm", "sigma", "ci_low", "ci_high", "ci_mc_se", "scenarios", "judgements",
               "judge_errors", "rubric"]  # fmt: skip
    table = pd.DataFrame(rows, columns=columns).sort_values("elo", ascending=False).reset_index(drop=True)
    table.insert(0, "rank", range(1, len(table) + 1))
    table["scoring_version"] = version.name
    table["interval_method"] = interval.method
    table["reps"] = interval.reps if interval.given else None
    table["separability"] = interval.separability
    table["separability_se"] = interval.separability_se
    table["separability_pairs"] = interval.pairs
    return table


def _rounded(x: float | None) -> float | None:
    """As the ratings are stored: 2 decimals (None stays None)."""
    return None if x is None or not math.isfinite(x) else round(x, 2)


def interval_caption(table: pd.DataFrame) -> str:
    """What the standings' interval is, in one line per judge (the ``judge`` column's order) or one line: the
    method, the Monte-Carlo error of its ends, separability, the models without one and why; or, below the small-n
    rule, why there is none. Read from the columns :func:`standings` writes."""
    if "judge" not in table or not len(table):
        return _caption_line(table)
    return "\n".join(f"{judge}: {_caption_line(part)}" for judge, part in table.groupby("judge", sort=False))


def _caption_line(table: pd.DataFrame) -> str:
    if not len(table):
        return "ci_low-ci_high: no models"
    row = table.iloc[0]
    if row["reps"] is None or row["reps"] != row["reps"]:  # None or NaN: no interval, and the reason
        return f"ci_low-ci_high: {row['interval_method']}; sigma: TrueSkill's, as upstream reports it"
    se = table["ci_mc_se"].dropna()
    worst = table.loc[se.idxmax()] if len(se) else None
    mc = (
        f"; Monte-Carlo error of the ends ({MC_BATCHES} batches of the resamples): SE up to {worst['ci_mc_se']:.2g} "
        f"points ({worst['model']})"
        if worst is not None
        else ""
    )
    fixed = " (the anchors left out: their normalised ratings are fixed, their intervals points)"
    anchors = fixed if table["elo_norm"].notna().any() else ""
    pairs = int(row["separability_pairs"])
    sep = (
        f"; separability {row['separability']:.2f} (Monte-Carlo SE {row['separability_se']:.2g}): the share of the "
        f"{pairs} pairs of models whose intervals do not overlap{anchors}"
        if pairs
        else "; separability: fewer than two models with an interval"
    )
    bare = table[table["ci_low"].isna() & (table["scenarios"] < SMALL_N)]
    few = (
        f"; no interval for {', '.join(str(m) for m in bare['model'])}: rated on fewer than {SMALL_N} scenarios"
        if len(bare)
        else ""
    )
    return (
        f"ci_low-ci_high: {row['interval_method']} (percentile; the scenarios resampled with all their comparisons, "
        f"the window kept on the same ladder){mc}{sep}{few}; sigma: TrueSkill's, as upstream reports it, not the "
        "interval"
    )
