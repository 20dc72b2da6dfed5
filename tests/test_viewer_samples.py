"""Issue 27: one item record per question x iteration (EQ-Bench) or situation x repeat (EmotionBench).

The records must explain the run's own score: each convention's column averages to that convention's score,
each attempt carries the decision the protocol made about it, every rating sits beside its reference with the
error. The explanations themselves (why an answer is unparseable, why an attempt was retried) are rules of the
benchmark, tested here on worked examples.
"""

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from conftest import RESULTS, ROOT, needs_data, run
from fake_openai_server import FakeOpenAI

import eqbench_nb
from eqbench_nb import load_questions, read_run, score_question, score_run
from eqbench_nb.emotionbench.runs import read_emotion_run
from eqbench_nb.emotionbench.summary import summarise_run
from eqbench_nb.eqbench.parsing import ParsedAnswer
from eqbench_nb.eqbench.protocols import attempt_decision, protocol_plan
from eqbench_nb.eqbench.scoring import unparseable_reason, upstream_v1_problem
from eqbench_nb.runner.cost import Prices, Usage
from eqbench_nb.viewer.contract import COMMON_COLUMNS
from eqbench_nb.viewer.samples import samples

RUNS = ROOT / "data" / "runs"
X10 = RUNS / "SmolLM2-135M-Instruct__v2__official-x10-all.jsonl"
EMOTIONBENCH = RUNS / "SmolLM2-135M-Instruct__emotionbench__panas-x1-d2-11sit.jsonl"


# ---------------------------------------------------------------- the rules explain themselves


def test_unparseable_reasons_name_what_is_wrong():
    q = load_questions("v2")[0]
    good = dict(q.reference)
    assert unparseable_reason(good, q.reference) is None
    assert unparseable_reason({}, q.reference) == "no 'Emotion: rating' pair read"
    assert unparseable_reason(dict(list(good.items())[:3]), q.reference) == "3 names read, not the key's 4"
    wrong = {("Joyful" if k == q.emotions[0] else k): v for k, v in good.items()}
    assert unparseable_reason(wrong, q.reference) == "names not in the key as written: Joyful"
    lower = {k.lower(): v for k, v in good.items()}
    assert "names not in the key as written" in unparseable_reason(lower, q.reference, "exact")
    assert unparseable_reason(lower, q.reference, "casefold") is None  # v2.4 reads any case
    twice = {q.emotions[0]: 1, q.emotions[0].lower(): 2, q.emotions[1]: 3, q.emotions[2]: 4}
    assert (
        unparseable_reason(twice, q.reference, "casefold") == "a key name written twice (in two cases), another missing"
    )
    comma = good | {q.emotions[0]: "7,5"}
    assert unparseable_reason(comma, q.reference) == "rating '7,5' is not a number float() reads"


def test_the_retry_test_says_why_an_attempt_fails():
    q = load_questions("v2")[0]
    ref = q.reference_normalised
    assert upstream_v1_problem(dict.fromkeys(q.emotions, 0), ref, "exact") == (
        "the ratings sum to 0 (an all-zero answer cannot be rescaled)"
    )
    assert upstream_v1_problem({"Angry": 1, **dict.fromkeys(q.emotions[1:], 1)}, ref, "exact") == (
        "a name matching no key name (Angry)"
    )
    assert upstream_v1_problem(dict.fromkeys(q.emotions, 1), ref, "exact") is None
    with pytest.raises(ValueError):  # where upstream's float() raises, as upstream_v1_score does
        upstream_v1_problem({q.emotions[0]: "7,5", **dict.fromkeys(q.emotions[1:], 1)}, ref, "exact")


def test_attempt_decisions_agree_with_the_outcome_and_say_which_pass_failed():
    q = load_questions("v2")[0]
    good = dict.fromkeys(q.emotions, 2.0)
    zero = dict.fromkeys(q.emotions, 0.0)
    split = protocol_plan("official", "v2", revise=True)
    whole = protocol_plan("official", "v2", revise=False)
    assert attempt_decision(ParsedAnswer(good, good), q, split) == ("stored", "the v1 scorer accepts both passes")
    outcome, why = attempt_decision(ParsedAnswer(good, zero), q, split)
    assert outcome == "partial" and why.startswith("only one pass accepted; the revised pass: the ratings sum to 0")
    outcome, why = attempt_decision(ParsedAnswer(zero, {}), q, split)
    assert outcome == "failed" and why == "first pass: the ratings sum to 0 (an all-zero answer cannot be rescaled); " \
        "revised pass: no 'Emotion: rating' pair read"  # fmt: skip
    assert attempt_decision(ParsedAnswer(zero), q, whole)[0] == "failed"
    assert attempt_decision(ParsedAnswer(good | {q.emotions[0]: "7,5"}), q, whole)[1].startswith(
        "a rating upstream's float() cannot read"
    )


