"""Judge panels for EQ-Bench 3: several judges on ``run`` (rubric) and ``leaderboard --judge`` (pairwise), over
loopback fakes (real HTTP, the real openai client), every request counted: a judge that joins a finished run asks
only what it lacks and the model under test nothing; the options in step and the ``--judges`` file checked before
anything is asked; files written before panels read and grow; ``score --by-judge``; and end to end, two judges that
differ on purpose, each one's bias named with its number by the diagnostics."""

from __future__ import annotations

import csv
import io
import json
import shutil
import statistics
from collections import Counter
from pathlib import Path

import pytest
from cli_helper import cli
from conftest import KEY, ROOT, needs_data
from fake_eqbench3 import responder
from fake_openai_server import FakeOpenAI
from real_browser import needs_chromium

from eqbench_nb.analysis import judges as diagnostics
from eqbench_nb.eqbench3 import panel
from eqbench_nb.eqbench3.judges import answer_lengths, judgements_table
from eqbench_nb.eqbench3.runs import read_eq3_run, read_pairwise
from eqbench_nb.eqbench3.summary import by_judge, summarise_run
from eqbench_nb.eqbench3.task import run_eqbench3
from eqbench_nb.eqbench3.versions import scoring_version
from eqbench_nb.runner import RetryPolicy
from eqbench_nb.runner.errors import RunnerError
from eqbench_nb.runner.settings import Endpoint, RunSettings

pytestmark = [needs_data, pytest.mark.usefixtures("key")]
FAST = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
BEFORE_PANELS = ROOT / "tests" / "fixtures" / "eqbench3_before_panels"
SCENARIOS = "1,401"  # a role-play (three turns and a debrief) and an analysis task


def _ep(url: str, model: str, **kw) -> Endpoint:
    return Endpoint(base_url=url, model=model, retry=FAST, timeout_s=10, **kw)


def _settings(out: Path) -> RunSettings:
    return RunSettings(out_dir=out, progress=False)


# ---------------------------------------------------------------- options


def test_judge_options_go_in_step_or_once_for_all():
    rows = panel.in_step({"model": ["a", "b"], "base_url": ["http://x/v1"], "max_tokens": None})
    assert rows == [
        {"model": "a", "base_url": "http://x/v1", "max_tokens": None},
        {"model": "b", "base_url": "http://x/v1", "max_tokens": None},
    ]
    with pytest.raises(ValueError, match="3 judges, but --judge-base-url 2 times"):
        panel.in_step({"model": ["a", "b", "c"], "base_url": ["http://x/v1", "http://y/v1"]})


def test_a_count_mismatch_is_refused_in_one_line_before_anything_is_asked(tmp_path):
    fake = FakeOpenAI(models=("fake-model", "a", "b", "c"), responder=responder())
    with fake as url:
        done = cli("run", "--benchmark", "eqbench3", "--base-url", url, "--model", "fake-model", "--scenarios", "401",
                   "--judge-model", "a", "--judge-model", "b", "--judge-model", "c", "--judge-base-url", url,
                   "--judge-base-url", url, "--out", str(tmp_path), "--no-progress")  # fmt: skip
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "--judge-base-url 2 times" in done.stderr
    assert fake.log == [] and not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ({"model": "j", "price_in": -1}, "price_in"),
        ({"model": "j", "timeout_s": 0}, "timeout_s"),
        ({"model": "j", "concurrency": 1.5}, "concurrency"),
        ({"model": "j", "base_url": "file:///etc/passwd"}, "base_url"),
        ({"model": "j", "api_key_env": "sk-live-0123456789"}, "api_key_env"),
        ({"model": "j", "api_key": "sk-live-0123456789"}, "never written in a file"),
        ({"model": "j", "max_tokens": True}, "max_tokens"),
        ({"model": "j", "reasoning_effort": "extreme"}, "reasoning_effort"),
        ({"model": "j", "colour": "red"}, "unknown field"),
        ({"model": "j\u202e", "id": "x"}, "model"),
    ],
)
def test_every_field_of_a_judges_file_is_checked_before_anything_is_asked(tmp_path, entry, says):
    path = tmp_path / "judges.json"
    path.write_text(json.dumps({"judges": [{"model": "ok", "base_url": "http://127.0.0.1:9/v1"}, entry]}))
    fake = FakeOpenAI(models=("fake-model",), responder=responder())
    with fake as url:
        done = cli("run", "--benchmark", "eqbench3", "--base-url", url, "--model", "fake-model", "--scenarios", "401",
                   "--judges", str(path), "--out", str(tmp_path / "out"), "--no-progress")  # fmt: skip
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert says in done.stderr and "judge 2" in done.stderr
    assert "sk-live-0123456789" not in done.stderr
    assert fake.log == [] and not (tmp_path / "out").exists()


