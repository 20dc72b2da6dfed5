"""The suite's own parts (issue 44): the command line called in the test process leaves the process as it found
it and behaves as a fresh process would; every process a test starts reads the data in ``EQBENCH_NB_DATA``, the
README's route, whichever way the suite found the data; hypothesis has no per-example deadline."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import hypothesis
import pytest
from cli_helper import cli, cli_process, environment
from conftest import DATA, KEY, ROOT, needs_data

from eqbench_nb.runner import redact


def test_a_command_in_this_process_leaves_the_process_as_it_found_it(tmp_path):
    """``run`` sets SIGINT's handler and ``main`` remembers the key variables' values: both put back, with the
    environment and the working folder the call changed."""
    before = (dict(os.environ), os.getcwd(), signal.getsignal(signal.SIGINT), redact.remembered(), sys.argv[:])
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        done = cli("run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--out", tmp_path, "--limit", "1",
                   env={"OPENAI_API_KEY": "sk-helper-0123456789", "EQBENCH_NB_PROBE": "1"}, cwd=tmp_path)  # fmt: skip
        assert done.returncode == 2 and "cannot reach" in done.stderr, done.stderr
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before[2])
    assert (dict(os.environ), os.getcwd(), signal.getsignal(signal.SIGINT), redact.remembered(), sys.argv[:]) == before


def test_a_command_in_this_process_remembers_only_the_secrets_it_learns_as_a_fresh_process_does(monkeypatch):
    """The test process remembers a secret (a run it made); the command must not redact it for that reason."""
    secret = "sk-only-the-test-knows-0123456789"
    redact.remember(secret)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    done = cli("score", secret)  # no such file: the path is printed in the error line, unredacted
    assert done.returncode == 2 and secret in done.stderr, done.stderr
    assert secret in redact.remembered()  # the test process's own list is back
    monkeypatch.setenv("OPENAI_API_KEY", secret)  # a standard key variable: the command redacts it itself
    said = cli("score", secret).stderr
    assert secret not in said and "***" in said


def test_what_main_lets_through_is_a_traceback_and_status_1_as_from_a_process(monkeypatch):
    from eqbench_nb.cli import research

    def broken(args):
        raise RuntimeError("boom")

    monkeypatch.setattr(research, "cmd_runs", broken)  # the parser is built afresh by each call of main
    done = cli("runs", ROOT / "data" / "runs")
    assert done.returncode == 1, done.stderr
    assert "Traceback (most recent call last)" in done.stderr and done.stderr.endswith("RuntimeError: boom\n")


def test_a_timeout_stops_a_command_that_hangs(monkeypatch):
    import time

    from eqbench_nb.cli import view

    monkeypatch.setattr(view, "cmd_view", lambda args: time.sleep(30) or 0)
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        cli("view", "x.jsonl", timeout=0.5)
    assert time.monotonic() - started < 10


@needs_data
def test_every_process_a_test_starts_reads_the_data_in_EQBENCH_NB_DATA():
    """The suite names the data folder in ``EQBENCH_NB_DATA`` whether it found it there or beside the checkout, so
    both routes run the same; a process given an environment without it is refused (two tests gave the command
    line only PYTHONPATH and PATH, and failed where the data were only in the variable)."""
    assert Path(os.environ["EQBENCH_NB_DATA"]) == DATA
    with pytest.raises(AssertionError, match="without EQBENCH_NB_DATA"):
        subprocess.run([sys.executable, "-c", "pass"], env={"PATH": os.environ["PATH"]}, check=False)
    probe = "import os; print(os.environ['EQBENCH_NB_DATA'])"
    seen = subprocess.run([sys.executable, "-c", probe], env=environment(None), capture_output=True, text=True)
    assert seen.stdout.strip() == str(DATA)
    where = "from eqbench_nb.data import shared_data_dir; print(shared_data_dir())"
    assert cli_process("--version", env={"OPENAI_API_KEY": KEY}).returncode == 0
    found = subprocess.run([sys.executable, "-c", where], env=environment({"PYTHONPATH": str(ROOT)}),
                           capture_output=True, text=True)  # fmt: skip
    assert found.stdout.strip() == str(DATA), found.stderr


@pytest.mark.own_data_route
def test_a_test_marked_with_its_own_data_route_may_start_a_process_without_it():
    done = subprocess.run([sys.executable, "-c", "print(1)"], env={"PATH": os.environ["PATH"]}, capture_output=True)
    assert done.returncode == 0


def test_hypothesis_has_no_deadline_on_a_shared_machine():
    """A 200 ms deadline per example failed test_redact at load 10 (283 ms): the machine's load, not the code."""
    assert hypothesis.settings.default.deadline is None
