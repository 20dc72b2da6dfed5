"""Placing a model among others, round by round, as upstream's sampling loop does (EQ-bench/eqbench3 core/elo.py,
core/matchup_selection.py); worked examples from its rules, and a simulated field."""

from __future__ import annotations

import random

import pytest

from eqbench_nb.eqbench3 import pairwise, placement
from eqbench_nb.eqbench3.versions import FIRST_CANONICAL, HEAD


def test_stage_one_spreads_anchors_from_a_jittered_centre():
    # ten places, ten samples: step 1, centre 4, jitter randint(0, 0) = 0; outward 3, 5, 2, 6, ... all but the model
    assert placement.pick_opponents(9, 10, (None,), 10, random.Random(42)) == list(range(9))
    rng = random.Random(42)
    expected_jitter = random.Random(42).randint(-3 // 2, 3 // 2)  # 28 places, 10 samples: step 3
    picks = placement.pick_opponents(0, 28, (None,), 10, rng)
    anchor = 13 + expected_jitter
    assert anchor in picks and len(picks) <= 10
    assert all((p - anchor) % 3 == 0 for p in picks)


def test_later_stages_take_neighbours_by_tier():
    # rank 5 of 10, 4 samples: tier 1 (+-1) wants 4 of [4, 6]; tier 2 (+-2) 2 of [3, 4, 6, 7] -> the ends 3, 7;
    # tier 3 (+-3) 1 of [2, 3, 4, 6, 7, 8] -> the first, 2
    assert placement.pick_opponents(5, 10, (1, 2, 3), 4, random.Random(0)) == [2, 3, 4, 6, 7]
    assert placement.pick_opponents(0, 1, (1, 2, 3), 4, random.Random(0)) == []


def test_pairs_to_judge_counts_what_is_judged_and_prefers_404():
    ready = {"new": {("1", "404"), ("1", "1"), ("1", "2"), ("2", "1")}, "old": {("1", "404"), ("1", "1"), ("2", "1")}}
    every = placement.pairs_to_judge("new", "old", ready, set(), None)
    assert [(j.scenario_id, j.iteration, j.order) for j in every] == [
        ("1", "1", "forward"), ("1", "1", "reversed"), ("1", "2", "forward"), ("1", "2", "reversed"),
        ("404", "1", "forward"), ("404", "1", "reversed"),
    ]  # fmt: skip
    one = placement.pairs_to_judge("new", "old", ready, set(), 1)
    assert {j.scenario_id for j in one} == {"404"}  # scenario 404 first when only one pair is allowed
    seen = {placement.signature("old", "new", "404", "1")}
    assert placement.pairs_to_judge("new", "old", ready, seen, 1) == []  # the cap is met by what is judged
    assert len(placement.pairs_to_judge("new", "old", ready, seen, None)) == 4


def _field(strengths: dict[str, float], scenarios=("1", "2", "3", "404", "410")):
    ready = {m: {("1", s) for s in scenarios} for m in strengths}
    return ready


def _judge(strengths, j: placement.Judgement, version):
    a, b = (j.test, j.other) if j.order == "forward" else (j.other, j.test)
    winner = "A0493" if strengths[a] > strengths[b] else "A0488"
    comparison = {
        "scenario_id": j.scenario_id,
        "pair": {"test_model": j.test, "neighbor_model": j.other, "iteration_index": j.iteration},
        "order": pairwise.FORWARD_ORDER if j.order == "forward" else pairwise.REVERSED_ORDER,
        "judge_response": {"x": winner + "+++", "y": winner + "++"},
    }
    return {**comparison, **pairwise.recompute(comparison, version)}


@pytest.mark.parametrize("version", [HEAD, FIRST_CANONICAL], ids=lambda v: v.name)
@pytest.mark.parametrize("strength", [20.0, -10.0, 5.5, 0.5])
def test_a_placed_model_lands_where_its_judgements_put_it(version, strength):
    strengths = {f"m{i}": float(i) for i in range(9)}
    ratings = {m: 1000.0 + 40 * s for m, s in strengths.items()}
    old = list(strengths)
    existing = [  # the field already judged among itself, as a canonical file is
        _judge(strengths, placement.Judgement(a, b, sid, "1", order), version)
        for i, a in enumerate(old)
        for b in old[i + 1 :]
        for sid in ("1",)
        for order in ("forward", "reversed")
    ]
    strengths["new"] = strength
    p = placement.Placement("new", dict(ratings), _field(strengths), existing, version)
    rounds = []
    while (asks := p.next_round()) is not None:
        rounds.append(asks)
        p.record([_judge(strengths, j, version) for j in asks])
    first = rounds[0]
    assert len(first) == 2 * len({j.other for j in first})  # stage 1: one logical pair per anchor, both orders
    ladder = sorted(p.ratings, key=p.ratings.get)
    truth = sorted(strengths, key=strengths.get)
    assert abs(ladder.index("new") - truth.index("new")) <= 1
    last = {j.other for j in rounds[-1]}
    assert all(abs(ladder.index(m) - ladder.index("new")) <= 3 + 1 for m in last)  # the last stage: neighbours
    keys = [(j.other, j.scenario_id, j.order) for r in rounds for j in r]
    assert len(keys) == len(set(keys))  # nothing asked twice


@pytest.mark.parametrize("version", [HEAD, FIRST_CANONICAL], ids=lambda v: v.name)
def test_standings_rank_the_stronger_first_and_stay_raw_without_the_anchors(version):
    from eqbench_nb.eqbench3.league import standings

    strengths = {"a": 3.0, "b": 2.0, "c": 1.0}
    comps = [
        _judge(strengths, placement.Judgement(x, y, sid, "1", order), version)
        for x, y in (("a", "b"), ("b", "c"), ("a", "c"))
        for sid in ("1", "2", "3")
        for order in ("forward", "reversed")
    ]
    comps.append({"scenario_id": "9", "pair": {"test_model": "a", "neighbor_model": "c", "iteration_index": "1"},
                  "order": "forward", "error": "Judge Error: x"})  # fmt: skip
    table = standings(["a", "b", "c"], comps, version, rubric={"a": 70.0})
    assert list(table["model"]) == ["a", "b", "c"] and list(table["rank"]) == [1, 2, 3]
    assert table["elo_norm"].isna().all()  # no anchors in this field
    # three scenarios: no interval (the house's small-n rule), and the row says why; TrueSkill's sigma is kept
    assert table["ci_low"].isna().all() and table["ci_high"].isna().all() and (table["sigma"] > 0).all()
    reason = ("no interval: 3 scenarios, below 30: a percentile bootstrap over fewer than 30 scenarios is too narrow, "
              "and no small-n form re-solves the ratings")  # fmt: skip
    assert table["interval_method"].eq(reason).all()
    assert list(table["judgements"]) == [12, 12, 12] and list(table["judge_errors"]) == [1, 0, 1]
    assert table.loc[0, "rubric"] == 70.0 and table["scoring_version"].eq(version.name).all()
