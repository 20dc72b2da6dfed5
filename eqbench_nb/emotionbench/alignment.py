"""Alignment with humans: THIS PROJECT'S analysis, not the paper's (the paper compares each model's verdicts
with the human verdicts, factor by factor; it reports no correlation or error measure).

For a model with a default level and an evoked level per factor (PA and NA, each 10-50), set beside the
1,266 people's before and after levels of the same situations (:mod:`.humans`):

- change: the model's evoked minus default, beside the human paired change (after minus before);
- sign agreement: the share of factors where the model's change has the human change's sign;
- correlation (Pearson r) and mean absolute error of the evoked levels against the human after-levels across
  the factors, and the default's absolute error against the human before-level (overall).

Intervals are percentile bootstraps over the factors, resampled within each of the 8 emotions (the factors are
nested in emotions; 2,000 resamples, the same resamples for every measure and every model): they say how much
the measure depends on which factors were asked, not how noisy the model's answers were (the leaderboard gives
no spread). The human side has sampling error of its own (16–39 people per factor): :func:`human_reliability`
estimates the reliability of the human factor means, whose square root is the largest r a model could reach
against them, and every r is also given disattenuated (r / that ceiling), computed in every resample. The
factor -> human label map is inferred (see :mod:`.items`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..analysis.stats import DEFAULT_REPS, percentile_interval, refuse_small_percentile, rowwise_pearson
from .humans import Norm
from .scoring import SUBSCALES

if TYPE_CHECKING:
    import pandas as pd

METHOD = "percentile bootstrap over factors (resampled within each emotion), 2,000 resamples"
Levels = Mapping[str, Mapping[str, float]]  # factor key (or "General") -> {PA, NA}


@dataclass(frozen=True)
class Measure:
    value: float
    low: float
    high: float
    n: int  # factors
    samples: np.ndarray | None = field(default=None, repr=False, compare=False)  # the resampled values


def _measure(point: float, samples: np.ndarray, n: int) -> Measure:
    finite = samples[np.isfinite(samples)]
    if not finite.size:
        return Measure(point, math.nan, math.nan, n, samples)
    lo, hi = percentile_interval(finite)
    return Measure(point, float(lo), float(hi), n, samples)


def stratified_indices(strata: list[str], reps: int = DEFAULT_REPS, seed: int = 0) -> np.ndarray:
    """``(reps, n)`` resample indices drawn with replacement *within* each stratum (each keeps its size)."""
    labels = np.asarray(strata)
    rng = np.random.default_rng(seed)
    idx = np.empty((reps, len(labels)), dtype=int)
    for s in dict.fromkeys(strata):
        pos = np.flatnonzero(labels == s)
        idx[:, pos] = pos[rng.integers(0, len(pos), size=(reps, len(pos)))]
    return idx


def _reliability(means: np.ndarray, se2: np.ndarray) -> np.ndarray:
    """Reliability of group means along the last axis: 1 - mean(SE²) / var(means) (ddof 1)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return 1.0 - se2.mean(axis=-1) / means.var(axis=-1, ddof=1)


def human_reliability(human: Mapping[str, Norm], scale: str, factors: list[str] | None = None) -> float:
    """Reliability of the human after-level means across ``factors`` (default: every factor): the share of their
    variance that is not the sampling error of 16–39 people per factor. Its square root is the largest Pearson r
    any model could reach against these means."""
    factors = factors or [k for k in human if "-" in k]
    means = np.array([human[f].after[scale] for f in factors])
    se2 = np.array([human[f].sd_after[scale] ** 2 / human[f].n for f in factors])
    return float(_reliability(means, se2))


