"""Unit tests of eqbench_nb.stats on synthetic data with known answers."""

import numpy as np
import pandas as pd
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
    iv = S.bootstrap_mean_ci(x, reps=300, seed=0, scale=10, interval="percentile")
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
    assert S.bootstrap_corr_ci(x, y, interval="percentile").n == 3


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
    iv = S.bootstrap_mean_ci(values, reps=100, seed=seed, interval="percentile")
    assert min(values) - 1e-9 <= iv.low <= iv.high <= max(values) + 1e-9


# ---------------------------------------------------------------- issue 10: BCa, Fisher z, influence, clusters


def test_bca_moves_toward_the_exact_interval_for_a_skewed_statistic():
    """Mean of exponential data: the exact interval is known (2 n mean / theta ~ chi2(2n)) and skewed to the right."""
    from scipy import stats as sps

    rng = np.random.default_rng(5)
    x = rng.exponential(1.0, size=25)
    n, m = len(x), x.mean()
    exact = (2 * n * m / sps.chi2.ppf(0.975, 2 * n), 2 * n * m / sps.chi2.ppf(0.025, 2 * n))
    idx = S.bootstrap_indices(n, reps=20000, seed=1)
    boot = x[idx].mean(axis=1)
    jack = np.array([np.delete(x, i).mean() for i in range(n)])
    pct = S.percentile_interval(boot)
    bca = S.bca_interval(m, boot, jack)
    assert bca[0] > pct[0] and bca[1] > pct[1]  # shifted right, as the exact interval is
    assert abs(bca[0] - exact[0]) + abs(bca[1] - exact[1]) < abs(pct[0] - exact[0]) + abs(pct[1] - exact[1])


def test_bca_is_the_percentile_interval_without_bias_or_skew():
    boot = np.linspace(-1, 1, 2001)  # symmetric around the estimate 0: z0 = 0
    jack = np.array([-1.0, 1.0, -1.0, 1.0])  # symmetric: a = 0
    lo, hi = S.bca_interval(0.0, boot, jack)
    plo, phi = S.percentile_interval(boot)
    assert lo == pytest.approx(float(plo)) and hi == pytest.approx(float(phi))


def test_bca_corr_uses_the_percentile_resamples_and_brackets_r():
    rng = np.random.default_rng(2)
    x = rng.normal(size=30)
    y = x + rng.normal(0, 0.4, 30)
    p = S.bootstrap_corr_ci(x, y, reps=1000, seed=4)
    b = S.bootstrap_corr_bca(x, y, reps=1000, seed=4)
    assert b.estimate == p.estimate and b.n == 30
    assert b.low < b.estimate < b.high and (b.low, b.high) != (p.low, p.high)


def test_fisher_z_test_known_values():
    z, p = S.fisher_z_test(0.5, 28, 0.5)
    assert z == pytest.approx(0.0) and p == pytest.approx(1.0)
    # one sample: se = 1/sqrt(25) = 0.2
    z, p = S.fisher_z_test(np.tanh(0.4), 28, 0.0)
    assert z == pytest.approx(2.0) and p == pytest.approx(0.0455, abs=1e-4)
    # two samples of 28: se = sqrt(2/25)
    z2, p2 = S.fisher_z_test(np.tanh(0.4), 28, 0.0, n0=28)
    assert z2 == pytest.approx(2.0 / np.sqrt(2)) and p2 > p
    assert np.isnan(S.fisher_z_test(0.5, 3, 0.2)[1])


def test_leave_one_out_finds_the_point_that_makes_the_correlation():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=20), rng.normal(size=20)
    x = np.append(x, 10.0)
    y = np.append(y, 10.0)  # one far point creates r
    y[3] = np.nan
    loo = S.leave_one_out_corr(x, y)
    assert np.isnan(loo[3]) and np.nanargmin(loo) == 20
    assert S.pearson_r(x, y) > 0.8 and loo[20] < 0.5