# ---------------------------------------------------------------- EQ-Bench: the records explain the score


@pytest.fixture(scope="module")
def x10():
    return read_run(X10), samples(X10)


@needs_data
def test_one_row_per_record_with_the_common_columns(x10):
    run, items = x10
    assert len(items) == len(run.records) == 1710
    assert items["item_id"].is_unique and set(COMMON_COLUMNS) <= set(items.columns)
    assert items.attrs["benchmark"] == "eqbench"
    by_id = {f"q{r.question_id}-i{r.iteration}": r for r in run.records}
    for row in items.itertuples():
        record = by_id[row.item_id]
        assert row.n_attempts == len(record.attempts) and row.text == record.final_text
        if record.answer_attempt is None:
            assert pd.isna(row.kept_attempt)
        else:
            assert row.kept_attempt == record.answer_attempt + 1
        assert row.messages[0]["content"].startswith("\nYour task is to predict")


@needs_data
@pytest.mark.parametrize(
    "convention, column", [("official", "official"), ("lm-eval", "lm_eval"), ("evalscope", "evalscope")]
)
def test_each_conventions_column_averages_to_that_conventions_score(x10, convention, column):
    run, items = x10
    score = score_run(run, convention)
    for iteration, expected in zip(sorted(items["iteration"].unique()), score.iteration_scores):
        values = items.loc[items["iteration"] == iteration, column]
        # official leaves an unparseable answer out of the mean; the harnesses divide by every question
        got = values.mean() if convention == "official" else values.fillna(0).sum() / run.n_questions
        assert got == pytest.approx(expected, abs=1e-9)
    parsed = items["conventions"].map(lambda cs: next(c for c in cs if c["convention"] == convention)["parsed"])
    assert parsed.groupby(items["iteration"]).sum().mean() == pytest.approx(score.n_parseable)


@needs_data
def test_each_rating_sits_beside_its_reference_and_rescores_to_the_stored_score(x10):
    _, items = x10
    questions = {q.id: q for q in load_questions("v2")}
    parsed = items[items["parsed"]]
    assert 0 < len(parsed) < len(items)
    for row in parsed.itertuples():
        q = questions[row.question_id]
        answer = {e["emotion"]: e["answer"] for e in row.emotions}
        assert [e["reference"] for e in row.emotions] == [q.reference[e] for e in q.emotions]
        assert all(e["error"] == e["answer"] - e["reference"] for e in row.emotions)
        assert row.largest_error == max(abs(e["error"]) for e in row.emotions)
        assert 10 * score_question(answer, q) == pytest.approx(row.official)
    unparsed = items[~items["parsed"]]
    assert unparsed["largest_error"].isna().all() and unparsed["official"].isna().all()
    assert (unparsed["decision"] == "unparseable").all() and unparsed["reason"].str.len().gt(0).all()


@needs_data
def test_every_attempt_carries_the_decision_the_protocol_made(x10):
    _, items = x10
    for row in items.itertuples():
        decisions = [a["decision"] for a in row.attempts]
        kept = [a["attempt"] for a in row.attempts if a["kept"]]
        if "stored" in decisions:  # the protocol stops at the first stored attempt: it is the kept one
            assert decisions.index("stored") == len(decisions) - 1 and kept == [len(decisions)]
        else:  # nothing accepted (no revision here, so no partial answer): nothing kept
            assert kept == [] and all(d == "failed" for d in decisions)
            assert row.reason == f"no attempt of {row.n_attempts} accepted: nothing stored"
        assert row.retried == (row.n_attempts > 1)


@needs_data
def test_a_published_run_holds_its_stored_answer_and_its_source_is_checked(tmp_path):
    path = RESULTS / "stabilityai__stablelm-2-zephyr-1_6b_eqbench_v2_results.json"
    items = samples(path)
    run = read_run(path)
    assert len(items) == run.n_questions == len(run.records) + 1 and items["parsed"].sum() == score_run(run).n_parseable
    (missing,) = items.index[items["decision"] == "no record"]  # the question the file holds no answer for
    assert items.loc[missing, "reason"] == "the file holds no answer for this question: unparseable"
    assert items.loc[missing, "n_attempts"] == 0 and items.loc[missing, "lm_eval"] == 0
    assert all(a["decision"] == "stored" and a["kept"] for attempts in items["attempts"] for a in attempts)
    assert items["prompt_source"].iloc[0].startswith("not stored in the file (upstream EQ-Bench results)")
    assert items["prompt_tokens"].sum() == 0 and items["cost_usd"].isna().all()  # the file records no usage

    from eqbench_nb.viewer.payload import viewer_payload

    facts = dict(viewer_payload([path])["runs"][0]["summary"]["facts"])
    assert facts["pipeline"].endswith("@ d28c60c (sha256 matches the pinned file)")
    altered = tmp_path / path.name
    altered.write_text(path.read_text().replace('"run_id": "', '"run_id": "x', 1))
    facts = dict(viewer_payload([altered])["runs"][0]["summary"]["facts"])
    assert facts["pipeline"].endswith("but not that file (its sha256 differs)")


