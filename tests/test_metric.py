import dataclasses
import itertools
import math

import numpy as np
import pytest

from eqbench_nb import load_questions, score_question, score_run
from eqbench_nb.eqbench.scoring import ADJUST_CONST, fullscale_penalty, score_v1
from eqbench_nb.eqbench.study import metric as m


@pytest.fixture(scope="module")
def qs():
    return load_questions("v2")


def test_penalty_curve_matches_scalar_penalty_and_is_below_abs_error_until_5():
    d = np.linspace(0, 10, 101)
    f = m.penalty_curve(d)
    assert f == pytest.approx([fullscale_penalty(x) for x in d])
    assert np.all(f[(d > 0) & (d <= 5)] < d[(d > 0) & (d <= 5)])  # the sigmoid forgives small errors
    assert np.all(f[d > 5] == d[d > 5])
    assert m.penalty_curve([[1, 2], [3, 4]]).shape == (2, 2)


def test_expected_random_score_matches_upstream_discrepancy(qs):
    assert m.expected_random_score(qs) == pytest.approx(1.435, abs=1e-3)
    c0 = m.zero_random_constant(qs)
    assert c0 == pytest.approx(0.7586, abs=1e-4)
    assert m.expected_random_score(qs, c0) == pytest.approx(0.0, abs=1e-9)


def test_exact_random_expectation_agrees_with_monte_carlo(qs):
    sims = m.simulate_run_scores(qs, "random", n_runs=4000, seed=1)
    se = sims.std(ddof=1) / math.sqrt(len(sims))
    assert abs(sims.mean() - m.expected_random_score(qs)) < 4 * se


def test_exact_random_expectation_agrees_with_full_enumeration_on_two_questions(qs):
    sub = qs[:2]
    means = []
    for q in sub:
        s = [score_question(dict(zip(q.emotions, a)), q) for a in itertools.product(range(11), repeat=4)]
        means.append(np.mean(s))
    assert m.expected_random_score(sub) == pytest.approx(10 * np.mean(means), abs=1e-9)


def test_simulation_uses_the_same_scoring_as_score_question(qs):
    # one simulated random run recomputed answer by answer with score_question
    rng = np.random.default_rng(5)
    ref = m.references(qs)
    ans = rng.integers(0, 11, size=ref.shape)
    direct = 10 * np.mean([score_question(dict(zip(q.emotions, a.tolist())), q) for q, a in zip(qs, ans)])
    sims = m.simulate_run_scores(qs, "random", n_runs=1, seed=5)
    assert sims[0] == pytest.approx(direct, abs=1e-9)


def test_all_zero_answer_matches_hand_computation_for_one_question(qs):
    q = qs[0]
    hand = 10 - ADJUST_CONST * sum(fullscale_penalty(r) for r in q.reference.values())
    assert score_question({e: 0 for e in q.emotions}, q) == pytest.approx(hand)
    # and for a hand-written key: refs 0, 2, 5, 8 -> f = 0, 0.5406, 4.9954, 8
    ref = {"A": 0, "B": 2, "C": 5, "D": 8}
    assert score_question({k: 0 for k in ref}, ref) == pytest.approx(
        10 - ADJUST_CONST * (0.5406 + 4.9954 + 8), abs=1e-3
    )
    consts = m.constant_answer_scores([q], [0])
    assert consts.loc[0, "score"] == pytest.approx(10 * hand)


def test_constant_answers_exact_and_best_constant(qs):
    c = m.constant_answer_scores(qs)
    assert list(c["k"]) == list(range(11))
    # the constant answers also follow from the exact-expectation machinery (point masses)
    for k in (0, 3, 10):
        assert c.loc[k, "score"] == pytest.approx(m.expected_run_score(qs, m.constant_probs(m.references(qs), k)))
    best = c.loc[c["score"].idxmax()]
    assert best["k"] == 3 and best["score"] > m.expected_random_score(qs) + 30


def test_noisy_probabilities_sum_to_one_and_match_simulation(qs):
    ref = m.references(qs)
    for sd in (0.0, 0.7, 2.5):
        p = m.noisy_probs(ref, sd)
        assert p.sum(axis=-1) == pytest.approx(np.ones(ref.shape))
    assert m.expected_run_score(qs, m.noisy_probs(ref, 0.0)) == pytest.approx(100.0)
    df = m.noisy_answer_scores(qs, [1.0, 2.0], n_runs=2000, seed=3)
    for _, row in df.iterrows():
        assert row["sim_mean"] == pytest.approx(row["expected"], abs=0.15)
    assert df["expected"].is_monotonic_decreasing


