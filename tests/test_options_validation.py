"""Typed options are checked once, by their declaration, whoever builds them (issue 43, broken 4 and its weak items;
issue 45, item 3): the command line and Python say the same thing (one line and exit 2; a ValueError naming the
field), before anything is paid; every benchmark's ``run_<name>`` and ``estimate_run`` take its options dataclass
(or its fields as keywords, checked by building it) and declare none of its fields again; the endpoint's options
are declared on its fields."""

import contextlib
import dataclasses
import inspect
import io
import math
import re

import pytest
from conftest import KEY
from fake_openai_server import FakeOpenAI

from eqbench_nb import registry
from eqbench_nb.benchmarks.creative_writing import CREATIVE_WRITING_BENCHMARK as CREATIVE_WRITING
from eqbench_nb.benchmarks.eqbench3 import EQBENCH3
from eqbench_nb.benchmarks.judgemark import JUDGEMARK_BENCHMARK as JUDGEMARK
from eqbench_nb.benchmarks.options import option_of
from eqbench_nb.cli import main
from eqbench_nb.emotionbench.task import run_emotionbench
from eqbench_nb.eqbench.task import estimate_run, run_benchmark
from eqbench_nb.eqbench3.task import run_eqbench3
from eqbench_nb.judged.task import run_creative_writing, run_judgemark
from eqbench_nb.runner.settings import Endpoint, RunSettings

RUN_OPTIONS = {b.name: b.run_options for b in registry.REGISTRY}


def _cli(*argv: str) -> tuple[int, str]:
    """``eqbench-nb ARGV`` in-process: (exit status, stderr)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, err.getvalue()


def _python(cls: type, **given: object) -> str:
    with pytest.raises(ValueError) as exc:
        cls(**given)
    return str(exc.value)


# ---------------------------------------------------------------- 1. one check, the command line's and Python's

#: (benchmark, flag, its text, field, the value Python gives): each refused by both, with the same words
SAME_REFUSAL = [
    ("eqbench", "--iterations", "0", "iterations", 0),
    ("eqbench", "--temperature", "nan", "temperature", math.nan),
    ("eqbench", "--limit", "0", "limit", 0),
    ("eqbench", "--set", "v9", "version", "v9"),
    ("eqbench", "--questions", " ", "questions", " "),
    ("emotionbench", "--repeats", "0", "repeats", 0),
    ("emotionbench", "--emotions", " , ", "emotions", [" ", " "]),
    ("emotionbench", "--parser", "mine", "parser", "mine"),
    ("eqbench3", "--iterations", "1001", "iterations", 1001),
    ("eqbench3", "--judge-model", "", "judge_model", [""]),
    ("eqbench3", "--judge-timeout", "inf", "judge_timeout", [math.inf]),
    ("eqbench3", "--scoring", "HEAD", "scoring", "HEAD"),
    ("creative-writing", "--judge-timeout", "inf", "judge_timeout", [math.inf]),
    ("creative-writing", "--judge-price-in", "-1", "judge_price_in", [-1.0]),
    ("judgemark", "--judge-model", " ", "judge_model", [" "]),
    ("judgemark", "--iterations", "0", "iterations", 0),
]


@pytest.mark.parametrize(("bench", "flag", "text", "name", "value"), SAME_REFUSAL)
def test_the_command_line_and_python_refuse_a_value_in_the_same_words(bench, flag, text, name, value):
    code, err = _cli("run", "--benchmark", bench, flag, text, "--no-progress")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    said = re.search(rf"argument {re.escape(flag)}: (.*) \(see ", err)
    assert said is not None, err
    message = _python(RUN_OPTIONS[bench], **{name: value})
    assert name in message and flag in message, message  # Python names the field (and its flag)
    assert message.endswith(said.group(1)), (message, said.group(1))


#: Python values of the wrong type that today become something else: (benchmark, field, value, words)
WRONG_TYPE = [
    ("eqbench", "iterations", "3", "must be a whole number, not the text '3'"),
    ("eqbench", "iterations", math.nan, "must be a whole number, not nan"),
    ("eqbench", "iterations", 2.0, "must be a whole number, not 2.0"),
    ("eqbench", "revise", "yes", "must be True or False"),
    ("eqbench", "temperature", "0.5", "must be a number, not the text '0.5'"),
    ("emotionbench", "emotions", "Anger", "must be a list of names, not the text 'Anger'"),
    ("emotionbench", "orders", True, "must be a whole number, not True"),
    ("eqbench3", "judge_model", "judge", "must be a list, one value per time the option is given, not the text"),
    ("eqbench3", "judge_model", [""], "must not be empty"),
    ("eqbench3", "judge_concurrency", ["8"], "must be a whole number, not the text '8'"),
    ("eqbench3", "scenarios", 13, "must be text, not 13"),
    ("creative-writing", "judge_model", "judge", "must be a list, one value per time the option is given"),
    ("creative-writing", "iterations", "2", "must be a whole number, not the text '2'"),
    ("judgemark", "judge_timeout", [math.inf], "must be a positive number, not inf"),
    ("judgemark", "judge_no_adaptive", 1, "must be True or False, not 1"),
]


@pytest.mark.parametrize(("bench", "name", "value", "words"), WRONG_TYPE)
def test_python_refuses_a_value_of_the_wrong_type_naming_the_field(bench, name, value, words):
    message = _python(RUN_OPTIONS[bench], **{name: value})
    assert f"{RUN_OPTIONS[bench].__name__}.{name} (--" in message and words in message, message
    assert "\n" not in message


def test_the_endpoint_is_checked_as_its_options_are():
    assert "Endpoint.model (--model): must not be empty" in _python(Endpoint, model="")
    assert "Endpoint.timeout_s (--timeout): must be a positive number, not inf" in _python(Endpoint, timeout_s=math.inf)
    assert "must be a whole number, not True" in _python(Endpoint, concurrency=True)
    assert "must be one of low, medium, high" in _python(Endpoint, reasoning_effort="max")


def test_a_panel_given_as_text_is_refused_before_anything_is_paid(tmp_path, monkeypatch):
    """The issue's probe: ``EQBENCH3.run(Eq3RunOptions(scenarios='13', judge_model='judge'))`` sent paid judge
    requests to models j, u, d, g and e; creative-writing called it "not a panel of 5"."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    fake = FakeOpenAI(models=("fake-model", "judge", *"judge"))
    with fake as url:
        for benchmark in (EQBENCH3, CREATIVE_WRITING, JUDGEMARK):
            with pytest.raises(ValueError, match=r"judge_model \(--judge-model\): must be a list"):
                benchmark.run(
                    benchmark.run_options(judge_model="judge", judge_base_url=[url]),  # type: ignore[call-arg]
                    Endpoint(base_url=url, model="fake-model"),
                    RunSettings(out_dir=tmp_path, progress=False),
                )
    assert fake.log == []


