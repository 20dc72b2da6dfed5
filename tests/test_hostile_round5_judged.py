"""Hostile probes, fifth round (issue 43), on judged runs: a judge's (or a model's) number that is not finite never
costs a paid reply, numbers outside their scale are flagged on every benchmark, an oversized reply is one request's
failure, a judge that keeps failing is named with its last fault, and a judge's refused key names the judge's own
variable. Loopback fakes, the real openai client over real HTTP, the command line called in-process."""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from conftest import needs_data
from fake_eqbench3 import responder as eq3_responder
from fake_judged import responder
from fake_openai_server import FakeOpenAI, answer_for

from eqbench_nb.cli import main
from eqbench_nb.judged import creative_writing as cw
from eqbench_nb.runner.runfile import record_line

pytestmark = pytest.mark.usefixtures("key")
HUGE = "9" * 400  # float() reads it as inf


def cli(capsys, *args: object) -> tuple[int, str, str]:
    """The command line in-process: (exit code, stdout, stderr)."""
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    out = capsys.readouterr()
    return code or 0, out.out, out.err


def strict(text: str) -> list[dict]:
    """Every line of a run file as strict JSON (no NaN or Infinity token, which jq and JSON.parse refuse)."""

    def refuse(name: str) -> None:
        raise ValueError(f"{name} in a run file")

    return [json.loads(line, parse_constant=refuse) for line in text.splitlines()]


def asked(fake: FakeOpenAI) -> Counter:
    return Counter(e["body"]["model"] for e in fake.log)


def judged_args(which: str, url: str, out: Path) -> list[str]:
    subject = ["--base-url", url, "--model", "fake-model"] if which == "creative-writing" else []
    return ["run", "--benchmark", which, *subject, "--judge-base-url", url, "--judge-model", "judge-model",
            "--judge-concurrency", "16", "--out", str(out), "--no-progress"]  # fmt: skip


# ---------------------------------------------------------------- the one reader, in the judge's parser


def test_the_judges_parser_leaves_out_a_number_that_is_not_finite_and_never_raises():
    read = cw.read_scores(f"Trite: 3\nVivid: {HUGE}\nTrite: {HUGE}\nClear: 7\nVivid: 5")
    # a later name wins, as upstream's dict does: Trite's last is not finite (left out), Vivid's last is 5
    assert read.scores == {"Vivid": 5.0, "Clear": 7.0}
    assert len(read.left_out) == 1 and "'Trite' is inf, not a finite number" in read.left_out[0]
    assert cw.parse_scores(f"A: {HUGE}") == {} and cw.read_scores(f"A: {HUGE}").left_out
    assert cw.out_of_range_scores({"A": 99.0, "B": -50.0, "C": 10.0, "D": 0.0}) == {"A": 99.0, "B": -50.0}
    rng = random.Random(43)
    alphabet = ["9" * 400, "1" * 200, ":", " ", "\n", "-", ".", "Score ", "a", "1e309", "NaN", "Infinity", "é"]
    for _ in range(2000):  # whatever a reply holds, the reader returns finite scores and never raises
        reply = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert all(math.isfinite(v) and abs(v) <= 1e150 for v in cw.read_scores(reply).scores.values())


def test_a_record_that_is_not_strict_json_is_still_written_with_the_number_named():
    class Record:  # a number got past its reader: the paid reply is written all the same, never lost to the write
        key = (1, "q")

        def to_json(self) -> dict:
            return {"type": "record", "text": "the paid reply", "ratings": {"Angry": math.inf, "Sad": 2.0}}

    (line,) = strict(record_line(Record()))  # was: ValueError "Out of range float values are not JSON compliant"
    assert line["text"] == "the paid reply" and line["ratings"] == {"Angry": None, "Sad": 2.0}
    assert line["not_finite"] == ["ratings.Angry inf"]


def test_a_rating_that_is_not_finite_is_kept_as_the_text_it_was_written_as():
    from eqbench_nb.model_numbers import number_or_text, reads_not_finite

    assert number_or_text("7") == 7.0 and number_or_text(HUGE) == HUGE and number_or_text("7,5") == "7,5"
    assert reads_not_finite(HUGE) and reads_not_finite(math.inf) and not reads_not_finite("7,5")
    assert not reads_not_finite(7.0)


# ---------------------------------------------------------------- paid-request accounting: three runs, paid once


