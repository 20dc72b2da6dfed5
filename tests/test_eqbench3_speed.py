"""The eqbench3 solve's fused draw against the package's own v_draw and w_draw, to the bit (notebook 10 re-solves
hundreds of times, and its figures and headlines rest on every rating)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eqbench_nb.eqbench3 import rating

trueskill = pytest.importorskip("trueskill")


def _plain_draw(env, mu, var, winner, loser, margin, two_beta2):
    """rating._play's drawn game as it was before the fusion: the package's v_draw and w_draw."""
    c = math.sqrt(two_beta2 + var[winner] + var[loser])
    t, m = (mu[winner] - mu[loser]) / c, margin / c
    v, w = env.v_draw(t, m), env.w_draw(t, m)
    vw, vl = var[winner], var[loser]
    mu[winner] += vw / c * v
    mu[loser] -= vl / c * v
    var[winner] = vw * (1.0 - vw / (c * c) * w)
    var[loser] = vl * (1.0 - vl / (c * c) * w)


def _outcome(play, env, mu, var, margin, two_beta2):
    """What one drawn game does: refused (nothing changed), or the four new values as exact hex (NaN included)."""
    mu, var = dict(mu), dict(var)
    try:
        play(env, mu, var, "a", "b", margin, two_beta2)
    except (ValueError, ArithmeticError):  # what the solve catches: the game is refused
        return "refused", None
    return None, [float(x).hex() for x in (mu["a"], mu["b"], var["a"], var["b"])]


@pytest.mark.parametrize("draw_probability", [0.0, 0.1, 0.4])
def test_a_drawn_game_is_the_packages_to_the_bit(draw_probability):
    env = trueskill.TrueSkill(mu=1200.0, sigma=350 / 3, beta=350 / 6, tau=0.0, draw_probability=draw_probability)
    margin = trueskill.calc_draw_margin(env.draw_probability, 2, env)
    two_beta2 = 2 * env.beta**2
    rng = np.random.default_rng(3)
    specials = [0.0, -0.0, 1e-300, 5e3, -5e3, 1e5, -1e5, 1e308, math.inf, -math.inf, math.nan]
    outcomes = {"refused": 0, "played": 0}
    for i in range(5000):
        gap = float(rng.choice(specials)) if i % 5 == 0 else float(rng.normal(0, 10 ** rng.integers(0, 6)))
        mu = {"a": 1200.0 + gap, "b": 1200.0}
        var = {"a": float(rng.uniform(1, 14000)), "b": float(rng.uniform(1, 14000))}
        ours = _outcome(lambda *a: rating._play(*a, drawn=True), env, mu, var, margin, two_beta2)
        assert ours == _outcome(_plain_draw, env, mu, var, margin, two_beta2), (gap, var, draw_probability)
        outcomes["refused" if ours[0] else "played"] += 1
    assert outcomes["refused"] > 50 and outcomes["played"] > 2000  # both paths exercised
