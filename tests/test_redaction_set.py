"""One redaction set for every output (issue 34, class 4): the standard key variables, whatever a header says,
and every key variable any endpoint of a run names (the model's, the judge's), recorded in the run's header; a
variable a header names is redacted only where its value could be a key, so ``"api_key_env": "HOME"`` neither
switches the standard ones off nor blanks every path in a page."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_helper import cli
from conftest import KEY, needs_data
from fake_eqbench3 import responder
from fake_openai_server import FakeOpenAI

pytestmark = pytest.mark.usefixtures("key")
JUDGE_KEY = "sk-judge-SECRET-0123456789abcdef"
ROUTER_KEY = "sk-or-v1-ROUTER-SECRET-9876543210"


def only(keys: dict[str, str]) -> dict[str, str | None]:
    """The environment's changes for a command that sees these keys and no other ``*_API_KEY`` variable."""
    return {name: None for name in os.environ if name.endswith("_API_KEY")} | keys


def _eq3_run(tmp_path: Path, monkeypatch) -> Path:
    """An EQ-Bench 3 run whose judge's key is in its own variable, over the loopback fake."""
    from eqbench_nb.eqbench3.task import run_eqbench3
    from eqbench_nb.runner import RetryPolicy
    from eqbench_nb.runner.settings import Endpoint, RunSettings

    monkeypatch.setenv("MY_JUDGE_KEY", JUDGE_KEY)
    fast = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
    with FakeOpenAI(models=("fake-model", "judge-model"), responder=responder(bad_rubric=1)) as url:
        subject = Endpoint(base_url=url, model="fake-model", retry=fast, timeout_s=10)
        judge = Endpoint(base_url=url, model="judge-model", retry=fast, timeout_s=10, api_key_env="MY_JUDGE_KEY")
        return run_eqbench3(subject, judge, RunSettings(out_dir=tmp_path, progress=False), scenarios="1").path


def _with_secrets(path: Path, header: dict | None = None) -> Path:
    """The run file with the judge's key, the standard keys and $HOME's path written where a server's echo puts
    them (a judge attempt's error, the record's error) and ``header`` fields replaced."""
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    lines[0] |= header or {}
    for line in lines:
        if line.get("step") == "rubric":
            line["attempts"][0]["error"] = f"401: Incorrect API key provided: {JUDGE_KEY} / {KEY} / {ROUTER_KEY}"
            line["attempts"][0]["parse_error"] = f"read from {os.environ['HOME']}/notes.txt"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


@needs_data
def test_the_judges_key_variable_is_recorded_and_its_key_never_reaches_the_page(tmp_path, monkeypatch):
    path = _eq3_run(tmp_path, monkeypatch)
    header = json.loads(path.read_text().splitlines()[0])
    assert header["judge_api_key_env"] == "MY_JUDGE_KEY" and header["api_key_env"] == "OPENAI_API_KEY"
    assert JUDGE_KEY not in path.read_text()
    _with_secrets(path)
    assert JUDGE_KEY in path.read_text()
    page = tmp_path / "page.html"
    proc = cli("view", path, "--out", page, env=only({"MY_JUDGE_KEY": JUDGE_KEY, "OPENAI_API_KEY": KEY}))
    assert proc.returncode == 0, proc.stderr
    html = page.read_text()
    assert JUDGE_KEY not in html and JUDGE_KEY[:12] not in html and KEY not in html
    assert "Incorrect API key provided: ***" in html


@needs_data
@pytest.mark.parametrize("named", ["HOME", "PATH", "SHELL", "NO_SUCH_VARIABLE"])
def test_a_header_naming_another_variable_neither_switches_off_the_standard_keys_nor_blanks_paths(
    tmp_path, monkeypatch, named
):
    path = _with_secrets(_eq3_run(tmp_path, monkeypatch), {"api_key_env": named, "judge_api_key_env": named})
    page = tmp_path / "page.html"
    env = {"OPENAI_API_KEY": KEY, "OPENROUTER_API_KEY": ROUTER_KEY, "MY_JUDGE_KEY": JUDGE_KEY, "SHELL": "/bin/sh"}
    proc = cli("view", path, "--out", page, env=only(env))
    assert proc.returncode == 0, proc.stderr
    html = page.read_text()
    assert KEY not in html and ROUTER_KEY not in html  # the standard ones, whatever the header says
    assert f"read from {os.environ['HOME']}/notes.txt" in html  # $HOME is a path, not a key: shown as it is


@needs_data
def test_every_output_redacts_the_set_not_only_the_page(tmp_path, monkeypatch):
    path = _eq3_run(tmp_path, monkeypatch)
    run_id = json.loads(path.read_text().splitlines()[0])["run_id"]
    pasted = f"{JUDGE_KEY}-{ROUTER_KEY}"  # keys pasted into the run id (in the header and every record)
    path.write_text(path.read_text().replace(f'"run_id": "{run_id}"', f'"run_id": "{pasted}"'))
    env = {"MY_JUDGE_KEY": JUDGE_KEY, "OPENROUTER_API_KEY": ROUTER_KEY}
    for command in (["score", path], ["score", path, "--format", "json"], ["runs", path.parent, "--format", "csv"]):
        proc = cli(*command, env=only(env))
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout + proc.stderr
        assert JUDGE_KEY not in out and ROUTER_KEY not in out and JUDGE_KEY[:10] not in out
        assert "***-***" in out  # the row is there, its keys redacted


def test_the_set_is_the_standard_variables_and_every_endpoints_named_one(monkeypatch):
    from eqbench_nb.runner.redact import STANDARD_KEY_VARIABLES, could_be_key, key_values, key_variables

    header = {"api_key_env": "A_KEY", "judge_api_key_env": "B_KEY", "pairwise_judge_api_key_env": "C_KEY",
              "model": "OPENAI_API_KEY", "other_api_key_env": "not a name; rm -rf"}  # fmt: skip
    names = key_variables(header, {"api_key_env": "A_KEY"}, None)
    assert names[: len(STANDARD_KEY_VARIABLES)] == list(STANDARD_KEY_VARIABLES)
    assert names[len(STANDARD_KEY_VARIABLES) :] == ["A_KEY", "B_KEY", "C_KEY"]
    assert not could_be_key("/home/someone") and not could_be_key("~/x") and not could_be_key("short")
    assert not could_be_key("two words here") and could_be_key("sk-abc-0123456789")
    monkeypatch.setenv("A_KEY", "sk-a-0123456789")
    monkeypatch.setenv("B_KEY", "/home/someone/path")
    monkeypatch.setenv("OPENAI_API_KEY", "tiny-key")  # a standard variable: redacted whatever it looks like
    assert key_values(header) == ["tiny-key", "sk-a-0123456789"]