def test_a_judges_file_may_not_name_the_same_judge_twice_nor_come_with_judge_options(tmp_path):
    path = tmp_path / "judges.json"
    path.write_text(json.dumps([{"model": "j", "base_url": "http://a/v1"}, {"model": "j", "base_url": "http://b/v1"}]))
    with pytest.raises(RunnerError, match="named twice"):
        panel.read_judges_file(path)
    path.write_text(json.dumps([{"model": "j", "id": "j-a"}, {"model": "j", "id": "j-b"}]))
    assert [s.id for s in panel.read_judges_file(path)] == ["j-a", "j-b"]
    done = cli("run", "--benchmark", "eqbench3", "--judges", str(path), "--judge-model", "k", "--dry-run")
    assert done.returncode == 2 and "drop --judge-model" in done.stderr


# ---------------------------------------------------------------- rubric judgements


def test_a_judge_joining_a_finished_run_judges_only_what_it_lacks(tmp_path):
    subject = FakeOpenAI(models=("fake-model",), responder=responder())
    fakes = {name: FakeOpenAI(models=(name,), responder=responder(rubric_score=s))
             for name, s in (("judge-a", 15), ("judge-b", 10), ("judge-c", 5))}  # fmt: skip
    with subject as s_url, fakes["judge-a"] as a, fakes["judge-b"] as b, fakes["judge-c"] as c:
        first = run_eqbench3(_ep(s_url, "fake-model"), _ep(a, "judge-a"), _settings(tmp_path), scenarios=SCENARIOS)
        asked = len(subject.log)
        second = run_eqbench3(_ep(s_url, "fake-model"), [_ep(a, "judge-a"), _ep(b, "judge-b")], _settings(tmp_path),
                              scenarios=SCENARIOS)  # fmt: skip
        after_two = {name: len(f.log) for name, f in fakes.items()}
        done = cli("run", "--benchmark", "eqbench3", "--base-url", s_url, "--model", "fake-model", "--scenarios",
                   SCENARIOS, "--judge-model", "judge-a", "--judge-base-url", a, "--judge-model", "judge-b",
                   "--judge-base-url", b, "--judge-model", "judge-c", "--judge-base-url", c, "--judge-api-key-env",
                   "JUDGE_KEY", "--out", str(tmp_path), "--no-progress", env={"JUDGE_KEY": KEY})  # fmt: skip
    assert first.complete and second.complete and done.returncode == 0, done.stderr
    assert len(subject.log) == asked  # the model under test is never asked again
    assert after_two == {"judge-a": 2, "judge-b": 2, "judge-c": 0}  # one judgement per task, none repeated
    assert [len(f.log) for f in fakes.values()] == [2, 2, 2]
    assert "judge judge-c: 25.00" in done.stdout and "panel: 50.00" in done.stdout  # each judge and the panel
    run = read_eq3_run(second.path)
    assert run.judges == ["judge-a", "judge-b", "judge-c"]
    assert [e["api_key_env"] for e in run.panel] == ["OPENAI_API_KEY", "OPENAI_API_KEY", "JUDGE_KEY"]
    assert KEY not in second.path.read_text()
    judged = Counter(r.judge for r in run.records if r.step == "rubric")
    assert judged == {"judge-a": 2, "judge-b": 2, "judge-c": 2}
    rows = {r["judge"]: r for r in by_judge(run)}
    assert list(rows) == ["judge-a", "judge-b", "judge-c", "panel"]
    assert [rows[j]["rubric"] for j in run.judges] == [75.0, 50.0, 25.0]  # 15, 10, 5 on 0-20, times 5
    assert rows["panel"]["rubric"] == statistics.mean(rows[j]["rubric"] for j in run.judges)
    assert summarise_run(run).score == rows["panel"]["rubric"]
    out = cli("score", str(second.path), "--by-judge", "--format", "csv")
    assert out.returncode == 0, out.stderr
    table = list(csv.DictReader(io.StringIO(out.stdout)))
    assert list(table[0]) == ["judge", "rubric", "low", "high", "tasks", "out_of_range", "left_out"]  # issue 43
    assert [(r["judge"], float(r["rubric"]), r["tasks"]) for r in table] == [(j, rows[j]["rubric"], "2") for j in rows]


