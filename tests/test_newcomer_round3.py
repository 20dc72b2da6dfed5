"""Issue 44, "What a newcomer trips on": one test (or more) per item, each calling the CLI in this process."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path

import pytest
from conftest import needs_data
from fake_openai_server import FakeOpenAI

from eqbench_nb.cli import main


def cli(*args: object) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``eqbench-nb ARGS`` run in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def one_line_error(err: str, *words: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


# ---------------------------------------------------------------- 1. a wrong --model


def test_1_a_model_the_server_does_not_list_stops_before_anything_is_asked_or_written(tmp_path: Path) -> None:
    fake = FakeOpenAI(models=("SmolLM2-135M-Instruct", "other"))
    url = fake.start()
    try:
        code, _, err = cli("run", "--base-url", url, "--model", "gpt-5", "--limit", "1", "--out", tmp_path)
    finally:
        fake.stop()
    line = one_line_error(err, "'gpt-5'", "'SmolLM2-135M-Instruct', 'other'", "/models")
    assert code == 2 and fake.log == [] and not list(tmp_path.rglob("*.jsonl")), line


@pytest.mark.parametrize("listed", [("llama3.2:latest",), ("models/llama3.2",), ("llama3.2",)])
def test_1_a_listed_model_runs_under_the_names_servers_answer_to(tmp_path: Path, listed: tuple[str, ...]) -> None:
    """Ollama answers to ``name`` for ``name:latest``, Gemini lists ``models/name``: neither is stopped."""
    from eqbench_nb.runner.endpoint import check_model_listed

    check_model_listed("llama3.2", list(listed), "http://x:1/v1", [])


def test_1_azure_openai_is_not_checked_its_requests_name_deployments() -> None:
    from eqbench_nb.runner.endpoint import lists_what_it_serves

    assert not lists_what_it_serves("https://my-resource.openai.azure.com/openai/v1")
    assert lists_what_it_serves("https://api.openai.com/v1") and lists_what_it_serves("http://127.0.0.1:8080/v1")


def test_1_a_server_without_a_model_list_is_asked_anyway(tmp_path: Path) -> None:
    with FakeOpenAI(lists_models=False) as url:
        code, _, err = cli("run", "--base-url", url, "--model", "fake-model", "--limit", "1", "--out", tmp_path)
    assert code == 0, err
    assert len(list(tmp_path.rglob("*.jsonl"))) == 1


# ---------------------------------------------------------------- 2. reproduce keeps a notebook that skipped a part

SKIPPING_NOTEBOOK = """# %% [markdown]
# # 01 — a notebook that draws a table only when its data is there

# %%
import os

from IPython.display import HTML, Markdown, display

if os.environ.get("NEWCOMER_DATA"):
    display(HTML("<table><tr><td>1</td></tr></table>"))
else:
    display(Markdown("The data is not beside the checkout: skipped."))
"""


@pytest.mark.slow
def test_2_a_notebook_that_skips_a_table_it_committed_is_left_as_committed(tmp_path, monkeypatch):
    from eqbench_nb.cli.reproduce import reproduce

    folder = tmp_path / "notebooks"
    folder.mkdir()
    source = folder / "01_skips.py"
    source.write_text(SKIPPING_NOTEBOOK)
    monkeypatch.setenv("EQBENCH_NB_FIGURES", str(tmp_path / "figures"))
    monkeypatch.setenv("NEWCOMER_DATA", "1")
    [first] = reproduce([source], timeout=120, jobs=1)
    assert first.error is None, first.error
    committed = source.with_suffix(".ipynb").read_bytes()
    assert b"<table>" in committed
    monkeypatch.delenv("NEWCOMER_DATA")
    [second] = reproduce([source], timeout=120, jobs=1)
    assert second.error is not None and "1 table fewer" in second.error and "skipped" in second.error
    assert "left as committed" in second.error
    assert source.with_suffix(".ipynb").read_bytes() == committed


def test_2_the_committed_notebook_12_loses_its_figure_and_table_when_section_6_skips():
    """The very cells issue 44 saw lost: section 6 of notebook 12 without Judgemark v2.1's files."""
    import nbformat

    from eqbench_nb.cli.reproduce import lost_outputs

    committed = nbformat.read(Path(__file__).parents[1] / "notebooks" / "12_judgemark_v1.ipynb", as_version=4)
    ran = nbformat.reads(nbformat.writes(committed), as_version=4)
    assert lost_outputs(committed, ran) is None
    cell = next(c for c in ran.cells if "v2_path" in c.source)
    cell.outputs = [
        nbformat.v4.new_output("display_data", {"text/markdown": "Judgemark v2.1's results are not beside: skipped."})
    ]
    lost = lost_outputs(committed, ran)
    assert lost is not None and "1 figure and 1 table fewer" in lost and "skipped" in lost


