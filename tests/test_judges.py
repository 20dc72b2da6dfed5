"""Judge diagnostics (:mod:`eqbench_nb.analysis.judges`) on synthetic judges that differ on purpose.

- ``first`` always prefers the answer shown first;
- ``longer`` always prefers the longer answer;
- ``fair`` prefers the better model, with noise;
- on the rubric, ``acme-judge`` adds a point to its own family's models (family from a table with sources).

The diagnostics must name each judge's bias with its number, and find none where there is none.
"""

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from conftest import needs_data

from eqbench_nb.analysis import judges as J

MODELS = {  # quality, typical answer length
    "acme-large": (1.0, 600),
    "acme-small": (0.2, 500),
    "bolt-1": (0.8, 1400),
    "bolt-2": (0.0, 900),
    "cog-a": (0.5, 300),
    "cog-b": (-0.3, 1100),
}
TASKS = [f"t{i:02d}" for i in range(40)]
FAMILIES = pd.DataFrame(
    {
        "model": [*MODELS, "acme-judge", "fair"],
        "family": ["acme", "acme", "bolt", "bolt", "cog", "cog", "acme", "independent"],
        "source": ["synthetic test table"] * 8,
    }
)


def _lengths(rng):
    return {(m, t): int(rng.gamma(6.0, MODELS[m][1] / 6.0)) + 1 for m in MODELS for t in TASKS}


@pytest.fixture(scope="module")
def pairwise():
    rng = np.random.default_rng(1)
    length = _lengths(rng)
    rows = []
    for t in TASKS:
        for x, y in combinations(MODELS, 2):
            for a, b in ((x, y), (y, x)):
                la, lb = length[(a, t)], length[(b, t)]
                fair = float(MODELS[a][0] + rng.normal(0, 0.5) > MODELS[b][0] + rng.normal(0, 0.5))
                for judge, outcome in (("first", 1.0), ("longer", float(la > lb)), ("fair", fair)):
                    rows.append(
                        {"judge": judge, "task": t, "model_a": a, "model_b": b, "outcome": outcome}
                        | {"len_a": la, "len_b": lb}
                    )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def rubric():
    rng = np.random.default_rng(2)
    length = _lengths(rng)
    fam = J.family_of(FAMILIES)
    rows = []
    for m, (q, _) in MODELS.items():
        for t in TASKS:
            truth = 5 + 2 * q + rng.normal(0, 0.3)
            for judge in ("acme-judge", "fair", "harsh"):
                s = (
                    truth
                    + rng.normal(0, 0.4)
                    + (1.0 if fam.get(judge) == fam[m] else 0.0)
                    - (1 if judge == "harsh" else 0)
                )
                rows.append({"judge": judge, "model": m, "task": t, "score": s, "length": length[(m, t)]})
    return pd.DataFrame(rows)


def test_the_first_position_judge_is_named_with_its_number(pairwise):
    pos = J.position_consistency(pairwise).set_index("judge")
    assert pos.loc["first", "first_wins"] == 1.0
    assert pos.loc["first", "flip_share"] == 1.0  # the verdict always follows the seat
    assert pos.loc["first", "verdict"] == "prefers the first position"
    assert pos.loc["first", "pairs_both_orders"] == len(TASKS) * 15
    for judge in ("longer", "fair"):
        assert pos.loc[judge, "verdict"].startswith("no preference detected")
    assert pos.loc["longer", "flip_share"] < 0.05  # ties of length aside, length decides the same both ways
    report = J.bias_report(position=J.position_consistency(pairwise))
    sentence = report.set_index("judge").loc["first", "sentence"]
    assert "prefers the first position" in sentence and "100.0%" in sentence


def test_the_longer_answer_judge_is_named_with_its_number(pairwise):
    length = J.length_bias_pairwise(pairwise).set_index("judge")
    assert length.loc["longer", "longer_wins"] == 1.0
    assert length.loc["longer", "verdict"] == "prefers the longer answer"
    assert length.loc["longer", "length_coeff"] > 2
    assert length.loc["first", "verdict"].startswith("no preference detected")
    # the fair judge's quality ignores length: its longer-answer share's interval covers 0.5 or it is small
    assert abs(length.loc["fair", "length_coeff"]) < length.loc["longer", "length_coeff"] / 5
    report = J.bias_report(length=J.length_bias_pairwise(pairwise)).set_index("judge")
    assert "prefers the longer answer" in report.loc["longer", "sentence"]
    assert "100.0%" in report.loc["longer", "sentence"]


def test_the_length_controlled_rating_sits_beside_the_raw_one(pairwise):
    ratings = J.pairwise_ratings(pairwise)
    assert set(ratings.columns.get_level_values(1)) == {"raw", "length_controlled"}
    assert J.PANEL in ratings.columns.get_level_values(0)
    longer = ratings["longer"]
    # bolt-1 writes longest and the length judge ranks it first raw
    assert longer["raw"].idxmax() == "bolt-1"


