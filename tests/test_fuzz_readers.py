"""Fuzzing the run-file readers (issue 18): generated run files, headers and records with wrong types, huge
numbers, deep nesting, unicode, duplicates, foreign iterations, a BOM, CRLF, garbage lines, through
``read_run``, every convention of ``score`` (in-process command line), and resume (``RunFile``).

The property: a one-line error or a warning, never a traceback; memory bounded by the file's size times a
small factor (never by a number the file claims); and no score counts a record the header does not admit.
CI runs a modest number of examples; ``benchmarks/fuzz_soak.py`` runs many more.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import tracemalloc
from pathlib import Path

import pytest
from conftest import needs_data
from fuzz import fuzz_settings
from hypothesis import example, given
from hypothesis import strategies as st

from eqbench_nb import cli
from eqbench_nb.eqbench.conventions import CONVENTIONS, score_run
from eqbench_nb.eqbench.questions import questions_by_id
from eqbench_nb.eqbench.runs import IDENTITY, RunFormatError, read_run, record_from_json
from eqbench_nb.eqbench.task import SETTINGS_KEYS
from eqbench_nb.runner.errors import RunnerError
from eqbench_nb.runner.runfile import RunFile

pytestmark = needs_data

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([0, 1, -1, 10**9, 2**63, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["\u202e", "\x1b[2J", "\ud800", "ü😀", "7,5", "x" * 300]),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=8,
)


def sometimes(value_strategy, wild=json_values):
    """Mostly a plausible value, sometimes anything (or nothing: the field left out)."""
    return st.one_of(value_strategy, value_strategy, value_strategy, wild, st.just(_MISSING))


_MISSING = object()


@st.composite
def headers(draw):
    ids = draw(st.lists(st.sampled_from([str(i) for i in range(1, 12)]), min_size=1, max_size=6, unique=True))
    fields = {
        "model": sometimes(st.sampled_from(["m", "other"])),
        "run_id": sometimes(st.just("r")),
        "version": sometimes(st.sampled_from(["v2", "v1", "v3"])),
        "revise": sometimes(st.booleans()),
        "protocol": sometimes(st.just("official")),
        "parser": sometimes(st.sampled_from(["official", "v2.4", "evalscope", "nope"])),
        "match": sometimes(st.sampled_from(["exact", "casefold"])),
        "split_revision": sometimes(st.booleans()),
        "n_questions": sometimes(st.one_of(st.just(len(ids)), st.integers(-3, 10**12))),
        "question_ids": sometimes(st.just(ids)),
        "iterations": sometimes(st.one_of(st.integers(1, 3), st.sampled_from([0, -5, 10**7, 10**9, 10**30]))),
    }
    header = {"type": "header"}
    for name, strategy in fields.items():
        value = draw(strategy)
        if value is not _MISSING:
            header[name] = value
    return header, ids


@st.composite
def records(draw, ids):
    question_id = draw(st.one_of(st.sampled_from(ids), st.sampled_from(ids), json_values))
    iteration = draw(st.one_of(st.integers(1, 3), st.integers(1, 3), st.integers(-6, 10**12), json_values))
    emotions = _EMOTIONS.get(str(question_id), ("Angry", "Sad", "Glad", "Calm"))
    ratings = st.dictionaries(
        st.sampled_from([*emotions, "Nope"]),
        st.one_of(st.integers(0, 10), st.floats(0, 10), st.sampled_from([1e308, -1e308, 10**400, "7,5", "x"])),
        max_size=5,
    )
    attempt = st.fixed_dictionaries(
        {},
        optional={
            "text": st.one_of(st.text(max_size=40), st.none(), json_values),
            "error": json_values,
            "prompt_tokens": json_values,
            "completion_tokens": json_values,
        },
    )
    record = {
        "type": "record",
        "model": draw(sometimes(st.sampled_from(["m", "m", "other"]))),
        "run_id": draw(sometimes(st.just("r"))),
        "iteration": iteration,
        "question_id": question_id,
        "attempts": draw(sometimes(st.lists(attempt, max_size=3))),
        "first_pass": draw(sometimes(ratings)),
        "revised": draw(sometimes(st.one_of(st.just({}), ratings))),
        "answer_attempt": draw(sometimes(st.one_of(st.none(), st.integers(-2, 3)))),
        "first_pass_score": draw(sometimes(st.none())),
    }
    return {k: v for k, v in record.items() if v is not _MISSING}


@st.composite
def run_files(draw):
    header, ids = draw(headers())
    body = draw(st.lists(records(ids), max_size=12))
    if body and draw(st.booleans()):  # duplicates, some changed
        body += draw(st.lists(st.sampled_from(body), max_size=6))
    lines = [json.dumps(r, ensure_ascii=draw(st.booleans())) for r in body]
    if draw(st.booleans()):
        lines.insert(0, json.dumps(header))
    else:
        lines.insert(draw(st.integers(0, len(lines))), json.dumps(header))
    extras = st.sampled_from(
        [
            "",
            "   ",
            "not json",
            "[1, 2]",
            '{"type": "other"}',
            "[" * 5000,
            '{"a":' * 3000,
            '{"type": "header"}',
            "\x00\xff",
        ]
    )
    for extra in draw(st.lists(extras, max_size=2)):
        lines.insert(draw(st.integers(0, len(lines))), extra)
    text = ("\r\n" if draw(st.booleans()) else "\n").join(lines)
    raw = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        raw += b"\n"
    elif draw(st.booleans()):
        raw += b'{"type": "record", "mod'  # a torn tail
    if draw(st.booleans()):
        raw = b"\xef\xbb\xbf" + raw
    return raw


_EMOTIONS: dict[str, tuple[str, ...]] = {}


@pytest.fixture(scope="module", autouse=True)
def _questions():
    _EMOTIONS.update({q.id: q.emotions for q in questions_by_id("v2").values() if int(q.id) <= 12})
    questions_by_id("v1")  # the question sets are loaded (and cached) once, outside the memory measurements


def _admitted(run) -> None:
    """No record the header does not admit is left in the run."""
    iterations = run.header.get("iterations")
    asked = run.header.get("question_ids")
    keys = [r.key for r in run.records]
    assert len(keys) == len(set(keys)), "a duplicate was kept"
    for r in run.records:
        assert isinstance(r.iteration, int) and r.iteration >= 1
        if isinstance(iterations, int):
            assert r.iteration <= iterations
        if isinstance(asked, list):
            assert r.question_id in {str(q) for q in asked}
        if "model" in run.header:
            assert r.model == str(run.header["model"])


#: a header torn into the tail and one record of iteration 0: nothing left to score (found by the soak)
NOTHING_LEFT = (
    b'{"type": "record", "model": "m", "run_id": "r", "iteration": 0, "question_id": "1"}\n'
    b'{"type": "header", "model": "m", "run_id": "r", "version": "v2", "iterations": 1}{"type": "record", "mod'
)


@fuzz_settings(60)
@given(raw=run_files())
@example(raw=NOTHING_LEFT)
def test_read_run_and_every_convention_never_trace_back_and_admit_only_the_headers_records(raw):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.jsonl"
        path.write_bytes(raw)
        tracemalloc.start()
        try:
            try:
                run = read_run(path)
            except RunFormatError as exc:
                assert "\n" not in str(exc) and str(exc).startswith(str(path))
                run = None
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 4 * 2**20 + 50 * len(raw), (peak, len(raw))
        if run is not None:
            _admitted(run)
            for convention in CONVENTIONS:
                score = score_run(run, convention)
                assert score.n_parseable <= max(1, len({r.question_id for r in run.records}))


@fuzz_settings(30)
@given(raw=run_files(), convention=st.sampled_from(CONVENTIONS), fmt=st.sampled_from(["table", "json", "csv"]))
def test_score_command_is_one_line_per_problem(raw, convention, fmt):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.jsonl"
        path.write_bytes(raw)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(["score", "--convention", convention, "--format", fmt, str(path)])
    assert code in (0, 2), err.getvalue()
    lines = err.getvalue().splitlines()
    assert all(line.startswith(("warning: ", "error: ", "parseable: ")) for line in lines), lines
    assert (code == 2) == any(line.startswith("error: ") for line in lines)
    if fmt == "json":
        json.loads(out.getvalue(), parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))


@fuzz_settings(30)
@given(raw=run_files(), repair=st.booleans())
def test_resume_opens_or_refuses_with_one_line(raw, repair):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.jsonl"
        path.write_bytes(raw)
        header = {"model": "m", "run_id": "r", "version": "v2", "iterations": 2}
        try:
            run_file = RunFile(path, header, record_from_json, SETTINGS_KEYS, IDENTITY, repair=repair)
        except RunnerError as exc:
            assert "\n" not in str(exc)
            return
        try:
            iterations = run_file.header.get("iterations")
            for record in run_file.finished:
                assert isinstance(record.iteration, int) and record.iteration >= 1
                if isinstance(iterations, int) and not isinstance(iterations, bool):
                    assert record.iteration <= iterations
        finally:
            run_file.close()
        assert run_file.error is None


@fuzz_settings(20)
@given(raw=run_files(), prices=st.booleans())
def test_view_command_writes_a_page_or_says_one_line(raw, prices):
    """The run viewer (issue 27) over the same generated files: a page whose data reads back as JSON, or one
    line; prices multiply whatever token counts the file claims."""
    import re

    with tempfile.TemporaryDirectory() as folder:
        path, page = Path(folder) / "run.jsonl", Path(folder) / "page.html"
        path.write_bytes(raw)
        out, err = io.StringIO(), io.StringIO()
        extra = ["--price-in", "2.5", "--price-out", "10"] if prices else []
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(["view", str(path), "--out", str(page), *extra])
        assert code in (0, 2), err.getvalue()
        if code == 2:
            (line,) = err.getvalue().splitlines()
            assert line.startswith("error: ")
            return
        data = re.search(r'<script type="application/json" id="eqv-data">(.*?)</script>', page.read_text(), re.S)
        payload = json.loads(data.group(1), parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))
        assert len(payload["runs"][0]["items"]) >= len(read_run(path).records)
