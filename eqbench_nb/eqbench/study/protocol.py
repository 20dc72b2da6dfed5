"""Do protocol choices go with different scores? Covariates of the published runs.

Each upstream results file records how its run was made: whether the revision prompt was used
(``revise``), the inference engine (``inference_engine``: a hosted API, text-generation-webui
"ooba", or Hugging Face transformers) and, for transformers runs only, bitsandbytes quantisation
(``bitsandbytes_quant``; ooba runs load quantised files whose format the results do not record).

These are observational comparisons: the choice of protocol went with the choice of model (API
runs are the big commercial models, 8-bit runs small open ones), so a difference between groups
mixes the protocol's effect with the models'. :func:`covariate_effect` therefore also gives the
difference adjusted for a capability measure measured elsewhere (MAGI-Hard by default), and
:func:`covariate_verdict` says which of the two a sentence may claim.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...analysis import stats as _stats

API_ENGINES = frozenset({"openai", "gemini", "mistralai", "anthropic", "cohere"})


def run_protocols(runs: Sequence, scores: pd.Series) -> pd.DataFrame:
    """One row per run: model, score, revise, engine (api / ooba / transformers) and quantisation.

    ``scores`` maps model -> score (e.g. the official convention's). ``quantisation`` is the
    results file's ``bitsandbytes_quant`` for transformers runs ("none", "4bit", "8bit") and
    missing for the others (not recorded).
    """
    rows = []
    for run in runs:
        engine = run.header.inference_engine or ""
        quant = None
        if engine == "transformers" and run.path is not None:
            with open(run.path, encoding="utf-8") as fh:
                quant = json.load(fh).get("bitsandbytes_quant") or "none"
        rows.append(
            {
                "model": run.model,
                "score": float(scores[run.model]),
                "revise": bool(run.revise),
                "engine": "api" if engine in API_ENGINES else engine or "unknown",
                "engine_detail": engine,
                "quantisation": quant,
            }
        )
    return pd.DataFrame(rows)


def _diff_and_slope(y: np.ndarray, g: np.ndarray, z: np.ndarray | None) -> tuple[float, float]:
    """Difference of group means (g = 1 minus g = 0) and, with ``z``, the adjusted difference."""
    raw = float(y[g].mean() - y[~g].mean())
    if z is None:
        return raw, float("nan")
    x = np.column_stack([np.ones_like(y), g.astype(float), z])
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    return raw, float(coef[1])


def _welch_interval(a: np.ndarray, b: np.ndarray, level: float) -> tuple[float, float]:
    """Welch's t interval of mean(a) - mean(b)."""
    from scipy import stats as sps

    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = float(np.sqrt(va + vb))
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1)) if se > 0 else 1.0
    half = float(sps.t.ppf(0.5 + level / 2, df)) * se
    d = float(a.mean() - b.mean())
    return d - half, d + half


def _ols_group_interval(y: np.ndarray, g: np.ndarray, z: np.ndarray, level: float) -> tuple[float, float]:
    """t interval (n - 3 degrees of freedom, classical standard error) of the group coefficient of
    ``y ~ 1 + g + z``."""
    from scipy import stats as sps

    x = np.column_stack([np.ones_like(y), g.astype(float), z])
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    resid = y - x @ coef
    df = len(y) - 3
    cov = (resid @ resid / df) * np.linalg.inv(x.T @ x)
    half = float(sps.t.ppf(0.5 + level / 2, df)) * float(np.sqrt(cov[1, 1]))
    return float(coef[1]) - half, float(coef[1]) + half