def test_self_preference_is_named_for_the_judge_that_favours_its_family(rubric):
    table = J.self_preference(rubric, J.family_of(FAMILIES)).set_index("judge")
    assert table.loc["acme-judge", "verdict"] == "favours its own family"
    assert table.loc["acme-judge", "self_preference"] == pytest.approx(
        1.0, abs=0.2
    )  # +1: the harsh judge's -1 falls on every model alike
    assert "fair" not in table.index or table.loc["fair", "verdict"].startswith("not detected")
    assert table.loc["acme-judge", "interval_method"].endswith("over 40 tasks")
    sentence = J.bias_report(self_pref=table.reset_index()).iloc[0]["sentence"]
    assert "favours its own family" in sentence and "acme" in sentence
    # from per-model means alone (2 own, 4 other models) the same estimate, with the wider interval models allow
    means = J.self_preference_of_means(J.model_means(rubric), J.family_of(FAMILIES)).set_index("judge")
    assert means.loc["acme-judge", "self_preference"] == pytest.approx(table.loc["acme-judge", "self_preference"])
    assert (
        means.loc["acme-judge", "high"] - means.loc["acme-judge", "low"]
        > table.loc["acme-judge", "high"] - table.loc["acme-judge", "low"]
    )


def test_the_panel_is_the_mean_of_the_judges(rubric):
    panel = J.panel_scores(rubric).set_index(["model", "task"])
    one = rubric[(rubric["model"] == "cog-a") & (rubric["task"] == "t03")]
    assert panel.loc[("cog-a", "t03"), "score"] == pytest.approx(one["score"].mean())
    assert panel.loc[("cog-a", "t03"), "judges"] == 3
    # a judge without a score of an item is left out of that item's mean, not counted as 0
    holed = rubric.copy()
    holed.loc[one.index[0], "score"] = float("nan")
    again = J.panel_scores(holed).set_index(["model", "task"])
    assert again.loc[("cog-a", "t03"), "judges"] == 2
    assert again.loc[("cog-a", "t03"), "score"] == pytest.approx(one["score"].iloc[1:].mean())
    assert set(J.with_panel(rubric)["judge"]) == {"acme-judge", "fair", "harsh", J.PANEL}


def test_agreement_intervals_fit_their_n(rubric):
    ranks = J.rank_agreement(J.model_means(rubric))
    assert (ranks["n"] == len(MODELS)).all()
    assert ranks["interval_method"].str.startswith("Fisher").all()  # 6 models: small-n
    scores = J.score_agreement(rubric)
    assert (scores["tasks"] == len(TASKS)).all()
    assert scores["interval_method"].str.contains("bootstrap over 40 tasks").all()
    few = J.score_agreement(rubric[rubric["task"].isin(TASKS[:10])])
    assert few["interval_method"].str.startswith("Fisher z with n = 10 tasks").all()
    assert ((scores["low"] < scores["pearson"]) & (scores["pearson"] < scores["high"])).all()


def test_length_against_the_rubric_score(rubric):
    table = J.length_bias_rubric(rubric).set_index("judge")
    assert (table["n"] == len(MODELS) * len(TASKS)).all()
    # scores were drawn without regard to length: every interval is finite and ordered
    assert ((table["low"] <= table["spearman"]) & (table["spearman"] <= table["high"])).all()


def test_cost_per_judge():
    calls = pd.DataFrame({"judge": ["a", "a", "b"], "cost": [0.5, 0.25, 2.0], "prompt_tokens": [10, 20, 30]})
    items = pd.DataFrame({"judge": ["a", "a", "a", "b"]})
    out = J.cost_per_judge(calls, items).set_index("judge")
    assert out.loc["a", "requests"] == 2 and out.loc["a", "cost"] == 0.75
    assert out.loc["a", "cost_per_item"] == pytest.approx(0.25)
    assert out.loc["b", "prompt_tokens"] == 30
    with pytest.raises(ValueError, match="finite, non-negative"):
        J.cost_per_judge(pd.DataFrame({"judge": ["a"], "cost": [float("inf")]}))


def test_hostile_tables_are_refused(pairwise):
    with pytest.raises(ValueError, match="outcome"):
        J.position_consistency(pairwise.assign(outcome=2.0))
    with pytest.raises(ValueError, match="lacks the column"):
        J.panel_scores(pd.DataFrame({"judge": ["a"]}))
    with pytest.raises(ValueError, match="no source"):
        J.family_of(FAMILIES.assign(source=""))


@needs_data
def test_the_generic_diagnostic_agrees_with_notebook_10s_on_eqbench3s_judge():
    """On the first canonical EQ-Bench 3 file, the generic position diagnostic finds the pairs judged in both
    orders and, over those pairs, the first position's share of decided judgements that
    :mod:`eqbench_nb.eqbench3.study` finds."""
    from eqbench_nb.eqbench3 import canonical, study
    from eqbench_nb.eqbench3.judges import pairwise_table

    elo = canonical.read_canonical()
    effects = study.position_effects(elo)
    table = pairwise_table(elo.comparisons, "claude-3.7-sonnet")
    pair = table.apply(lambda r: (r["task"], r["iteration"], *sorted([r["model_a"], r["model_b"]])), axis=1)
    both = table[pair.map(pair.value_counts()) == 2]  # study's shares are over pairs judged in both orders
    ours = J.position_consistency(both).iloc[0]
    assert J.position_consistency(table).iloc[0]["decided"] > ours["decided"]  # a lone order counts there too
    theirs = study.position_bias(effects, reps=10)
    assert ours["pairs_both_orders"] == theirs.n_pairs
    assert ours["first_wins"] == pytest.approx(theirs.a_share, abs=1e-12)
    decided_both = theirs.a_both + theirs.b_both  # the same seat won both orders: a flip of a decided verdict
    assert decided_both <= ours["flipped"]
