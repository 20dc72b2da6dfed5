"""Keys that share a prefix leak each other (issue 43, broken 3): redaction finds every key's spans, in every form
the runner redacts, on the text as given, merges them and replaces once.

Masking one key at a time let a masked ``sk-proj-`` (the first 8 characters every OpenAI project key shares) stop
the next key's match, and a match taken from the first place a key's head fits let the key written two characters
on survive in a repetitive key. The property: whatever keys the text writes (prefixes of each other, sharing a
prefix, overlapping, nested) and in whatever form, no 8-character window of any key survives, and the text between
them is kept."""

from __future__ import annotations

import json
import re
from urllib.parse import quote, quote_plus

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from eqbench_nb.runner.redact import MIN_PREFIX, redact

SUBJECT_KEY = "sk-proj-SubjectKeyAAAA1111bbbb2222cccc"
JUDGE_KEY = "sk-proj-JudgeKeyZZZZ9999yyyy8888xxxx"
#: What keys are made of here: a key's characters (and ``/``, ``.``, ``=`` and two non-ASCII letters, which JSON
#: and URLs write otherwise). The text around them shares no character with a key or with any form of one.
KEY_ALPHABET = "abcdefABCDEF0123456789xyzXYZ-_/.=~üé"
FILLER_ALPHABET = " ,:;()[]<>|#!\n"

#: A loaded CI machine (load 10) took test_redact past hypothesis' 200 ms: no deadline.
PROPERTY = settings(
    max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)


def test_the_issue_example_two_project_keys():
    line = f"echo {JUDGE_KEY}"
    assert redact(line, [SUBJECT_KEY, JUDGE_KEY]) == "echo ***"
    assert redact(line, [JUDGE_KEY, SUBJECT_KEY]) == "echo ***"  # whatever the order


def test_a_three_judge_panel_keeps_no_piece_of_any_key():
    keys = [f"sk-proj-Judge{n}Key-{n}{n}{n}{n}-SECRET-0123456789" for n in range(3)]
    for key in keys:
        assert redact(f"401: Incorrect API key provided: {key}.", keys) == "401: Incorrect API key provided: ***."


def test_a_key_written_two_characters_after_a_head_that_fits_is_gone():
    key = "ababababab" + "XYZWVUTS"
    assert redact("ab" + key, key) == "***"


# ---------------------------------------------------------------- every form a character may be written in


def _percent(char: str, upper: bool) -> str:
    hexes = [f"{b:02X}" if upper else f"{b:02x}" for b in char.encode()]
    return "".join(f"%{h}" for h in hexes)


def _char_forms(char: str) -> list[str]:
    """The forms of one key character the runner redacts (written here, not taken from the module)."""
    forms = [char, _percent(char, True), _percent(char, False), json.dumps(char)[1:-1]]
    if char == "/":
        forms.append("\\/")
    if ord(char) > 0x7E:
        forms += [f"\\u{ord(char):04x}", f"\\u{ord(char):04X}"]
    return forms


WHOLE_FORMS = {
    "plain": lambda s: s,
    "quote": lambda s: quote(s, safe="/"),
    "quote_all": lambda s: quote(s, safe=""),
    "quote_plus": quote_plus,
    "json": lambda s: json.dumps(s)[1:-1],
    "json_utf8_slash": lambda s: json.dumps(s, ensure_ascii=False).replace("/", "\\/")[1:-1],
}


def _window_pattern(window: str) -> re.Pattern[str]:
    return re.compile("".join("(?:" + "|".join(map(re.escape, _char_forms(c))) + ")" for c in window))


def surviving_windows(text: str, keys: list[str]) -> list[str]:
    """Every 8-character window of any key found in ``text`` in any form."""
    windows = {k[i : i + MIN_PREFIX] for k in keys for i in range(len(k) - MIN_PREFIX + 1)}
    return sorted(w for w in windows if _window_pattern(w).search(text))


# ---------------------------------------------------------------- keys related to each other


@st.composite
def related_keys(draw) -> list[str]:
    """2 to 5 keys cut from one base string (so prefixes of each other, nested, overlapping) or sharing a head
    with tails of their own (``sk-proj-`` and a different rest)."""
    base = draw(st.text(alphabet=KEY_ALPHABET, min_size=MIN_PREFIX, max_size=48))
    keys = []
    for _ in range(draw(st.integers(2, 5))):
        if draw(st.booleans()):  # a slice of the base: same start, one inside another, or overlapping
            start = draw(st.integers(0, len(base) - MIN_PREFIX))
            end = draw(st.integers(start + MIN_PREFIX, len(base)))
            keys.append(base[start:end])
        else:  # the base's head, then a tail of its own
            head = base[: draw(st.integers(MIN_PREFIX, len(base)))]
            keys.append(head + draw(st.text(alphabet=KEY_ALPHABET, min_size=1, max_size=24)))
    return keys


@st.composite
def text_writing(draw, keys: list[str]) -> tuple[str, list[str]]:
    """(a text writing some of the keys, or prefixes of them of 8 characters or more, each in a form, with filler
    between (or none), the filler pieces)."""
    pieces, fillers = [], []
    for _ in range(draw(st.integers(1, 6))):
        filler = draw(st.text(alphabet=FILLER_ALPHABET, max_size=6))
        fillers.append(filler)
        key = draw(st.sampled_from(keys))
        written = key[: draw(st.integers(MIN_PREFIX, len(key)))]
        how = draw(st.sampled_from([*WHOLE_FORMS, "each character its own way"]))
        if how in WHOLE_FORMS:
            form = WHOLE_FORMS[how](written)
        else:
            form = "".join(draw(st.sampled_from(_char_forms(c))) for c in written)
        pieces += [filler, form]
    tail = draw(st.text(alphabet=FILLER_ALPHABET, max_size=6))
    return "".join(pieces) + tail, [*fillers, tail]


@PROPERTY
@given(data=st.data(), keys=related_keys())
@example(data=None, keys=[SUBJECT_KEY, JUDGE_KEY]).via("the issue's two project keys")
def test_no_window_of_any_key_survives_in_any_form(data, keys):
    if data is None:  # the explicit example: the judge's key echoed, the subject's listed first
        text, fillers = f"echo {JUDGE_KEY}|{quote(SUBJECT_KEY[:20])}", ["echo ", "|"]
    else:
        text, fillers = data.draw(text_writing(keys))
    for order in (keys, keys[::-1]):
        out = redact(text, order)
        assert surviving_windows(out, keys) == [], (text, out)
        assert out.replace("***", "") == "".join(fillers), (text, out)  # only the keys were taken out
