"""A fuzz of the Batch API path (issue 26): random statuses, output lines, kills and deletions, and the
guarantees checked after each example.

One example draws, from its seed, how hostile the fake Files + Batches API (tests/fake_openai_server.py)
is: batches that take a few polls, items failing with 500, a first batch expiring half done, statuses
outside the documented set (with and without an output file), output lines torn, unnamed, answered twice
or by another model, output files and running batches deleted, transient 5xx while polling, a create
answered after the run's deadline, a batch cancelled part way, and SIGKILLs of the run at random moments.
``eqbench-nb run --batch`` is then run again and again (the same command, as a user would) until it ends
with exit 0; after a few hostile attempts the fake calms down, so every example can finish. Then:

- every question has its record, equal to the record of the same answers asked without batches;
- no request was submitted again after a batch still holding its answer had answered it (paid twice);
- no attempt ended in a traceback, hung past its deadline, or exited otherwise than 0, 2, 3 or killed;
- the key is in no file and no output.

Used by tests/test_batch_fuzz.py (a few seeded examples in CI) and benchmarks/fuzz_batch.py (a bounded
loop of many).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conftest import KEY, run
from fake_openai_server import FakeOpenAI

ROOT = Path(__file__).resolve().parent.parent
#: The checkout whose code the runs use (``EQBENCH_NB_FUZZ_CODE``: another one, e.g. main, to see what it breaks).
CODE = Path(os.environ.get("EQBENCH_NB_FUZZ_CODE") or ROOT)
#: Attempts with the fake hostile; later ones are calm, so that every example can finish.
HOSTILE_ATTEMPTS = 4
MAX_ATTEMPTS = 9
#: Seconds one attempt may take before it counts as hung.
ATTEMPT_DEADLINE_S = 90.0
UNPARSEABLE = 0.3  # a share of first answers declining to rate: the protocol's re-asks go out as further batches


@dataclass
class Example:
    seed: int
    questions: int
    polls: int
    item_500: float
    expire_first: bool
    unknown_status: float  # chance a retrieval of a running batch shows a status outside the documented set
    mangle: float  # chance an output line is torn, unnamed, answered twice or by another model
    delete_output: float  # chance an ended batch's output file is gone
    delete_batch: float  # chance a running batch is deleted
    retrieve_5xx: int
    late_create: bool
    cancel_after: int | None
    kills: list[float]  # for each attempt with a kill, seconds after its start

    @classmethod
    def draw(cls, seed: int, questions: int = 4) -> Example:
        rng = random.Random(seed)
        return cls(
            seed=seed,
            questions=questions,
            polls=rng.randint(0, 3),
            item_500=rng.choice([0.0, 0.1, 0.3]),
            expire_first=rng.random() < 0.3,
            unknown_status=rng.choice([0.0, 0.2]),
            mangle=rng.choice([0.0, 0.15, 0.4]),
            delete_output=rng.choice([0.0, 0.3]),
            delete_batch=rng.choice([0.0, 0.15]),
            retrieve_5xx=rng.randint(0, 2),
            late_create=rng.random() < 0.3,
            cancel_after=rng.randint(0, questions - 1) if rng.random() < 0.25 else None,
            kills=[round(rng.uniform(0.2, 2.5), 2) for _ in range(rng.randint(0, 3))],
        )


@dataclass
class Outcome:
    example: Example
    attempts: int = 0
    kills: int = 0
    exits: list[int] = field(default_factory=list)
    batches: int = 0
    requests: int = 0
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


class Hostility:
    """The fake's hostile hooks for one example (a seeded generator of its own, so an example replays)."""

    def __init__(self, fake: FakeOpenAI, example: Example):
        self.fake, self.example = fake, example
        self.rng = random.Random(example.seed * 7919 + 1)
        self.on = True

    def install(self) -> None:
        batches = self.fake.batches
        batches.reported_status = self.status
        batches.output_lines = self.lines
        batches.retrieve_faults = [503] * self.example.retrieve_5xx
        batches.create_delay_s = 2.0 if self.example.late_create else 0.0
        batches.cancel_after = self.example.cancel_after

    def calm(self) -> None:
        self.on = False
        batches = self.fake.batches
        batches.retrieve_faults, batches.create_delay_s, batches.cancel_after = [], 0.0, None

    def status(self, bid: str, batch: dict[str, Any]) -> str:
        ex, rng = self.example, self.rng
        if not self.on:
            return batch["status"]
        if batch["status"] in ("validating", "in_progress") and rng.random() < ex.delete_batch:
            del self.fake.batches.batches[bid]  # this answer is the last the endpoint gives of it
            return batch["status"]
        if batch["status"] in ("completed", "expired", "cancelled") and batch["output_file_id"]:
            if rng.random() < ex.delete_output:
                self.fake.batches.files.pop(batch["output_file_id"], None)
            elif rng.random() < ex.unknown_status:
                return "done"  # not a documented status, but its output is there
        if batch["status"] in ("validating", "in_progress") and rng.random() < ex.unknown_status:
            return rng.choice(["queued", "processing", "weird"])
        return batch["status"]

    def lines(self, bid: str, entries: list[dict]) -> list[dict | bytes]:
        if not self.on:
            return list(entries)
        out: list[dict | bytes] = []
        for entry in entries:
            if self.rng.random() >= self.example.mangle:
                out.append(entry)
                continue
            how = self.rng.choice(["torn", "unnamed", "twice", "other model"])
            if how == "torn":
                out.append(json.dumps(entry).encode()[:60] + b"\xff\xfe")
            elif how == "unnamed":
                out.append(b"[1, 2]")
            elif how == "twice":
                second = json.loads(json.dumps(entry))
                second["response"]["body"]["choices"][0]["message"]["content"] = "DUPLICATE"
                out += [entry, second]
            else:
                entry["response"]["body"]["model"] = "another-model"
                out.append(entry)
        return out


