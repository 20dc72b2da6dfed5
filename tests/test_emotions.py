import numpy as np
import pandas as pd
import pytest

from eqbench_nb import load_questions, plots
from eqbench_nb.eqbench.study import emotions as em


def _tiny():
    """Two models, two questions, two emotions each (hand-checkable)."""
    rows = [
        # model, question, emotion, reference, answer
        ("good", "1", "Angry", 8, 7),
        ("good", "1", "Calm", 0, 0),
        ("good", "2", "Angry", 2, 2),
        ("good", "2", "Fear", 5, 6),
        ("bad", "1", "Angry", 8, 3),
        ("bad", "1", "Calm", 0, 4),
        ("bad", "2", "Angry", 2, 9),
        ("bad", "2", "Fear", 5, 5),
    ]
    df = pd.DataFrame(rows, columns=["model", "question_id", "emotion", "reference", "answer"])
    from eqbench_nb.eqbench.scoring import fullscale_penalty

    df["run_id"], df["iteration"] = "1", 1
    df["emotion_index"] = df.groupby(["model", "question_id"]).cumcount() + 1
    df["error"] = df["answer"] - df["reference"]
    df["abs_error"] = df["error"].abs()
    df["penalty"] = [fullscale_penalty(e) for e in df["error"]]
    df["question_score"] = 10 - df.groupby(["model", "question_id"])["penalty"].transform("sum")
    return df


def test_family_table_covers_every_v2_emotion_once():
    fam = em.load_families()
    words = {e for q in load_questions("v2") for e in q.emotions}
    assert len(words) == 201
    assert em.unmapped_emotions(words, fam) == []
    assert set(fam["emotion"]) == words  # nothing extra either
    assert not fam["emotion"].duplicated().any()
    assert (fam["source"] == "eqbench_nb authors' grouping").all()
    assert 5 <= fam["family"].nunique() <= 16
    assert fam.set_index("emotion").loc["Angry", "family"] == fam.set_index("emotion").loc["Anger", "family"]


def test_summarise_errors_by_emotion_hand_computed():
    s = em.summarise_errors(_tiny(), "emotion").set_index("emotion")
    # Angry errors: -1, 0, -5, +7 -> mean abs 13/4, signed mean 1/4
    assert s.loc["Angry", "n"] == 4
    assert s.loc["Angry", "mean_abs_error"] == pytest.approx(13 / 4)
    assert s.loc["Angry", "mean_error"] == pytest.approx(1 / 4)
    assert s.loc["Angry", "share_over"] == pytest.approx(1 / 4)
    assert s.loc["Angry", "share_under"] == pytest.approx(2 / 4)
    assert s.loc["Angry", "share_exact"] == pytest.approx(1 / 4)
    assert s.loc["Angry", "n_questions"] == 2 and s.loc["Angry", "n_models"] == 2
    # Fear errors +1, 0 -> mean penalty f(1)/2
    assert s.loc["Fear", "mean_penalty"] == pytest.approx(0.17289 / 2, abs=1e-4)


def test_add_family_and_missing_words():
    t = _tiny()
    fams = {"Angry": "anger", "Calm": "calm", "Fear": "fear"}
    out = em.add_family(t, fams)
    assert list(out["family"].unique()) == ["anger", "calm", "fear"]
    with pytest.raises(ValueError, match="Fear"):
        em.add_family(t, {"Angry": "anger", "Calm": "calm"})
    assert (em.add_family(t, {"angry": "anger"}, missing="other")["family"] == "other").sum() == 4


def test_reference_bins():
    b = em.reference_bin([0, 1, 3, 4, 6, 7, 10])
    assert list(b) == ["0", "1-3", "1-3", "4-6", "4-6", "7-10", "7-10"]
    with pytest.raises(ValueError):
        em.reference_bin([11])


