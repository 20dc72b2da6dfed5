"""OpenAI's Batch API against a fake Files + Batches API over real loopback HTTP: the fake checked
against the official client's calls and types, a full run (re-asks, failed and expired items), a
SIGKILL while a batch is in flight (the resume polls the same batch; nothing is paid twice), and
failed batches."""

import json
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
from cli_helper import cli, cli_process
from conftest import KEY, run
from fake_openai_server import FakeOpenAI, answer_for

pytestmark = pytest.mark.usefixtures("key")
ROOT = Path(__file__).resolve().parent.parent
N = 20


def batch_options(**kw):
    """The endpoint fields of a Batch API run that polls fast (``run(..., **batch_options())``)."""
    return {"batch": True, "poll_interval_s": 0.02, **kw}


def lines_of(path):
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def resubmitted_without_cause(fake):
    """custom_ids submitted more than once although no earlier batch failed or lost them."""
    batches = fake.batches
    lost = set()
    for batch in batches.batches.values():
        if batch["error_file_id"]:
            data = batches.files[batch["error_file_id"]]["data"].decode()
            lost |= {json.loads(x)["custom_id"] for x in data.splitlines()}
    counts = Counter(cid for _, cid, _ in batches.submitted)
    return [cid for cid, n in counts.items() if n > 1 and cid not in lost]


def test_the_fake_answers_the_official_clients_batch_calls_with_the_official_types():
    """The fake's shapes are validated against the openai package's own models, through its own calls."""
    import openai
    from openai.types import Batch, FileObject

    with FakeOpenAI() as url:
        client = openai.OpenAI(base_url=url, api_key=KEY, max_retries=0)
        body = {"model": "fake-model", "messages": [{"role": "user", "content": "Angry: <score>"}], "max_tokens": 60}
        line = {"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", "body": body}
        upload = client.files.create(file=("in.jsonl", (json.dumps(line) + "\n").encode()), purpose="batch")
        FileObject.model_validate(upload.model_dump())  # every required field, the right types
        batch = client.batches.create(input_file_id=upload.id, endpoint="/v1/chat/completions", completion_window="24h")
        assert batch.status == "validating"
        for _ in range(10):
            batch = client.batches.retrieve(batch.id)
            Batch.model_validate(batch.model_dump())
            if batch.status == "completed":
                break
        assert batch.status == "completed" and batch.request_counts.completed == 1
        output = [json.loads(x) for x in client.files.content(batch.output_file_id).text.splitlines()]
        assert output[0]["custom_id"] == "a" and output[0]["response"]["status_code"] == 200
        assert output[0]["response"]["body"]["choices"][0]["message"]["content"].startswith("Angry: ")
        with pytest.raises(openai.BadRequestError):  # the fake refuses what OpenAI refuses
            client.batches.create(input_file_id=upload.id, endpoint="/v1/completions", completion_window="24h")


def test_a_batch_run_scores_what_the_same_run_without_batches_scores(tmp_path):
    fake = FakeOpenAI(unparseable_rate=0.3, batch_item_faults={"500": 0.1}, batch_expire_first=True)
    with fake as url:
        result = run(url, tmp_path / "batch", limit=N, **batch_options(price_in=2.0, price_out=8.0))
        reference = run(url, tmp_path / "reference", limit=N)
    assert result.complete
    assert {k: (s.score, s.n_parseable) for k, s in result.scores.items()} == {
        k: (s.score, s.n_parseable) for k, s in reference.scores.items()
    }
    assert [(r.key, r.first_pass) for r in sorted(result.run.records, key=lambda r: r.key)] == [
        (r.key, r.first_pass) for r in sorted(reference.run.records, key=lambda r: r.key)
    ]
    sizes = [len(b["lines"]) for b in fake.batches.batches.values()]
    assert sizes[0] == N and all(later < N for later in sizes[1:]) and len(sizes) >= 3  # re-asks: smaller batches
    assert resubmitted_without_cause(fake) == []
    first = fake.batches.batches["batch-0001"]["request"]
    assert first["endpoint"] == "/v1/chat/completions" and first["completion_window"] == "24h"
    events = [x for x in lines_of(result.path) if x.get("event") == "batch"]
    assert [e["batch_id"] for e in events] == list(fake.batches.batches)  # each batch id in the run file
    table = result.table()
    assert "Batch API half price" in table and "expired x1" in table
    usage = result.usage
    cost = 0.5 * (usage.prompt * 2.0 + usage.completion * 8.0) / 1e6
    assert f"cost ${cost:,.4f}" in table
    assert KEY not in result.path.read_text()