def reference_records(folder: Path, questions: int) -> dict[str, Any]:
    """The first passes of the same answers asked without batches, by question id."""
    with FakeOpenAI(unparseable_rate=UNPARSEABLE) as url:
        result = run(url, folder, limit=questions)
    return {r.question_id: (r.first_pass, r.answer_attempt is not None) for r in result.run.records}


def _command(url: str, out: Path, questions: int) -> list[str]:
    return [
        sys.executable, "-m", "eqbench_nb", "run", "--base-url", url, "--model", "fake-model", "--out", str(out),
        "--no-progress", "--limit", str(questions), "--batch", "--poll-interval", "0.01", "--timeout", "1",
        "--retry-budget", "2",
    ]  # fmt: skip


def paid_twice(fake: FakeOpenAI) -> list[str]:
    """custom_ids submitted again after an earlier batch answered them (200) in an output file still there."""
    answered: set[str] = set()
    twice: list[str] = []
    for batch in list(fake.batches.batches.values()):  # in the order they were created
        twice += [x["custom_id"] for x in batch["lines"] if x["custom_id"] in answered]
        for raw in fake.batches.files.get(batch.get("output_file_id"), {}).get("data", b"").splitlines():
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if isinstance(line, dict) and (line.get("response") or {}).get("status_code") == 200:
                answered.add(line["custom_id"])
    return twice


def run_example(example: Example, folder: Path, reference: dict[str, Any]) -> Outcome:
    """Run one example to its end (see the module docstring) and list what broke a guarantee."""
    outcome = Outcome(example)
    started = time.monotonic()
    fake = FakeOpenAI(
        unparseable_rate=UNPARSEABLE,
        batch_polls=example.polls,
        batch_item_faults={"500": example.item_500} if example.item_500 else None,
        batch_expire_first=example.expire_first,
    )
    hostility = Hostility(fake, example)
    hostility.install()
    env = {**os.environ, "OPENAI_API_KEY": KEY, "PYTHONPATH": str(CODE)}
    texts: list[str] = []
    with fake as url:
        cmd = _command(url, folder, example.questions)
        for attempt in range(MAX_ATTEMPTS):
            if attempt == HOSTILE_ATTEMPTS:
                hostility.calm()
            outcome.attempts += 1
            proc = subprocess.Popen(
                cmd, env=env, cwd=CODE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )  # cwd: ``-m`` puts it first on the path
            kill_at = example.kills[attempt] if attempt < len(example.kills) else None
            try:
                out, err = proc.communicate(timeout=kill_at if kill_at is not None else ATTEMPT_DEADLINE_S)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                out, err = proc.communicate()
                if kill_at is None:
                    outcome.problems.append(f"attempt {attempt + 1} hung past {ATTEMPT_DEADLINE_S:g} s")
                else:
                    outcome.kills += 1
            texts += [out, err]
            outcome.exits.append(proc.returncode)
            if "Traceback" in err:
                outcome.problems.append(f"attempt {attempt + 1} ended in a traceback: {err[-800:]}")
            if proc.returncode not in (0, 2, 3, -signal.SIGKILL):
                outcome.problems.append(f"attempt {attempt + 1} exited {proc.returncode}: {err[-300:]}")
            elif proc.returncode in (2, 3) and not err.strip().splitlines()[-1].startswith("error: "):
                outcome.problems.append(f"attempt {attempt + 1} exited {proc.returncode} without one error line")
            if proc.returncode == 0:
                break
        outcome.batches = len(fake.batches.batches)
        outcome.requests = len(fake.batches.submitted)
        twice = paid_twice(fake)
    if twice:
        outcome.problems.append(f"paid twice: {twice[:5]}")
    if outcome.exits[-1] != 0:
        outcome.problems.append(f"never finished in {MAX_ATTEMPTS} attempts (exits {outcome.exits})")
    files = list(folder.glob("*.jsonl"))
    records: dict[str, Any] = {}
    for path in files:
        for raw in path.read_text().splitlines():
            line = json.loads(raw) if raw.strip() else {}
            if line.get("type") == "record":
                records.setdefault(line["question_id"], (line["first_pass"], line["answer_attempt"] is not None))
        texts.append(path.read_text())
    if outcome.exits[-1] == 0 and records != reference:
        outcome.problems.append(f"records differ from the same answers asked without batches: {records} != {reference}")
    if any(KEY in t or KEY[:12] in t for t in texts):
        outcome.problems.append("the key was written or printed")
    outcome.seconds = time.monotonic() - started
    return outcome