def test_rescale_and_tally_round_trip(qs):
    q = qs[3]
    ans = {e: 5 for e in q.emotions}
    s = score_question(ans, q)
    t = m.question_tally(ans, q)
    assert t == pytest.approx(sum(fullscale_penalty(5 - r) for r in q.reference.values()))
    assert m.rescale(s, ADJUST_CONST) == pytest.approx(s)
    assert m.rescale(s, 0.5) == pytest.approx(10 - 0.5 * t)
    assert m.question_tally({"x": 1}, q) is None


def test_parse_failure_sweep_official_flat_lm_eval_linear(qs):
    rates = [0.0, 0.1, 0.2, 0.3, 0.5]
    sweep = m.parse_failure_sweep(qs, rates, sd=0.0)  # perfect answers where parseable
    off = sweep[sweep.convention == "official"]
    lm = sweep[sweep.convention == "lm-eval"]
    ev = sweep[sweep.convention == "evalscope"]
    assert np.allclose(off["score"], 100.0)
    n_ok = np.array([len(qs) - round(r * len(qs)) for r in rates])
    assert np.allclose(lm["score"], 100.0 * n_ok / len(qs), atol=0.01)
    slope = np.polyfit(lm["rate"], lm["score"], 1)
    assert slope[0] == pytest.approx(-100, abs=1)
    assert np.allclose(ev["score_100"], lm["score"], atol=0.01)
    assert list(off["failed"]) == [False, False, True, True, True]


def test_evalscope_clamps_negative_question_scores(qs):
    # an awful model (every emotion off by 10 from a 0 or 10 answer) has negative v2 scores
    answers = [{e: (10 if q.reference[e] < 5 else 0) for e in q.emotions} for q in qs]
    run = m.synthetic_run(qs, 0.0, answers=answers)
    scores = m.convention_scores(run)
    assert scores["official"] < 0 and scores["lm-eval"] == pytest.approx(scores["official"], abs=0.01)
    assert scores["evalscope"] == 0.0


def test_synthetic_run_failure_count_and_nesting(qs):
    a = m.synthetic_run(qs, 0.1, sd=1.0, seed=7)
    b = m.synthetic_run(qs, 0.3, sd=1.0, seed=7)
    fa = {r.question_id for r in a.records if r.first_pass_score is None}
    fb = {r.question_id for r in b.records if r.first_pass_score is None}
    assert len(fa) == round(0.1 * len(qs)) and fa <= fb
    assert score_run(a).n_parseable == len(qs) - len(fa)


@pytest.mark.parametrize("sd", [0.0, 1.5, 40.0])
def test_synthetic_answers_are_the_seeded_noise_rounded_and_clipped_one_by_one(qs, sd):
    """The answers are computed on the whole array at once; each must be what the scalar rule gives for its own
    draw: the seed's permutation first, then the noise, question by question in the key's emotion order (notebook
    06's sweeps rest on this stream). sd 40 clips nearly every rating."""
    rng = np.random.default_rng(5)
    rng.permutation(len(qs))
    noise = rng.normal(0.0, sd, size=(len(qs), 4)) if sd else np.zeros((len(qs), 4))
    run = m.synthetic_run(qs, 0.2, sd=sd, seed=5)
    answered = 0
    for i, (q, r) in enumerate(zip(qs, run.records)):
        if r.first_pass:
            expected = {
                e: float(np.clip(np.rint(q.reference[e] + noise[i, j]), 0, 10)) for j, e in enumerate(q.emotions)
            }
            assert list(r.first_pass.items()) == list(expected.items())
            assert all(type(v) is float for v in r.first_pass.values())
            answered += 1
    assert answered == len(qs) - round(0.2 * len(qs))


