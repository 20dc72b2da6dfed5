"""Key variables (issue 43, weak): a key pasted where its variable's NAME goes is refused without being printed, and
every key variable any endpoint of a run names is in the one redaction set, on every registered benchmark.

- ``--api-key-env gsk_…``, ``--judge-api-key-env sk-…`` or ``"api_key_env": "gsk_…"`` in a ``--judges`` file passed
  the name check and was printed back in "environment variable gsk_… is not set".
- A creative-writing run's header named neither the judge's key variable nor the writer's (nor did EmotionBench's
  the model's), so a key already in such a run file reached the viewer's page. The runner now names every endpoint's
  key variable in the header of every benchmark's run (:func:`eqbench_nb.runner.session.naming_every_key_variable`)
  and the viewer and the command line read the set back from it (:func:`eqbench_nb.runner.redact.key_variables`).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import KEY, ROOT, needs_data
from fake_openai_server import FakeOpenAI
from fuzz import leaks

from eqbench_nb import registry
from eqbench_nb.cli import main
from eqbench_nb.runner import RetryPolicy
from eqbench_nb.runner.errors import RunnerError
from eqbench_nb.runner.redact import STANDARD_KEY_VARIABLES, key_variables
from eqbench_nb.runner.settings import Endpoint, RunSettings

pytestmark = pytest.mark.usefixtures("key")
GROQ_KEY = "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"
PROJECT_KEY = "sk-proj-JudgeKeyZZZZ9999yyyy8888xxxx"
SUBJECT_KEY = "sk-proj-SubjectKeyAAAA1111bbbb2222cccc"
JUDGE_KEY = "sk-proj-JudgeKeyZZZZ9999yyyy8888xxxx"
SUBJECT_VAR, JUDGE_VAR = "MY_SUBJECT_KEY", "MY_JUDGE_KEY"
CLOSED = "http://127.0.0.1:9/v1"  # nothing listens: a refusal must come before any connection
FAST = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)


def cli_in_process(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue() + err.getvalue()


def judges_file(tmp_path: Path, key_env: str) -> Path:
    path = tmp_path / "judges.json"
    path.write_text(json.dumps({"judges": [{"model": "judge-model", "base_url": CLOSED, "api_key_env": key_env}]}))
    return path


# ---------------------------------------------------------------- a key where its variable's name goes


def _key_as_name_commands(tmp_path: Path, key: str) -> list[list[str]]:
    subject = ["--base-url", CLOSED, "--model", "fake-model"]
    commands = [
        ["run", *subject, "--api-key-env", key, "--limit", "1"],
        ["run", "--benchmark", "emotionbench", *subject, "--api-key-env", key],
        ["run", "--benchmark", "eqbench3", *subject, "--api-key-env", key, "--judge-base-url", CLOSED],
    ]
    for bench in ("eqbench3", "creative-writing"):
        commands += [
            ["run", "--benchmark", bench, *subject, "--judge-base-url", CLOSED, "--judge-model", "j",
             "--judge-api-key-env", key],
            ["run", "--benchmark", bench, *subject, "--judges", judges_file(tmp_path, key)],
            ["run", "--benchmark", bench, "--dry-run", "--model", "gpt-4o", "--judge-model", "gpt-4o",
             "--judge-api-key-env", key],
        ]  # fmt: skip
    judge = ["--judge-model", "j", "--judge-api-key-env", key]
    commands += [
        ["run", "--benchmark", "judgemark", "--judge-base-url", CLOSED, *judge],
        ["run", "--benchmark", "judgemark", "--judges", judges_file(tmp_path, key)],
        ["run", "--benchmark", "judgemark", "--dry-run", *judge],
    ]
    return [[str(a) for a in c] for c in commands]


@needs_data
@pytest.mark.parametrize("key", [GROQ_KEY, PROJECT_KEY], ids=["gsk", "sk-proj"])
def test_a_key_given_as_a_key_variables_name_is_refused_and_never_printed(tmp_path, key):
    for command in _key_as_name_commands(tmp_path, key):
        code, printed = cli_in_process(*command)
        assert code == 2, (command, printed)
        assert "looks like an API key" in printed, (command, printed)
        assert leaks(printed, key) == [] and len(printed.strip().splitlines()) == 1, (command, printed)


@pytest.mark.parametrize("key", [GROQ_KEY, PROJECT_KEY])
def test_the_python_api_refuses_it_too(key):
    with pytest.raises(RunnerError) as caught:
        Endpoint(base_url=CLOSED, api_key_env=key).checked()
    assert leaks(str(caught.value), key) == []
    from eqbench_nb.eqbench3.panel import read_judges_file

    with pytest.raises(RunnerError) as caught:
        read_judges_file(judges_file(Path(os.environ.get("TMPDIR", "/tmp")), key))
    assert leaks(str(caught.value), key) == [] and "api_key_env" in str(caught.value)


def test_variable_names_are_not_taken_for_keys():
    from eqbench_nb.runner.redact import looks_like_key

    names = [*STANDARD_KEY_VARIABLES, "MY_JUDGE_KEY", "my_judge_key_2", "OPENROUTER_API_KEY_BACKUP", "SK_KEY",
             "AZURE_OPENAI_API_KEY_WESTEUROPE", "DEEPSEEK_KEY_20240101", "hf_token", "sk_test"]  # fmt: skip
    assert [n for n in names if looks_like_key(n)] == []
    keys = [GROQ_KEY, PROJECT_KEY, "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
            "AKIAIOSFODNN7EXAMPLE", "sk_live_51HxYzAbCdEfGhIjKl", "Ab3dE5fG7hJ9kL1mN3pQ5rS7"]  # fmt: skip
    assert [k for k in keys if not looks_like_key(k)] == []


# ---------------------------------------------------------------- one redaction set, every benchmark


def _endpoint(url: str, model: str, key_env: str) -> Endpoint:
    return Endpoint(base_url=url, model=model, retry=FAST, timeout_s=10, api_key_env=key_env)


def _eqbench(url: str, tmp_path: Path) -> Path:
    from eqbench_nb.eqbench.task import run_benchmark

    return run_benchmark(_endpoint(url, "fake-model", SUBJECT_VAR), RunSettings(tmp_path, progress=False), limit=2).path


def _emotionbench(url: str, tmp_path: Path) -> Path:
    from eqbench_nb.emotionbench.task import run_emotionbench

    return run_emotionbench(_endpoint(url, "fake-model", SUBJECT_VAR), RunSettings(tmp_path, progress=False),
                            repeats=1, default_repeats=2, per_factor=1, emotions=["Anger"]).path  # fmt: skip


def _eqbench3(url: str, tmp_path: Path) -> Path:
    from eqbench_nb.eqbench3.task import run_eqbench3

    subject, judge = _endpoint(url, "fake-model", SUBJECT_VAR), _endpoint(url, "judge-model", JUDGE_VAR)
    return run_eqbench3(subject, judge, RunSettings(tmp_path, progress=False), scenarios="1").path


def _creative_writing(url: str, tmp_path: Path) -> Path:
    from eqbench_nb.judged.task import run_creative_writing

    subject, judge = _endpoint(url, "fake-model", SUBJECT_VAR), _endpoint(url, "judge-model", JUDGE_VAR)
    return run_creative_writing(subject, judge, RunSettings(tmp_path, progress=False)).path


def _judgemark(url: str, tmp_path: Path) -> Path:
    from eqbench_nb.judged.task import run_judgemark

    return run_judgemark(_endpoint(url, "judge-model", JUDGE_VAR), RunSettings(tmp_path, progress=False)).path


def _emobench(url: str, tmp_path: Path) -> Path:
    from eqbench_nb.benchmarks.declared import DeclaredRunOptions
    from eqbench_nb.benchmarks.emobench import EMOBENCH

    endpoint = _endpoint(url, "fake-model", SUBJECT_VAR)
    return EMOBENCH.run(DeclaredRunOptions(limit=2), endpoint, RunSettings(tmp_path, progress=False)).path


def _empathetic_responding(url: str, tmp_path: Path) -> Path:
    from eqbench_nb.benchmarks.empathetic_responding import EmpathyRunOptions, run

    options = EmpathyRunOptions(
        limit=2, judge_base_url=[url], judge_model=["judge-model"], judge_api_key_env=[JUDGE_VAR]
    )
    return run(options, _endpoint(url, "fake-model", SUBJECT_VAR), RunSettings(tmp_path, progress=False)).path


def _judge_check(url: str, tmp_path: Path) -> Path:
    from eqbench_nb.benchmarks.judge_check import JudgeCheckRunOptions, run

    options = JudgeCheckRunOptions(data="welivita-pu", sample=1)
    return run(options, _endpoint(url, "judge-model", JUDGE_VAR), RunSettings(tmp_path, progress=False)).path


def _responder(name: str):
    if name in ("empathetic-responding", "judge-check"):
        return lambda prompt, temperature: "Good"
    if name == "eqbench3":
        from fake_eqbench3 import responder

        return responder()
    if name in ("creative-writing", "judgemark"):
        from fake_judged import responder

        return responder()
    return None


#: Each registered benchmark's run with every endpoint's key in a variable of its own (a new benchmark fails
#: test_every_registered_benchmark_is_covered until it is added here).
RUNS = {
    "eqbench": _eqbench,
    "emotionbench": _emotionbench,
    "emobench": _emobench,
    "empathetic-responding": _empathetic_responding,
    "eqbench3": _eqbench3,
    "creative-writing": _creative_writing,
    "judgemark": _judgemark,
    "judge-check": _judge_check,
}
#: The key variables each benchmark's endpoints name.
VARIABLES = {
    "eqbench": [SUBJECT_VAR],
    "emotionbench": [SUBJECT_VAR],
    "emobench": [SUBJECT_VAR],
    "judgemark": [JUDGE_VAR],
    "judge-check": [JUDGE_VAR],
}


def test_every_registered_benchmark_is_covered():
    assert sorted(RUNS) == sorted(b.name for b in registry.REGISTRY if b.run is not None)


def _view(path: Path, page: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env |= {"PYTHONPATH": str(ROOT), SUBJECT_VAR: SUBJECT_KEY, JUDGE_VAR: JUDGE_KEY, "OPENAI_API_KEY": KEY}
    return subprocess.run([sys.executable, "-m", "eqbench_nb", "view", str(path), "--out", str(page)],
                          capture_output=True, text=True, env=env, timeout=300)  # fmt: skip


@needs_data
@pytest.mark.parametrize("name", sorted(RUNS))
def test_every_key_variable_a_run_names_is_redacted_from_its_page(tmp_path, monkeypatch, name):
    monkeypatch.setenv(SUBJECT_VAR, SUBJECT_KEY)
    monkeypatch.setenv(JUDGE_VAR, JUDGE_KEY)
    responder = _responder(name)
    with FakeOpenAI(models=("fake-model", "judge-model"), **({"responder": responder} if responder else {})) as url:
        path = RUNS[name](url, tmp_path / "runs")
    header = json.loads(path.read_text().splitlines()[0])
    wanted = VARIABLES.get(name, [SUBJECT_VAR, JUDGE_VAR])
    assert set(wanted) <= set(key_variables(header)), header  # every endpoint's variable is named by the run
    # the keys already in the file, where a server's echo of them would be: beside the model names it shows
    keys = [{SUBJECT_VAR: SUBJECT_KEY, JUDGE_VAR: JUDGE_KEY}[v] for v in wanted]
    text = path.read_text()
    assert not any(key in text for key in keys)
    for model in ("fake-model", "judge-model"):
        text = text.replace(f'"{model}"', f'"{model} {" ".join(keys)}"')
    path.write_text(text)
    page = tmp_path / "page.html"
    proc = _view(path, page)
    assert proc.returncode == 0, proc.stderr
    html = page.read_text()
    assert "-model ***" in html  # the pasted keys reached the page, redacted
    assert [leaks(html, key) for key in keys] == [[]] * len(keys), name
