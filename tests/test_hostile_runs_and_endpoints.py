"""Hostile run files and endpoints (keys echoed back, damaged headers and records, redirects, timeouts, odd model
names) against the runner and the readers (issue 18's findings), one test per finding, each against the real client
over real HTTP (a fake server, or one written byte by byte: tests/hostile_server.py) or the real command line.

Broken 1-11 first (each failed before its fix), then the weak points.
"""

import json
import math
import os
import shutil
import signal
import time
import tracemalloc
from pathlib import Path

import pytest
from cli_helper import cli, cli_process
from conftest import DATA, KEY, needs_data, run
from fake_openai_server import FakeOpenAI
from fuzz import leaks
from hostile_server import HostileServer, ok, response

from eqbench_nb.eqbench.runs import read_run
from eqbench_nb.runner import EndpointRefused, RunnerError
from eqbench_nb.runner.session import sanitise

ROOT = Path(__file__).resolve().parent.parent
#: 45 characters, as in the issue's probe
CANARY = "sk-CANARY-7f3a9b2c1d0e8a6b5c4d3e2f1a0b9c8d7e6"

pytestmark = [pytest.mark.usefixtures("key"), needs_data]


def run_cli(url, out, *extra, **kw):
    """``eqbench-nb run`` of the fake model into ``out``, in this process (``kw``: :func:`cli_helper.cli`'s)."""
    return cli("run", "--base-url", url, "--model", "fake-model", "--out", out, "--no-progress", *extra, **kw)


def run_process(url, out, *extra, **kw):
    """The same run as a process of its own, running (``kw``: :func:`cli_helper.cli_process`'s)."""
    args = ("run", "--base-url", url, "--model", "fake-model", "--out", out, "--no-progress", *extra)
    return cli_process(*args, wait=False, **kw)


def last_error(proc, *words):
    """The one-line error a command ended with; no traceback."""
    assert "Traceback" not in proc.stderr, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("error: "), proc.stderr
    for w in words:
        assert w in last, last
    return last


def everything_written(folder, proc=None):
    text = "".join(f.read_text(errors="replace") for f in Path(folder).rglob("*") if f.is_file())
    return text + (proc.stdout + proc.stderr if proc is not None else "")


def records_of(path):
    return [json.loads(line) for line in path.read_text().splitlines()[1:] if line.strip()]


@pytest.fixture(scope="module")
def good_run(tmp_path_factory):
    """A finished 6-question run (and its score), to damage in each test."""
    os.environ.setdefault("OPENAI_API_KEY", KEY)
    with FakeOpenAI() as url:
        result = run(url, tmp_path_factory.mktemp("good"), limit=6)
    return result.path, result.scores["official"].score


def damaged(good_run, tmp_path, change_header=None, extra_lines=(), change_record=None):
    path, _ = good_run
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    if change_header:
        change_header(header)
    records = [json.loads(line) for line in lines[1:]]
    if change_record:
        change_record(records[0])
    out = tmp_path / f"damaged-{len(list(tmp_path.iterdir()))}.jsonl"
    out.write_text("\n".join([json.dumps(header), *map(json.dumps, records), *extra_lines]) + "\n")
    return out


# ---------------------------------------------------------------- Broken 1-2: the key leaks


def test_broken_1_a_key_echoed_after_long_padding_is_redacted_before_any_cut(tmp_path):
    def respond(request, n):
        if n == 0 or request.method != "POST":
            return None  # the first answer is fine: the run goes on and records the rejected ones
        # padding of 130-190 characters: the key starts on either side of the 200-character cut
        echo = "x" * (120 + 10 * n) + " Authorization: " + request.headers.get("authorization", "")
        return response(400, {"error": {"message": echo}})

    with HostileServer(respond) as url:
        proc = run_cli(
            url, tmp_path, "--limit", 3, "--concurrency", 1, "--retry-budget", 0, env={"OPENAI_API_KEY": CANARY}
        )
    assert proc.returncode == 0, proc.stderr
    assert leaks(everything_written(tmp_path, proc), CANARY) == []
    assert "Authorization: Bearer ***" in everything_written(tmp_path, proc)


