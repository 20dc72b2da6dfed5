"""The study's file read as three arms of human ratings, and its published numbers re-derived.

``data/dataset_and_ratings.csv`` holds, for each of 2,000 prompts, three responses (the ED listener's, GPT-4's
plain, GPT-4's told a definition of empathy), each rated once: 1 = Bad, 2 = Okay, 3 = Good, by one of 200 raters per
arm. Rater k of every arm rated the same 10 prompts, the ones of ``part_no`` k.

Intervals are clustered by **rater**: each rater rated 10 prompts, so the ratings of one rater are not independent.
Because rater k of each arm rated part k, clustering on ``part_no`` clusters by rater in every arm at once and keeps
a prompt's three ratings in one cluster, which makes a difference between arms paired by prompt as well.

The papers' own significance tests could not be read here (only their abstracts were reachable), so the per-emotion
and per-sentiment comparisons use a stated test: two-sided Mann-Whitney U between an arm's ratings and the human
arm's (the between-groups design: different raters), with Holm and Benjamini-Hochberg adjustment across the 32
emotions, beside the rater-clustered interval of the difference of mean ratings.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ..analysis.clustered import ClusteredEstimate, clustered_mean, clustered_ratio
from ..analysis.multiplicity import benjamini_hochberg, holm
from .files import FILES, RATINGS_FILE

#: The three arms: the file's column suffix → what it is.
ARMS = {
    "human": "human (ED listener)",
    "chatgpt": "GPT-4",
    "chatgpt_empathy": "GPT-4 with a definition of empathy",
}
MODEL_ARMS = ("chatgpt", "chatgpt_empathy")
LABELS = {1: "Bad", 2: "Okay", 3: "Good"}
GOOD = 3
#: Below this many prompts an emotion's comparison is refused (returned as NaN), not tested.
MIN_PROMPTS = 20


def read_table(path: str | None = None) -> pd.DataFrame:
    """The study's file as published (checked against its pinned sha256)."""
    return pd.read_csv(io.BytesIO(FILES.read_bytes(RATINGS_FILE, path)))