# ---------------------------------------------------------------- 3. a mistyped EQBENCH_NB_DATA is named


def test_3_a_missing_file_names_the_variable_the_folder_and_that_it_does_not_exist(tmp_path, monkeypatch):
    import eqbench_nb.data as data

    monkeypatch.setenv("EQBENCH_NB_DATA", str(tmp_path / "no-such-folder"))
    monkeypatch.setenv("EQBENCH_NB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(data, "checkout_root", lambda: tmp_path / "clone")
    with pytest.raises(data.DataError) as info:
        data.EQBENCH.locate(data.EQBENCH.names()[0], download=False)
    message = str(info.value)
    assert f"EQBENCH_NB_DATA={tmp_path / 'no-such-folder'} (no such folder)" in message
    assert f"../shared/data beside the checkout ({tmp_path / 'shared' / 'data'}: no such folder)" in message
    assert "was not found as eqbench/eq_bench_v1_questions_60.json" in message and "\n" not in message
    (tmp_path / "there").mkdir()
    monkeypatch.setenv("EQBENCH_NB_DATA", str(tmp_path / "there"))
    with pytest.raises(data.DataError, match=r"there \(a folder, without it\)"):
        data.EQBENCH.locate(data.EQBENCH.names()[0], download=False)


def test_3_reproduce_says_where_data_was_looked_for_once():
    from eqbench_nb.cli.reproduce import said_once

    first = "DataError: EQ-Bench file a.json was not found as eqbench/a.json in EQBENCH_NB_DATA (not set)"
    second = "DataError: EmotionBench file b.csv was not found as emotionbench/b.csv in EQBENCH_NB_DATA (not set)"
    shown, said = said_once(first, False)
    assert shown == first and said
    shown, said = said_once(second, said)
    assert shown == "DataError: EmotionBench file b.csv was not found (in the data folders named above)" and said
    assert said_once("NameError: x", True) == ("NameError: x", True)


# ---------------------------------------------------------------- 5. Judgemark refused by its judge


def test_5_judgemark_refused_from_the_start_speaks_of_pieces_and_judge_options_and_leaves_no_file(tmp_path):
    with FakeOpenAI(faults={"400": 1.0}) as url:
        code, _, err = cli(
            "run", "--benchmark", "judgemark", "--judge-base-url", url, "--judge-model", "fake-model",
            "--judge-concurrency", 1, "--out", tmp_path,
        )  # fmt: skip
    line = one_line_error(err, "rejected every request of the first 3 pieces", "nothing was written")
    assert "--judge-model" in line and "questions" not in line and " --model" not in line
    assert code == 2 and list(tmp_path.iterdir()) == []  # no header-only run for `runs` and `score` to list


def test_5_the_bundled_model_is_named_by_its_name_and_its_context_not_its_port():
    from eqbench_nb.runner.session import Connection, refusal_hint

    local = Connection("http://127.0.0.1:46711/v1", "http://127.0.0.1:46711/v1", "SmolLM2-135M-Instruct", "k", 1, True)
    assert local.named == "the bundled SmolLM2-135M-Instruct"
    assert refusal_hint(local, "judge-") == (
        "the bundled model reads at most 2,048 tokens a request; give a larger one with --judge-base-url URL "
        "--judge-model M"
    )
    remote = Connection("https://x.example/v1", "https://x.example:443/v1", "m", "k", 1, False)
    assert (
        remote.named == "https://x.example:443/v1" and refusal_hint(remote) == "check --model and the endpoint's limits"
    )


def test_5_a_refused_resume_keeps_the_file_it_found(tmp_path):
    from eqbench_nb.runner.runfile import RunFile

    path = tmp_path / "run.jsonl"
    first = RunFile(path, {"type": "header", "model": "m", "run_id": "r"}, dict, ("model",))
    first.close()
    assert first.discard_if_unused() and not path.exists()
    path.write_text('{"type": "header", "model": "m", "run_id": "r"}\n')
    again = RunFile(path, {"type": "header", "model": "m", "run_id": "r"}, dict, ("model",))
    again.close()
    assert not again.discard_if_unused() and path.exists()


# ---------------------------------------------------------------- 6. EQ-Bench 3's labels agree


@pytest.fixture(scope="module")
def one_scenario_panel(tmp_path_factory):
    """A one-scenario EQ-Bench 3 run judged by a panel of two loopback judges, no key set."""
    from fake_eqbench3 import responder

    out = tmp_path_factory.mktemp("eq3")
    saved = os.environ.pop("OPENAI_API_KEY", None)
    try:
        with FakeOpenAI(models=("fake-model", "judge-a", "judge-b"), responder=responder()) as url:
            code, stdout, err = cli(
                "run", "--benchmark", "eqbench3", "--base-url", url, "--model", "fake-model", "--scenarios", "1",
                "--judge-base-url", url, "--judge-model", "judge-a", "--judge-model", "judge-b", "--out", out,
                "--no-progress",
            )  # fmt: skip
    finally:
        if saved is not None:
            os.environ["OPENAI_API_KEY"] = saved
    assert code == 0, err
    return next(out.glob("*.jsonl")), stdout


@needs_data
def test_6_one_scenario_has_one_interval_label_everywhere(one_scenario_panel):
    from eqbench_nb.eqbench3.runs import read_eq3_run
    from eqbench_nb.eqbench3.summary import NO_INTERVAL, summarise_run
    from eqbench_nb.viewer.payload import viewer_payload

    path, stdout = one_scenario_panel
    assert f"({NO_INTERVAL}; 1 scenarios)" in stdout and "percentile bootstrap" not in stdout
    assert summarise_run(read_eq3_run(path)).interval_method == NO_INTERVAL
    [run] = viewer_payload([path])["runs"]
    shown = json.dumps(run)
    assert "percentile bootstrap" not in shown and "Student t" not in shown
    code, scored, err = cli("score", path, "--by-judge")
    assert code == 0 and "percentile bootstrap" not in scored, scored + err


@needs_data
def test_6_the_panel_viewer_names_every_judge_and_no_key_that_was_not_used(one_scenario_panel):
    from eqbench_nb.viewer.payload import viewer_payload

    path, _ = one_scenario_panel
    [run] = viewer_payload([path])["runs"]
    assert "judges judge-a + judge-b" in run["summary"]["title"]
    panel = dict(run["summary"]["facts"])["judges (a panel)"]
    assert "OPENAI_API_KEY" not in panel and panel.count("no key") == 2, panel


def test_6_interval_labels_by_number_of_scenarios():
    from eqbench_nb.eqbench3.summary import INTERVAL_METHOD, NO_INTERVAL, SMALL_INTERVAL_METHOD, interval_method_for

    assert [interval_method_for(n) for n in (0, 1, 2, 29, 30, 45)] == [NO_INTERVAL] * 2 + [
        SMALL_INTERVAL_METHOD
    ] * 2 + [INTERVAL_METHOD] * 2


# ---------------------------------------------------------------- 7. eq.read_run on another benchmark's file

FIXTURES = Path(__file__).parent / "fixtures" / "eqbench3_before_panels"


@pytest.mark.parametrize(
    ("name", "reader"),
    [
        ("alpha-model__eqbench3__3c21bcc-x1-2sc.jsonl", "eqbench_nb.eqbench3.runs.read_eq3_run"),
        ("eqbench3-judgements.jsonl", "eqbench_nb.eqbench3.runs.read_pairwise"),
    ],
)
def test_7_read_run_names_the_reader_of_an_eqbench3_file(name: str, reader: str) -> None:
    import eqbench_nb.eqbench as eq
    from eqbench_nb.runner.runfile import RunFormatError

    with pytest.raises(RunFormatError) as info:
        eq.read_run(FIXTURES / name)
    message = str(info.value)
    assert reader in message and "question_id" not in message and "\n" not in message


# ---------------------------------------------------------------- 8. plot intervals says what it left out


@needs_data
def test_8_plot_intervals_counts_what_it_drew_and_names_the_run_left_out(tmp_path):
    runs = tmp_path / "runs"
    with FakeOpenAI() as url:
        assert cli("run", "--base-url", url, "--model", "fake-model", "--limit", 3, "--out", runs)[0] == 0
    with FakeOpenAI(models=("mute-model",), unparseable_rate=1.0) as url:
        assert cli("run", "--base-url", url, "--model", "mute-model", "--limit", 3, "--out", runs)[0] in (0, 3)
    code, out, err = cli("plot", "intervals", runs, "--out", tmp_path / "p.png")
    assert code == 0, err
    assert "intervals plot of 1 of 2 runs saved" in out
    assert "left out, with no score to draw: mute-model#" in err and "(no answer parsed)" in err


# ---------------------------------------------------------------- 10. an off-scale rating beside the score


def _one_rating_of_100(prompt: str, temperature: float) -> str:
    from fake_openai_server import emotions_in

    first, *rest = emotions_in(prompt)
    lines = [f"{first}: 100", *(f"{name}: 0" for name in rest)]
    return "First pass scores:\n" + "\n".join(lines) + "\n\nRevised scores:\n" + "\n".join(lines)


@needs_data
def test_10_the_score_table_counts_the_off_scale_answer_beside_the_score(tmp_path):
    with FakeOpenAI(responder=_one_rating_of_100) as url:
        assert cli("run", "--base-url", url, "--model", "fake-model", "--limit", 1, "--out", tmp_path)[0] == 0
    code, out, err = cli("score", tmp_path)
    header, row = out.splitlines()[:2]
    columns = header.split()
    assert code == 0 and columns[columns.index("score") + 1] == "off-scale"
    cells = row.split()
    score_at = columns.index("score")
    assert float(cells[score_at]) < -100 and cells[score_at + 1] == "1", out
    assert "off-scale: answers with a rating outside 0-10" in err  # the caption, as every table's
    code, out, _ = cli("score", tmp_path, "--format", "json")
    assert json.loads(out)[0]["out_of_range"] == 1


# ---------------------------------------------------------------- 4. docstrings the API reference can render

#: What mkdocstrings (docstring_style sphinx: the body is read as Markdown) shows raw: a reST simple table's border
#: (runs of = between spaces), a literal-block marker (a line ending in ::), a directive (.. name::), and a role the
#: docs' hook does not turn into code (docs/hooks.py RestRoles).
REST_TABLE = re.compile(r"^\s*=+(\s+=+)+\s*$")
REST_LITERAL = re.compile(r"\S::\s*$")
REST_DIRECTIVE = re.compile(r"^\s*\.\. \w[\w-]*::")
ROLE = re.compile(r":(?:py:)?([a-z]+):`")


def _docstrings():
    import ast

    root = Path(__file__).parents[1] / "eqbench_nb"
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                text = ast.get_docstring(node, clean=True)
                if text:
                    yield f"{path.relative_to(root.parent)}:{getattr(node, 'name', '(module)')}", text


def _hook_roles() -> set[str]:
    hooks = (Path(__file__).parents[1] / "docs" / "hooks.py").read_text()
    return set(re.search(r"\(\?:(func\|[a-z|]+)\)", hooks).group(1).split("|"))


def test_4_no_docstring_holds_rest_the_api_reference_shows_raw():
    handled = _hook_roles()
    raw = []
    for where, text in _docstrings():
        for line in text.splitlines():
            if REST_TABLE.match(line) or REST_LITERAL.search(line) or REST_DIRECTIVE.match(line):
                raw.append(f"{where}: {line.strip()[:60]}")
            raw += [f"{where}: role :{r}:" for r in ROLE.findall(line) if r not in handled]
    assert raw == [], "\n".join(raw)


def test_4_the_check_sees_a_rest_table_a_literal_marker_and_an_unknown_role():
    assert REST_TABLE.match("=====  ======") and REST_LITERAL.search("as follows::")
    assert ROLE.findall("see :rst:`x` and :func:`y`") == ["rst", "func"] and "rst" not in _hook_roles()
    assert not REST_TABLE.match("a = b") and not REST_LITERAL.search("``a::b``")


# ---------------------------------------------------------------- 11. what researchers expect

ROOT = Path(__file__).parents[1]
RUN = ROOT / "data" / "runs" / "SmolLM2-135M-Instruct__v2__official-x10-all.jsonl"


def test_11_citation_cff_parses_and_cites_this_project_and_the_papers():
    yaml = pytest.importorskip("yaml")  # pyyaml: installed with mkdocs (a docs dependency), not the package's own

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0" and cff["title"] and cff["message"]
    cited = " ".join(str(ref) for ref in cff["references"])
    for paper in ("2312.06281", "EmotionBench", "EQ-Bench 3", "2403.05572", "2506.10150", "EmoBench"):
        assert paper in cited, paper
    assert all(ref.get("authors") and ref.get("title") for ref in cff["references"])


def test_11_export_writes_the_viewers_items_as_csv(tmp_path):
    import pandas as pd

    from eqbench_nb.viewer.samples import samples

    out = tmp_path / "items.csv"
    code, said, err = cli("export", RUN, "--out", out)
    frame = pd.read_csv(out)
    expected = samples(RUN)
    assert code == 0 and said.startswith(f"{len(expected):,} items"), err
    assert list(frame.columns) == list(expected.columns) and len(frame) == len(expected)
    assert json.loads(frame.attempts[0])[0]["text"] == expected.attempts[0][0]["text"]
    assert frame.official.sum() == pytest.approx(expected.official.sum())


def test_11_export_parquet_is_written_or_refused_in_one_line(tmp_path):
    import importlib.util

    code, _, err = cli("export", RUN, "--format", "parquet", "--out", tmp_path / "items.parquet")
    if importlib.util.find_spec("pyarrow") is None:
        assert code == 2 and "needs pyarrow" in one_line_error(err) and not (tmp_path / "items.parquet").exists()
    else:
        assert code == 0 and (tmp_path / "items.parquet").stat().st_size > 0


@pytest.mark.parametrize(("typo", "meant"), [("--limt", "--limit"), ("--concurency", "--concurrency")])
def test_11_a_mistyped_option_is_answered_with_the_closest(typo, meant):
    code, _, err = cli("run", typo, "3")
    assert code == 2 and f"did you mean {meant}?" in one_line_error(err, "(see eqbench-nb run --help)")
    code, _, err = cli("run", "--zzz", "3")
    assert "did you mean" not in err


def test_11_no_run_files_says_where_they_are(tmp_path):
    for command in ("score", "runs"):
        code, _, err = cli(command, tmp_path)
        assert code == 2 and "end in .jsonl or .json" in one_line_error(err, "no run files found", "--out"), err


def test_11_the_notebook_nav_numbers_every_notebook_alike():
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    titles = [hooks.notebook_title(p) for p in hooks.notebooks()]
    assert len(titles) >= 12
    assert all(re.fullmatch(rf"{p.name[:2]} — (?!\d\d )\S.*", t) for p, t in zip(hooks.notebooks(), titles)), titles


def test_11_long_code_lines_wrap_in_the_docs():
    css = (ROOT / "docs" / "stylesheets" / "extra.css").read_text()
    assert "white-space: pre-wrap" in css and "stylesheets/extra.css" in (ROOT / "mkdocs.yml").read_text()


def test_11_export_never_writes_over_the_run_it_reads(tmp_path):
    run = tmp_path / "run.jsonl"
    run.write_bytes(RUN.read_bytes())
    code, _, err = cli("export", run, "--out", run)
    assert code == 2 and "--out" in one_line_error(err) and run.read_bytes() == RUN.read_bytes()
