"""creative-writing and Judgemark through the runner and the command line, on loopback fakes (real HTTP, the real
openai client): the request counts, upstream's retries and rounds, a constant judge's score, a SIGKILL and resume
that lose nothing and pay nothing twice, the dry runs, ``score`` on runs and on the published board, the viewer's
items, and the options each refuses."""

from __future__ import annotations

import json
import math
import signal
import subprocess
import time
from collections import Counter

import pytest
from cli_helper import cli, cli_process
from conftest import KEY, ROOT, needs_data
from fake_judged import WRITER_HEAD, piece_in, responder
from fake_openai_server import FakeOpenAI

from eqbench_nb import registry
from eqbench_nb.judged import creative_writing as cw
from eqbench_nb.judged import judgemark as jm
from eqbench_nb.judged.runs import JUDGE, PIECE, JudgedRun, Outcome, next_step, read_judged_run
from eqbench_nb.judged.samples import judged_samples
from eqbench_nb.judged.task import judgemark_pieces, prompts, run_creative_writing, run_judgemark
from eqbench_nb.runner import RetryPolicy
from eqbench_nb.runner.settings import Endpoint, RunSettings

pytestmark = [needs_data, pytest.mark.usefixtures("key")]
FAST = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)


def endpoint(url: str, model: str, **kw) -> Endpoint:
    return Endpoint(base_url=url, model=model, retry=FAST, timeout_s=10, **kw)


def quiet(tmp_path, **kw) -> RunSettings:
    return RunSettings(out_dir=tmp_path, progress=False, **kw)


def asked(fake: FakeOpenAI) -> Counter:
    return Counter(e["body"]["model"] for e in fake.log)


# ---------------------------------------------------------------- creative-writing


def test_creative_writing_asks_19_pieces_per_iteration_and_one_judgement_each_and_resumes_to_nothing(tmp_path):
    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=responder())
    with fake as url:
        result = run_creative_writing(endpoint(url, "fake-model"), endpoint(url, "judge-model"), quiet(tmp_path),
                                      iterations=2)  # fmt: skip
        served = len(fake.log)
        again = run_creative_writing(endpoint(url, "fake-model"), endpoint(url, "judge-model"), quiet(tmp_path),
                                     iterations=2)  # fmt: skip
    assert asked(fake) == {"fake-model": 19 * 2, "judge-model": 19 * 2}
    assert len(fake.log) == served and again.answered_now == 0 and again.complete  # nothing asked twice
    assert result.complete and (result.stats.requests, result.judge_stats.requests) == (38, 38)
    header = result.run.header
    assert header["judge_model"] == "judge-model" and header["iterations"] == 2 and len(header["items"]) == 19
    assert header["sampling"] == {"piece_temperatures": cw.piece_temperatures(), "piece_max_tokens": 3000,
                                  "judge_temperature": 0.0, "judge_max_tokens": 3000}  # fmt: skip
    bodies = [e["body"] for e in fake.log]
    writer = [b for b in bodies if b["model"] == "fake-model"]
    judge = [b for b in bodies if b["model"] == "judge-model"]
    records = prompts()
    # each iteration sends its own seed modifier: the prompts of iteration 1 and 2 are upstream's, exactly
    expected = Counter(cw.writing_prompt(r, i) for i in (1, 2) for r in records.values())
    assert Counter(b["messages"][0]["content"] for b in writer) == expected
    assert all(len(b["messages"]) == 1 and b["temperature"] == 0.5 and b["max_tokens"] == 3000 for b in writer)
    assert all(b["temperature"] == 0.0 and b["max_tokens"] == 3000 for b in judge)
    assert KEY not in result.path.read_text()


