"""Typed options per benchmark (issue 39): each benchmark's options are a frozen dataclass whose fields declare
their command-line option once; the command line generates its options from them and converts the parsed arguments
back, so a hook is called from Python with the dataclass alone, no ``argparse.Namespace``."""

import dataclasses
import json
import re

import pytest
from cli_helper import cli
from conftest import ROOT
from test_leaderboard import T07, X10

from eqbench_nb import registry
from eqbench_nb.benchmarks.eqbench import EQBENCH, EqBenchOptions, EqBenchRunOptions
from eqbench_nb.benchmarks.eqbench3 import Eq3Options, Eq3RunOptions, judges_of
from eqbench_nb.benchmarks.options import option_of
from eqbench_nb.cli.common import Parser
from eqbench_nb.cli.options import add_options, options_from
from eqbench_nb.eqbench.conventions import CONVENTIONS


def test_a_hook_is_called_from_python_with_its_dataclass_and_says_what_the_command_says():
    """``score`` and ``compare`` of EQ-Bench, called as a notebook would: the same rows and numbers as the command."""
    rows = EQBENCH.score_rows(X10, EqBenchOptions(convention="all"))
    assert [r["convention"] for r in rows] == list(CONVENTIONS)
    printed = json.loads(cli("score", X10, "--convention", "all", "--format", "json").stdout)
    assert [r["convention"] for r in printed] == list(CONVENTIONS)
    assert [r["score"] for r in printed] == pytest.approx([r["score"] for r in rows])

    assert EQBENCH.compare is not None
    table = EQBENCH.compare(X10, T07, EqBenchOptions(reps=200, seed=1))
    row = table.frame.iloc[0]
    said = json.loads(cli("compare", X10, T07, "--reps", "200", "--seed", "1", "--format", "json").stdout)
    assert said["diff"] == pytest.approx(row["diff"]) and said["diff_low"] == pytest.approx(row["diff_low"])
    other_seed = EQBENCH.compare(X10, T07, EqBenchOptions(reps=200, seed=2)).frame.iloc[0]
    assert other_seed["diff_low"] != row["diff_low"], "the seed reaches the hook"


def _parse(cls, command, *argv):
    p = Parser(prog="t")
    add_options(p, cls, command)
    return options_from(p.parse_args(list(argv)), cls)


def test_the_generated_options_parse_into_the_dataclass_with_its_defaults():
    assert _parse(EqBenchRunOptions, "run") == EqBenchRunOptions()
    given = _parse(EqBenchRunOptions, "run", "--set", "v1", "--revise", "--iterations", "3", "--temperature", "0.5")
    assert given == EqBenchRunOptions(version="v1", revise=True, iterations=3, temperature=0.5)
    assert _parse(EqBenchOptions, "score", "--convention", "all").convention == "all"
    # a field a command does not take keeps its default, and its flag is not there
    assert _parse(EqBenchOptions, "leaderboard", "--with-published").with_published is True
    with pytest.raises(SystemExit):
        _parse(EqBenchOptions, "compare", "--with-published")
    # one field, a default per command: compare's 2000; leaderboard's None (EQ-Bench 3's hook has its own number)
    assert _parse(EqBenchOptions, "compare").reps == 2000 and _parse(EqBenchOptions, "leaderboard").reps is None


def test_a_value_refused_by_a_field_type_is_argparse_one_line_error(capsys):
    with pytest.raises(SystemExit) as exc:
        _parse(EqBenchRunOptions, "run", "--iterations", "0")
    assert exc.value.code == 2
    assert "argument --iterations: must be at least 1, not 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        _parse(EqBenchOptions, "compare", "--reps", "99")
    assert "must be at least 100 for a percentile interval, not 99" in capsys.readouterr().err


def test_every_option_is_declared_once_and_every_field_is_an_option_or_another_part_s():
    """Each field's option is declared on it alone: no flag is declared by two fields of one class, and a field
    without an option is one the command line supplies otherwise (the endpoint's --dry-run, runs' --sort, another
    benchmark's shared option, the judge's endpoint)."""
    p = Parser(prog="t")
    sub = p.add_subparsers()
    from eqbench_nb.cli import run as run_cli

    run_cli.add(sub)
    run = sub.choices["run"]
    dests = {a.dest for a in run._actions}
    for benchmark in registry.REGISTRY:
        flags = [flag for f in dataclasses.fields(benchmark.run_options) if (o := option_of(f)) for flag in o.flags]
        assert len(flags) == len(set(flags)), benchmark.name
        missing = [f.name for f in dataclasses.fields(benchmark.run_options) if f.name not in dests]
        assert not missing, (benchmark.name, missing)  # every field comes from some option of `run`


def test_judges_come_from_the_typed_judge_options_in_step():
    two = judges_of(Eq3Options(judge_model=("a", "b"), judge_price_in=(1.0,), judge_no_adaptive=True))
    assert [j.endpoint.model for j in two] == ["a", "b"]
    assert [j.endpoint.price_in for j in two] == [1.0, 1.0] and not any(j.endpoint.adaptive for j in two)
    with pytest.raises(ValueError, match=re.escape("3 judges, but --judge-model 2 times")):
        judges_of(Eq3RunOptions(judge_model=("a", "b"), judge_price_in=(1.0, 2.0, 3.0)))


def test_no_namespace_nor_argparse_below_the_command_line():
    """The issue's check: `grep -rn Namespace eqbench_nb/benchmarks` finds nothing, nor an import of argparse."""
    hits = [f"{path.name}:{n}" for path in (ROOT / "eqbench_nb" / "benchmarks").glob("*.py")
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if "Namespace" in line or re.match(r"\s*(import argparse|from argparse)", line)]  # fmt: skip
    assert not hits, hits