def test_cluster_bootstrap_mean_and_interval():
    t = _tiny()
    out = em.cluster_bootstrap(t, "abs_error", n_boot=200, seed=0)
    assert out.loc[0, "mean"] == pytest.approx(t["abs_error"].mean())
    # with two models, every replicate is good-only, bad-only or both
    good, bad = t[t.model == "good"]["abs_error"].mean(), t[t.model == "bad"]["abs_error"].mean()
    assert out.loc[0, "lo"] == pytest.approx(good) and out.loc[0, "hi"] == pytest.approx(bad)
    by = em.cluster_bootstrap(t, "error", by="reference", n_boot=50).set_index("reference")
    assert by.loc[0, "mean"] == pytest.approx(2.0)  # Calm: answers 0 and 4 against 0
    assert by.loc[0, "n"] == 2


def test_question_level_model_scores_and_hardest():
    t = _tiny()
    q = em.question_level(t)
    assert len(q) == 4
    s = em.model_scores(t)
    assert s.index[0] == "good"
    assert s["good"] == pytest.approx(10 * t[t.model == "good"].groupby("question_id")["question_score"].first().mean())
    h = em.hardest_questions(t, k=1)
    assert h.loc[0, "n_models"] == 2
    assert h.loc[0, "emotions"] in ("Angry, Calm", "Angry, Fear")
    means = q.groupby("question_id")["question_score"].mean()
    assert h.loc[0, "question_id"] == means.idxmin()


def test_group_difference_hand_computed():
    t = _tiny()
    groups = pd.Series({"good": "top", "bad": "bottom"})
    d = em.group_difference(t, groups, by="emotion", value="abs_error", n_boot=50).set_index("emotion")
    # Angry: good |-1|,|0| -> 0.5; bad 5, 7 -> 6 -> diff 5.5
    assert d.loc["Angry", "mean_top"] == pytest.approx(0.5)
    assert d.loc["Angry", "mean_bottom"] == pytest.approx(6.0)
    assert d.loc["Angry", "diff"] == pytest.approx(5.5)
    # one model per group: the bootstrap cannot move
    assert d.loc["Angry", "lo"] == pytest.approx(5.5) and d.loc["Angry", "hi"] == pytest.approx(5.5)
    assert d.index[0] == "Angry"  # sorted by difference
    assert len(em.group_difference(t, groups, by="emotion", value="abs_error", min_questions=2, n_boot=10)) == 1


def test_tercile_groups_sizes():
    scores = pd.Series(np.arange(10.0), index=[f"m{i}" for i in range(10)])
    g = em.tercile_groups(scores)
    assert g["m9"] == "top" and g["m0"] == "bottom"
    assert sorted(g.value_counts().tolist()) == [3, 3, 4]


def test_mean_matrix_and_plots_draw():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = em.add_reference_bin(_tiny())
    mat = em.mean_matrix(t, "emotion", "reference_bin", "abs_error", column_order=["0", "1-3", "4-6", "7-10"])
    assert mat.loc["Calm", "0"] == pytest.approx(2.0)
    assert np.isnan(mat.loc["Calm", "7-10"])
    fig, axes = plt.subplots(1, 3)
    plots.plot_heatmap(axes[0], mat)
    s = em.summarise_errors(t, "emotion").assign(
        mean=lambda d: d.mean_abs_error, lo=lambda d: d.mean_abs_error - 1, hi=lambda d: d.mean_abs_error + 1
    )
    plots.plot_means(axes[1], s, "emotion")
    b = em.cluster_bootstrap(t, "error", by="reference", n_boot=20)
    plots.plot_bias_by_reference(axes[2], b, em.summarise_errors(t, "reference"))
    assert all(ax.has_data() or ax.images for ax in axes)
    plt.close(fig)


def test_short_name():
    assert plots.short_name("org/Model-7B") == "Model-7B"
    assert len(plots.short_name("x" * 50, width=10)) == 10


