"""A run of the empathetic-responding benchmark read beside Welivita & Pu's study (notebook 13, section 5): the
counts a judge's replies imply, the judge against people on the human arm, the committed run of the bundled model
(its command, that it holds ids, ratings and outputs only, that a folder listing passes its human-arm file over)."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest
from cli_helper import cli
from conftest import KEY, ROOT, needs_data
from fake_openai_server import FakeOpenAI
from test_empathetic_responding import STUDY_RATING, run_args, subject

from eqbench_nb.benchmarks import empathetic_responding as er
from eqbench_nb.benchmarks import empathetic_responding_run as er_run
from eqbench_nb.welivita_pu import files, study

pytestmark = needs_data

PROMPTS = er.read_prompts(None)
BY_ID = {p.id: p for p in PROMPTS}


def _response(prompt: str) -> str:
    return prompt.split("Speaker #2: ", 1)[1].split("\n\nHow empathetic", 1)[0]


@pytest.fixture(scope="module")
def long():
    return study.ratings()


@pytest.fixture
def judged(monkeypatch, tmp_path):
    """A run of 40 prompts: the judge rates the subject Good after one unreadable reply on every fourth prompt, and
    each human response as the study's rater did, except that it never gives a readable rating to the human
    responses of the first two prompts (left unrated after three requests)."""
    chosen = er.select(PROMPTS, None, 40, None, 0)
    silent = {p.human for p in chosen[:2]}
    stalled = {p.speaker for p in chosen[::4]}
    seen: Counter[str] = Counter()

    def judge(prompt: str, temperature: float) -> str:
        response = _response(prompt)
        seen[prompt] += 1
        if response in silent:
            return "I cannot say."
        if response in STUDY_RATING:
            return er.WORDS[STUDY_RATING[response]] + ". It fits."
        speaker = prompt.split("Speaker #1: ", 1)[1].split("\nSpeaker #2: ", 1)[0]
        return "Hmm." if speaker in stalled and seen[prompt] == 1 else "Good"

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    s, j = FakeOpenAI(responder=subject), FakeOpenAI(responder=judge, models=("judge-a",))
    with s as su, j as ju:
        done = cli(*run_args(su, [(ju, "judge-a")], tmp_path, "--sample", "40"))
    assert done.returncode == 0, done.stderr
    return er.read(next(tmp_path.glob("fake-model__empathetic-responding__*"))), chosen


def test_arm_ratings_count_what_the_judges_replies_imply(judged):
    run, chosen = judged
    rows = er_run.arm_ratings(run).set_index("arm")
    model, human = rows.loc[er_run.ARM_NAMES["model"]], rows.loc[er_run.ARM_NAMES["human"]]
    assert (model["prompts"], model["rated"], model["unrated"], model["Good"]) == (40, 40, 0, 40)
    assert (model["requests"], model["readable"], model["asked again"]) == (50, 40, 10)
    people = [STUDY_RATING[p.human] for p in chosen[2:]]
    assert (human["prompts"], human["rated"], human["unrated"]) == (40, 38, 2)
    assert [human[w] for w in ("Bad", "Okay", "Good")] == [people.count(r) for r in (1, 2, 3)]
    assert human["mean rating"] == pytest.approx(sum(people) / 38)
    assert (human["requests"], human["readable"], human["asked again"]) == (38 + 2 * 3, 38, 2)


def test_a_judge_rating_the_human_arm_as_people_did_agrees_with_them_exactly(judged, long):
    run, chosen = judged
    vs = er_run.against_people(run, long)
    people = [STUDY_RATING[p.human] for p in chosen[2:]]
    assert vs.judge == "judge-a" and len(vs.pairs) == 38 and set(vs.pairs["dialog_id"]) == {p.id for p in chosen[2:]}
    assert vs.exact == 1.0 and vs.kappa.kappa == pytest.approx(1.0)
    assert vs.good_people == vs.good_judge == people.count(3) / 38
    assert int(vs.table.to_numpy().trace()) == 38 and int(vs.table.to_numpy().sum()) == 38
    with pytest.raises(ValueError, match="judge: 'judge-b' rated no human response"):
        er_run.against_people(run, long, "judge-b")


def test_the_longest_shared_run_of_words_ignores_case_and_punctuation():
    assert er_run.longest_shared_run("I was SO sad, because I had him", "so sad because i had him for years") == 6
    assert er_run.longest_shared_run("nothing alike", "at all here") == 0
    assert er_run.longest_shared_run("", "anything") == 0


# ---------------------------------------------------------------- the committed run of the bundled model


@pytest.fixture(scope="module")
def committed():
    return er.read(er_run.committed_run_path())


def test_the_committed_run_is_the_command_it_states_one_prompt_of_each_emotion(committed):
    assert er_run.command_line(committed, PROMPTS) == (
        "eqbench-nb run --benchmark empathetic-responding --prompt plain --sample 32 --seed 0 "
        "--out data/empathetic_responding_runs"
    )
    items = list(committed.header.own.items or ())
    assert Counter(BY_ID[i].emotion for i in items) == Counter({e: 1 for e in {p.emotion for p in PROMPTS}})
    assert committed.model == "SmolLM2-135M-Instruct" and committed.header.local_model is True
    answers = [s for s in committed.records if s.metadata.get("step") == "answer"]
    assert sorted(s.item for s in answers) == sorted(items)  # complete: every prompt answered
    shuffled = er.select(PROMPTS, None, None, 32, None)  # the first 32 are not the sample: the seed is read back
    assert [p.id for p in shuffled] != items
    with pytest.raises(ValueError, match="neither a --sample nor a --limit"):
        er_run.command_line(committed, PROMPTS[::-1][:100])


def test_the_committed_run_holds_ids_ratings_and_outputs_never_the_studys_text(committed):
    """The rule of the committed EmotionBench run (docs/emotionbench.md): ids and the model's outputs, no item text.
    A model's output may echo its prompt; measured when committed: at most 8 consecutive words of a speaker's
    utterance (one response) and 9 of the rating page (a judge reply); the bound below catches a run that embeds
    a prompt, a situation or a human response whole."""
    page = er.rating_page()
    page_text = f"{page.task} {page.definition} {page.question}"
    path = er_run.committed_run_path()
    for file in (path, er.human_arm_path(path.parent, "SmolLM2-135M-Instruct")):
        lines = file.read_text(encoding="utf-8").splitlines()
        for line in lines[1:]:
            record = json.loads(line)
            assert set(record) == {"type", "model", "run_id", "iteration", "item", "answer", "scores", "metadata",
                                   "attempts"}  # fmt: skip
            assert set(record["metadata"]) <= {"emotion", "sentiment", "step", "arm", "prompt", "judge",
                                               "judge_model", "attempt"}  # fmt: skip
            p = BY_ID[record["item"].split("#", 1)[0]]
            for attempt in record["attempts"]:
                text = attempt["text"] or ""
                for upstream in (p.speaker, p.situation, p.human, page_text):
                    assert er_run.longest_shared_run(text, upstream) <= 10, (record["item"], text)
        assert "/tmp" not in "".join(lines) and "/root" not in "".join(lines)


def test_a_folder_listing_passes_the_human_arm_file_over_unsaid_and_still_names_a_stray_file(tmp_path):
    folder = ROOT / "data" / er_run.COMMITTED_FOLDER
    done = cli("runs", folder, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert "passed over" not in done.stderr and "human-arm" not in done.stdout, done.stderr
    assert [(r["run_id"], r["prompts"]) for r in json.loads(done.stdout)] == [("plain-sample32-seed0", 32)]
    for path in folder.glob("*.jsonl"):
        shutil.copy(path, tmp_path)
    (tmp_path / "config.json").write_text("{}")
    done = cli("score", tmp_path, "--format", "csv")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("passed over") == 1 and "config.json: passed over" in done.stderr, done.stderr


def test_score_of_a_run_and_the_study_file_prints_both_tables(committed):
    done = cli("score", committed.path, files.FILES.locate(files.RATINGS_FILE))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.index("SmolLM2-135M-Instruct  plain-sample32-seed0") < out.index("GPT-4 with a definition of empathy")
    assert "1295" in out and "+31.3 % [" in out
