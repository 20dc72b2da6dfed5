"""Every hand-written statistic against a well-kept library's, on the project's own data.

The runtime keeps its own vectorised versions (one resample matrix shared by many statistics, which
the libraries would redraw per call); these tests pin them to the references:

- BCa bootstrap interval ............ scipy.stats.bootstrap(method="BCa")
- Cronbach's α ....................... pingouin.cronbach_alpha
- ICC(2,1) ........................... pingouin.intraclass_corr ("ICC2")
- Benjamini–Hochberg ................. statsmodels.stats.multitest.multipletests("fdr_bh")
- the 2PL item model ................. girth.twopl_jml (joint maximum likelihood; ours is joint MAP with weak
                                        priors, so the two agree in order, not to the digit)
- P(X > Y) ........................... rliable.metrics.probability_of_improvement
- performance profiles ............... rliable.library.run_score_deviation, read from its code: importing
                                        rliable.library imports arch.bootstrap, and arch 7.2 fails to import
                                        with pandas 3 (``deprecate_kwarg``), so the one line it computes,
                                        ``np.mean(scores > tau)``, is restated in the test.

The libraries are test-only dependencies (the [dev] extra).
"""

import itertools

import numpy as np
import pandas as pd
import pytest
from conftest import needs_data
from scipy import stats as sps

from eqbench_nb.analysis import psychometrics as psy
from eqbench_nb.analysis import ranks, spread
from eqbench_nb.analysis import stats as S
from eqbench_nb.eqbench.study import published, ranking, repeatability

pingouin = pytest.importorskip("pingouin")
multitest = pytest.importorskip("statsmodels.stats.multitest")


@pytest.fixture(scope="module")
def official_matrix():
    from eqbench_nb.eqbench.study.table import published_runs

    return ranking.convention_matrix(published_runs(), "official").to_numpy()


# ---------------------------------------------------------------- BCa


def _seed(n: int) -> dict:
    """scipy.stats.bootstrap's generator argument: ``rng`` from scipy 1.15, ``random_state`` before."""
    import inspect

    name = "rng" if "rng" in inspect.signature(sps.bootstrap).parameters else "random_state"
    return {name: np.random.default_rng(n)}


@pytest.mark.parametrize("column", ["ollb_arc", "ollb_hellaswag", "arena_elo_20231206"])
def test_bca_interval_equals_scipy_bootstrap_bca(column):
    """Table 3's pairs (paper_scores.csv, n 11-16): our BCa against scipy's, each on 20,000 resamples."""
    ps = published.paper_scores()
    x, y = S._paired_finite(ps["eqbench_v1"], ps[column])
    ours = S.bootstrap_corr_bca(x, y, "pearson", reps=20_000, seed=1)
    ref = sps.bootstrap(
        (x, y),
        lambda a, b, axis=-1: S.rowwise_pearson(np.atleast_2d(a), np.atleast_2d(b)),
        paired=True,
        vectorized=True,
        n_resamples=20_000,
        method="BCa",
        **_seed(2),
    ).confidence_interval
    assert ours.low == pytest.approx(ref.low, abs=0.015)
    assert ours.high == pytest.approx(ref.high, abs=0.01)


def test_bca_interval_is_not_the_percentile_interval_here():
    """The comparison above can fail: at n = 11 near r = 1 the BCa bounds differ from percentile bounds."""
    ps = published.paper_scores()
    x, y = S._paired_finite(ps["eqbench_v1"], ps["ollb_arc"])
    bca = S.bootstrap_corr_bca(x, y, reps=20_000, seed=1)
    pct = S.bootstrap_corr_ci(x, y, "pearson", reps=20_000, seed=1, interval="percentile")
    assert abs(bca.low - pct.low) > 0.02


# ---------------------------------------------------------------- reliability


