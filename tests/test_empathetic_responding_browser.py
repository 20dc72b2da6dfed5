"""Issue 46: the viewer page of an empathetic-responding run in a real browser (Debian's chromium, headless, through
the suite's one browser helper, tests/real_browser.py, and the viewer tests' page helpers). The subject's responses,
the judge's reasons on both arms, the model's and the judge's names and the run id are hostile; each shows as text
and none of it runs."""

import pytest
from cli_helper import cli
from conftest import KEY, needs_data
from fake_openai_server import FakeOpenAI
from real_browser import needs_chromium
from test_viewer_browser import (  # the viewer tests' helpers and their browser, not copies
    HOSTILE,
    PWNED,
    assert_inert_and_literal,
    browser,  # noqa: F401  (the module's fixture)
    errors,
    js,
    load,
    open_item,
    view,
    visible_ids,
)

from eqbench_nb.benchmarks import empathetic_responding as er

pytestmark = [needs_chromium, needs_data, pytest.mark.slow]  # a browser drives the page

MODEL = "<img src=x onerror=\"window.__pwned='model'\">"
RUN_ID = '</script><script>window.__pwned="run id"</script>'
JUDGE = "<b onmouseover=\"window.__pwned='judge'\">judge</b>"
#: Beyond the viewer tests' payloads: bidi overrides, a bare javascript: URL, template syntax.
MORE = [
    "\u202egnp.exe\u202c right-to-left override, \u2066isolate\u2069",
    "javascript:window.__pwned='url'",
    "{{constructor.constructor('window.__pwned=1')()}} ${window.__pwned='template'}",
]
RESPONSE = "\n".join(HOSTILE + MORE)
#: The judge's reasons, one rating word each (a reason is shown up to 300 characters).
ON_MODEL = "Good. </script><svg onload=\"window.__pwned='judge model'\"> \u202ereason\u202c"
ON_HUMAN = "Okay. <iframe src=\"javascript:window.__pwned='judge human'\"></iframe>"


def responder(prompt: str, temperature: float) -> str:
    if "Speaker #2: " not in prompt:
        return RESPONSE  # the subject
    return ON_MODEL if 'window.__pwned = "script"' in prompt else ON_HUMAN


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("empathetic")
    with FakeOpenAI(models=(MODEL, JUDGE), responder=responder) as url:
        done = cli("run", "--benchmark", "empathetic-responding", "--base-url", url, "--model", MODEL,
                   "--judge-base-url", url, "--judge-model", JUDGE, "--limit", "2", "--run-id", RUN_ID,
                   "--out", out, "--no-progress", env={"OPENAI_API_KEY": KEY})  # fmt: skip
    assert done.returncode == 0, done.stderr
    (path,) = [p for p in out.glob("*.jsonl") if er.is_run_file(p)]
    return path


def test_an_empathetic_responding_run_shows_hostile_text_literally_and_runs_nothing(browser, hostile_run, tmp_path):  # noqa: F811
    page = view(hostile_run, out=tmp_path / "empathetic.html")
    load(browser, page)
    ids = visible_ids(browser)
    chosen = er.select(er.read_prompts(None), None, None, 2, None)
    assert sorted(ids) == sorted(p.id for p in chosen)
    shown = assert_inert_and_literal(browser, ids)  # the viewer tests' payloads, the model's name and the run id
    for text in [*MORE, ON_MODEL, ON_HUMAN, JUDGE]:
        assert text in shown, text
    for p in chosen:  # the study's side of each prompt, beside the hostile one
        detail = open_item(browser, p.id)
        assert p.human in detail and p.situation in detail and f"{JUDGE} on the human: Okay" in detail
    assert js(browser, f"return typeof {PWNED}") == "undefined"
    assert js(browser, "return document.querySelectorAll('.eqv iframe, .eqv svg, .eqv b').length") == 0
    assert errors(browser) == []