def test_a_keyword_is_checked_by_building_the_options_before_anything_is_sent(tmp_path):
    settings = RunSettings(out_dir=tmp_path, progress=False)
    dead = Endpoint(base_url="http://127.0.0.1:9/v1", model="m")  # nothing listens: any request would fail otherwise
    calls = [
        (lambda: run_benchmark(dead, settings, iterations=0), "EqBenchRunOptions.iterations (--iterations)"),
        (lambda: estimate_run(dead, settings, temperature=math.nan), "EqBenchRunOptions.temperature"),
        (lambda: run_emotionbench(dead, settings, emotions="Anger"), "EmotionBenchRunOptions.emotions"),
        (lambda: run_eqbench3(dead, None, settings, judge_model="judge"), "Eq3RunOptions.judge_model"),
        (lambda: run_creative_writing(dead, dead, settings, iterations="2"), "JudgedRunOptions.iterations"),
        (lambda: run_judgemark(dead, settings, iterations=math.inf), "JudgedRunOptions.iterations"),
    ]
    for call, named in calls:
        with pytest.raises(ValueError, match=re.escape(named)):
            call()
    assert not list(tmp_path.iterdir()), "nothing written"


# ---------------------------------------------------------------- 2. an empty judge model, refused on the flags


@pytest.mark.parametrize("bench", ["eqbench3", "creative-writing", "judgemark"])
def test_an_empty_judge_model_on_the_flags_is_refused_before_any_request(bench, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    fake = FakeOpenAI(models=("fake-model", "a"))
    with fake as url:
        judges = ["--judge-model", "a", "--judge-model", ""] if bench == "eqbench3" else ["--judge-model", ""]
        subject = [] if bench == "judgemark" else ["--base-url", url, "--model", "fake-model"]
        code, err = _cli("run", "--benchmark", bench, *subject, "--judge-base-url", url, *judges,
                         "--out", str(tmp_path), "--no-progress", *(["--scenarios", "1"] if bench == "eqbench3"
                                                                    else []))  # fmt: skip
    assert code == 2, err
    assert "argument --judge-model: must not be empty, not ''" in err and len(err.strip().splitlines()) == 1
    assert fake.log == [], "nothing asked, the subject's turns included"


@pytest.mark.parametrize("bench", ["eqbench", "emotionbench"])
def test_an_empty_model_is_refused_on_every_benchmark(bench):
    dead = "http://127.0.0.1:9/v1"  # nothing listens: today's code fails there, having taken the empty name
    code, err = _cli("run", "--benchmark", bench, "--base-url", dead, "--model", "", "--no-progress")
    assert code == 2 and "argument --model: must not be empty, not ''" in err, err


# ---------------------------------------------------------------- 3. options declared once

ENTRY_POINTS = {
    "eqbench": [run_benchmark, estimate_run],
    "emotionbench": [run_emotionbench],
    "eqbench3": [run_eqbench3],
    "creative-writing": [run_creative_writing],
    "judgemark": [run_judgemark],
}
#: what an entry point takes besides its options: where requests go (the judge's endpoints too) and results go
NOT_OPTIONS = {"endpoint", "judge", "settings", "options"}


@pytest.mark.parametrize("bench", list(ENTRY_POINTS))
def test_no_entry_point_declares_its_options_again(bench):
    """``run_<name>`` and ``estimate_run`` take the options dataclass, or its fields as keywords checked by building
    it: no keyword of their own re-declares a field (a second default, a second check), nor one under another name
    (``rubric_on`` for ``no_rubric``)."""
    fields = {f.name for f in dataclasses.fields(RUN_OPTIONS[bench])}
    for entry in ENTRY_POINTS[bench]:
        params = inspect.signature(entry).parameters
        named = [p for p in params.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        assert not [p.name for p in named if p.name in fields], entry.__name__
        assert {p.name for p in named} <= NOT_OPTIONS, (entry.__name__, [p.name for p in named])
        assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()), entry.__name__
        assert params["options"].default is None


def test_the_python_keywords_are_the_fields_with_their_defaults():
    with pytest.raises(TypeError, match="unexpected keyword argument 'rubric_on'"):
        run_eqbench3(rubric_on=False)
    with pytest.raises(TypeError, match="unexpected keyword argument 'out_dir'"):
        run_benchmark(out_dir="runs")
    # the dataclass's default is the one default: estimate_run(limit=1) is v2's first question, once
    one = estimate_run(Endpoint(model="gpt-4o"), RunSettings(), limit=1)
    assert (
        one.requests == estimate_run(Endpoint(model="gpt-4o"), RunSettings(), RUN_OPTIONS["eqbench"](limit=1)).requests
    )


def test_the_endpoint_options_are_declared_on_its_fields():
    import eqbench_nb.cli.options as cli_options

    assert not hasattr(cli_options, "add_endpoint_options") and not hasattr(cli_options, "endpoint_from_args")
    undeclared = [f.name for f in dataclasses.fields(Endpoint) if option_of(f) is None]
    assert undeclared == ["retry"]  # a RetryPolicy, for tests that need fast retries: no option


def test_every_run_option_comes_from_one_declaration():
    """Each option of ``run`` is a field's (the endpoint's, a benchmark's, a judge's) or the run settings'."""
    from eqbench_nb.cli import build_parser

    run = build_parser()._subparsers._group_actions[0].choices["run"]  # type: ignore[union-attr]
    settings = {
        "-h",
        "--help",
        "--benchmark",
        "--seed",
        "--out",
        "--run-id",
        "--repair",
        "--extend",
        "--no-progress",
        "--version",
    }
    declared = {flag for f in dataclasses.fields(Endpoint) if (o := option_of(f)) for flag in o.flags}
    for cls in RUN_OPTIONS.values():
        declared |= {flag for f in dataclasses.fields(cls) if (o := option_of(f)) for flag in o.flags}
        if cls.ENDPOINT is not None:
            declared |= {o.flags[0] for _, _, o in cls.ENDPOINT.options()}
    flags = {flag for action in run._actions for flag in action.option_strings}
    assert flags - settings == declared


def test_every_field_of_a_run_options_dataclass_is_checked_by_a_declaration():
    from eqbench_nb.runner.options import declarations

    for cls in RUN_OPTIONS.values():
        checked = {f.name for f, _ in declarations(cls)}
        assert checked == {f.name for f in dataclasses.fields(cls)}, cls.__name__
