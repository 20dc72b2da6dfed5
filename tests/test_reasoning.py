"""Reasoning models over real loopback HTTP: one fake endpoint per kind, each scored against the same
answers without reasoning (the reference)."""

import json

import pytest
from conftest import KEY, run
from fake_openai_server import FakeOpenAI, answer_for

from eqbench_nb.runner.reasoning import BUDGET_SPENT, ParameterAdapter, split_reasoning

pytestmark = pytest.mark.usefixtures("key")

N = 20  # questions per run
RATE = 0.25  # unparseable first answers, so the protocol's re-asks happen too


def scores(result):
    return {name: (s.score, s.n_parseable) for name, s in result.scores.items()}


def answers(result):
    return {r.key: (r.first_pass, r.answer_attempt) for r in result.run.records}


def chat_log(fake):
    return [e["body"] for e in fake.log]


# ---------------------------------------------------------------- what is the answer


def test_split_reasoning_takes_off_think_blocks_unclosed_ones_and_template_opened_ones():
    assert split_reasoning("<think>Angry: 9</think>\n\nAngry: 3").answer == "Angry: 3"
    opened_by_template = split_reasoning("Angry: 9\n</think>\nAngry: 3")
    assert opened_by_template.answer == "Angry: 3" and "Angry: 9" in opened_by_template.reasoning
    unclosed = split_reasoning("<think>Angry: 9 and then I ran out")
    assert unclosed.answer is None and unclosed.unclosed and unclosed.raw.startswith("<think>")
    two = split_reasoning("<THINK>a: 9</THINK>Angry: 1<think>b</think>")
    assert two.answer == "Angry: 1"
    plain = split_reasoning("Angry: 3")
    assert (plain.answer, plain.reasoning, plain.raw) == ("Angry: 3", None, None)  # nothing kept twice
    field = split_reasoning("Angry: 3", "Angry: 9")
    assert (field.answer, field.reasoning, field.raw) == ("Angry: 3", "Angry: 9", None)


def test_the_adapter_switches_only_what_was_refused_and_remembers_it():
    adapter = ParameterAdapter("high")
    body = adapter.body("m", [], 0.01, 60)
    assert body["max_tokens"] == 60 and body["temperature"] == 0.01 and body["reasoning_effort"] == "high"
    assert not adapter.adapt(body, None, "This model's maximum context length is 512 tokens")  # a real 400
    assert adapter.adapt(body, "max_tokens", "Unsupported parameter: 'max_tokens'")
    assert adapter.adapt(body, None, "Unsupported value: 'temperature' does not support 0.01")
    body = adapter.body("m", [], 0.01, 60)
    assert body.get("max_completion_tokens") == 60 and "max_tokens" not in body and "temperature" not in body
    resumed = ParameterAdapter(known=adapter.deviations)
    assert "max_completion_tokens" in resumed.body("m", [], 0.16, 60)


# ---------------------------------------------------------------- one fake per kind


def reference(tmp_path, responder=None):
    with FakeOpenAI(unparseable_rate=RATE, responder=responder) as url:
        return run(url, tmp_path / "reference", limit=N)


@pytest.mark.parametrize("kind", ["think", "field"])
def test_open_reasoning_models_score_what_their_answers_score(tmp_path, kind):
    with FakeOpenAI(unparseable_rate=RATE, reasoning=kind) as url:
        result = run(url, tmp_path / kind, limit=N, **_options(max_tokens=1000))
    ref = reference(tmp_path)
    assert scores(result) == scores(ref) and answers(result) == answers(ref)
    assert result.scores["official"].n_parseable > 0
    attempts = [a for r in result.run.records for a in r.attempts]
    assert all("Angry: 9" not in a["text"] or "Angry: 9" in a.get("raw_text", "") for a in attempts)
    assert all(": 9\nHmm" in a["reasoning"] for a in attempts)  # the decoys are kept, as reasoning
    if kind == "think":
        assert all(a["raw_text"].endswith(a["text"]) and "</think>" in a["raw_text"] for a in attempts)
    assert "reasoning  taken off" in result.table()


def test_without_stripping_the_think_decoys_would_be_read(tmp_path):
    """The null that can fail: the decoys are read as ratings by the parser when left in."""
    from eqbench_nb.eqbench.parsing import parse_answer

    with FakeOpenAI(reasoning="think", unparseable_rate=1.0) as url:  # every answer declines to rate
        result = run(url, tmp_path, limit=3, **_options(max_tokens=1000))
    assert result.scores["official"].n_parseable == 0
    for record in result.run.records:
        for attempt in record.attempts:
            left_in = parse_answer(attempt["raw_text"], False, "official").first_pass
            assert len(left_in) == 4 and set(left_in.values()) == {9.0}  # the decoys would be scored


def test_o_series_is_adapted_not_failed_and_scores_what_its_answers_score(tmp_path):
    fake = FakeOpenAI(unparseable_rate=RATE, reasoning="o-series")
    with fake as url:
        result = run(url, tmp_path / "o", limit=N, **_options(max_tokens=2000))
    ref = reference(tmp_path, responder=lambda prompt, t: answer_for(prompt, 1.0, RATE))
    assert scores(result) == scores(ref) and answers(result) == answers(ref)
    assert result.complete and result.scores["official"].n_parseable > 0
    header = result.run.header
    assert header["deviations"] == ["max_completion_tokens", "default_temperature"]
    assert header["max_tokens"] == 2000 and header["protocol_max_tokens"] == 60
    bodies = chat_log(fake)
    refused = [e for e in fake.log if e["outcome"] == "400"]
    assert 2 <= len(refused) <= 2 * 8  # at most each of the first requests in flight is refused, once per parameter
    assert all("max_tokens" not in b and "temperature" not in b for b in bodies[-N:])
    table = result.table()
    assert "max_completion_tokens sent in place of max_tokens" in table and "temperature fixed by the endpoint" in table
    assert "--max-tokens 2000 (the protocol sends 60)" in table
    reasoning = sum(a.get("reasoning_tokens") or 0 for r in result.run.records for a in r.attempts)
    assert reasoning == 300 * sum(len(r.attempts) for r in result.run.records) and f"reasoning {reasoning:,}" in table
    lines = (tmp_path / "o").glob("*.jsonl").__next__().read_text().splitlines()
    assert [json.loads(x)["code"] for x in lines if '"event"' in x] == ["max_completion_tokens", "default_temperature"]
    assert KEY not in "".join(lines)


@pytest.mark.parametrize("kind", ["o-series", "think", "field"])
def test_a_budget_spent_on_reasoning_is_a_failed_attempt_with_its_reason_and_a_hint(tmp_path, kind):
    with FakeOpenAI(reasoning=kind) as url:
        result = run(url, tmp_path, limit=4, **_options(max_tokens=20))  # all of it goes on reasoning
    attempts = [a for r in result.run.records for a in r.attempts]
    if kind == "think":
        # a reply whose opening tag came from the chat template and that was cut before </think> carries no
        # tag at all: nothing can tell it from an answer (the README says so); the others must be caught
        attempts = [a for a in attempts if (a.get("raw_text") or a.get("text") or "").startswith("<think>")]
        assert 0 < len(attempts) < 12
    else:
        assert result.scores["official"].n_parseable == 0 and len(attempts) == 12
    errors = [a["error"] for a in attempts]
    assert result.complete and all(e.startswith(BUDGET_SPENT) and "of 20)" in e for e in errors)
    if kind == "o-series":
        assert all("20 reasoning tokens of 20" in e for e in errors)
    table = result.table()
    assert "raise --max-tokens" in table and BUDGET_SPENT in table


def _options(**kw):
    return kw
