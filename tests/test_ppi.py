"""Prediction-powered intervals against ppi-python, calibration, and the coverage demonstration."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eqbench_nb.analysis.ppi import (
    calibrated_shares,
    calibration_matrix,
    classical_mean_ci,
    coverage_demo,
    label_shift_shares,
    ppi_mean_ci,
)

N_LAB, N_UNLAB = 60, 500
IDX, U = np.arange(N_LAB), np.arange(N_UNLAB)
Y = ((IDX * 7) % 10 < 5).astype(float)
YHAT = np.where((IDX % 6) == 0, 1 - Y, Y)  # a judge wrong on every sixth labelled item
YHAT_U = ((U * 3) % 10 < 6).astype(float)

# ppi_py.ppi_mean_ci (ppi-python 0.2.3) on the inputs above, (low, high). ppi-python is not installed here: it needs
# numba and gdown and downgrades numpy/scipy/pandas, so these were computed once with it (numba's njit stubbed out:
# ppi_mean_ci calls no compiled function) and recorded.
PPI_PY = {
    "tuned, alpha 0.1": ({}, (0.4993772253035529, 0.6638668640338921)),
    "tuned, alpha 0.05": ({"alpha": 0.05}, (0.4836212978366212, 0.6796227915008237)),
    "lam 1": ({"lam": 1.0, "alpha": 0.05}, (0.5217829812317079, 0.7448836854349588)),
    "lam 0": ({"lam": 0.0, "alpha": 0.05}, (0.373484868811834, 0.626515131188166)),
}


@pytest.mark.parametrize("case", sorted(PPI_PY))
def test_ppi_interval_equals_ppi_python(case: str) -> None:
    kwargs, (low, high) = PPI_PY[case]
    r = ppi_mean_ci(Y, YHAT, YHAT_U, **kwargs)
    assert (r.low, r.high) == pytest.approx((low, high), abs=1e-12)


def test_graded_ratings_equal_ppi_python() -> None:
    r = (IDX % 3 + 1).astype(float)
    rhat = np.clip(r + ((IDX % 5) == 0) - ((IDX % 7) == 0), 1, 3)
    got = ppi_mean_ci(r, rhat, (U % 3 + 1).astype(float), alpha=0.05)
    assert (got.low, got.high) == pytest.approx((1.85113146882386, 2.0940034550990583), abs=1e-12)


def test_lam_zero_is_the_human_only_interval_and_a_perfect_judge_shrinks_it() -> None:
    c = classical_mean_ci(Y, alpha=0.05)
    assert c.estimate == Y.mean() and c.width == pytest.approx(2 * 1.959963984540054 * Y.std() / np.sqrt(N_LAB))
    perfect = ppi_mean_ci(Y, Y, YHAT_U, alpha=0.05)
    assert perfect.lam > 0.8 and perfect.width < c.width / 2
    with pytest.raises(ValueError, match="alpha"):
        ppi_mean_ci(Y, YHAT, YHAT_U, alpha=1.5)
    with pytest.raises(ValueError, match="equal lengths"):
        ppi_mean_ci(Y, YHAT[:-1], YHAT_U)


def test_calibration_both_ways() -> None:
    human = np.array([1, 1, 2, 2, 3, 3, 3, 3])
    judge = np.array([1, 2, 2, 3, 3, 3, 3, 2])
    m = calibration_matrix(human, judge, [1, 2, 3])
    assert m[0].tolist() == [1.0, 0.0, 0.0] and m[1].tolist() == pytest.approx([1 / 3, 1 / 3, 1 / 3])
    assert calibrated_shares(judge, m, [1, 2, 3]) == pytest.approx([0.25, 0.25, 0.5])  # the people's own shares
    given_human = calibration_matrix(judge, human, [1, 2, 3])
    assert label_shift_shares(judge, given_human, [1, 2, 3]) == pytest.approx([0.25, 0.25, 0.5])


def test_coverage_demo_reports_coverage_with_its_mc_error() -> None:
    rng = np.random.default_rng(3)
    truth = (rng.random(1000) < 0.5).astype(float)
    judge = np.where(rng.random(1000) < 0.85, truth, 1 - truth)
    rows = coverage_demo(truth, judge, ns=(50, 200), reps=200, seed=1)
    for row in rows:
        assert abs(row.ppi_coverage - 0.95) < 4 * row.ppi_coverage_mc + 0.02
        assert row.ppi_coverage_mc == pytest.approx(np.sqrt(row.ppi_coverage * (1 - row.ppi_coverage) / 200))
        assert row.width_ratio < 1  # an 85 %-right judge narrows the interval
    with pytest.raises(ValueError, match="human labels"):
        coverage_demo(truth, judge, ns=(1000,))


def test_the_cached_quantile_gives_the_plain_interval_to_the_bit():
    """ppi_mean_ci asks scipy for z once per alpha: every interval must be the one computed with its own ppf call,
    whatever type alpha comes as (a float, numpy's float from an array) and in whatever order alphas come."""
    from scipy import stats as sps

    rng = np.random.default_rng(5)
    alphas = [0.05, 0.1, 0.01, *rng.uniform(0.001, 0.5, 20)]
    for i in range(300):
        alpha = alphas[rng.integers(len(alphas))]
        alpha = np.float64(alpha) if i % 3 == 0 else float(alpha)
        y, yh, yu = rng.normal(size=30), rng.normal(size=30), rng.normal(size=200)
        got = ppi_mean_ci(y, yh, yu, alpha=alpha, lam=0.5)
        z = float(sps.norm.ppf(1 - alpha / 2))  # the plain computation, call by call
        se = math.sqrt(float(np.var(0.5 * yu)) / 200 + float(np.var(y - 0.5 * yh)) / 30)
        assert (got.low.hex(), got.high.hex()) == ((got.estimate - z * se).hex(), (got.estimate + z * se).hex())
