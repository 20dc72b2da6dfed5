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

from . import stats as _stats

API_ENGINES = frozenset({"openai", "gemini", "mistralai", "anthropic", "cohere"})


def run_protocols(runs: Sequence, scores: pd.Series) -> pd.DataFrame:
    """One row per run: model, score, revise, engine (api / ooba / transformers) and quantisation.

    ``scores`` maps model -> score (e.g. the official convention's). ``quantisation`` is the
    results file's ``bitsandbytes_quant`` for transformers runs ("none", "4bit", "8bit") and
    missing for the others (not recorded).
    """
    rows = []
    for run in runs:
        engine = str(run.header.get("inference_engine") or "")
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


def covariate_effect(
    table: pd.DataFrame,
    group: pd.Series,
    adjust: pd.Series | None = None,
    reps: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> dict:
    """Score difference between runs with ``group`` True and False, raw and adjusted, with intervals.

    Raw: difference of the two groups' mean scores, percentile bootstrap resampling runs within
    each group. Adjusted: the group coefficient of ``score ~ group + adjust`` by least squares over
    the runs that have ``adjust`` (a capability measure), bootstrap resampling those runs within
    each group. Returns estimates, intervals, and the n of each group (raw and adjusted).
    """
    g = group.to_numpy(bool)
    y = table["score"].to_numpy(float)
    rng = np.random.default_rng(seed)
    idx1, idx0 = np.flatnonzero(g), np.flatnonzero(~g)
    if len(idx1) < 2 or len(idx0) < 2:
        raise ValueError("each group needs at least 2 runs")

    def boot(ix1: np.ndarray, ix0: np.ndarray, z: np.ndarray | None, k: int) -> np.ndarray:
        out = np.empty(reps)
        for i in range(reps):
            pick = np.concatenate([rng.choice(ix1, len(ix1)), rng.choice(ix0, len(ix0))])
            est = _diff_and_slope(y[pick], g[pick], None if z is None else z[pick])
            out[i] = est[k]
        return out

    raw, _ = _diff_and_slope(y, g, None)
    raw_lo, raw_hi = _stats.percentile_interval(boot(idx1, idx0, None, 0), level)
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
    }
    if adjust is not None:
        z = adjust.to_numpy(float)
        ok = np.isfinite(z)
        a1, a0 = np.flatnonzero(g & ok), np.flatnonzero(~g & ok)
        out.update(n_adj_true=len(a1), n_adj_false=len(a0))
        if len(a1) >= 3 and len(a0) >= 3:
            keep = np.flatnonzero(ok)
            _, adj = _diff_and_slope(y[keep], g[keep], z[keep])
            lo, hi = _stats.percentile_interval(boot(a1, a0, z, 1), level)
            out.update(adjusted=adj, adjusted_low=float(lo), adjusted_high=float(hi))
    return out


def covariate_verdict(effect: dict) -> str:
    """Which sentence a covariate's comparison supports. Null: no score difference between the groups.

    * ``"confounded"``: the raw difference excludes 0 but the capability-adjusted one does not;
    * ``"persists"``: both exclude 0 (still an association: adjustment removes only what the
      capability measure captures);
    * ``"adjusted only"``: only the adjusted difference excludes 0;
    * ``"not detected"``: neither does (absence of evidence with groups this small, not absence);
    * ``"unadjusted"``: the raw difference excludes 0 and no adjusted estimate exists (too few runs
      with the capability measure), so confounding cannot be checked at all.
    """

    def excludes(lo: float, hi: float) -> bool:
        return bool(np.isfinite(lo) and np.isfinite(hi) and (lo > 0 or hi < 0))

    raw = excludes(effect["raw_low"], effect["raw_high"])
    adj = excludes(effect["adjusted_low"], effect["adjusted_high"])
    if raw and not np.isfinite(effect["adjusted"]):
        return "unadjusted"
    if raw and adj:
        return "persists"
    if raw:
        return "confounded"
    return "adjusted only" if adj else "not detected"
