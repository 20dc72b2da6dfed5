"""A paid run is never lost, doubled or hung (issue 13): each case against the real openai client and a
real loopback server (tests/fake_openai_server.py) that injects the fault.

1 the run-file lock and readers that keep the first copy; 2 per-question failures (400/413/422,
content null); 3 a total deadline per request; 4 body size cap and text cut; 5 a full disk; 6 exit
status, SIGTERM/Ctrl-C and answers in flight; 7 hostile files for score and --repair; 8 secrets in
the base URL; 9 diagnostics (capped Retry-After, retry budget, "connection" not "timeout").
"""

import json
import re
import resource
import signal
import time
from pathlib import Path

import pytest
from cli_helper import cli, cli_process
from conftest import KEY, run
from fake_openai_server import FakeOpenAI

from eqbench_nb.eqbench.conventions import score_run
from eqbench_nb.eqbench.runs import read_run, record_from_json
from eqbench_nb.eqbench.task import SETTINGS_KEYS
from eqbench_nb.runner import EndpointRefused, RetryPolicy, RunnerError
from eqbench_nb.runner.endpoint import plain_http_warning, split_base_url
from eqbench_nb.runner.runfile import RunFile
from eqbench_nb.runner.transport import MAX_TEXT_CHARS

ROOT = Path(__file__).resolve().parent.parent


pytestmark = pytest.mark.usefixtures("key")  # every test here talks to the loopback server


def records(path):
    """The records of a run file (a torn last line, as a failed write leaves, is not one)."""
    raw = path.read_bytes()
    lines = raw.split(b"\n")[1:]
    if not raw.endswith(b"\n"):
        lines = lines[:-1]
    return [json.loads(line) for line in lines if line.strip()]


def keys_of(path):
    return [(r["iteration"], r["question_id"]) for r in records(path)]


RUN = ("run", "--model", "fake-model", "--no-progress")


def run_cli(url, out, *extra):
    """``eqbench-nb run`` of the fake model into ``out``, in this process."""
    return cli(*RUN, "--base-url", url, "--out", out, *extra)


def run_process(url, out, *extra, **kw):
    """The same run as a process of its own (``kw``: :func:`cli_helper.cli_process`'s): for a signal, a second
    process holding the run file, a file size limit."""
    return cli_process(*RUN, "--base-url", url, "--out", out, *extra, **kw)


def wait_for_records(path, n, proc, limit_s=30):
    deadline = time.time() + limit_s
    while (not path.exists() or len(keys_of(path)) < n) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)


def one_line_error(proc, *words):
    assert "Traceback" not in proc.stderr, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("error: "), proc.stderr
    for w in words:
        assert w in last, last
    assert KEY not in proc.stdout + proc.stderr
    return last


def chat_requests(fake):
    return sum(fake.outcomes.values())


# ---------------------------------------------------------------- 1 lock, duplicates, foreign records


@pytest.mark.slow
def test_a_second_copy_of_a_running_run_is_refused_with_the_first_ones_pid(tmp_path):
    fake = FakeOpenAI(latency=0.25)
    url = fake.start()
    try:
        first = run_process(url, tmp_path, "--limit", 60, "--concurrency", 2, wait=False)
        path = tmp_path / "fake-model__v2__official-x1-first60.jsonl"
        wait_for_records(path, 2, first)
        fake.latency = 2.0  # the first copy's 58 questions left, 2 at a time, take a minute: it runs on however
        second = run_cli(url, tmp_path, "--limit", 60, "--concurrency", 2)  # long the second takes to start
        assert first.poll() is None, "the first copy must still be running for this test to mean anything"
        fake.latency = 0.0
        _, err = first.communicate(timeout=60)
    finally:
        fake.stop()
    assert second.returncode == 2
    one_line_error(second, f"another process (pid {first.pid}) is writing this run")
    assert first.returncode == 0, err
    assert sorted(keys_of(path)) == sorted((1, str(q)) for q in range(1, 61))  # each question once
    assert chat_requests(fake) == 60, "the refused copy sent no request"


def test_the_same_run_opened_twice_in_one_process_is_refused(tmp_path):
    header = {"model": "m", "run_id": "r", "version": "v2"}
    first = RunFile(tmp_path / "run.jsonl", header, record_from_json, SETTINGS_KEYS)
    try:
        with pytest.raises(RunnerError, match="this process is writing this run"):
            RunFile(tmp_path / "run.jsonl", header, record_from_json, SETTINGS_KEYS)
    finally:
        first.close()
    RunFile(tmp_path / "run.jsonl", header, record_from_json, SETTINGS_KEYS).close()  # free again once closed