def _question_driven(n_models=20, n_questions=40, seed=0):
    """Models alike, questions very different: each question's error is shared by every model."""
    rng = np.random.default_rng(seed)
    q_err = rng.gamma(2.0, 1.0, n_questions)
    rows = []
    for m in range(n_models):
        skill = 0.5 if m < n_models // 2 else 0.0  # the second half err a little more
        for q in range(n_questions):
            for e, fam in enumerate(["a", "a", "b", "b"]):
                rows.append((f"m{m}", str(q + 1), f"E{e}", fam, q_err[q] + skill + rng.normal(0, 0.05)))
    return pd.DataFrame(rows, columns=["model", "question_id", "emotion", "family", "abs_error"])


def test_cell_cube_totals():
    t = _tiny()
    sums, counts, models, questions, cats = em.cell_cube(t, "abs_error", "emotion")
    assert models == ["bad", "good"] and questions == ["1", "2"] and cats == ["Angry", "Calm", "Fear"]
    assert counts.sum() == len(t) and sums.sum() == pytest.approx(t.abs_error.sum())
    assert sums[0, 0, 1] == 4 and counts[1, 1, 1] == 0  # bad/Q1/Calm = |4 - 0|; Calm is not in Q2


def test_two_way_bootstrap_widens_the_interval_when_questions_dominate():
    t = _question_driven()
    two = em.two_way_bootstrap(t, "abs_error", by="family", n_boot=1000, seed=0).set_index("family")
    models_only = em.cluster_bootstrap(t, "abs_error", by="family", n_boot=1000, seed=0).set_index("family")
    assert two["mean"].to_numpy() == pytest.approx(t.groupby("family").abs_error.mean().to_numpy())
    assert (two.n == 20 * 40 * 2).all() and (two.n_questions == 40).all() and (two.share_defined == 1).all()
    assert ((two.hi - two.lo) > 3 * (models_only.hi - models_only.lo)).all()
    assert ((two.lo <= two["mean"]) & (two["mean"] <= two.hi)).all()
    one = em.two_way_bootstrap(t, "abs_error", n_boot=200, seed=0)
    assert list(one.columns[:3]) == ["mean", "lo", "hi"] and len(one) == 1


def _copied_models(n_lineages: int, copies: int, n_q: int = 30, seed: int = 0) -> pd.DataFrame:
    """``n_lineages`` independent models, each run ``copies`` times by near-identical fine-tunes, on ``n_q``
    questions: ratings of copies differ only by a little noise."""
    rng = np.random.default_rng(seed)
    skill, q_eff = rng.normal(0, 1.0, n_lineages), rng.normal(0, 0.5, n_q)
    rows = []
    for g in range(n_lineages):
        for c in range(copies):
            for q in range(n_q):
                err = abs(skill[g] + q_eff[q] + rng.normal(0, 0.05)) + 1
                rows.append((f"m{g}_{c}", str(q), "Fear", "fear", err))
    return pd.DataFrame(rows, columns=["model", "question_id", "emotion", "family", "abs_error"])


def test_two_way_intervals_take_the_lineages_as_units():
    """Issue 38: copies of one model are not independent evidence; below 30 lineages the small-n rule holds."""
    t = _copied_models(8, 5)
    lineage = {m: m.split("_")[0] for m in t.model.unique()}
    runs = em.two_way_bootstrap(t, "abs_error", n_boot=1000, seed=0).iloc[0]
    lin = em.two_way_bootstrap(t, "abs_error", n_boot=1000, seed=0, clusters=lineage).iloc[0]
    assert lin["mean"] == pytest.approx(runs["mean"]) and lin.n_units == 8 and runs.n_units == 40
    assert lin.method.startswith("Student t on 7 df, two-way jackknife")
    assert (lin.hi - lin.lo) > 1.8 * (runs.hi - runs.lo)
    # the same SE by hand: leave out one lineage, then one question, and add the two jackknife variances
    by_lin = [t[t.model.map(lineage) != g].abs_error.mean() for g in sorted(set(lineage.values()))]
    by_q = [t[t.question_id != q].abs_error.mean() for q in sorted(t.question_id.unique())]
    var = sum((len(v) - 1) / len(v) * np.sum((np.array(v) - np.mean(v)) ** 2) for v in (by_lin, by_q))
    assert lin.se == pytest.approx(np.sqrt(var))
    with pytest.raises(ValueError, match="no lineage"):
        em.two_way_bootstrap(t, "abs_error", clusters={"m0_0": "m0"})
    many = _copied_models(32, 2, n_q=10)
    lin32 = em.two_way_bootstrap(many, "abs_error", n_boot=300, seed=0, clusters={m: m[:3] for m in many.model})
    assert lin32.method.iloc[0].startswith("two-way percentile bootstrap (32 lineages")


