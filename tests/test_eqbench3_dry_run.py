"""EQ-Bench 3's dry run uses the token limits it is given: the answers' and the judge's; no "about" exceeds its
"at most", and "at most" is the limit times the requests."""

import re

import pytest
from cli_helper import cli
from conftest import needs_data

from eqbench_nb.eqbench3 import dryrun, prompts, scenarios
from eqbench_nb.runner.cost import Prices, TokenCounter, approximate

pytestmark = needs_data


def _numbers(line: str, word: str) -> list[int]:
    return [int(n.replace(",", "")) for n in re.findall(word + r" \$?([\d,]+)", line)]


def test_the_dry_run_reported_with_small_limits_keeps_each_estimate_within_its_bound():
    done = cli("run", "--benchmark", "eqbench3", "--dry-run", "--scenarios", "13", "--max-tokens", "200",
               "--judge-max-tokens", "300")  # fmt: skip
    assert done.returncode == 0, done.stderr
    subject, judge = done.stdout.split("judge (rubric")
    judge = judge.split("\ntotal (")[0]  # the judge's own lines (the total of both follows)
    requests = [_numbers(side, "requests  ")[0] for side in (subject, judge)]
    for side, limit, n in ((subject, 200, requests[0]), (judge, 300, requests[1])):
        for line in side.splitlines():
            if line.strip().startswith(("prompt", "completion")):
                (most,) = _numbers(line, "at most")
                assert all(about <= most for about in _numbers(line, "about")), line
                assert all(least <= most for least in _numbers(line, "at least")), line
            if line.strip().startswith("completion"):
                assert _numbers(line, "at most") == [n * limit], line


@pytest.mark.parametrize("max_tokens", [1, 200, 1067, 1200, 1333, 5000, 12000])
def test_no_estimate_exceeds_its_bound_whatever_the_limits(max_tokens):
    counter = TokenCounter(approximate, "approximation")
    chosen = scenarios.load_scenarios()
    subject, judge = dryrun.estimate(
        chosen, 2, prompts.load_templates(), counter, counter, Prices(1, 2), Prices(3, 4), max_tokens, True, 77
    )
    assert judge is not None
    for side in (subject, judge):
        assert side.prompt[0] <= side.prompt[1] <= side.prompt[2]
        assert side.completion[0] is None or side.completion[0] <= side.completion[1]
    assert subject.completion[1] == subject.requests * max_tokens and judge.completion[1] == judge.requests * 77
