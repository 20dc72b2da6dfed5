"""Unit tests of eqbench_nb.stats on synthetic data with known answers."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eqbench_nb.analysis import stats as S


def test_bootstrap_counts_rows_sum_to_n_and_are_seeded():
    c = S.bootstrap_counts(17, reps=50, seed=3)
    assert c.shape == (50, 17) and (c.sum(axis=1) == 17).all()
    assert (c == S.bootstrap_counts(17, reps=50, seed=3)).all()
    assert not (c == S.bootstrap_counts(17, reps=50, seed=4)).all()


def test_mean_ci_covers_true_mean_at_about_nominal_rate():
    rng = np.random.default_rng(123)
    trials, covered = 300, 0
    for t in range(trials):
        x = rng.normal(5.0, 2.0, size=80)
        iv = S.bootstrap_mean_ci(x, reps=500, seed=t)
        assert iv.low <= iv.estimate <= iv.high
        covered += iv.low <= 5.0 <= iv.high
    # percentile bootstrap at n = 80: close to 95 %; binomial sd over 300 trials is ~1.3 %
    assert 0.89 <= covered / trials <= 0.99


def test_mean_ci_ignores_nan_and_scales():
    x = np.array([1.0, 2.0, np.nan, 3.0, 4.0])
    iv = S.bootstrap_mean_ci(x, reps=300, seed=0, scale=10)
    assert iv.estimate == pytest.approx(25.0) and iv.n == 4
    assert 10 <= iv.low < iv.high <= 40


def test_run_score_intervals_match_single_row_and_are_deterministic():
    rng = np.random.default_rng(0)
    m = rng.normal(size=(4, 60))
    m[1, :5] = np.nan
    t1 = S.run_score_intervals(m, labels=list("abcd"), reps=400, seed=9)
    t2 = S.run_score_intervals(m, labels=list("abcd"), reps=400, seed=9)
    assert t1.equals(t2)
    assert list(t1.label) == list("abcd") and t1.n_questions.tolist() == [60, 55, 60, 60]
    assert t1.score.to_numpy() == pytest.approx(10 * np.nanmean(m, axis=1))
    assert ((t1.low <= t1.score) & (t1.score <= t1.high)).all()


def test_paired_difference_is_tighter_than_unpaired_when_questions_dominate():
    rng = np.random.default_rng(1)
    difficulty = rng.normal(0, 3, size=150)
    a = difficulty + rng.normal(0, 0.3, 150) + 0.3
    b = difficulty + rng.normal(0, 0.3, 150)
    d = S.paired_bootstrap_diff_ci(a, b, reps=1000, seed=2)
    assert d.estimate == pytest.approx(a.mean() - b.mean())
    assert d.low > 0  # shared difficulty cancels: the 0.3 shift is detected
    ia, ib = S.bootstrap_mean_ci(a, seed=2), S.bootstrap_mean_ci(b, seed=3)
    assert ia.low < ib.high  # the two marginal intervals overlap nonetheless


def test_share_pairs_separated_far_apart_and_identical():
    rng = np.random.default_rng(5)
    base = rng.normal(0, 1, size=100)
    far = np.vstack([base + 10 * k for k in range(5)])
    assert S.share_pairs_separated(far, reps=500, seed=0) == 1.0
    same = np.vstack([base] * 5)
    assert S.share_pairs_separated(same, reps=500, seed=0) == 0.0
    # independent noise around the same mean: only ~5 % of pairs separated by chance
    noisy = rng.normal(0, 1, size=(30, 100))
    assert S.share_pairs_separated(noisy, reps=500, seed=0) < 0.15


def test_pairwise_separation_symmetric_with_false_diagonal():
    rng = np.random.default_rng(2)
    m = rng.normal(size=(6, 40)) + np.arange(6)[:, None]
    sep = S.pairwise_separation(m, reps=300, seed=1)
    assert (sep == sep.T).all() and not sep.diagonal().any()
    adj = S.adjacent_separation(m, reps=300, seed=1)
    assert adj.shape == (5,) and adj.all()


def test_pearson_on_constructed_data_with_known_r():
    rng = np.random.default_rng(7)
    n, rho = 20000, 0.6
    x = rng.normal(size=n)
    y = rho * x + np.sqrt(1 - rho**2) * rng.normal(size=n)
    assert S.pearson_r(x, y) == pytest.approx(rho, abs=0.02)
    assert S.pearson_r(x, 3 * x + 1) == pytest.approx(1.0)
    assert S.pearson_r(x, -x) == pytest.approx(-1.0)


def test_spearman_is_one_for_monotone_and_matches_scipy():
    from scipy.stats import spearmanr

    x = np.linspace(0, 5, 30)
    assert S.spearman_r(x, np.exp(x)) == pytest.approx(1.0)
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 5, 40).astype(float), rng.normal(size=40)
    assert S.spearman_r(a, b) == pytest.approx(spearmanr(a, b)[0])


def test_correlations_drop_nan_pairs():
    x = [1, 2, 3, np.nan, 5]
    y = [2, 4, 6, 8, np.nan]
    assert S.pearson_r(x, y) == pytest.approx(1.0)
    assert S.bootstrap_corr_ci(x, y).n == 3


def test_bootstrap_corr_ci_covers_true_r_and_is_deterministic():
    rng = np.random.default_rng(11)
    rho, covered, trials = 0.7, 0, 200
    for t in range(trials):
        x = rng.normal(size=60)
        y = rho * x + np.sqrt(1 - rho**2) * rng.normal(size=60)
        iv = S.bootstrap_corr_ci(x, y, reps=400, seed=t)
        covered += iv.low <= rho <= iv.high
    assert 0.88 <= covered / trials <= 0.995
    a = S.bootstrap_corr_ci(x, y, "spearman", reps=300, seed=1)
    assert a == S.bootstrap_corr_ci(x, y, "spearman", reps=300, seed=1)
    with pytest.raises(ValueError):
        S.bootstrap_corr_ci(x, y, "kendall")


def test_fisher_interval_contains_r_and_narrows_with_n():
    lo1, hi1 = S.fisher_z_ci(0.8, 20)
    lo2, hi2 = S.fisher_z_ci(0.8, 200)
    assert lo1 < lo2 < 0.8 < hi2 < hi1


def test_correlation_table_with_subset():
    import pandas as pd

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=50)})
    df["b"] = df.a * 2 + rng.normal(0, 0.1, 50)
    df["c"] = rng.normal(size=50)
    t = S.correlation_table(df, [("ab", "a", "b"), ("ac half", "a", "c", df.index < 25)], reps=200)
    assert t.n.tolist() == [50, 25]
    assert t.pearson.iloc[0] > 0.99 and t.pearson_low.iloc[0] > 0.98


def test_largest_residuals_finds_planted_outliers():
    x = np.arange(30, dtype=float)
    y = 2 * x + 1
    y[[4, 17]] += [40, -25]
    x[9] = np.nan
    idx = S.largest_residuals(x, y, k=2)
    assert list(idx) == [4, 17]
    slope, _ = S.linear_fit(np.arange(10.0), 3 * np.arange(10.0) + 2)
    assert slope == pytest.approx(3.0)


def test_spread():
    assert S.spread([3, np.nan, -1, 7]) == (-1.0, 7.0)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-10, 10), min_size=2, max_size=40), st.integers(0, 10**6))
def test_mean_interval_lies_within_data_range(values, seed):
    iv = S.bootstrap_mean_ci(values, reps=100, seed=seed)
    assert min(values) - 1e-9 <= iv.low <= iv.high <= max(values) + 1e-9
