"""Every option is validated before the first paid request (issue 34, class 3), counted on loopback fakes: a
selection that names nothing is refused (never "all", never "none"), a number option that is infinite or NaN is
refused, and a batch whose create was written ahead but cannot be confirmed (the endpoint lists no batches) is
never sent again silently."""

from __future__ import annotations

import json
import signal
import subprocess
import time

import pytest
from cli_helper import cli, cli_process
from conftest import needs_data
from fake_eqbench3 import responder
from fake_openai_server import FakeOpenAI

from eqbench_nb.runner.errors import RunnerError
from eqbench_nb.runner.settings import Endpoint

pytestmark = pytest.mark.usefixtures("key")


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = [x for x in proc.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


# ---------------------------------------------------------------- the rule, on its own


@pytest.mark.parametrize("spec", ["", ",,", " , ", ",", "\t"])
def test_a_selection_given_but_naming_nothing_is_refused(spec):
    from eqbench_nb.runner.selection import named

    with pytest.raises(RunnerError, match="names nothing"):
        named(spec, "--scenarios")


def test_a_selection_not_given_is_all_and_a_named_one_keeps_its_order_once():
    from eqbench_nb.runner.selection import named

    assert named(None, "--scenarios") is None
    assert named(" 3, 1,3 ,,2", "--scenarios") == ["3", "1", "2"]


@pytest.mark.parametrize(
    ("field", "value", "flag"),
    [
        ("timeout_s", float("inf"), "--judge-timeout"),
        ("timeout_s", float("nan"), "--judge-timeout"),
        ("timeout_s", -1.0, "--judge-timeout"),
        ("retry_budget_s", float("inf"), "--judge-retry-budget"),
        ("retry_budget_s", float("nan"), "--judge-retry-budget"),
    ],
)
def test_an_endpoint_number_that_is_not_finite_is_refused_naming_its_option(field, value, flag):
    # made in Python, the endpoint names its field (and its own flag); made of the judge options, the judge's flag
    with pytest.raises(RunnerError, match=f"Endpoint.{field} \\(--"):
        Endpoint(**{field: value})
    from eqbench_nb.eqbench3.options import Eq3RunOptions

    dest = flag.removeprefix("--").replace("-", "_")
    with pytest.raises(RunnerError, match=f"Eq3RunOptions.{dest} \\({flag}\\)"):
        Eq3RunOptions(**{dest: [value]})


def test_resubmit_unconfirmed_without_batches_is_refused():
    with pytest.raises(RunnerError, match="--resubmit-unconfirmed goes with --batch"):
        Endpoint(resubmit_unconfirmed=True).checked()


# ---------------------------------------------------------------- the command line, counting paid requests


@needs_data
@pytest.mark.parametrize(
    "options",
    [
        ["--scenarios", ""],  # an unset shell variable: was all 45 scenarios, 163 paid requests
        ["--scenarios", ",,"],  # was none at all, and exit 0
        ["--scenarios", "1", "--judge-timeout", "inf"],  # was the subject's turns paid, then every judgement failed
        ["--scenarios", "1", "--judge-timeout", "nan"],
        ["--scenarios", "1", "--judge-retry-budget", "inf"],
        ["--scenarios", "1", "--timeout", "1e999"],
        ["--scenarios", "1", "--judge-retry-budget", "-1"],
    ],
)
def test_eqbench3_options_are_refused_before_any_request(tmp_path, options):
    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=responder())
    with fake as url:
        proc = cli("run", "--benchmark", "eqbench3", "--base-url", url, "--model", "fake-model", "--judge-base-url",
                   url, "--judge-model", "judge-model", "--out", str(tmp_path), "--no-progress", *options)  # fmt: skip
    one_line_error(proc)
    assert fake.log == []  # nothing paid
    assert not list(tmp_path.glob("*.jsonl"))


@needs_data
@pytest.mark.parametrize("spec", ["", ",,"])
def test_emotionbench_emotions_naming_nothing_are_refused_before_any_request(tmp_path, spec):
    fake = FakeOpenAI()
    with fake as url:
        proc = cli("run", "--benchmark", "emotionbench", "--base-url", url, "--model", "fake-model", "--emotions",
                   spec, "--out", str(tmp_path), "--no-progress")  # fmt: skip
    assert "names no" in one_line_error(proc) or "names nothing" in one_line_error(proc)
    assert fake.log == []


# ---------------------------------------------------------------- a batch that cannot be confirmed


def _batch_cli(url: str, out, *extra: str) -> list[str]:
    return ["run", "--base-url", url, "--model", "fake-model", "--limit", "3", "--out", str(out), "--no-progress",
            "--batch", "--poll-interval", "0.02", *extra]  # fmt: skip


def _events(out) -> list[dict]:
    path = next(out.glob("*.jsonl"))
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    return [x for x in lines if x.get("type") == "event"]


@needs_data
@pytest.mark.slow
def test_a_batch_created_by_a_killed_run_is_not_paid_again_when_the_endpoint_lists_no_batches(tmp_path):
    fake = FakeOpenAI()
    fake.batches.create_delay_s = 4.0  # the batch is made at once; its answer comes after the kill
    with fake as url:
        proc = cli_process(*_batch_cli(url, tmp_path), wait=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while fake.batches.creates < 1 and proc.poll() is None and time.time() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert fake.batches.creates == 1 and len(fake.batches.submitted) == 3
        create = [e for e in _events(tmp_path) if e["event"] == "batch_create"]
        assert len(create) == 1 and not [e for e in _events(tmp_path) if e["event"] == "batch"]
        fake.batches.create_delay_s = 0.0
        fake.batches.list_missing = True  # GET /v1/batches: 404
        again = cli(*_batch_cli(url, tmp_path))
        line = one_line_error(again)
        assert fake.batches.creates == 1 and len(fake.batches.submitted) == 3  # nothing paid twice
        assert create[0]["input_file_id"] in line and create[0]["at"] in line and "--resubmit-unconfirmed" in line
        still = cli(*_batch_cli(url, tmp_path))  # the same command stops the same way: nothing is decided for it
        one_line_error(still)
        assert fake.batches.creates == 1
        knowingly = cli(*_batch_cli(url, tmp_path, "--resubmit-unconfirmed"))
    assert knowingly.returncode == 0, knowingly.stderr
    assert "--resubmit-unconfirmed" in knowingly.stderr and "paid for twice" in knowingly.stderr
    assert fake.batches.creates == 2 and len(fake.batches.submitted) == 6  # sent again, and said


@needs_data
def test_a_create_that_times_out_is_not_sent_again_when_the_endpoint_lists_no_batches(tmp_path):
    fake = FakeOpenAI()
    fake.batches.create_delay_s = 3.0  # made at once, answered after the run's --timeout: in doubt
    fake.batches.list_missing = True
    with fake as url:
        proc = cli(*_batch_cli(url, tmp_path, "--timeout", "1"))
    line = one_line_error(proc)
    assert "cannot list its batches" in line and "--resubmit-unconfirmed" in line
    assert fake.batches.creates == 1 and len(fake.batches.submitted) == 3  # was a second create: 6 paid for 3
