"""Scoring EmotionBench as the paper does (CUHK-ARISE/EmotionBench @ 48f6e1b, ``utils.py``).

A complete answer's sub-scale scores are sums of its item ratings (PANAS: PA over items 1,3,5,9,10,12,14,16,
17,19, NA over the rest; ``compute_statistics``). Evoked responses are compared with the model's own default
(``hypothesis_testing``): means, sample SDs (each plus 1e-8, so a constant column has a variance) and counts;
a two-sided F-test on the variances (larger over smaller, p = 2 (1 - F cdf)); Student's t-test when its p
exceeds α, else Welch's; the verdict is ↑ or ↓ when the t-test's two-sided p is at most α (by the sign of t)
and − otherwise, printed with the difference of means. α = 0.01. Per factor, per emotion (its factors'
responses pooled) and overall (all evoked responses pooled).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

ALPHA = 0.01
SD_EPSILON = 1e-8
PA, NA = "Positive Affect", "Negative Affect"
SUBSCALES = (PA, NA)
UP, DOWN, SAME = "↑", "↓", "−"


def subscale_scores(
    ratings: Mapping[int, int], categories: Mapping[str, Sequence[int]], mode: str = "SUM"
) -> dict[str, float]:
    """Each sub-scale's score of one complete answer (``compute_mode`` SUM, SUM*2 or AVG, as upstream)."""
    out = {}
    for name, ids in categories.items():
        values = [ratings[i] for i in ids]
        out[name] = float(
            sum(values) * 2 if mode == "SUM*2" else sum(values) if mode == "SUM" else statistics.mean(values)
        )
    return out


@dataclass(frozen=True)
class Comparison:
    """Evoked (1) against default (2) on one sub-scale: upstream's F-test then t-test."""

    mean1: float
    sd1: float
    n1: int
    mean2: float
    sd2: float
    n2: int
    f_value: float
    f_p: float
    equal_var: bool
    t_value: float
    t_df: float
    p_value: float
    verdict: str  # ↑, ↓ or −

    @property
    def difference(self) -> float:
        return self.mean1 - self.mean2

    def cell(self) -> str:
        """The paper's table cell: ``↓ (-12.3)``."""
        return f"{self.verdict} ({self.difference:+.1f})"


def compare(evoked: Sequence[float], default: Sequence[float], alpha: float = ALPHA) -> Comparison | None:
    """Upstream's ``hypothesis_testing`` for one sub-scale; None when either side has fewer than 2 responses."""
    from scipy import stats  # here: the command line imports this module and should start fast

    n1, n2 = len(evoked), len(default)
    if n1 < 2 or n2 < 2:
        return None
    mean1, mean2 = statistics.fmean(evoked), statistics.fmean(default)
    sd1 = statistics.stdev(evoked) + SD_EPSILON
    sd2 = statistics.stdev(default) + SD_EPSILON
    if sd1 > sd2:
        f_value, df1, df2 = sd1**2 / sd2**2, n1 - 1, n2 - 1
    else:
        f_value, df1, df2 = sd2**2 / sd1**2, n2 - 1, n1 - 1
    f_p = float((1 - stats.f.cdf(f_value, df1, df2)) * 2)
    equal_var = f_p > alpha
    if equal_var:
        t_df = float(n1 + n2 - 2)
    else:
        a, b = sd1**2 / n1, sd2**2 / n2
        t_df = (a + b) ** 2 / (a**2 / (n1 - 1) + b**2 / (n2 - 1))
    t_value, p_value = stats.ttest_ind_from_stats(mean1, sd1, n1, mean2, sd2, n2, equal_var=equal_var)
    t_value, p_value = float(t_value), float(p_value)
    if math.isnan(p_value) or p_value > alpha:
        verdict = SAME
    else:
        verdict = UP if t_value > 0 else DOWN
    return Comparison(mean1, sd1, n1, mean2, sd2, n2, f_value, f_p, equal_var, t_value, t_df, p_value, verdict)


@dataclass(frozen=True)
class Scored:
    """One complete response's sub-scale scores, tagged with where it came from."""

    situation: str  # "Anger-0_scenario-0" or "General"
    scores: dict[str, float]

    @property
    def emotion(self) -> str:
        return self.situation.split("-")[0]

    @property
    def factor(self) -> str:
        return self.situation.split("_")[0]


@dataclass(frozen=True)
class TableRow:
    level: str  # "factor", "emotion" or "overall"
    emotion: str
    factor: str  # "Anger-0" for a factor row, "" otherwise
    factor_name: str
    n: int
    means: dict[str, float]
    comparisons: dict[str, Comparison | None]


def paper_table(
    responses: Iterable[Scored], factor_names: Mapping[str, str], alpha: float = ALPHA
) -> tuple[dict[str, float], int, list[TableRow]]:
    """The paper's table: (default means, default n, rows per factor, per emotion and overall), in upstream order."""
    default: list[Scored] = []
    by_factor: dict[str, list[Scored]] = {}
    for r in responses:
        if r.situation == "General":
            default.append(r)
        else:
            by_factor.setdefault(r.factor, []).append(r)

    def row(level: str, emotion: str, factor: str, name: str, group: list[Scored]) -> TableRow:
        means = {s: statistics.fmean(x.scores[s] for x in group) if group else math.nan for s in SUBSCALES}
        comps = {s: compare([x.scores[s] for x in group], [x.scores[s] for x in default], alpha) for s in SUBSCALES}
        return TableRow(level, emotion, factor, name, len(group), means, comps)

    rows: list[TableRow] = []
    everything: list[Scored] = []
    emotions: dict[str, list[str]] = {}
    for factor in factor_names:
        emotions.setdefault(factor.split("-")[0], []).append(factor)
    for emotion, factors in emotions.items():
        pooled: list[Scored] = []
        present = [f for f in factors if f in by_factor]
        if not present:
            continue
        for f in present:
            rows.append(row("factor", emotion, f, factor_names[f], by_factor[f]))
            pooled += by_factor[f]
        rows.append(row("emotion", emotion, "", "Overall", pooled))
        everything += pooled
    rows.append(row("overall", "", "", "Overall", everything))
    default_means = {s: statistics.fmean(x.scores[s] for x in default) if default else math.nan for s in SUBSCALES}
    return default_means, len(default), rows
