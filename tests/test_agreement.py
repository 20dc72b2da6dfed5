"""The agreement statistics against reference implementations: statsmodels and scikit-learn (weighted kappa and its
variance), scipy (Spearman), krippendorff (alpha) and irrCAC (Gwet's AC1/AC2; values recorded, see below)."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa

from eqbench_nb.analysis.agreement import (
    confusion_matrix,
    gwet_ac,
    krippendorff_alpha,
    spearman_fisher,
    weighted_kappa,
)

RNG = np.random.default_rng(7)


def _two_raters(n: int, q: int) -> tuple[np.ndarray, np.ndarray]:
    a = RNG.integers(1, q + 1, n)
    b = np.clip(a + RNG.integers(-1, 2, n), 1, q)
    return a, b


@pytest.mark.parametrize("seed", range(5))
def test_weighted_kappa_and_its_variance_equal_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 5, 60) / 2.0  # half steps: the positions, not the values, weigh disagreement
    b = np.clip(a + rng.integers(-2, 3, 60) / 2.0, 0, 2)
    _, table = confusion_matrix(a, b)
    ref = cohens_kappa(table, wt="quadratic")
    ours = weighted_kappa(a, b)
    assert ours.kappa == pytest.approx(ref.kappa, abs=1e-12)
    assert ours.se == pytest.approx(math.sqrt(ref.var_kappa), abs=1e-12)
    assert ours.z == pytest.approx(ref.kappa / math.sqrt(ref.var_kappa), abs=1e-9)
    assert ours.n == 60


def test_weighted_kappa_on_a_full_scale_equals_scikit_learn() -> None:
    a, b = _two_raters(80, 5)
    b[b == 3] = 2  # a category one rater never uses still counts as a position
    for weights, sk in (("quadratic", "quadratic"), ("linear", "linear"), ("none", None)):
        ref = cohen_kappa_score(a, b, labels=[1, 2, 3, 4, 5], weights=sk)
        assert weighted_kappa(a, b, categories=[1, 2, 3, 4, 5], weights=weights).kappa == pytest.approx(ref)


def test_perfect_agreement_is_one_and_missing_items_are_dropped() -> None:
    a = [1, 2, 3, 3, np.nan, 2]
    assert weighted_kappa(a, [1, 2, 3, 3, 1, 2]).kappa == 1.0
    assert weighted_kappa(a, [1, 2, 3, 3, 1, 2]).n == 5
    assert math.isnan(weighted_kappa([2, 2, 2], [2, 2, 2]).kappa)  # one category: undefined, not 1
    with pytest.raises(ValueError, match="ratings"):
        weighted_kappa([1, 2], [1, 2, 3])


def test_spearman_and_fisher_interval() -> None:
    from scipy.stats import spearmanr

    a, b = _two_raters(50, 5)
    s = spearman_fisher(a, b)
    ref = spearmanr(a, b)
    assert s.rho == pytest.approx(ref.statistic) and s.p == pytest.approx(ref.pvalue)
    z, half = math.atanh(s.rho), 1.96 / math.sqrt(47)
    assert (s.low, s.high) == pytest.approx((math.tanh(z - half), math.tanh(z + half)))
    assert s.low < s.rho < s.high


def test_confusion_matrix_counts() -> None:
    cats, table = confusion_matrix([1, 1, 2, 3], [1, 2, 2, 3], categories=[1, 2, 3])
    assert cats.tolist() == [1, 2, 3] and table.tolist() == [[1, 1, 0], [0, 1, 0], [0, 0, 1]]
    with pytest.raises(ValueError, match="not one of the categories"):
        confusion_matrix([4], [1], categories=[1, 2, 3])


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_krippendorff_alpha_equals_the_krippendorff_package(level: str) -> None:
    data = RNG.integers(1, 5, (3, 40)).astype(float)
    data[1] = np.where(RNG.random(40) < 0.6, data[0], data[1])
    data[2, RNG.random(40) < 0.2] = np.nan  # a rater who skipped items
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert krippendorff_alpha(data, level) == pytest.approx(ref, abs=1e-10)


# irrCAC 0.4.4 (irrCAC.raw.CAC(df).gwet(), and with weights="quadratic", categories=[1, 2, 3]; and
# weights="identity", categories=[1, 2, 3, 4]) on these ratings, where most are "3": it pins scipy==1.12 and
# pandas<3, which the project's constraints exclude, so its values (printed to 5 decimals) are recorded here.
SKEWED_A = [3] * 40 + [2] * 5 + [1] * 3 + [3, 3]
SKEWED_B = [3] * 38 + [2, 3] + [2] * 3 + [3, 3] + [1, 2, 1] + [3, 2]


def test_gwet_ac1_ac2_equal_irrcac_where_kappa_paradox_bites() -> None:
    assert gwet_ac(SKEWED_A, SKEWED_B) == pytest.approx(0.88373, abs=5e-6)
    assert gwet_ac(SKEWED_A, SKEWED_B, categories=[1, 2, 3], weights="quadratic") == pytest.approx(0.96529, abs=5e-6)
    assert gwet_ac(SKEWED_A, SKEWED_B, categories=[1, 2, 3, 4]) == pytest.approx(0.88971, abs=5e-6)
    # the paradox: kappa is far below AC1 on the same, mostly agreeing, ratings
    assert weighted_kappa(SKEWED_A, SKEWED_B, weights="none").kappa < 0.75


def test_bootstrap_kappa_interval_holds_the_estimate_and_shrinks_with_n() -> None:
    from eqbench_nb.analysis.agreement import bootstrap_kappa_ci

    a, b = _two_raters(40, 5)
    k = weighted_kappa(a, b).kappa
    lo, hi = bootstrap_kappa_ci(a, b, reps=400, seed=1)
    assert lo < k < hi
    big_a, big_b = np.tile(a, 9), np.tile(b, 9)
    lo9, hi9 = bootstrap_kappa_ci(big_a, big_b, reps=400, seed=1)
    assert (hi9 - lo9) < (hi - lo) / 2
