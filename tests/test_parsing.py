import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eqbench_nb import PARSERS, load_questions, parse_answer, score_question

EMOTIONS = ("Remorseful", "Indifferent", "Affectionate", "Annoyed")


def test_official_parser_rules():
    p = parse_answer("Remorseful: 2\nIndifferent: 3\nAffectionate: 0\nAnnoyed: 5").first_pass
    assert p == {"Remorseful": 2, "Indifferent": 3, "Affectionate": 0, "Annoyed": 5}
    assert parse_answer("Angry: 7.5").first_pass == {"Angry": 7}  # decimals read as their integer part
    assert parse_answer("Angry:7").first_pass == {}  # no space, no match
    assert parse_answer("Angry: 2\nAngry: 6").first_pass == {"Angry": 6}  # repeated name keeps the last
    assert parse_answer("**Angry**: 7").first_pass == {}  # markdown defeats the official parser
    assert parse_answer("angry: 7").first_pass == {"angry": 7}  # case kept; scoring is exact


def test_v24_and_evalscope_parsers():
    text = "**remorseful**: 2\n## INDIFFERENT: 3\nAffectionate: 0\nAnnoyed: 15"
    v24 = parse_answer(text, parser="v2.4", emotions=EMOTIONS).first_pass
    assert v24 == {"Remorseful": 2, "Indifferent": 3, "Affectionate": 0, "Annoyed": 15}
    evs = parse_answer(text, parser="evalscope", emotions=EMOTIONS).first_pass
    assert "Annoyed" not in evs and len(evs) == 3  # out of range: dropped, so unparseable


def test_revision_split():
    text = (
        "First pass scores:\nA: 1\nB: 2\nC: 3\nD: 4\n\nCritique: fine. Note: 9\n\n"
        "Revised scores:\nA: 2\nB: 2\nC: 3\nD: 4\n"
    )
    parsed = parse_answer(text, revise=True)
    # "Note: 9" inside the critique is read too, as upstream does: the first pass is then unparseable
    assert parsed.first_pass == {"A": 1, "B": 2, "C": 3, "D": 4, "Note": 9}
    assert parsed.revised == {"A": 2, "B": 2, "C": 3, "D": 4}
    assert parse_answer("A: 1\nB: 2", revise=True).first_pass == {}  # headings required


def test_german_parser():
    text = "Erste Bewertung:\nReuevoll: **3**\nVerärgert: 7,5\n\nÜberarbeitete Bewertung:\nReuevoll: 4\n"
    parsed = parse_answer(text, revise=True, parser="de")
    assert parsed.first_pass == {"Reuevoll": 3}  # decimal comma invalidates that rating
    assert parsed.revised == {"Reuevoll": 4}
    assert parse_answer("Gleich gültig: 2", parser="de").first_pass == {"Gleich gültig": 2}


def test_extra_pairs_make_an_answer_unparseable():
    q = load_questions("v2")[0]
    body = "\n".join(f"{e}: {int(q.reference[e])}" for e in q.emotions)
    assert score_question(parse_answer(body).first_pass, q) == 10
    assert score_question(parse_answer(body + "\nConfidence: 8").first_pass, q) is None


markdownish = st.lists(st.sampled_from(list("*#_-:0123456789 \n.,-") + list(EMOTIONS)), max_size=60).map("".join)
pieces = st.one_of(
    st.text(),
    markdownish,
    st.builds(lambda e, n: f"{e}: {n}", st.sampled_from(EMOTIONS), st.integers(-(10**30), 10**30)),
    st.builds(lambda e, x: f"**{e}**: {x}", st.sampled_from(EMOTIONS), st.floats(allow_nan=True)),
    st.builds(lambda i, e, n: f"{i}. {e}: {n}", st.integers(0, 99), st.sampled_from(EMOTIONS), st.integers(0, 10)),
    st.just("First pass scores:"),
    st.just("Revised scores:"),
    st.just("Erste Bewertung:"),
    st.just("Überarbeitete Bewertung:"),
    st.just("😀 ünïcödé: ５"),
    st.just("9" * 500),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(pieces, max_size=12), st.sampled_from(PARSERS), st.booleans())
def test_parsing_and_scoring_never_raise(parts, parser, revise):
    text = "\n".join(parts)
    q = load_questions("v2")[0]
    parsed = parse_answer(text, revise=revise, parser=parser, emotions=q.emotions)
    for answer in (parsed.first_pass, parsed.revised):
        assert all(isinstance(v, float) for v in answer.values())
        s = score_question(answer, q)
        assert s is None or s <= 10
        if s is not None and all(0 <= v <= 10 for v in answer.values()):
            assert s >= -19.91  # SPEC §6 range; only the official parser lets ratings above 10 through
        s1 = score_question(answer, q, "v1")
        assert s1 is None or s1 <= 10


@settings(max_examples=25, deadline=None)
@given(st.text(min_size=0, max_size=50))
def test_very_long_text(chunk):
    text = (chunk + "\nAnnoyed: 3\n") * 2000
    assert parse_answer(text, parser="v2.4").first_pass.get("Annoyed") in (None, 3.0)


def test_non_string_input_and_bad_parser():
    assert parse_answer(None).first_pass == {}
    with pytest.raises(ValueError):
        parse_answer("x", parser="nope")