def test_short_pieces_unparseable_and_empty_judge_replies_are_retried_as_upstream(tmp_path):
    # one job at a time: the first prompt of iteration 1 meets every fault, in this order
    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=responder(short=2, empty=2, unparseable=1))
    with fake as url:
        result = run_creative_writing(endpoint(url, "fake-model", concurrency=1),
                                      endpoint(url, "judge-model", concurrency=1), quiet(tmp_path))  # fmt: skip
    first = [r for r in result.run.records if r.item == "1"]  # in the order written
    steps = [(r.round, r.step, r.attempt, r.request["temperature"]) for r in first]
    assert steps == [
        (1, PIECE, 1, 0.5), (1, PIECE, 2, 0.6), (1, PIECE, 3, 0.7),  # two short pieces: +0.1 each
        (1, JUDGE, 1, 0.0), (1, JUDGE, 2, 0.0), (1, JUDGE, 3, 0.0),  # two empty replies, then the unparseable one
        (2, PIECE, 1, 0.5), (2, JUDGE, 1, 0.0),  # the round repeated: a new piece, judged and scored
    ]  # fmt: skip
    assert asked(fake) == {"fake-model": 19 + 2 + 1, "judge-model": 19 + 2 + 1}
    state = next_step(first)
    assert isinstance(state, Outcome) and state.scored and state.rounds == 2
    # the retry prompt is the first unchanged: upstream's PG-13 line is never sent
    writer = [e["body"]["messages"][0]["content"] for e in fake.log if e["body"]["model"] == "fake-model"]
    assert len(set(writer[:4])) == 1 and cw.PG13_LINE not in writer[0]
    assert result.summary.progress.scored == 19


def test_the_next_step_takes_the_scores_the_record_read_and_reads_no_reply_again(monkeypatch):
    """A judge's reply is read once, when its record is made; every resume and summary asks next_step of every
    item, and read it again (15,000 reads in this file). Counted: the record's scores are the outcome's."""
    from eqbench_nb.judged.runs import RequestRecord

    piece = "x" * cw.MIN_PIECE_CHARS
    records = [RequestRecord.of("m", "r", 1, "1", 1, JUDGE, 1, {"text": "Trite: 3\nVivid: 7\nClear: " + "9" * 400})]
    reads = []
    monkeypatch.setattr(cw, "read_scores", lambda *a, **k: reads.append(a))
    state = next_step(records, piece, writes_piece=False)
    assert isinstance(state, Outcome) and state.scores == {"Trite": 3.0, "Vivid": 7.0} and reads == []
    assert records[0].left_out  # the number that is not finite: read, left out and said, by the one reader


def test_four_short_pieces_end_the_prompt_unscored_and_no_judge_is_asked(tmp_path):
    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=responder(short=4))
    with fake as url:
        result = run_creative_writing(endpoint(url, "fake-model", concurrency=1),
                                      endpoint(url, "judge-model", concurrency=1), quiet(tmp_path))  # fmt: skip
    assert asked(fake) == {"fake-model": 4 + 18, "judge-model": 18}
    assert result.summary.progress.unscored == 1 and result.summary.score.n_prompts == 18
    first = [r for r in result.run.records if r.item == "1"]
    assert [r.step for r in first] == [PIECE] * 4 and result.complete


@pytest.mark.parametrize(("score", "upstream"), [(0, 44.82), (3, 47.93), (7.5, 52.59), (10, 55.18)])
def test_a_judge_giving_every_criterion_one_score_gets_what_upstreams_formula_gives(tmp_path, score, upstream):
    # upstream: d28c60c parse_scores + calculate_creative_writing_score on these replies (tests/test_creative_writing)
    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=responder(score=score))
    with fake as url:
        result = run_creative_writing(endpoint(url, "fake-model"), endpoint(url, "judge-model"), quiet(tmp_path))
    assert result.summary.score.upstream_score == upstream and result.summary.score.defined


