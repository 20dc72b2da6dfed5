"""The run viewer's EQ-Bench 3 items: one per (iteration, scenario) of a run, one per pair of models judged in a
judgements file, made over the loopback fakes (real HTTP, the real openai client).

The items must explain the run's own numbers: their contributions average to the rubric score as upstream rounds
it, each task's score is the mean of the criteria upstream counts (listed here from upstream's code, not from the
module under test), the prompts rebuilt are the messages the fake server received, request for request, the
tokens and costs of the two endpoints add up apart; a pair's win fraction follows from its plus counts by
upstream's HEAD rule, written out here.
"""

import hashlib
import json
import os
import statistics
from collections import Counter

import pytest
from conftest import DATA, KEY, needs_data
from fake_eqbench3 import responder
from fake_openai_server import FakeOpenAI
from fuzz import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz_readers import _MISSING, json_values

from eqbench_nb.cli import main
from eqbench_nb.eqbench3.field import leaderboard_table
from eqbench_nb.eqbench3.rubric import run_score
from eqbench_nb.eqbench3.runs import read_eq3_run, read_pairwise
from eqbench_nb.eqbench3.summary import summarise_run
from eqbench_nb.eqbench3.task import run_eqbench3
from eqbench_nb.runner import RetryPolicy
from eqbench_nb.runner.cost import Prices
from eqbench_nb.runner.settings import Endpoint, RunSettings
from eqbench_nb.viewer.contract import COMMON_COLUMNS
from eqbench_nb.viewer.payload import ViewerError, viewer_payload
from eqbench_nb.viewer.samples import samples

pytestmark = [needs_data, pytest.mark.usefixtures("key")]
FAST = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
#: Upstream's counted criteria (``STANDARD_ALLOWED_RUBRIC_CRITERIA`` as a role-play is asked them; every analysis one).
ROLEPLAY_COUNTED = {"demonstrated_empathy", "pragmatic_ei", "depth_of_insight", "social_dexterity",
                    "emotional_reasoning", "message_tailoring"}  # fmt: skip
ANALYSIS_COUNTED = {"depth_of_insight", "emotional_reasoning", "theory_of_mind", "subtext_identification",
                    "intellectual_grounding", "correctness"}  # fmt: skip
SCENARIOS = "1,208,401,402"


def endpoints(url, **kw):
    subject = Endpoint(base_url=url, model="fake-model", retry=FAST, timeout_s=10, **kw)
    return subject, Endpoint(base_url=url, model="judge-model", retry=FAST, timeout_s=10)


def varied_judge(prompt, temperature):
    """Every criterion scored by a hash of the prompt and its name (so tasks and criteria differ); scenario 402's
    rubric judgement never gets a JSON reply: a judge error."""
    base = responder()(prompt, temperature)
    if not base.startswith("{"):
        return base
    if _scenario_of(prompt) == "402":
        return "I would rather not score this."
    scores = json.loads(base)
    for name in scores:
        if name != "chain_of_thought_reasoning":
            scores[name] = int(hashlib.sha256((prompt + name).encode()).hexdigest(), 16) % 21
    return json.dumps(scores)