def test_doubled_and_foreign_records_are_left_out_by_every_reader(tmp_path):
    fake = FakeOpenAI()
    url = fake.start()
    try:
        done = run(url, tmp_path, limit=4)
        lines = done.path.read_text().splitlines()
        header, recs = json.loads(lines[0]), lines[1:]
        foreign = [json.loads(r) | {"run_id": "someone-else", "model": "other"} for r in recs[:2]]
        # what two copies of one command, then another run appended to the same file, would leave
        with done.path.open("a") as f:
            f.write("\n".join(recs) + "\n")
            f.write(json.dumps({"type": "header", **header, "started_at": "later"}) + "\n")
            f.write("\n".join(json.dumps(r) for r in foreign) + "\n")
        sent = chat_requests(fake)
        resumed = run(url, tmp_path, limit=4)
    finally:
        fake.stop()
    run_ = read_run(done.path)
    assert sorted(r.key for r in run_.records) == sorted((1, str(q)) for q in range(1, 5))
    assert [r.first_pass for r in run_.records] == [r.first_pass for r in done.run.records]  # the first copies
    text = " | ".join(run_.warnings)
    assert "4 duplicate records" in text and "1 more header line" in text and "2 records of another run" in text
    for convention in ("official", "lm-eval", "evalscope"):
        assert score_run(run_, convention).n_parseable <= 4
    assert resumed.answered_now == 0 and chat_requests(fake) == sent, "a resume asks nothing again"
    assert any("duplicate" in n for n in resumed.notes)
    scored = cli("score", done.path)
    assert scored.returncode == 0 and "4/4" in scored.stdout and "342" not in scored.stdout
    assert "duplicate" in scored.stderr and "another run" in scored.stderr


# ---------------------------------------------------------------- 2 one bad question does not stop the run


def test_a_rejected_or_empty_request_fails_only_its_question(tmp_path):
    # question 1: 400, 413, 422 (all three official attempts); question 2: content null, then an answer
    fake = FakeOpenAI(script=["400", "413", "422", "null"])
    url = fake.start()
    try:
        result = run(url, tmp_path, limit=4, concurrency=1)
    finally:
        fake.stop()
    assert result.complete and result.unfinished == 0 and len(result.run.records) == 4
    q1, q2 = result.run.records[0], result.run.records[1]
    assert [a["text"] for a in q1.attempts] == [None, None, None]
    assert [a["error"].split(":")[0] for a in q1.attempts] == ["rejected (400)", "rejected (413)", "rejected (422)"]
    assert "maximum context length" in q1.attempts[0]["error"]
    assert q1.first_pass_score is None and q1.answer_attempt is None  # unparseable, as upstream counts it
    assert q2.attempts[0]["text"] is None and "no message content" in q2.attempts[0]["error"]
    assert q2.first_pass_score is not None and q2.answer_attempt == 1
    assert all(a["transport_retries"] == 0 for r in result.run.records for a in r.attempts)  # no retries
    assert result.stats.retries == 0 and dict(result.stats.failed) == {"400": 1, "413": 1, "422": 1, "no content": 1}
    assert result.failed_requests == [(1, "1", q1.attempts[-1]["error"])]
    table = result.table()
    assert re.search(r"failed\s+1 question whose requests failed, counted unparseable: 1;", table)


def test_an_endpoint_that_rejects_every_request_stops_and_writes_nothing(tmp_path):
    with FakeOpenAI(faults={"400": 1.0}) as url, pytest.raises(RunnerError, match="rejected every request"):
        run(url, tmp_path, limit=10, concurrency=2)
    # rejections before any answer are not written (a fixed setting asks them again), and the new file's header
    # alone is removed too (issue 44: `runs` and `score` listed it)
    assert list(tmp_path.glob("*.jsonl")) == []
    with FakeOpenAI() as url:
        assert len(run(url, tmp_path, limit=10, concurrency=2).run.records) == 10


# ---------------------------------------------------------------- 3 a total deadline per request


def test_a_trickling_body_is_cut_off_at_the_request_deadline(tmp_path):
    with FakeOpenAI(script=["trickle"], trickle_s=0.2) as url:  # about 100 s for the whole body
        started = time.perf_counter()
        result = run(url, tmp_path, limit=1, timeout_s=1.0)
        elapsed = time.perf_counter() - started
    assert elapsed < 5, elapsed
    attempt = result.run.records[0].attempts[0]
    assert attempt["transport_faults"] == ["timeout"] and attempt["text"]  # retried, then answered


