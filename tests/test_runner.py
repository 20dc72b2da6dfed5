"""The runner against a real loopback HTTP server (tests/fake_openai_server.py): protocols, the run
file and its header, resume, torn tails, settings mismatches, secrets, and running inside an event loop."""

import asyncio
import json
import os
from collections import Counter

import pytest
from conftest import KEY, run
from fake_openai_server import FakeOpenAI

from eqbench_nb import __version__
from eqbench_nb.eqbench.conventions import CONVENTIONS
from eqbench_nb.eqbench.protocols import protocol_plan
from eqbench_nb.eqbench.questions import dataset_sha256, load_questions
from eqbench_nb.eqbench.task import SETTINGS_KEYS, default_run_id, parse_question_ids, select_questions
from eqbench_nb.runner import RunnerError
from eqbench_nb.runner.endpoint import public_endpoint


def lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def chat_log(fake):
    return [e["body"] for e in fake.log]


# ---------------------------------------------------------------- pure settings


def test_protocol_plans():
    official = protocol_plan("official", "v2", False)
    assert official.temperatures == (0.01, 0.16, 0.31) and official.max_tokens == 60 and official.stop == ()
    assert protocol_plan("official", "v2", True).max_tokens == 60  # v2.3 sends 60 with revision too
    lm = protocol_plan("lm-eval", "v2", False)
    assert lm.temperatures == (0.0,) and lm.max_tokens == 80 and lm.stop == ("\n\n",) and lm.attempts == 1
    with pytest.raises(RunnerError):
        protocol_plan("lm-eval", "v2", True)
    with pytest.raises(RunnerError):
        protocol_plan("greedy", "v2", False)


def test_question_selection():
    assert parse_question_ids("1, 5,10-12,5") == ["1", "5", "10", "11", "12"]
    assert [q.id for q in select_questions("v2", "3,1,2", limit=2)] == ["1", "2"]
    assert len(select_questions("v1")) == 60
    for bad in ("0", "1,x", "170-175"):
        with pytest.raises(RunnerError):
            select_questions("v2", bad)
    with pytest.raises(RunnerError, match="unknown EQ-Bench question set"):
        select_questions("v3")


def test_default_run_id_is_readable_and_stable():
    all_ids = [q.id for q in load_questions("v2")]
    assert default_run_id("official", False, 1, all_ids, all_ids) == "official-x1-all"
    assert default_run_id("lm-eval", False, 3, all_ids[:5], all_ids) == "lm-eval-x3-first5"
    assert default_run_id("official", True, 1, ["7", "9"], all_ids) == default_run_id(
        "official", True, 1, ["7", "9"], all_ids
    )