def test_group_difference_with_lineages_leaves_a_lineage_out_of_both_groups():
    t = _copied_models(10, 4, n_q=20, seed=3)
    scores = t.groupby("model").abs_error.mean()
    groups = em.tercile_groups(-scores)  # low error = top
    lineage = {m: m.split("_")[0] for m in t.model.unique()}
    runs = em.two_way_group_difference(t, groups, by="family", value="abs_error", n_boot=500, seed=0)
    lin = em.two_way_group_difference(t, groups, by="family", value="abs_error", n_boot=500, seed=0, clusters=lineage)
    assert lin["diff"].to_numpy() == pytest.approx(runs["diff"].to_numpy())
    assert lin.method.iloc[0].startswith("Student t") and runs.method.iloc[0].startswith("two-way percentile")
    assert (lin.hi - lin.lo).iloc[0] > 1.5 * (runs.hi - runs.lo).iloc[0]


def test_two_way_design_draws_whole_clusters_from_30_on():
    from eqbench_nb.analysis import stats as S

    labels = np.repeat(np.arange(30), 2)
    d = S.two_way_design(60, 7, reps=50, seed=1, row_clusters=labels)
    assert not d.jackknife and (d.w[:, ::2] == d.w[:, 1::2]).all() and (d.w.sum(1) == 60).all()
    small = S.two_way_design(6, 4, row_clusters=["a", "a", "b", "b", "c", "c"])
    assert small.jackknife and small.w.shape == (3 + 4, 6) and small.v.shape == (3 + 4, 4)
    with pytest.raises(ValueError, match="cluster label"):
        S.two_way_design(3, 4, row_clusters=["a", None, "b"])


def test_two_way_group_difference_matches_point_values_and_corrects_for_many_categories():
    t = _question_driven()
    groups = pd.Series({f"m{m}": ("bottom" if m < 10 else "top") for m in range(20)})
    d = em.two_way_group_difference(t, groups, by="family", value="abs_error", n_boot=1000, seed=1)
    old = em.group_difference(t, groups, by="family", value="abs_error", n_boot=50).set_index("family")
    d = d.set_index("family")
    assert d["diff"].to_numpy() == pytest.approx(old.loc[d.index, "diff"].to_numpy())
    assert d.attrs["overall_diff"] == pytest.approx(0.5, abs=0.01)
    assert d["excess"].to_numpy() == pytest.approx(d["diff"].to_numpy() - d.attrs["overall_diff"])
    # the 0.5 gap is the same in both families: every excess interval covers 0, every diff interval excludes it
    assert ((d.excess_lo < 0) & (d.excess_hi > 0)).all() and (d.lo > 0).all()
    s = em.two_way_group_difference(t, groups, by="family", value="abs_error", n_boot=1000, seed=1, simultaneous=True)
    s = s.set_index("family")
    assert s.interval_level.to_numpy() == pytest.approx(1 - 0.05 / 2) and (d.interval_level == 0.95).all()
    assert ((s.hi - s.lo) > (d.hi - d.lo)).all()


