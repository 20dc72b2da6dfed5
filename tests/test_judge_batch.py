"""Judges through OpenAI's Batch API (issue 48), over loopback fakes with Files and Batches (real HTTP, the real
openai client): an EQ-Bench 3 run with ``--judge-batch`` and two judges sends every judge request inside batches
(no judge chat completion), one batch per judge, and its judgements equal a run without batches item for item; a
joining judge batches only what it lacks; the options are checked from Python as from the command line; a file
with a judge's batches refuses a run that would ask them again without ``--judge-batch``; hostile output lines
(an unknown custom id, a non-finite score, an error file in place of an output file) are each kept apart, said
in one line, and nothing is lost; the pairwise judgements of ``leaderboard --judge --judge-batch`` go as one batch
per round; the dry run prices each judge apart at half price."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from cli_helper import cli, cli_process
from conftest import needs_data
from fake_eqbench3 import responder
from fake_openai_server import FakeOpenAI

from eqbench_nb.eqbench3.options import Eq3RunOptions, judges_of
from eqbench_nb.eqbench3.runs import RUBRIC, read_eq3_run
from eqbench_nb.eqbench3.task import run_eqbench3
from eqbench_nb.runner import RetryPolicy
from eqbench_nb.runner.errors import RunnerError
from eqbench_nb.runner.options import OptionError
from eqbench_nb.runner.settings import Endpoint, RunSettings

pytestmark = [needs_data, pytest.mark.usefixtures("key")]
FAST = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
SCENARIOS = "1,401"  # a role-play (three turns and a debrief) and an analysis task
JUDGES = ("judge-a", "judge-b")


def _ep(url: str, model: str, **kw) -> Endpoint:
    return Endpoint(base_url=url, model=model, retry=FAST, timeout_s=10, **kw)


def _judge(url: str, model: str, batch: bool = True) -> Endpoint:
    return _ep(url, model, batch=batch, poll_interval_s=0.02) if batch else _ep(url, model)


def _settings(out: Path) -> RunSettings:
    return RunSettings(out_dir=out, progress=False)


def chat_requests(fake: FakeOpenAI) -> int:
    """Chat completions the fake answered one at a time (outside any batch)."""
    return len(fake.log)


def judgements(path: Path) -> dict[tuple, tuple]:
    """Every rubric judgement of a run file: (iteration, scenario, judge) -> (scores, error)."""
    out = {}
    for r in read_eq3_run(path).records:
        if r.step == RUBRIC:
            key = (r.iteration, r.scenario_id, r.judge)
            assert key not in out, f"judged twice: {key}"
            out[key] = (r.scores, r.error)
    return out


def _fakes(scores=(15, 11)):
    subject = FakeOpenAI(models=("fake-model",), responder=responder())
    judges = [FakeOpenAI(models=(m,), responder=responder(rubric_score=s), batch_polls=1)
              for m, s in zip(JUDGES, scores)]  # fmt: skip
    return subject, judges


def test_two_batched_judges_send_every_request_in_one_batch_each_and_judge_as_without_batches(tmp_path):
    subject, judges = _fakes()
    urls = [f.start() for f in (subject, *judges)]
    try:
        batched = run_eqbench3(_ep(urls[0], "fake-model"), [_judge(u, m) for u, m in zip(urls[1:], JUDGES)],
                               _settings(tmp_path / "batched"), scenarios=SCENARIOS)  # fmt: skip
        plain = run_eqbench3(_ep(urls[0], "fake-model"), [_judge(u, m, False) for u, m in zip(urls[1:], JUDGES)],
                             _settings(tmp_path / "plain"), scenarios=SCENARIOS)  # fmt: skip
    finally:
        for f in (subject, *judges):
            f.stop()
    assert batched.complete and plain.complete
    got, want = judgements(batched.path), judgements(plain.path)
    assert len(got) == 2 * 2 and got == want  # two scenarios, two judges: item for item
    assert all(scores for scores, _ in got.values())
    for fake in judges:
        submitted = fake.batches.submitted
        # every judge request inside batches: the batched run's, and the plain run's one at a time
        assert chat_requests(fake) == 2 and len(submitted) == 2
        assert len(fake.batches.batches) == 1  # the judgements of both finished scenarios in one batch
        assert len({cid for _, cid, _ in submitted}) == len(submitted)
    # the subject was asked the same in both runs (the judge's batches change nothing of it)
    assert subject.batches.submitted == [] and chat_requests(subject) == 2 * (4 + 1)
    events = [json.loads(x) for x in batched.path.read_text().splitlines() if '"event"' in x]
    labels = Counter(e.get("endpoint") for e in events if e.get("event") == "batch")
    assert labels == {"judge": 1, "judge 2": 1}, labels
    assert "judge: 1 batches submitted now (2 requests)" in (batched.batch or "")


def test_a_judge_joining_with_judge_batch_batches_only_what_it_lacks(tmp_path):
    subject, judges = _fakes()
    urls = [f.start() for f in (subject, *judges)]
    try:
        run_eqbench3(_ep(urls[0], "fake-model"), _judge(urls[1], JUDGES[0], False), _settings(tmp_path),
                     scenarios=SCENARIOS)  # fmt: skip
        asked = chat_requests(subject)
        grown = run_eqbench3(_ep(urls[0], "fake-model"), [_judge(urls[1], JUDGES[0]), _judge(urls[2], JUDGES[1])],
                             _settings(tmp_path), scenarios=SCENARIOS)  # fmt: skip
    finally:
        for f in (subject, *judges):
            f.stop()
    assert grown.complete
    assert chat_requests(subject) == asked  # the model under test is asked nothing
    assert judges[0].batches.submitted == [] and chat_requests(judges[0]) == 2  # the first judge has them all
    assert len(judges[1].batches.submitted) == 2 and chat_requests(judges[1]) == 0
    assert Counter(j for _, _, j in judgements(grown.path)) == {JUDGES[0]: 2, JUDGES[1]: 2}


def test_a_judges_open_batch_refuses_a_run_without_judge_batch(tmp_path):
    subject, judges = _fakes()
    urls = [f.start() for f in (subject, *judges)]
    judges[0].batches.polls = 10**6  # never ends: the run stops after --batch-wait with the batch in its file
    try:
        with pytest.raises(RunnerError, match="--batch-wait"):
            run_eqbench3(_ep(urls[0], "fake-model"), _ep(urls[1], JUDGES[0], batch=True, poll_interval_s=0.02,
                         batch_wait_s=0.2), _settings(tmp_path), scenarios=SCENARIOS)  # fmt: skip
        with pytest.raises(RunnerError, match="batches of judge submitted through the Batch API; run with --judge-"):
            run_eqbench3(_ep(urls[0], "fake-model"), _judge(urls[1], JUDGES[0], False), _settings(tmp_path),
                         scenarios=SCENARIOS)  # fmt: skip
        judges[0].batches.polls = 0
        done = run_eqbench3(_ep(urls[0], "fake-model"), _judge(urls[1], JUDGES[0]), _settings(tmp_path),
                            scenarios=SCENARIOS)  # fmt: skip
    finally:
        for f in (subject, *judges):
            f.stop()
    assert done.complete and len(judgements(done.path)) == 2
    assert len(judges[0].batches.batches) == 1 and chat_requests(judges[0]) == 0  # collected, not sent again


def test_judge_batch_options_are_checked_from_python_as_from_the_command_line(tmp_path):
    spec = judges_of(Eq3RunOptions(judge_model=["a", "b"], judge_batch=True, judge_poll_interval=5))
    assert [s.endpoint.batch for s in spec] == [True, True] and spec[0].endpoint.poll_interval_s == 5
    with pytest.raises(OptionError, match="judge_poll_interval"):
        Eq3RunOptions(judge_poll_interval=0)
    said = cli("run", "--benchmark", "eqbench3", "--judge-poll-interval", "0", "--out-dir", str(tmp_path))
    assert said.returncode == 2 and "--judge-poll-interval" in said.stderr
    panel = tmp_path / "judges.json"
    panel.write_text(json.dumps({"judges": [{"model": "a", "batch": True}, {"model": "b", "batch": "yes"}]}))
    with pytest.raises(RunnerError, match="judge 2 batch must be true or false"):
        judges_of(Eq3RunOptions(judges=str(panel)))
    panel.write_text(json.dumps({"judges": [{"model": "a", "batch": True}, {"model": "b"}]}))
    assert [s.endpoint.batch for s in judges_of(Eq3RunOptions(judges=str(panel)))] == [True, False]


def _pairs(path: Path) -> dict[tuple, object]:
    from eqbench_nb.eqbench3.runs import read_pairwise

    out = {}
    for r in read_pairwise(path).records:
        key = (r.judge, r.iteration, r.scenario_id, r.test, r.other, r.order)
        assert key not in out, f"judged twice: {key}"
        out[key] = r.verdict
    return out


@pytest.mark.slow
def test_pairwise_judgements_with_judge_batch_go_as_one_batch_per_round_and_equal_those_without(tmp_path):
    tags = {"terse-model": "t", "verbose-model": "v" * 300}
    subjects = {m: FakeOpenAI(models=(m,), responder=responder(tag=t)) for m, t in tags.items()}
    rubric = FakeOpenAI(models=("rubric-judge",), responder=responder())
    pair = FakeOpenAI(models=("pair-judge",), responder=responder(pairwise_winner=lambda a, b: "A0488"),
                      batch_polls=1)  # fmt: skip
    servers = [*subjects.values(), rubric, pair]
    urls = [f.start() for f in servers]
    try:
        batched_dir, plain_dir = tmp_path / "batched", tmp_path / "plain"
        for (model, _), url in zip(tags.items(), urls):
            run_eqbench3(_ep(url, model), _ep(urls[2], "rubric-judge"), _settings(batched_dir), scenarios=SCENARIOS)
        plain_dir.mkdir()
        for f in batched_dir.glob("*__eqbench3__*.jsonl"):
            (plain_dir / f.name).write_bytes(f.read_bytes())
        board = ["leaderboard", "--judge", "--judge-model", "pair-judge", "--judge-base-url", urls[3]]
        batched = cli(*board[:1], str(batched_dir), *board[1:], "--judge-batch", "--judge-poll-interval", "0.02")
        plain = cli(*board[:1], str(plain_dir), *board[1:])
    finally:
        for f in servers:
            f.stop()
    assert batched.returncode == 0 and plain.returncode == 0, batched.stderr + plain.stderr
    got = _pairs(batched_dir / "eqbench3-judgements.jsonl")
    assert got and got == _pairs(plain_dir / "eqbench3-judgements.jsonl")
    submitted = pair.batches.submitted
    assert len(submitted) == len(got) and chat_requests(pair) == len(got)  # the plain board's, one at a time
    # one batch per placement round (each round depends on the last): never one request per batch
    sizes = Counter(bid for bid, _, _ in submitted)
    assert len(sizes) < len(got) and len({cid for _, cid, _ in submitted}) == len(submitted)


def _eq3_args(urls: list[str], out: Path, *extra: str) -> list[str]:
    """``run --benchmark eqbench3`` with two judges through the Batch API, polled fast."""
    return ["run", "--benchmark", "eqbench3", "--base-url", urls[0], "--model", "fake-model", "--scenarios", SCENARIOS,
            "--judge-base-url", urls[1], "--judge-model", JUDGES[0], "--judge-base-url", urls[2], "--judge-model",
            JUDGES[1], "--judge-batch", "--judge-poll-interval", "0.05", "--out", str(out), "--no-progress",
            *extra]  # fmt: skip


def _stall_downloads(fake: FakeOpenAI, gate: threading.Event) -> Counter:
    """Hold every file download of ``fake`` until ``gate`` is set; the downloads begun, counted."""
    began: Counter = Counter()
    handle_get = fake.batches.handle_get

    def stalled(handler, route):
        if route.endswith("/content"):
            began["downloads"] += 1
            gate.wait(30)
        return handle_get(handler, route)

    fake.batches.handle_get = stalled  # type: ignore[method-assign]
    return began


def _wait_for(condition, proc, seconds=60.0) -> None:
    deadline = time.time() + seconds
    while not condition() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    assert condition(), "the phase never came"


@pytest.mark.slow
@pytest.mark.parametrize("phase", ["create", "poll", "download"])
def test_a_sigkill_during_a_judges_batch_then_resume_pays_once_and_records_every_judgement_once(tmp_path, phase):
    subject, judges = _fakes()
    urls = [f.start() for f in (subject, *judges)]
    first = judges[0].batches
    gate = threading.Event()
    try:
        if phase == "create":
            first.create_delay_s = 30  # the batch is made at once; its answer never reaches the killed run
            reached = lambda: first.creates == 1
        elif phase == "poll":
            first.polls = 10**6  # in progress until the test says
            reached = lambda: first.retrievals >= 2
        else:
            began = _stall_downloads(judges[0], gate)
            reached = lambda: began["downloads"] >= 1
        args = _eq3_args(urls, tmp_path)
        proc = cli_process(*args, wait=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_for(reached, proc)
        finally:
            proc.kill()
            proc.wait()
        gate.set()
        first.create_delay_s, first.polls = 0, 1
        again = cli(*args)
    finally:
        gate.set()
        for f in (subject, *judges):
            f.stop()
    assert again.returncode == 0, again.stderr
    path = next(tmp_path.glob("*__eqbench3__*.jsonl"))
    judged = judgements(path)  # each judgement once
    assert sorted(judged) == sorted((1, s, j) for s in SCENARIOS.split(",") for j in JUDGES)
    assert all(scores for scores, _ in judged.values())
    for fake in judges:
        assert chat_requests(fake) == 0  # every judge request inside a batch
        cids = Counter(cid for _, cid, _ in fake.batches.submitted)
        assert len(cids) == 2 and max(cids.values()) == 1  # no batch created twice for the same requests
    assert len(first.batches) == 1
    if phase == "create":
        assert "was created by a run stopped before it heard so" in again.stderr
