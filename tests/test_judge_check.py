"""``eqbench-nb judge-check``: a judge or a panel against people, through loopback fake judges speaking real HTTP
to the real openai client. A judge that answers with the people's own ratings must agree with them perfectly and
reproduce the published agreements; one that always says Good must have kappa 0 and the arm bias the data imply."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from cli_helper import cli as run_cli
from conftest import KEY, needs_data
from fake_openai_server import FakeOpenAI

from eqbench_nb.benchmarks import empathetic_responding as er
from eqbench_nb.benchmarks import judge_check as jc
from eqbench_nb.empathy_judges import conversations as kc
from eqbench_nb.empathy_judges import tables

pytestmark = needs_data

REPS = "200"  # bootstrap resamples: enough for an interval, few enough for the suite


def cli(*argv: str) -> tuple[int, str, str]:
    done = run_cli(*argv)
    return done.returncode, done.stdout, done.stderr


def _expert_replies(rater: str) -> dict[str, str]:
    """Each conversation's judge prompt -> ``rater``'s ratings of it as the JSON reply the prompt asks for."""
    out = {}
    for item in jc.items_of("kumar", None, None, None):
        ratings = item.people[rater]
        out[item.messages[0]["content"]] = json.dumps({kc.key_of(d): int(v) for d, v in ratings.items()})
    return out


WP_ITEMS = jc.items_of("welivita-pu", None, None, None)
#: Each W&P judge prompt (the speaker's utterance and one response) -> the one human rating of that response; the
#: six prompt texts two responses share with different ratings are left out; a sample is checked to hold none.
_RATED: dict[str, set[int]] = {}
for _i in WP_ITEMS:
    _RATED.setdefault(_i.messages[0]["content"], set()).add(int(_i.people["human"]["rating"]))
HUMAN = {p: next(iter(r)) for p, r in _RATED.items() if len(r) == 1}


def _unambiguous(sample: int, seed: int | None = None) -> None:
    ids = {p.id for p in er.select(er.read_prompts(None), None, sample, None, seed)}
    assert all(i.messages[0]["content"] in HUMAN for i in WP_ITEMS if i.metadata["prompt"] in ids)


def _judge_args(url: str, model: str) -> list[str]:
    return ["--judge-base-url", url, "--judge-model", model]


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def test_a_judge_answering_with_expert1s_ratings_agrees_with_expert1_and_with_expert2_as_expert1_does(key, tmp_path):
    replies = _expert_replies("expert1")
    fake = FakeOpenAI(models=("as-expert1",), responder=lambda prompt, t: replies.get(prompt, "no idea"))
    with fake as url:
        rc, out, err = cli("judge-check", "--data", "kumar", *_judge_args(url, "as-expert1"), "--out", str(tmp_path),
                           "--no-progress", "--format", "json", "--reps", REPS)  # fmt: skip
    assert rc == 0, err
    assert sum(e.get("outcome") == "ok" for e in fake.log) == 150  # one request per conversation, all read
    rows = json.loads(out)
    published = tables.read_csv(tables.KAPPA_TABLE, None, dtype=str)
    e12 = published[published["Annotator Pair"] == "('expert1', 'expert2')"].set_index("Dimension")
    dims = [d for f in kc.TEXT for d in tables.FRAMEWORKS[f][2]]
    assert len(dims) == 12
    for dim in dims:
        mine = {r["against"]: r for r in rows if r["dimension"] == dim}
        assert mine["expert1"]["n"] == 50 and f"{mine['expert1']['kappa']:.3f}" == "1.000", dim
        assert f"{mine['expert2']['kappa']:.2f}" == e12.loc[dim, "Weighted Cohen's Kappa"], dim
        assert mine["expert1"]["kappa_low"] == pytest.approx(1.0) and mine["expert1"]["spearman"] == pytest.approx(1)
        verdict = mine["mean of the three experts"]
        assert verdict["verdict"] in ("reaches the expert band", "cannot tell at this n"), dim
        assert verdict["expert_low"] <= verdict["expert_median"] <= verdict["expert_high"]
        counts = mine["expert1"]["confusion"]["counts"]
        assert sum(map(sum, counts)) == 50 and all(
            c == 0 for i, r in enumerate(counts) for j, c in enumerate(r) if i != j
        )
    assert next(r for r in rows if r["dimension"] == "empathy" and r["against"] == "expert2")["kappa"] == (
        pytest.approx(0.51, abs=0.005)
    )
    # the same command again: nothing asked again
    again = FakeOpenAI(models=("as-expert1",), responder=lambda p, t: "no idea")
    with again as url2:
        rc, out2, err = cli("judge-check", "--data", "kumar", *_judge_args(url2, "as-expert1"), "--out",
                            str(tmp_path), "--no-progress", "--format", "json", "--reps", REPS)  # fmt: skip
    assert not [e for e in again.log if e.get("outcome") == "ok"]
    assert rc == 0, err
    assert json.loads(out2) == rows
    # score of the judge's run file gives the same rows; the viewer shows it
    path = next(tmp_path.glob("as-expert1__judge-check-kumar__*.jsonl"))
    assert KEY not in path.read_text()
    rc, out3, err = cli("score", str(path), "--format", "json")
    assert rc == 0, err
    assert [r["kappa"] for r in json.loads(out3)] == pytest.approx([r["kappa"] for r in rows], nan_ok=True)
    rc, _, err = cli("view", str(path), "--out", str(tmp_path / "view.html"))
    assert rc == 0, err
    assert "validating_emotions" in (tmp_path / "view.html").read_text()


def test_a_judge_answering_each_responses_human_rating_has_kappa_1_and_no_arm_bias(key, tmp_path):
    _unambiguous(40)
    fake = FakeOpenAI(models=("as-people",), responder=lambda p, t: er.WORDS[HUMAN[p]] + ". Fits.")
    with fake as url:
        rc, out, err = cli("judge-check", "--data", "welivita-pu", "--sample", "40", *_judge_args(url, "as-people"),
                           "--out", str(tmp_path), "--no-progress", "--format", "json", "--reps", REPS)  # fmt: skip
    assert rc == 0, err
    assert sum(e.get("outcome") == "ok" for e in fake.log) == 120  # 40 prompts x 3 arms
    rows = json.loads(out)
    agree = {r["dimension"]: r for r in rows if r.get("against")}
    assert set(agree) == {"rating (all)", "rating (human)", "rating (chatgpt)", "rating (chatgpt_empathy)"}
    assert f"{agree['rating (all)']['kappa']:.3f}" == "1.000" and agree["rating (all)"]["n"] == 120
    assert agree["rating (all)"]["clusters"] > 1
    bias = {r["arms"]: r for r in rows if r.get("kind") == "arm bias"}
    assert len(bias) == 3
    for r in bias.values():
        assert r["prompts"] == 40 and r["bias"] == 0.0 and r["low"] == 0.0 and r["high"] == 0.0


def test_a_judge_that_always_says_good_has_kappa_0_and_the_arm_bias_the_ratings_imply(key, tmp_path):
    fake = FakeOpenAI(models=("always-good",), responder=lambda p, t: "Good")
    with fake as url:
        rc, out, err = cli("judge-check", "--data", "welivita-pu", "--sample", "64", "--seed", "3",
                           *_judge_args(url, "always-good"), "--out", str(tmp_path), "--no-progress", "--format",
                           "json", "--reps", REPS)  # fmt: skip
    assert rc == 0, err
    rows = json.loads(out)
    assert next(r for r in rows if r.get("dimension") == "rating (all)")["kappa"] == pytest.approx(0.0, abs=1e-12)
    chosen = er.select(er.read_prompts(None), None, 64, None, 3)
    table = pd.read_csv(er.FILES.locate(er.CSV_NAME)).set_index("dialog_id").loc[[p.id for p in chosen]]
    # judge − human is 3 − rating; GPT-4 arm minus human arm: the human arm's mean rating minus the GPT-4 arm's
    want = {a: table["rating_human"].mean() - table[f"rating_{a}"].mean() for a in jc.MODEL_ARMS}
    bias = {r["arms"]: r for r in rows if r.get("kind") == "arm bias"}
    assert bias["chatgpt − human"]["bias"] == pytest.approx(want["chatgpt"])
    assert bias["chatgpt_empathy − human"]["bias"] == pytest.approx(want["chatgpt_empathy"])
    both = bias["GPT-4 (both arms) − human"]
    assert both["bias"] == pytest.approx((want["chatgpt"] + want["chatgpt_empathy"]) / 2)
    assert both["low"] < both["bias"] < both["high"]


def test_two_judges_make_a_panel_and_a_judge_joining_later_rates_only_its_own_items(key, tmp_path):
    people = FakeOpenAI(models=("as-people",), responder=lambda p, t: er.WORDS[HUMAN[p]])
    good = FakeOpenAI(models=("always-good",), responder=lambda p, t: "Good")
    common = ["--data", "welivita-pu", "--sample", "12", "--out", str(tmp_path), "--no-progress", "--reps", REPS]
    with people as pu, good as gu:
        assert cli("judge-check", *common, *_judge_args(pu, "as-people"))[0] == 0
        rc, out, err = cli("judge-check", *common, *_judge_args(pu, "as-people"), *_judge_args(gu, "always-good"),
                           "--format", "json")  # fmt: skip
    assert rc == 0, err
    assert (
        sum(e.get("outcome") == "ok" for e in people.log) == 36
        and sum(e.get("outcome") == "ok" for e in good.log) == 36
    )
    rows = json.loads(out)
    assert {r["judge"] for r in rows} == {"as-people", "always-good", "panel"}
    panel = next(r for r in rows if r["judge"] == "panel" and r.get("dimension") == "rating (all)")
    assert 0 < panel["kappa"] < 1


def test_the_report_reads_as_a_table_with_the_rule_stated(key, tmp_path):
    replies = _expert_replies("expert2")
    with FakeOpenAI(models=("as-expert2",), responder=lambda p, t: replies.get(p, "?")) as url:
        rc, out, err = cli("judge-check", "--data", "kumar", *_judge_args(url, "as-expert2"), "--out", str(tmp_path),
                           "--no-progress", "--reps", "100")  # fmt: skip
    assert rc == 0, err
    assert "reaches the expert band when" in out and "expert band: median" in out and "validating_emotions" in out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--data", "kumar", "--sample", "5"], "--sample draws W&P's prompts"),
        (["--data", "nobody"], "invalid choice"),
        (["--data", "kumar", "--reps", "10"], "at least 100"),
        (["--data", "kumar", "--judges", "/no/such/file.json"], "--judges /no/such/file.json: cannot read it"),
        (["--data", "kumar", "--judge-model", "a", "--judge-model", "b", "--judge-timeout", "1", "--judge-timeout",
          "2", "--judge-timeout", "3"], "3 judges, but --judge-model 2 times"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(argv, says, tmp_path):
    rc, _, err = cli("judge-check", *argv, "--out", str(tmp_path))
    assert rc == 2 and says in err and len(err.strip().splitlines()) == 1, err


def test_a_dry_run_sends_nothing_and_says_what_it_would(key, tmp_path):
    fake = FakeOpenAI(models=("j",))
    with fake as url:
        rc, out, err = cli("judge-check", "--data", "welivita-pu", "--sample", "10", "--dry-run",
                           *_judge_args(url, "j"), "--out", str(tmp_path))  # fmt: skip
    assert rc == 0, err
    assert "dry run: nothing sent; 30 items of welivita-pu" in out
    assert not [e for e in fake.log if e.get("outcome") == "ok"] and not list(Path(tmp_path).glob("*.jsonl"))


def test_the_reply_readers():
    assert kc.parse_ratings('sure: {"empathy": 4, "relevance": "5", "fluency": 3}', "empatheticdialogues") == {
        "empathy": 4.0,
        "relevance": 5.0,
        "fluency": 3.0,
    }
    assert kc.parse_ratings('{"empathy": 4.5, "relevance": 5, "fluency": 3}', "empatheticdialogues") is None
    assert kc.parse_ratings('{"empathy": 6, "relevance": 5, "fluency": 3}', "empatheticdialogues") is None
    assert kc.parse_ratings('{"emotional_reactions": 2, "interpretations": 0}', "epitome") is None
    prompt = kc.judge_prompt(kc.conversations()[60])[0]["content"]
    assert "level 0" in prompt and '"explorations": <0-2>' in prompt
    assert "this project's" in kc.PROMPT_NOTE


def test_an_unreadable_reply_is_asked_again_three_times_in_all_then_left_unrated(key, tmp_path):
    unsure = {i.messages[0]["content"] for i in WP_ITEMS if i.metadata["arm"] == "human"}
    fake = FakeOpenAI(models=("torn",), responder=lambda p, t: "Good, or maybe Bad" if p in unsure else "Okay")
    with fake as url:
        rc, out, err = cli("judge-check", "--data", "welivita-pu", "--sample", "4", *_judge_args(url, "torn"), "--out",
                           str(tmp_path), "--no-progress", "--format", "json", "--reps", "100")  # fmt: skip
    assert rc == 0, err
    assert sum(e.get("outcome") == "ok" for e in fake.log) == 8 + 4 * jc.JUDGE_ATTEMPTS
    rows = {r["dimension"]: r for r in json.loads(out) if r.get("against")}
    assert rows["rating (human)"]["n"] == 0 and rows["rating (chatgpt)"]["n"] == 4 and rows["rating (all)"]["n"] == 8


def test_a_judges_file_names_the_panel_and_two_judges_of_one_model_keep_files_of_their_own(key, tmp_path):
    fake = FakeOpenAI(models=("shared",), responder=lambda p, t: er.WORDS[HUMAN[p]])
    with fake as url:
        panel = tmp_path / "panel.json"
        panel.write_text(json.dumps({"judges": [{"id": "first", "model": "shared", "base_url": url},
                                                {"id": "second", "model": "shared", "base_url": url}]}))  # fmt: skip
        rc, out, err = cli("judge-check", "--data", "welivita-pu", "--sample", "3", "--judges", str(panel), "--out",
                           str(tmp_path), "--no-progress", "--format", "json", "--reps", "100")  # fmt: skip
    assert rc == 0, err
    assert sorted(p.name for p in tmp_path.glob("*.jsonl")) == [
        "shared__judge-check-welivita-pu__first-sample3-seed0.jsonl",
        "shared__judge-check-welivita-pu__second-sample3-seed0.jsonl",
    ]
    rows = json.loads(out)
    assert {r["judge"] for r in rows} == {"first", "second", "panel"}
    assert all(r["kappa"] == pytest.approx(1.0) for r in rows if r.get("dimension") == "rating (all)")


def test_score_without_the_peoples_ratings_names_the_file_in_one_line(monkeypatch):
    from eqbench_nb.data import DataError

    folder = Path(__file__).resolve().parents[1] / "data" / "judge_check_runs"
    committed = next(folder.glob("*__judge-check-welivita-pu__*.jsonl"))

    def missing(*_: object) -> list:
        raise DataError("Welivita & Pu file data/dataset_and_ratings.csv not found")

    monkeypatch.setattr(jc, "items_of", missing)
    rc, out, err = cli("score", str(committed))
    assert rc == 2 and not out
    assert err.strip() == (f"error: {committed}: cannot set the judge against the people (Welivita & Pu file "
                           "data/dataset_and_ratings.csv not found)")  # fmt: skip


def test_through_the_batch_api_an_unreadable_reply_is_asked_again_in_the_next_batch(key, tmp_path):
    asked: dict[str, int] = {}

    def unsure_at_first(prompt: str, temperature: float) -> str:
        asked[prompt] = asked.get(prompt, 0) + 1
        human_arm = any(i.messages[0]["content"] == prompt and i.metadata["arm"] == "human" for i in WP_ITEMS)
        return "Good or Bad" if human_arm and asked[prompt] == 1 else "Okay"

    fake = FakeOpenAI(models=("batched",), responder=unsure_at_first)
    with fake as url:
        args = ["judge-check", "--data", "welivita-pu", "--sample", "4", *_judge_args(url, "batched"), "--batch",
                "--poll-interval", "0.02", "--out", str(tmp_path), "--no-progress", "--format", "json", "--reps",
                "100"]  # fmt: skip
        rc, out, err = cli(*args)
        assert rc == 0, err
        assert not [e for e in fake.log if e.get("outcome") == "ok"]  # no chat request: every one went in a batch
        assert "asking the unreadable replies again" in err and sum(asked.values()) == 12 + 4
        assert cli(*args)[0] == 0 and sum(asked.values()) == 16  # the same command again asks nothing
    rows = {r["dimension"]: r for r in json.loads(out) if r.get("against")}
    assert rows["rating (all)"]["n"] == 12 and rows["rating (human)"]["n"] == 4
    path = next(tmp_path.glob("batched__judge-check-welivita-pu__*.jsonl"))
    assert json.loads(path.read_text().splitlines()[0])["batch"] is True