@pytest.mark.parametrize("route", ["/nope", "/v1"])
def test_broken_2_a_query_key_with_equals_plus_and_percent_is_redacted_in_every_encoding(tmp_path, route):
    raw = "QKEY+canary/Secret=Value%21xyz"  # as typed in --base-url: '+' is a space, %21 is '!'
    decoded = "QKEY canary/Secret=Value!xyz"

    def respond(request, n):  # echoes the whole path, query included, as the client encoded it
        return response(404, {"error": {"message": f"no such route: {request.path} (raw {raw})"}})

    with HostileServer(respond) as url:
        proc = run_cli(url.replace("/v1", route) + f"?api-key={raw}", tmp_path, "--limit", 1)
    assert proc.returncode == 2
    last_error(proc, "404", "no such route")
    assert leaks(everything_written(tmp_path, proc), decoded) == []


# ---------------------------------------------------------------- Broken 3, 8, 9, 10: readers


def test_broken_3_a_record_of_an_iteration_the_header_does_not_have_is_left_out(good_run, tmp_path):
    path, score = good_run
    foreign = records_of(path)[0] | {"iteration": -5, "first_pass": {"A": 0, "B": 10, "C": 0, "D": 10}}
    bad = damaged(good_run, tmp_path, extra_lines=[json.dumps(foreign)])
    out = cli("score", "--format", "json", bad)
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)[0]
    assert row["score"] == score and row["iterations"] == 1 and row["warnings"] == 1
    assert "iteration the header does not allow (1-1)" in out.stderr and "-5" in out.stderr


def test_broken_8_a_bad_header_field_is_named_and_the_other_files_are_still_scored(good_run, tmp_path):
    bad = damaged(good_run, tmp_path, lambda h: h.update(n_questions="x"))
    out = cli("score", bad, good_run[0])
    assert out.returncode == 2
    last_error(out, str(bad), "header field n_questions", "'x' is not a whole number")
    assert len(out.stdout.strip().splitlines()) == 2  # the good file's row under the column names


@pytest.mark.parametrize("convention", ["official", "lm-eval", "evalscope"])
@pytest.mark.parametrize("attempts", ["x", [1, 2]])
def test_broken_9_attempts_of_the_wrong_shape_are_one_line_under_every_convention(
    good_run, tmp_path, convention, attempts
):
    bad = damaged(good_run, tmp_path, change_record=lambda r: r.update(attempts=attempts))
    out = cli("score", "--convention", convention, bad, good_run[0])
    assert out.returncode == 2
    last_error(out, str(bad), "line 2", "attempts must be a list of objects")
    assert len(out.stdout.strip().splitlines()) == 2


@pytest.mark.parametrize("iterations", [10**7, 10**9])
def test_broken_10_a_header_claiming_huge_iterations_allocates_nothing(good_run, tmp_path, iterations):
    bad = damaged(good_run, tmp_path, lambda h: h.update(iterations=iterations))
    tracemalloc.start()
    try:
        with pytest.raises(Exception, match=r"header field iterations: .* is not between 1 and 1,000"):
            read_run(bad)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20
    out = cli("score", bad)
    assert out.returncode == 2
    last_error(out, "header field iterations")


# ---------------------------------------------------------------- Broken 4, 5: what a server sends


def test_broken_4_usage_counts_of_the_wrong_type_are_recorded_as_absent_and_resume_works(tmp_path):
    bad_usage = [
        {"prompt_tokens": "12", "completion_tokens": {"n": 3}},
        {"prompt_tokens": [1], "completion_tokens": 1.5},
    ]

    def respond(request, n):
        return ok(request, usage=bad_usage[n % 2])

    with HostileServer(respond) as url:
        first = run(url, tmp_path, limit=4)
        attempts = [a for r in first.run.records for a in r.attempts]
        assert {(a["prompt_tokens"], a["completion_tokens"]) for a in attempts} == {(None, None)}
        assert "tokens     prompt 0  completion 0" in first.table()
        # a file written before the fix holds the bad values: resume and score still read it
        lines = first.path.read_text().splitlines()
        record = json.loads(lines[1])
        record["attempts"][0]["prompt_tokens"] = "12"
        first.path.write_text("\n".join([lines[0], json.dumps(record), *lines[2:-1]]) + "\n")  # one to resume
        again = run(url, tmp_path, limit=4)
    assert again.answered_now == 1 and again.tokens == (0, 0) and len(again.run.records) == 4


