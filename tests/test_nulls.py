import numpy as np
import pytest

from eqbench_nb.analysis import nulls


def test_probabilities_sum_to_one_and_match_simulation():
    ref = np.array([0, 3, 5, 8, 10] * 4000, dtype=float)
    p = nulls.rating_probabilities(ref, 2.5)
    assert np.allclose(p.sum(axis=1), 1.0)
    null = nulls.clipped_noise_null(ref, sigma=2.5, n_sim=10, seed=1)
    for r in (0, 5, 10):
        mask = ref == r
        assert null.sim_bias(mask).mean() == pytest.approx(null.bias(mask), abs=0.03)
    assert null.sim_slope().mean() == pytest.approx(null.slope(), abs=0.01)
    assert (null.ratings == null.reference).mean() == pytest.approx(null.exact_share(), abs=0.01)


def test_no_clipping_means_no_bias_and_slope_one():
    # references in the middle and small noise: clipping never bites, so the null is unbiased
    ref = np.repeat(np.arange(3, 8), 100).astype(float)
    null = nulls.clipped_noise_null(ref, sigma=0.6)
    assert null.bias() == pytest.approx(0.0, abs=1e-9)
    assert null.slope() == pytest.approx(1.0, abs=1e-6)


def test_clipping_alone_biases_the_ends_and_flattens_the_slope():
    ref = np.repeat(np.arange(0, 11), 100).astype(float)
    null = nulls.clipped_noise_null(ref, sigma=3.0)
    assert null.bias(ref == 0) > 0.5 and null.bias(ref == 10) < -0.5
    assert null.slope() < 0.9


def test_fit_noise_sd_reproduces_the_target_mae_and_recovers_sigma():
    rng = np.random.default_rng(0)
    ref = rng.integers(0, 11, 20000).astype(float)
    true = nulls.clipped_noise_null(ref, sigma=2.0, n_sim=5, seed=3)
    mae = float(np.abs(true.errors).mean())
    fitted = nulls.clipped_noise_null(ref, mae)
    assert fitted.sigma == pytest.approx(2.0, abs=0.05)
    assert float(np.mean(nulls.expected_abs_error(ref, fitted.sigma))) == pytest.approx(mae, abs=1e-8)


def test_bad_arguments_raise():
    with pytest.raises(ValueError):
        nulls.clipped_noise_null([0, 1], 1.0, sigma=1.0)
    with pytest.raises(ValueError):
        nulls.clipped_noise_null([0, 1])
    with pytest.raises(ValueError):
        nulls.fit_noise_sd([0, 10], 50.0)


def _top_half_r(x, y):
    keep = y > np.median(y)
    return float(np.corrcoef(x[keep], y[keep])[0, 1]), int(keep.sum())


def test_selected_half_null_reproduces_the_shrinkage_of_r_by_selection():
    d = nulls.selected_half_correlation_null(0.813, 91, 45, reps=4000, seed=0)
    assert np.median(d) == pytest.approx(0.64, abs=0.03)  # well below the pooled 0.813
    assert np.quantile(d, 0.975) < 0.813


def test_subset_verdict_not_chosen_when_one_relation_holds_throughout():
    """Claim false: one bivariate-normal relation everywhere. The top half's r is below the pooled r
    (a comparison with the pooled r would call it different) but within the selection null."""
    rng = np.random.default_rng(7)
    verdicts, naive_below = [], 0
    for seed in range(40):
        x = rng.standard_normal(91)
        y = 0.8 * x + 0.6 * rng.standard_normal(91)
        pooled = float(np.corrcoef(x, y)[0, 1])
        r_top, k = _top_half_r(x, y)
        naive_below += r_top < pooled
        verdicts.append(
            nulls.against_null_draws(r_top, nulls.selected_half_correlation_null(pooled, 91, k, 2000, seed))
        )
    assert naive_below >= 35  # the old comparison: "below the pooled r" nearly always
    assert verdicts.count("below") <= 5  # the selection null: rejected at about its nominal 2.5 %


def test_subset_verdict_chosen_when_the_top_half_has_no_relation():
    """Claim true: the relation holds among weak models but is absent among strong ones."""
    rng = np.random.default_rng(3)
    below = 0
    for seed in range(20):
        x = rng.standard_normal(91)
        y = 0.8 * x + 0.6 * rng.standard_normal(91)
        top = y > np.median(y)
        x[top] = rng.permutation(x[top])  # break the relation within the top half only
        pooled = float(np.corrcoef(x, y)[0, 1])
        r_top, k = _top_half_r(x, y)
        below += (
            nulls.against_null_draws(r_top, nulls.selected_half_correlation_null(pooled, 91, k, 2000, seed)) == "below"
        )
    assert below >= 17


@pytest.mark.parametrize(
    "p, verdict",
    [([0.12, 0.22, 0.06], "consistent"), ([0.001, 0.03], "rejected"), ([0.025, 0.12, 0.22], "inconclusive")],
)
def test_p_range_verdict(p, verdict):
    assert nulls.p_range_verdict(p) == verdict


def test_p_range_verdict_on_simulated_fisher_tests():
    """Claim 'consistent' false: the truth is far from the tested value, every assumption rejects it;
    claim true: our r comes from the tested value, no assumption rejects it."""
    from eqbench_nb.analysis import stats

    rng = np.random.default_rng(0)
    cov = [[1, 0.97], [0.97, 1]]
    x, y = rng.multivariate_normal([0, 0], cov, 200).T
    r = float(np.corrcoef(x, y)[0, 1])
    ps = [stats.fisher_z_test(r, 200, 0.97, n0)[1] for n0 in range(11, 21)] + [stats.fisher_z_test(r, 200, 0.97)[1]]
    assert nulls.p_range_verdict(ps) == "consistent"
    ps_far = [stats.fisher_z_test(0.5, 200, 0.97, n0)[1] for n0 in range(11, 21)]
    assert nulls.p_range_verdict(ps_far) == "rejected"


def test_rating_probabilities_equal_the_scipy_norm_cdf_formula_to_the_bit():
    # rating_probabilities calls scipy.special.ndtr directly (issue 35: norm.cdf's checks cost more than the
    # work, thousands of calls in notebook 05); the values must be norm.cdf's exactly, the infinite edges included
    from scipy import stats

    rng = np.random.default_rng(35)
    ks = np.arange(0, 11, dtype=float)
    upper, lower = np.append(ks[:-1] + 0.5, np.inf), np.insert(ks[1:] - 0.5, 0, -np.inf)
    for sigma in [1e-9, 0.05, 0.5, 1.0, 2.5, 7.0, 1e6, *rng.uniform(0.01, 10, 20)]:
        ref = np.concatenate([rng.uniform(-3, 13, 50), ks, [0.5, 9.5, -1e300, 1e300]])
        with np.errstate(over="ignore"):  # +-1e300 / 1e-9: the infinite edges
            old = stats.norm.cdf((upper[None, :] - ref[:, None]) / sigma) - stats.norm.cdf(
                (lower[None, :] - ref[:, None]) / sigma
            )
            np.testing.assert_array_equal(nulls.rating_probabilities(ref, sigma), old)
