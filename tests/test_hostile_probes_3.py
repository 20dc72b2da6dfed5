"""Issue 26: the third round of hostile probes, one test per finding (each failed before its fix), against the
real client over real HTTP (tests/fake_openai_server.py with its Files + Batches API, tests/hostile_server.py)
or the real command line.

Broken 1-14 first, then the weak points. ``R`` in the issue is ``eqbench-nb run --base-url $FAKE --model
fake-model --limit 3 --batch --poll-interval 0.2``; the batch tests use the same, with shorter polls.
"""

import asyncio
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import KEY, needs_shared, run
from fake_openai_server import FakeOpenAI, answer_for, completion
from hostile_server import HostileServer, response

from eqbench_nb.runner import RetryPolicy

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.usefixtures("key"), needs_shared]


def cli(*args, env=None, timeout=120):
    cmd = [sys.executable, "-m", "eqbench_nb", *map(str, args)]
    env = {**os.environ, "OPENAI_API_KEY": KEY, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


def run_cli(url, out, *extra, **kw):
    return cli("run", "--base-url", url, "--model", "fake-model", "--out", out, "--no-progress", *extra, **kw)


def last_error(proc, *words):
    """The one-line error a command ended with; no traceback."""
    assert "Traceback" not in proc.stderr, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("error: "), proc.stderr
    for w in words:
        assert w in last, last
    return last


def records_of(path):
    return [json.loads(x) for x in Path(path).read_text().splitlines() if x.strip() and '"record"' in x]


def write_run(path, model="m", run_id="r", n=4, shift=0, **header):
    """A finished EQ-Bench run file of ``n`` v2 questions whose answers are the reference moved by ``shift``."""
    from eqbench_nb import load_questions
    from eqbench_nb.eqbench.runs import RunRecord, header_line, record_line, score_record

    qs = load_questions("v2")[:n]
    head = {"model": model, "run_id": run_id, "version": "v2", "n_questions": n, "iterations": 1}
    lines = [header_line(head | {"question_ids": [q.id for q in qs]} | header)]
    for k, q in enumerate(qs):
        ratings = {e: float(min(10, max(0, v + (shift if k % 2 else -shift)))) for e, v in q.reference.items()}
        lines.append(record_line(score_record(RunRecord(model, run_id, 1, q.id, first_pass=ratings), q)))
    Path(path).write_text("\n".join(lines) + "\n")
    return Path(path)


# ---------------------------------------------------------------- Broken 8-10: numbers and texts a server sends


def with_headers(request, headers):
    """A 200 completion answering the request, with these headers."""
    return response(200, completion(request.body if isinstance(request.body, dict) else {}), headers)


@pytest.mark.parametrize("limit", ["inf", "1e999", "9" * 400, "NaN"])
def test_broken_8_an_absurd_rate_limit_header_never_throws_a_paid_answer_away(tmp_path, limit):
    headers = {"x-ratelimit-limit-requests": limit, "x-ratelimit-remaining-requests": limit}

    def respond(request, n):
        return with_headers(request, headers) if request.method == "POST" else None

    with HostileServer(respond) as url:
        result = run(url, tmp_path, limit=2)
    assert result.complete and result.answered_now == 2
    assert result.stats.faults == {}  # no answer turned "malformed" by the header


def test_broken_8_the_same_on_emotionbench(tmp_path):
    from eqbench_nb.emotionbench.task import run_emotionbench

    def respond(request, n):
        return with_headers(request, {"x-ratelimit-limit-requests": "inf", "x-ratelimit-remaining-requests": "1e999"})

    with HostileServer(respond) as url:
        result = run_emotionbench(
            base_url=url, model="fake-model", out_dir=tmp_path, progress=False, repeats=1, default_repeats=2,
            per_factor=1, emotions=["Anger"], retry=RetryPolicy(base_delay_s=0.01, max_delay_s=0.05), timeout=5,
        )  # fmt: skip
    assert result.complete and result.answered_now == result.expected
    assert result.stats.faults == {}


@pytest.mark.parametrize("reset", ["1e9", "277777h"])
def test_broken_9_an_absurd_reset_does_not_make_the_run_wait(tmp_path, reset):
    headers = {"x-ratelimit-limit-requests": "100", "x-ratelimit-remaining-requests": "0"}

    def respond(request, n):
        return with_headers(request, headers | {"x-ratelimit-reset-requests": reset})

    with HostileServer(respond) as url:
        started = time.monotonic()
        proc = run_cli(url, tmp_path, "--limit", 4, "--concurrency", 1, "--timeout", 5, "--retry-budget", 5, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 60


def test_broken_9_a_long_reset_the_headers_believe_is_bounded_and_said():
    from eqbench_nb.runner.ratelimit import AdaptiveLimiter

    said = []
    # 0 of 100 left, full again in 20 hours: about 12 minutes a request at the pace the headers ask
    headers = {"x-ratelimit-limit-requests": "100", "x-ratelimit-remaining-requests": "0"}
    headers["x-ratelimit-reset-requests"] = "20h"

    async def two_requests():
        limiter = AdaptiveLimiter(4, max_wait_s=0.3, notice=said.append)
        async with limiter.slot():
            limiter.observe(200, headers)
        started = time.monotonic()
        async with limiter.slot():
            pass
        return time.monotonic() - started

    waited = asyncio.run(two_requests())
    assert 0.2 < waited < 2
    assert len(said) == 1 and "ask for a wait of 720 s" in said[0] and "at most 0.3 s" in said[0]


@pytest.mark.parametrize(
    "body,content_type",
    [
        ("<html><body><h1>400</h1>Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens'.</body></html>",
         "text/html"),
        ("max_tokens is not supported with this model; use max_completion_tokens", "text/plain"),
    ],
)  # fmt: skip
def test_broken_10_a_refusal_of_max_tokens_in_html_or_plain_text_is_adapted_to(tmp_path, body, content_type):
    def respond(request, n):
        if request.method == "POST" and "max_tokens" in (request.body or {}):
            return response(400, body, content_type=content_type)
        return None

    with HostileServer(respond) as url:
        result = run(url, tmp_path, limit=2)
    assert result.complete and result.scores["official"].n_parseable == 2
    assert result.run.header["deviations"] == ["max_completion_tokens"]


# ---------------------------------------------------------------- Broken 11-14: what the research commands print


def _cells(line):
    """A Markdown table row's cells: split at pipes that no backslash escapes."""
    return re.split(r"(?<!\\)\|", re.sub(r"\\\\", "", line))[1:-1]


def test_broken_11_a_model_name_never_breaks_out_of_its_markdown_or_latex_cell(tmp_path):
    names = ["evil\nrow", "evil\\|col", "<script>alert(1)</script>", "plain"]
    for k, name in enumerate(names):
        write_run(tmp_path / f"r{k}.jsonl", model=name, shift=k)
    markdown = cli("leaderboard", tmp_path, "--format", "markdown", "--reps", 200)
    assert markdown.returncode == 0, markdown.stderr
    lines = markdown.stdout.splitlines()
    assert len(lines) == 2 + len(names)  # one line per run: no name splits its row
    width = len(_cells(lines[0]))
    assert all(len(_cells(line)) == width for line in lines[2:])  # no live pipe in a cell
    assert "<script>" not in markdown.stdout and "&lt;script&gt;" in markdown.stdout
    assert "| evil<br>row |" in markdown.stdout
    assert "| evil\\\\\\|col |" in markdown.stdout  # the backslash escaped, then the pipe: evil\\\|col
    latex = cli("leaderboard", tmp_path, "--format", "latex", "--reps", 200)
    rows = latex.stdout.splitlines()[4:-2]
    assert len(rows) == len(names) and all(row.endswith("\\\\") for row in rows)
    assert "evil row" in latex.stdout and "\\textless{}script\\textgreater{}" in latex.stdout


def test_broken_12_control_sequences_in_a_run_file_are_shown_not_obeyed(tmp_path):
    evil = "m\x1b[2J\x1b]0;owned\x07"
    a = write_run(tmp_path / "a.jsonl", model=evil, run_id="r\x1b[31m", shift=0)
    b = write_run(tmp_path / "b.jsonl", model="other", shift=2)
    outputs = {
        "runs": cli("runs", tmp_path),
        "leaderboard": cli("leaderboard", tmp_path, "--reps", 200),
        "compare": cli("compare", a, b, "--reps", 200),
    }
    for name, proc in outputs.items():
        assert proc.returncode == 0, (name, proc.stderr)
        assert "\x1b" not in proc.stdout + proc.stderr and "\x07" not in proc.stdout, name
        assert "\\x1b[2J" in proc.stdout, name


def test_broken_12_the_same_for_an_emotionbench_runs_score(tmp_path):
    from eqbench_nb.emotionbench.task import run_emotionbench

    with FakeOpenAI() as url:
        result = run_emotionbench(
            base_url=url, model="fake-model", out_dir=tmp_path, progress=False, repeats=1, default_repeats=2,
            per_factor=1, emotions=["Anger"], timeout=5,
        )  # fmt: skip
    evil = "m\x1b[2J\x1b]0;owned\x07"
    lines = [json.loads(x) for x in result.path.read_text().splitlines()]
    result.path.write_text("\n".join(json.dumps(x | {"model": evil} if "model" in x else x) for x in lines) + "\n")
    for fmt in ("table", "csv", "json"):
        proc = cli("score", result.path, "--format", fmt)
        assert proc.returncode == 0, proc.stderr
        assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout, fmt


def test_broken_13_group_letters_are_polynomial_where_insert_and_absorb_is_exponential():
    # each of 40 runs separated from one other only: 2^20 maximal groups of runs not separated
    script = textwrap.dedent(
        """
        import json, numpy as np
        from eqbench_nb.analysis.leaderboard import compact_letters
        sep = np.zeros((40, 40), bool)
        for i in range(20):
            sep[i, i + 20] = sep[i + 20, i] = True
        print(json.dumps(compact_letters(sep)))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    from eqbench_nb.analysis.leaderboard import group_names

    letters = json.loads(out.stdout)
    for i in range(40):
        for j in range(i + 1, 40):  # two runs share a group exactly when they are not separated
            assert bool(group_names(letters[i]) & group_names(letters[j])) == (j != i + 20), (i, j)


def test_broken_13_the_fast_separation_decides_every_pair_as_the_percentile_interval_does():
    import numpy as np

    from eqbench_nb.analysis.stats import percentile_interval, separated_pairs

    rng = np.random.default_rng(7)
    for trial in range(60):
        reps, k = int(rng.integers(10, 200)), int(rng.integers(2, 12))
        level = float(rng.choice([0.5, 0.9, 0.95]))
        if trial % 3 == 0:
            boot = rng.normal(size=(reps, k)) + np.arange(k) * rng.uniform(0, 0.5)
        elif trial % 3 == 1:
            boot = rng.integers(-3, 4, size=(reps, k)).astype(float)  # ties at 0: the interpolated cases
        else:
            boot = rng.normal(size=(reps, k))
            boot[rng.random((reps, k)) < 0.05] = np.nan
        for i in range(k):
            for j in range(k):
                if i != j:
                    lo, hi = percentile_interval(boot[:, i] - boot[:, j], level)
                    assert separated_pairs(boot, level)[i, j] == bool(lo > 0 or hi < 0)


@pytest.mark.parametrize("started", [1e20, -1e20, "Infinity", "NaN"])
def test_broken_14_a_header_time_no_date_has_is_listed_marked(tmp_path, started):
    path = write_run(tmp_path / "odd.jsonl", model="odd")
    text = path.read_text()
    head = json.loads(text.splitlines()[0])
    head_text = json.dumps(head)[:-1] + f', "started_at": {started if isinstance(started, str) else repr(started)}}}'
    path.write_text(head_text + "\n" + text.split("\n", 1)[1])
    write_run(tmp_path / "fine.jsonl", model="fine", started_at="2026-01-01T00:00:00+00:00")
    proc = cli("runs", tmp_path, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    rows = {r["model"]: r for r in json.loads(proc.stdout)}
    assert set(rows) == {"odd", "fine"}
    assert rows["odd"]["started"].startswith("not a date") and rows["fine"]["started"].startswith("2026-01-01")


# ---------------------------------------------------------------- weak points outside the batch path


def test_weak_a_literal_think_closing_tag_after_the_answer_leaves_the_answer_an_answer(tmp_path):
    with FakeOpenAI(responder=lambda p, t: answer_for(p, t) + "\n</think>") as url:
        tagged = run(url, tmp_path / "tagged", limit=4)
    with FakeOpenAI() as url:
        plain = run(url, tmp_path / "plain", limit=4)
    assert tagged.scores["official"].n_parseable == 4
    assert tagged.scores["official"].score == plain.scores["official"].score
    attempt = tagged.run.records[0].attempts[0]
    assert attempt["raw_text"].endswith("</think>") and "reasoning" not in attempt


def test_weak_a_reasoning_cut_off_right_after_its_closing_tag_is_still_a_spent_budget():
    from eqbench_nb.runner.transport import Transport

    transport = Transport(None, "m", "http://x", None)
    body = {"max_tokens": 60}
    reply = {"choices": [{"message": {"content": "Angry: 9\n</think>"}, "finish_reason": "length"}]}
    cut = transport._completion(reply, 0.0, [], body)
    assert cut.text is None and cut.error.startswith("length: budget spent on reasoning")
    reply["choices"][0]["finish_reason"] = "stop"
    assert transport._completion(reply, 0.0, [], body).text == "Angry: 9\n"