# ---------------------------------------------------------------- 4 body size cap and text cut


def test_huge_bodies_and_gzip_bombs_stop_at_the_cap_and_long_text_is_cut(tmp_path):
    script = ["huge", "ok", "bomb", "ok", "long"]  # q1: 50 MB chunked; q2: 64 MB gzip bomb; q3: 300,000 chars
    with FakeOpenAI(script=script, huge_mb=50) as url:
        started = time.perf_counter()
        result = run(url, tmp_path, limit=3, concurrency=1)
        elapsed = time.perf_counter() - started
    assert elapsed < 15, elapsed
    q1, q2, q3 = result.run.records
    for r in (q1, q2):
        assert r.attempts[0]["text"] is None and "over the 4 MiB cap" in r.attempts[0]["error"]
        assert r.answer_attempt == 1  # the next attempt answered
    assert len(q3.attempts[0]["text"]) == MAX_TEXT_CHARS and q3.first_pass_score is not None
    assert re.fullmatch(rf"text cut to its first {MAX_TEXT_CHARS:,} of 300,\d{{3}} characters", q3.attempts[0]["error"])
    assert result.path.stat().st_size < 300_000  # not 100 MB for 3 records
    assert result.stats.failed["too large"] == 2 and result.stats.cut == 1


# ---------------------------------------------------------------- 5 a full disk


def _file_size_limit(n_bytes):
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (n_bytes, n_bytes))  # writes past it fail: EFBIG

    return limit


@pytest.mark.slow
def test_a_full_disk_is_one_line_and_no_request_is_sent_after(tmp_path):
    fake = FakeOpenAI(latency=0.01)
    url = fake.start()
    path = tmp_path / "fake-model__v2__official-x1-first60.jsonl"
    try:
        full = run_process(url, tmp_path, "--limit", 60, "--concurrency", 2, preexec_fn=_file_size_limit(24_000))
        assert full.returncode == 2
        one_line_error(full, "cannot write the run file", "File too large", "run the same command again")
        saved, sent = len(keys_of(path)), chat_requests(fake)
        assert 0 < saved < 60 and sent - saved <= 2 + 1 + 4, "requests stop once the writer fails"
        still_full = run_process(url, tmp_path, "--limit", 60, "--concurrency", 2, preexec_fn=_file_size_limit(24_000))
        assert still_full.returncode == 2
        one_line_error(still_full, "File too large", "nothing was sent")
        assert chat_requests(fake) == sent, "a resume on a full disk sends nothing"
        freed = run_cli(url, tmp_path, "--limit", 60, "--concurrency", 2)
    finally:
        fake.stop()
    assert freed.returncode == 0, freed.stderr
    assert sorted(keys_of(path)) == sorted((1, str(q)) for q in range(1, 61))


# ---------------------------------------------------------------- 6 exit status, stops, answers in flight


def test_unfinished_questions_exit_3_with_the_last_fault(tmp_path):
    with FakeOpenAI(script=["503"]) as url:  # --retry-budget 0: the first fault gives the question up
        proc = run_cli(url, tmp_path, "--limit", 3, "--concurrency", 1, "--retry-budget", 0)
    assert proc.returncode == 3
    assert "records    2 of 3" in proc.stdout and "unfinished 1; last fault: 503" in proc.stdout
    one_line_error(proc, "1 question left unfinished", "last fault: 503", "run the same command again")


