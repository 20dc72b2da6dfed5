"""Issue 27: the viewer's page as a file (its data element, its policy), the command that writes it, and the
notebook widget that runs the same script. What the page does in a browser: tests/test_viewer_browser.py."""

import base64
import hashlib
import json
import re

import pytest
from cli_helper import cli
from conftest import RESULTS, ROOT, needs_data

from eqbench_nb.viewer.page import BOOT, embed_json, page_html, viewer_script, viewer_style
from eqbench_nb.viewer.payload import viewer_payload
from eqbench_nb.viewer.widget import Viewer, view

QUICKSTART = next((ROOT / "data" / "quickstart").glob("*.jsonl"))
HOSTILE = 'a </script><script>x()</script> <!-- & \u2028 \u2029 > </style> </textarea> "quoted"'


def test_embedded_json_cannot_end_its_element_and_reads_back_the_same():
    value = {"text": HOSTILE, HOSTILE: [HOSTILE]}
    embedded = embed_json(value)
    for raw in ("<", ">", "&", "\u2028", "\u2029"):
        assert raw not in embedded
    assert json.loads(embedded) == value  # \u escapes are what JSON.parse reads back as the characters


@needs_data
def test_the_page_allows_its_own_script_and_style_only_and_fetches_nothing():
    html = page_html(viewer_payload([QUICKSTART]))
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1)
    script = re.search(r'<script type="module">(.*?)</script>', html, re.DOTALL).group(1)
    style = re.search(r"<style>(.*?)</style>", html, re.DOTALL).group(1)

    def digest(text):
        return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

    assert policy == f"default-src 'none'; script-src '{digest(script)}'; style-src '{digest(style)}'; img-src data:"
    assert script == viewer_script() + BOOT and style == viewer_style()
    assert html.count("<script") == 2 and not re.search(r"(src|href)=", html)  # nothing loaded from anywhere
    assert "http://" not in script + style and "https://" not in script + style


def test_the_script_never_writes_markup_from_data():
    script = "\n".join(line for line in viewer_script().splitlines() if not line.lstrip().startswith("//"))
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", ".href"):
        assert sink not in script, sink


@needs_data
def test_the_widget_runs_the_pages_own_script_on_the_same_payload():
    widget = view(QUICKSTART)
    assert widget._esm == viewer_script() and widget._css == viewer_style()  # one render function, not two
    assert json.loads(widget.payload) == viewer_payload([QUICKSTART])
    text = repr(widget)
    assert text == repr(view(str(QUICKSTART))), "the text a saved notebook keeps does not change between runs"
    assert "0x" not in text and "SmolLM2-135M-Instruct" in text and "(8 items)" in text
    bundle, _ = widget._repr_mimebundle_()
    assert bundle["text/plain"] == text


@needs_data
def test_view_takes_a_run_result_or_two_runs_and_refuses_three():
    from eqbench_nb import read_run

    class Result:  # what run_benchmark returns carries its run as .run
        run = read_run(QUICKSTART)

    assert isinstance(view(Result()), Viewer)
    assert len(json.loads(view(QUICKSTART, QUICKSTART).payload)["runs"]) == 2
    with pytest.raises(ValueError, match="one run, or two side by side"):
        view(QUICKSTART, QUICKSTART, QUICKSTART)


def one_line_error(capsys, *args_and_words):
    """``eqbench-nb view ARGS`` (in this process) ends with exit 2 and one line holding each word."""
    from eqbench_nb.cli import main

    args = [str(a) for a in args_and_words if not isinstance(a, Words)]
    assert main(["view", *args]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: ")
    for words in (a for a in args_and_words if isinstance(a, Words)):
        for w in words:
            assert w in line, line


class Words(tuple):
    """What the error line must say."""


@needs_data
def test_view_writes_a_page_named_after_the_run_by_default(tmp_path):
    proc = cli("view", RESULTS / "gpt-4-0613_eqbench_v2_results.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    page = tmp_path / "gpt-4-0613_eqbench_v2_results.html"
    assert page.is_file() and f"written to {page.name}" in proc.stdout
    assert oct(page.stat().st_mode & 0o777) == "0o644"


@needs_data
def test_view_mistakes_are_one_line(tmp_path, capsys):
    one_line_error(capsys, tmp_path / "nope.jsonl", Words(["no such run file"]))
    one_line_error(capsys, ROOT / "data" / "runs", Words(["is a folder", "eqbench-nb runs"]))
    one_line_error(capsys, QUICKSTART, QUICKSTART, QUICKSTART, Words(["got 3", "two at a time"]))
    one_line_error(capsys, QUICKSTART, "--out", tmp_path, Words(["is a folder"]))
    one_line_error(capsys, QUICKSTART, "--price-in", "-1", Words(["--price-in must be 0 or more"]))
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a run"}')
    one_line_error(capsys, bad, Words(["bad.json", "not a recognised run format"]))
    emotionbench = ROOT / "data" / "runs" / "SmolLM2-135M-Instruct__emotionbench__panas-x1-d2-11sit.jsonl"
    one_line_error(capsys, QUICKSTART, emotionbench, "--out", tmp_path / "x.html", Words(["different benchmarks"]))


@needs_data
def test_a_bad_path_is_one_line_from_the_command_itself(tmp_path):
    proc = cli("view", tmp_path / "nope.jsonl")
    assert proc.returncode == 2 and proc.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'nope.jsonl'}: no such run file"
    ]
