"""Each verdict sentence of notebooks 06, 07 and 08 that the numbers choose, on simulated data where its claim
is false (the sentence must not be chosen, or only at about the test's error rate) and where it is true (it
must be chosen). The null each one is tested against is named in its function's docstring."""

import numpy as np
import pandas as pd
import pytest

from eqbench_nb import load_questions
from eqbench_nb.analysis import psychometrics as psy
from eqbench_nb.analysis import stats as S
from eqbench_nb.eqbench.study import metric as m
from eqbench_nb.eqbench.study import paper as A

# ---------------------------------------------------------------- 06: compression against clipped noise


def _ratings_table(answer_fn, runs: int = 25, seed: int = 0) -> pd.DataFrame:
    """A run table of ``runs`` simulated runs over the real v2 references; answers from ``answer_fn(ref, rng)``."""
    ref = m.references(load_questions("v2")).ravel().astype(int)
    rng = np.random.default_rng(seed)
    rows = [
        pd.DataFrame({"model": f"sim{i}", "run_id": "r", "reference": ref, "answer": answer_fn(ref, rng)})
        for i in range(runs)
    ]
    return pd.concat(rows, ignore_index=True)


def _clipped(x):
    return np.clip(np.rint(x), 0, 10)


def test_compression_verdict_not_chosen_for_clipped_noise():
    """Claim false: ratings are the reference plus clipped noise, no compression in them."""
    chosen = 0
    for seed in range(10):
        t = _ratings_table(lambda r, g: _clipped(r + g.normal(0, 3.0, r.shape)), seed=seed)
        res = m.compression_null_slope(t, reps=400, seed=seed, lineages=S.NO_LINEAGES)
        assert res.observed.estimate < 0.9  # clipping alone pulls the slope well below 1 ...
        chosen += res.verdict.startswith("compressed beyond clipping")  # ... but that is not compression
    assert chosen <= 2


def test_compression_verdict_chosen_for_compressed_ratings():
    """Claim true: ratings pulled toward the middle (slope 0.6 before noise and clipping)."""
    t = _ratings_table(lambda r, g: _clipped(2.0 + 0.6 * r + g.normal(0, 2.5, r.shape)))
    res = m.compression_null_slope(t, reps=400, seed=0, lineages=S.NO_LINEAGES)
    assert res.verdict == "compressed beyond clipping and independent key error"
    assert res.difference.high < 0 and res.ratio.high < res.key_floor.ratio


def test_a_noisy_key_is_not_read_as_raters_that_compress():
    """Issue 30, misleading 2. Claim ("the raters compress beyond clipping") false: the raters follow the true
    intensities with clipped noise, but the key they are judged against has independent noise of its own (SD 2).
    The clipped-noise null, which assumes an error-free key, finds the slope below it; the verdict must name key
    error as an explanation, and the key-error floor must cover the observed ratio."""
    from eqbench_nb.analysis import nulls

    truth = m.references(load_questions("v2")).ravel().astype(float)
    rng = np.random.default_rng(0)
    key = np.clip(np.rint(truth + rng.normal(0, 2.0, truth.shape)), 0, 10).astype(int)
    rows = []
    for i in range(25):
        answer = _clipped(truth + rng.normal(0, 2.3, truth.shape))
        rows.append(pd.DataFrame({"model": f"sim{i}", "run_id": "r", "reference": key, "answer": answer}))
    res = m.compression_null_slope(pd.concat(rows, ignore_index=True), reps=300, seed=0, lineages=S.NO_LINEAGES)
    assert res.difference.high < 0  # the error-free-key null is rejected ...
    assert res.verdict == "compressed beyond clipping, or key error"  # ... but compression is not claimed
    assert res.ratio.high >= res.key_floor.ratio  # within what independent key error can produce
    explained = nulls.key_error_to_explain(truth, res.mae, res.ratio.estimate)
    assert explained is not None and 1.0 < explained.key_sd < 3.0


