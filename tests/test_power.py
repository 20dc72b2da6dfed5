import numpy as np
import pytest

from eqbench_nb.analysis import power, stats


def _runs(k_low: int, effect: bool, seed: int = 0, n: int = 86, n_q: int = 171):
    rng = np.random.default_rng(seed)
    score = rng.uniform(15, 85, n)
    parsed = np.where(rng.random(n) < 0.5, n_q, rng.integers(k_low, n_q + 1, n))
    base = 6.0 - 0.03 * score + rng.normal(0, 0.5, n)
    hw = base * (np.sqrt(n_q / parsed) if effect else 1.0)
    return hw, parsed.astype(float), score


def _verdict(hw, parsed, score, n_q=171):
    lo, hi = stats.fisher_z_ci(stats.pearson_r(hw, parsed), len(hw))
    p = power.halfwidth_parse_power(hw, parsed, score, n_q, reps=1000)
    return power.effect_verdict(lo > 0 or hi < 0, p.power), p


def test_no_effect_is_not_claimed_when_the_parse_counts_barely_vary():
    """Claim 'parse count does not matter' must not be made from runs that nearly all parse everything,
    even when the effect is really there (the published runs' situation: minimum 152 of 171)."""
    for seed in range(3):
        verdict, p = _verdict(*_runs(152, effect=True, seed=seed))
        assert p.power < 0.3
        assert verdict != "no effect"
    verdict, _ = _verdict(*_runs(152, effect=False))
    assert verdict == "absence of evidence"


def test_effect_is_detected_when_parse_counts_vary_widely():
    verdict, p = _verdict(*_runs(40, effect=True))
    assert p.power > 0.8
    assert verdict == "detected"


def test_no_effect_is_claimed_only_with_power_and_no_effect_in_the_data():
    verdict, p = _verdict(*_runs(40, effect=False, seed=1))
    assert p.power > 0.8
    assert verdict == "no effect"


def test_predicted_widening_is_sqrt_of_the_parse_ratio():
    hw, parsed, score = _runs(152, effect=False)
    parsed[0] = 100.0
    p = power.halfwidth_parse_power(hw, parsed, score, 171, reps=100)
    assert p.max_widening == pytest.approx(np.sqrt(171 / 100) - 1)
