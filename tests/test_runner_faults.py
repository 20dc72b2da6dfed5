"""Transport faults against a real loopback server: retried and counted, never a parse attempt;
401/403/404 stop at once; SIGKILL at any point loses nothing finished and a resume completes the run."""

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from cli_helper import cli, cli_process
from conftest import KEY, run
from fake_openai_server import FakeOpenAI

from eqbench_nb.runner import EndpointRefused, RetryPolicy, RunnerError
from eqbench_nb.runner.transport import retry_after_s

ROOT = Path(__file__).resolve().parent.parent
EVERY_FAULT = {
    "429": 0.03,
    "500": 0.03,
    "502": 0.02,
    "503": 0.02,
    "slow": 0.02,
    "reset": 0.03,
    "garbage": 0.02,
    "empty": 0.02,
    "nochoices": 0.01,
}  # 20 % of requests in all


pytestmark = pytest.mark.usefixtures("key")  # every test here talks to the loopback server


def keys_of(path):
    return [(r["iteration"], r["question_id"]) for r in map(json.loads, path.read_text().splitlines()[1:])]


def test_twenty_percent_faults_every_question_answered_exactly_once(tmp_path):
    fake = FakeOpenAI(faults=EVERY_FAULT, slow_s=0.6, seed=3)
    url = fake.start()
    try:
        result = run(url, tmp_path, limit=60, concurrency=8, timeout_s=0.3)
    finally:
        fake.stop()
    keys = keys_of(result.path)
    assert sorted(keys) == sorted((1, str(i)) for i in range(1, 61))  # each question exactly once
    # all answers are parseable, so every fault was a transport retry and no parse attempt was used
    assert all(len(r.attempts) == 1 for r in result.run.records)
    served = {k: v for k, v in fake.outcomes.items() if k != "ok"}
    served_faults = sum(served.values())
    assert served_faults >= 5, served
    recorded = sum(a["transport_retries"] for r in result.run.records for a in r.attempts)
    assert recorded == result.stats.retries  # the file and the summary count the same retries
    # Every fault the fake served cost exactly one retry. The client may also give up (timeout=0.3 s) on an answer
    # a loaded machine delivers late, or on a fault whose reply came late: a retry the fake never served as a fault,
    # always counted as a client timeout. So each retry beyond the served faults is a timeout, never another kind.
    assert recorded >= served_faults, (recorded, served)
    timeouts = result.stats.faults.get("timeout", 0)
    assert recorded - served_faults <= timeouts - served.get("slow", 0), (result.stats.faults, served)
    assert {"timeout", "connection", "malformed"} & set(result.stats.faults)
    assert "transport retries" in result.table()


def test_faults_and_parse_retries_together(tmp_path):
    """Unparseable answers use the protocol's attempts; faults on top of them do not."""
    with FakeOpenAI(faults=EVERY_FAULT, unparseable_rate=0.4, slow_s=0.6, seed=5) as url:
        result = run(url, tmp_path, limit=30, concurrency=6, timeout_s=0.3)
    assert len(result.run.records) == 30
    for r in result.run.records:
        texts = [a["text"] for a in r.attempts]
        assert all("rather not" in t for t in texts[:-1])  # only unparseable answers were retried
        assert len(texts) <= 3


def test_retry_after_is_honoured(tmp_path):
    with FakeOpenAI(script=["429"], retry_after=1.0) as url:
        started = time.perf_counter()
        result = run(url, tmp_path, limit=1, concurrency=1)
        elapsed = time.perf_counter() - started
    assert elapsed >= 1.0
    attempt = result.run.records[0].attempts[0]
    assert attempt["transport_retries"] == 1 and attempt["transport_faults"] == ["429"]