def _scenario_of(prompt):
    from eqbench_nb.eqbench3.scenarios import load_scenarios

    return next((s.id for s in load_scenarios() if s.prompts[0][:200].replace("*", "").replace("#", "") in prompt), "")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A run of four scenarios (a role-play, the drafting task, two analyses) in two iterations, the judge's scores
    varied and one scenario's judgement an error; the fake's log of every request."""
    os.environ.setdefault("OPENAI_API_KEY", KEY)
    out = tmp_path_factory.mktemp("eq3")
    fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=varied_judge)
    with fake as url:
        result = run_eqbench3(*endpoints(url), RunSettings(out_dir=out, progress=False), scenarios=SCENARIOS,
                              iterations=2)  # fmt: skip
    return result, fake.log


def test_one_item_per_scenario_and_iteration_with_the_common_columns(played):
    result, _ = played
    items = samples(result.path)
    assert set(COMMON_COLUMNS) <= set(items.columns) and items.attrs["benchmark"] == "eqbench3"
    assert list(items["item_id"]) == [f"{s}-i{i}" for i in (1, 2) for s in SCENARIOS.split(",")]
    assert list(items["kind"]) == ["roleplay", "drafting", "analysis", "analysis"] * 2
    assert samples(result)["item_id"].tolist() == items["item_id"].tolist()  # the run result itself is viewed too
    steps = {"1": ["turn 1", "turn 2", "turn 3", "debrief", "rubric (judge)"], "401": ["turn 1", "rubric (judge)"]}
    for item_id, expected in (("1-i1", steps["1"]), ("401-i2", steps["401"])):
        attempts = items.set_index("item_id").loc[item_id, "attempts"]
        assert list(dict.fromkeys(a["step"] for a in attempts)) == expected


def test_the_contributions_average_to_the_rubric_score_and_each_task_is_its_counted_criteria(played):
    result, _ = played
    run = read_eq3_run(result.path)
    summary = summarise_run(run)
    items = samples(result.path)
    scored = items[items["parsed"]]
    assert len(scored) == 6 and 70 > summary.score > 30  # two judge errors (402), varied scores
    # upstream rounds the mean of the task scores on 0-20, then scales it: the items' mean, rounded so, is the score
    assert run_score([c / 5 for c in scored["rubric"]]) == summary.score
    assert abs(statistics.mean(scored["rubric"]) - summary.score) <= 0.025 + 1e-9
    judged = {(r.iteration, r.scenario_id): r.scores for r in run.records if r.step == "rubric"}
    for row in scored.itertuples():
        counted = ANALYSIS_COUNTED if row.kind == "analysis" else ROLEPLAY_COUNTED
        given = judged[(row.iteration, row.scenario_id)]
        assert row.task_score == pytest.approx(statistics.mean(given[c] for c in counted))
        assert row.rubric == pytest.approx(5 * row.task_score)
        assert row.reason.startswith(f"the mean of the {len(counted)} counted criteria, {row.task_score:.2f} of 20")
        assert {c["criterion"] for c in row.criteria if c["counts"] and c["score"] is not None} == counted
        assert row.miss == pytest.approx(abs(row.rubric - summary.score))
    errors = items[items["scenario_id"] == "402"]
    assert not errors["parsed"].any() and errors["rubric"].isna().all() and (errors["decision"] == "judge error").all()
    assert errors["reason"].str.contains("did not parse in 3 attempts").all()
    for attempts in errors["attempts"]:
        judge = [a for a in attempts if a["endpoint"] == "judge"]
        assert [a["decision"] for a in judge] == ["unparsed"] * 3 and not any(a["kept"] for a in judge)
        assert all(a["text"] == "I would rather not score this." for a in judge)  # the judge's raw text, kept
    assert errors["retried"].all() and not scored["retried"].any()


def test_the_prompts_rebuilt_are_what_each_endpoint_was_sent(played):
    result, log = played
    items = samples(result.path)
    sent = [entry["body"]["messages"] for entry in log]
    checked = Counter()
    for row in items.itertuples():
        for attempt in row.attempts:
            asked = attempt["asked"]
            if attempt["endpoint"] == "model under test":
                # a turn's or the debrief's request: the conversation up to the message it answered
                assert row.messages[: asked + 1] in sent
            else:
                judge_prompt = row.messages[asked]
                assert judge_prompt["role"] == "user (to the judge)"
                assert [{"role": "user", "content": judge_prompt["content"]}] in sent
            checked[attempt["endpoint"]] += 1
    assert checked == {"model under test": 2 * (3 + 1 + 3 + 1 + 1 + 1), "judge": 2 * (1 + 1 + 1 + 3)}
    assert checked["model under test"] + checked["judge"] == len(log) == items["n_attempts"].sum()


def test_tokens_and_costs_of_the_two_endpoints_apart(played):
    result, _ = played
    subject_prices, judge_prices = Prices(2.0, 8.0), Prices(3.0, 15.0)
    items = samples(result.path, 2.0, 8.0, judge_price_in=3.0, judge_price_out=15.0)
    run = read_eq3_run(result.path)
    by_role = {"model under test": [0, 0], "judge": [0, 0]}
    for r in run.records:
        for a in r.attempts:
            tokens = by_role["judge" if r.step == "rubric" else "model under test"]
            tokens[0] += a["prompt_tokens"]
            tokens[1] += a["completion_tokens"]
    rows = [e for endpoints in items["endpoints"] for e in endpoints]
    for role, prices in (("model under test", subject_prices), ("judge", judge_prices)):
        mine = [e for e in rows if e["endpoint"] == role]
        assert [sum(e["prompt_tokens"] for e in mine), sum(e["completion_tokens"] for e in mine)] == by_role[role]
        assert sum(e["cost_usd"] for e in mine) == pytest.approx(prices.cost(*by_role[role]))
    assert items["prompt_tokens"].sum() == by_role["judge"][0] + by_role["model under test"][0]
    total = subject_prices.cost(*by_role["model under test"]) + judge_prices.cost(*by_role["judge"])
    assert items["cost_usd"].sum() == pytest.approx(total)
    assert samples(result.path, 2.0, 8.0)["cost_usd"].isna().all()  # the judge's share unpriced: no whole cost
    facts = dict(viewer_payload([result.path], Prices.given(2.0, 8.0))["runs"][0]["summary"]["facts"])
    assert facts["cost (judge)"].startswith("no prices given (--judge-price-in")
    assert facts["cost (model under test)"].startswith(f"${subject_prices.cost(*by_role['model under test']):,.4f}")


def test_an_unfinished_run_shows_how_far_each_scenario_got(played, tmp_path):
    result, _ = played
    lines = result.path.read_text().splitlines()
    header, records = lines[0], [json.loads(x) for x in lines[1:]]
    kept = [r for r in records if not (r["iteration"] == 2 and r["scenario_id"] == "1" and r["step"] != "turn-1")]
    kept = [r for r in kept if not (r["iteration"] == 2 and r["scenario_id"] == "401" and r["step"] == "rubric")]
    cut = tmp_path / result.path.name
    cut.write_text("\n".join([header, *map(json.dumps, kept)]) + "\n")
    items = samples(cut).set_index("item_id")
    assert len(items) == 8
    assert items.loc["1-i2", "decision"] == "unfinished" and items.loc["1-i2", "turns"] == "1 of 3"
    assert items.loc["1-i2", "reason"].startswith("1 of 3 turns answered, the debrief not yet: the run is unfinished")
    assert items.loc["401-i2", "decision"] == "not judged yet" and not items.loc["401-i2", "parsed"]


# ---------------------------------------------------------------- a judgements file


def _strong_wins(a, b):
    return "A0488" if "STRONG" in b.split("[/RESPONDENT A0488")[0] else "A0493"


def judge_of_pairs(prompt, temperature):
    """Pairwise verdicts for the respondent the fake prefers; scenario 401 with the strong model as A0493 never
    parses (a judge error in one order of one pair)."""
    if "A0493" in prompt and "Analysis by STRONG" in prompt.partition("A0488")[0]:
        return '{"chain_of_thought_reasoning": "cut off'
    return responder(pairwise_winner=_strong_wins)(prompt, temperature)


@pytest.fixture(scope="module")
def judgements(tmp_path_factory):
    os.environ.setdefault("OPENAI_API_KEY", KEY)
    out = tmp_path_factory.mktemp("pairs")
    with FakeOpenAI(models=("judge-model",), responder=judge_of_pairs) as judge_url:
        for tag, model in (("STRONG", "strong-model"), ("weak", "weak-model")):
            with FakeOpenAI(models=(model,), responder=responder(tag=tag)) as url:
                subject = Endpoint(base_url=url, model=model, retry=FAST, timeout_s=10)
                judge = Endpoint(base_url=judge_url, model="judge-model", retry=FAST, timeout_s=10)
                run_eqbench3(subject, judge, RunSettings(out_dir=out, progress=False), scenarios="1,401")
        judge = Endpoint(base_url=judge_url, model="judge-model", retry=FAST, timeout_s=10)
        leaderboard_table(sorted(out.glob("*.jsonl")), judgements=None, ask=True, judge=judge, scoring=None,
                          canonical=None)  # fmt: skip
    return out / "eqbench3-judgements.jsonl"


def _head_fraction(plus_a, plus_b):
    """Upstream HEAD's win fraction of A from plus counts: the margin over 30, capped at 1, linear, halved."""
    margin = min(abs(plus_a - plus_b) / 30, 1.0) / 2
    return 0.5 + margin if plus_a > plus_b else 0.5 - margin if plus_a < plus_b else 0.5


