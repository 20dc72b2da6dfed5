"""Issue 30, rule 2: an interval that touches its null is phrased by one function, never as "no effect",
"confounded" or "rests on". Null tests on simulated data, and a check that the notebooks do not hand-phrase it."""

import re

import numpy as np
import pytest
from conftest import ROOT

from eqbench_nb.analysis import stats as S
from eqbench_nb.analysis import verdicts as V


def _r_interval(rho: float, n: int, rng) -> tuple[float, float, float]:
    xy = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=n)
    r = S.pearson_r(xy[:, 0], xy[:, 1])
    return (r, *S.fisher_z_ci(r, n))


def test_a_real_effect_seen_through_few_units_is_inconclusive_never_no_effect():
    """Claim ("no effect") false: rho = 0.6, but only 7 models. Many intervals reach 0; none may say "no effect"."""
    rng = np.random.default_rng(0)
    sentences = [V.describe(*_r_interval(0.6, 7, rng), what="r", n=7, unit="models") for _ in range(300)]
    touching = [s for s in sentences if "includes 0" in s]
    assert len(touching) > 60  # the situation the rule is about does arise
    assert all(s.endswith("7 models cannot settle it") for s in touching)
    assert not any("no effect" in s for s in sentences)


def test_no_effect_is_said_only_with_adequate_power_and_only_when_the_null_holds():
    rng = np.random.default_rng(1)
    labels = [V.interval_verdict(*_r_interval(0.0, 300, rng)[1:], power=0.95) for _ in range(200)]
    assert np.mean(np.array(labels) == V.NO_EFFECT) > 0.9  # claim true: said
    labels = [V.interval_verdict(*_r_interval(0.4, 300, rng)[1:], power=0.95) for _ in range(200)]
    assert np.mean(np.array(labels) == V.NO_EFFECT) < 0.02  # claim false: (almost) never said
    assert V.interval_verdict(-0.1, 0.3, power=0.5) == V.INCONCLUSIVE  # underpowered: inconclusive
    assert V.interval_verdict(float("nan"), 0.3) == V.INCONCLUSIVE  # no interval settles nothing


def test_a_threshold_null():
    """Notebook 08 asks whether α reaches 0.9: the interval 0.83–0.94 neither reaches nor misses it."""
    assert V.interval_verdict(0.833, 0.935, null=0.9) == V.INCONCLUSIVE
    assert V.interval_side(0.91, 0.95, null=0.9) == "above" and V.interval_side(0.7, 0.89, null=0.9) == "below"
    assert "includes 0.9" in V.describe(0.904, 0.833, 0.935, what="α", null=0.9, n=43, unit="runs")


#: Phrases that turned an interval touching its null into a finding (issue 30, wrong 1 and 2).
HAND_PHRASED = [
    r"\b(rests?|resting) on (them|it|these|those|that|this|one|a few)\b",
    r"\bconfounded\b",
    r"\bno effect\b",
    r"not the protocol",
]


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py")), ids=lambda p: p.stem)
def test_notebooks_do_not_hand_phrase_an_inconclusive_result(path):
    text = path.read_text(encoding="utf-8")
    found = [m.group(0) for rx in HAND_PHRASED for m in re.finditer(rx, text, re.IGNORECASE)]
    assert not found, f"{path.name} phrases a result by hand: {found}; use eqbench_nb.analysis.verdicts"