def test_a_command_naming_only_a_new_judge_adds_it_and_keeps_the_panel(tmp_path):
    subject = FakeOpenAI(models=("fake-model",), responder=responder())
    first, later = (
        FakeOpenAI(models=(m,), responder=responder(rubric_score=s)) for m, s in (("judge-a", 15), ("judge-d", 20))
    )
    with subject as s_url, first as a, later as d:
        run_eqbench3(_ep(s_url, "fake-model"), _ep(a, "judge-a"), _settings(tmp_path), scenarios=SCENARIOS)
        asked = len(subject.log), len(first.log)
        grown = run_eqbench3(_ep(s_url, "fake-model"), _ep(d, "judge-d", max_tokens=300), _settings(tmp_path),
                             scenarios=SCENARIOS)  # fmt: skip
    assert (len(subject.log), len(first.log), len(later.log)) == (*asked, 2)
    run = grown.run
    assert run.judges == ["judge-a", "judge-d"] and [e["max_tokens"] for e in run.panel] == [8000, 300]
    assert run.header["judge_model"] == "judge-a" and run.header["sampling"]["judge_max_tokens"] == 8000
    assert all(e["body"].get("max_tokens", e["body"].get("max_completion_tokens")) == 300 for e in later.log)
    assert grown.complete and [r["rubric"] for r in by_judge(run)] == [75.0, 100.0, 87.5]


def test_the_panel_score_of_a_task_is_the_mean_of_its_judges_scores():
    per_task = {(1, "1"): {"a": 16.0, "b": 12.0}, (1, "401"): {"a": 14.0}}
    from eqbench_nb.eqbench3.summary import panel_task_scores

    assert panel_task_scores(per_task) == {(1, "1"): statistics.mean([16.0, 12.0]), (1, "401"): 14.0}


def test_an_id_already_in_the_panel_with_another_model_is_refused():
    old = [{"id": "j", "model": "m1", "max_tokens": 8000}]
    with pytest.raises(RunnerError, match="another id"):
        panel.merge_panel(old, [{"id": "j", "model": "m2", "max_tokens": 8000}])
    assert panel.merge_panel(old, [{"id": "j", "model": "m1", "max_tokens": 8000}]) == old


# ---------------------------------------------------------------- files written before panels


def test_files_written_before_panels_read_as_one_judge_and_grow(tmp_path):
    for f in BEFORE_PANELS.glob("*.jsonl"):
        shutil.copy(f, tmp_path / f.name)
    alpha = tmp_path / "alpha-model__eqbench3__3c21bcc-x1-2sc.jsonl"
    old = read_eq3_run(alpha)
    assert "judges" not in old.header and old.judges == ["judge-model"]
    assert summarise_run(old).score == 75.0 and [r["judge"] for r in by_judge(old)] == ["judge-model", "panel"]
    judged = read_pairwise(tmp_path / "eqbench3-judgements.jsonl")
    assert judged.judges == ["judge-model"] and len(judged.records) == 4 and not judged.warnings
    subject = FakeOpenAI(models=("alpha-model",), responder=responder(tag="alpha"))
    legacy, new = (FakeOpenAI(models=(m,), responder=responder(rubric_score=10)) for m in ("judge-model", "judge-b"))
    with subject as s_url, legacy as a, new as b:
        grown = run_eqbench3(_ep(s_url, "alpha-model"), [_ep(a, "judge-model"), _ep(b, "judge-b")],
                             _settings(tmp_path), scenarios=SCENARIOS)  # fmt: skip
        board = cli("leaderboard", str(tmp_path), "--judge", "--judge-model", "judge-model", "--judge-base-url", a,
                    "--judge-model", "judge-b", "--judge-base-url", b)  # fmt: skip
    assert grown.path == alpha and grown.complete
    assert (len(subject.log), len(legacy.log)) == (0, 0)
    assert Counter(e["body"]["model"] for e in new.log) == {"judge-b": 2 + 4}  # two rubrics, the file's 4 judgements
    assert board.returncode == 0, board.stderr
    run = read_eq3_run(alpha)
    assert run.judges == ["judge-model", "judge-b"] and run.header["judge_model"] == "judge-model"
    assert [r["rubric"] for r in by_judge(run)] == [75.0, 50.0, 62.5]
    judged = read_pairwise(tmp_path / "eqbench3-judgements.jsonl")
    assert Counter(r.judge for r in judged.records) == {"judge-model": 4, "judge-b": 4}
    assert judged.header["judge"] == "judge-model" and [e["id"] for e in judged.panel] == ["judge-model", "judge-b"]


# ---------------------------------------------------------------- end to end