def test_a_judgements_file_has_an_item_per_pair_with_both_orders(judgements):
    judged = read_pairwise(judgements)
    items = samples(judgements).set_index("scenario_id")
    assert len(judged.records) == 4 and list(items.index) == ["1", "401"]
    assert set(items["model_a"]) == {"strong-model"} and set(items["model_b"]) == {"weak-model"}
    for row in items.to_dict("records"):
        orders = row["orders"]
        assert sorted(o["order"].split()[0] for o in orders) == ["forward", "reversed"]
        assert {o["A0493"] for o in orders} == {"strong-model", "weak-model"}
        valid = [o for o in orders if o["error"] is None]
        plus_a = sum(o["plus_for_test"] if o["test"] == row["model_a"] else o["plus_for_other"] for o in valid)
        plus_b = sum(o["plus_for_other"] if o["test"] == row["model_a"] else o["plus_for_test"] for o in valid)
        assert (row["plus_a"], row["plus_b"]) == (plus_a, plus_b)
        assert row["fraction_a"] == pytest.approx(_head_fraction(plus_a, plus_b))
        assert row["decision"] == "strong-model wins" and row["parsed"]
    assert items.loc["1", "plus_a"] > 2 and items.loc["1", "judge_errors"] == 0
    # an analysis item keeps only who won (HEAD's clamp): 1-0 from the one order that parsed
    assert (items.loc["401", "plus_a"], items.loc["401", "plus_b"], items.loc["401", "judge_errors"]) == (1, 0, 1)
    failed = [a for a in items.loc["401", "attempts"] if a["decision"] == "unparsed"]
    assert len(failed) == 3 and all(a["text"] == '{"chain_of_thought_reasoning": "cut off' for a in failed)
    assert "left out" not in items.loc["401", "reason"] and "did not parse" in items.loc["401", "reason"]
    assert "clamped to who won" in items.loc["401", "reason"] and "clamped" not in items.loc["1", "reason"]
    standings = viewer_payload([judgements])["runs"][0]["summary"]["scores"]
    assert [row[1] for row in standings["rows"]] == ["strong-model", "weak-model"]