def test_cluster_bootstrap_widens_when_members_of_a_cluster_move_together():
    rng = np.random.default_rng(3)
    base_x = rng.normal(size=8)
    base_y = 0.5 * base_x + rng.normal(0, 1, 8)
    # each of 8 base models has 6 fine-tunes that barely differ from it
    x = np.repeat(base_x, 6) + rng.normal(0, 0.05, 48)
    y = np.repeat(base_y, 6) + rng.normal(0, 0.05, 48)
    clusters = np.repeat(np.arange(8), 6)
    naive = S.bootstrap_corr_ci(x, y, reps=2000, seed=1)
    clustered = S.cluster_bootstrap_corr_ci(x, y, clusters, reps=2000, seed=1, interval="percentile")
    assert clustered.estimate == pytest.approx(naive.estimate)
    assert (clustered.high - clustered.low) > 1.8 * (naive.high - naive.low)
    # with one model per cluster it is the ordinary bootstrap of pairs
    single = S.cluster_bootstrap_corr_ci(base_x, base_y, np.arange(8), reps=4000, seed=0, interval="percentile")
    plain = S.bootstrap_corr_ci(base_x, base_y, reps=4000, seed=0, interval="percentile")
    assert single.low == pytest.approx(plain.low, abs=0.1) and single.high == pytest.approx(plain.high, abs=0.1)
    bca = S.cluster_bootstrap_corr_ci(x, y, clusters, reps=2000, seed=1, interval="bca")
    assert bca.low < bca.estimate < bca.high


def _fine_tunes(n_bases: int, per_base: int, seed: int):
    """``n_bases`` independent base models, each with ``per_base`` fine-tunes that barely differ from it."""
    rng = np.random.default_rng(seed)
    base_x = rng.normal(size=n_bases)
    base_y = 0.5 * base_x + rng.normal(0, 1, n_bases)
    x = np.repeat(base_x, per_base) + rng.normal(0, 0.05, n_bases * per_base)
    y = np.repeat(base_y, per_base) + rng.normal(0, 0.05, n_bases * per_base)
    return x, y, np.repeat(np.arange(n_bases), per_base)


def test_cluster_corr_ci_follows_the_small_n_rule_at_the_cluster_level():
    """Issue 38: below 30 lineages the interval is Fisher's z with the lineages as n; from 30 a bootstrap of them."""
    x, y, clusters = _fine_tunes(9, 5, seed=2)
    small = S.cluster_corr_ci(x, y, clusters)
    assert (small.low, small.high) == pytest.approx(S.fisher_z_ci(S.pearson_r(x, y), 9))
    assert small.n == 45 and small.method == "Fisher z with n = 9 clusters (Bonett–Wright for Spearman)"
    rho = S.cluster_corr_ci(x, y, clusters, method="spearman")
    assert (rho.low, rho.high) == pytest.approx(S.fisher_z_ci(S.spearman_r(x, y), 9, spearman=True))
    # the 45 models as independent units give a far narrower interval than their 9 lineages warrant
    naive = S.correlation_summary(x, y)
    assert naive["pearson_high"] - naive["pearson_low"] < 0.5 * (small.high - small.low)
    x, y, clusters = _fine_tunes(40, 3, seed=2)
    big = S.cluster_corr_ci(x, y, clusters, reps=500)
    same = S.cluster_bootstrap_corr_ci(x, y, clusters, reps=500, interval="percentile")
    assert (big.low, big.high) == (same.low, same.high)
    assert big.method == "percentile bootstrap over 40 clusters, 500 resamples"
    with pytest.raises(ValueError, match="cluster label"):
        S.cluster_corr_ci(x, y, np.where(np.arange(len(x)) == 3, None, clusters).astype(object))


def test_correlation_table_with_lineages_counts_them_and_names_the_unit():
    x, y, clusters = _fine_tunes(9, 5, seed=4)
    df = pd.DataFrame({"a": x, "b": y, "lineage": [f"L{c}" for c in clusters]})
    t = S.correlation_table(df, [("a vs b", "a", "b")], cluster="lineage", unit="lineages").iloc[0]
    assert t.n == 45 and t.n_clusters == 9
    assert t.interval_method == "Fisher z with n = 9 lineages (Bonett–Wright for Spearman)"
    df.loc[2, "lineage"] = None
    with pytest.raises(ValueError, match="without a 'lineage'"):
        S.correlation_table(df, [("a vs b", "a", "b")], cluster="lineage")