@needs_data
@pytest.mark.parametrize(("which", "pieces"), [("creative-writing", 19), ("judgemark", 360)])
def test_a_judges_400_digit_score_is_paid_for_once_over_three_runs_and_flagged(tmp_path, capsys, which, pieces):
    # the first criterion 400 digits (inf to float()), the second 99 on a 0-10 scale, the rest 7
    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=responder(first=(HUGE, 99)))
    with fake as url:
        runs = [cli(capsys, *judged_args(which, url, tmp_path)) for _ in range(3)]
    # was: exit 2 each time ("Out of range float values are not JSON compliant"), every judgement paid again
    assert [code for code, _, _ in runs] == [0, 0, 0], runs[0][2]
    expected = {"judge-model": pieces} | ({"fake-model": pieces} if which == "creative-writing" else {})
    assert asked(fake) == expected  # each judgement paid for once, over three runs
    (path,) = tmp_path.glob("*.jsonl")
    lines = strict(path.read_text())
    judged = [r for r in lines if r.get("step") == "judge"]
    assert len(judged) == pieces and all(len(r["left_out"]) == 1 and "inf" in r["left_out"][0] for r in judged)
    assert all(r["request"]["text"].count(HUGE) == 1 for r in judged)  # the reply as paid for, whole
    for _, out, _ in runs:
        assert f"FLAGGED    {pieces} judge replies with a score that is not a finite number" in out
        assert f"FLAGGED    {pieces} criterion scores outside 0-10" in out
    code, out, err = cli(capsys, "score", path, "--format", "json")
    assert code == 0 and {(r["out_of_range"], r["left_out"]) for r in json.loads(out)} == {(pieces, pieces)}
    assert f"{pieces} criterion scores outside 0-10 (kept and counted, as upstream keeps them)" in err
    code, out, err = cli(capsys, "score", path)
    assert code == 0 and "out_of_range" in out and "warning:" in err
    code, out, _ = cli(capsys, "runs", tmp_path, "--format", "json")
    assert code == 0 and "outside 0-10" in json.loads(out)[0]["flagged"]


@needs_data
def test_a_judge_that_writes_only_numbers_too_large_ends_every_piece_unscored_and_the_run_finishes(tmp_path, capsys):
    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=responder(score=HUGE))
    with fake as url:
        first = cli(capsys, *judged_args("creative-writing", url, tmp_path))
        again = cli(capsys, *judged_args("creative-writing", url, tmp_path))
    assert first[0] == 0 and again[0] == 0, first[2]
    # upstream's four rounds each (a reply with no score repeats the round), then the item ends unscored: once
    assert asked(fake) == {"fake-model": 19 * 4, "judge-model": 19 * 4}
    assert "pieces     0 scored, 19 unscored" in first[1] and "undefined" in first[1]
    assert "FLAGGED    76 judge replies with a score that is not a finite number" in first[1]


@needs_data
def test_an_eqbench_rating_of_400_digits_is_paid_for_once_over_three_runs(tmp_path, capsys):
    def huge_first_rating(prompt: str, temperature: float) -> str:
        return re.sub(r": \d+", ": " + HUGE, answer_for(prompt, temperature), count=1)

    fake = FakeOpenAI(responder=huge_first_rating)
    with fake as url:
        args = ["run", "--base-url", url, "--model", "fake-model", "--questions", "1-5", "--out", tmp_path,
                "--no-progress"]  # fmt: skip
        runs = [cli(capsys, *args) for _ in range(3)]
    assert [code for code, _, _ in runs] == [0, 0, 0], runs[0][2]  # was: exit 2, "Out of range float values ..."
    assert len(fake.log) == 5  # each question paid for once
    (path,) = tmp_path.glob("*.jsonl")
    records = strict(path.read_text())[1:]
    assert len(records) == 5 and all(HUGE in r["first_pass"].values() for r in records)  # kept as written
    assert all("5 answers with a rating that is not a finite number" in err for _, _, err in runs)


# ---------------------------------------------------------------- numbers outside their scale, flagged


