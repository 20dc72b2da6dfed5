"""creative-writing's and Judgemark's judges through the Batch API (``--judge-batch``, issue 48), over loopback fakes
with Files and Batches (real HTTP, the real openai client): every judge request inside batches (no judge chat
completion), the judgements equal a run without batches item for item, the re-asks go out as the next, smaller
batch; a SIGKILL during a judge's batch create, poll or download, then the same command: no request submitted twice,
every judgement recorded once; the dry run at half price."""

from __future__ import annotations

import json
import subprocess
import threading
import time
import zlib
from collections import Counter
from pathlib import Path

import pytest
from cli_helper import cli, cli_process
from conftest import needs_data
from fake_judged import responder
from fake_openai_server import FakeOpenAI
from test_judge_batch import _stall_downloads

from eqbench_nb.judged.runs import JUDGE, read_judged_run
from eqbench_nb.judged.task import judgemark_pieces, run_creative_writing, run_judgemark
from eqbench_nb.runner import RetryPolicy
from eqbench_nb.runner.settings import Endpoint, RunSettings

pytestmark = [needs_data, pytest.mark.usefixtures("key")]
FAST = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)


def _ep(url: str, model: str, batch: bool = False, **kw) -> Endpoint:
    extra = {"batch": True, "poll_interval_s": 0.02} if batch else {}
    return Endpoint(base_url=url, model=model, retry=FAST, timeout_s=10, **extra, **kw)


def _settings(out: Path) -> RunSettings:
    return RunSettings(out_dir=out, progress=False)


def judgements(path: Path, benchmark: str) -> dict[tuple, tuple]:
    """Every judge reply of a run file: (iteration, item, round, attempt) -> (its text, its scores)."""
    out = {}
    for r in read_judged_run(path, benchmark).records:
        if r.step == JUDGE:
            key = (r.iteration, r.item, r.round, r.attempt)
            assert key not in out, f"recorded twice: {key}"
            out[key] = (r.text, r.scores)
    return out


def _flaky(seen: set[str]):
    """The judge, its first reply to about one prompt in six unparseable (chosen by the prompt, not the order)."""
    base = responder()

    def respond(prompt: str, temperature: float) -> str:
        if "[TEST MODEL RESPONSE]" in prompt and zlib.crc32(prompt.encode()) % 6 == 0 and prompt not in seen:
            seen.add(prompt)
            return "A fine piece, on the whole, with no number to read."
        return base(prompt, temperature)

    return respond


def test_creative_writing_with_judge_batch_judges_every_piece_in_batches_as_without_them(tmp_path):
    writer = FakeOpenAI(models=("fake-model",), responder=responder())
    flaky: set[str] = set()
    judge = FakeOpenAI(models=("judge-model",), responder=_flaky(flaky), batch_polls=1)
    w_url, j_url = writer.start(), judge.start()
    try:
        batched = run_creative_writing(_ep(w_url, "fake-model"), _ep(j_url, "judge-model", batch=True),
                                       _settings(tmp_path / "batched"))  # fmt: skip
        log, reasked = len(judge.log), len(flaky)
        judge.responder = _flaky(set())  # the same judge, the same replies unparseable once more
        plain = run_creative_writing(_ep(w_url, "fake-model"), _ep(j_url, "judge-model"), _settings(tmp_path / "plain"))
    finally:
        writer.stop()
        judge.stop()
    assert batched.complete and plain.complete and reasked > 0
    got, want = judgements(batched.path, "creative-writing"), judgements(plain.path, "creative-writing")
    assert log == 0  # every judge request of the batched run inside a batch
    assert len(judge.batches.submitted) == len(got) == len(want) == 19 + reasked
    assert got == want  # the same replies and scores, item for item
    # the 19 first judgements in one batch, the re-asks (the unparseable replies) in the next
    assert sorted(Counter(bid for bid, _, _ in judge.batches.submitted).values()) == sorted([reasked, 19])
    assert f"judge: 2 batches submitted now ({19 + reasked} requests)" in (batched.batch or "")


def test_judgemark_with_judge_batch_sends_its_360_judgements_as_one_batch(tmp_path):
    judge = FakeOpenAI(models=("judge-model",), responder=responder(score=lambda piece: min(10, len(piece) / 400)),
                       batch_polls=1)  # fmt: skip
    with judge as url:
        said = cli("run", "--benchmark", "judgemark", "--judge-base-url", url, "--judge-model", "judge-model",
                   "--judge-batch", "--judge-poll-interval", "0.02", "--out", str(tmp_path / "batched"),
                   "--no-progress")  # fmt: skip
        plain = run_judgemark(_ep(url, "judge-model", concurrency=16), _settings(tmp_path / "plain"))
    assert said.returncode == 0, said.stderr
    (path,) = (tmp_path / "batched").glob("judge-model__judgemark__*.jsonl")
    got, want = judgements(path, "judgemark"), judgements(plain.path, "judgemark")
    assert got == want and len(got) == len(judgemark_pieces()) == 360
    assert list(Counter(bid for bid, _, _ in judge.batches.submitted).values()) == [360]
    assert len(judge.log) == 360  # the plain run's: none of the batched run's