def test_weighted_midranks_are_the_ranks_of_the_resample():
    """The Spearman cluster bootstrap ranks each resample as if its drawn pairs were written out in full."""
    from scipy.stats import rankdata

    v = np.array([3.0, 1.0, 3.0, 7.0, 2.0])
    w = np.array([[2.0, 0.0, 1.0, 1.0, 3.0], [1.0, 1.0, 1.0, 1.0, 1.0]])
    ranks = S._weighted_midranks(v, w)
    for row, weights in zip(ranks, w):
        expanded = np.repeat(v, weights.astype(int))
        full = rankdata(expanded)
        for i in np.flatnonzero(weights):
            assert row[i] == pytest.approx(full[expanded == v[i]][0])
    x, y, clusters = _fine_tunes(40, 1, seed=5)  # one pair per cluster: the ordinary Spearman bootstrap
    one = S.cluster_bootstrap_corr_ci(x, y, clusters, reps=3000, interval="percentile", method="spearman")
    plain = S.bootstrap_corr_ci(x, y, "spearman", reps=3000)
    assert one.estimate == pytest.approx(plain.estimate)
    assert (one.low, one.high) == pytest.approx((plain.low, plain.high), abs=0.06)


def test_jackknife_t_of_a_mean_is_the_student_t_interval():
    """Leaving one unit out of a mean gives the jackknife SE s / sqrt(k): the t interval on k - 1 df."""
    v = np.array([2.0, 5.0, 3.5, 8.0, 1.0, 4.0, 6.5])
    jack = np.array([np.delete(v, i).mean() for i in range(len(v))])
    lo, hi = S.jackknife_t_interval(v.mean(), jack)
    t = S.t_mean_ci(v)
    assert (lo, hi) == pytest.approx((t.low, t.high))
    assert np.isnan(S.jackknife_t_interval(1.0, [1.0, 2.0])[0])


# ---------------------------------------------------------------- two-way bootstrap, shrinkage


def test_weighted_ratio_with_unit_weights_is_the_ratio_of_totals():
    rng = np.random.default_rng(0)
    s, c = rng.random((5, 7, 3)), rng.integers(1, 4, (5, 7, 3)).astype(float)
    out = S.weighted_ratio(s, c, np.ones((2, 5)), np.ones((2, 7)))
    assert out.shape == (2, 3)
    assert out[0] == pytest.approx(s.sum((0, 1)) / c.sum((0, 1)))
    c[:, :, 2] = 0
    assert np.isnan(S.weighted_ratio(s, c, np.ones((1, 5)), np.ones((1, 7)))[0, 2])


def test_two_way_bootstrap_sees_question_noise_that_a_models_only_bootstrap_misses():
    rng = np.random.default_rng(1)
    n_models, n_q = 30, 60
    q_effect = rng.normal(0, 2.0, n_q)  # questions differ a lot, models not at all
    values = q_effect[None, :] + rng.normal(0, 0.1, (n_models, n_q))
    sums, counts = values[:, :, None], np.ones((n_models, n_q, 1))
    w, v = S.two_way_weights(n_models, n_q, reps=2000, seed=0)
    two_way = S.weighted_ratio(sums, counts, w, v)[:, 0]
    models_only = S.weighted_ratio(sums, counts, w, np.ones_like(v))[:, 0]
    expected_se = q_effect.std(ddof=0) / np.sqrt(n_q)
    assert two_way.std() == pytest.approx(expected_se, rel=0.15)
    assert models_only.std() < 0.1 * two_way.std()


def test_two_way_weights_keep_strata_sizes():
    strata = ["top"] * 3 + ["bottom"] * 5
    w, v = S.two_way_weights(8, 10, reps=50, seed=2, row_strata=strata)
    assert (w[:, :3].sum(1) == 3).all() and (w[:, 3:].sum(1) == 5).all() and (v.sum(1) == 10).all()


def test_empirical_bayes_shrinks_noise_fully_and_signal_little():
    rng = np.random.default_rng(4)
    se = np.full(200, 1.0)
    noise_only = S.empirical_bayes_shrink(5 + rng.normal(0, 1, 200), se)
    assert noise_only.attrs["tau2"] < 0.1
    assert noise_only.shrunk.std() < 0.25 * noise_only.estimate.std()
    truth = rng.normal(0, 5, 200)
    signal = S.empirical_bayes_shrink(truth + rng.normal(0, 1, 200), se)
    assert signal.attrs["tau2"] == pytest.approx(25, rel=0.3)
    assert (signal.shrinkage < 0.1).all()
    # a noisier estimate moves further toward the mean than a precise one with the same value
    mixed = S.empirical_bayes_shrink(np.r_[truth, 20.0, 20.0], np.r_[se, 0.5, 5.0])
    assert abs(mixed.shrunk.iloc[-1] - mixed.attrs["mu"]) < abs(mixed.shrunk.iloc[-2] - mixed.attrs["mu"])


