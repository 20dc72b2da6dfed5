"""The raw and the length-controlled Bradley–Terry rating (:mod:`eqbench_nb.analysis.bradley_terry`).

The reference is LMArena's ``arena-rank`` (0.1.1): its ``ContextualBradleyTerry`` (style control, ``reg=1.0`` as
LMArena uses it, and a weak ``reg=0.001``) and ``BradleyTerry``, run by ``tests/reference_arena_rank.py`` in a venv
of its own (arena-rank pins numpy and jax versions this project's constraints exclude) on a seeded battle set; its
output is recorded in ``tests/fixtures/arena_rank_style_control.json`` with the version and the command. Tolerance:
0.001 Elo points per rating and 1e-6 per coefficient (arena-rank's L-BFGS stops at a relative loss change of 1e-9;
the gap seen is about 2e-5 points).
"""

import json
from pathlib import Path

import numpy as np
import pytest

from eqbench_nb.analysis import bradley_terry as bt

FIXTURE = Path(__file__).parent / "fixtures" / "arena_rank_style_control.json"
RATING_TOL, COEFF_TOL = 1e-3, 1e-6
OUTCOME = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5}


@pytest.fixture(scope="module")
def reference():
    return json.loads(FIXTURE.read_text())


def _battles(ref):
    b = ref["battles"]
    return b["model_a"], b["model_b"], [OUTCOME[w] for w in b["winner"]], b["len_a"], b["len_b"]


def test_the_fixture_says_what_made_it(reference):
    assert reference["arena_rank_version"] == "0.1.1"
    assert "reference_arena_rank.py" in reference["command"]
    assert len(reference["battles"]["winner"]) == 600


@pytest.mark.parametrize("reg", ["1.0", "0.001"])
def test_style_control_equals_arena_rank_contextual_bradley_terry(reference, reg):
    a, b, y, la, lb = _battles(reference)
    ref = reference["style_control"][reg]
    ours = bt.length_controlled(a, b, y, la, lb, reg=float(reg))
    assert ours.converged
    assert list(ours.competitors) == ref["competitors"]
    assert np.max(np.abs(ours.ratings - np.array(ref["ratings"]))) < RATING_TOL
    assert np.max(np.abs(ours.coeffs - np.array(ref["coeffs"]))) < COEFF_TOL


def test_raw_rating_equals_arena_rank_bradley_terry(reference):
    a, b, y, _, _ = _battles(reference)
    ours = bt.bradley_terry(a, b, y)
    assert list(ours.competitors) == reference["raw"]["competitors"]
    assert np.max(np.abs(ours.ratings - np.array(reference["raw"]["ratings"]))) < RATING_TOL
    assert ours.coeffs.size == 0


def test_the_penalty_falls_on_the_coefficient_only(reference):
    """reg 1.0 shrinks the length coefficient far below reg 0.001's; the ratings still sum to the offset."""
    a, b, y, la, lb = _battles(reference)
    strong, weak = bt.length_controlled(a, b, y, la, lb, reg=1.0), bt.length_controlled(a, b, y, la, lb, reg=1e-3)
    assert abs(strong.coeffs[0]) < abs(weak.coeffs[0]) / 5
    for fit in (strong, weak):
        assert np.mean(fit.ratings) == pytest.approx(bt.INIT_RATING)


def test_a_judge_that_follows_length_is_corrected():
    """Two equal models, one writing longer on average (the lengths overlap, so length and model are not the same
    thing), judged by length alone: the raw rating separates them, the length-controlled one (weak penalty) by far
    less, and the coefficient is large and positive."""
    rng = np.random.default_rng(0)
    a, b, y, la, lb = [], [], [], [], []
    for _ in range(400):
        first = rng.random() < 0.5
        pa, pb = ("long", "short") if first else ("short", "long")
        lena = int(rng.integers(400, 1400)) if pa == "long" else int(rng.integers(200, 900))
        lenb = int(rng.integers(400, 1400)) if pb == "long" else int(rng.integers(200, 900))
        # the verdict follows length 80 % of the time
        longer_wins = rng.random() < 0.8
        y.append(float((lena > lenb) == longer_wins))
        a.append(pa), b.append(pb), la.append(lena), lb.append(lenb)
    raw = bt.bradley_terry(a, b, y).as_dict()
    lc = bt.length_controlled(a, b, y, la, lb, reg=1e-4)
    gap_raw, gap_lc = raw["long"] - raw["short"], lc.as_dict()["long"] - lc.as_dict()["short"]
    assert gap_raw > 50
    assert abs(gap_lc) < gap_raw / 3
    assert lc.coeffs[0] > 1.0


@pytest.mark.parametrize(
    "bad",
    [
        {"outcomes": [2.0]},
        {"len_a": [-1]},
        {"len_a": [float("nan")]},
    ],
)
def test_hostile_inputs_are_refused(bad):
    args = {"model_a": ["x"], "model_b": ["y"], "outcomes": [1.0], "len_a": [10], "len_b": [20]} | bad
    with pytest.raises(ValueError):
        bt.length_controlled(**args)