def test_broken_5_a_lone_surrogate_is_stored_replaced_and_said(tmp_path):
    def respond(request, n):
        body = ok(request)
        text = json.loads(body.split(b"\r\n\r\n", 1)[1])["choices"][0]["message"]["content"]
        return ok(request, text + " \ud800")

    with HostileServer(respond) as url:
        result = run(url, tmp_path, limit=2)
    assert result.complete and result.unfinished == 0
    attempt = result.run.records[0].attempts[0]
    assert attempt["text"].endswith(" \ufffd") and "1 lone surrogate replaced by U+FFFD" in attempt["error"]
    assert result.scores["official"].n_parseable == 2


# ---------------------------------------------------------------- Broken 6, 7: the run itself


@pytest.mark.parametrize("how", ["deleted", "replaced"])
@pytest.mark.slow
def test_broken_6_a_run_file_deleted_or_replaced_mid_run_stops_with_one_line(tmp_path, how):
    fake = FakeOpenAI(latency=0.2)
    url = fake.start()
    path = tmp_path / "fake-model__v2__official-x1-first40.jsonl"
    try:
        proc = run_process(url, tmp_path, "--limit", 40, "--concurrency", 2)
        deadline = time.time() + 30
        while (not path.exists() or path.read_text().count("\n") < 3) and time.time() < deadline:
            time.sleep(0.02)
        if how == "deleted":
            path.unlink()
        else:
            copy = tmp_path / "copy"
            shutil.copy(path, copy)
            os.replace(copy, path)
        _, err = proc.communicate(timeout=60)
        sent_at_exit = sum(fake.outcomes.values())
        time.sleep(0.5)
        assert sum(fake.outcomes.values()) == sent_at_exit
    finally:
        fake.stop()
    assert proc.returncode == 2, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: ") and f"was {how}" in last and "nothing more sent" in last
    assert sent_at_exit < 40


def test_broken_7_a_million_iterations_is_refused_before_any_request(tmp_path):
    with FakeOpenAI() as url:
        proc = run_cli(url, tmp_path, "--iterations", 1_000_000)
    assert proc.returncode == 2
    last_error(proc, "--iterations: must be at most 1,000")


# ---------------------------------------------------------------- Broken 11: the questions file