def covariate_effect(
    table: pd.DataFrame,
    group: pd.Series,
    adjust: pd.Series | None = None,
    reps: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    interval: str | None = None,
    *,
    lineages: object = None,
) -> dict:
    """Score difference between runs with ``group`` True and False, raw and adjusted, with intervals.

    Raw: difference of the two groups' mean scores. Adjusted: the group coefficient of ``score ~ group +
    adjust`` by least squares over the runs that have ``adjust`` (a capability measure). Intervals: when
    both groups hold at least :data:`~eqbench_nb.analysis.stats.SMALL_N` runs, percentile bootstrap
    resampling runs within each group; when either is smaller (``interval`` None), Welch's t for the raw
    difference and the regression's t interval for the adjusted one, since a percentile bootstrap over a
    handful of runs is too narrow. ``interval="percentile"`` asks for the bootstrap by name. Returns
    estimates, intervals, the n of each group (raw and adjusted) and ``method``.

    Runs of one model, and models of one lineage, are not independent: with ``lineages`` (a map model → lineage,
    :func:`~eqbench_nb.eqbench.study.published.lineage_map`) both intervals are the regression's t interval with a
    lineage-clustered standard error (CR1) and G - 1 degrees of freedom over the G lineages (``n_lineages``).
    Refused without the map (:func:`~eqbench_nb.analysis.stats.lineage_units`); ``lineages=NO_LINEAGES`` keeps the
    runs as the units (for data without one).
    """
    if interval not in (None, "percentile"):
        raise ValueError("interval must be None or 'percentile'")
    g = group.to_numpy(bool)
    y = table["score"].to_numpy(float)
    if lineages is not _stats.NO_LINEAGES:
        units = _stats.lineage_units(table["model"], lineages, "covariate_effect")
        return _clustered_effect(y, g, None if adjust is None else adjust.to_numpy(float), units, level)
    rng = np.random.default_rng(seed)
    idx1, idx0 = np.flatnonzero(g), np.flatnonzero(~g)
    if len(idx1) < 2 or len(idx0) < 2:
        raise ValueError("each group needs at least 2 runs")
    small = min(len(idx1), len(idx0)) < _stats.SMALL_N and interval is None

    def boot(ix1: np.ndarray, ix0: np.ndarray, z: np.ndarray | None, k: int) -> np.ndarray:
        out = np.empty(reps)
        for i in range(reps):
            pick = np.concatenate([rng.choice(ix1, len(ix1)), rng.choice(ix0, len(ix0))])
            est = _diff_and_slope(y[pick], g[pick], None if z is None else z[pick])
            out[i] = est[k]
        return out

    raw, _ = _diff_and_slope(y, g, None)
    if small:
        raw_lo, raw_hi = _welch_interval(y[idx1], y[idx0], level)
    else:
        b_lo, b_hi = _stats.percentile_interval(boot(idx1, idx0, None, 0), level)
        raw_lo, raw_hi = float(b_lo), float(b_hi)
    out = {
        "raw": raw,
        "raw_low": float(raw_lo),
        "raw_high": float(raw_hi),
        "n_true": len(idx1),
        "n_false": len(idx0),
        "adjusted": float("nan"),
        "adjusted_low": float("nan"),
        "adjusted_high": float("nan"),
        "n_adj_true": 0,
        "n_adj_false": 0,
        "method": "Welch t (raw), regression t (adjusted)"
        if small
        else f"percentile bootstrap, runs resampled within each side, {reps:,} resamples",
    }
    if adjust is not None:
        z = adjust.to_numpy(float)
        ok = np.isfinite(z)
        a1, a0 = np.flatnonzero(g & ok), np.flatnonzero(~g & ok)
        out.update(n_adj_true=len(a1), n_adj_false=len(a0))
        if len(a1) >= 3 and len(a0) >= 3:
            keep = np.flatnonzero(ok)
            _, adj = _diff_and_slope(y[keep], g[keep], z[keep])
            if small:
                lo, hi = _ols_group_interval(y[keep], g[keep], z[keep], level)
            else:
                b_lo, b_hi = _stats.percentile_interval(boot(a1, a0, z, 1), level)
                lo, hi = float(b_lo), float(b_hi)
            out.update(adjusted=adj, adjusted_low=float(lo), adjusted_high=float(hi))
    return out


def _cluster_t(x: np.ndarray, y: np.ndarray, units: np.ndarray, level: float) -> tuple[float, float, float, int]:
    """Least squares of ``y`` on ``x``: the coefficient of column 1 with its t interval from the cluster-robust
    (CR1) standard error, G - 1 degrees of freedom over the G ``units``; returns (estimate, low, high, G)."""
    from scipy import stats as sps

    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    resid = y - x @ coef
    codes = pd.Series(units).astype("category").cat.codes.to_numpy()
    k = int(codes.max()) + 1
    scores = np.zeros((k, x.shape[1]))
    np.add.at(scores, codes, x * resid[:, None])
    bread = np.linalg.inv(x.T @ x)
    n, p = x.shape
    factor = k / (k - 1) * (n - 1) / (n - p)
    cov = factor * bread @ (scores.T @ scores) @ bread
    half = float(sps.t.ppf(0.5 + level / 2, k - 1)) * float(np.sqrt(cov[1, 1]))
    return float(coef[1]), float(coef[1]) - half, float(coef[1]) + half, k