def test_no_iteration_with_more_than_10_scored_prompts_prints_undefined_not_upstreams_0(tmp_path):
    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=responder(unparseable=10**6))
    with fake as url:
        done = cli("run", "--benchmark", "creative-writing", "--base-url", url, "--model", "fake-model",
                   "--judge-base-url", url, "--judge-model", "judge-model", "--out", str(tmp_path),
                   "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert asked(fake) == {"fake-model": 19 * 4, "judge-model": 19 * 4}  # 4 rounds, each a new piece
    assert "score      undefined (no iteration had more than 10 scored prompts; upstream reports 0)" in done.stdout
    rows = json.loads(cli("score", str(tmp_path), "--format", "json").stdout)
    assert rows[0]["score"] is None and rows[0]["upstream_score"] == 0.0 and rows[0]["unscored"] == 19


# ---------------------------------------------------------------- Judgemark


def test_judgemark_asks_one_request_per_test_set_piece_and_prints_every_version(tmp_path):
    pieces = judgemark_pieces()
    assert len(pieces) == 360 and len({k.rsplit("|", 1)[0] for k in pieces}) == 19
    # a judge that rewards length: writers are told apart, so every statistic is defined
    fake = FakeOpenAI(models=("judge-model",), responder=responder(score=lambda piece: min(10, len(piece) / 400)))
    with fake as url:
        done = cli("run", "--benchmark", "judgemark", "--judge-base-url", url, "--judge-model", "judge-model",
                   "--judge-concurrency", "16", "--out", str(tmp_path), "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert asked(fake) == {"judge-model": 360}
    prompts_sent = Counter(piece_in(e["body"]["messages"][0]["content"]) for e in fake.log)
    assert prompts_sent == Counter(pieces.values())  # each piece judged once, as the test set holds it
    (path,) = tmp_path.glob("judge-model__judgemark__*.jsonl")
    run = read_judged_run(path, "judgemark")
    from eqbench_nb.judged.summary import summarise_judgemark

    s = summarise_judgemark(run, pieces)
    # the pure module's statistics of the writer scores the run gives, printed under each version
    for version in jm.VERSIONS:
        expected = jm.statistics(s.writer_scores[version], version, anova_f=s.statistics["38a29f8"]["anova_f"])
        assert s.statistics[version]["Judgemark"] == pytest.approx(expected["Judgemark"])
        assert math.isfinite(expected["Judgemark"])
    # the ANOVA cuts every writer's items at the shortest list (Yi-34B-Chat's 18): in the test set's order, as upstream
    by_item = {r.item: r.scores for r in run.records}
    writers = list(dict.fromkeys(k.split("|")[0] for k in pieces))
    items = {w: [10 * cw.piece_score(by_item[k]) for k in pieces if k.split("|")[0] == w] for w in writers}
    assert s.statistics["38a29f8"]["anova_f"] == pytest.approx(jm.anova_f(items)[0])
    assert s.statistics["38a29f8"]["avg_ci95"] == pytest.approx(jm.average_ci_width(items))
    line = next(x for x in done.stdout.splitlines() if x.startswith("Judgemark "))
    assert line.split()[1:] == [jm.fmt(s.statistics[v]["Judgemark"]) for v in jm.VERSIONS]
    for name in ("anova_f", "avg_ci95", "overlapping_range", "self_bias", "pearson_magi", "kendall_top_8_eq_bench"):
        assert any(x.startswith(name + " ") for x in done.stdout.splitlines()), name
    assert all(w.split("/")[-1] in done.stdout for w in s.writer_scores["38a29f8"])


def test_a_judge_giving_one_constant_score_has_an_undefined_judgemark_never_a_number(tmp_path):
    fake = FakeOpenAI(models=("judge-model",), responder=responder(score=5))
    with fake as url:
        result = run_judgemark(endpoint(url, "judge-model", concurrency=16), quiet(tmp_path))
        done = cli(
            "run",
            "--benchmark",
            "judgemark",
            "--judge-base-url",
            url,
            "--judge-model",
            "judge-model",
            "--out",
            str(tmp_path),
            "--no-progress",
        )  # fmt: skip (the finished run, printed)
    assert asked(fake) == {"judge-model": 360}
    s = result.summary
    assert set(s.writer_scores["38a29f8"].values()) == {50.0}
    for version in jm.VERSIONS:
        assert math.isnan(s.statistics[version]["Judgemark"]) and math.isnan(s.statistics[version]["pearson_eq_bench"])
    line = next(x for x in done.stdout.splitlines() if x.startswith("Judgemark "))
    assert line.split()[1:] == ["undefined"] * 3
    assert (
        next(x for x in done.stdout.splitlines() if x.startswith("kendall_arena_elo ")).split()[1:] == ["undefined"] * 3
    )
    rows = json.loads(cli("score", str(tmp_path), "--format", "json").stdout)
    assert [r["Judgemark"] for r in rows] == [None, None, None]  # JSON has no NaN: null, never a number


def test_score_re_derives_every_published_judge_from_its_writer_scores():
    done = cli("score", str(ROOT / "data" / "judgemark_v1_board.csv"), "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert len(rows) == 15
    for row in rows:
        assert abs(row["38a29f8"] - row["published"]) <= 0.05, row["judge"]
        assert row["derivable"] == "13/13" and row["biases"] == "2/2"
    opus = next(r for r in rows if r["judge"] == "claude-3-opus-20240229")
    assert round(opus["d28c60c"], 2) == 73.24 and round(opus["rederived_std_dev"], 2) == 13.15
    table = cli("score", str(ROOT / "data" / "judgemark_v1_board.csv"))
    assert table.returncode == 0 and "claude-3-opus-20240229" in table.stdout and "never published" in table.stderr


# ---------------------------------------------------------------- kill and resume


@pytest.mark.parametrize("which", ["creative-writing", "judgemark"])
@pytest.mark.slow
def test_a_sigkill_loses_no_reply_and_the_resume_pays_for_none_twice(tmp_path, which):
    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=responder(short=3, unparseable=2), latency=0.05)
    with fake as url:
        judge = ["--judge-base-url", url, "--judge-model", "judge-model", "--judge-concurrency", "1"]
        subject = ["--base-url", url, "--model", "fake-model", "--concurrency", "1"]
        args = ["run", "--benchmark", which, *(subject if which == "creative-writing" else []), *judge,
                "--out", str(tmp_path), "--no-progress"]  # fmt: skip
        proc = cli_process(*args, wait=False, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        deadline = time.time() + 120
        files: list = []
        while time.time() < deadline and proc.poll() is None:
            files = list(tmp_path.glob("*.jsonl"))
            if files and files[0].read_bytes().count(b"\n") >= 13:  # the header and a dozen replies on disk
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed = read_judged_run(files[0], which)
        served_before = len(fake.log)
        assert 12 <= len(killed.records) < (38 if which == "creative-writing" else 360)
        # one job at a time on each endpoint: at most one request was in flight, its reply never arrived
        assert served_before - len(killed.records) in (0, 1)
        # the resume may go wider (concurrency is no setting of the run): what it asks is still one request per reply
        done = cli(*[("8" if a == "1" else a) for a in args])
    assert done.returncode == 0, done.stderr
    run = read_judged_run(files[0], which)
    assert [r.to_json() for r in run.records[: len(killed.records)]] == [r.to_json() for r in killed.records]
    assert len({r.key for r in run.records}) == len(run.records)
    lost = served_before - len(killed.records)
    assert len(fake.log) == len(run.records) + lost  # every paid request is in the file, but the one in flight
    expected = 19 + 3 + 2 if which == "creative-writing" else 0  # pieces: 19, 3 short, 2 rounds' new pieces
    assert sum(r.step == PIECE for r in run.records) == expected
    assert sum(r.step == JUDGE for r in run.records) == (19 if which == "creative-writing" else 360) + 2
    assert json.loads(cli("score", str(files[0]), "--format", "json").stdout)[0]["file"] == str(files[0])


# ---------------------------------------------------------------- dry runs, options, registry, viewer items


def test_dry_runs_send_nothing_and_count_the_requests():
    cw_done = cli("run", "--benchmark", "creative-writing", "--dry-run", "--model", "gpt-4o", "--judge-model",
                  "gpt-4o", "--judge-price-in", "3", "--judge-price-out", "15", "--iterations", "2")  # fmt: skip
    assert cw_done.returncode == 0, cw_done.stderr
    assert cw_done.stdout.count("requests   38 (") == 2 and "$3 in / $15 out" in cw_done.stdout
    jm_done = cli("run", "--benchmark", "judgemark", "--dry-run", "--judge-model", "gpt-4o")
    assert jm_done.returncode == 0, jm_done.stderr
    assert "requests   360 (up to 4,320" in jm_done.stdout


def test_options_that_do_not_apply_are_refused_in_one_line():
    subject = cli("run", "--benchmark", "judgemark", "--base-url", "http://127.0.0.1:9/v1", "--judge-model", "m")
    assert subject.returncode == 2 and "Judgemark has no model under test" in subject.stderr
    assert "Traceback" not in subject.stderr
    many = cli("run", "--benchmark", "judgemark", "--judge-base-url", "http://127.0.0.1:9/v1", "--iterations", "1001")
    assert many.returncode == 2 and "--iterations: must be at most 1,000" in many.stderr
    panel = cli("run", "--benchmark", "creative-writing", "--judge-model", "a", "--judge-model", "b", "--dry-run")
    assert panel.returncode == 2 and "creative-writing takes one judge, as upstream runs it, not a panel of 2" in (
        panel.stderr
    )
    price = cli("run", "--benchmark", "judgemark", "--price-in", "3", "--dry-run")
    assert price.returncode == 2 and "--price-in (use --judge-price-in) belongs to" in price.stderr
    other = cli("run", "--benchmark", "creative-writing", "--scenarios", "1")
    assert other.returncode == 2 and "--scenarios belongs to EQ-Bench 3" in other.stderr


def test_the_registry_finds_both_benchmarks_and_the_board(tmp_path):
    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=responder())
    with fake as url:
        result = run_creative_writing(endpoint(url, "fake-model"), endpoint(url, "judge-model"), quiet(tmp_path))
    assert registry.benchmark_of(result.path).name == "creative-writing"
    listed = json.loads(cli("runs", str(tmp_path), "--format", "json").stdout)
    assert [(r["model"], r["complete"], r["requests"], r["score"]) for r in listed] == [
        ("fake-model", "yes", 38, result.summary.score.upstream_score)
    ]
    assert registry.benchmark_of(ROOT / "data" / "judgemark_v1_board.csv").name == "judgemark"
    assert registry.by_name("judgemark").title == "Judgemark"


def test_viewer_items_show_the_piece_the_rounds_the_analysis_and_each_criterion(tmp_path):
    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=responder(short=1, unparseable=1, score=3))
    with fake as url:
        result = run_creative_writing(endpoint(url, "fake-model", concurrency=1),
                                      endpoint(url, "judge-model", concurrency=1), quiet(tmp_path))  # fmt: skip
    items = judged_samples(result.run, prompts()).set_index("item_id")
    assert len(items) == 19 and items.attrs["benchmark"] == "creative-writing"
    first = items.loc["1-i1"]
    assert [a["decision"] for a in first["attempts"]] == ["too short", "written", "unparsed", "written", "parsed"]
    assert first["rounds"] == 2 and first["kept_attempt"] == 5 and first["decision"] == "scored"
    messages = first["messages"]
    assert messages[0]["content"] == cw.writing_prompt(prompts()["1"], 1) and len(messages) == 3  # two judge prompts
    assert [messages[a["asked"]]["content"].startswith(WRITER_HEAD) for a in first["attempts"]] == [
        True, True, False, True, False
    ]  # fmt: skip
    assert first["text"] == piece_in(messages[2]["content"])
    assert first["analysis"] == "[Analysis]\n\nThe piece holds together."
    criteria = {c["criterion"]: c for c in first["criteria"]}
    assert set(criteria) == set(cw.judge_criteria(prompts()["1"]))
    assert all(c["points"] == (7.0 if c["lower_is_better"] else 3.0) for c in criteria.values())
    assert first["piece_score"] == pytest.approx(10 * cw.piece_score({k: 3.0 for k in criteria}))


def test_judgemark_items_are_writer_by_prompt(tmp_path):
    fake = FakeOpenAI(models=("judge-model",), responder=responder(score=6))
    with fake as url:
        result = run_judgemark(endpoint(url, "judge-model", concurrency=16), quiet(tmp_path))
    assert isinstance(result.run, JudgedRun)
    items = judged_samples(result.run, prompts(), judgemark_pieces())
    assert len(items) == 360 and items.attrs["group_label"] == "writer"
    row = items.set_index("item_id").loc["gpt-4-0125-preview|1-i1"]
    assert row["text"] == judgemark_pieces()["gpt-4-0125-preview|1"] and row["writer"] == "gpt-4-0125-preview"
    assert [e["endpoint"] for e in row["endpoints"]] == ["judge"] and row["n_attempts"] == 1


def test_a_judge_that_rejects_its_first_request_stops_the_run_keeping_the_piece(tmp_path):
    writer = FakeOpenAI(models=("fake-model",), responder=responder())
    judge = FakeOpenAI(models=("judge-model",), faults={"400": 1.0})
    with writer as w_url, judge as j_url:
        args = ["run", "--benchmark", "creative-writing", "--base-url", w_url, "--model", "fake-model",
                "--concurrency", "1", "--judge-base-url", j_url, "--judge-model", "judge-model", "--out",
                str(tmp_path), "--no-progress"]  # fmt: skip
        done = cli(*args)
    assert done.returncode == 2 and "the judge rejected its first request" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and len(judge.log) == 1 and len(writer.log) == 1
    (path,) = tmp_path.glob("*.jsonl")
    assert [r.step for r in read_judged_run(path, "creative-writing").records] == [PIECE]  # paid for, kept


def test_a_file_planning_more_than_a_reader_can_lay_out_is_refused_in_one_line(tmp_path):
    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=responder())
    with fake as url:
        result = run_creative_writing(endpoint(url, "fake-model"), endpoint(url, "judge-model"), quiet(tmp_path))
    lines = result.path.read_text().split("\n")
    for field, value in (("iterations", 10**9), ("iterations", "2"), ("items", ["1"] * 10**5), ("items", [1])):
        bad = tmp_path / f"bad-{field}-{len(str(value))}.jsonl"
        header = json.loads(lines[0]) | {field: value}
        bad.write_text("\n".join([json.dumps(header), *lines[1:]]))
        done = cli("score", str(bad))
        assert done.returncode == 2 and f"the header's {field}" in done.stderr and "Traceback" not in done.stderr