@pytest.mark.parametrize(
    "damage", [lambda b: b[: len(b) // 2], lambda b: b'{"1": {"prompt": 3}}', lambda b: b"[" * 100_000]
)
def test_broken_11_a_damaged_questions_file_is_named_and_never_blamed_on_the_run(tmp_path, good_run, damage):
    data = tmp_path / "data" / "eqbench"
    data.mkdir(parents=True)
    for name in ("eq_bench_v2_questions_171.json", "eq_bench_v1_questions_60.json"):
        shutil.copy(DATA / "eqbench" / name, data / name)
    questions = data / "eq_bench_v2_questions_171.json"
    questions.write_bytes(damage(questions.read_bytes()))
    env = {"EQBENCH_NB_DATA": str(tmp_path / "data")}
    with FakeOpenAI() as url:
        proc = run_cli(url, tmp_path / "runs", "--limit", 2, env=env)
    assert proc.returncode == 2
    last_error(proc, f"questions file {questions} does not match the pinned upstream file")
    scored = cli("score", good_run[0], env=env)
    assert scored.returncode == 2
    last = last_error(scored, "does not match the pinned upstream file")
    assert str(good_run[0]) not in last


# ---------------------------------------------------------------- weak points


def test_weak_an_html_200_is_said_to_be_not_json_and_retried(tmp_path):
    def respond(request, n):
        return response(200, "<html>Bad Gateway</html>", content_type="text/html") if n == 0 else None

    with HostileServer(respond) as url:
        result = run(url, tmp_path, limit=1)
    assert result.complete
    assert result.run.records[0].attempts[0]["transport_faults"] == ["malformed"]
    assert result.last_fault.startswith("malformed: response is not JSON (content type not application/json)")


def test_weak_content_that_is_not_text_is_malformed_and_retried(tmp_path):
    def respond(request, n):
        return ok(request, 7) if n == 0 else None

    with HostileServer(respond) as url:
        result = run(url, tmp_path, limit=1)
    attempt = result.run.records[0].attempts[0]
    assert attempt["transport_faults"] == ["malformed"] and isinstance(attempt["text"], str)
    assert "content is a JSON int" in result.last_fault


def test_weak_a_timeout_says_what_timed_out_and_after_how_long(tmp_path):
    with FakeOpenAI(script=["slow"], slow_s=3) as url:
        result = run(url, tmp_path, limit=1, timeout_s=0.5)
    assert result.last_fault == "timeout: no complete answer within the 0.5 s deadline (--timeout)"


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_weak_a_redirect_is_never_followed_and_both_urls_are_named(tmp_path, status):
    with FakeOpenAI() as elsewhere:
        target = elsewhere + "/chat/completions"

        def respond(request, n):
            return response(status, b"", {"Location": target})

        with HostileServer(respond) as url, pytest.raises(EndpointRefused) as info:
            run(url, tmp_path, limit=1)
    message = str(info.value)
    assert f"redirects ({status}) to {target}" in message and "never followed" in message
    assert message.startswith(url.replace("/v1", "").replace("http://127.0.0.1", "http://127.0.0.1") + "/v1 redirects")


def test_weak_an_endpoint_down_for_good_exits_3_as_documented(tmp_path):
    with FakeOpenAI(faults={"503": 1.0}) as url:
        proc = run_cli(url, tmp_path, "--limit", 20, "--retry-budget", 0)
    assert proc.returncode == 3
    last_error(proc, "keeps failing", "run the same command again")


def test_weak_a_long_model_name_gets_a_short_file_name_and_the_header_keeps_it(tmp_path):
    model = "org/" + "m" * 280
    with FakeOpenAI(models=(model,)) as url:
        result = run(url, tmp_path, model=model, limit=1)
    assert len(result.path.name) < 255 and result.run.header["model"] == model
    assert sanitise(model) != sanitise(model + "x")


def test_weak_a_listed_model_name_with_escapes_is_printed_safely_and_a_non_text_id_refused(tmp_path):
    evil = "\x1b[2J\x1b[Hevil-model"
    with FakeOpenAI(models=(evil,)) as url:
        proc = cli("run", "--base-url", url, "--out", tmp_path, "--no-progress", "--limit", 1)
    assert proc.returncode == 2 and "\x1b" not in proc.stdout + proc.stderr
    last_error(proc, "not a plain name", "pass --model")

    def respond(request, n):
        return response(200, {"object": "list", "data": [{"id": {"x": 1}, "object": "model"}]})

    with HostileServer(respond) as url:
        proc = cli("run", "--base-url", url, "--out", tmp_path, "--no-progress", "--limit", 1)
    assert proc.returncode == 2
    last_error(proc, "not a plain name")


def test_weak_run_ids_dot_and_dotdot_get_files_of_their_own():
    assert len({sanitise("."), sanitise(".."), sanitise("model"), sanitise("")}) == 4


def test_weak_a_rating_of_1e308_is_left_out_said_and_the_json_strict(good_run, tmp_path):
    """Before issue 34 a 1e308 rating was scored (the score became -inf, printed as null with a flag); now a rating
    that is not a finite number (1e308 overflows once squared) leaves its answer unparseable, said in a warning,
    and the JSON stays strict with a finite score."""
    huge = lambda r: r.update(first_pass=dict.fromkeys(r["first_pass"], 1e308))
    bad = damaged(good_run, tmp_path, change_record=huge)
    out = cli("score", "--format", "json", bad)

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    row = json.loads(out.stdout, parse_constant=refuse)[0]
    assert row["score"] is not None and math.isfinite(row["score"]) and row["warnings"] >= 1
    assert row["parseable"] < row["questions"]
    assert "not a finite number" in out.stderr and "1e+308" in out.stderr


def test_weak_a_huge_concurrency_is_capped_and_said(tmp_path, capsys):
    with FakeOpenAI() as url:
        result = run(url, tmp_path, limit=3, concurrency=1_000_000)
    assert result.complete and "--concurrency 1,000,000 capped at 1,024" in capsys.readouterr().err


def test_weak_a_run_file_with_a_bom_and_crlf_is_read_and_resumed(good_run, tmp_path):
    path, score = good_run
    copy = tmp_path / path.name
    copy.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    assert read_run(copy).records and cli("score", copy).returncode == 0
    assert json.loads(cli("score", "--format", "json", copy).stdout)[0]["score"] == score
    copy.write_bytes(copy.read_bytes().rsplit(b"\r\n", 2)[0] + b"\r\n")  # the last record gone: one to resume
    with FakeOpenAI() as url:
        resumed = run(url, tmp_path, limit=6)
    assert resumed.answered_now == 1 and len(resumed.run.records) == 6
    assert resumed.scores["official"].score == score


@pytest.mark.slow
def test_weak_ctrl_c_stops_a_run_started_with_sigint_ignored(tmp_path):
    fake = FakeOpenAI(latency=0.3)
    url = fake.start()
    path = tmp_path / "fake-model__v2__official-x1-first30.jsonl"
    try:
        proc = run_process(
            url, tmp_path, "--limit", 30, "--concurrency", 2,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
        )  # fmt: skip
        deadline = time.time() + 30
        while (not path.exists() or path.read_text().count("\n") < 2) and time.time() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        fake.stop()
    assert proc.returncode == 130 and "interrupted" in err


@pytest.mark.slow
def test_weak_reproduce_refuses_a_broken_or_emptied_notebook_and_writes_nothing(tmp_path):
    from eqbench_nb.cli.reproduce import execute_notebook

    source = ROOT / "notebooks" / "01_quickstart.py"
    broken = tmp_path / "01_quickstart.py"
    shutil.copy(source, broken)
    broken.with_suffix(".ipynb").write_text('{"cells": [')
    result = execute_notebook(broken)
    assert result.error and "01_quickstart.ipynb cannot be read" in result.error
    emptied = tmp_path / "02_empty.py"
    shutil.copy(source.with_suffix(".ipynb"), emptied.with_suffix(".ipynb"))
    emptied.write_text("")
    before = emptied.with_suffix(".ipynb").read_bytes()
    result = execute_notebook(emptied)
    assert result.error and "02_empty.py has no cells; nothing was run or written" in result.error
    assert emptied.with_suffix(".ipynb").read_bytes() == before


def test_weak_duplicates_stream_out_memory_follows_the_distinct_records(good_run, tmp_path):
    path, _ = good_run
    lines = path.read_bytes().splitlines(keepends=True)
    doubled = tmp_path / "doubled.jsonl"
    with open(doubled, "wb") as f:
        f.write(b"".join(lines))
        for _ in range(2000):
            f.writelines(lines[1:])
    size = doubled.stat().st_size
    read_run(path)  # the questions are loaded and cached before measuring
    tracemalloc.start()
    try:
        run_read = read_run(doubled)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(run_read.records) == 6 and "12000 duplicate records" in run_read.warnings[0]
    assert size > 5 * 2**20 and peak < size / 20, (size, peak)


@pytest.mark.parametrize("bad", ["sk-abc\n", "sk-\r\nabc", "sk-ключ-123", "sk abc"])
def test_weak_a_key_no_header_can_carry_is_refused_before_the_first_request(tmp_path, bad):
    fake = FakeOpenAI()
    with fake as url:
        proc = run_cli(url, tmp_path, "--limit", 1, env={"OPENAI_API_KEY": bad})
    assert proc.returncode == 2 and sum(fake.outcomes.values()) == 0
    last_error(proc, "the API key in OPENAI_API_KEY holds", "set the variable to the key alone")
    assert bad.strip() not in proc.stdout + proc.stderr and not list(tmp_path.glob("*.jsonl"))


def test_an_endpoint_down_for_good_is_still_a_runner_error_in_python(tmp_path):
    """The exit-3 stop is a RunnerError subclass, so callers of the Python API catch it as before."""
    with FakeOpenAI(faults={"503": 1.0}) as url, pytest.raises(RunnerError, match="keeps failing"):
        run(url, tmp_path, limit=20, retry_budget_s=0)