def test_two_runs_side_by_side_pair_their_scenarios(judgements):
    strong, weak = sorted(p for p in judgements.parent.glob("*__eqbench3__*.jsonl"))
    payload = viewer_payload([strong, weak])
    a, b = payload["runs"]
    assert [i["key"] for i in a["items"]] == [i["key"] for i in b["items"]] == ["1-i1", "401-i1"]
    assert a["compare_label"] == "rubric (0-100)" and [i["compare"] for i in b["items"]] == [75.0, 75.0]
    assert payload["comparison"] is None  # no sentence: the per-item B - A is the comparison shown


def test_what_cannot_be_viewed_is_said_in_one_line(judgements, capsys, tmp_path):
    run = next(p for p in judgements.parent.glob("*.jsonl") if p != judgements)
    with pytest.raises(ViewerError, match="hold items of two kinds"):
        viewer_payload([run, judgements])
    canonical = DATA / "eqbench3" / "canonical_leaderboard_elo_results_8c3a125.json.gz"
    assert main(["view", str(canonical), "--out", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "canonical Elo results are not a run the viewer shows" in err
    assert not (tmp_path / "x.html").exists() and KEY not in err
    lines = judgements.read_text().splitlines()
    record = json.loads(lines[1])
    del record["test"]
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("\n".join([lines[0], json.dumps(record), *lines[2:]]) + "\n")
    assert main(["view", str(damaged), "--out", str(tmp_path / "x.html")]) == 2
    assert capsys.readouterr().err == f"error: {damaged}: line 2: the record has no 'test'\n"
    header = json.loads(lines[0]) | {"judge": "another-judge"}  # every record is then another file's, left out
    other = tmp_path / "other.jsonl"
    other.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    (shown,) = viewer_payload([other])["runs"]
    assert shown["items"] == [] and shown["summary"]["scores"]["rows"] == [] and shown["summary"]["warnings"]


# ---------------------------------------------------------------- a file from elsewhere holds anything


@fuzz_settings(25)
@given(data=st.data())
def test_view_of_a_damaged_eqbench3_file_writes_a_page_or_says_one_line(played, data):
    """Header fields, record fields and attempt fields replaced by anything JSON holds (or left out): the page is
    written and its data reads back, or the command says one line."""
    import contextlib
    import io
    import re
    import tempfile
    from pathlib import Path

    result, _ = played
    lines = [json.loads(x) for x in result.path.read_text().splitlines()]
    for _ in range(data.draw(st.integers(1, 4))):
        n = data.draw(st.integers(0, len(lines) - 1))
        target = lines[n]
        if n and target.get("attempts") and data.draw(st.booleans()):
            target = target["attempts"][0]
        key = data.draw(st.sampled_from(sorted(target)))
        value = data.draw(st.one_of(json_values, st.just(_MISSING)))
        if value is _MISSING:
            del target[key]
        else:
            target[key] = value
    with tempfile.TemporaryDirectory() as folder:
        path, page = Path(folder) / "run.jsonl", Path(folder) / "page.html"
        path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(["view", str(path), "--out", str(page), "--price-in", "1", "--judge-price-in", "2"])
        assert code in (0, 2), err.getvalue()
        if code == 2:
            (line,) = err.getvalue().splitlines()
            assert line.startswith("error: ")
            return
        found = re.search(r'<script type="application/json" id="eqv-data">(.*?)</script>', page.read_text(), re.S)
        payload = json.loads(found.group(1), parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))
        assert payload["runs"][0]["items"]