def test_answers_from_table_are_pandas_groups_in_order_and_type():
    """answers_from_table cuts a sorted table instead of a groupby sub-frame per group; it must give groupby's
    groups exactly: sorted keys, each answer's emotions in the rows' order, Python floats, NaN keys left out,
    whatever the row order of the table."""
    import pandas as pd

    from eqbench_nb.eqbench.study.table import run_table

    qs = load_questions("v2")[:30]
    table = run_table([m.synthetic_run(qs, 0.2, sd=1.5, seed=s, model=f"model {s % 3}") for s in range(5)])
    table = table.iloc[np.random.default_rng(1).permutation(len(table))].reset_index(drop=True)
    table.loc[table.index % 37 == 0, "question_id"] = None
    keys = ["model", "run_id", "iteration", "question_id"]
    expected = pd.DataFrame(
        [
            (*k, dict(zip(g["emotion"], g["answer"])), float(g["question_score"].iloc[0]))
            for k, g in table.groupby(keys)
        ],
        columns=keys + ["answer", "v2"],
    )
    got = m.answers_from_table(table)
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert [list(a.items()) for a in got.answer] == [list(a.items()) for a in expected.answer]
    assert {type(v) for a in got.answer for v in a.values()} == {float}
    assert m.answers_from_table(table.iloc[:0]).columns.tolist() == keys + ["answer", "v2"]


def test_v1_scoring_of_table_answers_rejects_all_zero():
    import pandas as pd

    from eqbench_nb.eqbench.questions import questions_by_id

    by_id = questions_by_id("v2")
    q = by_id["1"]
    rows = []
    for model, ans in (("m1", dict(q.reference)), ("m2", {e: 0.0 for e in q.emotions})):
        for e in q.emotions:
            rows.append(
                {
                    "model": model,
                    "run_id": "1",
                    "iteration": 1,
                    "question_id": "1",
                    "emotion": e,
                    "answer": ans[e],
                    "question_score": score_question(ans, q),
                }
            )
    qsc = m.v1_v2_question_scores(pd.DataFrame(rows), by_id)
    assert qsc.set_index("model").loc["m1", "v2"] == pytest.approx(10)
    assert qsc.set_index("model").loc["m1", "v1"] == pytest.approx(score_v1(dict(q.reference), q.reference_normalised))
    assert math.isnan(qsc.set_index("model").loc["m2", "v1"])
    rs = m.v1_v2_run_scores(qsc).set_index("model")
    assert rs.loc["m2", "n_v1"] == 0 and rs.loc["m2", "n_v2"] == 1


def test_constant_answers_on_the_v1_scale():
    from eqbench_nb import load_questions
    from eqbench_nb.eqbench.study import metric as M

    v1 = load_questions("v1")
    t = M.constant_answer_scores(v1, [0, 3, 7], scale="v1").set_index("k")
    assert np.isnan(t.loc[0, "score"])  # all zero: unparseable under v1
    assert t.loc[3, "score"] == pytest.approx(t.loc[7, "score"])  # normalised: any k > 0 is 2.5 each
    by_hand = 10 * np.mean([10 - sum(abs(2.5 - q.reference_normalised[e]) for e in q.emotions) for q in v1])
    assert t.loc[3, "score"] == pytest.approx(by_hand)


def test_failing_the_hardest_questions_raises_official_and_lowers_lm_eval(qs):
    # 20 questions: answers equal to the reference score 10; the first 5 are off by up to 3 (scores between 0 and 10)
    sub = qs[:20]
    answers = [
        {e: (min(q.reference[e] + 3, 10) if i < 5 else q.reference[e]) for e in q.emotions} for i, q in enumerate(sub)
    ]
    base = m.synthetic_run(sub, 0.0, answers=answers)
    scores = np.array([r.first_pass_score for r in base.records])
    order = m.hardest_first(base)
    assert sorted(order[:5]) == sorted(np.argsort(scores, kind="stable")[:5].tolist())
    assert set(order[5:]) == set(range(5, 20))  # the perfect answers come after every worse one
    sweep = m.parse_failure_sweep(sub, [0.0, 0.1, 0.25], answers=answers, fail_order=order)
    off = sweep[sweep.convention == "official"].score.to_numpy()
    lm = sweep[sweep.convention == "lm-eval"].score.to_numpy()
    assert (scores[:5] > 0).all() and (scores[:5] < 10).all()
    kept = np.sort(scores)[5:]  # at 25 % the five worse answers fail: the official mean is over the rest
    assert off[2] == pytest.approx(10 * kept.mean(), abs=0.01) and off[0] < off[1] < off[2]
    assert lm[2] == pytest.approx(10 * kept.sum() / 20, abs=0.01) and lm[2] < lm[0]