def alignment_measures(
    levels: Levels, human: Mapping[str, Norm], reps: int = DEFAULT_REPS, seed: int = 0, interval: str | None = None
) -> dict[str, Measure]:
    """The measures above for one model, keys ``{pa,na}_{sign_agreement,r,r_disattenuated,r_ceiling,mae}`` and
    ``{pa,na}_default_error``.

    ``levels`` holds ``"General"`` (the default) and factor keys; factors without a human norm are skipped.
    ``r_ceiling`` is the square root of the human means' reliability over these factors, the largest r a model
    could reach; ``r_disattenuated`` is r divided by it, both recomputed in every resample. The intervals resample
    the factors: below :data:`~eqbench_nb.analysis.stats.SMALL_N` factors they are refused unless
    ``interval="percentile"`` is named.
    """
    factors = [f for f in levels if f != "General" and f in human]
    n = len(factors)
    refuse_small_percentile(n, interval, "alignment_measures", "more factors")
    idx = stratified_indices([f.split("-")[0] for f in factors], reps, seed)
    out: dict[str, Measure] = {}
    for scale in SUBSCALES:
        tag = "pa" if scale == SUBSCALES[0] else "na"
        model = np.array([levels[f][scale] for f in factors])
        after = np.array([human[f].after[scale] for f in factors])
        se2 = np.array([human[f].sd_after[scale] ** 2 / human[f].n for f in factors])
        model_change = model - levels["General"][scale]
        human_change = np.array([human[f].change[scale] for f in factors])
        agree = (np.sign(model_change) == np.sign(human_change)).astype(float)
        err = np.abs(model - after)
        r, r_boot = float(rowwise_pearson(model, after)), rowwise_pearson(model[idx], after[idx])
        with np.errstate(invalid="ignore"):  # a resample whose means vary less than their noise has no ceiling
            ceiling, ceiling_boot = np.sqrt(_reliability(after, se2)), np.sqrt(_reliability(after[idx], se2[idx]))
        out[f"{tag}_sign_agreement"] = _measure(float(agree.mean()), agree[idx].mean(axis=1), n)
        out[f"{tag}_mae"] = _measure(float(err.mean()), err[idx].mean(axis=1), n)
        out[f"{tag}_r"] = _measure(r, r_boot, n)
        out[f"{tag}_r_ceiling"] = _measure(float(ceiling), ceiling_boot, n)
        out[f"{tag}_r_disattenuated"] = _measure(float(r / ceiling), r_boot / ceiling_boot, n)
        default_error = abs(levels["General"][scale] - human["Overall"].before[scale])
        out[f"{tag}_default_error"] = Measure(default_error, math.nan, math.nan, 1)
    return out


def sign_agreement_null(human: Mapping[str, Norm], scale: str) -> float:
    """Sign agreement of the constant answer that moves the way most people move in every factor: the share of
    factors whose human change has the majority sign. At 1.00 (people's NA rises in every factor) no model can
    beat it, and sign agreement cannot tell models apart on that sub-scale."""
    signs = np.sign([human[k].change[scale] for k in human if "-" in k])
    return float(max((signs > 0).mean(), (signs < 0).mean()))


def leaderboard_alignment(
    board: Mapping[str, Levels], human: Mapping[str, Norm], reps: int = DEFAULT_REPS
) -> list[dict[str, float | str | int]]:
    """One row per leaderboard model: each measure with its interval (columns ``<measure>``, ``_low``, ``_high``)."""
    rows: list[dict[str, float | str | int]] = []
    samples: dict[str, list[np.ndarray]] = {m: [] for m in RANKED_MEASURES}
    for model, levels in board.items():
        row: dict[str, float | str | int] = {"model": model}
        measures = alignment_measures(levels, human, reps)
        row["n_factors"] = next(iter(measures.values())).n
        for key, m in measures.items():
            row[key] = m.value
            if not math.isnan(m.low):
                row[f"{key}_low"], row[f"{key}_high"] = m.low, m.high
        for key in RANKED_MEASURES:
            samples[key].append(measures[key].samples)  # type: ignore[arg-type]
        row["default_pa"] = levels["General"][SUBSCALES[0]]
        row["default_na"] = levels["General"][SUBSCALES[1]]
        rows.append(row)
    same_factors = len({r["n_factors"] for r in rows}) == 1
    for key, per_model in samples.items():
        if not same_factors:  # the resamples are paired across models only when every model has every factor
            continue
        higher_is_better = not key.endswith("mae")
        boot = np.column_stack(per_model)
        ranks = _ranks(-boot if higher_is_better else boot)
        lo, hi = percentile_interval(ranks, axis=0)
        values = np.array([[float(r[key]) for r in rows]])
        point = _ranks(-values if higher_is_better else values)[0]
        for row, p, a, b in zip(rows, point, lo, hi):
            row[f"{key}_rank"], row[f"{key}_rank_low"], row[f"{key}_rank_high"] = float(p), float(a), float(b)
    return rows


#: Measures whose rank among the leaderboard models gets an interval (the same factor resamples for every model).
RANKED_MEASURES = ("pa_r", "na_r", "na_mae", "pa_mae")


def _ranks(x: np.ndarray) -> np.ndarray:
    """Ranks along the last axis, 1 = smallest, ties averaged."""
    from scipy.stats import rankdata

    return rankdata(x, axis=-1)


@dataclass(frozen=True)
class FactorChange:
    factor: str
    model_change: float
    model_low: float  # 95 % t interval of evoked minus default, the situations as the units (clustered)
    model_high: float
    human_change: float
    human_low: float  # 95 % t interval of the paired change, the situations as the units (clustered)
    human_high: float
    n_model: int  # the model's responses
    n_human: int  # participants
    n_situations: int
    model_floor: float  # the lowest change the model could show: the scale's minimum minus its default mean


