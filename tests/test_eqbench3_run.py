"""EQ-Bench 3 through the runner and the command line: the model under test and the judge on loopback fakes (real
HTTP, the real openai client), a SIGKILL mid-conversation, the dry run, ``score`` on a run and on upstream's canonical
file, ``leaderboard --judge``, the registry; and the bundled model playing both roles."""

from __future__ import annotations

import csv
import io
import json
import signal
import subprocess
import time
import zlib
from collections import Counter
from pathlib import Path

import pytest
from cli_helper import cli, cli_process
from conftest import DATA, KEY, needs_data, needs_local_model
from fake_eqbench3 import responder
from fake_openai_server import FakeOpenAI

from eqbench_nb import registry
from eqbench_nb.eqbench3 import prompts, scenarios
from eqbench_nb.eqbench3.runs import read_eq3_run, read_pairwise
from eqbench_nb.eqbench3.task import run_eqbench3
from eqbench_nb.runner import RetryPolicy
from eqbench_nb.runner.settings import Endpoint, RunSettings
from eqbench_nb.viewer.payload import viewer_payload

pytestmark = [needs_data, pytest.mark.usefixtures("key")]
FAST = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
CANONICAL = DATA / "eqbench3" / "canonical_leaderboard_elo_results_8c3a125.json.gz"


def endpoints(subject_url: str, judge_url: str, **judge_kw):
    subject = Endpoint(base_url=subject_url, model="fake-model", retry=FAST, timeout_s=10)
    judge = Endpoint(base_url=judge_url, model="judge-model", retry=FAST, timeout_s=10, **judge_kw)
    return subject, judge


def test_the_full_set_through_the_runner_asks_what_upstream_asks_and_scores_75(tmp_path):
    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=responder(rubric_score=15))
    with fake as url:
        subject, judge = endpoints(url, url, concurrency=4)
        result = run_eqbench3(subject, judge, RunSettings(out_dir=tmp_path, progress=False))
        again = run_eqbench3(*endpoints(url, url), RunSettings(out_dir=tmp_path, progress=False))
    asked = Counter(e["body"]["model"] for e in fake.log)
    assert asked == {"fake-model": 92 + 26, "judge-model": 45}
    assert result.complete and result.summary.score == 75.0
    assert (result.stats.requests, result.judge_stats.requests) == (118, 45)
    header = result.run.header
    assert header["judge_model"] == "judge-model" and header["scoring_version"] == "3c21bcc"
    assert header["sampling"]["min_p"] == 0.1 and len(header["scenarios"]) == 45
    assert all(json.dumps(r.to_json()).count(KEY) == 0 for r in result.run.records)
    assert again.answered_now == 0 and again.complete  # a finished run resumes to nothing


def test_the_judge_is_its_own_endpoint_with_its_own_deviations(tmp_path):
    subject_fake = FakeOpenAI(models=("fake-model",), responder=responder())
    judge_fake = FakeOpenAI(models=("judge-model",), responder=responder(), reasoning="o-series", reasoning_tokens=5)
    with subject_fake as s_url, judge_fake as j_url:
        result = run_eqbench3(*endpoints(s_url, j_url), RunSettings(out_dir=tmp_path, progress=False), scenarios="401")
    header = result.run.header
    assert "max_completion_tokens" in header["judge_deviations"] and not header.get("deviations")
    assert all(e["body"]["model"] == "judge-model" for e in judge_fake.log)
    assert result.summary.score == 75.0


