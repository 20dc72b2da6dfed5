"""EmotionBench inference at the unit that was sampled: THIS PROJECT'S analysis, beside the paper's test.

The paper's test (:func:`.scoring.compare`, faithful to CUHK-ARISE/EmotionBench @ 48f6e1b) compares a factor's
50 evoked responses with the model's 50 default ones as if all 100 were independent. They are not: a factor's
responses are 5 situations x 10 repeats, and the repeats of one situation resemble each other far more than
responses to different situations (the within-factor intraclass correlation, :func:`situation_icc`, is 0.4–0.7
for most models). A verdict about *the factor* (situations like these, not these five alone) rests on 5
situations, not on 50 responses: the variance of the factor mean is about ``1 + (m - 1) ICC`` times what the
paper's test assumes (the design effect, m = 10 repeats).

:func:`clustered_compare` is the test at that unit: each situation's mean is one observation, and the evoked
mean's standard error comes from the spread of the situation means (t with Welch–Satterthwaite degrees of
freedom against the default's responses, which are independent repeats of one prompt). The same function
gives the humans' change per factor from their situation means (each participant imagined one situation).
:func:`factor_verdicts` sets both tests side by side for all 36 factors x 2 sub-scales, with the count of
verdicts and a Holm correction over those 72 tests (at α = 0.01, 72 independent tests give about 0.7 false
verdicts per model by chance).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .scoring import ALPHA, DOWN, SAME, SUBSCALES, UP, Scored, compare

#: Repeats of one situation in the paper's runs (and of this project's default settings).
REPEATS_PER_SITUATION = 10


def icc_oneway(groups: Sequence[Sequence[float]]) -> float:
    """One-way random-effects ICC(1) of values in groups (unequal sizes: the usual n0 correction); NaN when the
    groups have no spread at all."""
    import numpy as np  # here, as scipy below: emotionbench.summary, which the registry imports, imports this module

    arrays = [np.asarray(g, float) for g in groups if len(g)]
    k = len(arrays)
    big_n = sum(len(a) for a in arrays)
    if k < 2 or big_n <= k:
        return math.nan
    grand = np.concatenate(arrays).mean()
    n0 = (big_n - sum(len(a) ** 2 for a in arrays) / big_n) / (k - 1)
    msb = sum(len(a) * (a.mean() - grand) ** 2 for a in arrays) / (k - 1)
    msw = sum(((a - a.mean()) ** 2).sum() for a in arrays) / (big_n - k)
    den = msb + (n0 - 1) * msw
    return float((msb - msw) / den) if den > 0 else math.nan


def by_situation(scored: Sequence[Scored], scale: str) -> dict[str, dict[str, list[float]]]:
    """factor -> situation -> that situation's scores on ``scale`` (the default, "General", left out)."""
    out: dict[str, dict[str, list[float]]] = {}
    for s in scored:
        if s.situation != "General":
            out.setdefault(s.factor, {}).setdefault(s.situation, []).append(s.scores[scale])
    return out


def situation_icc(scored: Sequence[Scored], scale: str) -> float:
    """The median over factors of the within-factor ICC(1) of ``scale``, situations as groups."""
    values = [icc_oneway(list(sits.values())) for sits in by_situation(scored, scale).values()]
    finite = [v for v in values if math.isfinite(v)]
    return float(statistics.median(finite)) if finite else math.nan


def design_effect(icc: float, repeats: int = REPEATS_PER_SITUATION) -> float:
    """How many times larger the variance of a factor mean is than independent responses would give."""
    return 1.0 + (repeats - 1) * icc


@dataclass(frozen=True)
class ClusteredComparison:
    """Evoked minus default at the situation level: the difference, its t interval and test, and the units."""

    difference: float
    low: float
    high: float
    t_value: float
    df: float
    p_value: float
    verdict: str  # ↑, ↓ or − at the test's α
    n_situations: int
    n_default: int