def ratings(path: str | None = None, table: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per rated response: ``dialog_id``, ``part_no``, ``emotion``, ``sentiment``, ``arm``, ``rating``
    (1-3), ``rater``, ``propensity`` (the rater's Toronto Empathy Questionnaire total)."""
    t = read_table(path) if table is None else table
    frames = []
    for arm in ARMS:
        one = t[["dialog_id", "part_no", "emotion", "sentiment"]].copy()
        one["arm"] = arm
        one["rating"] = t[f"rating_{arm}"].astype(int)
        one["rater"] = t[f"annotator_{arm}"]
        one["propensity"] = t[f"empathy_propensity_{arm}"].astype(float)
        frames.append(one)
    long = pd.concat(frames, ignore_index=True)
    if not long["rating"].isin(list(LABELS)).all():
        bad = sorted(set(long["rating"]) - set(LABELS))
        raise ValueError(f"rating: values {bad} are not 1 (Bad), 2 (Okay) or 3 (Good)")
    return long


def wide(long: pd.DataFrame) -> pd.DataFrame:
    """Ratings one row per prompt, one column per arm, with ``part_no``, ``emotion`` and ``sentiment``."""
    w = long.pivot(index="dialog_id", columns="arm", values="rating")
    keys = long.drop_duplicates("dialog_id").set_index("dialog_id")[["part_no", "emotion", "sentiment"]]
    return w.join(keys)


def counts(long: pd.DataFrame) -> pd.DataFrame:
    """Bad / Okay / Good counts per arm (rows: arms in :data:`ARMS` order)."""
    c = pd.crosstab(long["arm"], long["rating"]).reindex(index=list(ARMS), columns=list(LABELS), fill_value=0)
    return c.rename(columns=LABELS)


@dataclass(frozen=True)
class ArmSummary:
    """One arm: its Good share and mean rating, rater-clustered."""

    arm: str
    good_share: ClusteredEstimate
    mean_rating: ClusteredEstimate


def arm_summaries(long: pd.DataFrame) -> dict[str, ArmSummary]:
    out = {}
    for arm in ARMS:
        one = long[long["arm"] == arm]
        out[arm] = ArmSummary(
            arm,
            clustered_mean(one["rating"] == GOOD, one["part_no"]),
            clustered_mean(one["rating"], one["part_no"]),
        )
    return out


def relative_increase(w: pd.DataFrame, arm: str, what: str = "good") -> ClusteredEstimate:
    """``(X_arm − X_human) / X_human`` over the prompts of ``w`` (:func:`wide`), X the Good count (``good``, the
    later paper's "≈31 % more Good") or the summed rating (``mean``, the earlier paper's "≈10 %" mean-rating gain),
    with a rater-clustered (``part_no``) delta-method interval, paired by prompt."""
    if arm not in MODEL_ARMS:
        raise ValueError(f"arm: {arm!r} is not one of {MODEL_ARMS}")
    if what == "good":
        return clustered_ratio(w[arm] == GOOD, w["human"] == GOOD, w["part_no"])
    if what == "mean":
        return clustered_ratio(w[arm], w["human"], w["part_no"])
    raise ValueError(f"what: {what!r} is neither 'good' nor 'mean'")


def group_comparisons(w: pd.DataFrame, by: str, arm: str) -> pd.DataFrame:
    """Per ``by`` group (``sentiment`` or ``emotion``): prompts, the two arms' mean ratings and Good shares, the
    relative mean-rating gain and relative Good increase, the rater-clustered interval of the difference of mean
    ratings, and the two-sided Mann-Whitney U p with Holm and BH adjustment across the groups. Groups with fewer
    than :data:`MIN_PROMPTS` prompts are refused: NaN, ``refused`` set."""
    rows = []
    for group, g in w.groupby(by, sort=True):
        row: dict[str, object] = {by: group, "prompts": len(g)}
        row["mean_human"], row["mean_arm"] = float(g["human"].mean()), float(g[arm].mean())
        row["good_human"], row["good_arm"] = float((g["human"] == GOOD).mean()), float((g[arm] == GOOD).mean())
        row["mean_gain"] = row["mean_arm"] / row["mean_human"] - 1  # type: ignore[operator]
        good_h = (g["human"] == GOOD).sum()
        row["good_increase"] = (g[arm] == GOOD).sum() / good_h - 1 if good_h else math.nan
        row["refused"] = len(g) < MIN_PROMPTS
        if row["refused"]:
            row.update(diff_low=math.nan, diff_high=math.nan, p=math.nan)
        else:
            diff = clustered_mean(g[arm] - g["human"], g["part_no"])
            row.update(diff_low=diff.low, diff_high=diff.high)
            row["p"] = float(stats.mannwhitneyu(g[arm], g["human"], alternative="two-sided").pvalue)
        rows.append(row)
    out = pd.DataFrame(rows)
    out["p_holm"] = holm(out["p"].tolist())
    out["p_bh"] = benjamini_hochberg(out["p"].tolist())
    return out


@dataclass(frozen=True)
class PropensityAlignment:
    """How closely an arm's ratings follow the raters' empathy propensity (TEQ total)."""

    arm: str
    item_r: float  # Pearson r of TEQ and rating over the arm's 2,000 ratings
    rater_r: float  # Pearson r of TEQ and the rater's mean rating over the arm's 200 raters
    high_minus_low: float  # mean rating of raters at or above the TEQ median minus those below


def propensity_alignment(long: pd.DataFrame) -> dict[str, PropensityAlignment]:
    """The earlier paper's "5 times more closely aligned with high-empathy raters", measured three ways.

    The paper's own computation could not be read here, so the claim is not re-derivable as stated: this returns
    candidate readings, each arm's correlation of rating with the rater's TEQ total at the item and at the rater
    level and the high-minus-low-TEQ difference; the ratio of an arm's value to the human arm's is the
    "times more closely aligned" under that reading."""
    median = float(long.drop_duplicates(["arm", "rater"])["propensity"].median())
    out = {}
    for arm in ARMS:
        one = long[long["arm"] == arm]
        per_rater = one.groupby("rater").agg(p=("propensity", "first"), r=("rating", "mean"))
        high = one["propensity"] >= median
        out[arm] = PropensityAlignment(
            arm,
            float(stats.pearsonr(one["propensity"], one["rating"]).statistic),
            float(stats.pearsonr(per_rater["p"], per_rater["r"]).statistic),
            float(one.loc[high, "rating"].mean() - one.loc[~high, "rating"].mean()),
        )
    return out


def published_numbers(long: pd.DataFrame) -> dict[str, float]:
    """The headline numbers the papers print, re-derived: Good counts per arm, the relative Good increases
    (+31.3 % definition, +28.6 % plain) and the mean-rating gains (≈10 %)."""
    c = counts(long)
    w = wide(long)
    out: dict[str, float] = {f"{arm} {label}": float(c.loc[arm, label]) for arm in ARMS for label in LABELS.values()}
    for arm in MODEL_ARMS:
        out[f"{arm} Good increase"] = relative_increase(w, arm, "good").estimate
        out[f"{arm} mean-rating gain"] = relative_increase(w, arm, "mean").estimate
    return out


#: What people rated the arms by, for a row of ``score`` on the study's file.
RATERS = "people (the study's raters, one per response)"


def arm_rows(long: pd.DataFrame) -> list[dict[str, object]]:
    """The study's file as ``score`` prints it: one row per arm (the three arms of human ratings), with its Bad /
    Okay / Good counts, its Good share and mean rating, and, for the model arms, the relative increase in Good and
    the mean-rating gain over the human arm (:func:`relative_increase`), every interval 95 % and clustered by rater
    (``part_no``)."""
    c, w, summaries = counts(long), wide(long), arm_summaries(long)
    rows: list[dict[str, object]] = []
    for arm, name in ARMS.items():
        s = summaries[arm]
        row: dict[str, object] = {
            "model": name,
            "arm": arm,
            "judge": RATERS,
            "group": "all",
            "prompts": int((long["arm"] == arm).sum()),
            "raters": int(long.loc[long["arm"] == arm, "rater"].nunique()),
            **{label.lower(): int(c.loc[arm, label]) for label in LABELS.values()},
            "good_share": s.good_share.estimate,
            "good_share_low": s.good_share.low,
            "good_share_high": s.good_share.high,
            "mean_rating": s.mean_rating.estimate,
            "mean_rating_low": s.mean_rating.low,
            "mean_rating_high": s.mean_rating.high,
        }
        for what, column in (("good", "rel_good"), ("mean", "rel_mean")):
            r = relative_increase(w, arm, what) if arm in MODEL_ARMS else None
            row[column] = None if r is None else r.estimate
            row[f"{column}_low"] = None if r is None else r.low
            row[f"{column}_high"] = None if r is None else r.high
        rows.append(row)
    return rows


def share_vector(long: pd.DataFrame, arm: str) -> np.ndarray:
    """An arm's Good indicator per prompt, in ``dialog_id`` order (for calibration and PPI)."""
    one = long[long["arm"] == arm].sort_values("dialog_id")
    return (one["rating"].to_numpy() == GOOD).astype(float)


def headlines(long: pd.DataFrame) -> list[str]:
    """The published numbers re-derived, each with its source (intervals: 95 %, clustered by rater)."""
    c = counts(long)
    w = wide(long)
    lines = [
        f"{ARMS[arm]}: Bad {c.loc[arm, 'Bad']}, Okay {c.loc[arm, 'Okay']}, Good {c.loc[arm, 'Good']} "
        "(dataset_and_ratings.csv; PROVENANCE.md: 342/672/986, 156/576/1268, 142/563/1295)"
        for arm in ARMS
    ]
    for arm, paper in (("chatgpt_empathy", "≈31 %, arXiv 2406.05063"), ("chatgpt", "not quoted")):
        g = relative_increase(w, arm, "good")
        lines.append(f"{ARMS[arm]}: Good {g.estimate:+.1%} over people [{g.low:+.1%}, {g.high:+.1%}] (paper: {paper})")
    for arm in MODEL_ARMS:
        m = relative_increase(w, arm, "mean")
        lines.append(
            f"{ARMS[arm]}: mean rating {m.estimate:+.1%} over people [{m.low:+.1%}, {m.high:+.1%}] "
            "(paper: ≈10 %, arXiv 2403.05572)"
        )
    return lines
