"""The fast greedy short-form choice equals the straightforward one it replaced, to the bit.

The reference below is the loop :func:`eqbench_nb.analysis.psychometrics.select_short_form` ran before it was
made faster (issue 35 item 10): notebook 08's headlines depend on every choice, so the two must agree exactly,
NaNs, ties, all-NaN rows and infinities included.
"""

import numpy as np
import pytest

from eqbench_nb.analysis import psychometrics as P


def _reference_greedy(m: np.ndarray, k: int, y: np.ndarray) -> np.ndarray:
    n, q = m.shape
    fin = np.isfinite(m)
    x0 = np.where(fin, m, 0.0)
    s, c = np.zeros(n), np.zeros(n)
    chosen: list[int] = []
    free = np.ones(q, dtype=bool)
    for _ in range(k):
        with np.errstate(invalid="ignore", divide="ignore"):
            cand = (s[:, None] + x0) / (c[:, None] + fin)
        r = P._corr_columns(cand, y)
        r[~free] = -np.inf
        j = int(np.argmax(np.nan_to_num(r, nan=-np.inf)))
        chosen.append(j)
        free[j] = False
        s += x0[:, j]
        c += fin[:, j]
    return np.array(chosen)


def _random_matrix(rng: np.random.Generator, case: int) -> np.ndarray:
    n, q = int(rng.integers(3, 60)), int(rng.integers(2, 90))
    m = rng.integers(0, 11, size=(n, q)).astype(float) if case % 2 else rng.normal(5, 2, size=(n, q))
    if case % 3 == 0:  # answers left out, some whole rows and columns among them
        m[rng.random((n, q)) < rng.uniform(0.02, 0.5)] = np.nan
        m[int(rng.integers(n))] = np.nan
        m[:, int(rng.integers(q))] = np.nan
    if case % 5 == 0:  # constant columns and duplicated columns: ties and zero variances
        m[:, 0] = 3.0
        m[:, -1] = m[:, 0 if q < 3 else 1]
    if case % 7 == 0:
        m[int(rng.integers(n)), int(rng.integers(q))] = np.inf
    return m


@pytest.mark.parametrize("case", range(60))
def test_fast_greedy_equals_reference(case):
    rng = np.random.default_rng(case)
    m = _random_matrix(rng, case)
    k = int(rng.integers(1, m.shape[1] + 1))
    y = P._nan_rowmean(m) if case % 4 else rng.normal(size=m.shape[0])
    if case % 11 == 0:  # a constant target: every r is NaN, and the old loop then re-picks a chosen question
        y = np.full(m.shape[0], 7.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = _reference_greedy(m, k, y)
    got = P.select_short_form(m, k, "greedy", target=y)
    np.testing.assert_array_equal(got, expected)


def test_fast_greedy_equals_reference_on_a_real_shaped_matrix():
    # the notebook's shape: 86 runs x 171 questions of 0-10 answers, a few left out, k up to 60
    rng = np.random.default_rng(8)
    ability = rng.normal(size=(86, 1))
    m = np.clip(np.round(5 + 2 * ability + rng.normal(0, 2, size=(86, 171))), 0, 10)
    m[rng.random(m.shape) < 0.01] = np.nan
    y = P._nan_rowmean(m)
    np.testing.assert_array_equal(P.select_short_form(m, 60, "greedy"), _reference_greedy(m, 60, y))


def test_a_short_forms_prediction_interval_is_the_plain_one_to_the_bit():
    """ShortForm.predict takes its t quantile from the cached t_quantile: the half-width must be the one computed
    with its own ppf call, at every level and number of runs."""
    from scipy import stats as sps

    rng = np.random.default_rng(8)
    for _ in range(200):
        n, level = int(rng.integers(3, 200)), float(rng.choice([0.95, 0.9, 0.8, rng.uniform(0.5, 0.999)]))
        form = P.ShortForm(np.arange(3), float(rng.normal()), float(rng.normal()), float(rng.uniform(0.1, 5)), n)
        x = rng.normal(size=int(rng.integers(1, 5)))
        pred, half = form.predict(x, level)
        plain = sps.t.ppf(0.5 + level / 2, n - 2) * form.sd * np.sqrt(1 + 1 / n)
        assert [h.hex() for h in half] == [float(plain).hex()] * len(x)
        assert [p.hex() for p in pred] == [float(form.intercept + form.slope * v).hex() for v in x]