def _batch_run(url, out):
    """``eqbench-nb run`` of N questions through the Batch API, polled fast: its arguments."""
    return ["run", "--base-url", url, "--model", "fake-model", "--limit", N, "--out", out, "--no-progress", "--batch",
            "--poll-interval", "0.02"]  # fmt: skip


@pytest.mark.slow
def test_sigkill_while_a_batch_is_in_flight_then_resume_polls_the_same_batch(tmp_path):
    fake = FakeOpenAI(unparseable_rate=0.3, batch_polls=10_000)  # the first batch stays in progress
    with fake as url:
        args = _batch_run(url, tmp_path)
        proc = cli_process(*args, wait=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while fake.batches.retrievals < 3 and proc.poll() is None and time.time() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert list(fake.batches.batches) == ["batch-0001"]  # killed while its only batch was in flight
        path = next(tmp_path.glob("*.jsonl"))
        events = [x for x in lines_of(path) if x.get("event") == "batch"]
        assert [e["batch_id"] for e in events] == ["batch-0001"] and len(events[0]["custom_ids"]) == N
        fake.batches.polls = 2  # the batch now finishes
        done = cli(*args)
        reference = run(url, tmp_path / "reference", limit=N)
    assert done.returncode == 0, done.stderr
    assert "1 of an earlier session collected" in done.stdout
    first_round = [b for b in fake.batches.batches.values() if len(b["lines"]) == N]
    assert len(first_round) == 1  # one batch for the first round: nothing submitted again after the kill
    counts = Counter(cid for _, cid, _ in fake.batches.submitted)
    assert max(counts.values()) == 1  # no request submitted twice
    records = [x for x in lines_of(path) if x.get("type") == "record"]
    assert sorted((r["question_id"], r["first_pass"] == {}) for r in records) == sorted(
        (r.question_id, r.first_pass == {}) for r in reference.run.records
    )


def test_a_failed_batch_is_one_line_and_the_next_run_submits_again(tmp_path):
    fake = FakeOpenAI()
    with fake as url:
        fake.batches.fail_next = "line 1: the input file could not be parsed"
        failed = cli(*_batch_run(url, tmp_path))
        again = cli(*_batch_run(url, tmp_path))
    assert failed.returncode == 2 and "Traceback" not in failed.stderr
    last = failed.stderr.strip().splitlines()[-1]
    assert last.startswith("error: batch batch-0001 failed (line 1: the input file could not be parsed)"), last
    assert again.returncode == 0, again.stderr
    assert len(fake.batches.batches) == 2 and len(fake.batches.batches["batch-0002"]["lines"]) == N


@pytest.mark.slow
def test_a_run_with_batches_in_flight_refuses_to_go_on_without_batch(tmp_path):
    fake = FakeOpenAI(batch_polls=10_000)
    with fake as url:
        args = _batch_run(url, tmp_path)
        proc = cli_process(*args, wait=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while fake.batches.retrievals < 1 and proc.poll() is None and time.time() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        plain = cli(*[a for a in args if a not in ("--batch", "--poll-interval", "0.02")])
    assert plain.returncode == 2 and "run with --batch to collect them" in plain.stderr.strip().splitlines()[-1]
    assert fake.outcomes["ok"] == 0  # no question asked again outside the batch


def test_a_reasoning_model_is_adapted_inside_batches_too(tmp_path):
    fake = FakeOpenAI(unparseable_rate=0.3, reasoning="o-series")
    with fake as url:
        result = run(url, tmp_path / "o", limit=N, **batch_options(max_tokens=2000))
    with FakeOpenAI(unparseable_rate=0.3, responder=lambda p, t: answer_for(p, 1.0, 0.3)) as url:
        reference = run(url, tmp_path / "reference", limit=N)
    assert result.run.header["deviations"] == ["max_completion_tokens", "default_temperature"]
    assert result.scores["official"].score == reference.scores["official"].score
    refused_once = len(fake.batches.batches["batch-0001"]["lines"])
    assert refused_once == N  # the first batch was refused item by item, then sent again adapted
    assert resubmitted_without_cause(fake) == []
