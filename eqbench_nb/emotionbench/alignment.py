"""Alignment with humans: THIS PROJECT'S analysis, not the paper's (the paper compares each model's verdicts
with the human verdicts, factor by factor; it reports no correlation or error measure).

For a model with a default level and an evoked level per factor (PA and NA, each 10-50), set beside the
1,266 people's before and after levels of the same situations (:mod:`.humans`):

- change: the model's evoked minus default, beside the human paired change (after minus before);
- sign agreement: the share of factors where the model's change has the human change's sign;
- correlation (Pearson r) and mean absolute error of the evoked levels against the human after-levels across
  the factors, and the default's absolute error against the human before-level (overall).

Intervals are percentile bootstraps over the factors (2,000 resamples, the same resamples for every measure
of a model): they say how much the measure depends on which of the 36 factors were asked, not how noisy the
model's answers were (the leaderboard gives no spread). The factor -> human label map is inferred (see
:mod:`.items`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..analysis.stats import DEFAULT_REPS, bootstrap_indices, percentile_interval
from .humans import Norm
from .scoring import SUBSCALES

if TYPE_CHECKING:
    import pandas as pd

METHOD = "percentile bootstrap over factors, 2,000 resamples"
Levels = Mapping[str, Mapping[str, float]]  # factor key (or "General") -> {PA, NA}


@dataclass(frozen=True)
class Measure:
    value: float
    low: float
    high: float
    n: int  # factors


def _pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row-wise Pearson r of two (reps, n) arrays (NaN where either row is constant)."""
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    den = np.sqrt((xc**2).sum(axis=-1) * (yc**2).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (xc * yc).sum(axis=-1) / den, np.nan)


def _measure(point: float, samples: np.ndarray, n: int) -> Measure:
    finite = samples[np.isfinite(samples)]
    if not finite.size:
        return Measure(point, math.nan, math.nan, n)
    lo, hi = percentile_interval(finite)
    return Measure(point, float(lo), float(hi), n)


def alignment_measures(
    levels: Levels, human: Mapping[str, Norm], reps: int = DEFAULT_REPS, seed: int = 0
) -> dict[str, Measure]:
    """The measures above for one model, keys ``{pa,na}_{sign_agreement,r,mae}`` and ``{pa,na}_default_error``.

    ``levels`` holds ``"General"`` (the default) and factor keys; factors without a human norm are skipped.
    """
    factors = [f for f in levels if f != "General" and f in human]
    n = len(factors)
    idx = bootstrap_indices(n, reps, seed)
    out: dict[str, Measure] = {}
    for scale in SUBSCALES:
        tag = "pa" if scale == SUBSCALES[0] else "na"
        model = np.array([levels[f][scale] for f in factors])
        after = np.array([human[f].after[scale] for f in factors])
        model_change = model - levels["General"][scale]
        human_change = np.array([human[f].change[scale] for f in factors])
        agree = (np.sign(model_change) == np.sign(human_change)).astype(float)
        err = np.abs(model - after)
        out[f"{tag}_sign_agreement"] = _measure(float(agree.mean()), agree[idx].mean(axis=1), n)
        out[f"{tag}_mae"] = _measure(float(err.mean()), err[idx].mean(axis=1), n)
        out[f"{tag}_r"] = _measure(float(_pearson(model, after)), _pearson(model[idx], after[idx]), n)
        default_error = abs(levels["General"][scale] - human["Overall"].before[scale])
        out[f"{tag}_default_error"] = Measure(default_error, math.nan, math.nan, 1)
    return out


def leaderboard_alignment(
    board: Mapping[str, Levels], human: Mapping[str, Norm], reps: int = DEFAULT_REPS
) -> list[dict[str, float | str | int]]:
    """One row per leaderboard model: each measure with its interval (columns ``<measure>``, ``_low``, ``_high``)."""
    rows: list[dict[str, float | str | int]] = []
    for model, levels in board.items():
        row: dict[str, float | str | int] = {"model": model}
        measures = alignment_measures(levels, human, reps)
        row["n_factors"] = next(iter(measures.values())).n
        for key, m in measures.items():
            row[key] = m.value
            if not math.isnan(m.low):
                row[f"{key}_low"], row[f"{key}_high"] = m.low, m.high
        row["default_pa"] = levels["General"][SUBSCALES[0]]
        row["default_na"] = levels["General"][SUBSCALES[1]]
        rows.append(row)
    return rows


@dataclass(frozen=True)
class FactorChange:
    factor: str
    model_change: float
    model_low: float  # 95 % Welch t interval of evoked minus default (over the model's responses)
    model_high: float
    human_change: float
    human_low: float  # 95 % paired t interval (over participants)
    human_high: float
    n_model: int
    n_human: int


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


def factor_changes(scored: list, scale: str, human: Mapping[str, Norm]) -> list[FactorChange]:
    """Per factor, a model's change (from its own responses, :class:`.scoring.Scored`) beside the human change."""
    default = [s.scores[scale] for s in scored if s.situation == "General"]
    groups: dict[str, list[float]] = {}
    for s in scored:
        if s.situation != "General":
            groups.setdefault(s.factor, []).append(s.scores[scale])
    out = []
    for factor, values in groups.items():
        if factor not in human or not default:
            continue
        d, lo, hi = welch_interval(values, default)
        h = human[factor]
        out.append(
            FactorChange(
                factor, d, lo, hi, h.change[scale], h.change_ci[scale][0], h.change_ci[scale][1], len(values), h.n
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


def side_by_side(alignment_rows: list[dict], reps: int = DEFAULT_REPS) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the matched models with their EQ-Bench v2 score and alignment measures; per measure, Pearson and
    Spearman r against EQ-Bench with percentile bootstrap intervals over models, and n)."""
    import pandas as pd

    from ..analysis.published import load_table
    from ..analysis.stats import correlation_summary

    names = name_matches()
    names = names[names["eqbench_model"] != ""]
    eq = load_table("benchmarks_joined")[["model", "eqbench_v2"]].rename(columns={"model": "eqbench_model"})
    align = pd.DataFrame(alignment_rows).rename(columns={"model": "emotionbench_model"})
    joined = names.merge(eq, on="eqbench_model", how="left").merge(align, on="emotionbench_model", how="inner")
    joined = joined[joined["eqbench_v2"].notna()].reset_index(drop=True)
    rows = []
    for measure in SIDE_BY_SIDE_MEASURES:
        s = correlation_summary(joined["eqbench_v2"].to_numpy(float), joined[measure].to_numpy(float), reps=reps)
        rows.append({"measure": measure, **s})
    return joined, pd.DataFrame(rows)


def correlation_without(joined: pd.DataFrame, measure: str = "na_r", reps: int = DEFAULT_REPS) -> dict:
    """Pearson and Spearman r of EQ-Bench v2 against ``measure`` over the rows given (e.g. some models left out)."""
    from ..analysis.stats import correlation_summary

    return correlation_summary(joined["eqbench_v2"].to_numpy(float), joined[measure].to_numpy(float), reps=reps)
