"""The house every benchmark lives in: an Endpoint and RunSettings for every run, a job that yields several records
(a conversation's turns) written one by one and resumed at the first missing one, and the registry the command
line dispatches through."""

import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import KEY, ROOT
from fake_openai_server import FakeOpenAI

from eqbench_nb import Endpoint, RunSettings, registry, run_benchmark
from eqbench_nb.cli import main
from eqbench_nb.emotionbench.task import run_emotionbench
from eqbench_nb.runner import RetryPolicy
from eqbench_nb.runner.errors import RunnerError
from eqbench_nb.runner.session import RunPlan, run_plan

pytestmark = pytest.mark.usefixtures("key")
FAST = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
EMOTIONBENCH_RUN = ROOT / "data" / "runs" / "SmolLM2-135M-Instruct__emotionbench__panas-x1-d2-11sit.jsonl"


def _settings(tmp_path, **kw):
    return RunSettings(out_dir=tmp_path, progress=False, **kw)


# ---------------------------------------------------------------- Endpoint and RunSettings


def test_the_two_values_make_the_run_their_fields_say(tmp_path):
    with FakeOpenAI(api_key=KEY) as url:
        endpoint = Endpoint(base_url=url, model="fake-model", timeout_s=5, retry=FAST, concurrency=2)
        new = run_benchmark(endpoint, _settings(tmp_path / "new", seed=3), limit=4, iterations=2)
    assert new.complete and new.path.parent == tmp_path / "new"
    first = json.loads(new.path.read_text().splitlines()[0])
    assert first["seed"] == 3 and first["concurrency"] == 2 and first["timeout_s"] == 5