def _clustered_effect(y: np.ndarray, g: np.ndarray, z: np.ndarray | None, units: np.ndarray, level: float) -> dict:
    """:func:`covariate_effect` with the lineages as the units (cluster-robust regression t)."""
    if g.sum() < 2 or (~g).sum() < 2:
        raise ValueError("each group needs at least 2 runs")
    ones = np.ones_like(y)
    raw, raw_lo, raw_hi, k = _cluster_t(np.column_stack([ones, g.astype(float)]), y, units, level)
    out = {
        "raw": raw,
        "raw_low": raw_lo,
        "raw_high": raw_hi,
        "n_true": int(g.sum()),
        "n_false": int((~g).sum()),
        "n_lineages": k,
        "n_lineages_true": len(set(units[g])),
        "n_lineages_false": len(set(units[~g])),
        "adjusted": float("nan"),
        "adjusted_low": float("nan"),
        "adjusted_high": float("nan"),
        "n_adj_true": 0,
        "n_adj_false": 0,
        "method": f"regression t, lineage-clustered SE (CR1), {k} lineages, {k - 1} df",
    }
    if z is not None:
        ok = np.isfinite(z)
        n_adj_true, n_adj_false = int((g & ok).sum()), int((~g & ok).sum())
        out.update(n_adj_true=n_adj_true, n_adj_false=n_adj_false)
        if n_adj_true >= 3 and n_adj_false >= 3 and len(set(units[ok])) > 3:
            x = np.column_stack([ones[ok], g[ok].astype(float), z[ok]])
            adj, lo, hi, _ = _cluster_t(x, y[ok], units[ok], level)
            out.update(adjusted=adj, adjusted_low=lo, adjusted_high=hi)
    return out


#: Below this share of the raw difference kept after adjustment, the adjustment is said to have moved the
#: estimate (toward 0); at or above it, the estimate "barely moves" and only the interval can have changed.
KEPT_SHARE = 0.5


def covariate_verdict(effect: dict) -> str:
    """Which sentence a covariate's comparison supports. Null: no score difference between the groups.

    The intervals are judged by :func:`eqbench_nb.analysis.verdicts.interval_verdict`, and an adjusted
    interval that includes 0 is never read as "the models, not the protocol": whether adjustment explains
    the difference is a question about the *estimate*, which the share it keeps (adjusted / raw) answers.

    * ``"persists"``: both intervals exclude 0 (still an association: adjustment removes only what the
      capability measure captures);
    * ``"attenuated"``: the raw interval excludes 0, the adjusted one includes it, and the adjusted estimate
      keeps less than :data:`KEPT_SHARE` of the raw one: compatible with capability explaining much of it,
      still inconclusive;
    * ``"inconclusive after adjustment"``: the raw interval excludes 0, the adjusted one includes it, but the
      adjusted estimate keeps at least :data:`KEPT_SHARE` of the raw one: adjustment barely moves the
      estimate and only the interval widened (fewer runs, one more parameter);
    * ``"adjusted only"``: only the adjusted interval excludes 0;
    * ``"inconclusive"``: neither does (with groups this small, absence of evidence);
    * ``"unadjusted"``: the raw interval excludes 0 and no adjusted estimate exists (too few runs with the
      capability measure), so the capability check cannot be made at all.
    """
    from ...analysis.verdicts import interval_side

    raw = interval_side(effect["raw_low"], effect["raw_high"]) != "includes"
    adj = interval_side(effect["adjusted_low"], effect["adjusted_high"]) != "includes"
    if raw and not np.isfinite(effect["adjusted"]):
        return "unadjusted"
    if raw and adj:
        return "persists"
    if raw:
        return "inconclusive after adjustment" if kept_share(effect) >= KEPT_SHARE else "attenuated"
    return "adjusted only" if adj else "inconclusive"


def kept_share(effect: dict) -> float:
    """The share of the raw difference that the adjusted estimate keeps (adjusted / raw; NaN without one)."""
    raw, adj = effect["raw"], effect["adjusted"]
    return float(adj / raw) if raw != 0 and np.isfinite(adj) else float("nan")
