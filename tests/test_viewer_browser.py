"""Issue 27: the run viewer in a real browser (Debian's chromium, headless, driven by Selenium through Debian's
chromedriver; both paths are given, so nothing is downloaded).

Pages: a published upstream run, a fresh run of the bundled model, two runs side by side, an EmotionBench run,
and the notebook widget's render function on its own. Each renders every item, filters and sorts, opens an
item's detail. A run whose answers, error bodies, model name and run id are hostile shows them literally and
runs none of them; no form of the API key reaches a page.
"""

import json
import os
import time

import pytest
from cli_helper import cli
from conftest import KEY, RESULTS, ROOT, needs_data, needs_local_model, run
from fake_openai_server import FakeOpenAI, emotions_in
from fuzz import leaks
from hostile_server import HostileServer, ok, response
from real_browser import chromium, jupyterlab, needs_chromium

from eqbench_nb import read_run, score_run
from eqbench_nb.viewer.page import embed_json, viewer_script, viewer_style
from eqbench_nb.viewer.payload import viewer_payload
from eqbench_nb.viewer.samples import samples

pytestmark = [needs_chromium, needs_data, pytest.mark.slow]  # a browser drives each page

RUNS = ROOT / "data" / "runs"
EMOTIONBENCH = RUNS / "SmolLM2-135M-Instruct__emotionbench__panas-x1-d2-11sit.jsonl"
#: Set by any payload that runs; the page must leave it undefined.
PWNED = "window.__pwned"
HOSTILE = [
    '<script>window.__pwned = "script"</script>',
    '</script><script>window.__pwned = "end-script"</script>',
    "<img src=x onerror=\"window.__pwned = 'img'\">",
    "<a href=\"javascript:window.__pwned = 'link'\">click me</a> javascript:window.__pwned='bare'",
    '</textarea><script>window.__pwned = "textarea"</script>',
    '<!-- <script>window.__pwned = "comment"</script>',
    "</style><style>body { display: none }</style>",
    "line\u2028separator\u2029paragraph",
]


@pytest.fixture(scope="module")
def browser():
    driver = chromium(console_log=True)
    yield driver
    driver.quit()


def view(*runs, out, env=None):
    """``eqbench-nb view`` as a user runs it (remembering only the secrets it learns itself), with ``env``'s
    changes to the environment; the page's path."""
    proc = cli("view", *runs, "--out", out, env=env)
    assert proc.returncode == 0, proc.stderr
    return out


#: True once the page has loaded and, on a viewer page, the viewer has drawn its rows (its count says so)
_DRAWN = (
    "return document.readyState === 'complete' && "
    "(!document.getElementById('eqv-root') || !!document.querySelector('#eqv-root .eqv-count')?.textContent)"
)


def load(browser, page):
    """Open ``page`` and wait until the viewer has drawn it: chromedriver's navigation can return before the page's
    module script has run (seen after a page of 19 pieces, on a page of 360: no row yet, all 360 a moment later)."""
    browser.get_log("browser")  # drop what earlier pages logged
    browser.get(page.as_uri())
    deadline = time.monotonic() + 30
    while not js(browser, _DRAWN):
        assert time.monotonic() < deadline, f"{page.name} not drawn within 30 s"
        time.sleep(0.05)
    return browser


