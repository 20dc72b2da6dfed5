"""EmotionBench: prompts byte-equal to upstream's, orders mapped back, refusals, the paper's test, the published
numbers reproduced, and the run over real loopback HTTP (the fake server) and on the bundled model."""

from __future__ import annotations

import csv
import hashlib
import json
import math
import re
import statistics

import pytest
from conftest import DATA, needs_data, needs_data_folder, needs_local_model, serve_folder
from fake_openai_server import FakeOpenAI
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from eqbench_nb.cli import main
from eqbench_nb.data import DataError
from eqbench_nb.runner import RetryPolicy

pytestmark = needs_data  # every test reads the upstream files (never committed), found as the package finds them

EB = DATA / "emotionbench" / "raw"
FAST = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)


def run_eb(url, tmp_path, **kw):
    from conftest import split_fields

    from eqbench_nb.emotionbench.task import run_emotionbench
    from eqbench_nb.runner.settings import Endpoint, RunSettings

    kw = {"model": "fake-model", "out_dir": tmp_path, "progress": False, "retry": FAST, "timeout_s": 5, **kw}
    endpoint, settings, options = split_fields({"base_url": url, **kw})
    return run_emotionbench(Endpoint(**endpoint), RunSettings(**settings), **options)


def upstream_template_columns() -> dict[str, list[str]]:
    """The test-sheet template upstream ran (doc.csv) as columns: header -> cells."""
    with open(EB / "panas_test" / "doc_panas_testing_template.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    return {name: [r[j] for r in rows[1:]] for j, name in enumerate(rows[0])}


def upstream_prompt(columns: dict[str, list[str]], column: str) -> str:
    """Upstream's recipe (example_generator @ 48f6e1b): the question column joined with newlines, SCENARIO replaced
    by the test column's first cell."""
    return "\n".join(columns["question-0"]).replace("SCENARIO", columns[column][0])


def rating_of(word: str) -> int:
    return int(hashlib.sha256(word.encode()).hexdigest(), 16) % 5 + 1


def named_answers(prompt: str, temperature: float) -> str:
    """A model that rates each listed item by a fixed rule of its word, echoing the listing ("7. Scared: 3")."""
    listed = re.findall(r"^(\d+)\. (.+)$", prompt, re.M)
    return "\n".join(f"{n}. {word}: {rating_of(word)}" for n, word in listed)


# ---------------------------------------------------------------- prompts


def test_the_messages_sent_over_http_are_byte_equal_to_upstreams_construction(tmp_path, key):
    from eqbench_nb.emotionbench.items import load_questionnaire

    columns = upstream_template_columns()
    system = load_questionnaire().system
    assert system == json.loads((EB / "questionnaires.json").read_text())[0]["inner_setting"]
    fake = FakeOpenAI(responder=named_answers)
    url = fake.start()
    try:
        run_eb(url, tmp_path, repeats=1, default_repeats=2, per_factor=2, emotions=["Anger", "Jealousy"])
    finally:
        fake.stop()
    sent = {}
    for entry in fake.log:
        messages = entry["body"]["messages"]
        assert entry["body"]["temperature"] == 0 and entry["body"]["max_tokens"] == 1024
        assert messages[0] == {"role": "system", "content": system}
        sent[messages[1]["content"]] = entry
    expected = {upstream_prompt(columns, "General_test-0_order-0")}
    for key_ in ("Anger-0", "Anger-4", "Jealousy-2", "Jealousy-3"):
        for s in (0, 1):
            expected.add(upstream_prompt(columns, f"{key_}_scenario-{s}_test-0_order-0"))
    assert expected <= set(sent)
    assert len(set(sent)) == 1 + 2 * 9  # the default and 2 situations of each of Anger's 5 and Jealousy's 4 factors
    # the default's SCENARIO is one space: "1 to 5." then three spaces
    assert "from 1 to 5.   Please" in upstream_prompt(columns, "General_test-0_order-0")


def test_every_one_of_the_175_situations_builds_upstreams_prompt():
    from eqbench_nb.emotionbench.items import load_questionnaire, load_situations
    from eqbench_nb.emotionbench.prompts import build_messages

    columns = upstream_template_columns()
    q = load_questionnaire()
    situations = load_situations()
    assert len(situations) == 175
    for s in situations:
        assert build_messages(q, s, q.ids)[1]["content"] == upstream_prompt(columns, f"{s.key}_test-0_order-0")


@needs_data_folder  # the map was made for the tests: no download has it
def test_situations_and_labels_agree_with_the_shared_map():
    from eqbench_nb.emotionbench.items import load_situations

    with open(DATA / "emotionbench" / "panas175_situations.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    ours = load_situations()
    assert [(r["situation_key"], r["text"], r["crowd_label_presumed"], r["factor_name"]) for r in rows] == [
        (s.key, s.text, s.crowd_label, s.factor_name) for s in ours
    ]


# ---------------------------------------------------------------- orders, refusals, the run file


def test_shuffled_orders_are_mapped_back_to_item_ids(tmp_path, key):
    from eqbench_nb.emotionbench.items import load_questionnaire

    q = load_questionnaire()
    with FakeOpenAI(responder=named_answers) as url:
        result = run_eb(url, tmp_path, repeats=1, default_repeats=2, per_factor=1, emotions=["Fear"], orders=3)
    orders = {tuple(r.item_ids) for r in result.run.records}
    assert len(orders) == 3 and tuple(q.ids) in orders  # the questionnaire's order and two distinct shuffles
    for r in result.run.records:
        assert r.status == "complete"
        assert r.ratings == {i: rating_of(q.items[i]) for i in q.ids}  # by id, whatever the order asked
    assert result.complete and len(result.run.records) == (2 + 5) * 3


def test_a_refusing_model_is_recorded_as_refusing_and_never_averaged_in(tmp_path, key, capsys):
    with FakeOpenAI(responder=lambda p, t: "As an AI, I don't have feelings or emotions.") as url:
        result = run_eb(url, tmp_path, repeats=1, default_repeats=2, per_factor=1, emotions=["Guilt"])
    assert {r.status for r in result.run.records} == {"refused"}
    row = result.summary.as_row()
    assert row["refusals"] == len(result.run.records) == 2 + 4  # the default twice, one situation of each of 4 factors
    assert row["refusal_rate"] == 1.0
    assert row["n_default"] == row["n_evoked"] == 0 and row["default_pa"] is None
    assert main(["score", str(result.path), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)[0]
    assert printed["benchmark"] == "emotionbench" and printed["refusals"] == 6 and printed["evoked_na"] is None


def test_score_json_gives_the_issues_fields_computed_from_the_answers(tmp_path, key, capsys):
    from eqbench_nb.emotionbench.items import load_questionnaire

    q = load_questionnaire()
    with FakeOpenAI(responder=named_answers) as url:
        result = run_eb(url, tmp_path, repeats=2, per_factor=1, emotions=["Anger"])
    pa = sum(rating_of(q.items[i]) for i in q.categories["Positive Affect"])
    na = sum(rating_of(q.items[i]) for i in q.categories["Negative Affect"])
    assert main(["score", str(result.path), "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    expected = {"benchmark": "emotionbench", "model": "fake-model", "default_pa": pa, "default_na": na}
    assert {k: row[k] for k in expected} == expected
    assert (row["evoked_pa"], row["evoked_na"], row["n_default"], row["n_evoked"], row["refusals"]) == (
        pa,
        na,
        10,
        10,
        0,
    )
    assert main(["score", str(result.path)]) == 0
    table = capsys.readouterr().out
    assert "default_pa" in table and "fake-model" in table


def test_a_second_run_resumes_and_other_settings_are_refused(tmp_path, key):
    from eqbench_nb.runner.errors import RunnerError

    with FakeOpenAI(responder=named_answers) as url:
        first = run_eb(url, tmp_path, repeats=1, default_repeats=2, per_factor=1, emotions=["Anger"])
        again = run_eb(url, tmp_path, repeats=1, default_repeats=2, per_factor=1, emotions=["Anger"])
        assert first.answered_now == 7 and again.answered_now == 0 and again.complete
        with pytest.raises(RunnerError, match="different settings"):
            run_eb(url, tmp_path, repeats=1, default_repeats=2, per_factor=1, emotions=["Anger"], parser="upstream",
                   run_id=first.run.run_id)  # fmt: skip


def test_cli_run_emotionbench_and_its_mistakes(tmp_path, key, capsys):
    with FakeOpenAI(responder=named_answers) as url:
        args = [
            "run",
            "--benchmark",
            "emotionbench",
            "--base-url",
            url,
            "--model",
            "fake-model",
            "--out",
            str(tmp_path),
        ]
        code = main([*args, "--repeats", "1", "--default-repeats", "2", "--per-factor", "1", "--emotions", "Fear",
                     "--no-progress"])  # fmt: skip
        out = capsys.readouterr()
        assert code == 0 and "complete 7, refused 0" in out.out
        assert main([*args, "--limit", "3"]) == 2
        assert "--limit belongs to EQ-Bench" in capsys.readouterr().err
        assert main([*args, "--emotions", "Joy"]) == 2
        assert "unknown emotion 'Joy'" in capsys.readouterr().err


# ---------------------------------------------------------------- the reader


def test_reader_worked_examples():
    from eqbench_nb.emotionbench.parsing import parse_answer

    names = ["Interested", "Distressed", "Excited"]
    assert parse_answer("3\n1\n4", names).ratings == (3, 1, 4)
    assert parse_answer("1. Interested: 3\n2. Distressed: 1\n3. Excited: 4", names).ratings == (3, 1, 4)
    assert parse_answer("Interested - 3\nDistressed - 1\nExcited - 4", names).ratings == (3, 1, 4)
    assert parse_answer("**Interested**: 3\n**Distressed**: 1\n**Excited**: 4", names).ratings == (3, 1, 4)
    assert parse_answer("Sure! On a scale of 1 to 5: Interested: 3, Distressed: 1, Excited: 4.", names).ratings == (
        3,
        1,
        4,
    )
    assert parse_answer("1. 3, 2. 1, 3. 4", names).ratings == (3, 1, 4)
    assert parse_answer("1. Interested\n2. Distressed\n3. Excited", names).status == "unreadable"  # no ratings
    assert parse_answer("Interested: 3\nDistressed: 1", names).status == "incomplete"
    assert parse_answer("Interested: 3\nDistressed: 9\nExcited: 4", names).status == "incomplete"  # off the scale
    refused = parse_answer("As an AI language model, I don't have feelings.", names)
    assert refused.status == "refused" and refused.ratings == (None, None, None)
    assert parse_answer(None, names).status == "no answer"


def test_upstreams_reader_reads_the_last_character_and_blanks_on_any_failure():
    from eqbench_nb.emotionbench.parsing import parse_answer

    names = ["Interested", "Distressed", "Excited"]
    assert parse_answer("1. Interested: 3\n2. Distressed: 1\n3. Excited: 4", names, "upstream").ratings == (3, 1, 4)
    assert parse_answer("Interested: 3\nDistressed: 1\nExcited: 4.", names, "upstream").status == "unreadable"
    assert parse_answer("Interested: 3\nDistressed: 1", names, "upstream").status == "unreadable"  # upstream: crash
    assert parse_answer("a 3\nb 9\nc 4", names, "upstream").ratings == (3, 9, 4)  # kept off the scale, as upstream
    # where they part: the robust reader reads what upstream blanks
    assert parse_answer("Interested: 3, Distressed: 1, Excited: 4", names, "upstream").status == "unreadable"
    assert parse_answer("Interested: 3, Distressed: 1, Excited: 4", names).status == "complete"


# ---------------------------------------------------------------- the paper's test


def test_compare_is_upstreams_f_test_then_student_or_welch():
    from eqbench_nb.emotionbench.scoring import compare

    default = [20.0, 21, 22, 20, 21, 22, 20, 21, 22, 21]
    same_spread = [30.0, 31, 32, 30, 31, 32, 30, 31, 32, 31]
    c = compare(same_spread, default)
    assert c.equal_var and c.verdict == "↑" and c.cell() == "↑ (+10.0)"
    assert math.isclose(c.t_value, stats.ttest_ind(same_spread, default, equal_var=True).statistic, rel_tol=1e-6)
    wide = [5.0, 40, 10, 35, 12, 30, 8, 38, 15, 33]
    w = compare(wide, default)
    assert not w.equal_var  # F-test rejects equal variances at α = 0.01
    assert math.isclose(w.p_value, stats.ttest_ind(wide, default, equal_var=False).pvalue, rel_tol=1e-6)
    assert w.verdict == "−"  # the means differ by 0.6 against a large spread
    low = [10.0, 11, 12, 10, 11, 12, 10, 11, 12, 11]
    assert compare(low, default).verdict == "↓"
    constant = compare([25.0] * 5, [25.0] * 5)  # both SDs are 0 + 1e-8: upstream's epsilon keeps the test defined
    assert constant.verdict == "−" and constant.difference == 0
    assert compare([1.0], default) is None


# ---------------------------------------------------------------- the published numbers


def test_rescoring_the_sheets_reproduces_214_of_216_leaderboard_cells_and_names_the_two_others():
    from eqbench_nb.emotionbench.sheets import KNOWN_MISMATCHES, match_factor_cells

    cells = match_factor_cells()
    assert len(cells) == 216 and len({c.sheet for c in cells}) == 6
    mismatched = {(c.sheet, c.factor) for c in cells if not c.matched}
    assert mismatched == KNOWN_MISMATCHES == {("llama2-7b", "Jealousy-0"), ("llama2-7b", "Jealousy-1")}
    # why: the llama2-7b sheet lacks 13 runs of those two factors (50 and 50 expected, 43 and 44 there)
    assert sorted(c.n for c in cells if not c.matched) == [43, 44]


def test_the_human_norms_recomputed_from_the_raw_sheet():
    from eqbench_nb.emotionbench.humans import load_participants, norms

    people = load_participants()
    assert len(people) == 1266
    assert all(p.stated[f"before {s}"] == p.before[s] for p in people for s in ("Positive Affect", "Negative Affect"))
    overall = norms()["Overall"]
    pa, na = "Positive Affect", "Negative Affect"
    assert (round(overall.before[pa], 2), round(overall.after[pa], 2)) == (28.02, 22.89)
    assert (round(overall.before[na], 2), round(overall.after[na], 2)) == (13.62, 24.05)
    assert round(overall.sd_before[pa], 2) == 8.88  # the Summary sheet prints 8.668, the after-SD
    assert (round(overall.t_value[pa], 1), round(overall.t_value[na], 1)) == (-20.7, 38.6)
    changes = [p.change(na) for p in people]
    assert math.isclose(overall.change[na], statistics.fmean(changes))


def test_alignment_of_a_model_equal_to_the_humans_is_perfect_and_a_shuffled_one_is_not():
    from eqbench_nb.emotionbench.alignment import alignment_measures
    from eqbench_nb.emotionbench.humans import norms

    human = norms()
    factors = [k for k in human if "-" in k]
    pa, na = "Positive Affect", "Negative Affect"
    levels = {f: {pa: human[f].after[pa], na: human[f].after[na]} for f in factors}
    levels["General"] = {pa: human["Overall"].before[pa], na: human["Overall"].before[na]}
    m = alignment_measures(levels, human, reps=200)
    assert math.isclose(m["na_r"].value, 1.0) and m["na_mae"].value == 0 and m["pa_default_error"].value == 0
    shuffled = dict(zip(factors, reversed([levels[f] for f in factors])))
    shuffled["General"] = levels["General"]
    s = alignment_measures(shuffled, human, reps=200)
    assert s["na_r"].value < 0.9 and s["na_mae"].value > 0 and s["na_r"].low <= s["na_r"].value <= s["na_r"].high


def test_alignment_refuses_a_percentile_bootstrap_over_fewer_than_small_n_factors():
    """The intervals resample the factors: below SMALL_N of them the house's small-n rule refuses the percentile
    bootstrap unless it is named (issue 39); the full set of 36 factors needs no name."""
    from eqbench_nb.analysis.stats import SMALL_N, SmallSampleError
    from eqbench_nb.emotionbench.alignment import alignment_measures
    from eqbench_nb.emotionbench.humans import norms

    human = norms()
    factors = [k for k in human if "-" in k]
    pa, na = "Positive Affect", "Negative Affect"
    levels = {f: {pa: human[f].before[pa], na: human[f].before[na]} for f in factors[: SMALL_N - 1]}
    levels["General"] = {pa: human["Overall"].before[pa], na: human["Overall"].before[na]}
    with pytest.raises(SmallSampleError, match="alignment_measures"):
        alignment_measures(levels, human, reps=50)
    named = alignment_measures(levels, human, reps=50, interval="percentile")
    assert named["na_r"].n == SMALL_N - 1 and named["na_r"].low <= named["na_r"].high


def test_the_name_match_table_has_a_source_per_row_and_names_leaderboard_models():
    from eqbench_nb.emotionbench.alignment import name_matches
    from eqbench_nb.emotionbench.sheets import load_leaderboard

    names = name_matches()
    assert set(names["emotionbench_model"]) == set(load_leaderboard())
    assert (names["source"].str.len() > 20).all() and (names["match_note"].str.len() > 5).all()


# ---------------------------------------------------------------- data lookup


def test_a_download_is_kept_only_when_its_sha256_matches(tmp_path, monkeypatch, no_local_data):
    from eqbench_nb.emotionbench import files

    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "questionnaires.json").write_bytes((EB / "questionnaires.json").read_bytes())
    (mirror / "situations.json").write_text("{}")  # not the pinned file
    with serve_folder(mirror) as url:
        monkeypatch.setenv(files.MIRROR_ENV, url)
        got = files.locate("questionnaires.json")
        assert got.read_bytes() == (EB / "questionnaires.json").read_bytes() and got.is_relative_to(no_local_data)
        with pytest.raises(DataError, match="sha256"):
            files.locate("situations.json")
        assert not list(no_local_data.rglob("situations.json"))


# ---------------------------------------------------------------- the bundled model


@needs_local_model
@pytest.mark.slow
def test_the_bundled_model_end_to_end_on_a_few_situations(tmp_path):
    from eqbench_nb.emotionbench.task import run_emotionbench
    from eqbench_nb.runner.settings import RunSettings

    result = run_emotionbench(settings=RunSettings(out_dir=tmp_path, progress=False), repeats=1, default_repeats=2,
                              per_factor=1, emotions=["Anger"])  # fmt: skip
    assert result.complete and len(result.run.records) == 7
    assert result.run.header["local_model"] is True and result.run.model == "SmolLM2-135M-Instruct"
    for r in result.run.records:
        assert r.attempt["text"] is not None and r.status in ("complete", "incomplete", "refused", "unreadable")
    row = result.summary.as_row()
    assert row["n_default"] + row["n_evoked"] == sum(r.complete for r in result.run.records)


# ---------------------------------------------------------------- the reader, property-tested


PANAS_WORDS = ["Interested", "Distressed", "Excited", "Upset", "Strong", "Guilty", "Scared", "Hostile", "Enthusiastic",
               "Proud", "Irritable", "Alert", "Ashamed", "Inspired", "Nervous", "Determined", "Attentive", "Jittery",
               "Active", "Afraid"]  # fmt: skip
SHAPES = [
    lambda words, r: "\n".join(str(x) for x in r),
    lambda words, r: "\n".join(f"{i}. {x}" for i, x in enumerate(r, 1)),
    lambda words, r: "\n".join(f"{i}. {w}: {x}" for i, (w, x) in enumerate(zip(words, r), 1)),
    lambda words, r: "\n".join(f"{w} - {x}" for w, x in zip(words, r)),
    lambda words, r: "\n".join(f"- **{w}**: {x}" for w, x in zip(words, r)),
    lambda words, r: ", ".join(f"{w}: {x}" for w, x in zip(words, r)),
    lambda words, r: ", ".join(str(x) for x in r),
    lambda words, r: " ".join(f"{i}. {x}" for i, x in enumerate(r, 1)),
]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400), st.sampled_from(["robust", "upstream"]))
def test_the_readers_never_raise(text, parser):
    from eqbench_nb.emotionbench.parsing import STATUSES, parse_answer

    parsed = parse_answer(text, PANAS_WORDS, parser)
    assert parsed.status in STATUSES and len(parsed.ratings) == 20
    assert parsed.complete == all(r is not None for r in parsed.ratings)


@settings(max_examples=200, deadline=None)
@given(
    st.permutations(PANAS_WORDS),
    st.lists(st.integers(1, 5), min_size=20, max_size=20),
    st.sampled_from(range(len(SHAPES))),
    st.sampled_from(["", "Here are my ratings:\n", "Sure!\n\n"]),
    st.sampled_from(["", "\n\nI hope this helps.", "\n"]),
)
def test_the_robust_reader_reads_every_common_shape(words, ratings, shape, before, after):
    from eqbench_nb.emotionbench.parsing import parse_answer

    text = before + SHAPES[shape](words, ratings) + after
    parsed = parse_answer(text, words)
    assert parsed.status == "complete" and list(parsed.ratings) == ratings, text
