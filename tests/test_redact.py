"""The one redaction function (issue 18): every form of a secret a server may echo, removed before any cut."""

import json
from urllib.parse import quote, quote_plus

import pytest
from fuzz import leaks
from hypothesis import given
from hypothesis import strategies as st

from eqbench_nb.runner.redact import MIN_PREFIX, clean_json, clip, printable, redact

SECRET = "QKEY canary/Secret=Value!xyz-ü"


@pytest.mark.parametrize(
    "form",
    [
        SECRET,
        quote(SECRET),
        quote(SECRET, safe=""),
        quote_plus(SECRET),
        "QKEY%20canary/Secret%3dValue%21xyz-%c3%bc",  # hex digits in lower case
        SECRET.replace(" ", "+"),
        "QKEY+canary/Secret%3DValue!xyz-%C3%BC",  # some characters encoded, others not (as httpx does)
        json.dumps(SECRET)[1:-1],
        json.dumps(SECRET, ensure_ascii=False).replace("/", "\\/")[1:-1],
    ],
)
def test_every_encoding_of_the_secret_is_redacted(form):
    assert redact(f"before {form} after", SECRET) == "before *** after"


def test_prefixes_of_eight_characters_or_more_are_redacted_and_shorter_ones_kept():
    key = "sk-CANARY-7f3a9b2c1d0e8a6b5c4d3e2f1a0b9c8d7e6"
    for n in range(MIN_PREFIX, len(key) + 1):
        assert redact(f"Bearer {key[:n]}…", key) == "Bearer ***…"
    assert redact(f"Bearer {key[: MIN_PREFIX - 1]}", key) == f"Bearer {key[: MIN_PREFIX - 1]}"


def test_redaction_comes_before_the_cut():
    key = "sk-CANARY-7f3a9b2c1d0e8a6b5c4d3e2f1a0b9c8d7e6"
    for padding in range(140, 200):
        line = clip("x" * padding + " Bearer " + key, 200, key)
        assert len(line) <= 200 and not leaks(line, key), line


def test_printable_escapes_control_characters_and_clean_json_makes_records_storable():
    assert printable("\x1b[2Jmodel\u202e\ud800") == "\\x1b[2Jmodel\u202e\\ud800"
    cleaned = clean_json({"text": "a\ud800 sk-SECRET-123456", "n": [1, {"k": "sk-SECRET-1234"}]}, "sk-SECRET-123456")
    assert cleaned == {"text": "a\ufffd ***", "n": [1, {"k": "***"}]}
    json.dumps(cleaned, ensure_ascii=False).encode("utf-8")


@given(
    key=st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=0x2FF), min_size=12, max_size=40),
    cut=st.integers(MIN_PREFIX, 40),
    how=st.sampled_from(["raw", "quote", "quote_plus", "json"]),
    around=st.text(max_size=20),
)
def test_any_key_in_any_form_or_prefix_is_gone(key, cut, how, around):
    echoed = {
        "raw": key,
        "quote": quote(key),
        "quote_plus": quote_plus(key),
        "json": json.dumps(key)[1:-1],
    }[how]
    piece = key[: min(cut, len(key))]
    text = redact(f"{around}{echoed}{around}|{piece}", key)
    assert key not in text and echoed not in text and f"|{piece}" not in text