def test_the_old_keyword_form_is_gone_as_the_last_release_said(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a DeprecationWarning here would fail the test
        with pytest.raises(RunnerError, match=r"\(--concurrency\): must be at least 1, not 0"):
            run_benchmark(Endpoint(concurrency=0), _settings(tmp_path), limit=1)
    for entry in (run_benchmark, run_emotionbench):
        with pytest.raises(TypeError, match="unexpected keyword argument 'out_dir'"):
            entry(Endpoint(), out_dir=tmp_path)
        with pytest.raises(TypeError, match="unexpected keyword argument 'base_url'"):
            entry(base_url="http://127.0.0.1:9/v1")


def test_one_place_checks_an_endpoint():
    # each field by its option's declaration, when the endpoint is made (issue 43: as the command line checks it)
    checks = {
        "timeout_s": (0, "Endpoint.timeout_s (--timeout): must be a positive number, not 0"),
        "retry_budget_s": (-1, "(--retry-budget): must be a finite number, 0 or more, not -1"),
        "max_tokens": (0, "(--max-tokens): must be at least 1, not 0"),
        "reasoning_effort": ("extreme", "(--reasoning-effort): must be one of low, medium, high, not 'extreme'"),
        "poll_interval_s": (0, "(--poll-interval): must be at least 0.01 s"),
        "price_in": (-1.0, "(--price-in): must be a finite number, 0 or more, not -1"),
        "price_out": (float("inf"), "(--price-out): must be a finite number, 0 or more, not inf"),
        "batch_wait_s": (0, "(--batch-wait): must be a positive number, not 0"),
    }
    for name, (value, message) in checks.items():
        with pytest.raises(RunnerError, match=re.escape(message)):
            Endpoint(**{name: value})
    assert Endpoint(concurrency=5000).checked().concurrency == 1024
    assert Endpoint(retry_budget_s=7).policy.budget_s == 7
    with pytest.raises(RunnerError, match="EmotionBench runs do not take --batch, --price-out"):
        Endpoint(batch=True, price_out=1.0).refuse_features(("max_tokens",), "EmotionBench")


# ---------------------------------------------------------------- a job that yields several records


@dataclass
class Turn:
    model: str
    run_id: str
    conversation: str
    turn: int
    text: str

    @property
    def key(self):  # the run file's keys are (iteration, item)
        return (1, f"{self.conversation}-{self.turn}")

    def to_json(self):
        return {"type": "record", **self.__dict__}


def _turn(obj):
    return Turn(obj["model"], obj["run_id"], obj["conversation"], int(obj["turn"]), obj["text"])


def _conversation_run(url, out, turns=3, conversations=("a", "b")):
    """Each conversation: ``turns`` requests, each sending the conversation so far (so it cannot skip a turn)."""

    def build(conn):
        def jobs(finished):
            done = {}
            for r in finished:
                done.setdefault(r.conversation, []).append(r)
            return [
                (c, sorted(done.get(c, []), key=lambda r: r.turn))
                for c in conversations
                if len(done.get(c, [])) < turns
            ]

        def solver(transport, header):
            async def play(job):
                name, done = job
                messages = []
                for r in done:  # the turns already in the file are the conversation so far
                    messages += [
                        {"role": "user", "content": f"{name} turn {r.turn}"},
                        {"role": "assistant", "content": r.text},
                    ]
                for t in range(len(done) + 1, turns + 1):
                    messages.append({"role": "user", "content": f"{name} turn {t}"})
                    answer = await transport.complete(list(messages), 0.0, 20)
                    messages.append({"role": "assistant", "content": answer.text})
                    yield Turn(conn.model, header["run_id"], name, t, answer.text)

            return play

        header = {"model": conn.model, "run_id": "talk", "iterations": 1}
        return RunPlan(
            Path(out) / "conversations.jsonl", header, _turn, ("model",), ("model", "run_id"), jobs,
            len(conversations), solver, lambda r: (True, None), desc="talk",
        )  # fmt: skip

    policy = RetryPolicy(max_retries=0, base_delay_s=0.01, max_delay_s=0.01)
    endpoint = Endpoint(base_url=url, model="fake-model", timeout_s=5, retry=policy, concurrency=1)
    return run_plan(endpoint, RunSettings(out_dir=out, progress=False), build)[1]


def test_a_conversation_is_written_turn_by_turn_and_resumes_at_its_first_missing_turn(tmp_path):
    seen = []

    def answer(prompt, temperature):
        seen.append(prompt)
        return f"reply to: {prompt[:40]}"

    # conversation a: turns 1 and 2 answered, turn 3 fails for good (500, no retries): a is left unfinished with
    # its two turns written, and the pool moves on to b
    fake = FakeOpenAI(api_key=KEY, responder=answer, script=["ok", "ok", "500"])
    with fake as url:
        first = _conversation_run(url, tmp_path)
        lines = [json.loads(x) for x in (tmp_path / "conversations.jsonl").read_text().splitlines()[1:]]
        written = [(x["conversation"], x["turn"]) for x in lines if x.get("type") == "record"]
        assert first.unfinished == 1 and first.answered == 5
        assert written == [("a", 1), ("a", 2), ("b", 1), ("b", 2), ("b", 3)]
        asked_before = len(seen)
        second = _conversation_run(url, tmp_path)
    assert second.unfinished == 0 and second.answered == 1
    assert len(seen) == asked_before + 1, "only a's third turn is asked again"
    resumed = fake.log[-1]["body"]["messages"]
    assert [m["content"] for m in resumed if m["role"] == "user"] == ["a turn 1", "a turn 2", "a turn 3"]
    assert resumed[1]["content"] == "reply to: a turn 1", "the resumed turn is sent with the conversation so far"
    lines = [json.loads(x) for x in (tmp_path / "conversations.jsonl").read_text().splitlines()[1:]]
    assert sorted((x["conversation"], x["turn"]) for x in lines if x.get("type") == "record") == [
        (c, t) for c in "ab" for t in (1, 2, 3)
    ]


# ---------------------------------------------------------------- the registry


def test_every_run_file_finds_its_benchmark(tmp_path):
    assert registry.benchmark_of(EMOTIONBENCH_RUN).name == "emotionbench"
    assert registry.benchmark_of(ROOT / "data" / "quickstart" / next(
        p.name for p in (ROOT / "data" / "quickstart").glob("*.jsonl"))).name == "eqbench"  # fmt: skip
    future = tmp_path / "future.jsonl"
    future.write_text(json.dumps({"type": "header", "benchmark": "eqbench9", "model": "m", "run_id": "r"}) + "\n")
    with pytest.raises(ValueError, match="benchmark 'eqbench9', which this version of eqbench-nb does not know"):
        registry.benchmark_of(future)


def test_a_command_that_does_not_apply_says_which_do(capsys):
    for argv in (["compare", str(EMOTIONBENCH_RUN), str(EMOTIONBENCH_RUN)], ["leaderboard", str(EMOTIONBENCH_RUN)]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "an EmotionBench run" in err
        which = "(for EmotionBench runs: `eqbench-nb score`, `eqbench-nb runs`)"  # runs lists them since issue 29
        assert f"`eqbench-nb {argv[0]}` does not apply to it {which}" in err


def test_run_refuses_another_benchmarks_options_in_one_line(capsys):
    assert main(["run", "--benchmark", "emotionbench", "--set", "v1", "--batch"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "error: --set, --batch belong to EQ-Bench and EmoBench and Empathetic responding (Welivita & Pu) and Judges "
        "against people; EmotionBench takes --repeats, --default-repeats, "
        "--per-factor, --orders, --parser"  # EmoBench (issue 45) takes --batch too; --emotions is shared with
        # empathetic-responding (issue 46), so no longer EmotionBench's own; judge-check (issue 47) takes --batch
    )
    assert main(["run", "--repeats", "3", "--dry-run"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --repeats belongs to EmotionBench; EQ-Bench takes --set, --protocol")
