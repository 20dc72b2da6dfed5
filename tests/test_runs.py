import json
import math
import re
import statistics

import pytest
from conftest import RESULTS, needs_data
from hypothesis import given, settings
from hypothesis import strategies as st

from eqbench_nb import RunFormatError, load_questions, parse_answer, read_run, score_run
from eqbench_nb.eqbench.conventions import question_value
from eqbench_nb.eqbench.prompts import build_prompt
from eqbench_nb.eqbench.questions import run_questions
from eqbench_nb.eqbench.runs import EqBenchRun, RunRecord, header_line, read_jsonl, record_line, score_record
from eqbench_nb.eqbench.study.table import question_table, run_table


@needs_data
def test_rescoring_all_86_published_runs_reproduces_benchmark_score():
    files = sorted(RESULTS.glob("*.json"))
    assert len(files) == 86
    worst = 0.0
    for f in files:
        run = read_run(f)
        published = json.loads(f.read_text())["benchmark_score"]
        worst = max(worst, abs(score_run(run).score - published))
    assert worst <= 0.025, worst


@needs_data
def test_revised_pass_rule_is_used_by_some_runs():
    used = [any(score_run(read_run(f)).used_revised) for f in sorted(RESULTS.glob("*.json"))]
    assert 0 < sum(used) < len(used)


def _run(answers_and_texts, version="v2"):
    """A run from (answer dict or None, raw text) pairs on the first questions of a set."""
    qs = load_questions(version)
    records = []
    for q, (answer, text) in zip(qs, answers_and_texts):
        r = RunRecord("m", "r", 1, q.id, attempts=[{"text": text}], first_pass=answer or {})
        records.append(score_record(r, q))
    return EqBenchRun(
        {"model": "m", "run_id": "r", "version": version, "n_questions": len(records), "iterations": 1}, records
    ), qs


def test_three_conventions_differ_in_the_documented_ways():
    qs = load_questions("v2")[:4]
    perfect = dict(qs[0].reference)
    # q1 perfect, q2 far off (negative score), q3 unparseable, q4 markdown only the v2.4 parser reads
    far = {e: (10.0 if v < 5 else 0.0) for e, v in qs[1].reference.items()}
    md = "\n".join(f"**{e}**: {int(v)}" for e, v in qs[3].reference.items())
    run, _ = _run(
        [
            (perfect, "\n".join(f"{e}: {int(v)}" for e, v in perfect.items())),
            (far, "\n".join(f"{e}: {int(v)}" for e, v in far.items())),
            (None, "I cannot answer that."),
            (None, md),
        ]
    )
    s_far = run.records[1].first_pass_score
    assert s_far < 0
    official = score_run(run, "official")
    lm_eval = score_run(run, "lm-eval")
    evalscope = score_run(run, "evalscope")
    # official: unparseable left out of the mean, which may be negative
    assert official.n_parseable == 2
    assert official.score == pytest.approx(round(10 * statistics.fmean([10, s_far]), 2))
    # lm-eval: unparseable counts 0, same per-question scale
    assert lm_eval.score == pytest.approx(round(10 * (10 + s_far + 0 + 0) / 4, 2))
    # evalscope: clamped to 0-1 per question, reads the markdown answer, unparseable counts 0
    assert evalscope.n_parseable == 3
    assert evalscope.score == pytest.approx((1 + 0 + 0 + 1) / 4, abs=1e-4)
    assert official.score != lm_eval.score


def test_jsonl_round_trip_and_torn_tail(tmp_path):
    q = load_questions("v2")[0]
    rec = score_record(RunRecord("m", "r", 1, q.id, attempts=[{"text": "x"}], first_pass=dict(q.reference)), q)
    path = tmp_path / "run.jsonl"
    path.write_text(
        header_line({"model": "m", "run_id": "r", "version": "v2", "n_questions": 1})
        + "\n"
        + record_line(rec)
        + "\n"
        + record_line(rec)[:25]
    )
    contents = read_jsonl(path)
    assert contents.torn_tail and len(contents.records) == 1
    run = read_run(path)
    assert run.header["torn_tail"] and score_run(run).score == 100.0
    table = run_table(run)
    assert len(table) == 4 and set(table.emotion) == set(q.emotions) and (table.error == 0).all()
    assert question_table(run).parseable.all()


def test_a_tail_torn_inside_a_multibyte_character_is_still_just_a_torn_tail(tmp_path):
    q = load_questions("v2")[0]
    rec = score_record(RunRecord("m", "r", 1, q.id, attempts=[{"text": "ünïcödé 😀"}], first_pass=dict(q.reference)), q)
    line = record_line(rec).encode("utf-8")
    cut = line.index("😀".encode()) + 2  # half of the emoji's four bytes
    path = tmp_path / "run.jsonl"
    path.write_bytes(
        (header_line({"model": "m", "run_id": "r", "version": "v2", "n_questions": 1}) + "\n").encode()
        + line
        + b"\n"
        + line[:cut]
    )
    run = read_run(path)
    assert run.header["torn_tail"] and len(run.records) == 1 and run.records[0].final_text == "ünïcödé 😀"