@needs_data
@pytest.mark.parametrize(("score", "upstream"), [(99, 147.35), (-50, -6.96)])
def test_creative_writing_scores_outside_0_to_10_keep_upstreams_arithmetic_and_are_flagged(
    tmp_path, capsys, score, upstream
):
    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=responder(score=score))
    with fake as url:
        code, out, _ = cli(capsys, *judged_args("creative-writing", url, tmp_path))
    assert code == 0 and f"score      {upstream:.2f} (0-100)" in out  # upstream's arithmetic, kept
    assert re.search(r"FLAGGED    \d+ criterion scores outside 0-10 \(kept and counted", out)  # was: unflagged
    code, out, err = cli(capsys, "score", tmp_path, "--format", "json")
    (row,) = json.loads(out)
    assert row["score"] == upstream and row["out_of_range"] > 0 and row["left_out"] == 0
    assert "outside 0-10" in err
    from eqbench_nb.judged import overview
    from eqbench_nb.runner.cost import Prices

    run = overview.read(next(tmp_path.glob("*.jsonl")), "creative-writing")
    items = overview.samples(run, Prices())
    page = overview.viewer_summary(run, items, Prices())
    assert any(w.startswith("FLAGGED: ") and "outside 0-10" in w for w in page.warnings)  # the viewer's header
    assert all("FLAGGED: outside 0-10" in reason for reason in items["reason"])  # and each piece's reason
    assert all(c["out_of_range"] for criteria in items["criteria"] for c in criteria)


@needs_data
def test_a_panel_judge_scoring_outside_0_to_20_is_flagged_under_its_own_name(tmp_path, capsys):
    low = FakeOpenAI(models=("fake-model", "ja"), responder=eq3_responder(rubric_score=-5))
    high = FakeOpenAI(models=("jb",), responder=eq3_responder(rubric_score=25))
    with low as a, high as b:
        code, out, err = cli(capsys, "run", "--benchmark", "eqbench3", "--base-url", a, "--model", "fake-model",
                             "--scenarios", "401", "--judge-model", "ja", "--judge-base-url", a, "--judge-model", "jb",
                             "--judge-base-url", b, "--out", tmp_path, "--no-progress")  # fmt: skip
    assert code == 0, err
    # upstream's arithmetic kept: -25 and 125 "/ 100", the panel 50; each judge's line now says why
    assert "judge ja: -25.00 [—, —], 1 tasks; FLAGGED: 6 outside 0-20" in out
    assert "judge jb: 125.00 [—, —], 1 tasks; FLAGGED: 6 outside 0-20" in out
    code, out, err = cli(capsys, "score", tmp_path, "--by-judge", "--format", "json")
    rows = {r["judge"]: r for r in json.loads(out)}
    assert code == 0 and (rows["ja"]["rubric"], rows["ja"]["out_of_range"]) == (-25.0, 6)
    assert (rows["jb"]["rubric"], rows["jb"]["out_of_range"], rows["panel"]["out_of_range"]) == (125.0, 6, 12)
    assert "judge ja: 6 criterion score(s) outside 0-20" in err and "judge jb: 6 criterion score(s)" in err


# ---------------------------------------------------------------- an oversized reply is one request's failure


def _judge_answers_late(prompt: str, temperature: float) -> str:
    """The judge's answers arrive half a second late: an oversized reply, sent at once, is the first to arrive."""
    import time

    if "[TEST MODEL RESPONSE]" in prompt:
        time.sleep(0.5)
    return responder()(prompt, temperature)


@needs_data
def test_an_oversized_first_judge_reply_is_that_requests_failure_and_the_replies_in_flight_are_kept(tmp_path, capsys):
    writer = FakeOpenAI(models=("fake-model",), responder=responder())
    judge = FakeOpenAI(models=("judge-model",), responder=_judge_answers_late, script=["huge"], huge_mb=5)
    with writer as w, judge as j:
        code, out, err = cli(capsys, "run", "--benchmark", "creative-writing", "--base-url", w, "--model",
                             "fake-model", "--concurrency", "8", "--judge-base-url", j, "--judge-model", "judge-model",
                             "--judge-concurrency", "8", "--out", tmp_path, "--no-progress")  # fmt: skip
    # was: exit 2, "the judge rejected its first request (response body over the 4 MiB cap ...)", 7 replies dropped
    assert code == 0, err
    assert judge.outcomes == Counter({"ok": 19, "huge": 1}) and len(writer.log) == 19
    (path,) = tmp_path.glob("*.jsonl")
    judged = [r for r in strict(path.read_text()) if r.get("step") == "judge"]
    assert len(judged) == 20  # every reply paid for is in the file, the oversized one as a failed request
    (failed,) = [r for r in judged if r["request"]["text"] is None]
    assert "over the 4 MiB cap" in failed["request"]["error"] and failed["attempt"] == 1
    assert any(r["item"] == failed["item"] and r["attempt"] == 2 and r["scores"] for r in judged)  # asked again
    assert "pieces     19 scored" in out


