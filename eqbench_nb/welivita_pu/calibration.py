"""A judge's ratings of W&P's responses against the people's: calibration to the human scale, whether it transfers
between arms, and the prediction-powered interval's coverage demonstration.

No judge's ratings of these responses are stored yet, so the demonstration runs on a **synthetic stand-in judge**
(:func:`synthetic_judge`): each response's human rating, passed through a stated confusion matrix with a seeded draw.
It shows what the machinery does with an imperfect judge of known quality, not how any real judge behaves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..analysis.ppi import CoverageRow, calibrated_shares, calibration_matrix, coverage_demo, label_shift_shares
from .study import ARMS, GOOD, LABELS

CATEGORIES = tuple(LABELS)
#: The stand-in judge's ``P(judge = column | human = row)``, rows and columns Bad, Okay, Good: right about two times
#: in three, and leaning to Good, as LLM judges are reported to.
STAND_IN_CONFUSION = np.array([[0.55, 0.30, 0.15], [0.15, 0.50, 0.35], [0.05, 0.20, 0.75]])


def synthetic_judge(long: pd.DataFrame, confusion: np.ndarray = STAND_IN_CONFUSION, seed: int = 0) -> pd.Series:
    """A stand-in judge's rating of every response in ``long`` (:func:`~.study.ratings`), drawn from the row of
    ``confusion`` of its human rating, seeded."""
    rng = np.random.default_rng(seed)
    cum = np.cumsum(confusion, axis=1)
    rows = long["rating"].to_numpy() - 1
    draws = (rng.random(len(rows))[:, None] > cum[rows]).sum(axis=1) + 1
    return pd.Series(draws, index=long.index, name="judge")


@dataclass(frozen=True)
class Transfer:
    """Calibrate on one arm, predict another arm's human Good share: prediction, truth, error and its interval
    (rater-clustered bootstrap over ``part_no``), with the judge's raw Good share for comparison."""

    source: str
    target: str
    method: str
    raw: float
    predicted: float
    actual: float
    error: float
    low: float
    high: float


#: The two calibrations: ``human|judge`` moves each judge category to the people's shares seen behind it (it carries
#: the source arm's Good rate with it); ``judge|human`` inverts the judge's confusion given the people's rating
#: (label shift: only the judge's errors are assumed to carry over).
METHODS = ("judge|human", "human|judge")


def _transfer_once(src: pd.DataFrame, dst: pd.DataFrame, method: str) -> tuple[float, float, float]:
    good = CATEGORIES.index(GOOD)
    if method == "human|judge":
        m = calibration_matrix(src["rating"], src["judge"], CATEGORIES)
        predicted = float(calibrated_shares(dst["judge"], m, CATEGORIES)[good])
    else:
        m = calibration_matrix(src["judge"], src["rating"], CATEGORIES)
        predicted = float(label_shift_shares(dst["judge"], m, CATEGORIES)[good])
    return float((dst["judge"] == GOOD).mean()), predicted, float((dst["rating"] == GOOD).mean())


def calibration_transfer(
    long: pd.DataFrame,
    judge: pd.Series,
    source: str,
    target: str,
    method: str = "judge|human",
    reps: int = 500,
    seed: int = 0,
) -> Transfer:
    """Calibrate ``judge`` to people on ``source``'s responses (``method``, :data:`METHODS`), predict ``target``'s
    human Good share."""
    if method not in METHODS:
        raise ValueError(f"method: {method!r} is not one of {METHODS}")
    for arm in (source, target):
        if arm not in ARMS:
            raise ValueError(f"arm: {arm!r} is not one of {list(ARMS)}")
    data = long.assign(judge=judge)
    src, dst = data[data["arm"] == source], data[data["arm"] == target]
    raw, predicted, actual = _transfer_once(src, dst, method)
    parts = np.unique(data["part_no"])
    rng = np.random.default_rng(seed)
    by_src, by_dst = dict(list(src.groupby("part_no"))), dict(list(dst.groupby("part_no")))
    errors = []
    for _ in range(reps):
        pick = rng.choice(parts, size=len(parts), replace=True)
        _, p, a = _transfer_once(pd.concat([by_src[k] for k in pick]), pd.concat([by_dst[k] for k in pick]), method)
        errors.append(p - a)
    low, high = np.percentile(errors, [2.5, 97.5])
    return Transfer(source, target, method, raw, predicted, actual, predicted - actual, float(low), float(high))


def ppi_demonstration(
    long: pd.DataFrame,
    judge: pd.Series,
    arm: str = "human",
    ns: tuple[int, ...] = (50, 100, 200),
    reps: int = 1000,
    seed: int = 0,
) -> list[CoverageRow]:
    """PPI on one arm's 2,000 responses: n human ratings known, the judge's on all, coverage of the full-2,000
    human Good share (:func:`eqbench_nb.analysis.ppi.coverage_demo`, 95 % intervals)."""
    one = long[long["arm"] == arm]
    return coverage_demo(
        (one["rating"] == GOOD).to_numpy(float), (judge[one.index] == GOOD).to_numpy(float), ns, reps, 0.05, seed
    )
