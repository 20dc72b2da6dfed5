import json

from cli_helper import cli
from conftest import RESULTS, ROOT, needs_data


@needs_data
def test_score_folder_prints_one_row_per_run():
    out = cli("score", RESULTS, "--format", "json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert len(rows) == 86
    published = {
        json.loads(p.read_text())["model_path"]: json.loads(p.read_text())["benchmark_score"]
        for p in RESULTS.glob("*.json")
    }
    assert all(abs(r["score"] - published[r["model"]]) <= 0.025 for r in rows)
    table = cli("score", RESULTS)
    assert table.returncode == 0 and len(table.stdout.strip().splitlines()) == 87
    # ten published runs hold a rating above 10 (e.g. "Confidence: 95"): scored as given, and flagged
    assert table.stdout.splitlines()[0].split() == [
        "model",
        "run_id",
        "iterations",
        "parseable",
        "score",
        "off-scale",  # issue 44: the count that explains a sunken score, beside it
        "failed",
        "warnings",
    ]
    assert all(line.split()[3].endswith("/171") for line in table.stdout.splitlines()[1:])
    flagged = [line for line in table.stderr.splitlines() if line.startswith("warning:") and "outside 0-10" in line]
    assert len(flagged) == sum(1 for r in rows if r["warnings"]) >= 1


def _write_run(path, run_id, iterations, parsed_per_iteration):
    """A run file of one model: the first questions answered perfectly, the rest unparseable."""
    from eqbench_nb import load_questions
    from eqbench_nb.eqbench.runs import RunRecord, header_line, record_line, score_record

    qs = load_questions("v2")[:4]
    lines = [header_line({"model": "m", "run_id": run_id, "version": "v2", "n_questions": 4, "iterations": iterations})]
    for it, parsed in zip(range(1, iterations + 1), parsed_per_iteration):
        for i, q in enumerate(qs):
            answer = dict(q.reference) if i < parsed else {}
            lines.append(record_line(score_record(RunRecord("m", run_id, it, q.id, first_pass=answer), q)))
    path.write_text("\n".join(lines) + "\n")


def test_table_names_the_run_and_counts_parseable_per_iteration(tmp_path):
    _write_run(tmp_path / "a.jsonl", "first", 1, [4])
    _write_run(tmp_path / "b.jsonl", "second", 2, [4, 1])
    out = cli("score", tmp_path)
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines()[1:]]
    assert [r[:4] for r in rows] == [["m", "first", "1", "4/4"], ["m", "second", "2", "2.5/4"]]
    assert "per iteration" in out.stderr


@needs_data
def test_bad_files_are_one_line_errors_and_others_still_scored(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("garbage\n")
    good = sorted(RESULTS.glob("*.json"))[0]
    out = cli("score", bad, good, tmp_path / "missing.json", "--format", "csv", "--convention", "lm-eval")
    assert out.returncode == 2
    errors = out.stderr.strip().splitlines()
    assert len(errors) == 2 and all(line.startswith("error: ") for line in errors)
    assert "bad.jsonl" in errors[0] and "Traceback" not in out.stderr
    assert len(out.stdout.strip().splitlines()) == 2  # csv header + the good run


def test_usage_errors_exit_2():
    assert cli("score").returncode == 2
    assert cli("score", "x", "--convention", "nope").returncode == 2


def test_scores_layout_pads_every_line_and_aligns_by_position_with_each_cell_escaped():
    """``score``'s terminal layout (:func:`render` with ``text_columns``): the first columns left, the others right
    whatever their type, every heading left, each line as wide as the table; a hostile cell is still escaped."""
    import pandas as pd

    from eqbench_nb.cli.tabular import render

    frame = pd.DataFrame([["evil\x1b[2J\nname", "r", "1.50"], ["m", "run-2", "12.25"]], columns=["model", "id", "sc"])
    lines = render(frame, "table", text_columns=2).splitlines()
    assert lines == [
        "model              id     sc   ",
        "evil\\x1b[2J\\nname  r       1.50",
        "m                  run-2  12.25",
    ]
    assert len({len(line) for line in lines}) == 1  # padded, not trimmed
    assert render(frame, "table").splitlines()[0] == "model              id     sc"  # the research layout: trimmed


def test_no_benchmark_aligns_a_table_by_hand():
    """Every table a benchmark prints goes through :func:`eqbench_nb.cli.tabular.render`: no ``ljust``/``rjust`` in
    the benchmarks' command-line modules (issue 39: one table renderer)."""
    modules = sorted((ROOT / "eqbench_nb" / "benchmarks").glob("*.py"))
    assert len(modules) >= 6
    assert [m.name for m in modules if "just(" in m.read_text()] == []
