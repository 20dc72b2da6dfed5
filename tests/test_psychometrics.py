"""eqbench_nb.analysis.psychometrics on constructed data with known answers."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from eqbench_nb.analysis import psychometrics as P
from eqbench_nb.analysis import stats as S
from eqbench_nb.eqbench.study.key_audit import key_audit


def _parallel(n: int, k: int, rho: float, seed: int = 0) -> np.ndarray:
    """n subjects x k parallel items with inter-item correlation rho (true score + independent error)."""
    rng = np.random.default_rng(seed)
    true = rng.normal(0, 1, size=(n, 1))
    return true + rng.normal(0, np.sqrt(1 / rho - 1), size=(n, k))


def test_alpha_of_parallel_items_is_the_spearman_brown_reliability():
    k, rho = 10, 0.3
    x = _parallel(20_000, k, rho)
    expected = k * rho / (1 + (k - 1) * rho)  # 0.8108
    assert P.cronbach_alpha(x) == pytest.approx(expected, abs=0.006)
    assert float(P.spearman_brown(rho, k)) == pytest.approx(expected)


def test_alpha_interval_covers_the_truth_and_needs_a_complete_matrix():
    k, rho = 8, 0.4
    expected = k * rho / (1 + (k - 1) * rho)
    covered = 0
    for s in range(40):
        iv = P.cronbach_alpha_interval(_parallel(150, k, rho, seed=s), reps=400, seed=s)
        assert iv.low <= iv.estimate <= iv.high and iv.n == 150
        covered += iv.low <= expected <= iv.high
    assert covered >= 33  # nominal 95 % of 40 = 38; percentile bootstrap of alpha runs a little short
    with pytest.raises(ValueError):
        P.cronbach_alpha(np.array([[1.0, np.nan], [2.0, 3.0]]))
    assert P.complete_matrix([[1.0, np.nan]]).tolist() == [[1.0, 0.0]]


def test_split_half_matches_alpha_for_parallel_items():
    x = _parallel(5000, 20, 0.2, seed=1)
    sh = P.split_half(x, splits=50, reps=200)
    expected = 20 * 0.2 / (1 + 19 * 0.2)
    assert sh["random"] == pytest.approx(expected, abs=0.015)
    assert sh["odd_even"] == pytest.approx(expected, abs=0.02)
    assert sh["low"] <= sh["random"] <= sh["high"]


def test_item_rest_finds_reversed_and_noise_items():
    rng = np.random.default_rng(12)  # not _parallel's seed: its first draw is the true score
    x = _parallel(3000, 12, 0.5, seed=2)
    x[:, 3] = -x[:, 3]  # discriminates backwards
    x[:, 7] = rng.normal(size=3000)  # does not discriminate
    r = P.item_rest_correlations(x)
    assert r[3] < -0.4 and abs(r[7]) < 0.05 and (np.delete(r, [3, 7]) > 0.5).all()
    t = P.item_rest_intervals(x, reps=300)
    assert t.r.to_numpy() == pytest.approx(r)
    assert t.loc[7, "low"] < 0 < t.loc[7, "high"] and t.loc[3, "high"] < 0


def test_ceiling_questions():
    m = np.array(
        [[10, 9.5, 5, 8.9], [9, 9.5, 5, 9.1], [9, np.nan, 5, 9.0], [0, 0, 0, 0]],
        dtype=float,
    )
    mask, iv = P.ceiling_questions(m, scores=[3, 2, 1, 0], top=3, threshold=9, reps=200, interval="percentile")
    assert mask.tolist() == [True, True, False, True]  # q2: NaN left out; q4: mean 9.0
    assert iv.estimate == 3 and iv.n == 3 and iv.low <= 3 <= iv.high


def test_2pl_recovers_known_item_parameters():
    rng = np.random.default_rng(3)
    n, k = 1500, 25
    theta = rng.normal(size=n)
    a = rng.uniform(0.6, 2.5, size=k)
    b = rng.uniform(-1.8, 1.8, size=k)
    p = 1 / (1 + np.exp(-a * (theta[:, None] - b)))
    y = (rng.uniform(size=(n, k)) < p).astype(float)
    y[0, 0] = np.nan  # unobserved cells are allowed
    fit = P.fit_2pl(y)
    assert fit.converged
    assert np.corrcoef(fit.b, b)[0, 1] > 0.97
    assert np.corrcoef(fit.a, a)[0, 1] > 0.85
    assert np.corrcoef(fit.theta, theta)[0, 1] > 0.9
    assert fit.theta.mean() == pytest.approx(0, abs=1e-9) and fit.theta.std() == pytest.approx(1)
    assert np.abs(fit.b - b).mean() < 0.25


def test_key_audit_flags_a_question_strong_runs_agree_is_miskeyed():
    rows = []
    rng = np.random.default_rng(4)
    models = [f"m{i}" for i in range(12)]
    for qi in range(30):
        for e, ref in zip("ABCD", [0, 3, 6, 9]):
            for m in models:
                ans = ref + 1 if ref == 0 else ref + rng.integers(-1, 2)  # usual: +1 bias at reference 0
                if qi == 5 and e == "C":
                    ans = 1 + rng.integers(0, 2)  # all strong runs say ~1 where the key says 6
                rows.append((m, str(qi), e, float(ref), float(ans), 5.0))
    answers = pd.DataFrame(rows, columns=["model", "question_id", "emotion", "reference", "answer", "question_score"])
    cells, questions = key_audit(answers, strong=models[:10])
    assert questions.iloc[0].question_id == "5" and questions.iloc[0].flagged == 1
    assert questions.iloc[0].emotion == "C" and questions.iloc[0].agree == 1.0
    assert (questions.iloc[1:].flagged == 0).all()
    zero = cells[(cells.reference == 0)]
    assert (zero.typical_gap == 1).all() and (zero.excess == 0).all()  # the shared bias is not a key error


def test_short_form_picks_informative_questions_and_validates_on_held_out_runs():
    rng = np.random.default_rng(5)
    n, good, noise = 80, 30, 30
    ability = rng.normal(size=(n, 1))
    m = np.hstack([ability + 0.5 * rng.normal(size=(n, good)), rng.normal(size=(n, noise))])
    chosen = P.select_short_form(m, 10, "greedy")
    assert len(set(chosen)) == 10 and (chosen < good).sum() >= 9
    assert (P.select_short_form(m, 10, "item_rest") < good).all()
    assert len(P.select_short_form(m, 10, "random", seed=1)) == 10
    t = P.short_form_cv(m, ks=(5, 20), methods=("greedy", "random"), folds=4, repeats=3, reps=200)
    g = t.set_index(["method", "k"])
    assert g.loc[("greedy", 20), "r"] > g.loc[("random", 20), "r"]
    assert g.loc[("greedy", 20), "r"] > 0.9 and g.loc[("greedy", 20), "rmse"] < g.loc[("greedy", 5), "rmse"]
    assert (t.r_low <= t.r).all() and (t.r <= t.r_high).all()
    with pytest.raises(ValueError):
        P.select_short_form(m, 0)


def test_partial_correlation_and_incremental_r2_on_known_structure():
    rng = np.random.default_rng(6)
    n = 20_000
    z = rng.normal(size=n)
    x = z + rng.normal(size=n)
    y = z + rng.normal(size=n)  # x and y related only through z
    assert P.partial_correlation(x, y, z) == pytest.approx(0, abs=0.02)
    assert P.incremental_r2(y, z, x) == pytest.approx(0, abs=0.002)
    y2 = z + x + rng.normal(size=n)  # x adds: R²(y2 ~ z) = 4/6, R²(y2 ~ z + x) = 5/6
    assert P.incremental_r2(y2, z, x) == pytest.approx(1 / 6, abs=0.01)
    r_xy, r_xz, r_yz = np.corrcoef([x, y2, z])[[0, 0, 1], [1, 2, 2]]
    assert P.partial_correlation(x, y2, z) == pytest.approx(
        (r_xy - r_xz * r_yz) / np.sqrt((1 - r_xz**2) * (1 - r_yz**2))
    )


def test_capability_control_closed_forms_match_regressions_and_clusters_widen():
    rng = np.random.default_rng(7)
    clusters = np.repeat(np.arange(12), 5)  # 12 base models, 5 fine-tunes each, sharing a base effect
    base = rng.normal(size=12)[clusters]
    z = base + 0.3 * rng.normal(size=60)
    x = base + 0.3 * rng.normal(size=60)
    y = base + 0.5 * x + 0.3 * rng.normal(size=60)
    df = pd.DataFrame({"x": x, "y": y, "z": z, "base": clusters})
    t = P.capability_control(df, "x", "y", "z", cluster="base", reps=1000).set_index("statistic")
    assert t.loc["partial_r", "estimate"] == pytest.approx(P.partial_correlation(x, y, z))
    assert t.loc["incremental_r2", "estimate"] == pytest.approx(P.incremental_r2(y, z, x))
    closed = P._control_stats(*np.corrcoef([x, y, z])[[0, 0, 1], [1, 2, 2]])
    for name in ("partial_r", "incremental_r2", "r2_control_only"):
        assert float(closed[name]) == pytest.approx(t.loc[name, "estimate"])
    width = lambda lo, hi: (t[hi] - t[lo]).loc["r"]
    assert width("cluster_low", "cluster_high") > width("low", "high")  # 12 independent units, not 60
    assert (t.n == 60).all() and (t.n_clusters == 12).all()


def test_capability_control_uses_the_small_n_rule_below_30_clusters():
    """Issue 38: 22 lineages got a percentile bootstrap; below 30 units the closed forms take over, with the
    clusters as n (one variable partialled out of the partial r), and so do the models below 30."""
    rng = np.random.default_rng(3)
    clusters = np.repeat(np.arange(12), 4)
    base = rng.normal(size=12)[clusters]
    z, x = base + rng.normal(size=48), base + rng.normal(size=48)
    y = base + 0.4 * x + rng.normal(size=48)
    df = pd.DataFrame({"x": x, "y": y, "z": z, "c": clusters})
    t = P.capability_control(df, "x", "y", "z", cluster="c", reps=300).set_index("statistic")
    pr, r = t.loc["partial_r"], t.loc["r"]
    assert (pr.cluster_low, pr.cluster_high) == pytest.approx(S.fisher_z_ci(pr.estimate, 11))
    assert (r.cluster_low, r.cluster_high) == pytest.approx(S.fisher_z_ci(r.estimate, 12))
    assert pr.cluster_method.startswith("Fisher z with n = 11 (12 clusters")
    inc = t.loc["incremental_r2"]
    assert 0.0 <= inc.cluster_low <= inc.estimate <= inc.cluster_high <= 1.0
    assert "leaving out one of 12 clusters" in inc.cluster_method
    assert t.method.str.startswith("percentile bootstrap over 48").all()  # 48 models: a bootstrap is allowed
    few = P.capability_control(df.iloc[:20], "x", "y", "z", reps=300).set_index("statistic")  # no error below 30
    assert (few.loc["r", "low"], few.loc["r", "high"]) == pytest.approx(S.fisher_z_ci(few.loc["r", "estimate"], 20))


def test_alpha_and_item_rest_take_the_lineages_as_units():
    """Issue 38: runs that are copies of one model are one unit; below 30 lineages a jackknife t over them."""
    rng = np.random.default_rng(2)
    ability = rng.normal(size=9)
    lineages = np.repeat(np.arange(9), 4)
    m = ability[lineages, None] + rng.normal(0, 1.0, (9, 12))[lineages] + rng.normal(0, 0.05, (36, 12))
    a = P.cronbach_alpha_interval(m, reps=500, clusters=lineages)
    by_hand = [P.cronbach_alpha(m[lineages != g]) for g in range(9)]
    lo, hi = S.jackknife_t_interval(a.estimate, by_hand)
    assert (a.low, a.high) == pytest.approx((lo, min(hi, 1.0)))  # α cannot exceed 1
    assert a.n == 9 and a.method.startswith("Student t on 8 df")
    runs = P.cronbach_alpha_interval(m, reps=500)
    assert a.high - a.low > 1.5 * (runs.high - runs.low) and runs.n == 36
    items = P.item_rest_intervals(m, reps=500, clusters=lineages)
    jack = np.array([P.item_rest_correlations(m[lineages != g]) for g in range(9)])
    lo, hi = S.jackknife_t_interval(items.r[0], jack[:, 0])
    assert (items.low[0], items.high[0]) == pytest.approx((max(lo, -1), min(hi, 1)))
    assert items.attrs["method"].startswith("Student t on 8 df")


def test_cluster_bootstrap_weights():
    w = P.cluster_bootstrap_weights(["a", "a", "b", "c", "c", "c"], reps=500, seed=1)
    assert w.shape == (500, 6)
    assert (w[:, 0] == w[:, 1]).all() and (w[:, 3] == w[:, 5]).all()
    drawn = w[:, [0, 2, 3]]
    assert (drawn.sum(1) == 3).all()  # three clusters drawn each time
    plain = P.cluster_bootstrap_weights(range(6), reps=500, seed=1)
    assert (plain.sum(1) == 6).all()


def test_base_model_table_has_a_source_for_every_row():
    from eqbench_nb.eqbench.study.published import base_models

    t = base_models()
    assert {"model", "base_model", "lineage", "source", "source_kind"} <= set(t.columns)
    assert t.model.is_unique and t.source.notna().all() and t.lineage.notna().all()


def test_alpha_interval_resamples_subjects_not_items():
    x = _parallel(60, 30, 0.3, seed=8)
    iv = P.cronbach_alpha_interval(x, reps=300)
    # the bootstrap SD over subjects is close to the asymptotic SE of alpha (Feldt); a sanity band
    assert 0.005 < (iv.high - iv.low) / 4 < 0.08
    assert sps.pearsonr(x[:, 0], x[:, 1])[0] > 0


def test_short_form_validation_reports_its_monte_carlo_error_and_a_run_interval():
    """Issue 30, misleading 1: the error on new questions is a simulation over random splits; the table carries the
    spread over repeats (its Monte-Carlo error) and an interval with the runs resampled."""
    rng = np.random.default_rng(0)
    theta = rng.normal(size=(60, 1))
    x = 5 + theta * np.linspace(0.2, 1.5, 40)[None, :] + rng.normal(0, 1, (60, 40))
    v = P.short_form_validation(x, ks=(8,), methods=("greedy",), repeats=6, seed=0, reps=300).iloc[0]
    assert v.repeats == 6 and np.isfinite(v.rmse_universe_mc_se) and v.rmse_universe_mc_se > 0
    assert v.rmse_universe_repeat_low <= v.rmse_universe <= v.rmse_universe_repeat_high
    assert v.rmse_universe_low < v.rmse_universe < v.rmse_universe_high
    few = P.short_form_validation(x, ks=(8,), methods=("greedy",), repeats=2, seed=0, reps=300).iloc[0]
    assert few.rmse_universe_mc_se > 0  # two repeats still give an error, a wider one in expectation