@needs_data
def test_cronbach_alpha_equals_pingouin(official_matrix):
    z = psy.complete_matrix(official_matrix)
    ref, _ = pingouin.cronbach_alpha(pd.DataFrame(z))
    assert psy.cronbach_alpha(z) == pytest.approx(ref, abs=1e-9)
    top = z[np.argsort(-z.mean(1))[: len(z) // 2]]
    assert psy.cronbach_alpha(top) == pytest.approx(pingouin.cronbach_alpha(pd.DataFrame(top))[0], abs=1e-9)


def test_icc_2_1_equals_pingouin():
    """On the bundled model's 10-iteration run (data/runs): questions as targets, iterations as raters."""
    from eqbench_nb.eqbench.study.table import bundled_model_runs

    run = max(bundled_model_runs(), key=lambda r: len(r.iterations))
    m = repeatability.iteration_score_matrix(run)
    m = m[np.isfinite(m.to_numpy()).all(axis=1)]
    long = m.reset_index().melt(id_vars="question_id", var_name="iteration", value_name="score")
    table = pingouin.intraclass_corr(long, targets="question_id", raters="iteration", ratings="score")
    types = table.set_index("Type")["ICC"]
    ref = float(types.get("ICC2", types.get("ICC(A,1)")))  # pingouin < 0.7 names it ICC2, 0.7 ICC(A,1)
    assert spread.icc_2_1(m.to_numpy()) == pytest.approx(ref, abs=1e-9)


# ---------------------------------------------------------------- multiple comparisons


@needs_data
def test_benjamini_hochberg_equals_statsmodels(official_matrix):
    """p-values of paired t-tests between neighbouring runs (official order) on their common questions."""
    m = official_matrix[np.argsort(-np.nanmean(official_matrix, 1))]
    p = []
    for a, b in itertools.pairwise(m):
        ok = np.isfinite(a) & np.isfinite(b)
        p.append(sps.ttest_rel(a[ok], b[ok]).pvalue)
    p = np.array(p)
    for alpha in (0.05, 0.2):
        rejected, adjusted = ranks.benjamini_hochberg(p, alpha)
        ref_rej, ref_adj, _, _ = multitest.multipletests(p, alpha=alpha, method="fdr_bh")
        np.testing.assert_allclose(adjusted, ref_adj, rtol=1e-12)
        np.testing.assert_array_equal(rejected, ref_rej)
    assert 0 < ranks.benjamini_hochberg(p, 0.2)[0].sum() < len(p)  # some rejected, some not: a real test


# ---------------------------------------------------------------- item response


@needs_data
def test_2pl_orders_items_as_girth_does(official_matrix):
    girth = pytest.importorskip("girth")
    passed = (psy.complete_matrix(official_matrix) >= 7.5).astype(int)
    ours = psy.fit_2pl(passed.astype(float))
    ref = girth.twopl_jml(passed.T)  # girth: items x subjects
    assert sps.spearmanr(ours.b, ref["Difficulty"]).statistic > 0.98
    assert sps.spearmanr(ours.a, ref["Discrimination"]).statistic > 0.95


# ---------------------------------------------------------------- rliable


@needs_data
def test_probability_of_improvement_equals_rliable(official_matrix):
    rl = pytest.importorskip("rliable.metrics")
    m = official_matrix[:12]
    for i in range(len(m)):
        for j in range(i + 1, len(m)):
            ok = np.isfinite(m[i]) & np.isfinite(m[j])
            ref = rl.probability_of_improvement(m[i][ok][None, :], m[j][ok][None, :])
            assert ranks.probability_of_improvement(m[i], m[j]) == pytest.approx(ref, abs=1e-12)


def _rliable_run_score_deviation(scores: np.ndarray, tau: float) -> float:
    """rliable.library.run_score_deviation (rliable 1.2.0), as written there."""
    return float(np.mean(scores > tau))


@needs_data
def test_performance_profiles_equal_rliable_score_distributions(official_matrix):
    """Ours counts a question scored *at least* tau, rliable *more than* tau: equal with rliable's taken just
    below each tau, and different exactly where a question score equals tau (10 = a perfect answer)."""
    taus = np.linspace(-5, 10, 61)  # notebook 02's
    prof = ranks.performance_profiles(official_matrix, taus)["profile"]
    for i, row in enumerate(official_matrix[:20]):
        s = row[np.isfinite(row)]
        below = [_rliable_run_score_deviation(s, np.nextafter(t, -np.inf)) for t in taus]
        np.testing.assert_allclose(prof[i], below, atol=1e-12)
    perfect = np.isfinite(official_matrix) & (official_matrix == 10)
    i = int(np.argmax(perfect.sum(1)))
    s = official_matrix[i][np.isfinite(official_matrix[i])]
    assert prof[i, -1] > _rliable_run_score_deviation(s, 10.0) == 0.0
