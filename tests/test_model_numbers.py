"""Numbers a model wrote pass one reader (issue 34, class 2): not finite (NaN, Infinity, 1e309, or 1e308 that
overflows once multiplied) is an error, said and left out as upstream leaves out what it cannot read; finite but
outside its range is kept, as upstream keeps it, and flagged in ``score``, ``runs`` and the viewer; every file
written is strict JSON, and ``score --format json`` never fails on a run's values. The judges are loopback fakes."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from cli_helper import cli
from conftest import needs_data
from fake_eqbench3 import responder
from fake_openai_server import FakeOpenAI

from eqbench_nb.eqbench3.judge_json import JudgeJSONError
from eqbench_nb.eqbench3.rubric import read_scores

pytestmark = pytest.mark.usefixtures("key")
CRITERIA = ("demonstrated_empathy", "pragmatic_ei", "depth_of_insight", "social_dexterity", "emotional_reasoning",
            "message_tailoring")  # fmt: skip


def judge_text(value: str, *, only: str | None = None) -> str:
    """A rubric judge's reply with every criterion (or only ``only``) at ``value`` as written, the rest at 15."""
    scores = ", ".join(f'"{c}": {value if only in (None, c) else "15"}' for c in CRITERIA)
    return '{"chain_of_thought_reasoning": "Scored.", ' + scores + "}"


def strict(text: str) -> list:
    """Every line of a JSON Lines text, read as strict JSON (NaN and Infinity refused, as jq and JSON.parse do)."""

    def refuse(token: str) -> None:
        raise ValueError(f"{token} is not JSON")

    return [json.loads(line, parse_constant=refuse) for line in text.splitlines() if line.strip()]


# ---------------------------------------------------------------- the judge's reply


@pytest.mark.parametrize("value", ["1e309", "NaN", "-Infinity", "Infinity", "1e308", "-1e308"])
def test_a_judge_scoring_every_criterion_with_a_number_that_is_not_finite_is_a_judge_error(value):
    for version in ("3c21bcc", "8c3a125"):
        with pytest.raises(JudgeJSONError, match="not a finite number"):
            read_scores(judge_text(value), version)


@pytest.mark.parametrize(
    "value", ["NaN", "1e400", "-1e400", "1e200", '"' + "9" * 400 + '/20"', "1" + "0" * 200, '"Infinity"']
)
def test_one_criterion_not_finite_is_left_out_and_said_the_others_kept(value):
    from eqbench_nb.eqbench3.rubric import read_judgement

    scores, note = read_judgement(judge_text(value, only="pragmatic_ei"), "3c21bcc")
    assert "pragmatic_ei" not in scores and all(scores[c] == 15 for c in CRITERIA if c != "pragmatic_ei")
    if value != '"Infinity"':  # a string without digits: no number at all, as upstream leaves it (no note)
        assert note is not None and "pragmatic_ei" in note and "not a finite number" in note


def test_the_one_reader_accepts_finite_numbers_and_says_the_others():
    from eqbench_nb.model_numbers import NotFinite, Scale, is_finite_number, out_of_range, read_model_number

    assert read_model_number("15") == 15.0 and read_model_number(-5) == -5.0 and read_model_number(1e150) == 1e150
    for bad in (math.nan, math.inf, -math.inf, 1e151, 10**400, "1e309", "9" * 400):
        with pytest.raises(NotFinite):
            read_model_number(bad, "x")
        assert not is_finite_number(bad if not isinstance(bad, str) else float(bad))
    with pytest.raises(ValueError):
        read_model_number(True)
    scale = Scale(0, 20)
    assert out_of_range(25.0, scale) and out_of_range(-5.0, scale) and not out_of_range(20.0, scale)


def test_an_eqbench_rating_too_large_to_compute_with_is_unparseable_and_said():
    from eqbench_nb.eqbench.scoring import keyed_answer, unparseable_reason

    emotions = ("Angry", "Sad", "Glad", "Calm")
    for huge in ("1" + "0" * 200, "9" * 400):  # 1e200 squares to inf; 400 digits read as inf
        answer = {"Angry": float(huge), "Sad": 2.0, "Glad": 3.0, "Calm": 4.0}
        assert keyed_answer(answer, emotions) is None
        assert "not a finite number" in str(unparseable_reason(answer, emotions))


# ---------------------------------------------------------------- through the runner and the command line


def _judging(value: str):
    """The fake's responder, with every rubric score written as ``value`` (text as it goes on the wire)."""
    plain = responder(rubric_score=15)

    def respond(prompt: str, temperature: float) -> str:
        text = plain(prompt, temperature)
        return re.sub(r'(": )15\b', lambda m: m.group(1) + value, text) if text.startswith("{") else text

    return respond


def _run(tmp_path: Path, value: str, name: str) -> Path:
    from eqbench_nb.eqbench3.task import run_eqbench3
    from eqbench_nb.runner import RetryPolicy
    from eqbench_nb.runner.settings import Endpoint, RunSettings

    fast = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
    with FakeOpenAI(models=("fake-model", "judge-model"), responder=_judging(value)) as url:
        subject = Endpoint(base_url=url, model="fake-model", retry=fast, timeout_s=10)
        judge = Endpoint(base_url=url, model="judge-model", retry=fast, timeout_s=10)
        settings = RunSettings(out_dir=tmp_path / name, progress=False)
        return run_eqbench3(subject, judge, settings, scenarios="1,2").path


