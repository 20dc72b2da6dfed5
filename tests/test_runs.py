import json
import statistics

import pytest
from conftest import RESULTS, needs_shared

from eqbench_nb import RunFormatError, load_questions, read_run, score_run
from eqbench_nb.analysis.table import question_table, run_table
from eqbench_nb.eqbench.prompts import build_prompt
from eqbench_nb.eqbench.runs import Run, RunRecord, header_line, read_jsonl, record_line, score_record


@needs_shared
def test_rescoring_all_86_published_runs_reproduces_benchmark_score():
    files = sorted(RESULTS.glob("*.json"))
    assert len(files) == 86
    worst = 0.0
    for f in files:
        run = read_run(f)
        published = json.loads(f.read_text())["benchmark_score"]
        worst = max(worst, abs(score_run(run).score - published))
    assert worst <= 0.025, worst


@needs_shared
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
    return Run(
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
