"""Review 5's multiplicity rule for a family reported by intervals only: the chance count is computed in code."""

import numpy as np
import pytest

from eqbench_nb.analysis import stats as S


def test_expected_false_exclusions_is_one_minus_the_level_times_the_family_size():
    assert S.expected_false_exclusions(9) == pytest.approx(0.45)
    assert S.expected_false_exclusions(20, level=0.9) == pytest.approx(2.0)
    assert S.expected_false_exclusions(0) == 0.0


def test_expected_false_exclusions_agrees_with_the_p_value_family_at_the_same_level():
    fam = S.correct_family([0.01, 0.2, 0.5, 0.04], "holm", alpha=0.05)
    assert S.expected_false_exclusions(fam.m, level=1 - fam.alpha) == pytest.approx(fam.expected_by_chance)


def test_expected_false_exclusions_matches_how_often_null_intervals_exclude_zero():
    """Simulated: 95 % t intervals of means of pure noise exclude 0 in about 5 % of a family."""
    rng = np.random.default_rng(1)
    m, n = 4000, 12
    x = rng.standard_normal((m, n))
    half = S.t_quantile(0.95, n - 1) * x.std(axis=1, ddof=1) / np.sqrt(n)
    excluded = int((np.abs(x.mean(axis=1)) > half).sum())
    assert abs(excluded - S.expected_false_exclusions(m)) < 3 * np.sqrt(m * 0.05 * 0.95)


@pytest.mark.parametrize(
    ("m", "level", "field"),
    [(-1, 0.95, "m"), (2.5, 0.95, "m"), (True, 0.95, "m"), (5, 1.0, "level"), (5, 0.0, "level")],
)
def test_expected_false_exclusions_refuses_a_bad_argument_naming_it(m, level, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        S.expected_false_exclusions(m, level=level)