@pytest.mark.parametrize(
    "content, problem",
    [
        ("", "empty"),
        ("not json at all\n", "not JSON"),
        ('{"type": "record", "model": "m"}\n', "lacks"),
        (
            '{"type": "header", "version": "v2"}\n{"type": "record", "model": "m", "run_id": "r", "iteration": 1, '
            '"question_id": "999"}\n',
            "not in the v2 set",
        ),
        ('{"type": "header", "version": "v9"}\n', "version"),
        ("[1, 2, 3]", "not a recognised"),
    ],
)
def test_bad_files_name_the_problem(tmp_path, content, problem):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(RunFormatError, match=problem) as info:
        read_run(path)
    assert str(path) in str(info.value)


def test_answers_for_another_versions_key_are_refused(tmp_path):
    v2 = {q.id: q for q in load_questions("v2")}
    # v1 answers filed under v2: where the same id holds another question, no name matches
    v1 = [q for q in load_questions("v1") if not set(q.emotions) & set(v2[q.id].emotions)]
    assert len(v1) >= 10
    lines = [header_line({"model": "m", "run_id": "r", "version": "v2", "n_questions": 10})]
    for q in v1[:10]:
        lines.append(record_line(RunRecord("m", "r", 1, q.id, first_pass=dict(q.reference))))
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RunFormatError, match="another version"):
        read_run(path)


def test_lm_eval_samples_reader(tmp_path):
    """A file shaped like lm-evaluation-harness --log_samples output of its eq_bench task."""
    qs = load_questions("v2")[:6]
    lines, expected = [], []
    for i, q in enumerate(qs):
        good = i % 3 != 2
        text = "\n".join(f"{e}: {int(v)}" for e, v in q.reference.items()) if good else "Sorry."
        ref = {f"emotion{k}": e for k, e in enumerate(q.emotions, 1)} | {
            f"emotion{k}_score": q.reference[e] for k, e in enumerate(q.emotions, 1)
        }
        lines.append(
            json.dumps(
                {
                    "doc_id": i,
                    "doc": {"prompt": build_prompt(q), "reference_answer_fullscale": str(ref)},
                    "target": " ",
                    "resps": [[text]],
                    "filtered_resps": [text],
                    "eqbench": 100.0 if good else 0.0,
                    "percent_parseable": 100 if good else 0,
                }
            )
        )
        expected.append(100.0 if good else 0.0)
    folder = tmp_path / "my-model"
    folder.mkdir()
    path = folder / "samples_eq_bench_2024-01-01.jsonl"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(path)
    assert run.model == "my-model" and [r.question_id for r in run.records] == [q.id for q in qs]
    assert score_run(run, "lm-eval").score == pytest.approx(statistics.fmean(expected), abs=0.005)
    assert score_run(run, "lm-eval").percent_parseable == pytest.approx(100 * 4 / 6)


# ---------------------------------------------------------------- evalscope reads the whole text


def evalscope_question_value(text, reference_fullscale):
    """One question's value as evalscope's eq_bench adapter computes it, written here from its code
    (modelscope/evalscope evalscope/benchmarks/eq_bench: match_score, answer_validation.py): markdown
    stripped, every "Name: n" pair of the whole text read into a dict (REVISE=False, a later value of a name
    replacing an earlier one), four names equal to the key's lower-cased as a set, ratings 0-10, the v2
    fullscale score, divided by 10 and clamped to 0-1; 0 for anything it cannot read."""
    pairs = re.findall(r"(\w+):\s+(\d+)", text.replace("*", "").replace("#", ""))
    answer = dict(pairs)
    key = {reference_fullscale[f"emotion{i}"]: float(reference_fullscale[f"emotion{i}_score"]) for i in range(1, 5)}
    if len(answer) != 4 or {n.lower() for n in answer} != {n.lower() for n in key}:
        return 0.0
    if not all(0 <= float(v) <= 10 for v in answer.values()):
        return 0.0
    tally = 0.0
    for name, value in answer.items():
        for key_name, ref in key.items():
            if name.lower() == key_name.lower():
                d = abs(float(value) - ref)
                tally += 0 if d == 0 else (6.5 / (1 + math.e ** (-1.2 * (d - 4))) if d <= 5 else d)
    return max(0.0, min(1.0, (10 - 0.7477 * tally) / 10))