def _simulated_ratings(compression: float, n_models: int = 24, n_questions: int = 50, seed: int = 0):
    """A run table whose ratings are clip(round(5 + compression * (ref - 5) + noise)) with model and
    question effects; compression 1 is the clipped-noise null itself, below 1 squeezes to the middle."""
    rng = np.random.default_rng(seed)
    refs = rng.choice([0, 0, 0, 2, 3, 4, 6, 7, 8, 8], size=(n_questions, 4)).astype(float)
    model_sd = rng.uniform(2.0, 3.5, n_models)
    rows = []
    for m in range(n_models):
        for q in range(n_questions):
            centre = 5 + compression * (refs[q] - 5)
            ans = np.clip(np.rint(centre + rng.normal(0, model_sd[m], 4)), 0, 10)
            for k in range(4):
                rows.append((f"m{m}", str(q), f"e{k}", refs[q, k], ans[k]))
    df = pd.DataFrame(rows, columns=["model", "question_id", "emotion", "reference", "answer"])
    df["error"] = df.answer - df.reference
    df["abs_error"] = df.error.abs()
    return df


def test_compression_verdict_not_chosen_when_ratings_are_only_clipped_noise():
    """Claim false: ratings are symmetric noise clipped to 0-10, no compression. The end biases are
    large (the uniform-random or zero nulls would call them compression) but not beyond the null."""
    for seed in (0, 1, 2):
        ends = em.end_bias_against_null(_simulated_ratings(1.0, seed=seed), n_boot=400, seed=seed)
        e = ends.set_index("reference_bin")
        assert e.loc["0", "lo"] > 0.5  # a real end bias, which a test against 0 would call compression
        assert em.compression_verdict(ends, key_error_excluded=True) not in ("compressed", "compressed or key error")
        assert 0.7 < e.loc["0", "mechanical_share"] < 1.3


def test_compression_verdict_chosen_when_ratings_are_compressed():
    ends = em.end_bias_against_null(_simulated_ratings(0.6), n_boot=400, seed=0)
    assert em.compression_verdict(ends, key_error_excluded=True) == "compressed"
    assert em.compression_verdict(ends) == "compressed or key error"  # unless key error was ruled out
    e = ends.set_index("reference_bin")
    assert e.loc["0", "mechanical_share"] < 0.9


def _weak_strong_table(extra: float, n_models: int = 30, n_questions: int = 60, seed: int = 0):
    """Weak models err more everywhere (the circular part); with ``extra`` > 0 they err more still on family 'x'."""
    rng = np.random.default_rng(seed)
    fam = rng.choice(["w", "x", "y", "z"], size=(n_questions, 4))
    skill = np.linspace(0.5, 2.0, n_models)  # error scale per model
    rows = []
    for m in range(n_models):
        for q in range(n_questions):
            for k in range(4):
                scale = skill[m] * (1 + extra * (fam[q, k] == "x") * (skill[m] > 1.25))
                pen = abs(rng.normal(0, scale))
                rows.append((f"m{m}", str(q), fam[q, k], pen))
    t = pd.DataFrame(rows, columns=["model", "question_id", "family", "penalty"])
    scores = 10 - t.groupby("model").penalty.mean()  # the score is built from the same penalties
    return t, em.tercile_groups(scores)


def test_separating_verdict_not_chosen_when_weak_models_err_more_uniformly():
    """Claim false: weak models err more in every family by the same factor. Every family's gap is
    above 0 (the circular '4 of 4 families'), yet no family separates beyond the overall gap."""
    t, groups = _weak_strong_table(extra=0.0)
    d = em.two_way_group_difference(t, groups, by="family", n_boot=400, seed=0, simultaneous=True)
    assert (d["lo"] > 0).all()  # the circular count would say: all families
    above, _ = em.separating_categories(d)
    assert above == []


def test_separating_verdict_chosen_for_a_family_with_real_excess():
    t, groups = _weak_strong_table(extra=1.0)
    d = em.two_way_group_difference(t, groups, by="family", n_boot=400, seed=0, simultaneous=True)
    above, _ = em.separating_categories(d)
    assert above == ["x"]