def test_public_endpoint_strips_credentials():
    assert (
        public_endpoint("https://user:sk-secret@api.example.com/v1/?api_key=sk-x#f") == "https://api.example.com:443/v1"
    )
    assert public_endpoint("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/v1"
    with pytest.raises(RunnerError):
        public_endpoint("ftp://example.com")


# ---------------------------------------------------------------- runs against the fake server


def test_clients_share_one_tls_context_per_ca_setting(monkeypatch, tmp_path):
    """Each client read the CA store again (23 ms a client, hundreds a suite): counted, one build per CA setting,
    and a changed SSL_CERT_FILE is a new one, never the old context."""
    import ssl

    import httpx2

    from eqbench_nb.runner import endpoint

    builds = []
    create = httpx2.create_ssl_context

    def counting(verify=True, *args, **kwargs):
        if verify is True:  # a context built from the CA store; one passed in is handed straight back
            builds.append(os.environ.get("SSL_CERT_FILE"))
        return create(verify, *args, **kwargs)

    monkeypatch.setattr(httpx2, "create_ssl_context", counting)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    endpoint._tls_context.cache_clear()
    for _ in range(3):
        endpoint.make_client("http://127.0.0.1:9/v1", "k", 5)
    assert builds == [None]
    bundle = ssl.get_default_verify_paths().openssl_cafile
    if os.path.isfile(bundle):
        monkeypatch.setenv("SSL_CERT_FILE", bundle)
        endpoint.make_client("http://127.0.0.1:9/v1", "k", 5)
        assert builds == [None, bundle] and endpoint.tls_context() is not endpoint._tls_context(None, None)
    endpoint._tls_context.cache_clear()


def test_official_run_writes_header_records_and_scores(tmp_path, key):
    with FakeOpenAI(unparseable_rate=0.3) as url:
        result = run(url, tmp_path, limit=12, concurrency=4)
    path = result.path
    assert path.name == "fake-model__v2__official-x1-first12.jsonl"
    header, *records = lines(path)
    assert header["type"] == "header"
    assert header["n_questions"] == 12 and header["iterations"] == 1 and header["version"] == "v2"
    assert header["protocol"] == "official" and header["parser"] == "official" and header["revise"] is False
    assert header["temperatures"] == [0.01, 0.16, 0.31] and header["max_tokens"] == 60 and header["attempts"] == 3
    assert header["eqbench_nb_version"] == __version__ and header["dataset_sha256"] == dataset_sha256("v2")
    assert header["endpoint"] == public_endpoint(url) and header["model"] == "fake-model" and header["started_at"]
    assert sorted(int(r["question_id"]) for r in records) == list(range(1, 13))
    for r in records:
        assert 1 <= len(r["attempts"]) <= 3
        assert [a["temperature"] for a in r["attempts"]] == [0.01, 0.16, 0.31][: len(r["attempts"])]
        for a in r["attempts"]:
            assert set(a) >= {
                "text",
                "temperature",
                "latency_s",
                "prompt_tokens",
                "completion_tokens",
                "finish_reason",
                "transport_retries",
            }
        # a parse retry happens only after an unparseable attempt
        assert all("rather not" in a["text"] for a in r["attempts"][:-1])
    assert any(len(r["attempts"]) > 1 for r in records), "30 % unparseable should force some retries"
    assert set(result.scores) == set(CONVENTIONS)
    assert result.run.n_questions == 12 and len(result.run.records) == 12
    assert "official" in result.table() and "parseable" in result.table()


def test_official_retry_temperatures_reach_server(tmp_path, key):
    fake = FakeOpenAI(unparseable_rate=0.5)
    url = fake.start()
    try:
        result = run(url, tmp_path, limit=6, concurrency=2)
    finally:
        fake.stop()
    sent = Counter(b["temperature"] for b in chat_log(fake))
    attempts = Counter(a["temperature"] for r in result.run.records for a in r.attempts)
    assert sent == attempts and sent[0.01] == 6
    assert all(b["max_tokens"] == 60 and "stop" not in b for b in chat_log(fake))
    assert all(b["messages"][0]["role"] == "user" and len(b["messages"]) == 1 for b in chat_log(fake))


def test_lm_eval_protocol_is_greedy_single_attempt_with_stop(tmp_path, key):
    fake = FakeOpenAI(unparseable_rate=0.5)
    url = fake.start()
    try:
        result = run(url, tmp_path, limit=8, protocol="lm-eval", concurrency=3)
    finally:
        fake.stop()
    bodies = chat_log(fake)
    assert len(bodies) == 8
    assert all(b["temperature"] == 0 and b["max_tokens"] == 80 and b["stop"] == ["\n\n"] for b in bodies)
    assert all(len(r.attempts) == 1 for r in result.run.records)
    assert all("\n\n" not in r.attempts[0]["text"] for r in result.run.records)  # the server honoured stop
    assert result.run.header["protocol"] == "lm-eval" and result.path.name.endswith("lm-eval-x1-first8.jsonl")


def test_revise_mode_parses_both_passes(tmp_path, key):
    fake = FakeOpenAI()
    url = fake.start()
    try:
        result = run(url, tmp_path, questions="1,2,3", revise=True)
    finally:
        fake.stop()
    assert all(b["max_tokens"] == 60 for b in chat_log(fake))
    assert all("First pass scores:" in b["messages"][0]["content"] for b in chat_log(fake))
    for r in result.run.records:
        assert len(r.first_pass) == 4 and len(r.revised) == 4 and r.revised_score is not None


def test_iterations_and_german_set(tmp_path, key):
    with FakeOpenAI() as url:
        result = run(url, tmp_path, version="de", limit=3, iterations=2)
    keys = [r.key for r in result.run.records]
    assert sorted(keys) == sorted((i, q) for i in (1, 2) for q in ("1", "2", "3"))
    assert result.run.header["parser"] == "de"
    assert all(r.first_pass_score is not None for r in result.run.records)  # German names parsed


def test_resume_skips_finished_questions_without_duplicates(tmp_path, key):
    fake = FakeOpenAI()
    url = fake.start()
    try:
        first = run(url, tmp_path, limit=5)
        sent_first = len(fake.log)
        again = run(url, tmp_path, limit=5)
        assert len(fake.log) == sent_first, "a finished run sends nothing when run again"
        assert again.path == first.path and again.answered_now == 0
        # remove two finished records: a resume answers exactly those
        header, *records = first.path.read_text().splitlines()
        first.path.write_text("\n".join([header] + records[:3]) + "\n")
        resumed = run(url, tmp_path, limit=5)
    finally:
        fake.stop()
    assert resumed.answered_now == 2
    ids = [r["question_id"] for r in lines(resumed.path)[1:]]
    assert sorted(ids, key=int) == ["1", "2", "3", "4", "5"] and len(ids) == len(set(ids))


def test_torn_last_line_is_reported_ignored_and_repaired(tmp_path, key, capsys):
    with FakeOpenAI() as url:
        result = run(url, tmp_path, limit=4)
        text = result.path.read_text()
        header, *records = text.splitlines()
        torn = records[-1][: len(records[-1]) // 2]  # the last record cut mid-write
        result.path.write_text("\n".join([header] + records[:-1]) + "\n" + torn)
        resumed = run(url, tmp_path, limit=4)
    assert "torn" in capsys.readouterr().err
    assert any("torn" in n for n in resumed.notes)
    ids = [r["question_id"] for r in lines(resumed.path)[1:]]  # every line is whole JSON again
    assert sorted(ids, key=int) == ["1", "2", "3", "4"]
    assert resumed.answered_now == 1


def test_resume_with_different_settings_refuses(tmp_path, key):
    with FakeOpenAI() as url:
        run(url, tmp_path, limit=3, run_id="mine")
        before = next(tmp_path.glob("*.jsonl")).read_text()
        with pytest.raises(RunnerError, match=r"different settings.*protocol"):
            run(url, tmp_path, limit=3, run_id="mine", protocol="lm-eval")
        with pytest.raises(RunnerError, match="question_ids"):
            run(url, tmp_path, limit=4, run_id="mine")
    assert next(tmp_path.glob("*.jsonl")).read_text() == before  # nothing written on refusal


def test_api_key_is_never_written(tmp_path, key):
    with FakeOpenAI(api_key=KEY, faults={"500": 0.2}, unparseable_rate=0.3) as url:
        result = run(url, tmp_path, limit=5)
    assert len(result.run.records) == 5
    for f in tmp_path.rglob("*"):
        if f.is_file():
            assert KEY not in f.read_text(errors="replace")
    assert KEY not in result.table() and KEY not in repr(result.run.header)


def test_works_inside_a_running_event_loop(tmp_path, key):
    """Jupyter runs cells inside an event loop: the run then goes to a worker thread."""

    async def notebook_cell():
        with FakeOpenAI() as url:
            return run(url, tmp_path, limit=2)

    result = asyncio.run(notebook_cell())
    assert len(result.run.records) == 2


def test_model_is_discovered_from_the_endpoint(tmp_path, key):
    with FakeOpenAI(models=("served-model",)) as url:
        result = run(url, tmp_path, limit=1, model=None)
    assert result.run.model == "served-model" and result.path.name.startswith("served-model__v2__")


def test_temperature_override_shifts_the_schedule_and_names_the_run():
    hot = protocol_plan("official", "v2", False, temperature=0.7)
    assert hot.temperatures == (0.7, 0.85, 1.0)
    assert protocol_plan("lm-eval", "v2", False, temperature=0.5).temperatures == (0.5,)
    with pytest.raises(RunnerError):
        protocol_plan("official", "v2", False, temperature=-1)
    assert "t0.7" in default_run_id("official", False, 3, ["1"], ["1", "2"], 0.7)
    assert "-t" not in default_run_id("official", False, 3, ["1"], ["1", "2"])


def test_run_file_writer_keeps_every_record_and_reports_a_failed_write(tmp_path):
    from eqbench_nb.eqbench.runs import RunRecord, read_jsonl, record_from_json
    from eqbench_nb.runner.runfile import RunFile

    header = {"type": "header", "model": "m", "run_id": "r", "version": "v2"}
    path = tmp_path / "run.jsonl"
    run_file = RunFile(path, header, record_from_json, SETTINGS_KEYS)
    for i in range(200):  # faster than fsync: the writer groups them, and loses none
        run_file.append(RunRecord("m", "r", 1, str(i)))
    run_file.close()
    assert run_file.error is None
    assert [r.question_id for r in read_jsonl(path).records] == [str(i) for i in range(200)]

    import resource

    broken = RunFile(tmp_path / "broken.jsonl", header, record_from_json, SETTINGS_KEYS)
    told = []
    broken.on_error = told.append
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    # a file size limit just past the header: the next write fails with a real OSError (EFBIG), like a full disk
    resource.setrlimit(resource.RLIMIT_FSIZE, (broken.path.stat().st_size + 100, hard))
    try:
        broken.append(RunRecord("m", "r", 1, "1", attempts=[{"text": "x" * 200}]))
        broken._writer.join(timeout=5)
        assert broken.error and "broken.jsonl" in broken.error and "File too large" in broken.error
        assert told == [broken.error] and broken.lost == 1
        with pytest.raises(RunnerError, match="cannot write the run file"):
            broken.append(RunRecord("m", "r", 1, "2"))
        broken.close()  # never raises: the error is in .error
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert broken.lost == 2


def test_seed_is_sent_recorded_and_names_the_run(tmp_path, key):
    fake = FakeOpenAI(unparseable_rate=0.3)
    url = fake.start()
    try:
        result = run(url, tmp_path, limit=3, seed=7)
        unseeded = run(url, tmp_path, limit=1)
    finally:
        fake.stop()
    seeded_bodies = [b for b in chat_log(fake) if "seed" in b]
    assert seeded_bodies and all(b["seed"] == 7 for b in seeded_bodies)
    assert len(chat_log(fake)) - len(seeded_bodies) == len(unseeded.run.records[0].attempts)  # no seed unless asked
    assert result.run.header["seed"] == 7 and "-s7-" in result.path.name
    assert unseeded.run.header["seed"] is None


def test_a_refused_resume_shows_what_differs_in_the_question_ids(tmp_path, key):
    """Issue 29, item 5: two long lists cut to their first characters looked the same (``file has ["1", …, "11",…,
    now ["1", …, "11",…``); the refusal says what was added and what was left out, and the remedy."""
    with FakeOpenAI() as url:
        run(url, tmp_path, questions="1-12", run_id="mine")
        with pytest.raises(RunnerError) as grown:
            run(url, tmp_path, questions="1-12,20-23", run_id="mine")
        with pytest.raises(RunnerError) as changed:
            run(url, tmp_path, questions="1-11,13", run_id="mine")
    text = str(grown.value)
    assert "question_ids: file has 12 (1-12), now 16 (1-12, 20-23): 4 added (20-23)" in text
    assert "--extend" in text, "growing the question set is what --extend does: the refusal says so"
    text = str(changed.value)
    assert "1 added (13), 1 left out (12)" in text and "--extend" not in text


def test_describe_change_shows_the_difference_of_lists_objects_and_values():
    from eqbench_nb.runner.runfile import describe_change, id_ranges

    assert id_ranges(["1", "2", "3", "5", "x", "7", "8"]) == '1-3, 5, "x", 7-8'  # a name in quotes, JSON-escaped
    assert id_ranges([str(i) for i in range(1, 40, 2)], most=3) == "1, 3, 5, … (20 in all)"
    reordered = describe_change(["1", "2"], ["2", "1"])
    assert reordered.endswith("the same items in another order or count, first differing at position 1")
    assert describe_change({"name": "short20", "n": 20}, {"name": "short30", "n": 20}) == (
        '"name": file has "short20", now "short30"'
    )
    assert describe_change(0.01, 0.16) == "file has 0.01, now 0.16"


def test_extend_grows_a_run_to_more_questions_keeping_its_answers(tmp_path, key):
    """Issue 29, item 5: a --limit 3 run extended to 6 questions asks only the 3 new ones; the file says so (an
    event before any new answer), and every reader sees a 6-question run."""
    fake = FakeOpenAI()
    url = fake.start()
    try:
        small = run(url, tmp_path, limit=3)
        asked = [b["messages"][-1]["content"] for b in chat_log(fake)]
        grown = run(url, tmp_path, limit=6, extend=small.path)
        asked_again = [b["messages"][-1]["content"] for b in chat_log(fake)][len(asked) :]
        again = run(url, tmp_path, limit=6, extend=small.path)  # a second time: nothing left to ask
    finally:
        fake.stop()
    assert grown.path == small.path and grown.answered_now == 3 and again.answered_now == 0
    assert len(asked_again) == 3 and not set(asked_again) & set(asked), "only the 3 new questions were asked"
    assert grown.run.header["run_id"] == small.run.header["run_id"] == "official-x1-first3"
    assert grown.run.header["question_ids"] == ["1", "2", "3", "4", "5", "6"] and grown.run.n_questions == 6
    assert sorted(r.question_id for r in grown.run.records) == ["1", "2", "3", "4", "5", "6"]
    kinds = [(o.get("type"), o.get("event")) for o in lines(small.path)]
    assert kinds[:4] == [("header", None), ("record", None), ("record", None), ("record", None)]
    assert kinds[4] == ("event", "extended") and kinds[5:] == [("record", None)] * 3
    assert any("extending" in n and "3 added (4-6)" in n for n in grown.notes)
    from eqbench_nb.eqbench.runs import read_run

    assert read_run(small.path).n_questions == 6
    assert grown.scores["official"].n_parseable <= 6


def test_extend_refuses_what_is_not_growth(tmp_path, key):
    with FakeOpenAI() as url:
        small = run(url, tmp_path, limit=3)
        before = small.path.read_bytes()
        with pytest.raises(RunnerError, match=r"cannot extend .*question_ids: .*1 left out \(3\)"):
            run(url, tmp_path, questions="1,2,4", extend=small.path)
        with pytest.raises(RunnerError, match=r"cannot extend .*protocol"):
            run(url, tmp_path, limit=6, protocol="lm-eval", extend=small.path)
        with pytest.raises(RunnerError, match=r"these options make another run"):
            run(url, tmp_path, limit=6, version="v1", extend=small.path)
        with pytest.raises(RunnerError, match=r"drop --run-id"):
            run(url, tmp_path, limit=6, run_id="other", extend=small.path)
        with pytest.raises(RunnerError, match=r"no such run file"):
            run(url, tmp_path, limit=6, extend=tmp_path / "missing.jsonl")
    assert small.path.read_bytes() == before, "a refused extension writes nothing"


def test_an_extension_event_changes_only_the_fields_the_benchmark_lets_grow(tmp_path):
    """A hostile event cannot rename the run or its model: readers apply only the extendable fields."""
    from eqbench_nb.eqbench.runs import read_run

    path = tmp_path / "run.jsonl"
    header = {
        "type": "header",
        "model": "m",
        "run_id": "r",
        "version": "v2",
        "n_questions": 1,
        "question_ids": ["1"],
        "iterations": 1,
        "protocol": "official",
        "revise": False,
    }
    event = {
        "type": "event",
        "event": "extended",
        "header": {"question_ids": ["1", "2"], "n_questions": 2, "model": "evil", "run_id": "evil"},
    }
    path.write_text(json.dumps(header) + "\n" + json.dumps(event) + "\n")
    run_ = read_run(path)
    assert run_.header["question_ids"] == ["1", "2"] and run_.model == "m" and run_.header["run_id"] == "r"
