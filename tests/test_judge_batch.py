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
import re
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
from eqbench_nb.runner.cost import Prices
from eqbench_nb.runner.errors import RunnerError
from eqbench_nb.runner.options import OptionError
from eqbench_nb.runner.settings import Endpoint, RunSettings
from eqbench_nb.viewer.payload import viewer_payload

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
    # the two judges' batches side by side: both created before either's first judgement is written
    order = [x.get("event") or x.get("step") for x in map(json.loads, batched.path.read_text().splitlines()[1:])]
    assert max(i for i, x in enumerate(order) if x == "batch") < order.index(RUBRIC), order
    assert "judge: 1 batches submitted now (2 requests)" in (batched.batch or "")
    # the header records which judges joined through the Batch API; each attempt, which requests went by batch
    panel = read_eq3_run(batched.path).header["judges"]
    assert [e.get("batch") for e in panel] == [True, True]
    assert all(a.get("batch") is True for r in read_eq3_run(batched.path).records if r.step == RUBRIC
               for a in r.attempts)  # fmt: skip
    # the viewer's cost row: the judges' requests at half the price of the same requests without batches
    facts = [dict(viewer_payload([p], Prices.given(2.0, 8.0, 3.0, 4.0))["runs"][0]["summary"]["facts"])
             for p in (batched.path, plain.path)]  # fmt: skip
    assert "Batch API half price" in facts[0]["cost (judge)"] and "Batch API" not in facts[1]["cost (judge)"]
    cost = [float(f["cost (judge)"].split()[0].strip("$").replace(",", "")) for f in facts]
    assert cost[0] == pytest.approx(cost[1] / 2, abs=1e-4) and cost[1] > 0
    assert facts[0]["cost (model under test)"] == facts[1]["cost (model under test)"]


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


# ---------------------------------------------------------------- hostile batch output


def _with_nan_score(entry: dict) -> dict:
    """The judge's reply with its first criterion scored NaN (a bare NaN, as a JSON reader takes it)."""
    body = entry["response"]["body"]
    content = body["choices"][0]["message"]["content"]
    verdict = json.loads(content)
    first = next(k for k in verdict if k != "chain_of_thought_reasoning")
    bad = content.replace(f'"{first}": {verdict[first]}', f'"{first}": NaN', 1)
    body = body | {"choices": [body["choices"][0] | {"message": body["choices"][0]["message"] | {"content": bad}}]}
    return entry | {"response": entry["response"] | {"body": body}}


def _stray(entry: dict) -> dict:
    return entry | {"custom_id": "9-999~0123456789abcdef~0"}


def _first_batch(fake: FakeOpenAI, change):
    """``change(entries)`` applied to the output lines of ``fake``'s first batch only."""

    def hook(bid, done):
        return change(done) if bid == "batch-0001" else done

    fake.batches.output_lines = hook


def _only_an_error_file(fake: FakeOpenAI) -> None:
    """The first batch ends with no output file: every request's 500 in its error file."""
    advance = fake.batches._advance

    def advanced(bid):
        advance(bid)
        batch = fake.batches.batches[bid]
        if bid == "batch-0001" and batch["output_file_id"]:
            data = fake.batches.files[batch["output_file_id"]]["data"]
            lines = [json.loads(x) for x in data.splitlines()]
            failed = [x | {"response": {"status_code": 500, "body": {"error": {"message": "server error"}}}}
                      for x in lines]  # fmt: skip
            batch["output_file_id"] = None
            batch["error_file_id"] = fake.batches._store(bid, "error", failed)

    fake.batches._advance = advanced  # type: ignore[method-assign]


