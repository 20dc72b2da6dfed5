"""Issue 44: ``view`` writes each answer into the page once. The item's text was written again in each attempt
that gave it, so a 5 MB answer made a 10 MB page; an attempt whose text is the item's now holds null, the item
lists it in ``text_at``, and the script shows the item's text there (viewer.js, ``attemptText``)."""

import json

import pytest
from conftest import run
from fake_openai_server import FakeOpenAI
from real_browser import chromium, needs_chromium

from eqbench_nb.cli import main
from eqbench_nb.viewer.payload import viewer_payload

MB = 1_000_000


@pytest.fixture(scope="module")
def long_run(tmp_path_factory):
    """A run of three questions, some retried where their first answer did not parse (official protocol), so items
    hold attempts of both kinds; the kept answer of one item is then 1 MB long (the runner cuts what it receives to
    100,000 characters: such a file comes from elsewhere, or was written by hand)."""
    out = tmp_path_factory.mktemp("long")
    with pytest.MonkeyPatch.context() as mp, FakeOpenAI(unparseable_rate=0.5, seed=3) as url:
        mp.setenv("OPENAI_API_KEY", "sk-test")
        path = run(url, out, limit=3).path
    header, *lines = path.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    one = next(r for r in records if len(r["attempts"]) == 1)
    one["attempts"][0]["text"] += "\n" + "and so on " * (MB // 10 + 1)
    path.write_text("\n".join([header, *map(json.dumps, records)]) + "\n", encoding="utf-8")
    return path


def page_of(path, out):
    page = out / "page.html"
    assert main(["view", str(path), "--out", str(page)]) == 0
    return page


def attempt_texts(path):
    """Each item's attempts' texts, in order, as the run file holds them, in the order of the items' ids."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    by_id = {f"q{r['question_id']}-i{r['iteration']}": [a.get("text") for a in r["attempts"]] for r in records}
    return [by_id[item_id] for item_id in sorted(by_id, key=lambda i: int(i[1:].split("-")[0]))]


def test_a_1_mb_answer_makes_a_page_under_1_5_mb(long_run, tmp_path):
    long = [text for texts in attempt_texts(long_run) for text in texts if text and len(text) > MB]
    assert len(long) == 1  # the answer the page holds once
    assert page_of(long_run, tmp_path).stat().st_size < 1.5 * MB


def test_an_attempt_that_gave_the_items_text_refers_to_it(long_run):
    (shown,) = viewer_payload([long_run])["runs"]
    at = shown["attempt_fields"].index("text")
    for item, texts in zip(shown["items"], attempt_texts(long_run), strict=True):
        assert item["text_at"] == [k for k, text in enumerate(texts) if text == item["text"]]
        assert item["text_at"], "the kept attempt's text is the item's"
        for k, attempt in enumerate(item["attempts"]):  # the others keep their own text
            assert attempt[at] == (None if k in item["text_at"] else texts[k])
    assert any(len(texts) > 1 for texts in attempt_texts(long_run)), "no item was retried: the check is weaker"


@needs_chromium
def test_the_page_shows_each_answer_in_the_table_and_in_its_attempt(long_run, tmp_path):
    browser = chromium()
    try:
        browser.get(page_of(long_run, tmp_path).as_uri())
        rows = browser.execute_script(
            "return [...document.querySelectorAll('tr[data-item-id]')].map(r => r.textContent)"
        )
        for row, texts in zip(rows, attempt_texts(long_run), strict=True):
            assert " ".join(texts[-1].split())[:100] in row  # the table's cell: the answer, cut
        ids = browser.execute_script(
            "return [...document.querySelectorAll('tr[data-item-id]')].map(r => r.getAttribute('data-item-id'))"
        )
        for item_id, texts in zip(ids, attempt_texts(long_run), strict=True):
            browser.execute_script(f"document.querySelector(`tr[data-item-id='{item_id}']`).click()")
            shown = browser.execute_script(
                "return [...document.querySelectorAll('.eqv-detail .eqv-attempt .eqv-text')].map(p => p.textContent)"
            )
            assert shown == [text if text is not None else "(no text)" for text in texts]  # each whole, in order
    finally:
        browser.quit()
