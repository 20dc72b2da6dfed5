"""`compare` gives a verdict only with an interval: when a side has no score there is none, and it says why, in
text and JSON (never "separated": false)."""

import json

from cli_helper import cli
from conftest import needs_data
from test_leaderboard import X10, _unparseable_run

from eqbench_nb.eqbench.study.leaderboard import compare_runs, compare_statement

pytestmark = needs_data  # the unparseable run is built on the upstream questions


def printed(*args):
    """What the command prints on stdout; it must succeed."""
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_side_with_no_score_gets_no_verdict_and_the_reason(tmp_path):
    mute = _unparseable_run(tmp_path / "mute.jsonl")
    text = printed("compare", X10, mute, "--common")
    assert "no verdict: B has no score on these questions (no answer parsed)" in text, text
    assert "separated" not in text and "interval includes 0" not in text, text
    row = json.loads(printed("compare", X10, mute, "--common", "--format", "json"))
    assert row["separated"] is None and row["verdict"] == "no verdict"
    assert row["no_verdict"] == "B has no score on these questions (no answer parsed)"
    swapped = compare_runs(mute, X10, common=True)
    assert "no verdict: A has no score" in compare_statement(swapped)
    assert "no verdict: B has no score" in compare_statement(swapped, names=("B", "A"))  # the viewer's names


def test_a_verdict_with_an_interval_is_unchanged(tmp_path):
    row = compare_runs(X10, X10, common=True).iloc[0]
    assert row["verdict"] == "not separated" and row["no_verdict"] is None
    assert row["separated"] is not None and not row["separated"]