def test_bonferroni_level():
    assert S.bonferroni_level(0.95, 14) == pytest.approx(1 - 0.05 / 14)
    with pytest.raises(ValueError):
        S.bonferroni_level(0.95, 0)


# ---------------------------------------------------------------- issue 30: no percentile bootstrap below 30 by default


def test_a_percentile_bootstrap_below_30_is_refused_unless_named():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=11), rng.normal(size=11)
    for call in (
        lambda **kw: S.bootstrap_corr_ci(x, y, reps=100, **kw),
        lambda **kw: S.bootstrap_mean_ci(x, reps=100, **kw),
        lambda **kw: S.paired_bootstrap_diff_ci(x, y, reps=100, **kw),
        lambda **kw: S.run_score_intervals(np.vstack([x, y]), reps=100, **kw),
        lambda **kw: S.cluster_bootstrap_corr_ci(x, y, np.arange(11) % 5, reps=100, **kw),
    ):
        with pytest.raises(S.SmallSampleError, match=r"n = (11|5) < 30"):
            call()
        call(interval="percentile")  # asked for by name: allowed
    big = rng.normal(size=40)
    assert S.bootstrap_mean_ci(big, reps=100).method == S.PERCENTILE  # from 30 on, nothing to name


def test_correlation_summary_uses_fisher_z_below_30_and_says_so():
    """Notebooks 04 and 07 gave the same n = 11 r two intervals (issue 30, misleading 9): now one function decides."""
    from eqbench_nb.eqbench.study import published

    ps = published.paper_scores()
    s = S.correlation_summary(ps.ollb_mmlu, ps.eqbench_v1)
    assert s["n"] == 11 and s["interval_method"].startswith("Fisher z")
    assert (s["pearson_low"], s["pearson_high"]) == pytest.approx(S.fisher_z_ci(s["pearson"], 11))
    assert (
        round(s["pearson"], 3) == 0.967 and round(s["pearson_low"], 3) == 0.873 and round(s["pearson_high"], 3) == 0.992
    )
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=60), rng.normal(size=60)
    assert S.correlation_summary(a, b, reps=200)["interval_method"].startswith("percentile bootstrap")
    assert S.correlation_summary(a[:20], b[:20], interval="percentile", reps=200)["interval_method"].startswith(
        "percentile"
    )


def test_the_refused_interval_undercovers_and_the_closed_forms_do_not():
    """Why the rule: at n = 11 and rho = 0.9 a percentile bootstrap covers rho far less than 95 % of the time; Fisher's
    z keeps its level. Likewise for a mean of 10 normal values against Student's t."""
    rng = np.random.default_rng(0)
    rho, n, trials = 0.9, 11, 400
    pct = fisher = 0
    for t in range(trials):
        xy = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=n)
        iv = S.bootstrap_corr_ci(xy[:, 0], xy[:, 1], reps=1000, seed=t, interval="percentile")
        pct += iv.low <= rho <= iv.high
        lo, hi = S.fisher_z_ci(iv.estimate, n)
        fisher += lo <= rho <= hi
    assert pct / trials < 0.93 and fisher / trials > 0.92
    pct = t_cov = 0
    for t in range(trials):
        x = rng.normal(size=10)
        pct += (
            S.bootstrap_mean_ci(x, reps=1000, seed=t, interval="percentile").low
            <= 0
            <= S.bootstrap_mean_ci(x, reps=1000, seed=t, interval="percentile").high
        )
        iv = S.t_mean_ci(x)
        t_cov += iv.low <= 0 <= iv.high
    assert pct / trials < 0.935 and t_cov / trials > 0.93


def test_mean_interval_chooses_t_below_30():
    rng = np.random.default_rng(2)
    small, large = rng.normal(size=12), rng.normal(size=50)
    from scipy import stats as sps

    iv = S.mean_interval(small)
    ref = sps.t.interval(0.95, 11, loc=small.mean(), scale=sps.sem(small))
    assert iv.method == S.T_INTERVAL and (iv.low, iv.high) == pytest.approx(ref)
    assert S.mean_interval(large, reps=200).method == S.PERCENTILE
