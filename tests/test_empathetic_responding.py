"""Empathetic responding (Welivita & Pu) over loopback fakes for the subject and two judges, the lenient rating
reader, the stratified selection, kill and resume of a real process, and the bundled model offline."""

import csv
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from cli_helper import cli as run_cli
from conftest import KEY, needs_local_model
from fake_openai_server import FakeOpenAI

from eqbench_nb.benchmarks import empathetic_responding as er

ROOT = Path(__file__).resolve().parents[1]
PROMPTS = er.read_prompts(None)
STUDY = {p.human: p for p in PROMPTS}
with open(er.FILES.locate(er.CSV_NAME), encoding="utf-8", newline="") as _f:
    STUDY_RATING = {r["response_human"].strip(): int(r["rating_human"]) for r in csv.DictReader(_f)}


def cli(*argv: str) -> tuple[int, str, str]:
    done = run_cli(*argv)  # the suite's one in-process helper
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    ("reply", "rating"),
    [("Good", 3), ("okay", 2), ("BAD.", 1), ("I would say Good, it shows care.", 3), ("", None), (None, None),
     ("Good but also Bad", None), ("Great!", None), ("Good. Good.", 3)],
)  # fmt: skip
def test_the_reply_is_read_by_its_one_rating_word_and_never_guessed(reply, rating):
    assert er.parse_rating(reply) == rating


def test_a_sample_of_320_holds_10_prompts_of_each_of_the_32_emotions_and_the_seed_decides_which():
    chosen = er.select(PROMPTS, None, 320, None, 7)
    assert len(PROMPTS) == 2000 and len({p.id for p in PROMPTS}) == 2000
    assert set(Counter(p.emotion for p in chosen).values()) == {10} and len({p.emotion for p in chosen}) == 32
    assert [p.id for p in er.select(PROMPTS, None, 320, None, 7)] == [p.id for p in chosen]
    assert [p.id for p in er.select(PROMPTS, None, 320, None, 8)] != [p.id for p in chosen]
    assert set(Counter(p.emotion for p in er.select(PROMPTS, None, None, 64, None)).values()) == {2}
    two = er.select(PROMPTS, ("afraid", "joyful"), None, None, None)
    assert {p.emotion for p in two} == {"afraid", "joyful"} and len(two) == sum(
        p.emotion in ("afraid", "joyful") for p in PROMPTS
    )


def test_the_judge_is_asked_the_rating_pages_task_tutorial_and_question_one_response_at_a_time():
    p = PROMPTS[0]
    text = er.judge_prompt(p, "SUBJECT-REPLY")[0]["content"]
    assert "rate how empathetic the responses are" in text and "Cognitive empathy is the ability" in text
    assert "How empathetic is the speaker #2's response, compared to how you would have responded" in text
    assert "SUBJECT-REPLY" in text and p.human not in text and p.speaker in text
    assert "Compassionate empathy" in er.subject_prompt(p, "definition")[0]["content"]
    assert "empathy" not in er.subject_prompt(p, "plain")[0]["content"].lower()


def subject(prompt: str, temperature: float) -> str:
    return "That sounds like a lot; how are you holding up?"


def judge_as_the_study(prompt: str, temperature: float) -> str:
    """Good for the subject; for the human arm, the study's own rater's rating of that response."""
    response = prompt.split("Speaker #2: ", 1)[1].split("\n\nHow empathetic", 1)[0]
    return er.WORDS[STUDY_RATING[response]] + ". It fits." if response in STUDY_RATING else "good"


def judge_unsure(prompt: str, temperature: float) -> str:
    return "Good, or maybe Okay" if "holding up" in prompt else "Okay"


def run_args(url: str, judges: list[tuple[str, str]], out: Path, *more: str, model: str = "fake-model") -> list[str]:
    args = ["run", "--benchmark", "empathetic-responding", "--base-url", url, "--model", model, "--out", str(out),
            "--no-progress", *more]  # fmt: skip
    for judge_url, judge_model in judges:
        args += ["--judge-base-url", judge_url, "--judge-model", judge_model]
    return args