def test_the_first_reckoning_of_key_reliability_overstates_what_key_error_explains():
    """Dividing the observed slope by the null's (0.618 / 0.781 = 0.79 on the published runs) would say a key of
    reliability 0.79 explains everything; with the null refitted to the error that key noise itself adds, independent
    key error cannot push the ratio below the floor, which sits well above 0.79 on the published references."""
    from eqbench_nb.analysis import nulls
    from eqbench_nb.eqbench.study.table import published_runs, run_table

    t = run_table(published_runs())
    floor = nulls.key_error_floor(t.reference.to_numpy(), float((t.answer - t.reference).abs().mean()))
    assert nulls.key_reliability_to_explain(0.618, 0.781) == pytest.approx(0.79, abs=0.005)
    assert 0.85 < floor.ratio < 0.95 and 0.6 < floor.reliability < 0.8 and floor.rater_sd < 0.3
    shares = nulls.exact_share_range(t.reference.to_numpy())
    assert round(shares[2.5], 3) == 0.315 and round(shares[3.5], 3) == 0.278  # a check that can hardly fail


def test_clipped_noise_null_reproduces_the_exact_share_it_was_not_fitted_to():
    t = _ratings_table(lambda r, g: _clipped(r + g.normal(0, 2.0, r.shape)), runs=40)
    res = m.compression_null_slope(t, reps=200, lineages=S.NO_LINEAGES)
    assert res.noise_sd == pytest.approx(2.0, abs=0.1)
    assert res.exact_null == pytest.approx(res.exact_observed, abs=0.01)


# ---------------------------------------------------------------- 06: which questions fail