@pytest.mark.parametrize("sig, code, word", [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")])
@pytest.mark.slow
def test_a_stop_signal_writes_the_answers_in_flight(tmp_path, sig, code, word):
    fake = FakeOpenAI(latency=0.5)
    url = fake.start()
    path = tmp_path / "fake-model__v2__official-x1-first40.jsonl"
    try:
        proc = run_process(url, tmp_path, "--limit", 40, "--concurrency", 4, wait=False)
        wait_for_records(path, 4, proc)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        fake.stop()
    assert proc.returncode == code, err
    assert "Traceback" not in err and word in err
    assert sum(word in line for line in err.splitlines()) == 1, f"one line says the run stopped: {err}"
    saved = keys_of(path)
    assert len(saved) == len(set(saved)) < 40
    assert len(saved) == fake.outcomes["ok"], "every answer the server sent was written"


def test_a_refused_key_mid_run_still_writes_the_answers_in_flight(tmp_path):
    fake = FakeOpenAI(latency=0.3, script=["ok"] * 9 + ["401"])
    url = fake.start()
    try:
        with pytest.raises(EndpointRefused, match="401"):
            run(url, tmp_path, limit=30, concurrency=4)
    finally:
        fake.stop()
    saved = keys_of(next(tmp_path.glob("*.jsonl")))
    assert len(saved) == fake.outcomes["ok"] >= 9 and len(set(saved)) == len(saved)


# ---------------------------------------------------------------- 7 hostile files for score, --repair


def _good_run(tmp_path, url, limit=6):
    return run(url, tmp_path / "good", limit=limit)


def test_score_survives_hostile_files_and_flags_out_of_range_ratings(tmp_path):
    with FakeOpenAI() as url:
        good = _good_run(tmp_path, url)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    deep_line = tmp_path / "deep_line.jsonl"
    deep_line.write_text(good.path.read_text().splitlines()[0] + "\n" + '{"a":' * 100_000 + "1" + "}" * 100_000 + "\n")
    huge = tmp_path / "huge.jsonl"
    lines = good.path.read_text().splitlines()
    rec = json.loads(lines[1])
    rec["first_pass"] = {k: 1e308 for k in rec["first_pass"]}
    huge.write_text("\n".join([lines[0], json.dumps(rec), *lines[2:]]) + "\n")
    out = cli("score", deep, deep_line, huge, good.path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    errors = [line for line in out.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 2 and all("nested too deeply" in e for e in errors)
    # 1e308 is no finite number (it overflows once squared): its answer is left out and said (issue 34's rule)
    assert "not a finite number" in out.stderr and "1e+308" in out.stderr
    rows = out.stdout.strip().splitlines()
    assert len(rows) == 3 and rows[0].split()[-1] == "warnings"  # both good files scored; the flag is in the table
    assert [r.split()[-1] for r in rows[1:]].count("1") == 1 and "inf" not in out.stdout  # one flagged, finite


def test_a_corrupted_middle_line_is_moved_aside_by_repair_and_asked_again(tmp_path):
    fake = FakeOpenAI()
    url = fake.start()
    try:
        done = run(url, tmp_path, limit=6)
        raw = done.path.read_bytes().splitlines(keepends=True)
        lost_id = json.loads(raw[3])["question_id"]
        raw[3] = b'{"type": "record", "model": "fake-mo\x00\xff garbage\n'  # a bad sector, a bad copy
        done.path.write_bytes(b"".join(raw))
        scored = cli("score", done.path)
        assert scored.returncode == 2
        one_line_error(scored, "line 4 is not JSON", "--repair")
        sent = chat_requests(fake)
        with pytest.raises(RunnerError, match=r"cannot resume.*line 4 is not JSON.*--repair"):
            run(url, tmp_path, limit=6)
        assert chat_requests(fake) == sent
        repaired = run_cli(url, tmp_path, "--limit", 6, "--repair")
    finally:
        fake.stop()
    assert repaired.returncode == 0, repaired.stderr
    assert "1 unreadable line (4) moved to" in repaired.stderr and "1 answered now" in repaired.stdout
    assert chat_requests(fake) == sent + 1  # only the lost question was asked again
    aside = done.path.with_name(done.path.name + ".unreadable")
    assert b"garbage" in aside.read_bytes() and b"garbage" not in done.path.read_bytes()
    assert sorted(keys_of(done.path)) == sorted((1, str(q)) for q in range(1, 7))
    assert (1, lost_id) in keys_of(done.path)
    assert cli("score", done.path).returncode == 0


def test_repair_never_touches_a_file_whose_header_is_unreadable(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"<html>not a run</html>\n{}\n")
    before = path.read_bytes()
    header = {"model": "m", "run_id": "r", "version": "v2"}
    with pytest.raises(RunnerError, match="no readable header line"):
        RunFile(path, header, record_from_json, SETTINGS_KEYS, repair=True)
    assert path.read_bytes() == before and not path.with_name("run.jsonl.unreadable").exists()


# ---------------------------------------------------------------- 8 secrets in the base URL


def test_credentials_in_the_base_url_are_refused_before_any_request(tmp_path):
    fake = FakeOpenAI()
    url = fake.start()
    try:
        proc = run_cli(url.replace("http://", "http://user:sk-USERINFO-SECRET@"), tmp_path, "--limit", 2)
    finally:
        fake.stop()
    assert proc.returncode == 2
    one_line_error(proc, "user name or password")
    assert "sk-USERINFO-SECRET" not in proc.stdout + proc.stderr
    assert chat_requests(fake) == 0 and not list(tmp_path.glob("*.jsonl"))


def test_a_key_in_the_query_is_sent_as_a_query_and_redacted_everywhere(tmp_path, capsys):
    secret = "sk-QUERY-SECRET-0123456789"
    fake = FakeOpenAI(query_key=secret)
    url = fake.start()
    try:
        result = run(url + f"?api-key={secret}&api-version=2024-06-01", tmp_path, limit=3)
        assert len(result.run.records) == 3  # the key reached the server as a query parameter
        with pytest.raises(EndpointRefused) as wrong_key:  # the server echoes the wrong key in its 401
            run(url + "?api-key=sk-WRONG-QUERY-KEY-987654", tmp_path / "b", limit=1)
        with pytest.raises(EndpointRefused) as wrong_path:  # and the whole path, query included, in a 404
            run(url.replace("/v1", "/nope") + f"?api-key={secret}", tmp_path / "c", limit=1)
    finally:
        fake.stop()
    assert "401" in str(wrong_key.value) and "sk-WRONG-QUERY-KEY-987654" not in str(wrong_key.value)
    assert "404" in str(wrong_path.value) and "no such route" in str(wrong_path.value)
    assert secret not in str(wrong_path.value)
    assert result.run.header["endpoint"] == url.replace("127.0.0.1", "127.0.0.1")  # no query in the header
    for f in tmp_path.rglob("*"):
        if f.is_file():
            assert secret not in f.read_text(errors="replace")
    assert secret not in capsys.readouterr().err


def test_a_key_over_plain_http_to_another_host_is_warned_about(tmp_path):
    assert plain_http_warning("http://api.example.com/v1", True)
    assert plain_http_warning("https://api.example.com/v1", True) is None
    for local in ("http://127.0.0.1:8000/v1", "http://localhost/v1", "http://[::1]:8/v1", "http://[::ffff:127.0.0.1]/"):
        assert plain_http_warning(local, True) is None
    assert split_base_url("https://h/v1?api-key=abc&api-version=2024-06-01") == (
        "https://h/v1",
        {"api-key": "abc", "api-version": "2024-06-01"},
        ["abc"],
    )
    # 192.0.2.1 is TEST-NET-1: nothing answers there; the warning comes before any attempt to connect
    proc = run_cli("http://192.0.2.1:9/v1", tmp_path, "--timeout", 0.5, "--limit", 1)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines[0].startswith("warning: the API key goes to http://192.0.2.1:9/v1 over plain http")
    one_line_error(proc, "cannot reach")


# ---------------------------------------------------------------- 9 diagnostics and the retry budget


def test_a_long_retry_after_is_capped_and_said(tmp_path, capsys):
    policy = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05, max_retry_after_s=0.2)
    with FakeOpenAI(script=["429"], retry_after=3600) as url:
        started = time.perf_counter()
        result = run(url, tmp_path, limit=1, retry=policy)
        elapsed = time.perf_counter() - started
    assert elapsed < 3 and len(result.run.records) == 1
    assert re.search(r"429 from \S+: server asked 3600 s, waiting 0\.2\d* s", capsys.readouterr().err)


def test_the_default_retry_budget_outlasts_a_rate_limit_window(tmp_path):
    assert RetryPolicy().min_total_wait_s() >= 2 * 60  # every jitter at its minimum: still two 60 s windows
    # the same policy scaled down 100 times against a server that refuses everything for 0.6 s
    scaled = RetryPolicy(base_delay_s=0.01, max_delay_s=0.3, budget_s=3.0)
    assert scaled.min_total_wait_s() >= 1.2
    with FakeOpenAI(rate_limited_for=0.6, retry_after=0) as url:
        # fixed concurrency: every question meets the window (adaptive pacing would keep some out of it)
        result = run(url, tmp_path, limit=8, concurrency=4, retry=scaled, adaptive=False)
    assert len(result.run.records) == 8 and result.unfinished == 0 and result.stats.gave_up == 0
    assert result.stats.faults["429"] >= 8


@pytest.mark.parametrize("fault", ["close", "reset"])
def test_a_closed_or_reset_connection_is_labelled_connection(tmp_path, fault):
    with FakeOpenAI(script=["ok", fault]) as url:  # "close" on a kept-alive connection
        result = run(url, tmp_path, limit=2, concurrency=1)
    assert [a["transport_faults"] for r in result.run.records for a in r.attempts] == [[], ["connection"]]
    assert dict(result.stats.faults) == {"connection": 1}