def test_failure_mechanism_sweep_random_failures_leave_official_flat_and_hardest_raise_it(qs):
    sweep = m.failure_mechanism_sweep(qs, [0.0, 0.1, 0.16], sd=3.0, seed=0)
    off = sweep[sweep.convention == "official"].pivot(index="rate", columns="mechanism", values="score")
    lm = sweep[sweep.convention == "lm-eval"].pivot(index="rate", columns="mechanism", values="score")
    assert off.loc[0.0, "random"] == off.loc[0.0, "hardest"]  # the same answers
    assert abs(off.loc[0.16, "random"] - off.loc[0.0, "random"]) < 2
    assert off.loc[0.16, "hardest"] > off.loc[0.1, "hardest"] > off.loc[0.0, "hardest"] + 3
    assert lm.loc[0.16, "hardest"] < lm.loc[0.1, "hardest"] < lm.loc[0.0, "hardest"]


def test_question_failures_and_leave_one_out_difficulty():
    import pandas as pd

    # 3 runs x 3 questions; run "a" fails question "q2", run "b" fails "q3"
    mat = pd.DataFrame(
        [[8.0, np.nan, 2.0], [6.0, 4.0, np.nan], [4.0, 0.0, 6.0]], index=["a", "b", "c"], columns=["q1", "q2", "q3"]
    )
    qf = m.question_failures(mat)
    assert qf.failed.tolist() == [0, 1, 1]
    assert qf.difficulty.tolist() == pytest.approx([60.0, 20.0, 40.0])
    d = m.failed_question_difficulty(mat).set_index("run")
    assert list(d.index) == ["a", "b"]
    # for "a": q2 over b, c = 10 x (4 + 0) / 2 = 20; its parsed q1 over b, c = 50, q3 over c = 60 -> 55
    assert d.loc["a", "difficulty_failed"] == pytest.approx(20.0)
    assert d.loc["a", "difficulty_parsed"] == pytest.approx(55.0)
    assert d.loc["a", "difference"] == pytest.approx(-35.0)
    # for "b": q3 over a, c = 40; q1 over a, c = 60, q2 over c = 0 -> 30
    assert d.loc["b", "difference"] == pytest.approx(10.0)


# ---------------------------------------------------------------- issue 21: exact v1 baseline, shift, tail


def test_exact_v1_random_baseline_agrees_with_simulation_and_score_v1():
    qs = load_questions("v1")
    exact = m.exact_random_v1_question_scores(qs[:3])
    # brute force with score_v1 itself over all 11^4 answers of one question
    q = qs[0]
    grid = np.stack(np.meshgrid(*[np.arange(11)] * 4, indexing="ij"), -1).reshape(-1, 4)
    brute = [score_v1(dict(zip(q.emotions, a.tolist())), q.reference_normalised) for a in grid]
    brute = [s for s in brute if s is not None]
    assert len(brute) == 11**4 - 1
    assert exact[0] == pytest.approx(np.mean(brute), abs=1e-9)
    sim = m.expected_random_v1_score(qs, n_answers=2000, seed=1)
    assert m.expected_random_v1_score(qs) == pytest.approx(sim, abs=0.3)
    assert m.expected_random_v1_score(qs) > 0  # random answers do not score 0 under v1


def test_v1_question_scores_stay_in_their_range():
    lo, hi = m.V1_QUESTION_RANGE
    u = m._all_v1_answers()
    for q in load_questions("v1")[:5]:
        ref = np.array([q.reference_normalised[e] for e in q.emotions])
        s = 10 - np.abs(u - ref).sum(1)
        assert lo - 1e-9 <= s.min() and s.max() <= hi + 1e-9


def test_shift_against_noise_scores_the_shifted_answers_exactly():
    qs = load_questions("v2")[:30]
    t = m.shift_against_noise(qs, shifts=(1, -2)).set_index("shift")
    for b in (1, -2):
        direct = np.mean(
            [score_question({e: float(np.clip(q.reference[e] + b, 0, 10)) for e in q.emotions}, q, "v2") for q in qs]
        )
        assert t.shift_score[b] == pytest.approx(10 * direct, abs=1e-9)
    assert t.noise_score[1] < t.shift_score[1]  # the convex penalty: noise of the same size costs more