@needs_data
@pytest.mark.parametrize("value", ["NaN", "1e309", "-Infinity", "1e308"])
def test_a_judge_answering_numbers_that_are_not_finite_gives_judge_errors_and_a_strict_run_file(tmp_path, value):
    from eqbench_nb.eqbench3.runs import read_eq3_run
    from eqbench_nb.eqbench3.summary import summarise_run

    path = _run(tmp_path, value, "run")
    strict(path.read_text())  # no bare NaN or Infinity for jq or JSON.parse
    s = summarise_run(read_eq3_run(path))
    assert (s.tasks_scored, s.judge_errors, s.score) == (0, 2, None)  # was "2 scored, judge errors 0", inf / 100
    assert all("not a finite number" in e for e in s.error_examples)
    for command in (["score", path], ["runs", path.parent]):
        proc = cli(*command)
        assert proc.returncode == 0, proc.stderr
        assert "inf" not in proc.stdout.lower() and "nan" not in proc.stdout.lower()


@needs_data
def test_a_run_file_with_nan_tokens_is_read_with_its_scores_left_out_and_score_json_never_fails(tmp_path):
    path = _run(tmp_path, "15", "run")
    lines = path.read_text().splitlines()
    broken = []
    for line in lines:  # as today's code wrote them: bare NaN and Infinity in a judge's scores
        record = json.loads(line)
        if record.get("step") == "rubric":
            which = "NaN" if record["scenario_id"] == "1" else "Infinity"
            line = re.sub(r'("scores": \{[^}]*?"pragmatic_ei": )15\.0', rf"\g<1>{which}", line)
            line = re.sub(r'("scores": \{)', r'\1"extra": -Infinity, ', line)
        broken.append(line)
    old = tmp_path / "old" / path.name
    old.parent.mkdir()
    old.write_text("\n".join(broken) + "\n")
    assert "NaN" in old.read_text() and "Infinity" in old.read_text()
    good = tmp_path / "old" / "other.jsonl"
    good.write_text(path.read_text().replace('"run_id": "', '"run_id": "again-'))
    proc = cli("score", old.parent, "--format", "json")
    assert proc.returncode == 0, proc.stderr  # was "Out of range float values are not JSON compliant" for all
    rows = json.loads(proc.stdout, parse_constant=lambda t: pytest.fail(f"{t} in score's JSON"))
    assert len(rows) == 2 and all(r["rubric"] == 75.0 for r in rows)  # the finite scores, kept
    assert [r["left_out"] for r in rows if r["run_id"].startswith("again")] == [0]
    assert [r["left_out"] for r in rows if not r["run_id"].startswith("again")] == [2]
    assert "not a finite number" in proc.stderr  # said: each such judgement


@needs_data
def test_scores_outside_0_20_are_kept_and_flagged_in_score_runs_and_the_viewer(tmp_path):
    from eqbench_nb.eqbench3.runs import read_eq3_run
    from eqbench_nb.eqbench3.summary import summarise_run
    from eqbench_nb.viewer.payload import viewer_payload

    for value, rubric in (("-5", -25.0), ("25", 125.0)):
        path = _run(tmp_path, value, f"run{value}")
        run = read_eq3_run(path)
        s = summarise_run(run)
        every = sum(len(r.scores or {}) for r in run.records)  # each criterion the judge scored, in both tasks
        assert s.score == rubric and s.out_of_range == every > 12  # kept, as upstream keeps them
        assert "FLAGGED" in s.table() and "outside 0-20" in s.table()
        score = cli("score", path, "--format", "json")
        assert json.loads(score.stdout)[0]["out_of_range"] == every and "outside 0-20" in score.stderr
        runs = cli("runs", path.parent, "--format", "csv")
        assert "outside 0-20" in runs.stdout
        shown = viewer_payload([path])["runs"][0]
        assert any("FLAGGED" in w and "outside 0-20" in w for w in shown["summary"]["warnings"])
        assert any("FLAGGED: outside 0-20" in json.dumps(item) for item in shown["items"])


# ---------------------------------------------------------------- every file written is strict JSON


def test_the_run_file_writers_refuse_numbers_that_are_not_json():
    from eqbench_nb.eqbench3.runs import StepRecord
    from eqbench_nb.runner.runfile import header_line, record_line

    with pytest.raises(ValueError, match="JSON compliant"):
        header_line({"model": "m", "timeout_s": math.inf})
    # a record holds a paid reply: never refused (issue 43), written strict with the number as null and named
    record = StepRecord("m", "r", 1, "1", "rubric", [], None, "j", {"x": math.nan}, None, "3c21bcc")
    line = json.loads(record_line(record), parse_constant=lambda name: pytest.fail(f"{name} written"))
    assert line["not_finite"] == ["scores.x nan"] and line["scores"] == {"x": None}


def test_a_judge_object_kept_whole_has_its_non_finite_numbers_as_null_and_said():
    from eqbench_nb.model_numbers import finite_json

    verdict = json.loads('{"a": "A0493+++", "n": NaN, "deep": {"x": [1, Infinity, 1e309]}, "ok": 3}')
    clean, said = finite_json(verdict)
    assert clean == {"a": "A0493+++", "n": None, "deep": {"x": [1, None, None]}, "ok": 3}
    assert said == ["n nan", "deep.x[1] inf", "deep.x[2] inf"]
    json.dumps(clean, allow_nan=False)


def test_score_json_writes_every_value_that_is_not_finite_as_null():
    from eqbench_nb.cli.score import finite

    row = finite({"rubric": math.inf, "low": math.nan, "mean_x": -math.inf, "model": "m", "n": 3})
    assert row == {"rubric": None, "rubric_not_finite": "inf", "low": None, "mean_x": None,
                   "mean_x_not_finite": "-inf", "model": "m", "n": 3}  # fmt: skip
    json.dumps(row, allow_nan=False)