def clustered_compare(
    situations: Mapping[str, Sequence[float]],
    default: Sequence[float] | None = None,
    alpha: float = ALPHA,
    level: float = 0.95,
) -> ClusteredComparison | None:
    """Mean of the situation means minus the mean of ``default``, tested with the situations as the units.

    Each situation contributes its mean (its repeats are not independent evidence about the factor); the
    evoked side's variance is the variance of those means over their number, the default side's that of its
    responses over theirs (Welch–Satterthwaite degrees of freedom). Without ``default`` (or with a default that
    does not vary, such as gpt-4's NA at the scale's floor) it is a one-sample t on the situation means.
    ``verdict`` is ↑ / ↓ when the two-sided p is at most ``alpha``, − otherwise; ``low`` / ``high`` is the
    ``level`` interval. None with fewer than 2 situations.
    """
    from scipy import stats

    means = [statistics.fmean(v) for v in situations.values() if len(v)]
    k = len(means)
    if k < 2:
        return None
    d = list(default or [])
    m_def = statistics.fmean(d) if d else 0.0
    va = statistics.variance(means) / k
    vb = statistics.variance(d) / len(d) if len(d) >= 2 else 0.0
    se = math.sqrt(va + vb)
    diff = statistics.fmean(means) - m_def
    if se == 0:
        return ClusteredComparison(diff, diff, diff, math.inf, k - 1.0, 0.0, UP if diff > 0 else DOWN, k, len(d))
    df = (va + vb) ** 2 / (va**2 / (k - 1) + (vb**2 / (len(d) - 1) if vb > 0 else 0.0))
    t = diff / se
    p = float(2 * stats.t.sf(abs(t), df))
    half = float(stats.t.ppf(0.5 + level / 2, df)) * se
    verdict = (UP if t > 0 else DOWN) if p <= alpha else SAME
    return ClusteredComparison(diff, diff - half, diff + half, t, df, p, verdict, k, len(d))


def holm_reject(p_values: Sequence[float], alpha: float = ALPHA) -> list[bool]:
    """Holm's step-down correction: which of ``p_values`` are rejected with the family-wise error at ``alpha``."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    reject = [False] * len(p_values)
    m = len(p_values)
    for rank, i in enumerate(order):
        if p_values[i] > alpha / (m - rank):
            break
        reject[i] = True
    return reject


@dataclass(frozen=True)
class FactorVerdicts:
    """One model's factor verdicts under the paper's test and the situation-clustered one."""

    model: str
    icc: dict[str, float]  # per sub-scale: median within-factor ICC(1)
    rows: list[dict]  # factor, scale, paper verdict, paper p, clustered verdict, clustered p, Holm verdict
    tests: int

    def count(self, column: str) -> int:
        """How many of the tests give a ↑ or ↓ under ``column`` ("paper", "clustered" or "holm")."""
        return sum(r[column] in (UP, DOWN) for r in self.rows)


def factor_verdicts(model: str, scored: Sequence[Scored], alpha: float = ALPHA) -> FactorVerdicts:
    """Every factor x sub-scale of one model's responses under the paper's test and the clustered test, and the
    clustered verdicts again after Holm's correction over all of them."""
    default = {s: [x.scores[s] for x in scored if x.situation == "General"] for s in SUBSCALES}
    rows = []
    for scale in SUBSCALES:
        for factor, sits in by_situation(scored, scale).items():
            flat = [v for vs in sits.values() for v in vs]
            paper = compare(flat, default[scale], alpha)
            clustered = clustered_compare(sits, default[scale], alpha)
            if paper is None or clustered is None:
                continue
            rows.append(
                {
                    "factor": factor,
                    "scale": scale,
                    "paper": paper.verdict,
                    "paper_p": paper.p_value,
                    "clustered": clustered.verdict,
                    "clustered_p": clustered.p_value,
                    "difference": clustered.difference,
                }
            )
    reject = holm_reject([float(r["clustered_p"]) for r in rows], alpha)  # type: ignore[arg-type]
    for r, rej in zip(rows, reject):
        r["holm"] = r["clustered"] if rej else SAME
    icc = {s: situation_icc(scored, s) for s in SUBSCALES}
    return FactorVerdicts(model, icc, rows, len(rows))


__all__ = [
    "REPEATS_PER_SITUATION",
    "ClusteredComparison",
    "FactorVerdicts",
    "by_situation",
    "clustered_compare",
    "design_effect",
    "factor_verdicts",
    "holm_reject",
    "icc_oneway",
    "situation_icc",
]
