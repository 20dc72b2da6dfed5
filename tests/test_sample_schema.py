"""The generic machinery a benchmark declares itself on (issue 45): the header's common fields written once (a part
that misses or repeats one fails when its module is imported), the one sample schema (record, reader, run type),
the one ending of every run in ``cli/run.py``, and the viewer's columns checked for every registered benchmark."""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
from cli_helper import cli as run_cli
from conftest import KEY
from fake_openai_server import FakeOpenAI

from eqbench_nb.runner.header import SET_COMMON_FIELDS, CommonFields, RunHeader, header_part
from eqbench_nb.runner.samples import Sample, SampleHeader, sample_from_json


def cli(*argv: str) -> tuple[int, str, str]:
    done = run_cli(*argv)  # the suite's one in-process helper
    return done.returncode, done.stdout, done.stderr


# ---------------------------------------------------------------- the header's common fields, once


def test_a_part_that_places_some_common_fields_but_misses_one_fails_at_import():
    # the trap: a part's LAYOUT without "seed" silently dropped the seed from every new run file
    with pytest.raises(ValueError, match=r"header part Forgetful .*not seed"):

        @header_part
        @dataclass(frozen=True)
        class Forgetful:
            LAYOUT: ClassVar[tuple[str, ...]] = tuple(f for f in ("benchmark", *SET_COMMON_FIELDS) if f != "seed")
            OPTIONAL: ClassVar[frozenset[str]] = frozenset()


def test_a_part_that_lists_a_field_twice_fails_at_import():
    with pytest.raises(ValueError, match="header part Twice lists items more than once"):

        @header_part
        @dataclass(frozen=True)
        class Twice:
            LAYOUT: ClassVar[tuple[str, ...]] = ("items", "items")
            OPTIONAL: ClassVar[frozenset[str]] = frozenset()


def test_a_part_of_its_own_fields_only_gets_every_common_field_from_the_header():
    common = CommonFields(model="m", run_id="r", endpoint="e", local_model=False, concurrency=2, timeout_s=9.0,
                          seed=7, benchmark="b", iterations=1, upstream={"commit": "abc"})  # fmt: skip
    fields = RunHeader.new(common, SampleHeader(items=("a",), sampling={}, files_sha256={})).to_json()
    assert list(fields) == ["benchmark", "model", "run_id", "endpoint", "local_model", "iterations", "items",
                            "sampling", "files_sha256", "seed", "concurrency", "timeout_s", "eqbench_nb_version",
                            "upstream", "started_at"]  # fmt: skip
    assert fields["seed"] == 7 and fields["upstream"] == {"commit": "abc"} and fields["started_at"]


def test_every_registered_part_places_every_common_field():
    from eqbench_nb.emotionbench.header import EmotionHeader
    from eqbench_nb.eqbench.header import EqBenchHeader
    from eqbench_nb.eqbench3.header import Eq3Header, PairwiseHeader
    from eqbench_nb.judged.header import JudgedHeader

    for part in (EqBenchHeader, EmotionHeader, Eq3Header, JudgedHeader, SampleHeader):
        assert set(SET_COMMON_FIELDS) <= set(part.LAYOUT), part
    assert set(SET_COMMON_FIELDS) <= set(PairwiseHeader.LAYOUT) | PairwiseHeader.WITHOUT


# ---------------------------------------------------------------- one sample schema


def test_a_sample_reads_back_as_written_and_a_wrong_field_is_named():
    s = Sample("m", "r", 2, "EU-en-1", [{"text": "x"}], {"answer": "A"}, {"accuracy": 1.0, "x": None}, {"task": "EU"})
    back = sample_from_json(json.loads(json.dumps(s.to_json())))
    assert back == s and back.key == (2, "EU-en-1")
    wrong = [("iteration", 0), ("iteration", True), ("scores", []), ("attempts", [1]), ("item", 3)]
    for field, value in wrong:
        with pytest.raises(ValueError, match=field):
            sample_from_json(s.to_json() | {field: value})
    with pytest.raises(ValueError, match="score 'accuracy'"):
        sample_from_json(s.to_json() | {"scores": {"accuracy": "1"}})


# ---------------------------------------------------------------- the one ending, in cli/run.py