def test_question_score_tail_shares():
    s = np.array([10, 9, 8, -1, -6, np.nan])
    tail = m.question_score_tail(s)
    assert tail["n"] == 5 and tail["share_below_0"] == pytest.approx(0.4) and tail["min"] == -6
    assert tail["worst_decile_loss_share"] == pytest.approx(16 / (0 + 1 + 2 + 11 + 16))


# ---------------------------------------------------------------- the sweep's shared draw against the plain build


def _plain_synthetic_run(questions, failure_rate, sd, seed, answers=None, fail_order=None):
    """synthetic_run as it was before the sweep drew once for all rates: every record built and scored at each call."""
    from eqbench_nb.eqbench.header import EqBenchHeader
    from eqbench_nb.eqbench.runs import EqBenchRun, RunRecord, score_record
    from eqbench_nb.runner.header import RunHeader

    rng = np.random.default_rng(seed)
    n = len(questions)
    n_fail = round(failure_rate * n)
    order = rng.permutation(n)
    if fail_order is not None:
        order = np.asarray(fail_order, dtype=int)
    failed = set(order[:n_fail].tolist())
    noise = rng.normal(0.0, sd, size=(n, 4)) if sd else np.zeros((n, 4))
    noisy = np.clip(np.rint(np.array([[q.reference[e] for e in q.emotions] for q in questions]) + noise), 0, 10)
    records = []
    for i, q in enumerate(questions):
        if i in failed:
            answer = {}
        elif answers is not None:
            answer = {e: float(v) for e, v in answers[i].items()}
        else:
            answer = {e: float(noisy[i, j]) for j, e in enumerate(q.emotions)}
        records.append(score_record(RunRecord("synthetic", f"fail{failure_rate:.3f}", 1, q.id, first_pass=answer), q))
    header = {"model": "synthetic", "run_id": f"fail{failure_rate:.3f}", "version": "v2", "revise": False,
              "n_questions": n, "iterations": 1, "protocol": "synthetic"}  # fmt: skip
    return EqBenchRun(RunHeader.read(header, EqBenchHeader), records)


def _bits(x):
    return None if x is None else float(x).hex()  # NaN-safe and exact: two scores agree only to the bit


@pytest.mark.parametrize("seed", [0, 3, 11])
@pytest.mark.parametrize("kind", ["noise", "random answers", "hardest first"])
def test_sweep_and_synthetic_runs_equal_the_plain_build_to_the_bit(qs, seed, kind):
    rates = np.round(np.union1d(np.arange(0, 0.61, 0.04), [0.1]), 2)  # notebook 06's rates
    rng = np.random.default_rng(seed)
    answers = [dict(zip(q.emotions, rng.integers(0, 11, 4).astype(float))) for q in qs] if kind != "noise" else None
    order = rng.permutation(len(qs)).tolist() if kind == "hardest first" else None
    sd = 1.3 if kind == "noise" else 0.0
    rows = []
    for rate in rates:
        plain = _plain_synthetic_run(qs, rate, sd, seed, answers, order)
        fast = m.synthetic_run(qs, rate, sd, seed, answers=answers, fail_order=order)
        assert fast.header.own == plain.header.own and fast.run_id == plain.run_id
        assert [dataclasses.asdict(r) for r in fast.records] == [dataclasses.asdict(r) for r in plain.records]
        assert [_bits(r.first_pass_score) for r in fast.records] == [_bits(r.first_pass_score) for r in plain.records]
        for conv in ("official", "lm-eval", "evalscope"):
            rs = score_run(plain, conv)
            rows.append((float(rate), conv, _bits(rs.score), rs.n_parseable, rs.failed))
    sweep = m.parse_failure_sweep(qs, rates, sd, seed, answers=answers, fail_order=order)
    assert [(r.rate, r.convention, _bits(r.score), r.parseable, r.failed) for r in sweep.itertuples()] == rows
    assert sweep["parseable"].nunique() > 5  # the rates really fail different numbers of questions


def test_sweep_runs_do_not_share_records_or_answers(qs):
    drawn = m._SyntheticModel.draw(qs[:10], 1.0, 0, "synthetic", None, None)
    a, b = drawn.run(0.0), drawn.run(0.0)
    a.records[0].first_pass["x"] = 1.0  # a caller changing one run's answer changes no other run
    assert "x" not in b.records[0].first_pass and "x" not in drawn.answered[0].first_pass