def _kill_when(reached, *args: str) -> None:
    """``eqbench-nb ARGS`` as a real process, SIGKILLed as soon as ``reached()`` (the batch phase under test)."""
    proc = cli_process(*args, wait=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while not reached() and proc.poll() is None and time.time() < deadline:
            time.sleep(0.01)
        assert reached(), "the phase never came"
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("bench", "phase"),
    [
        ("creative-writing", "create"),
        ("creative-writing", "poll"),
        ("creative-writing", "download"),
        ("judgemark", "create"),  # its 360 judgements take a while: the phase whose resume must find the batch
        ("judgemark", "poll"),  # the batch out: the resume polls it by its id
    ],
)
def test_a_sigkill_during_a_judges_batch_then_resume_pays_once_and_records_every_judgement_once(tmp_path, bench, phase):
    writer = FakeOpenAI(models=("fake-model",), responder=responder())
    judge = FakeOpenAI(models=("judge-model",), responder=responder(), batch_polls=1)
    urls = [writer.start(), judge.start()]
    batches, gate = judge.batches, threading.Event()
    if phase == "create":
        batches.create_delay_s = 30
        reached = lambda: batches.creates == 1
    elif phase == "poll":
        batches.polls = 10**6
        reached = lambda: batches.retrievals >= 2
    else:
        began = _stall_downloads(judge, gate)
        reached = lambda: began["downloads"] >= 1
    subject = ["--base-url", urls[0], "--model", "fake-model"] if bench == "creative-writing" else []
    args = ["run", "--benchmark", bench, *subject, "--judge-base-url", urls[1], "--judge-model", "judge-model",
            "--judge-batch", "--judge-poll-interval", "0.05", "--out", str(tmp_path), "--no-progress"]  # fmt: skip
    try:
        _kill_when(reached, *args)
        gate.set()
        batches.create_delay_s, batches.polls = 0, 1
        again = cli(*args)
    finally:
        gate.set()
        writer.stop()
        judge.stop()
    assert again.returncode == 0, again.stderr
    (path,) = tmp_path.glob(f"*__{bench}__*.jsonl")
    judged = judgements(path, bench)  # each once
    items = 19 if bench == "creative-writing" else 360
    assert len(judged) == items and all(scores for _, scores in judged.values())
    assert len(judge.log) == 0  # every judge request inside a batch
    cids = Counter(cid for _, cid, _ in batches.submitted)
    assert len(cids) == items and max(cids.values()) == 1  # no request submitted twice
    assert len(batches.batches) == 1


def test_the_dry_runs_price_the_judge_at_half_with_judge_batch():
    def cost(benchmark: str, *extra: str) -> str:
        subject = ["--base-url", "http://x/v1", "--model", "m"] if benchmark == "creative-writing" else []
        said = cli("run", "--benchmark", benchmark, "--dry-run", *subject, "--judge-model", "j", "--judge-price-in",
                   "3", "--judge-price-out", "4", *extra)  # fmt: skip
        assert said.returncode == 0, said.stderr
        judge = said.stdout.split("\njudge (", 1)[1]  # the judge's own lines (a total follows creative-writing's)
        return next(x for x in judge.splitlines() if x.strip().startswith("cost"))

    for benchmark in ("creative-writing", "judgemark"):
        plain, batched = cost(benchmark), cost(benchmark, "--judge-batch")
        full = [float(x) for x in plain.split("$")[1:4] for x in [x.split()[0].replace(",", "")]]
        half = [float(x) for x in batched.split("$")[1:4] for x in [x.split()[0].replace(",", "")]]
        assert half == pytest.approx([x / 2 for x in full], abs=1e-4) and "Batch API half price" in batched


def test_creative_writings_dry_run_total_is_the_sum_of_its_two_endpoints():
    said = cli("run", "--benchmark", "creative-writing", "--dry-run", "--base-url", "http://x/v1", "--model", "m",
               "--price-in", "1", "--price-out", "2", "--judge-model", "j", "--judge-price-in", "3",
               "--judge-price-out", "4", "--judge-batch")  # fmt: skip
    assert said.returncode == 0, said.stderr
    costs = [[float(x.split()[0].replace(",", "")) for x in line.split("$")[1:4]]
             for line in said.stdout.splitlines() if line.strip().startswith("cost")]  # fmt: skip
    writer, judge, total = costs
    assert total == pytest.approx([w + j for w, j in zip(writer, judge)], abs=2e-4)
    assert "requests   38 (19 through the Batch API)" in said.stdout


# ---------------------------------------------------------------- empathetic responding