def _block(text: str, name: str) -> str:
    return text.split(f"RESPONDENT {name}", 1)[-1].split(f"[/RESPONDENT {name}", 1)[0]


def _longer(a: str, b: str) -> str:
    """The length judge: the respondent whose transcript is longer (the prompt split at its first A0488)."""
    return "A0493" if len(_block(a, "A0493")) > len(_block("RESPONDENT A0488" + b, "A0488")) else "A0488"


def test_a_panel_of_two_biased_judges_is_diagnosed_and_a_third_judge_sends_judge_requests_only(tmp_path):
    tags = {"terse-model": "t", "middle-model": "m" * 200, "verbose-model": "v" * 600}
    subjects = {m: FakeOpenAI(models=(m,), responder=responder(tag=t)) for m, t in tags.items()}
    rubric = FakeOpenAI(models=("rubric-judge",), responder=responder(rubric_score=14))
    first = FakeOpenAI(models=("first-judge",), responder=responder())  # always A0493: the first position
    longer = FakeOpenAI(models=("longer-judge",), responder=responder(pairwise_winner=_longer))
    third = FakeOpenAI(models=("third-judge",), responder=responder(rubric_score=12))
    servers = [*subjects.values(), rubric, first, longer, third]
    urls = [f.start() for f in servers]
    try:
        s_url = dict(zip(subjects, urls))
        r_url, f_url, l_url, t_url = urls[-4:]
        for model in tags:
            run_eqbench3(_ep(s_url[model], model), _ep(r_url, "rubric-judge"), _settings(tmp_path),
                         scenarios=SCENARIOS)  # fmt: skip
        board = cli("leaderboard", str(tmp_path), "--judge", "--judge-model", "first-judge", "--judge-base-url",
                    f_url, "--judge-model", "longer-judge", "--judge-base-url", l_url, "--format", "csv")  # fmt: skip
        before = {id(f): len(f.log) for f in servers}
        # the third judge joins: each run's rubric judgements, then the pairwise judgements the panel made
        for model in tags:
            run_eqbench3(_ep(s_url[model], model), [_ep(r_url, "rubric-judge"), _ep(t_url, "third-judge")],
                         _settings(tmp_path), scenarios=SCENARIOS)  # fmt: skip
        again = cli("leaderboard", str(tmp_path), "--judge", "--judge-model", "first-judge", "--judge-base-url", f_url,
                    "--judge-model", "longer-judge", "--judge-base-url", l_url, "--judge-model", "third-judge",
                    "--judge-base-url", t_url)  # fmt: skip
    finally:
        for f in servers:
            f.stop()
    assert board.returncode == 0 and again.returncode == 0, board.stderr + again.stderr
    standings = list(csv.DictReader(io.StringIO(board.stdout)))
    assert {r["judge"] for r in standings} == {"first-judge", "longer-judge", "panel"}
    judged = read_pairwise(tmp_path / "eqbench3-judgements.jsonl")
    made = Counter(r.judge for r in judged.records)
    assert made["first-judge"] == made["longer-judge"] == made["third-judge"] > 0
    # adding the third judge sent judge requests only: none to a model under test, none to the first two judges
    grew = {name: len(f.log) - before[id(f)] for name, f in zip([*tags, "rubric", "first", "longer", "third"], servers)}
    assert grew == dict.fromkeys([*tags, "rubric", "first", "longer"], 0) | {"third": 3 * 2 + made["third-judge"]}
    # the diagnostics name each judge's bias with its number
    runs = [read_eq3_run(p) for p in sorted(tmp_path.glob("*__eqbench3__*.jsonl"))]
    lengths = {run.model: answer_lengths(run) for run in runs}
    table = judgements_table(judged, scoring_version(judged.header["scoring_version"]), lengths)
    table = table[table["judge"] != "third-judge"]
    position = diagnostics.position_consistency(table).set_index("judge")
    length = diagnostics.length_bias_pairwise(table).set_index("judge")
    assert position.loc["first-judge", "first_wins"] == 1.0 and position.loc["first-judge", "flip_share"] == 1.0
    assert length.loc["longer-judge", "longer_wins"] == 1.0 and position.loc["longer-judge", "flip_share"] == 0.0
    assert position.loc["longer-judge", "first_wins"] == 0.5  # each pair in both orders: the seat does not decide
    report = diagnostics.bias_report(position=position.reset_index(), length=length.reset_index())
    said = {(r["judge"], r["bias"]): r["sentence"] for r in report.to_dict("records")}
    decided = int(position.loc["first-judge", "decided"])
    assert f"the first position won 100.0% of {decided} decided judgements" in said[("first-judge", "position")]
    assert "the longer answer won 100.0%" in said[("longer-judge", "length")]
    assert "prefers" in said[("first-judge", "position")] and "prefers" in said[("longer-judge", "length")]