@needs_data
def test_evalscope_equals_an_independent_evalscope_computation_on_all_86_published_runs():
    # 62 of these runs used revision; the convention used to read them split into passes, as evalscope never
    # does, and differed on all 62 (the 24 without revision agreed)
    keys = json.loads((RESULTS.parent.parent / "eq_bench_v2_questions_171.json").read_text())
    files = sorted(RESULTS.glob("*.json"))
    revised_runs = 0
    for f in files:
        obj = json.loads(f.read_text())
        texts = obj["raw_results"]["1"]["raw_inference"]
        expected = sum(evalscope_question_value(texts[q], keys[q]["reference_answer_fullscale"]) for q in texts) / 171
        assert score_run(read_run(f), "evalscope").score == round(expected, 4), f.name
        revised_runs += any(a.get("revised") for a in obj["raw_results"]["1"]["respondent_answers"].values())
    assert len(files) == 86 and revised_runs == 62


@needs_data
def test_evalscope_reads_revision_runs_whole_worked_examples():
    qwen = read_run(RESULTS / "Qwen__Qwen-7B-Chat_eqbench_v2_results.json")
    mistral = read_run(RESULTS / "mistral-medium_eqbench_v2_results.json")
    assert qwen.split_revision and mistral.split_revision  # both were run with revision
    # Qwen-7B-Chat answered most questions in one pass, without the headings: split into passes, question 4
    # had no first pass and counted 0 (the run scored 0.0058); evalscope reads its four lines
    q4 = next(r for r in qwen.records if r.question_id == "4")
    assert q4.final_text == "Defensive: 8\nEmpathy: 2\nFear: 3\nCondescension: 5"
    assert parse_answer(q4.final_text, revise=True, parser="v2.4").first_pass == {}
    assert question_value(q4, run_questions(qwen)["4"], "evalscope", qwen) == pytest.approx(q4.first_pass_score / 10)
    assert score_run(qwen, "evalscope").score == 0.5179
    # mistral-medium gave both passes: read whole, each revised value replaces the first pass's (the run
    # scored 0.8264 on its first passes alone)
    q1 = next(r for r in mistral.records if r.question_id == "1")
    assert q1.first_pass == {"Remorseful": 2, "Indifferent": 3, "Affectionate": 1, "Annoyed": 8}
    assert q1.revised == {"Remorseful": 3, "Indifferent": 2, "Affectionate": 4, "Annoyed": 7}
    assert parse_answer(q1.final_text, parser="evalscope").first_pass == q1.revised
    assert question_value(q1, run_questions(mistral)["1"], "evalscope", mistral) == pytest.approx(q1.revised_score / 10)
    assert score_run(mistral, "evalscope").score == 0.7262


_LINE = st.tuples(
    st.sampled_from(["", "**", "#"]), st.integers(0, 4), st.sampled_from(["", "x", "X"]), st.integers(0, 12)
)


@settings(max_examples=300, deadline=None)
@given(
    qid=st.integers(1, 171),
    first=st.lists(_LINE, max_size=6),
    critique=st.lists(_LINE, max_size=2),
    revised=st.lists(_LINE, max_size=6),
    headings=st.sampled_from([(True, True), (True, False), (False, True), (False, False)]),
    protocol=st.sampled_from([("official", "exact"), ("v2.4", "casefold")]),
)
def test_evalscope_equals_evalscopes_reading_on_generated_two_pass_texts(
    qid, first, critique, revised, headings, protocol
):
    """Texts of one or two passes, names in any case, markdown, stray pairs and ratings above 10, in a run made
    with revision: the convention's value is what evalscope's code gives the whole text."""
    q = load_questions("v2")[qid - 1]
    names = [*q.emotions, "Note"]

    def block(lines):
        out = []
        for mark, which, case, value in lines:
            name = names[which]
            name = name.lower() if case == "x" else name.upper() if case == "X" else name
            out.append(f"{mark}{name}{mark}: {value}")
        return "\n".join(out)

    text = ("First pass scores:\n" if headings[0] else "") + block(first) + "\n\nCritique: " + block(critique)
    text += ("\n\nRevised scores:\n" if headings[1] else "\n\n") + block(revised)
    parser, match = protocol
    header = {"model": "m", "run_id": "r", "version": "v2", "n_questions": 1, "iterations": 1, "revise": True}
    header |= {"parser": parser, "match": match, "split_revision": True}
    parsed = parse_answer(text, revise=True, parser=parser)
    record = score_record(RunRecord("m", "r", 1, q.id, [{"text": text}], parsed.first_pass, parsed.revised), q, match)
    run = EqBenchRun(header, [record])
    key = {f"emotion{i}": e for i, e in enumerate(q.emotions, 1)} | {
        f"emotion{i}_score": q.reference[e] for i, e in enumerate(q.emotions, 1)
    }
    expected = evalscope_question_value(text, key)
    assert question_value(record, q, "evalscope", run) == pytest.approx(expected, abs=1e-12)