@needs_data
def test_oversized_first_replies_of_a_judgemark_judge_are_retried_not_taken_for_a_refusal(tmp_path, capsys):
    judge = FakeOpenAI(models=("judge-model",), responder=responder(), script=["huge"] * 4, huge_mb=5)
    with judge as url:
        code, _, err = cli(capsys, "run", "--benchmark", "judgemark", "--judge-base-url", url, "--judge-model",
                           "judge-model", "--judge-concurrency", "4", "--out", tmp_path, "--no-progress")  # fmt: skip
    # was: exit 2, "rejected every request of the first 4 questions ...; nothing was written"
    assert code == 0, err
    assert judge.outcomes == Counter({"ok": 360, "huge": 4})
    (path,) = tmp_path.glob("*.jsonl")
    failed = [r for r in strict(path.read_text())[1:] if r["request"]["text"] is None]
    assert len(failed) == 4 and all("over the 4 MiB cap" in r["request"]["error"] for r in failed)


# ---------------------------------------------------------------- a judge that keeps failing, a judge's refused key


@needs_data
@pytest.mark.parametrize(("which", "noun"), [("creative-writing", "prompts"), ("judgemark", "pieces")])
def test_a_judge_that_500s_forever_is_named_with_its_last_fault_and_the_benchmarks_items(tmp_path, capsys, which,
                                                                                        noun):  # fmt: skip
    writer = FakeOpenAI(models=("fake-model",), responder=responder())
    judge = FakeOpenAI(models=("judge-model",), faults={"500": 1.0})
    with writer as w, judge as j:
        writes = which == "creative-writing"
        subject = ["--base-url", w, "--model", "fake-model", "--concurrency", "3"] if writes else []
        code, _, err = cli(capsys, "run", "--benchmark", which, *subject, "--judge-base-url", j, "--judge-model",
                           "judge-model", "--judge-concurrency", "3", "--judge-retry-budget", "0.05", "--out",
                           tmp_path, "--no-progress")  # fmt: skip
    assert code == 3, err
    # was: "... keeps failing (3 questions in a row gave up; last: )" naming the writer's endpoint
    line = next(x for x in err.splitlines() if "keeps failing" in x)
    assert f"{j} keeps failing (3 {noun} in a row gave up; last: 500: " in line, line
    assert "questions" not in line


@needs_data
@pytest.mark.parametrize("which", ["creative-writing", "judgemark", "eqbench3"])
def test_a_judges_refused_key_names_the_judges_own_variable(tmp_path, capsys, monkeypatch, which):
    monkeypatch.setenv("JUDGE_KEY", "sk-judge-WRONG-0123456789")
    writer = FakeOpenAI(models=("fake-model",), responder=responder() if which != "eqbench3" else eq3_responder())
    judge = FakeOpenAI(models=("judge-model",), api_key="sk-judge-RIGHT-0123456789")
    with writer as w, judge as j:
        subject = ["--base-url", w, "--model", "fake-model"] if which != "judgemark" else []
        scenarios = ["--scenarios", "401"] if which == "eqbench3" else []
        code, _, err = cli(capsys, "run", "--benchmark", which, *subject, *scenarios, "--judge-base-url", j,
                           "--judge-model", "judge-model", "--judge-api-key-env", "JUDGE_KEY", "--out", tmp_path,
                           "--no-progress")  # fmt: skip
    assert code == 2 and f"{j} refused the API key (401)" in err, err
    # was: "check the key variable (OPENAI_API_KEY or --api-key-env)", the model under test's
    assert "check the judge's key variable JUDGE_KEY (named by --judge-api-key-env" in err
    assert "OPENAI_API_KEY" not in err and "sk-judge-WRONG" not in err


def test_the_model_under_tests_refused_key_names_its_own_variable(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-mine-WRONG-0123456789")
    fake = FakeOpenAI(api_key="sk-mine-RIGHT-0123456789")
    with fake as url:
        code, _, err = cli(capsys, "run", "--base-url", url, "--model", "fake-model", "--api-key-env", "MY_KEY",
                           "--questions", "1-3", "--out", tmp_path, "--no-progress")  # fmt: skip
    assert code == 2 and "check the key variable MY_KEY (named by --api-key-env)" in err, err