# ---------------------------------------------------------------- the viewer

HOSTILE_JUDGE = "<img src=x onerror=\"window.__pwned='judge'\">"
HOSTILE_TEXT = '</script><script>window.__pwned = "reply"</script> <b onmouseover="window.__pwned=1">bold</b>'


def _hostile_judge(prompt: str, temperature: float) -> str:
    """A judge that scores 10 with script in its reasoning."""
    verdict = json.loads(responder(rubric_score=10)(prompt, temperature))
    return json.dumps({**verdict, "chain_of_thought_reasoning": HOSTILE_TEXT})


@needs_chromium
def test_the_viewer_shows_each_judges_verdict_side_by_side_and_runs_nothing_a_judge_wrote(tmp_path):
    from real_browser import chromium

    from eqbench_nb.viewer.samples import samples

    subject = FakeOpenAI(models=("fake-model",), responder=responder())
    fair = FakeOpenAI(models=("judge-a",), responder=responder(rubric_score=15))
    hostile = FakeOpenAI(models=(HOSTILE_JUDGE,), responder=_hostile_judge)
    with subject as s_url, fair as a, hostile as b:
        done = run_eqbench3(_ep(s_url, "fake-model"), [_ep(a, "judge-a"), _ep(b, HOSTILE_JUDGE)], _settings(tmp_path),
                            scenarios=SCENARIOS)  # fmt: skip
    items = samples(done.path).set_index("item_id")
    verdicts = items.loc["1-i1", "verdicts"]
    assert [list(r)[:4] for r in verdicts[:1]] == [["measure", "judge-a", HOSTILE_JUDGE, "panel"]]
    assert [verdicts[0][k] for k in ("judge-a", HOSTILE_JUDGE, "panel")] == [75.0, 50.0, 62.5]
    page = tmp_path / "panel.html"
    shown = cli("view", str(done.path), "--out", str(page))
    assert shown.returncode == 0, shown.stderr
    browser = chromium(console_log=True)
    try:
        browser.get(page.as_uri())
        header = browser.execute_script("return document.querySelector('header').textContent")
        assert "judges (a panel)" in header and HOSTILE_JUDGE in header and "rubric (0-100), judge judge-a" in header
        browser.execute_script("document.querySelector(`tr[data-item-id='1-i1']`).click()")
        table = browser.execute_script(
            "const t = [...document.querySelectorAll('.eqv-detail table')].find(t => t.caption.textContent === "
            "'verdicts'); return [[...t.querySelectorAll('th')].map(c => c.textContent), "
            "[...t.querySelectorAll('tbody tr')].map(r => [...r.children].map(c => c.textContent))]"
        )
        heads, rows = table
        # the judges' names head the columns literally (the viewer shows a field's underscores as spaces)
        assert heads[:4] == ["measure", "judge-a", HOSTILE_JUDGE.replace("_", " "), "panel"]
        assert rows[0][0] == "rubric (0-100)" and rows[1][1:3] == ["scored", "scored"]
        steps = browser.execute_script(
            "return [...document.querySelectorAll('.eqv-detail .eqv-step')].map(e => e.textContent)"
        )
        assert steps[-2:] == ["rubric (judge judge-a)", f"rubric (judge {HOSTILE_JUDGE})"]
        detail = browser.execute_script("return document.querySelector('.eqv-detail').textContent")
        assert json.dumps(HOSTILE_TEXT)[1:-1] in detail  # the judge's reply (its JSON) shown literally
        assert browser.execute_script("return window.__pwned") is None
        assert browser.execute_script("return document.querySelectorAll('.eqv-detail img, .eqv-detail b').length") == 0
        assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
    finally:
        browser.quit()
    assert KEY not in page.read_text()


def test_each_panel_judges_key_variable_is_in_the_one_redaction_set(tmp_path, monkeypatch):
    from eqbench_nb.runner.redact import key_values, key_variables

    header = {"judge_api_key_env": "FIRST_KEY", "judges": [{"id": "a", "api_key_env": "FIRST_KEY"},
                                                           {"id": "b", "api_key_env": "SECOND_JUDGE_KEY"}]}  # fmt: skip
    assert {"FIRST_KEY", "SECOND_JUDGE_KEY"} <= set(key_variables(header))
    monkeypatch.setenv("SECOND_JUDGE_KEY", "sk-second-judge-0123456789")
    assert "sk-second-judge-0123456789" in key_values(header)
