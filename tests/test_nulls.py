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