@pytest.mark.parametrize("hostile", ["unknown-custom-id", "non-finite-score", "error-file-only"])
def test_hostile_judge_batch_output_is_kept_apart_said_in_one_line_and_nothing_is_lost(tmp_path, hostile):
    subject, judges = _fakes()
    first = judges[0]
    if hostile == "unknown-custom-id":
        _first_batch(first, lambda done: [*done, _stray(done[0])])
    elif hostile == "non-finite-score":
        _first_batch(first, lambda done: [_with_nan_score(done[0]), *done[1:]])
    else:
        _only_an_error_file(first)
    urls = [f.start() for f in (subject, *judges)]
    try:
        said = cli(*_eq3_args(urls, tmp_path))
    finally:
        for f in (subject, *judges):
            f.stop()
    assert said.returncode == 0, said.stderr
    path = next(tmp_path.glob("*__eqbench3__*.jsonl"))
    judged = judgements(path)  # every judgement, once
    assert sorted(judged) == sorted((1, s, j) for s in SCENARIOS.split(",") for j in JUDGES)
    assert all(scores for scores, _ in judged.values())
    assert chat_requests(first) == 0 and "Traceback" not in said.stderr
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    sent = [cid for _, cid, _ in first.batches.submitted]
    if hostile == "unknown-custom-id":
        [note] = [x for x in said.stderr.splitlines() if "it was not sent" in x]
        assert note.startswith("judge: note: batch batch-0001 answers 1 request it was not sent (custom_id '9-999~")
        [stray] = [x for x in lines if x.get("event") == "batch_stray"]  # kept apart, as it came
        assert stray["endpoint"] == "judge" and [x["custom_id"] for x in stray["lines"]] == [_stray({})["custom_id"]]
        assert len(sent) == 2  # nothing asked again
    elif hostile == "non-finite-score":
        [flag] = [x for x in said.stdout.splitlines() if x.startswith("FLAGGED")]
        assert "1 judgement with a score that is not a finite number (left out, the rest kept)" in flag
        [nan] = [r for r in read_eq3_run(path).records if r.step == RUBRIC and "NaN" in json.dumps(r.attempts)]
        assert nan.judge == JUDGES[0] and 0 < len(nan.scores) < len(judged[(1, "1", JUDGES[1])][0])
        assert len(sent) == 2
    else:
        [note] = [x for x in said.stderr.splitlines() if "lines are errors" in x]
        assert note.startswith("judge: note: batch batch-0001: 2 of its 2 lines are errors (500 x2); faults go out")
        # each failed line sent again as its own request, in the next batch, and answered there
        assert Counter(bid for bid, _, _ in first.batches.submitted) == {"batch-0001": 2, "batch-0002": 2}
        assert sorted(sent[:2]) == sorted(sent[2:])


# ---------------------------------------------------------------- the dry run

_COST = re.compile(r"cost +\$([\d,.]+) \(prompts alone\), about \$([\d,.]+), at most \$([\d,.]+)")


def _dry_run(*extra: str) -> dict[str, tuple[float, ...]]:
    """Each section's costs of an EQ-Bench 3 dry run with two judges: (prompts alone, about, at most)."""
    said = cli("run", "--benchmark", "eqbench3", "--dry-run", "--scenarios", SCENARIOS, "--base-url", "http://x/v1",
               "--model", "m", "--price-in", "1", "--price-out", "2", "--judge-model", "a", "--judge-model", "b",
               "--judge-price-in", "3", "--judge-price-in", "5", "--judge-price-out", "4", *extra)  # fmt: skip
    assert said.returncode == 0, said.stderr
    out: dict[str, tuple[float, ...]] = {}
    section = ""
    for line in said.stdout.splitlines():
        if (judge := re.match(r"judge \d+ of 2: (.+)", line)) is not None:
            section = judge.group(1)
        elif not line.startswith((" ", "judge (rubric")):
            section = line
        elif (found := _COST.search(line)) is not None:
            out[section] = tuple(float(x.replace(",", "")) for x in found.groups())
    return out


def test_the_dry_run_prices_each_judge_apart_at_half_price_with_judge_batch_and_the_totals_add_up():
    plain, batched = _dry_run(), _dry_run("--judge-batch")
    assert set(batched) == {"model under test", "a", "b", "panel (2 judges)",
                            "total (the model under test and every judge)"}  # fmt: skip
    assert plain["a"] != plain["b"]  # each judge at its own prices
    for judge in ("a", "b"):
        assert batched[judge] == pytest.approx([x / 2 for x in plain[judge]], abs=1e-4)
    assert batched["model under test"] == plain["model under test"]  # the subject is not batched
    for costs in (plain, batched):
        for i in range(3):
            assert costs["panel (2 judges)"][i] == pytest.approx(costs["a"][i] + costs["b"][i], abs=2e-4)
            whole = costs["model under test"][i] + costs["panel (2 judges)"][i]
            assert costs["total (the model under test and every judge)"][i] == pytest.approx(whole, abs=2e-4)


def test_a_batched_judge_on_the_bundled_model_is_refused_before_anything_is_asked(tmp_path):
    with FakeOpenAI(models=("fake-model",), responder=responder()) as url:
        said = cli("run", "--benchmark", "eqbench3", "--base-url", url, "--model", "fake-model", "--scenarios", "1",
                   "--judge-batch", "--out", str(tmp_path), "--no-progress")  # fmt: skip
    assert said.returncode == 2 and "Traceback" not in said.stderr
    assert said.stderr.strip().splitlines()[-1] == (
        "error: the bundled model has no Batch API: give the judge's base URL (--judge-base-url) or drop --judge-batch"
    )
    assert not list(tmp_path.glob("*.jsonl"))  # nothing asked, no run file


def test_judge_resubmit_unconfirmed_goes_with_judge_batch(tmp_path):
    with pytest.raises(RunnerError, match="--judge-resubmit-unconfirmed goes with --judge-batch"):
        run_eqbench3(Endpoint(), settings=_settings(tmp_path), judge_model=["a"], judge_resubmit_unconfirmed=True)
