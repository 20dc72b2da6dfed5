"""``score`` of an empathetic-responding run offers the judge's Good share calibrated to people only where the judge
rated responses people rated too (the human arm, whose ratings are in the study's file), and otherwise says in one
line why not. Loopback fakes for the subject and the judge, over real HTTP."""

from __future__ import annotations

import json

import pytest
from cli_helper import cli as run_cli
from conftest import KEY, needs_data
from fake_openai_server import FakeOpenAI

from eqbench_nb.benchmarks import empathetic_responding as er

pytestmark = needs_data

PROMPTS = er.read_prompts(None)
PEOPLE = er.people_ratings()
#: The judge prompt of each human-arm response -> the study's rater's rating of it.
HUMAN_ARM = {er.judge_prompt(p, p.human)[0]["content"]: PEOPLE[p.id] for p in PROMPTS}
#: A judge whose words are rotated: where people said Bad it says Okay, Okay it says Good, Good it says Bad.
ROTATED = {1: "Okay", 2: "Good", 3: "Bad"}
SUBJECT = "That sounds like a lot; how are you holding up?"


def cli(*argv: str) -> tuple[int, str, str]:
    done = run_cli(*argv)
    return done.returncode, done.stdout, done.stderr


def rotated_judge(prompt: str, temperature: float) -> str:
    """The rotated word on the human arm; Bad for every response of the subject."""
    return ROTATED[HUMAN_ARM[prompt]] if prompt in HUMAN_ARM else "Bad"


@pytest.fixture
def run_file(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    subject = FakeOpenAI(models=("fake-model",), responder=lambda p, t: SUBJECT)
    judge = FakeOpenAI(models=("rotated",), responder=rotated_judge)
    with subject as su, judge as ju:
        rc, _, err = cli("run", "--benchmark", "empathetic-responding", "--base-url", su, "--model", "fake-model",
                         "--judge-base-url", ju, "--judge-model", "rotated", "--sample", "48", "--out", str(tmp_path),
                         "--no-progress")  # fmt: skip
    assert rc == 0, err
    return next(tmp_path.glob("fake-model__empathetic-responding__*.jsonl"))


def _all_row(path) -> dict:
    rc, out, err = cli("score", str(path), "--format", "json")
    assert rc == 0, err
    return next(r for r in json.loads(out) if r["group"] == "all" and r["judge"] == "rotated")


def test_a_judge_calibrated_on_the_human_arm_gives_the_people_scale_share(run_file):
    row = _all_row(run_file)
    # the judge said Bad of every response of the model: Good 0 on its scale; on the human arm it says Bad exactly
    # where people said Good, so on the people's scale every one of the model's responses is Good
    assert row["good_model"] == 0.0
    assert row["good_model_calibrated"] == pytest.approx(1.0)
    assert row["good_model_calibrated_low"] <= 1.0 <= row["good_model_calibrated_high"] + 1e-12
    assert row["calibrated_on"] == 48 and "label shift" in row["calibration"]
    rc, out, err = cli("score", str(run_file))
    assert rc == 0, err
    assert "Good model, calibrated to people" in out and "calibrated to people on the human arm" in out


def test_without_the_judges_ratings_of_the_human_arm_it_says_in_one_line_why_not(run_file):
    er.human_arm_path(run_file.parent, "rotated").unlink()
    row = _all_row(run_file)
    assert row["good_model_calibrated"] is None and row["good_model"] == 0.0
    assert row["calibration"] == (
        "no calibrated Good share: judge rotated rated 0 of the human arm's responses in this folder (the only ones "
        f"with people's ratings), fewer than {er.MIN_CALIBRATION}"
    )
    rc, out, err = cli("score", str(run_file))
    assert rc == 0, err
    assert "no calibrated Good share: judge rotated rated 0" in out


def test_a_judge_that_says_good_of_everything_is_not_calibrated_and_says_why(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with (
        FakeOpenAI(models=("fake-model",), responder=lambda p, t: SUBJECT) as su,
        FakeOpenAI(models=("always-good",), responder=lambda p, t: "Good") as ju,
    ):
        rc, _, err = cli("run", "--benchmark", "empathetic-responding", "--base-url", su, "--model", "fake-model",
                         "--judge-base-url", ju, "--judge-model", "always-good", "--sample", "32", "--out",
                         str(tmp_path), "--no-progress")  # fmt: skip
    assert rc == 0, err
    rc, out, err = cli("score", str(next(tmp_path.glob("fake-model__*.jsonl"))), "--format", "json")
    row = next(r for r in json.loads(out) if r["group"] == "all")
    assert row["good_model"] == 1.0 and row["good_model_calibrated"] is None and row["calibrated_on"] == 32
    assert row["calibration"].startswith("no calibrated Good share: judge always-good's ratings of the human arm do "
                                         "not tell the people's three ratings apart")  # fmt: skip
