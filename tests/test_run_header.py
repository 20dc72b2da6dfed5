"""The typed run header (runner/header.py and each benchmark's part): every committed run and every upstream file
reads through it as before, a new header is written in the order earlier versions wrote, and reading a written
header gives back its typed part."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import RESULTS, ROOT, needs_data

from eqbench_nb import registry
from eqbench_nb.emotionbench.header import EmotionHeader
from eqbench_nb.eqbench.header import EqBenchHeader
from eqbench_nb.eqbench3.header import Eq3Header
from eqbench_nb.runner.header import CommonFields, RunHeader
from eqbench_nb.runner.samples import SampleHeader

COMMITTED = sorted((ROOT / "data" / "runs").glob("*.jsonl")) + sorted((ROOT / "data" / "quickstart").glob("*.jsonl"))
PARTS = {None: EqBenchHeader, "emotionbench": EmotionHeader, "eqbench3": Eq3Header, "judge-check": SampleHeader}


def _first_line(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8").splitlines()[0])


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.name)
def test_every_committed_run_reads_through_its_benchmark_as_its_file_says(path):
    line = _first_line(path)
    run = registry.benchmark_of(path).read(path)
    header = RunHeader.read(line, PARTS[line.get("benchmark")])
    assert header.to_json() == {k: v for k, v in line.items() if k != "type"}  # nothing lost, nothing added
    assert list(header) == [k for k in line if k != "type"]  # in the file's order
    assert header.model == line["model"] and header.run_id == line["run_id"]
    assert header.seed == line.get("seed") and header.started_at == line.get("started_at")
    assert isinstance(run.header, RunHeader) and run.header.own == header.own  # the benchmark reads it the same way


@needs_data
def test_upstream_results_read_with_the_fields_their_reader_gives():
    from eqbench_nb.eqbench.runs import read_run

    files = sorted(RESULTS.glob("*.json"))[:5]
    assert files
    for path in files:
        run = read_run(path)
        assert isinstance(run.header, RunHeader) and isinstance(run.header.own, EqBenchHeader)
        assert run.header.own.source == "upstream EQ-Bench results" and run.header.own.protocol == "official"
        assert run.header.iterations == run.header["iterations"] and run.model == run.header["model"]


def _common(**kw):
    return CommonFields(model="m", run_id="r", endpoint="http://x/v1", local_model=False, concurrency=4,
                        timeout_s=120.0, started_at="2026-01-01T00:00:00+00:00", **kw)  # fmt: skip


def test_a_new_eqbench_header_keeps_the_layout_and_leaves_unset_options_out():
    own = EqBenchHeader(version="v2", revise=False, question_ids=("1", "2"), temperatures=(0.01, 0.16), stop=())
    header = RunHeader.new(_common(iterations=2, seed=None), own)
    fields = header.to_json()
    assert "reasoning_effort" not in fields and "batch" not in fields and "form" not in fields
    assert list(fields)[:4] == ["model", "run_id", "endpoint", "local_model"]
    assert fields["question_ids"] == ["1", "2"] and isinstance(fields["temperatures"], list)  # lists, as a file
    assert "seed" in fields and fields["seed"] is None  # a field the layout writes even when null
    again = RunHeader.read(json.loads(json.dumps(fields)), EqBenchHeader)
    assert again.own.question_ids == ("1", "2") and again.iterations == 2 and again.own.version == "v2"
    with_options = RunHeader.new(_common(reasoning_effort="low", batch=True), own).to_json()
    assert list(with_options)[:2] == ["reasoning_effort", "batch"]  # first, as earlier versions wrote them


def test_a_hostile_header_reads_as_absent_fields_never_an_exception():
    weird = {"model": 5, "iterations": True, "seed": "x", "question_ids": "1,2", "scenarios": {"a": 1},
             "situations": 3, "repeats": 2.5, "deviations": "max_tokens", "scenario_turns": [1]}  # fmt: skip
    for part in PARTS.values():
        header = RunHeader.read(weird, part)
        assert header.iterations is None and header.seed is None and header.deviations() == ()
        assert header.model == "5" and header.text("model", "?") == "5"
    assert RunHeader.read(weird, EqBenchHeader).own.question_ids is None
    assert RunHeader.read(weird, Eq3Header).own.scenarios is None
    assert RunHeader.read(weird, EmotionHeader).own.repeats is None


def test_a_labelled_endpoint_reads_by_its_label():
    header = RunHeader.read(
        {"model": "m", "endpoint": "e", "judge_model": "j", "judge_endpoint": "je", "judge_concurrency": 3,
         "judge_deviations": ["max_completion_tokens"], "deviations": []}, Eq3Header)  # fmt: skip
    judge = header.endpoint_of("judge")
    assert (judge.model, judge.endpoint, judge.concurrency, judge.deviations) == (
        "j",
        "je",
        3,
        ("max_completion_tokens",),
    )
    assert header.endpoint_of().model == "m" and header.endpoint_of().deviations == ()


def test_the_header_is_read_only_and_replace_reads_the_part_again():
    header = RunHeader.read({"model": "m", "iterations": 2}, EqBenchHeader)
    with pytest.raises(TypeError):
        header["iterations"] = 3  # type: ignore[index]
    assert header.replace(iterations=3).iterations == 3 and header.iterations == 2
    assert "iterations" not in header.without("iterations")


def test_the_key_variables_a_header_names_are_read_from_a_run_header_too():
    from eqbench_nb.runner.redact import key_variables

    header = RunHeader.read({"model": "m", "api_key_env": "MY_KEY", "judge_api_key_env": "JUDGE_KEY"}, Eq3Header)
    assert {"MY_KEY", "JUDGE_KEY"} <= set(key_variables(header))  # a run's header is a Mapping, not a dict


def test_a_files_benchmark_is_read_from_its_first_line_as_a_header(tmp_path):
    from eqbench_nb.runner.header import file_benchmark

    def first(line: str) -> Path:
        path = tmp_path / f"f{len(list(tmp_path.iterdir()))}.jsonl"
        path.write_text(line + "\n{}\n")
        return path

    ours = first('{"type": "header", "benchmark": "eqbench3", "model": "m"}')
    untyped = first('{"benchmark": "judgemark"}')
    assert file_benchmark(ours) == file_benchmark(ours, declared=True) == "eqbench3"
    assert file_benchmark(untyped) == "judgemark" and file_benchmark(untyped, declared=True) is None
    for hostile in ('{"type": "header", "benchmark": 3}', "[1, 2]", "not json", '{"type": "header"}'):
        assert file_benchmark(first(hostile)) is None, hostile
    assert file_benchmark(tmp_path / "absent.jsonl") is None


def test_the_typed_fields_the_benchmarks_read_keep_what_the_lookups_gave():
    from eqbench_nb.judged.header import JudgedHeader

    orders = {(): 1, (None,): 1, (3,): 3, ("2",): None, (True,): None}  # an absent or null count is one order
    for given, planned in orders.items():
        fields = {"orders": given[0]} if given else {}
        assert RunHeader.read(fields, EmotionHeader).own.planned_orders == planned, given
    temperatures = [(0.7, 0.7), (1, 1.0), (True, 1.0), (10**400, None), ("0.7", None), (None, None)]  # upstream's one
    for given, read in temperatures:
        assert RunHeader.read({"temperature": given}, EqBenchHeader).own.temperature == read, given
    assert RunHeader.read({"items": ["a", "b"]}, JudgedHeader).own.items == ("a", "b")
    assert RunHeader.read({"items": ["a", 1]}, JudgedHeader).own.items is None  # not a list of names: refused
    torn = RunHeader.read({"model": "m"}, EqBenchHeader).replace(torn_tail=True)
    assert torn.own.torn_tail is True and torn["torn_tail"] is True