def _score_matrix(fail: str, seed: int) -> pd.DataFrame:
    """40 runs x 120 questions: question difficulty + run ability + noise; 15 runs fail 12 questions each."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(7, 2, 120)
    x = difficulty[None, :] + rng.normal(0, 1, (40, 1)) + rng.normal(0, 1.5, (40, 120))
    for i in range(15):
        cols = np.argsort(difficulty)[:12] if fail == "hardest" else rng.choice(120, 12, replace=False)
        x[i, cols] = np.nan
    return pd.DataFrame(x)


@pytest.mark.parametrize("seed", range(3))
def test_failed_difficulty_verdict_not_chosen_for_random_failures(seed):
    per_run = m.failed_question_difficulty(_score_matrix("random", seed))
    ci = S.mean_interval(per_run.difference.to_numpy(), reps=2000, seed=seed)
    assert m.failed_difficulty_verdict(ci.low, ci.high) == "neither"


def test_failed_difficulty_verdict_chosen_when_runs_fail_the_hardest_questions():
    per_run = m.failed_question_difficulty(_score_matrix("hardest", 0))
    ci = S.mean_interval(per_run.difference.to_numpy(), reps=2000, seed=0)
    assert m.failed_difficulty_verdict(ci.low, ci.high) == "harder"


# ---------------------------------------------------------------- 07: Table 3, a printed r against ours


def _sample_r(rho: float, n: int, rng) -> float:
    xy = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=n)
    return S.pearson_r(xy[:, 0], xy[:, 1])


def test_table3_outside_not_chosen_when_the_printed_r_is_the_truth():
    """n = 11, true r = printed r = 0.91: with Fisher z, 'outside our interval' about 5 % of the time (a
    percentile bootstrap at this n says it far more often)."""
    rng = np.random.default_rng(0)
    verdicts = []
    for _ in range(400):
        r = _sample_r(0.91, 11, rng)
        lo, hi = S.fisher_z_ci(r, 11)
        verdicts.append(A.agreement(0.91, r, lo, hi))
    assert np.mean(np.array(verdicts) == "outside our interval") < 0.09


def test_table3_outside_chosen_when_the_printed_r_is_far_from_the_truth():
    rng = np.random.default_rng(1)
    verdicts = []
    for _ in range(200):
        r = _sample_r(0.3, 16, rng)
        lo, hi = S.fisher_z_ci(r, 16)
        verdicts.append(A.agreement(0.91, r, lo, hi))
    assert np.mean(np.array(verdicts) == "outside our interval") > 0.9


# ---------------------------------------------------------------- 08: ceiling questions' share of the variance


def _one_factor(n: int, loadings: np.ndarray, seed: int, noise: float = 1.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n, 1))
    return theta * loadings[None, :] + rng.normal(0, noise, (n, len(loadings)))


def test_ceiling_verdict_not_distinguishable_for_equal_items():
    """Claim ('less than their share') false: every item loads the same. The interval includes the items' share,
    which is "not distinguishable", never "about their share" (issue 30: touching the null is not the null)."""
    x = _one_factor(60, np.full(40, 0.6), seed=3)
    mask = np.arange(40) < 15
    share = psy.variance_share_interval(x, mask, reps=500, seed=0)
    assert psy.ceiling_verdict(share.low, share.high, mask.mean()) == "not distinguishable from their share"


def test_ceiling_verdict_less_than_their_share_for_items_that_measure_nothing():
    loadings = np.where(np.arange(40) < 15, 0.0, 0.8)
    x = _one_factor(60, loadings, seed=3)
    mask = np.arange(40) < 15
    share = psy.variance_share_interval(x, mask, reps=500, seed=0)
    assert psy.ceiling_verdict(share.low, share.high, mask.mean()) == "less than their share"


def test_variance_shares_add_to_one():
    x = _one_factor(30, np.linspace(0, 1, 12), seed=0)
    mask = np.arange(12) % 3 == 0
    assert psy.variance_share(x, mask) + psy.variance_share(x, ~mask) == pytest.approx(1.0)


# ---------------------------------------------------------------- 08: the short form


def test_short_form_not_supported_when_questions_measure_nothing_in_common():
    """Claim ('supported') false: no common factor, so choosing questions cannot beat random ones."""
    x = _one_factor(80, np.zeros(60), seed=0, noise=2.0) + 5
    val = psy.short_form_validation(x, ks=(10,), repeats=3, seed=0).set_index("method")
    verdict = psy.short_form_verdict(
        val.coverage["greedy"], 0.95, 80, val.rmse_universe["greedy"], val.rmse_universe["random"]
    )
    assert verdict != "supported"


def test_short_form_supported_when_a_few_questions_carry_the_measurement():
    loadings = np.where(np.arange(60) < 12, 1.5, 0.15)
    x = _one_factor(80, loadings, seed=0, noise=1.0) + 5
    val = psy.short_form_validation(x, ks=(10,), repeats=3, seed=0).set_index("method")
    verdict = psy.short_form_verdict(
        val.coverage["greedy"], 0.95, 80, val.rmse_universe["greedy"], val.rmse_universe["random"]
    )
    assert verdict == "supported"


def test_short_form_interval_without_cross_validated_sd_is_flagged_miscalibrated():
    assert psy.short_form_verdict(0.75, 0.95, 86, 1.0, 2.0) == "interval miscalibrated"
    assert psy.interval_calibrated(0.94, 0.95, 86)


# ---------------------------------------------------------------- 08: partial correlation beyond the control


def _three(n: int, partial: float, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    x = z + rng.normal(size=n)
    y = z + partial * (x - z) + rng.normal(size=n)
    return pd.DataFrame({"x": x, "y": y, "z": z, "cluster": np.arange(n) % max(2, n // 3)})


def test_partial_r_verdict_not_both_when_there_is_nothing_beyond_the_control():
    chosen = 0
    for seed in range(10):
        c = psy.capability_control(_three(40, 0.0, seed), "x", "y", "z", cluster="cluster", reps=500, seed=seed)
        pr = c.set_index("statistic").loc["partial_r"]
        chosen += psy.partial_r_verdict(pr.low, pr.high, pr.cluster_low, pr.cluster_high) == "both"
    assert chosen <= 2


def test_partial_r_verdict_both_when_there_is():
    c = psy.capability_control(_three(120, 0.8, 0), "x", "y", "z", cluster="cluster", reps=500, seed=0)
    pr = c.set_index("statistic").loc["partial_r"]
    assert psy.partial_r_verdict(pr.low, pr.high, pr.cluster_low, pr.cluster_high) == "both"