def _ratings(folder: Path) -> dict[tuple, object]:
    """Every rating of a folder's run and human-arm files: (file kind, item key, judge) -> its rating."""
    from eqbench_nb.benchmarks import empathetic_responding as er

    out: dict[tuple, object] = {}
    path = next(folder.glob("fake-model__empathetic-responding__*.jsonl"))
    for s in er.read(path).records:
        if s.metadata.get("step") == "judge":
            key = ("model", s.item, s.metadata.get("judge"))
            assert key not in out, f"recorded twice: {key}"
            out[key] = s.scores.get("rating")
    for arm in folder.glob("*human*"):
        for line in arm.read_text().splitlines():
            record = json.loads(line)
            if record.get("type") == "record":
                key = ("human", record["item"], record["metadata"]["judge"])
                assert key not in out, f"recorded twice: {key}"
                out[key] = record["scores"].get("rating")
    return out


def test_empathetic_responding_with_judge_batch_rates_both_arms_in_batches_as_without_them(tmp_path):
    subject = FakeOpenAI(responder=lambda p, t: "That sounds hard; how are you holding up?")
    judges = [FakeOpenAI(responder=lambda p, t: "Good" if "holding up" in p else "Okay", models=(m,), batch_polls=1)
              for m in ("judge-a", "judge-b")]  # fmt: skip
    urls = [f.start() for f in (subject, *judges)]
    try:
        args = ["run", "--benchmark", "empathetic-responding", "--base-url", urls[0], "--model", "fake-model",
                "--limit", "6", "--no-progress", "--judge-base-url", urls[1], "--judge-model", "judge-a",
                "--judge-base-url", urls[2], "--judge-model", "judge-b"]  # fmt: skip
        batched = cli(*args, "--out", str(tmp_path / "batched"), "--judge-batch", "--judge-poll-interval", "0.02")
        logs = [len(f.log) for f in judges]
        plain = cli(*args, "--out", str(tmp_path / "plain"))
    finally:
        for f in (subject, *judges):
            f.stop()
    assert batched.returncode == 0 and plain.returncode == 0, batched.stderr + plain.stderr
    assert logs == [0, 0]  # every judge request of the batched run inside a batch
    got, want = _ratings(tmp_path / "batched"), _ratings(tmp_path / "plain")
    assert got == want and len(got) == 2 * 2 * 6  # both arms, both judges, six prompts
    for f in judges:  # each judge's ratings of the answers as one batch, then the human arm's as the next
        assert sorted(Counter(bid for bid, _, _ in f.batches.submitted).values()) == [6, 6]
    # the two judges side by side: each one's two batches made before the first rating is written
    path = next((tmp_path / "batched").glob("fake-model__empathetic-responding__*.jsonl"))
    lines = [json.loads(x) for x in path.read_text().splitlines()[1:]]
    made = [i for i, x in enumerate(lines) if x.get("event") == "batch"]
    first_rating = next(i for i, x in enumerate(lines) if (x.get("metadata") or {}).get("step") == "judge")
    assert len(made) == 4 and made[1] < first_rating
    assert {lines[i]["endpoint"] for i in made[:2]} == {"judge 1", "judge 2"}


@pytest.mark.slow
@pytest.mark.parametrize("phase", ["create", "poll"])
def test_a_sigkill_during_an_empathy_judges_batch_then_resume_rates_each_arm_once(tmp_path, phase):
    """A real process killed while its judge's first batch (the ratings of the answers) is being made or is out; the
    same command again finds that batch (create: by its write-ahead token; poll: by its id), submits no rating twice,
    and records each arm's rating once, as a run without batches does."""
    subject = FakeOpenAI(responder=lambda p, t: "That sounds hard; how are you holding up?")
    judge = FakeOpenAI(responder=lambda p, t: "Good" if "holding up" in p else "Okay", models=("judge-a",),
                       batch_polls=1)  # fmt: skip
    urls = [subject.start(), judge.start()]
    batches = judge.batches
    if phase == "create":
        batches.create_delay_s = 30
        reached = lambda: batches.creates == 1
    else:
        batches.polls = 10**6
        reached = lambda: batches.retrievals >= 2
    args = ["run", "--benchmark", "empathetic-responding", "--base-url", urls[0], "--model", "fake-model",
            "--limit", "4", "--no-progress", "--judge-base-url", urls[1], "--judge-model", "judge-a",
            "--judge-batch", "--judge-poll-interval", "0.05"]  # fmt: skip
    try:
        _kill_when(reached, *args, "--out", str(tmp_path / "killed"))
        batches.create_delay_s, batches.polls = 0, 1
        again = cli(*args, "--out", str(tmp_path / "killed"))
        asked = len(subject.log)
        plain = cli(*[a for a in args if a not in ("--judge-batch", "--judge-poll-interval", "0.05")], "--out",
                    str(tmp_path / "plain"))  # fmt: skip
    finally:
        subject.stop()
        judge.stop()
    assert again.returncode == 0 and plain.returncode == 0, again.stderr + plain.stderr
    assert asked == 4  # the killed run's answers were kept: none asked again
    got, want = _ratings(tmp_path / "killed"), _ratings(tmp_path / "plain")
    assert got == want and len(got) == 2 * 4  # both arms, four prompts, each once
    cids = Counter(cid for _, cid, _ in batches.submitted)
    assert len(cids) == 8 and max(cids.values()) == 1  # no rating submitted twice
    assert len(batches.batches) == 2  # the answers' ratings, then the human arm's
