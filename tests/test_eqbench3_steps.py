"""EQ-Bench 3's conversation and judge steps over real HTTP to the loopback fake (the real openai client), the
fake playing the model under test and the judge (:mod:`fake_eqbench3`)."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from pathlib import Path

import pytest
from conftest import needs_data
from fake_eqbench3 import responder
from fake_openai_server import FakeOpenAI

from eqbench_nb.eqbench3 import prompts, rubric, runs, scenarios, steps
from eqbench_nb.eqbench3.versions import HEAD
from eqbench_nb.runner.endpoint import make_client
from eqbench_nb.runner.transport import RetryPolicy, Transport

pytestmark = needs_data
FAST = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
MODELS = ("fake-model", "judge-model")


def transports(url: str) -> tuple[object, Transport, Transport]:
    client = make_client(url, "k", 10)
    subject = Transport(client, "fake-model", "fake", "k", FAST, deadline_s=10)
    judge = Transport(client, "judge-model", "fake", "k", FAST, deadline_s=10)
    return client, subject, judge


def subject(transport: Transport, **kw) -> steps.Subject:
    return steps.Subject(transport, "fake-model", "r1", prompts.load_templates(), **kw)


def by_id() -> dict[str, scenarios.Scenario]:
    return {s.id: s for s in scenarios.load_scenarios()}


async def _play_and_judge(url: str, scenario_list, judge_version=HEAD):
    client, t, j = transports(url)
    try:

        async def one(s):
            records = [r async for r in steps.play(subject(t), s, 1, {})]
            played = runs.plays(records, {s.id: len(s.prompts)})[(1, s.id)]
            transcript = played.transcript(s, prompts.load_templates())
            judged = await steps.judge_rubric(
                steps.Judge(j, "judge-model"), s, transcript, judge_version, "fake-model", "r1", 1
            )
            return records + [judged]

        return [r for rs in await asyncio.gather(*(one(s) for s in scenario_list)) for r in rs]
    finally:
        await client.close()


def run_score(records) -> float | None:
    task_scores = [
        rubric.scenario_task_score(r.scenario_id, r.scores)
        for r in records
        if r.step == runs.RUBRIC and r.scores is not None
    ]
    return rubric.run_score(task_scores)


def test_full_set_asks_what_upstream_asks_and_a_judge_of_15_gives_75():
    text = (scenarios.files.locate("scenario_prompts.txt")).read_text()
    turns = len(re.findall(r"^####### *Prompt\d+", text, re.M))  # every prompt delimiter upstream reads
    ids = re.findall(r"^######## *(\S+)", text, re.M)
    analysis = sum(401 <= int(i) <= 420 for i in ids) - 1  # 409 is dropped
    tasks = len(ids) - 1
    fake = FakeOpenAI(models=MODELS, responder=responder(rubric_score=15))
    with fake as url:
        records = asyncio.run(_play_and_judge(url, scenarios.load_scenarios()))
    asked = Counter(e["body"]["model"] for e in fake.log)
    assert asked == {"fake-model": turns + (tasks - analysis), "judge-model": tasks}  # turns + debriefs; rubrics
    assert (turns, tasks - analysis, tasks) == (92, 26, 45)
    assert run_score(records) == 75.0
    judged = [r for r in records if r.step == runs.RUBRIC]
    assert all(r.error is None and r.judge == "judge-model" for r in judged)


def test_requests_carry_upstreams_sampling_and_the_conversation_so_far():
    scenario = by_id()["3"]  # four turns
    fake = FakeOpenAI(models=MODELS, responder=responder(tag="S"))
    with fake as url:
        records = asyncio.run(_play_and_judge(url, [scenario]))
    bodies = [e["body"] for e in fake.log if e["body"]["model"] == "fake-model"]
    turns, debrief = bodies[:4], bodies[4]
    assert [len(b["messages"]) for b in turns] == [1, 3, 5, 7]
    assert all((b["temperature"], b["min_p"], b["max_tokens"]) == (0.7, 0.1, 12000) for b in turns)
    assert (debrief["temperature"], debrief["max_tokens"], "min_p" in debrief) == (0.5, 12000, False)
    assert debrief["messages"][-1]["content"] == prompts.load_templates().debrief
    # each earlier answer goes back as the model's own message, its <think> block taken off as upstream does
    assert turns[3]["messages"][1]["content"].startswith("# I'm thinking & feeling\nS feels torn between the two.")
    assert "<think>" in records[0].attempts[0]["raw_text"] and "<think>" not in records[0].text
    judge = next(e["body"] for e in fake.log if e["body"]["model"] == "judge-model")
    assert (judge["temperature"], judge["max_tokens"], "min_p" in judge) == (0.0, 8000, False)


def test_a_kill_mid_conversation_resumes_at_the_first_unfinished_turn():
    scenario = by_id()["301"]  # four turns and a debrief
    fake = FakeOpenAI(models=MODELS, responder=responder(tag="S"))

    async def first_two(url):
        client, t, _ = transports(url)
        kept = []
        gen = steps.play(subject(t), scenario, 1, {})
        async for record in gen:
            kept.append(record)
            if len(kept) == 2:
                break  # the process dies here: two turns are on disk, turn 3 was never sent
        await gen.aclose()
        await client.close()
        return kept

    async def resume(url, done):
        client, t, _ = transports(url)
        out = [r async for r in steps.play(subject(t), scenario, 1, {r.step: r for r in done})]
        await client.close()
        return out

    with fake as url:
        done = asyncio.run(first_two(url))
        rest = asyncio.run(resume(url, done))
    assert [r.step for r in done] == ["turn-1", "turn-2"]
    assert [r.step for r in rest] == ["turn-3", "turn-4", "debrief"]
    last_user = [e["body"]["messages"][-1]["content"] for e in fake.log]
    templates = prompts.load_templates()
    for turn in range(4):
        assert last_user.count(prompts.turn_prompt(scenario, turn, templates)) == 1, f"turn {turn + 1} asked twice"
    resumed = fake.log[2]["body"]["messages"]
    assert [m["content"] for m in resumed[1:4:2]] == [done[0].text, done[1].text]  # the stored answers go back


def test_a_judgement_that_does_not_parse_is_asked_again_then_recorded_as_an_error():
    scenario = by_id()["401"]
    for bad, expect_scores in ((1, True), (steps.JUDGE_ATTEMPTS, False)):
        fake = FakeOpenAI(models=MODELS, responder=responder(bad_rubric=bad))
        with fake as url:
            judged = asyncio.run(_play_and_judge(url, [scenario]))[-1]
        judge_requests = sum(e["body"]["model"] == "judge-model" for e in fake.log)
        assert judge_requests == (bad + 1 if expect_scores else steps.JUDGE_ATTEMPTS)
        assert len(judged.attempts) == judge_requests
        assert all("cut off mid" in a["text"] for a in judged.attempts[:bad])  # the raw text of every reply kept
        if expect_scores:
            assert judged.scores and judged.error is None
        else:
            assert judged.scores is None and "did not parse in 3 attempts" in judged.error
            assert run_score([judged]) is None  # left out of the score
            assert runs.step_from_json(judged.to_json()).error == judged.error  # and it reads back


def test_a_turn_the_endpoint_keeps_rejecting_stops_the_scenario_for_a_resume():
    scenario = by_id()["1"]
    fake = FakeOpenAI(models=MODELS, responder=responder(), script=["ok", "400", "400", "400"])

    async def go(url):
        client, t, _ = transports(url)
        got = []
        try:
            async for r in steps.play(subject(t), scenario, 1, {}):
                got.append(r)
        finally:
            await client.close()
        return got

    with fake as url, pytest.raises(steps.StepFailed, match="turn-2: no reply in 3 attempts"):
        asyncio.run(go(url))
    assert len(fake.log) == 1 + steps.SUBJECT_ATTEMPTS


def test_an_endpoint_refusing_min_p_gets_it_no_more():
    scenario = scenarios.Scenario("9", ("Only turn.",))
    fake = FakeOpenAI(models=MODELS, responder=responder(), refuses=("min_p",))

    async def go(url):
        client, t, _ = transports(url)
        out = [r async for r in steps.play(subject(t), scenario, 1, {})]
        await client.close()
        return out, t.adapter.deviations

    with fake as url:
        records, deviations = asyncio.run(go(url))
    assert [e["outcome"] for e in fake.log] == ["400", "ok", "ok"]  # the turn sent again without it, the debrief
    assert "min_p" not in fake.log[1]["body"] and deviations == ["no_min_p"]
    assert records[0].attempts[0]["sent"] == {}
    assert len(records[0].attempts) == 1  # the refusal cost no attempt


def test_pairwise_judgements_in_both_orders_become_upstreams_comparisons():
    s = by_id()["1"]
    templates = prompts.load_templates()
    fake = FakeOpenAI(
        models=MODELS,
        responder=responder(
            pairwise_winner=lambda a, b: "A0488" if "STRONG" in b.split("[/RESPONDENT A0488]")[0] else "A0493"
        ),
    )

    def transcript(tag):
        answers = [steps_answer(tag) for _ in s.prompts]
        return runs.Play(s.id, 1, answers, len(s.prompts), f"debrief {tag}").transcript(s, templates)

    async def go(url):
        client, _, j = transports(url)
        out = []
        judge, notes = steps.Judge(j, "judge-model"), scenarios.load_notes()
        weak, strong = ("weak", transcript("weak")), ("strong", transcript("STRONG"))
        for order in runs.ORDERS:
            out.append(await steps.judge_pair(judge, "p1", pairwise_template(), s, notes, 1, weak, strong, order, HEAD))
        await client.close()
        return out

    with fake as url:
        forward, reversed_ = asyncio.run(go(url))
    assert "[RESPONDENT A0493]" in fake.log[0]["body"]["messages"][0]["content"]
    for record in (forward, reversed_):
        comparison = record.comparison(HEAD)
        assert comparison["outcome_for_test_model"] == 0.0  # the strong transcript wins in either position
        assert comparison["plus_for_other"] == 24 and comparison["plus_for_test"] == 0
        assert runs.pair_from_json(record.to_json()).verdict == record.verdict


def steps_answer(tag: str) -> str:
    return f"# I'm thinking & feeling\n{tag}\n# They're thinking & feeling\nthey\n# My response\nsaid\n--"


def pairwise_template() -> str:
    from eqbench_nb.eqbench3.pairwise import pairwise_template as load

    return load("roleplay")


def test_a_run_summary_scores_with_an_interval_over_scenarios_and_counts_errors():
    from eqbench_nb.eqbench3.summary import summarise_run

    chosen = [by_id()[s] for s in ("1", "2", "401", "402")]
    fake = FakeOpenAI(models=MODELS, responder=responder(rubric_score=12))
    with fake as url:
        records = asyncio.run(_play_and_judge(url, chosen))
    broken = next(r for r in records if r.step == runs.RUBRIC and r.scenario_id == "402")
    broken.scores, broken.error = None, "the judge's reply did not parse in 3 attempts (last: x)"
    header = {"model": "fake-model", "run_id": "r1", "judge_model": "judge-model", "iterations": 1,
              "scoring_version": "3c21bcc", "scenario_turns": {s.id: len(s.prompts) for s in chosen}}  # fmt: skip
    summary = summarise_run(runs.Eq3Run(Path("x.jsonl"), header, records))
    assert summary.score == 60.0 and summary.low == summary.high == 60.0  # every task 12 of 20
    assert (summary.tasks_scored, summary.tasks_expected, summary.judge_errors) == (3, 4, 1)
    assert summary.criteria["demonstrated_empathy"] == 12.0 and "warmth" in summary.criteria
    row = summary.as_row()
    assert row["rubric"] == 60.0 and row["judge_errors"] == 1
    assert "402" in summary.table()
    for r in records:  # scenarios now differ: the interval resamples them
        if r.step == runs.RUBRIC and r.scores is not None:
            r.scores = dict.fromkeys(r.scores, {"1": 10.0, "2": 14.0, "401": 15.0}[r.scenario_id])
    varied = summarise_run(runs.Eq3Run(Path("x.jsonl"), header, records))
    assert varied.score == round((10 + 14 + 15) / 3, 2) * 5
    # three scenarios: Student t over them (a percentile bootstrap over three is far too narrow), centred on the mean
    assert varied.low < varied.score < varied.high and "Student t" in varied.interval_method
    assert (varied.low + varied.high) / 2 == pytest.approx((10 + 14 + 15) / 3 * 5)
