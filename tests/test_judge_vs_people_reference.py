"""The judge-against-people bootstrap draws every resample's kappa and Spearman at once (analysis/judge_vs_people.py:
vectorised, 18 s -> 2.3 s a report); each must equal the reference functions on that resample written out item by
item: the project's kappa_from_table (checked against scikit-learn elsewhere) and scipy's Spearman."""

import numpy as np
import pytest
from scipy import stats

from eqbench_nb.analysis import judge_vs_people as jvp
from eqbench_nb.analysis.agreement import confusion_matrix, kappa_from_table


@pytest.mark.parametrize("seed", range(5))
def test_each_resamples_kappa_and_spearman_equal_the_reference_on_the_items_it_drew(seed):
    rng = np.random.default_rng(seed)
    n = 60
    person = rng.integers(1, 4, n).astype(float)
    judge = np.where(rng.random(n) < 0.6, person, rng.integers(1, 4, n)).astype(float)
    clusters = rng.integers(0, 12, n)
    cats, a, b = jvp._codes(person, judge)
    q = len(cats)
    weights = jvp.cluster_weights(clusters, reps=40, seed=seed)
    kappas, rhos = jvp._kappas(weights, a, b, q), jvp._spearmans(weights, a, b, q)
    for row, kappa, rho in zip(weights, kappas, rhos):
        drawn = np.repeat(np.arange(n), row.astype(int))
        x, y = person[drawn], judge[drawn]
        _, table = confusion_matrix(x, y, cats)
        want = kappa_from_table(table).kappa
        assert (np.isnan(kappa) and np.isnan(want)) or kappa == pytest.approx(want, abs=1e-12)
        want_rho = stats.spearmanr(x, y).statistic if len(set(x)) > 1 and len(set(y)) > 1 else np.nan
        assert (np.isnan(rho) and np.isnan(want_rho)) or rho == pytest.approx(want_rho, abs=1e-9)