@needs_data
def test_a_runner_run_records_tokens_costs_faults_and_retries(tmp_path, key):
    with FakeOpenAI(faults={"500": 0.3}, unparseable_rate=0.4, seed=3) as url:
        result = run(url, tmp_path, limit=8)
    items = samples(result.path, price_in=2.0, price_out=8.0)
    usage = Usage.of(a for r in result.run.records for a in r.attempts)
    assert items["prompt_tokens"].sum() == usage.prompt > 0
    assert items["cost_usd"].sum() == pytest.approx(Prices(2.0, 8.0).cost(usage.prompt, usage.completion))
    assert items["transport_retries"].sum() == result.stats.retries > 0  # the 500s, retried by the transport
    assert items.loc[items["has_fault"], "faults"].map(len).gt(0).all()
    assert items["retried"].any()  # the unparseable first answers were asked again


@needs_data
def test_values_of_the_wrong_type_in_a_file_are_shown_as_absent(tmp_path, key):
    with FakeOpenAI() as url:
        result = run(url, tmp_path, limit=2)
    lines = result.path.read_text().splitlines()
    record = json.loads(lines[1])
    record["attempts"][0] |= {"latency_s": "fast", "transport_faults": {"a": 1}, "prompt_tokens": -5, "error": 7}
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("\n".join([lines[0], json.dumps(record), *lines[2:]]) + "\n")
    items = samples(damaged).set_index("item_id")
    row = items.loc[f"q{record['question_id']}-i{record['iteration']}"]  # the file holds answers as they came
    attempt = row["attempts"][0]
    assert attempt["latency_s"] is None and attempt["transport_faults"] == "" and attempt["error"] is None
    assert attempt["prompt_tokens"] is None and row["prompt_tokens"] >= 0


def test_lm_eval_samples_are_item_records_too(tmp_path):
    from eqbench_nb.eqbench.prompts import build_prompt

    qs = load_questions("v2")[:3]
    lines = []
    for i, q in enumerate(qs):
        text = "\n".join(f"{e}: {int(v)}" for e, v in q.reference.items()) if i else "Sorry."
        lines.append(
            json.dumps({"doc_id": i, "doc": {"prompt": build_prompt(q)}, "resps": [[text]], "filtered_resps": [text]})
        )
    path = tmp_path / "m" / "samples_eq_bench.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join(lines) + "\n")
    items = samples(path)
    assert list(items["parsed"]) == [False, True, True]
    assert items["lm_eval"].tolist()[1:] == [100.0, 100.0] and items["lm_eval"].iloc[0] == 0.0
    assert items["reason"].iloc[0] == "no 'Emotion: rating' pair read"


# ---------------------------------------------------------------- EmotionBench


def _panas_answers(prompt: str, temperature: float) -> str:
    """Ratings 1-5 of each listed item that depend on the situation asked (data/runs' run is all unreadable)."""
    import hashlib
    import re

    listed = re.findall(r"^(\d+)\. (.+)$", prompt, re.M)
    return "\n".join(
        f"{n}. {w}: {int(hashlib.sha256((prompt + w).encode()).hexdigest(), 16) % 5 + 1}" for n, w in listed
    )


@pytest.fixture(scope="module")
def scored_emotionbench_run(tmp_path_factory):
    """A small EmotionBench run against the fake server, every answer complete."""
    import os

    from conftest import KEY

    from eqbench_nb.emotionbench.task import run_emotionbench
    from eqbench_nb.runner import RetryPolicy
    from eqbench_nb.runner.settings import Endpoint, RunSettings

    os.environ.setdefault("OPENAI_API_KEY", KEY)
    out = tmp_path_factory.mktemp("emotionbench")
    with FakeOpenAI(responder=_panas_answers) as url:
        endpoint = Endpoint(base_url=url, model="fake-model", timeout_s=5,
                            retry=RetryPolicy(base_delay_s=0.01, max_delay_s=0.05))  # fmt: skip
        settings = RunSettings(out_dir=out, progress=False)
        return run_emotionbench(endpoint, settings, repeats=2, default_repeats=3, per_factor=2,
                                emotions=["Anger", "Fear"]).path  # fmt: skip