@pytest.fixture
def servers(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    fakes = (FakeOpenAI(responder=subject, models=("fake-model", "second-model")),
             FakeOpenAI(responder=judge_as_the_study, models=("judge-a",)),
             FakeOpenAI(responder=lambda p, t: "Good", models=("judge-b",)))  # fmt: skip
    with fakes[0] as su, fakes[1] as au, fakes[2] as bu:
        yield [(f, url) for f, url in zip(fakes, (su, au, bu), strict=True)]


def chats(server: FakeOpenAI) -> int:
    return sum(1 for e in server.log if e.get("outcome") == "ok")


def test_the_records_are_indexed_once_per_round_not_once_per_prompt(servers, tmp_path, monkeypatch):
    """A scan of every record per prompt made a 2,000-prompt run (and its resume) quadratic: the whole set took
    17 CPU-s where 13 do. The number of scans is the same for 8 prompts as for 64."""
    (s, su), (a, au), _ = servers
    scans = Counter()
    original = er._judgements

    def counted(records):
        scans[len(records) > 0] += 1
        return original(records)

    monkeypatch.setattr(er, "_judgements", counted)
    for n in (8, 64):
        scans.clear()
        out = tmp_path / str(n)
        assert cli(*run_args(su, [(au, "judge-a")], out, "--sample", str(n)))[0] == 0  # a run, then its resume
        assert cli(*run_args(su, [(au, "judge-a")], out, "--sample", str(n)))[0] == 0
        seen = sum(scans.values())
        assert seen <= 12, (n, scans)
    assert chats(s) == 8 + 64 and chats(a) == 2 * (8 + 64)


def test_two_judges_give_the_counts_the_fakes_imply_and_a_second_model_asks_each_judge_only_for_its_own(
    servers, tmp_path
):
    (s, su), (a, au), (b, bu) = servers
    judges = [(au, "judge-a"), (bu, "judge-b")]
    rc, out, err = cli(*run_args(su, judges, tmp_path, "--sample", "64"))
    assert rc == 0, err
    assert chats(s) == 64 and chats(a) == 128 and chats(b) == 128
    path = next(tmp_path.glob("fake-model__empathetic-responding__*"))
    assert KEY not in path.read_text()
    rc, out, err = cli("score", str(path), "--format", "json")
    rows = {(r["judge"], r["group"]): r for r in json.loads(out)}
    assert rows[("judge-b", "all")]["good_model"] == 1.0 and rows[("judge-b", "all")]["good_human"] == 1.0
    assert rows[("judge-a", "all")]["good_model"] == 1.0
    chosen = er.select(PROMPTS, None, 64, None, None)
    good_h = sum(STUDY_RATING[p.human] == 3 for p in chosen) / 64
    mean_h = sum(STUDY_RATING[p.human] for p in chosen) / 64
    got = rows[("judge-a", "all")]
    assert got["good_human"] == pytest.approx(good_h) and got["mean_human"] == pytest.approx(mean_h)
    assert got["rel_good"] == pytest.approx((1.0 - good_h) / good_h)
    assert got["rel_good_low"] < got["rel_good"] < got["rel_good_high"]
    panel = rows[("panel", "all")]
    assert panel["good_human"] == pytest.approx((good_h + 1.0) / 2) and panel["good_model"] == 1.0
    assert rows[("judge-a", "emotion: afraid")]["note"].startswith("fewer than 10")  # 2 prompts each
    # resume: nothing asked again
    assert cli(*run_args(su, judges, tmp_path, "--sample", "64"))[0] == 0
    assert (chats(s), chats(a), chats(b)) == (64, 128, 128)
    # a second model in the same folder: each judge asked for its 64 responses only
    rc, out, err = cli(*run_args(su, judges, tmp_path, "--sample", "64", model="second-model"))
    assert rc == 0, err
    assert (chats(s), chats(a), chats(b)) == (128, 192, 192)
    for command in ("runs", "leaderboard"):
        rc, out, err = cli(command, *map(str, tmp_path.glob("*model__*.jsonl")), "--format", "csv")
        assert rc == 0 and "second-model" in out and "fake-model" in out, err
    rc, out, err = cli("view", str(path), "--out", str(tmp_path / "view.html"))
    assert rc == 0, err
    html = (tmp_path / "view.html").read_text()
    assert chosen[0].human[:40] in html and "judge-a on the human" in html


def test_a_judge_joining_rates_only_what_it_lacks(servers, tmp_path):
    (s, su), (a, au), (b, bu) = servers
    assert cli(*run_args(su, [(au, "judge-a")], tmp_path, "--limit", "32"))[0] == 0
    assert (chats(s), chats(a), chats(b)) == (32, 64, 0)
    rc, _out, err = cli(*run_args(su, [(au, "judge-a"), (bu, "judge-b")], tmp_path, "--limit", "32"))
    assert rc == 0, err
    assert (chats(s), chats(a), chats(b)) == (32, 64, 64)


def test_an_unreadable_rating_is_asked_again_then_left_unrated(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    ju = FakeOpenAI(responder=judge_unsure, models=("judge-u",))
    with FakeOpenAI(responder=subject) as su, ju as ju_url:
        rc, out, err = cli(*run_args(su, [(ju_url, "judge-u")], tmp_path, "--limit", "4"))
        assert rc == 0, err
        assert chats(ju) == 4 * er.JUDGE_ATTEMPTS + 4
        # each re-ask is a record of its own: said as re-asks, not as more records than were asked for
        n = 4 + 4 * er.JUDGE_ATTEMPTS
        assert f"records    {n} (8 asked for, {n - 8} re-asks) ({n} answered now" in out, out
    rc, out, err = cli("score", str(next(tmp_path.glob("fake-model__empathetic-responding__*"))), "--format", "json")
    top = json.loads(out)[0]
    assert top["rated_model"] == 0 and top["good_model"] is None and top["mean_human"] == 2.0


def test_kill_and_resume_records_every_paid_request_once(monkeypatch, tmp_path):
    """SIGKILL a real process mid-run, resume it: every request the fakes answered is one record, none asked twice."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    su, ja = (
        FakeOpenAI(responder=subject, latency=0.02),
        FakeOpenAI(responder=lambda p, t: "Good", models=("judge-a",), latency=0.02),
    )
    with su as su_url, ja as ja_url:
        args = run_args(su_url, [(ja_url, "judge-a")], tmp_path, "--limit", "40", "--concurrency", "4",
                        "--judge-concurrency", "4")  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen([sys.executable, "-m", "eqbench_nb", *args], env=env, cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        deadline = time.time() + 60
        while chats(ja) < 20 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert 0 < chats(ja) < 80
        rc, _out, err = cli(*args)
        assert rc == 0, err
        paid_subject, paid_judge = chats(su), chats(ja)
    run_file = next(tmp_path.glob("fake-model__empathetic-responding__*"))
    records = [json.loads(x) for x in run_file.read_text().splitlines()[1:] if x.strip()]
    human = [json.loads(x) for x in er.human_arm_path(tmp_path, "judge-a").read_text().splitlines()[1:]]
    answers = [r for r in records if r["metadata"].get("step") == "answer"]
    judged = [r for r in records if r["metadata"].get("step") == "judge"]
    assert len(answers) == 40 == len({r["item"] for r in answers})
    assert len(judged) + len(human) == 80 and len({r["item"] for r in human}) == len(human) == 40
    # a request in flight at the kill is paid and lost (never written), at most one per request in flight
    assert 40 <= paid_subject <= 44 and 80 <= paid_judge <= 84


@pytest.mark.slow
@needs_local_model
def test_the_bundled_model_is_subject_and_judge_offline(tmp_path):
    rc, out, err = cli("run", "--benchmark", "empathetic-responding", "--limit", "2", "--out", str(tmp_path),
                       "--no-progress", "--seed", "1")  # fmt: skip
    assert rc == 0, err
    assert "SmolLM2-135M-Instruct" in out
    path = next(tmp_path.glob("SmolLM2*__empathetic-responding__*.jsonl"))
    records = [json.loads(x) for x in path.read_text().splitlines()[1:]]
    assert sum(r["metadata"]["step"] == "answer" for r in records) == 2
    assert "judge 1" in out  # the judge's requests, the human arm's among them
    rc, out, err = cli("score", str(path), "--format", "csv")
    assert rc == 0 and "SmolLM2" in out, err
    rc, out, err = cli("runs", str(tmp_path), "--format", "csv")
    assert rc == 0 and len(out.splitlines()) == 2 and "human-arm" not in out, err  # the human-arm file is not a run


def test_two_runs_at_once_never_ask_one_judge_about_the_human_arm_twice(tmp_path):
    first = er.HumanArm(er.human_arm_path(tmp_path, "judge-a"), "judge-a", "judge-a")
    try:
        with pytest.raises(er.RunnerError, match="another run is asking judge 'judge-a' about the human arm"):
            er.HumanArm(er.human_arm_path(tmp_path, "judge-a"), "judge-a", "judge-a")
    finally:
        first.close()
    er.HumanArm(er.human_arm_path(tmp_path, "judge-a"), "judge-a", "judge-a").close()
    with pytest.raises(er.RunnerError, match="rated it as model 'judge-a', not 'other'"):
        er.HumanArm(er.human_arm_path(tmp_path, "judge-a"), "judge-a", "other")


def by_turns(prompt: str) -> tuple[str, str]:
    speaker = prompt.split("Speaker #1: ", 1)[1].split("\nSpeaker #2: ", 1)[0]
    return speaker, prompt.split("Speaker #2: ", 1)[1].split("\n\nHow empathetic", 1)[0]


@pytest.mark.slow
def test_a_judge_rating_the_human_arm_as_the_studys_raters_did_gives_986_good_of_2000(monkeypatch, tmp_path):
    """The whole set: the fake judge answers each human response with the study's own rating of it."""
    with open(er.FILES.locate(er.CSV_NAME), encoding="utf-8", newline="") as f:
        study = {(r["speaker_uttr"].strip(), r["response_human"].strip()): int(r["rating_human"])
                 for r in csv.DictReader(f)}  # fmt: skip
    assert len(study) == 2000

    def judge(prompt: str, temperature: float) -> str:
        return er.WORDS.get(study.get(by_turns(prompt), 3), "Good")

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    s, j = FakeOpenAI(responder=subject), FakeOpenAI(responder=judge, models=("judge-a",))
    with s as su, j as ju:
        rc, out, err = cli(
            *run_args(su, [(ju, "judge-a")], tmp_path, "--concurrency", "16", "--judge-concurrency", "16")
        )
        assert rc == 0, err
        assert (chats(s), chats(j)) == (2000, 4000)
    rc, out, err = cli("score", str(next(tmp_path.glob("fake-model__empathetic-responding__*"))), "--format", "json")
    top = json.loads(out)[0]
    assert top["good_human"] == 986 / 2000 and top["good_model"] == 1.0 and top["prompts"] == 2000
    assert top["mean_human"] == pytest.approx((342 + 2 * 672 + 3 * 986) / 2000)
    assert top["rel_good"] == pytest.approx((2000 - 986) / 986)
    emotions = [r for r in json.loads(out) if r["group"].startswith("emotion: ") and r["judge"] == "judge-a"]
    assert len(emotions) == 32 and all(r["p_holm"] >= r["p_good"] for r in emotions)


@pytest.mark.parametrize(
    ("args", "says"),
    [(["--emotions", "afraid,nope"], "--emotions: not the study's: nope"),
     (["--limit", "0"], "--limit: must be at least 1"),
     (["--prompt", "fancy"], "must be one of plain, definition, not 'fancy'"),
     (["--sample", "0"], "--sample")],
)  # fmt: skip
def test_a_wrong_selection_is_one_line_before_anything_is_asked(args, says, tmp_path):
    rc, _, err = cli("run", "--benchmark", "empathetic-responding", "--out", str(tmp_path), "--dry-run", *args)
    assert rc == 2 and says in err and err.strip().count("\n") <= 1 and "Traceback" not in err, err
    assert not list(tmp_path.iterdir())


def test_a_dry_run_prices_the_subject_each_judge_and_the_total(tmp_path):
    from eqbench_nb.runner.cost import token_counter

    rc, out, err = cli("run", "--benchmark", "empathetic-responding", "--sample", "32", "--dry-run",
                       "--prompt", "definition", "--price-in", "2.5", "--price-out", "10",
                       "--judge-base-url", "http://127.0.0.1:9/v1", "--judge-model", "judge-a",
                       "--judge-price-in", "1", "--judge-price-out", "4")  # fmt: skip
    assert rc == 0, err
    chosen = er.select(PROMPTS, None, 32, None, None)
    counter = token_counter("judge-a")
    judged = 2 * sum(counter.messages(er.judge_prompt(p, p.human)) for p in chosen)  # both arms, the human's text
    subject, judge, total = (
        out.split("\njudge 1 (judge-a): ")[0],
        *out.split("\njudge 1 (judge-a): ")[1].split("\ntotal"),
    )
    assert "32 prompts (definition prompt)" in subject and "requests   32 (up to 32" in subject
    assert "32 ratings of the subject's responses" in judge and "up to 32 of the human arm's" in judge
    assert f"requests   64 (up to {64 * er.JUDGE_ATTEMPTS} if" in judge and f"prompt     {judged:,} tokens" in judge
    low = judged * 1 / 1e6  # prompts alone, at the judge's $1 per million
    assert f"cost       ${low:,.4f} (prompts)" in judge and "at $1 in / $4 out" in judge
    assert f"requests   96 (up to {32 + 64 * er.JUDGE_ATTEMPTS} if" in total and "each at its own prices" in total
    rc, out, _ = cli("run", "--benchmark", "empathetic-responding", "--sample", "32", "--dry-run")
    assert "judge 1 (the bundled model)" in out and "give --judge-price-in and --judge-price-out" in out


def test_the_view_of_hostile_replies_holds_them_as_text(monkeypatch, tmp_path):
    hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    s, j = FakeOpenAI(responder=lambda p, t: hostile), FakeOpenAI(responder=lambda p, t: f"Good {hostile}")
    with s as su, j as ju:
        assert cli(*run_args(su, [(ju, "fake-model")], tmp_path, "--limit", "2"))[0] == 0
    rc, _, err = cli(
        "view", str(next(tmp_path.glob("fake-model__empathetic-responding__*"))), "--out", str(tmp_path / "v.html")
    )
    html = (tmp_path / "v.html").read_text()
    assert rc == 0 and hostile not in html and "<img src=x" not in html, err


def test_holm_adjusts_step_down_and_leaves_a_refused_group_out_of_the_family():
    got = er.holm([0.01, 0.04, None, 0.03])
    assert got[2] is None and [got[0], got[1], got[3]] == pytest.approx([0.03, 0.06, 0.06])
    assert er.holm([0.5, 0.9]) == [1.0, 1.0]


def test_a_share_near_one_keeps_its_interval_within_zero_and_one_and_the_paired_ratio_is_exact():
    mean, low, high = er._interval([1.0] * 9 + [0.0], 0.0, 1.0)
    assert mean == 0.9 and 0.0 <= low < 0.9 and high == 1.0
    rel = er.relative_increase({"a": 1.0, "b": 1.0, "c": 0.0, "d": 1.0}, {"a": 1.0, "b": 0.0, "c": 0.0, "d": 1.0})
    assert rel["rel"] == pytest.approx(0.5) and rel["rel_low"] < 0.5 < rel["rel_high"] and rel["n"] == 4


def test_the_subject_goes_through_the_batch_api_and_the_judges_are_asked_once_its_answers_are_in(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    s, j = FakeOpenAI(responder=subject, api_key=KEY), FakeOpenAI(responder=lambda p, t: "Okay", models=("judge-a",))
    with s as su, j as ju:
        args = run_args(su, [(ju, "judge-a")], tmp_path, "--limit", "6", "--batch", "--poll-interval", "0.02")
        rc, out, err = cli(*args)
        assert rc == 0, err
        assert chats(j) == 12 and chats(s) == 0  # the subject's 6 went as one batch, not as chat requests
        again = cli(*args)
        assert again[0] == 0 and chats(j) == 12, again[2]
    path = next(tmp_path.glob("fake-model__empathetic-responding__*"))
    header = json.loads(path.read_text().splitlines()[0])
    assert header["batch"] is True and KEY not in path.read_text() + out + err
    rc, out, err = cli("score", str(path), "--format", "json")
    top = json.loads(out)[0]
    assert top["okay_model"] == 1.0 and top["okay_human"] == 1.0 and top["rated_model"] == 6
