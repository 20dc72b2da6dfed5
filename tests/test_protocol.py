import numpy as np
import pandas as pd

from eqbench_nb.analysis import protocol


def _runs(effect: float, confounded: bool, n: int = 80, seed: int = 0):
    """Scores = 40 + 0.5 * capability + effect * group + noise; with ``confounded`` the group is
    mostly the more capable models (as API runs are the big commercial models)."""
    rng = np.random.default_rng(seed)
    capability = rng.uniform(0, 60, n)
    p = 1 / (1 + np.exp(-(capability - 45) / 4)) if confounded else np.full(n, 0.3)
    group = rng.random(n) < p
    score = 40 + 0.5 * capability + effect * group + rng.normal(0, 3, n)
    table = pd.DataFrame({"score": score})
    return table, pd.Series(group), pd.Series(capability)


def test_a_protocol_without_effect_but_confounded_with_capability_is_called_confounded():
    """Claim false: the protocol does nothing, but the capable models use it. The raw difference
    excludes 0 (the old sentence 'protocol X raises scores' would be chosen); the verdict must not
    say the difference persists."""
    table, group, cap = _runs(effect=0.0, confounded=True)
    e = protocol.covariate_effect(table, group, cap, reps=500)
    assert e["raw_low"] > 0
    assert protocol.covariate_verdict(e) == "confounded"


def test_a_real_protocol_effect_persists_after_adjustment():
    table, group, cap = _runs(effect=6.0, confounded=True, seed=1)
    e = protocol.covariate_effect(table, group, cap, reps=500)
    assert protocol.covariate_verdict(e) == "persists"
    assert 3 < e["adjusted"] < 9


def test_no_effect_and_no_confounding_is_not_detected():
    table, group, cap = _runs(effect=0.0, confounded=False, seed=2)
    e = protocol.covariate_effect(table, group, cap, reps=500)
    assert protocol.covariate_verdict(e) == "not detected"


def test_raw_difference_without_a_possible_adjustment_is_flagged():
    table, group, _ = _runs(effect=10.0, confounded=False, seed=3)
    e = protocol.covariate_effect(table, group, None, reps=300)
    assert protocol.covariate_verdict(e) == "unadjusted"