def errors(browser):
    """What the page logged as an error: a script that failed, or anything the page's policy refused."""
    return [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def js(browser, code, *args):
    return browser.execute_script(code, *args)


def visible_ids(browser):
    return js(browser, "return [...document.querySelectorAll('tr[data-item-id]')].filter(r => !r.hidden)"
              ".map(r => r.getAttribute('data-item-id'))")  # fmt: skip


def set_control(browser, selector, value):
    js(
        browser,
        "const c = document.querySelector(arguments[0]);"
        "if (c.type === 'checkbox') c.checked = arguments[1]; else c.value = arguments[1];"
        "c.dispatchEvent(new Event('input')); c.dispatchEvent(new Event('change'));",
        selector,
        value,
    )


def open_item(browser, item_id):
    """Click the item's row; the detail's text (hidden parts included)."""
    js(browser, "document.querySelector(`tr[data-item-id='${CSS.escape(arguments[0])}']`).click()", item_id)
    assert js(browser, "return document.querySelector('.eqv-detail').getAttribute('data-detail-id')") == item_id
    return js(browser, "return document.querySelector('.eqv-detail').textContent")


# ---------------------------------------------------------------- a published run


def test_a_published_run_renders_every_item_filters_sorts_and_opens_an_item(browser, tmp_path):
    path = RESULTS / "stabilityai__stablelm-2-zephyr-1_6b_eqbench_v2_results.json"
    items = samples(path).set_index("item_id")
    load(browser, view(path, out=tmp_path / "published.html", env={}))
    assert js(browser, "return document.querySelectorAll('[data-item-id]').length") == len(items) == 171
    assert visible_ids(browser) == list(items.index)
    header = js(browser, "return document.querySelector('header').textContent")
    assert "official" in header and "95 % interval" in header and "sha256 matches the pinned file" in header

    set_control(browser, "[data-filter=unparsed]", True)
    assert set(visible_ids(browser)) == set(items.index[~items["parsed"]]) and 0 < len(visible_ids(browser)) < 171
    set_control(browser, "[data-filter=unparsed]", False)
    emotion = items["groups"].iloc[0][0]
    set_control(browser, "[data-filter=emotion]", emotion)
    assert set(visible_ids(browser)) == {i for i, names in items["groups"].items() if emotion in names}
    set_control(browser, "[data-filter=emotion]", "")
    set_control(browser, "[data-filter=error]", "7")
    assert set(visible_ids(browser)) == set(items.index[items["largest_error"] >= 7]) and visible_ids(browser)
    set_control(browser, "[data-filter=error]", "")
    words = items["text"].iloc[40].split()[-6:]
    set_control(browser, ".eqv-search", " ".join(words))
    assert "q41-i1" in visible_ids(browser) and len(visible_ids(browser)) < 171
    set_control(browser, ".eqv-search", "")

    headers = js(browser, "return [...document.querySelectorAll('.eqv-items th')].map(th => th.textContent)")
    js(browser, "document.querySelectorAll('.eqv-items th')[arguments[0]].click()", headers.index("largest error"))
    first = visible_ids(browser)[0]
    assert items.loc[first, "largest_error"] == items["largest_error"].max()

    detail = open_item(browser, "q41-i1")
    assert items.loc["q41-i1", "text"] in detail  # whole, where the table shows it cut
    assert items.loc["q41-i1", "messages"][0]["content"].strip()[:200] in detail
    assert "reference" in detail and "lm-eval" in detail and "evalscope" in detail
    assert errors(browser) == []


def test_a_malformed_fragment_throws_nothing_on_load_or_on_hashchange(browser, tmp_path):
    """Issue 34: ``page.html#%E0%A4%A`` made decodeURIComponent throw URIError on load and on every hash change."""
    path = RESULTS / "stabilityai__stablelm-2-zephyr-1_6b_eqbench_v2_results.json"
    page = view(path, out=tmp_path / "published.html", env={})
    browser.get_log("browser")
    browser.get(page.as_uri() + "#%E0%A4%A")
    assert js(browser, "return document.querySelectorAll('[data-item-id]').length") == 171  # drawn all the same
    for fragment in ("%ZZ", "%", "q41-i1%E0%A4", "%E0%A4%A"):  # each a hash change the page listens to
        js(browser, "window.location.hash = arguments[0]", fragment)
    js(browser, "window.location.hash = arguments[0]", "q1-i1")  # a good one after them still opens its item
    detail = "return document.querySelector('.eqv-detail') && document.querySelector('.eqv-detail')"
    assert js(browser, detail + ".getAttribute('data-detail-id')") == "q1-i1"
    js(browser, "window.location.hash = arguments[0]", "%71%34%31-i1")  # percent-encoded: decoded as before
    assert js(browser, detail + ".getAttribute('data-detail-id')") == "q41-i1"
    assert errors(browser) == []
    browser.get(page.as_uri() + "#q41-i1")
    assert js(browser, detail + ".getAttribute('data-detail-id')") == "q41-i1"
    assert errors(browser) == []


# ---------------------------------------------------------------- a fresh run of the bundled model


@needs_local_model
def test_a_fresh_bundled_model_run_is_viewed(browser, tmp_path):
    from eqbench_nb import RunSettings, run_benchmark

    # lm-eval: one request per question (the suite's time); the official protocol's re-asks are viewed below
    result = run_benchmark(settings=RunSettings(out_dir=tmp_path, progress=False), limit=2, protocol="lm-eval")
    items = samples(result.path).set_index("item_id")
    load(browser, view(result.path, out=tmp_path / "fresh.html"))
    assert js(browser, "return document.querySelectorAll('[data-item-id]').length") == len(items) == 2
    header = js(browser, "return document.querySelector('header').textContent")
    assert "the bundled model" in header and "lm-evaluation-harness eq_bench task" in header
    for item_id, row in items.iterrows():
        detail = open_item(browser, item_id)
        shown = js(browser, "return document.querySelectorAll('.eqv-detail .eqv-attempt').length")
        assert shown == row["n_attempts"] and all((a["text"] or "(no text)") in detail for a in row["attempts"])
    assert errors(browser) == []


# ---------------------------------------------------------------- two runs


def test_two_runs_side_by_side_show_the_difference_per_item(browser, tmp_path, key):
    with FakeOpenAI(unparseable_rate=0.2, seed=1) as url:
        a = run(url, tmp_path / "a", limit=6).path
    with FakeOpenAI(unparseable_rate=0.5, seed=2) as url:
        b = run(url, tmp_path / "b", limit=6, temperature=0.7).path
    load(browser, view(a, b, out=tmp_path / "two.html"))
    items_a, items_b = samples(a).set_index("key"), samples(b).set_index("key")
    ids = js(
        browser, "return [...document.querySelectorAll('[data-item-id]')].map(r => r.getAttribute('data-item-id'))"
    )
    assert ids == list(items_a.index) == list(items_b.index)
    cells = js(browser, "return [...document.querySelectorAll('tr[data-item-id]')].map(r => r.children[3].textContent)")
    for key_, shown in zip(ids, cells):
        diff = items_b.loc[key_, "official"] - items_a.loc[key_, "official"]
        if diff != diff:  # one side unparseable: no difference
            assert shown == "—"
        else:
            assert float(shown) == pytest.approx(diff, abs=0.006)
    sentence = js(browser, "return document.querySelector('.eqv-comparison').textContent")
    score_a, score_b = (score_run(read_run(p)).score for p in (a, b))  # each name beside its own run's score
    assert sentence.startswith(f"B against A: B {score_b:.2f}, A {score_a:.2f}: B - A = {score_b - score_a:+.2f} ")
    detail = open_item(browser, ids[0])
    assert js(browser, "return document.querySelectorAll('.eqv-detail .eqv-side').length") == 2
    assert items_a.loc[ids[0], "text"] in detail and items_b.loc[ids[0], "text"] in detail
    assert errors(browser) == []


# ---------------------------------------------------------------- EmotionBench


def test_an_emotionbench_run_is_viewed(browser, tmp_path):
    items = samples(EMOTIONBENCH).set_index("item_id")
    load(browser, view(EMOTIONBENCH, out=tmp_path / "emotionbench.html"))
    assert js(browser, "return document.querySelectorAll('[data-item-id]').length") == len(items)
    assert "Negative Affect" in js(browser, "return document.querySelector('header').textContent")
    set_control(browser, "[data-filter=emotion]", "Anger")
    assert set(visible_ids(browser)) == set(items.index[items["emotion"] == "Anger"]) and len(
        visible_ids(browser)
    ) < len(items)
    anger = visible_ids(browser)[0]
    detail = open_item(browser, anger)
    assert items.loc[anger, "messages"][1]["content"][:120] in detail and "Interested" in detail
    assert errors(browser) == []


# ---------------------------------------------------------------- nothing a server wrote runs; no key


def hostile_server(rejected: str):
    """Answers that hold every payload (the first attempt unparseable, the re-ask parsed), and a 400 whose error
    body holds them too for the question whose first emotion is ``rejected``."""

    def respond(request, n):
        if request.method != "POST":
            return None
        prompt = request.body["messages"][-1]["content"]
        names = emotions_in(prompt)
        if names and names[0] == rejected:
            return response(400, {"error": {"message": " ".join(HOSTILE) + " " + KEY}})
        ratings = "\n".join(f"{e}: 5" for e in names)
        hostile = "\n".join(HOSTILE) + f"\nyour key: {KEY} {json.dumps(KEY)} {KEY.replace('-', '%2D')}"
        return ok(request, text=hostile if request.body["temperature"] < 0.1 else hostile + "\n" + ratings)

    return HostileServer(respond)


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    from eqbench_nb import load_questions

    os.environ.setdefault("OPENAI_API_KEY", KEY)
    out = tmp_path_factory.mktemp("hostile")
    with hostile_server(load_questions("v2")[2].emotions[0]) as url:
        result = run(url, out, limit=4, model='<img src=x onerror="window.__pwned=\'model\'">',
                     run_id='</script><script>window.__pwned="run id"</script>')  # fmt: skip
    return result.path


def assert_inert_and_literal(browser, ids):
    text = ""
    for item_id in ids:
        text += open_item(browser, item_id)
        js(browser, "document.querySelectorAll('.eqv-detail details').forEach(d => d.open = true)")
    assert js(browser, f"return typeof {PWNED}") == "undefined"
    assert js(browser, "return document.querySelectorAll('.eqv a, .eqv img, .eqv script, .eqv style').length") == 0
    assert js(browser, "return getComputedStyle(document.body).display") != "none"
    for payload in HOSTILE:
        assert payload in text, payload
    page_text = js(browser, "return document.body.textContent")
    assert "window.__pwned='model'\">" in page_text and '</script><script>window.__pwned="run id"</script>' in page_text
    return text


def test_a_hostile_run_shows_literally_and_runs_nothing(browser, hostile_run, tmp_path):
    page = view(hostile_run, out=tmp_path / "hostile.html")
    load(browser, page)
    ids = visible_ids(browser)
    assert len(ids) == 4
    shown = assert_inert_and_literal(browser, ids)
    assert "Bad Request" in shown or "400" in shown  # the rejected request's error body is shown, as text
    assert errors(browser) == []


def test_the_widget_render_function_draws_the_same_and_runs_nothing(browser, hostile_run, tmp_path):
    """The notebook widget's ES module (viewer.js's default export) rendering into an element, as anywidget
    calls it, with a model that hands it the payload."""
    harness = tmp_path / "widget.html"
    harness.write_text(
        '<!DOCTYPE html>\n<meta charset="utf-8">\n'
        f"<style>{viewer_style()}</style>\n<div id='el'></div>\n"
        f'<script type="application/json" id="eqv-data">{embed_json(viewer_payload([hostile_run]))}</script>\n'
        f'<script type="module">{viewer_script()}\n'
        "const model = { get: (name) => document.getElementById('eqv-data').textContent, on() {}, off() {} };\n"
        "widget.render({ model, el: document.getElementById('el') });\n</script>\n"
    )
    load(browser, harness)
    assert len(visible_ids(browser)) == 4
    assert_inert_and_literal(browser, visible_ids(browser))
    assert errors(browser) == []


def test_no_form_of_the_key_is_in_a_page(hostile_run, tmp_path):
    """The runner redacts what the server echoed before it is written; the viewer redacts again whatever a file
    holds (a run written elsewhere), with the key of the variable the run names."""
    page = view(hostile_run, out=tmp_path / "hostile.html", env={"OPENAI_API_KEY": KEY})
    assert leaks(page.read_text(), KEY) == []
    planted = tmp_path / "planted.jsonl"
    lines = hostile_run.read_text().split("\n")[:-1]  # not splitlines: the answers hold U+2028
    record = json.loads(lines[1])
    record["attempts"][0]["text"] = f"key {KEY}, encoded {KEY.replace('-', '%2d')}, escaped {json.dumps(KEY)[1:-1]}"
    planted.write_text("\n".join([lines[0], json.dumps(record), *lines[2:]]) + "\n")
    assert KEY in planted.read_text()
    page = view(planted, out=tmp_path / "planted.html", env={"OPENAI_API_KEY": KEY})
    assert leaks(page.read_text(), KEY) == [] and "key ***" in page.read_text()


# ---------------------------------------------------------------- EQ-Bench 3: a conversation and its judge


def hostile_eqbench3(prompt, temperature):
    """The loopback fake's EQ-Bench 3 answers with every payload (and the key) in each of the subject's answers and
    in the judge's reasoning; the judge's first reply to each rubric prompt is the payloads alone (no JSON: retried)."""
    from fake_eqbench3 import responder

    text = responder()(prompt, temperature)
    hostile = "\n".join(HOSTILE) + f" your key: {KEY}"
    if not text.startswith("{"):
        return hostile + "\n" + text
    if temperature == 0 and hostile_eqbench3.judged.setdefault(prompt, 0) == 0:
        hostile_eqbench3.judged[prompt] = 1
        return hostile
    verdict = json.loads(text)
    return json.dumps({**verdict, "chain_of_thought_reasoning": hostile})


hostile_eqbench3.judged = {}


@pytest.fixture(scope="module")
def eqbench3_run(tmp_path_factory):
    from eqbench_nb.eqbench3.task import run_eqbench3
    from eqbench_nb.runner import RetryPolicy
    from eqbench_nb.runner.settings import Endpoint, RunSettings

    os.environ.setdefault("OPENAI_API_KEY", KEY)
    out = tmp_path_factory.mktemp("eqbench3")
    fast = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
    model = "<img src=x onerror=\"window.__pwned='model'\">"
    run_id = '</script><script>window.__pwned="run id"</script>'
    with FakeOpenAI(models=(model, "judge-model"), responder=hostile_eqbench3) as url:
        subject = Endpoint(base_url=url, model=model, retry=fast, timeout_s=10)
        judge = Endpoint(base_url=url, model="judge-model", retry=fast, timeout_s=10)
        settings = RunSettings(out_dir=out, progress=False, run_id=run_id)
        return run_eqbench3(subject, judge, settings, scenarios="1,401").path


def test_an_eqbench3_run_shows_each_conversation_and_its_judge_literally_and_runs_nothing(
    browser, eqbench3_run, tmp_path
):
    items = samples(eqbench3_run).set_index("item_id")
    prices = ["--judge-price-in", "3", "--judge-price-out", "15"]  # the judge's share priced apart
    page = view(eqbench3_run, *prices, out=tmp_path / "eqbench3.html", env={"OPENAI_API_KEY": KEY})
    load(browser, page)
    assert visible_ids(browser) == list(items.index) == ["1-i1", "401-i1"]
    header = js(browser, "return document.querySelector('header').textContent")
    assert "rubric (0-100)" in header and "judge-model" in header and "at $3 in / $15 out" in header
    assert "no prices given (--price-in, --price-out" in header  # the model under test's, not given
    assert js(browser, "return document.querySelector('[data-filter=emotion] option').textContent") == "every kind"
    set_control(browser, "[data-filter=emotion]", "analysis")
    assert visible_ids(browser) == ["401-i1"]
    set_control(browser, "[data-filter=emotion]", "")

    detail = open_item(browser, "1-i1")
    steps = js(browser, "return [...document.querySelectorAll('.eqv-detail .eqv-step')].map(e => e.textContent)")
    assert steps == ["turn 1", "turn 2", "turn 3", "debrief", "rubric (judge)"]
    asked = js(browser, "return [...document.querySelectorAll('.eqv-detail .eqv-asked pre')].map(e => e.textContent)")
    messages = items.loc["1-i1", "messages"]
    assert asked == [messages[a["asked"]]["content"] for a in items.loc["1-i1", "attempts"] if a["attempt"] == 1]
    assert "demonstrated_empathy" in detail and "counts" in detail  # the criteria table
    assert "the judge's JSON did not parse" in detail and "model under test" in detail
    shown = assert_inert_and_literal(browser, ["1-i1", "401-i1"])
    # the subject's answers (after the reasoning, apart) and the judge's raw replies, each whole
    for item_id in items.index:
        for attempt in items.loc[item_id, "attempts"]:
            assert attempt["text"] in shown
    assert js(browser, "return document.querySelectorAll('.eqv-detail .eqv-attempt').length") == len(
        items.loc["401-i1", "attempts"]
    )
    assert errors(browser) == []
    assert KEY not in eqbench3_run.read_text() and leaks(page.read_text(), KEY) == []


# ---------------------------------------------------------------- creative-writing and Judgemark: a piece and its judge


def hostile_writing(prompt, temperature):
    """The loopback fake's creative-writing answers with every payload (and the key) in the piece and in the
    judge's analysis; the judge's first reply to each piece is the payloads alone (nothing parses: a new round)."""
    from fake_judged import responder

    text = responder(score=6)(prompt, temperature)
    hostile = "\n".join(HOSTILE) + f" your key: {KEY}"
    if not text.startswith("[Analysis]"):
        return hostile + "\n" + text  # the piece (over 300 characters), hostile from its first line
    if hostile_writing.judged.setdefault(prompt, 0) == 0:
        hostile_writing.judged[prompt] = 1
        return hostile.replace(":", " ")  # no "name: number" in it
    return text.replace("The piece holds together.", hostile.replace(":", " "))


hostile_writing.judged = {}


@pytest.fixture(scope="module")
def writing_runs(tmp_path_factory):
    from eqbench_nb.judged.task import run_creative_writing, run_judgemark
    from eqbench_nb.runner import RetryPolicy
    from eqbench_nb.runner.settings import Endpoint, RunSettings

    os.environ.setdefault("OPENAI_API_KEY", KEY)
    out = tmp_path_factory.mktemp("judged")
    fast = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
    model = "<img src=x onerror=\"window.__pwned='model'\">"
    run_id = '</script><script>window.__pwned="run id"</script>'
    with FakeOpenAI(models=(model, "judge-model"), responder=hostile_writing) as url:
        subject = Endpoint(base_url=url, model=model, retry=fast, timeout_s=10)
        judge = Endpoint(base_url=url, model="judge-model", retry=fast, timeout_s=10, concurrency=16)
        settings = RunSettings(out_dir=out, progress=False, run_id=run_id)
        written = run_creative_writing(subject, judge, settings).path
        judged = run_judgemark(judge, RunSettings(out_dir=out, progress=False)).path
    return written, judged


def test_a_creative_writing_run_shows_the_piece_the_analysis_and_the_criteria_literally_and_runs_nothing(
    browser, writing_runs, tmp_path
):
    written, _ = writing_runs
    items = samples(written).set_index("item_id")
    page = view(written, "--judge-price-in", "3", "--judge-price-out", "15", out=tmp_path / "writing.html",
                env={"OPENAI_API_KEY": KEY})  # fmt: skip
    load(browser, page)
    assert visible_ids(browser) == list(items.index) and len(items) == 19
    header = js(browser, "return document.querySelector('header').textContent")
    assert "creative-writing (0-100)" in header and "judge-model" in header and "at $3 in / $15 out" in header
    detail = open_item(browser, "1-i1")
    steps = js(browser, "return [...document.querySelectorAll('.eqv-detail .eqv-step')].map(e => e.textContent)")
    assert steps == [
        "round 1 · the piece (model under test)", "round 1 · the judgement (judge)",
        "round 2 · the piece (model under test)", "round 2 · the judgement (judge)",
    ]  # fmt: skip
    assert "lower is better" in detail and "Trite" in detail and "analysis" in detail  # the criteria, the analysis
    shown = assert_inert_and_literal(browser, ["1-i1", "2-i1"])
    assert items.loc["1-i1", "text"] in shown  # the piece, whole
    assert errors(browser) == []
    assert KEY not in written.read_text() and leaks(page.read_text(), KEY) == []


def test_a_judgemark_run_shows_writer_by_prompt(browser, writing_runs, tmp_path):
    _, judged = writing_runs
    page = view(judged, out=tmp_path / "judgemark.html")
    load(browser, page)
    ids = visible_ids(browser)
    assert len(ids) == 360 and "gpt-4-0125-preview|1-i1" in ids
    assert js(browser, "return document.querySelector('[data-filter=emotion] option').textContent") == "every writer"
    set_control(browser, "[data-filter=emotion]", "gpt-4-0125-preview")
    assert len(visible_ids(browser)) == 19
    detail = open_item(browser, "gpt-4-0125-preview|1-i1")
    assert "Judgemark" in js(browser, "return document.querySelector('header').textContent")
    assert "round 1 · the judgement (judge)" in detail and "criterion" in detail
    assert errors(browser) == []


# ---------------------------------------------------------------- the widget in JupyterLab, notebook 01


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server on 127.0.0.1 over a scratch copy of the notebooks (nothing it saves reaches the
    checkout), with its application object exposed so the test can run a notebook's cells."""
    import shutil

    folder = tmp_path / "lab"
    shutil.copytree(ROOT / "notebooks", folder, ignore=shutil.ignore_patterns("*.py", "jupytext.toml"))
    token = "viewer-test"
    env = {
        "PYTHONPATH": str(ROOT),
        "EQBENCH_NB_FIGURES": str(tmp_path / "figures"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
    }
    with jupyterlab(folder, token, env) as base:
        yield base, token


RUN_ALL = """
const done = arguments[arguments.length - 1];
(async () => {
  while (!(window.jupyterapp && jupyterapp.shell.currentWidget && jupyterapp.shell.currentWidget.sessionContext))
    await new Promise((r) => setTimeout(r, 200));
  const panel = jupyterapp.shell.currentWidget;
  await panel.sessionContext.ready;
  await panel.revealed;
  await jupyterapp.commands.execute("notebook:run-all-cells");
  while (panel.sessionContext.session.kernel.status !== "idle") await new Promise((r) => setTimeout(r, 200));
  done(panel.content.widgets.length);
})().catch((e) => done("error: " + e));
"""


def test_notebook_01_ends_with_the_viewer_drawn_in_jupyterlab(browser, lab):
    from eqbench_nb import read_run

    base, token = lab
    committed = read_run(next((ROOT / "data" / "quickstart").glob("*.jsonl")))
    browser.set_script_timeout(300)
    browser.get(f"{base}/lab/tree/01_quickstart.ipynb?token={token}")
    cells = browser.execute_async_script(RUN_ALL)
    assert isinstance(cells, int) and cells > 10, cells
    rows = "return document.querySelectorAll('.jp-OutputArea tr[data-item-id]').length"
    assert js(browser, rows) == len(committed.records) == 8
    js(browser, "document.querySelector('.jp-OutputArea tr[data-item-id]').click()")
    detail = js(browser, "return document.querySelector('.jp-OutputArea .eqv-detail').textContent")
    assert committed.records[0].attempts[0]["text"][:80] in detail
    stderr = ".jp-OutputArea [data-mime-type='application/vnd.jupyter.stderr']"
    assert js(browser, f"return document.querySelectorAll({stderr!r}).length") == 0, "no cell wrote an error"
