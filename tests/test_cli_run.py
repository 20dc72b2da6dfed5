"""`python -m eqbench_nb run` and `serve-local` as a user runs them (in the test's process; `serve-local`'s Ctrl-C in
a process of its own): user mistakes are one line on stderr and exit 2 with no traceback; a run prints its table;
the key never reaches any output."""

import json
import signal
import socket
import subprocess
from pathlib import Path

import pytest
from cli_helper import cli, cli_process
from conftest import KEY, needs_local_model
from fake_openai_server import FakeOpenAI

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.usefixtures("key")  # OPENAI_API_KEY for every command


def assert_user_error(proc, *words):
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    err = proc.stderr.strip().splitlines()[-1]  # after any progress bar the run had drawn
    assert err.startswith("error: "), proc.stderr
    for w in words:
        assert w in err, err
    assert KEY not in proc.stdout + proc.stderr


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def url():
    with FakeOpenAI(api_key=KEY, unparseable_rate=0.2) as base_url:
        yield base_url


def test_run_prints_the_table_and_resumes(url, tmp_path):
    args = ["run", "--base-url", url, "--model", "fake-model", "--limit", "4", "--out", str(tmp_path), "--no-progress"]
    first = cli(*args)
    assert first.returncode == 0, first.stderr
    for word in ("official", "lm-eval", "evalscope", "parseable", "tokens", "wall time"):
        assert word in first.stdout
    again = cli(*args)
    assert again.returncode == 0 and "0 answered now" in again.stdout and "resuming" in again.stderr
    files = list(tmp_path.glob("*.jsonl"))
    assert [f.name for f in files] == ["fake-model__v2__official-x1-first4.jsonl"]
    assert KEY not in files[0].read_text() + first.stdout + first.stderr


@pytest.mark.parametrize(
    "args, words",
    [
        (["--questions", "1,999"], ["999"]),
        (["--questions", "abc"], ["abc"]),
        (["--set", "v9"], ["v9"]),
        (["--version", "v1"], ["--set"]),  # --version means the tool's version everywhere
        (["--limit", "0"], ["--limit"]),
        (["--protocol", "lm-eval", "--revise"], ["--revise"]),
        (["--api-key-env", "EQB_NO_SUCH_VARIABLE"], ["EQB_NO_SUCH_VARIABLE"]),
    ],
)
def test_user_mistakes_are_one_line(url, tmp_path, args, words):
    assert_user_error(cli("run", "--base-url", url, "--model", "fake-model", "--out", str(tmp_path), *args), *words)


def test_unreachable_endpoint(tmp_path):
    assert_user_error(
        cli("run", "--base-url", f"http://127.0.0.1:{free_port()}/v1", "--model", "m", "--out", str(tmp_path)),
        "cannot reach",
    )


def test_bad_base_url(tmp_path):
    assert_user_error(cli("run", "--base-url", "not a url", "--out", str(tmp_path)), "--base-url")


def test_missing_key_for_a_remote_endpoint(tmp_path):
    proc = cli("run", "--base-url", "https://api.example.invalid/v1", "--model", "m", "--out", tmp_path,
               env={"OPENAI_API_KEY": None})  # fmt: skip
    assert_user_error(proc, "OPENAI_API_KEY")


def test_wrong_key_and_unknown_model_stop_with_one_line(url, tmp_path):
    proc = cli(
        "run",
        "--base-url",
        url,
        "--model",
        "fake-model",
        "--limit",
        "3",
        "--out",
        str(tmp_path),
        "--api-key-env",
        "MY_KEY",
        env={"MY_KEY": "sk-wrong-key-SECRET-42"},
    )
    assert_user_error(proc, "401")
    assert "sk-wrong-key-SECRET-42" not in proc.stderr + proc.stdout
    assert_user_error(  # the fake lists its models: a name it does not list stops before any question (issue 44)
        cli("run", "--base-url", url, "--model", "nope", "--limit", "3", "--out", str(tmp_path)),
        "'nope'",
        "its /models lists 'fake-model'",
    )


def test_resume_with_other_settings_refuses(url, tmp_path):
    base = [
        "run",
        "--base-url",
        url,
        "--model",
        "fake-model",
        "--limit",
        "2",
        "--out",
        str(tmp_path),
        "--run-id",
        "fixed",
        "--no-progress",
    ]
    assert cli(*base).returncode == 0
    assert_user_error(cli(*base, "--iterations", "2"), "different settings", "iterations")


def _ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@needs_local_model
@pytest.mark.parametrize("inherited", ["default", "ignored"])
@pytest.mark.slow
def test_serve_local_prints_url_and_stops_on_ctrl_c(inherited):
    # "ignored": started as a background job of a non-interactive shell is (CI), SIGINT ignored
    proc = cli_process("serve-local", wait=False, preexec_fn=_ignore_sigint if inherited == "ignored" else None)
    try:
        line = proc.stdout.readline()
        assert "http://127.0.0.1:" in line and "/v1" in line and "SmolLM2-135M-Instruct" in line
        from openai import OpenAI

        base_url = line.split(" at ")[1].split()[0]
        models = OpenAI(base_url=base_url, api_key="none", max_retries=0).models.list()
        assert [m.id for m in models.data] == ["SmolLM2-135M-Instruct"]
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()  # never leave a server behind
            raise
    assert proc.returncode == 0, err
    assert "stopped" in err


def test_serve_local_checks_its_arguments():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        assert_user_error(cli("serve-local", "--port", str(busy)), f"port {busy}", "in use")
    assert_user_error(cli("serve-local", "--port", "70000"), "65535")
    assert_user_error(cli("serve-local", "--parallel", "0"), "--parallel", "at least 1")


def test_tool_version_and_question_set_option(url, tmp_path):
    from eqbench_nb import __version__

    proc = cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"eqbench-nb {__version__}"
    proc = cli(
        "run",
        "--base-url",
        url,
        "--model",
        "fake-model",
        "--set",
        "v1",
        "--limit",
        "1",
        "--out",
        str(tmp_path),
        "--no-progress",
    )
    assert proc.returncode == 0, proc.stderr
    assert "set v1" in proc.stdout


def test_every_option_shows_its_default_in_help():
    for command in ("run", "score", "serve-local", "reproduce"):
        text = cli(command, "--help").stdout
        assert "default" in text, command
    assert "(default: runs)" in cli("run", "--help").stdout


def test_extend_grows_a_run_from_the_command_line(url, tmp_path):
    """Issue 29, item 5: the refusal of a run with more questions names --extend, and --extend FILE grows it."""
    base = ["run", "--base-url", url, "--model", "fake-model", "--out", str(tmp_path), "--no-progress"]
    assert cli(*base, "--limit", "2", "--run-id", "mine").returncode == 0
    path = tmp_path / "fake-model__v2__mine.jsonl"
    refused = cli(*base, "--limit", "4", "--run-id", "mine")
    assert_user_error(refused, "question_ids: file has 2 (1-2), now 4 (1-4): 2 added (3-4)", f"--extend {path}")
    grown = cli(*base, "--limit", "4", "--extend", str(path))
    assert grown.returncode == 0, grown.stderr
    assert "extending" in grown.stderr and "2 finished answers kept" in grown.stderr
    assert [json.loads(line).get("question_id") for line in path.read_text().splitlines()].count(None) == 2