def welch_interval(a: list[float], b: list[float], level: float = 0.95) -> tuple[float, float, float]:
    """Mean of a minus mean of b with its Welch t interval (over the responses); NaN bounds for n < 2."""
    from scipy import stats

    d = statistics.fmean(a) - statistics.fmean(b)
    if len(a) < 2 or len(b) < 2:
        return d, math.nan, math.nan
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    se = math.sqrt(va + vb)
    if se == 0:
        return d, d, d
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    half = float(stats.t.ppf(0.5 + level / 2, df)) * se
    return d, d - half, d + half


def factor_changes(
    scored: list, scale: str, human: Mapping[str, Norm], people: list | None = None, scale_min: float = 10.0
) -> list[FactorChange]:
    """Per factor, a model's change (from its own responses, :class:`.scoring.Scored`) beside the human change,
    both with intervals whose units are the factor's situations (:func:`.clustered.clustered_compare`): the
    model's repeats of one situation and the people who imagined one situation are not independent evidence about
    the factor. ``people`` are the participants (:func:`.humans.load_participants`; default: all of them);
    ``scale_min`` is the sub-scale's lowest score (10 for PANAS: ten items rated at least 1), which bounds how far
    the model's change can go below 0."""
    from .clustered import by_situation, clustered_compare
    from .humans import load_participants

    people = load_participants() if people is None else people
    default = [s.scores[scale] for s in scored if s.situation == "General"]
    human_sits: dict[str, dict[str, list[float]]] = {}
    for p in people:
        human_sits.setdefault(p.factor, {}).setdefault(p.situation, []).append(p.change(scale))
    out = []
    for factor, sits in by_situation(scored, scale).items():
        if factor not in human or not default:
            continue
        model = clustered_compare(sits, default)
        people_side = clustered_compare(human_sits.get(factor, {}))
        if model is None or people_side is None:
            continue
        h = human[factor]
        out.append(
            FactorChange(
                factor,
                model.difference,
                model.low,
                model.high,
                h.change[scale],
                people_side.low,
                people_side.high,
                sum(len(v) for v in sits.values()),
                h.n,
                model.n_situations,
                scale_min - statistics.fmean(default),
            )
        )
    return out


NAMES_TABLE = "emotionbench_eqbench_names.csv"
#: The alignment measures set beside EQ-Bench (higher is better for r and agreement, lower for errors).
SIDE_BY_SIDE_MEASURES = ("pa_r", "na_r", "pa_mae", "na_mae", "pa_default_error", "na_default_error")


def name_matches() -> pd.DataFrame:
    """The committed name-match table (EmotionBench leaderboard model -> EQ-Bench model, with a source per row)."""
    import pandas as pd

    from ..paths import tables_dir

    return pd.read_csv(tables_dir() / NAMES_TABLE, keep_default_na=False)


def side_by_side(
    alignment_rows: list[dict], reps: int = DEFAULT_REPS, *, lineages: object = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the matched models with their EQ-Bench v2 score, alignment measures and ``lineage``; per measure, Pearson and
    Spearman r against EQ-Bench with the intervals :func:`~eqbench_nb.analysis.stats.correlation_summary` gives with
    the models' lineages as the units, ``n`` and ``n_clusters``). ``lineages`` maps an EQ-Bench model to its lineage
    (:func:`~eqbench_nb.eqbench.study.published.lineage_map`); refused without it
    (:func:`~eqbench_nb.analysis.stats.lineage_units`)."""
    import pandas as pd

    from ..analysis.stats import correlation_summary, lineage_units
    from ..eqbench.study.published import load_table

    names = name_matches()
    names = names[names["eqbench_model"] != ""]
    eq = load_table("benchmarks_joined")[["model", "eqbench_v2"]].rename(columns={"model": "eqbench_model"})
    align = pd.DataFrame(alignment_rows).rename(columns={"model": "emotionbench_model"})
    joined = names.merge(eq, on="eqbench_model", how="left").merge(align, on="emotionbench_model", how="inner")
    joined = joined[joined["eqbench_v2"].notna()].reset_index(drop=True)
    joined["lineage"] = lineage_units(joined["eqbench_model"], lineages, "side_by_side")
    rows = []
    for measure in SIDE_BY_SIDE_MEASURES:
        s = correlation_summary(joined["eqbench_v2"].to_numpy(float), joined[measure].to_numpy(float), reps=reps,
                                clusters=joined["lineage"].to_numpy(), unit="lineages")  # fmt: skip
        rows.append({"measure": measure, **s})
    return joined, pd.DataFrame(rows)


def correlation_without(joined: pd.DataFrame, measure: str = "na_r", reps: int = DEFAULT_REPS) -> dict:
    """Pearson and Spearman r of EQ-Bench v2 against ``measure`` over the rows given (e.g. some models left out), the
    rows' ``lineage`` (from :func:`side_by_side`) as the units."""
    from ..analysis.stats import correlation_summary

    return correlation_summary(joined["eqbench_v2"].to_numpy(float), joined[measure].to_numpy(float), reps=reps,
                               clusters=joined["lineage"].to_numpy(), unit="lineages")  # fmt: skip