def test_retry_after_header_forms():
    assert retry_after_s({"retry-after": "2"}) == 2.0
    assert retry_after_s({"retry-after-ms": "1500"}) == 1.5
    assert retry_after_s({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # a date in the past
    assert retry_after_s({"retry-after": "soon"}) is None and retry_after_s({}) is None


def test_wrong_key_stops_at_once_and_is_redacted(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    fake = FakeOpenAI(api_key="sk-the-right-one")  # its 401 body echoes the key it was sent
    url = fake.start()
    try:
        with pytest.raises(EndpointRefused) as info:
            run(url, tmp_path, limit=20, concurrency=4)
    finally:
        fake.stop()
    message = str(info.value)
    assert "401" in message and "\n" not in message and KEY not in message
    assert len(fake.log) <= 4, "no retries after an authentication failure"
    for f in tmp_path.rglob("*"):
        if f.is_file():
            assert KEY not in f.read_text()


def test_model_not_found_stops_at_once(tmp_path):
    fake = FakeOpenAI(models=("other-model",), lists_models=False)  # a listing server: test_unknown_model.py
    url = fake.start()
    try:
        with pytest.raises(EndpointRefused, match=r"404.*fake-model"):
            run(url, tmp_path, limit=20, concurrency=2)
    finally:
        fake.stop()
    assert len(fake.log) <= 2


def test_scripted_403_stops(tmp_path):
    with FakeOpenAI(script=["401"]) as url, pytest.raises(EndpointRefused, match="401"):
        run(url, tmp_path, limit=3, concurrency=1)


def test_question_left_unfinished_after_retry_limit_then_resumed(tmp_path):
    policy = RetryPolicy(max_retries=2, base_delay_s=0.01, max_delay_s=0.02)
    with FakeOpenAI(script=["500", "503", "502"]) as url:  # the first question fails three times in a row
        first = run(url, tmp_path, limit=3, concurrency=1, retry=policy)
        assert first.unfinished == 1 and len(first.run.records) == 2
        assert "left unfinished" in first.table()
        second = run(url, tmp_path, limit=3, concurrency=1, retry=policy)
    assert second.answered_now == 1 and sorted(keys_of(second.path)) == [(1, "1"), (1, "2"), (1, "3")]


def test_endpoint_that_keeps_failing_stops_the_run(tmp_path):
    policy = RetryPolicy(max_retries=1, base_delay_s=0.01, max_delay_s=0.02)
    with FakeOpenAI(faults={"503": 1.0}) as url, pytest.raises(RunnerError, match="keeps failing"):
        run(url, tmp_path, limit=50, concurrency=2, retry=policy)


# ---------------------------------------------------------------- SIGKILL and resume


def _run_args(url, out):
    """``eqbench-nb run``'s arguments: 24 questions, twice, 4 at a time."""
    return ["run", "--base-url", url, "--model", "fake-model", "--limit", "24", "--iterations", "2", "--concurrency",
            "4", "--out", out, "--no-progress"]  # fmt: skip


def _records_in(path):
    if not path.exists():
        return 0
    return max(0, path.read_bytes().count(b"\n") - 1)


@pytest.mark.slow
def test_sigkill_at_several_points_then_resume_matches_an_uninterrupted_run(tmp_path):
    with FakeOpenAI(latency=0.08, unparseable_rate=0.2) as url:
        reference = run(url, tmp_path / "reference", limit=24, iterations=2, concurrency=4)
        out = tmp_path / "killed"
        path = out / reference.path.name
        snapshots = []
        for kill_at in (0, 7, 25):  # records on disk: before any, early, and in the second iteration
            proc = cli_process(*_run_args(url, out), wait=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.time() + 30
            while (not path.exists() or _records_in(path) < kill_at) and proc.poll() is None and time.time() < deadline:
                time.sleep(0.005)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            snapshots.append(path.read_bytes().splitlines(keepends=True))
            assert kill_at <= _records_in(path) < 48, "killed at the wrong point"
        done = cli(*_run_args(url, out))
    assert done.returncode == 0, done.stderr
    final = path.read_bytes().splitlines(keepends=True)
    for snap in snapshots:  # every finished record written before a kill is still there, in place
        whole = [line for line in snap if line.endswith(b"\n")]
        assert final[: len(whole)] == whole
    keys = keys_of(path)
    assert len(keys) == len(set(keys)) == 48
    assert set(keys) == set(keys_of(reference.path))
    ours = {(r["iteration"], r["question_id"]): r["first_pass"] for r in map(json.loads, final[1:])}
    theirs = {(r.iteration, r.question_id): r.first_pass for r in reference.run.records}
    assert ours == theirs  # same answers as the uninterrupted run (the fake server is deterministic)
    assert "official" in done.stdout