def test_each_reply_is_on_disk_before_the_next_request_is_sent(tmp_path, monkeypatch):
    """The write-ahead rule: a slow disk (every write 50 ms late) holds the next request of a job until the reply
    before it is in the file, so a kill between them cannot lose a paid reply."""
    import eqbench_nb.runner.runfile as runfile

    slow_write = runfile._write_all

    def late(fd, data):
        time.sleep(0.05)
        slow_write(fd, data)

    monkeypatch.setattr(runfile, "_write_all", late)
    path = tmp_path / "fake-model__creative-writing__d28c60c-x1.jsonl"
    seen: list[tuple[int, int]] = []  # (requests answered before this one, records on disk when it arrived)
    inner = responder(short=2, unparseable=1)

    def respond(prompt, temperature):
        on_disk = path.read_text().count("\n") - 1 if path.exists() else 0
        seen.append((len(seen), on_disk))
        return inner(prompt, temperature)

    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=respond)
    with fake as url:
        result = run_creative_writing(endpoint(url, "fake-model", concurrency=1),
                                      endpoint(url, "judge-model", concurrency=1), quiet(tmp_path))  # fmt: skip
    assert result.complete and len(seen) == 19 * 2 + 2 + 1 + 1
    assert [answered for answered, _ in seen] == [on_disk for _, on_disk in seen]