@pytest.mark.slow
def test_a_kill_mid_conversation_resumes_without_asking_a_finished_turn_again(tmp_path):
    scenario = next(s for s in scenarios.load_scenarios() if s.id == "301")  # four turns and a debrief
    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=responder(), latency=0.3)
    with fake as url:
        args = ["run", "--benchmark", "eqbench3", "--base-url", url, "--model", "fake-model", "--judge-base-url",
                url, "--judge-model", "judge-model", "--scenarios", "301", "--out", str(tmp_path),
                "--no-progress"]  # fmt: skip
        proc = cli_process(*args, wait=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        files = []
        while time.time() < deadline and proc.poll() is None:
            files = list(tmp_path.glob("*.jsonl"))
            if files and files[0].read_bytes().count(b"\n") >= 3:  # the header and two turns on disk
                break
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed = read_eq3_run(files[0])
        assert [r.step for r in killed.records] in (["turn-1", "turn-2"], ["turn-1", "turn-2", "turn-3"])
        done = cli(*args)
    assert done.returncode == 0, done.stderr
    run = read_eq3_run(files[0])
    assert [r.step for r in run.records] == ["turn-1", "turn-2", "turn-3", "turn-4", "debrief", "rubric"]
    assert [r.text for r in run.records[: len(killed.records)]] == [r.text for r in killed.records]
    last_user = [e["body"]["messages"][-1]["content"] for e in fake.log]
    templates = prompts.load_templates()
    for turn in range(len(killed.records)):  # a finished turn is never asked again
        assert last_user.count(prompts.turn_prompt(scenario, turn, templates)) == 1


def test_dry_run_prices_both_endpoints_and_sends_nothing(tmp_path):
    done = cli("run", "--benchmark", "eqbench3", "--dry-run", "--model", "gpt-4o", "--price-in", "2.5",
               "--price-out", "10", "--judge-model", "gpt-4o", "--judge-price-in", "3", "--judge-price-out", "15",
               "--iterations", "2")  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "requests   236" in out and "requests   90" in out  # 2 x (92 turns + 26 debriefs); 2 x 45 rubrics
    assert "$2.5 in / $10 out" in out and "$3 in / $15 out" in out
    assert out.index("model under test") < out.index("judge (rubric")


def test_options_of_the_other_benchmark_are_refused_in_one_line():
    mixed = cli("run", "--benchmark", "eqbench3", "--set", "v1")
    assert mixed.returncode == 2 and "--set belongs to EQ-Bench" in mixed.stderr and "Traceback" not in mixed.stderr
    judge = cli("run", "--judge-model", "x")
    assert judge.returncode == 2 and "--judge-model belongs to EQ-Bench 3" in judge.stderr
    batch = cli("run", "--benchmark", "eqbench3", "--batch", "--dry-run")
    assert batch.returncode == 2 and "--batch" in batch.stderr


def test_score_on_the_canonical_file_prints_the_per_model_table_and_csv():
    table = cli("score", str(CANONICAL))
    assert table.returncode == 0, table.stderr
    assert table.stdout.splitlines()[0].split() == [
        "model", "comparisons", "elo", "elo_norm", "ci_low", "ci_high", "published_elo_norm"
    ]  # fmt: skip
    assert "6,362 of 6,362 non-error judgements re-derived as stored" in table.stderr
    rows = list(csv.DictReader(io.StringIO(cli("score", str(CANONICAL), "--format", "csv").stdout)))
    # the CSV is score's one table over every benchmark: the canonical columns first, then the row's kind and file
    assert len(rows) == 27 and list(rows[0])[:7] == ["model", "comparisons", "elo", "elo_norm", "ci_low", "ci_high",
                                                     "published_elo_norm"]  # fmt: skip
    assert {(r["kind"], r["file"]) for r in rows} == {("canonical", str(CANONICAL))}
    anchors = {r["model"]: float(r["elo_norm"]) for r in rows}
    assert anchors["o3"] == 1500.0 and anchors["meta-llama/llama-3.2-1b-instruct"] == 200.0


def test_the_registry_finds_eqbench3_files(tmp_path):
    assert registry.benchmark_of(CANONICAL).name == "eqbench3"
    plain = tmp_path / "elo.json"
    plain.write_text('{"__metadata__": {"global_pairwise_comparisons": []}}')
    assert registry.benchmark_of(plain).name == "eqbench3"
    config = tmp_path / "config.json"  # a folder's other JSON is passed over, not claimed
    config.write_text('{"metadata": {"__metadata__": 1}}')
    assert registry.recognised(plain) and not registry.recognised(config)
    assert registry.benchmark_of(DATA / "eqbench" / "results" / "eq-bench" / next(
        p.name for p in (DATA / "eqbench" / "results" / "eq-bench").glob("*.json"))).name == "eqbench"  # fmt: skip


def _run(tmp_path: Path, tag: str, model: str, judge_url: str, ids: str) -> None:
    with FakeOpenAI(models=(model,), responder=responder(tag=tag)) as url:
        subject = Endpoint(base_url=url, model=model, retry=FAST, timeout_s=10)
        judge = Endpoint(base_url=judge_url, model="judge-model", retry=FAST, timeout_s=10)
        assert run_eqbench3(subject, judge, RunSettings(out_dir=tmp_path, progress=False), scenarios=ids).complete


def _strong_wins(a: str, b: str) -> str:
    second = b.split("[/RESPONDENT A0488")[0]
    return "A0488" if "STRONG" in second else "A0493"


def test_leaderboard_judge_asks_each_missing_judgement_once_and_ranks_the_runs(tmp_path):
    judge = FakeOpenAI(models=("judge-model",), responder=responder(pairwise_winner=_strong_wins))
    with judge as j_url:
        for tag, model in (("STRONG", "strong-model"), ("weak", "weak-model"), ("plain", "plain-model")):
            _run(tmp_path, tag, model, j_url, "1,2,208,401,404")
        rubric_calls = len(judge.log)
        board = cli("leaderboard", str(tmp_path), "--judge", "--judge-base-url", j_url, "--judge-model",
                    "judge-model", "--format", "csv")  # fmt: skip
        asked = len(judge.log) - rubric_calls
        again = cli("leaderboard", str(tmp_path), "--judge", "--judge-base-url", j_url, "--judge-model",
                    "judge-model")  # fmt: skip
        assert len(judge.log) - rubric_calls == asked  # stored judgements are never asked again
    assert board.returncode == 0, board.stderr
    rows = list(csv.DictReader(io.StringIO(board.stdout)))
    assert rows[0]["model"] == "strong-model"
    assert all(r["elo_norm"] == "" for r in rows)  # no anchors in this field: raw ratings
    judged = read_pairwise(tmp_path / "eqbench3-judgements.jsonl")
    keys = [r.key for r in judged.records]
    assert len(keys) == len(set(keys)) == asked == 3 * 5 * 2  # three pairs, five scenarios, both orders
    assert all(r.attempts[0]["text"] and r.verdict for r in judged.records)  # the judge's raw text kept
    assert again.returncode == 0 and "0 judgements asked now" in again.stderr
    # five scenarios: below the house's small-n rule, no interval (empty in CSV, no column in the terminal), and why
    assert all(r["ci_low"] == r["ci_high"] == r["reps"] == "" for r in rows) and "sigma" in again.stdout
    assert "ci_low" not in again.stdout and "mu ± 1.96 sigma" not in again.stderr
    reason = "ci_low-ci_high: no interval: 5 scenarios, below 30: a percentile bootstrap over fewer than 30"
    assert reason in again.stderr


@needs_data
@needs_local_model
@pytest.mark.slow
def test_the_bundled_model_plays_both_roles_offline_and_the_viewer_names_it_in_both(tmp_path):
    # scenario 13: one turn, the shortest transcript (its rubric prompt fits the bundled model's 2,048-token context);
    # a key in the environment, which the bundled model never uses; the bundled model: a process of its own
    done = cli_process("run", "--benchmark", "eqbench3", "--scenarios", "13", "--max-tokens", "16",
                       "--judge-max-tokens", "16", "--out", str(tmp_path), "--no-progress", env={"OPENAI_API_KEY": KEY},
                       timeout=600)  # fmt: skip
    assert done.returncode in (0, 3), done.stderr
    (path,) = tmp_path.glob("*.jsonl")
    run = read_eq3_run(path)
    assert run.model == run.judge == "SmolLM2-135M-Instruct"
    assert [r.step for r in run.records] == ["turn-1", "debrief", "rubric"]
    assert run.records[2].scores is not None or "did not parse" in (run.records[2].error or "")
    assert len(run.records[2].attempts) >= 1 and run.records[2].judge == "SmolLM2-135M-Instruct"
    # the viewer names the bundled model in either role, never the temporary 127.0.0.1 address it was served on
    facts = dict(viewer_payload([path])["runs"][0]["summary"]["facts"])
    assert facts["endpoint"] == facts["judge endpoint"] == "the bundled model (llama.cpp on 127.0.0.1)"
    assert not any("http://127.0.0.1" in str(text) for text in facts.values()), facts


def _upset_every(k: int):
    """A judge that mostly prefers STRONG's transcript (as :func:`_strong_wins`), but turns the verdict round on
    about one prompt in ``k`` (by a checksum of its first respondent's text): the scenarios disagree."""

    def winner(a: str, b: str) -> str:
        usual = _strong_wins(a, b)
        if zlib.crc32(a.encode()) % k:
            return usual
        return "A0488" if usual == "A0493" else "A0493"

    return winner


def test_leaderboard_judge_gives_each_judge_the_scenario_bootstrap_interval_and_separability(tmp_path):
    from eqbench_nb.analysis.stats import SMALL_N
    from eqbench_nb.eqbench3 import study
    from eqbench_nb.eqbench3.league import provisional_ladder
    from eqbench_nb.eqbench3.versions import scoring_version

    ids = ",".join(s.id for s in scenarios.load_scenarios()[:SMALL_N])
    first = FakeOpenAI(models=("judge-model",), responder=responder(pairwise_winner=_upset_every(4)))
    second = FakeOpenAI(models=("judge-b",), responder=responder(pairwise_winner=_upset_every(3)))
    with first as a_url, second as b_url:
        for tag, model in (("STRONG", "strong-model"), ("weak", "weak-model"), ("plain", "plain-model")):
            with FakeOpenAI(models=(model,), responder=responder(tag=tag)) as url:
                subject = Endpoint(base_url=url, model=model, retry=FAST, timeout_s=10)
                judge = Endpoint(base_url=a_url, model="judge-model", retry=FAST, timeout_s=10)
                # rubric judgements too: an analysis task is judged pairwise only once its rubric is scored
                done = run_eqbench3(subject, judge, RunSettings(out_dir=tmp_path, progress=False), scenarios=ids)
                assert done.complete
        panel = ["--judge-model", "judge-model", "--judge-base-url", a_url, "--judge-model", "judge-b",
                 "--judge-base-url", b_url, "--reps", "100", "--seed", "3"]  # fmt: skip
        board = cli("leaderboard", str(tmp_path), "--judge", *panel, "--format", "json")
        again = cli("leaderboard", str(tmp_path), *panel, "--format", "json")  # stored: nothing asked, same answer
        shown = cli("leaderboard", str(tmp_path), *panel)
        few = cli("leaderboard", str(tmp_path), *panel[:-4], "--reps", "99")
    assert board.returncode == 0, board.stderr
    assert again.stdout == board.stdout  # seeded
    rows = json.loads(board.stdout)
    judged = read_pairwise(tmp_path / "eqbench3-judgements.jsonl")
    version = scoring_version(judged.header["scoring_version"])
    models = sorted({r.test for r in judged.records} | {r.other for r in judged.records})
    for judge in ("judge-model", "judge-b", "panel"):
        comps = [r.comparison(version) for r in judged.records if judge in ("panel", r.judge)]
        solver = study.OrderSolver.of(models, comps, version, provisional_ladder(models, comps, version))
        boot = study.scenario_bootstrap(solver, reps=100, seed=3).set_index("model")
        mine = {r["model"]: r for r in rows if r["judge"] == judge}
        assert set(mine) == set(models) and all(r["scenarios"] == SMALL_N for r in mine.values())
        assert {m: (r["ci_low"], r["ci_high"]) for m, r in mine.items()} == {
            m: (round(boot.loc[m, "low"], 2), round(boot.loc[m, "high"], 2)) for m in models
        }
        sep = study.separability(boot["low"], boot["high"])
        assert {(r["separability"], r["separability_pairs"], r["reps"]) for r in mine.values()} == {(sep, 3, 100)}
        assert {r["interval_method"] for r in mine.values()} == {
            "95 % scenario-cluster bootstrap, 100 resamples (seed 3), re-solved"
        }
    assert shown.returncode == 0 and "ci_mc_se" not in shown.stdout and "sigma" in shown.stdout
    lines = [line for line in shown.stderr.splitlines() if "scenario-cluster bootstrap" in line]
    assert [line.split(":")[0] for line in lines] == ["judge-model", "judge-b", "panel"]
    assert all("separability" in line and "Monte-Carlo error of the ends" in line for line in lines)
    assert few.returncode == 2 and "at least 100" in few.stderr and "Traceback" not in few.stderr


def _upstream_runs(models: list[str], ids: tuple[str, ...]) -> dict:
    """A canonical runs file in upstream's shape: each model's finished tasks (its name in every reply)."""

    def task(model: str, sid: str) -> dict:
        reply = f"{model} answers scenario {sid} with care and at length, naming what each person fears, wants, needs."
        reply += " It is long enough to be judged (upstream judges a task only with a reply of 100 characters)."
        history = [{"role": "user", "content": "prompt"}, {"role": "assistant", "content": reply}]
        parsed = [{"raw": reply, "thinking_feeling": reply, "their_thinking_feeling": "", "response": ""}]
        return {"status": "rubric_scored", "test_model": model, "debrief_response": f"{model} debriefs.",
                "conversation_history": history, "parsed_responses": parsed}  # fmt: skip

    return {f"run_{i}": {"model_name": m, "scenario_tasks": {"1": {s: task(m, s) for s in ids}}}
            for i, m in enumerate(models)}  # fmt: skip


def _canonical_field(strengths: dict[str, float]) -> dict:
    """An Elo file in upstream's shape: ratings, and every pair judged on scenario 2 in both orders."""
    from eqbench_nb.eqbench3 import pairwise
    from eqbench_nb.eqbench3.versions import FIRST_CANONICAL

    comps = []
    names = list(strengths)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            for order, a_first in ((pairwise.FORWARD_ORDER, True), (pairwise.REVERSED_ORDER, False)):
                first = a if a_first else b
                wins = "A0493" if strengths[first] == max(strengths[a], strengths[b]) else "A0488"
                c = {"scenario_id": "2", "order": order, "judge_response": {"x": wins + "+++"},
                     "pair": {"test_model": a, "neighbor_model": b, "iteration_index": "1"}}  # fmt: skip
                comps.append(c | pairwise.recompute(c, FIRST_CANONICAL))
    ratings = {m: {"elo": 1200 + 50 * s, "elo_norm": 1200 + 50 * s} for m, s in strengths.items()}
    return {"__metadata__": {"global_pairwise_comparisons": comps}, **ratings}


def test_leaderboard_places_a_run_among_a_canonical_field(tmp_path):
    strengths = {"o3": 4.0, "model-b": 3.0, "model-c": 1.0, "model-d": 0.0, "meta-llama/llama-3.2-1b-instruct": -3.0}
    (tmp_path / "elo.json").write_text(json.dumps(_canonical_field(strengths)))
    (tmp_path / "canonical_runs.json").write_text(json.dumps(_upstream_runs(list(strengths), ("1", "401"))))
    runs = tmp_path / "runs"
    judge = FakeOpenAI(models=("judge-model",), responder=responder(pairwise_winner=_strong_wins))
    with judge as j_url:
        _run(runs, "STRONG", "new-model", j_url, "1,401")
        rubric_calls = len(judge.log)
        args = ["leaderboard", str(runs), str(tmp_path / "elo.json"), "--canonical",
                str(tmp_path / "canonical_runs.json"), "--judge", "--judge-base-url", j_url, "--judge-model",
                "judge-model", "--scoring", "8c3a125", "--format", "csv"]  # fmt: skip
        board = cli(*args)
        asked = len(judge.log) - rubric_calls
        again = cli(*args)
        assert len(judge.log) - rubric_calls == asked  # nothing asked twice
    assert board.returncode == 0, board.stderr
    rows = list(csv.DictReader(io.StringIO(board.stdout)))
    assert [r["model"] for r in rows][:1] == ["new-model"]  # it beats everyone in the fake judge's eyes
    assert {r["model"] for r in rows} == {*strengths, "new-model"}
    norm = {r["model"]: float(r["elo_norm"]) for r in rows}
    assert norm["o3"] == 1500.0 and norm["meta-llama/llama-3.2-1b-instruct"] == 200.0  # anchored: the field has both
    judged = read_pairwise(runs / "eqbench3-judgements.jsonl")
    assert asked == len(judged.records) > 0
    assert all("new-model" in (r.test, r.other) for r in judged.records)  # only the new model's pairs are asked
    assert {r.scenario_id for r in judged.records} <= {"1", "401"}
    assert again.returncode == 0, again.stderr