@pytest.mark.needs_data_folder
def test_an_unfinished_run_ends_in_one_line_and_exit_3_whatever_the_benchmark(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAI(faults={"500": 1.0}) as url:
        rc, out, err = cli("run", "--benchmark", "emobench", "--base-url", url, "--model", "fake-model", "--out",
                           str(tmp_path), "--no-progress", "--limit", "2", "--retry-budget", "0.2")  # fmt: skip
    assert rc == 3, err
    assert "records    0 of 2" in out
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert lines == [lines[0]] and lines[0].startswith("error: 2 items left unfinished (last fault: ")
    assert KEY not in out + err


@pytest.mark.needs_data_folder
def test_a_dry_run_is_a_report_the_cli_prints(tmp_path):
    rc, out, err = cli("run", "--benchmark", "emobench", "--dry-run", "--limit", "3", "--iterations", "2")
    assert rc == 0, err
    assert out.startswith("dry run: nothing sent; 3 items x 2 iteration(s)\nrequests   6 ")


# ---------------------------------------------------------------- the viewer's contract, typed


def test_a_frame_that_names_an_undeclared_column_fails_at_declaration():
    from eqbench_nb.viewer.contract import FrameSchema

    with pytest.raises(ValueError, match="names undeclared columns: largest_gap"):
        FrameSchema("toy", ("answer",), (("label", "item", "text"),), "largest_gap", "error")
    with pytest.raises(ValueError, match="declares parsed twice"):
        FrameSchema("toy", ("parsed",), (), "label", "error")


def test_a_row_without_a_declared_column_is_named_not_a_keyerror_at_view_time():
    from eqbench_nb.viewer.contract import COMMON_COLUMNS, FrameSchema

    schema = FrameSchema("toy", ("answer",), (("answer", "answer", "text"),), "answer", "error")
    row = dict.fromkeys(COMMON_COLUMNS) | {"answer": "A"}
    assert list(schema.frame([row]).columns) == [*COMMON_COLUMNS, "answer"]
    with pytest.raises(ValueError, match="toy's item row lacks miss; undeclared: none"):
        schema.frame([{k: v for k, v in row.items() if k != "miss"}])
    with pytest.raises(ValueError, match="lacks none; undeclared: extra"):
        schema.frame([row | {"extra": 1}])


def test_every_registered_benchmark_declares_its_frames_and_its_runs_keep_to_them():
    from eqbench_nb import registry, samples
    from eqbench_nb.paths import tables_dir
    from eqbench_nb.runner.cost import Prices
    from eqbench_nb.viewer.contract import RunView

    shown = [b for b in registry.REGISTRY if b.samples is not None]
    assert len(shown) == len(registry.REGISTRY)
    assert all(b.frame_schemas and b.summary is not None for b in shown), [b.name for b in shown if not b.frame_schemas]
    fixtures = Path(__file__).parent / "fixtures" / "eqbench3_before_panels"
    for path in [*sorted((tables_dir() / "runs").glob("*.jsonl")), *sorted(fixtures.glob("*.jsonl"))]:
        benchmark = registry.benchmark_of(path)
        frame = samples(str(path))
        schema = next(s for s in benchmark.frame_schemas if list(frame.columns) == list(s.all_columns))
        assert frame.attrs["table_columns"] == schema.table and frame.attrs["benchmark"] == schema.benchmark
        run = benchmark.read(path)
        assert isinstance(benchmark.summary(run, frame, Prices()), RunView)


def test_a_declared_score_outside_0_to_1_gets_the_means_interval_not_wilsons():
    from eqbench_nb.analysis.stats import mean_interval, wilson_interval
    from eqbench_nb.benchmarks.declared import Declaration, breakdown
    from eqbench_nb.runner.samples import SampleRun

    decl = Declaration("toy", "Toy", lambda p: [], lambda i, m: [], lambda t: t, lambda i, a: {}, "rating", (),
                       (("kind",),), 0.0, 8, {}, lambda p: {})  # fmt: skip
    header = RunHeader.read({"benchmark": "toy", "items": ["a", "b", "c"], "iterations": 1}, SampleHeader)

    def run(values):
        return SampleRun(Path("x"), header, [Sample("m", "r", 1, f"i{n}", [], "x", {"rating": v}, {"kind": "k"})
                                             for n, v in enumerate(values)], [])  # fmt: skip

    ratings = run([1.0, 4.0, 5.0, 2.0])
    overall = breakdown(decl, ratings)[0]
    expected = mean_interval([1.0, 4.0, 5.0, 2.0])
    assert (overall.mean, overall.low, overall.high) == (3.0, expected.low, expected.high)
    shares = breakdown(decl, run([1.0, 0.0, 1.0, 1.0]))[0]
    assert (shares.low, shares.high) == wilson_interval(3.0, 4) and shares.group == "all"