@needs_data
@pytest.mark.parametrize("which", ["committed", "scored"])
def test_emotionbench_records_carry_the_messages_the_ratings_and_the_change_from_default(which, request):
    path = EMOTIONBENCH if which == "committed" else request.getfixturevalue("scored_emotionbench_run")
    run = read_emotion_run(path)
    items = samples(path)
    assert len(items) == len(run.records) and items["item_id"].is_unique
    assert items.attrs["benchmark"] == "emotionbench"
    summary = summarise_run(run)
    complete = items[items["parsed"]]
    assert len(complete) == summary.n_default + summary.n_evoked
    default = complete[complete["situation"] == "General"]
    evoked = complete[complete["situation"] != "General"]
    assert bool(len(default) and len(evoked)) == (which == "scored")  # the committed run's answers: all unreadable
    if len(default) and len(evoked):
        assert evoked["negative_affect"].mean() == pytest.approx(summary.evoked["Negative Affect"])
        assert evoked["change_na"].mean() == pytest.approx(
            summary.evoked["Negative Affect"] - summary.default["Negative Affect"]
        )
    for row in items.itertuples():
        assert row.messages[0]["role"] == "system" and row.messages[1]["content"].startswith("Prompt: ")
        assert [r["item_id"] for r in row.ratings] == run.records[row.Index].item_ids
        assert row.decision == row.status and row.reason
        if not row.parsed:
            assert pd.isna(row.negative_affect) and pd.isna(row.change_na)


def test_samples_and_view_are_the_public_api():
    assert eqbench_nb.samples is samples
    assert "samples" in eqbench_nb.__all__ and "view" in eqbench_nb.__all__
    assert Path(eqbench_nb.view.__code__.co_filename).name == "widget.py"


@needs_data
def test_an_unfinished_run_shows_its_unanswered_questions(tmp_path, key):
    with FakeOpenAI() as url:
        result = run(url, tmp_path, limit=3)
    lines = result.path.read_text().splitlines()
    result.path.write_text("\n".join(lines[:-1]) + "\n")  # the last answer never arrived
    items = samples(result.path)
    assert len(items) == 3 and items["item_id"].tolist() == ["q1-i1", "q2-i1", "q3-i1"]
    (waiting,) = items.index[items["decision"] == "no record"]
    assert items.loc[waiting, "reason"] == "not answered yet: the run is unfinished (run it again)"


# ---------------------------------------------------------------- the header's intervals fit their n and unit


def _scores_table(path):
    from eqbench_nb.viewer.payload import viewer_payload

    scores = viewer_payload([path])["runs"][0]["summary"]["scores"]
    return scores["caption"], {row[0]: row for row in scores["rows"]}


@needs_data
def test_a_run_of_few_questions_gets_students_t_and_a_full_run_the_leaderboards_bootstrap():
    from eqbench_nb.analysis.stats import t_mean_ci
    from eqbench_nb.eqbench.study.leaderboard import leaderboard, shared_matrix

    quickstart = next((ROOT / "data" / "quickstart").glob("*.jsonl"))
    caption, rows = _scores_table(quickstart)
    assert caption.startswith("95 % interval: Student's t over the run's 8 questions")
    values = shared_matrix([read_run(quickstart)], "lm-eval").iloc[0].to_numpy(float)
    t = t_mean_ci(values, 0.95, 10.0)
    assert rows["lm-eval"][2] == f"{t.low:,.2f} – {t.high:,.2f}"

    published = RESULTS / "gpt-4-0613_eqbench_v2_results.json"
    caption, rows = _scores_table(published)
    assert "percentile bootstrap over the run's 171 questions" in caption
    board = leaderboard([published]).iloc[0]
    assert rows["official"][2] == f"{board.low:,.2f} – {board.high:,.2f}"


@needs_data
def test_an_emotionbench_change_is_tested_with_each_situation_one_unit(scored_emotionbench_run):
    from eqbench_nb.emotionbench.clustered import clustered_compare
    from eqbench_nb.emotionbench.summary import scored_responses

    caption, rows = _scores_table(scored_emotionbench_run)
    assert "each situation's mean one unit" in caption
    scored = scored_responses(read_emotion_run(scored_emotionbench_run))
    default = [s.scores["Negative Affect"] for s in scored if s.situation == "General"]
    situations = {}
    for s in scored:
        if s.situation != "General":
            situations.setdefault(s.situation, []).append(s.scores["Negative Affect"])
    change = clustered_compare(situations, default)
    assert len(situations) == 20 and change is not None and math.isfinite(change.high)  # 2 of each factor
    assert rows["Negative Affect"][3] == f"{change.difference:+.2f} [{change.low:,.2f}, {change.high:,.2f}]"
    assert rows["Negative Affect"][2].endswith("(n 40, 20 situations)")
