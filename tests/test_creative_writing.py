"""Creative-writing's pure parts against upstream (EQ-bench/EQ-Bench @ d28c60c): worked examples from its code.

Where a test states a number "from upstream", it was obtained by running d28c60c's own functions
(``lib/creative_writing_utils.py`` ``create_judging_prompt`` / ``parse_scores``, ``lib/scoring.py``
``calculate_creative_writing_score``) on the same inputs; the upstream code is not part of this project.
"""

import hashlib
import math
import random

import pytest
from conftest import needs_data

from eqbench_nb.judged import creative_writing as cw
from eqbench_nb.judged import files


@pytest.fixture(scope="module")
def prompts():
    return files.read_json(files.PROMPTS_FILE)


def constant_reply(record, score) -> str:
    """A judge that writes an analysis line and then gives every criterion it was asked for the same score."""
    return "[Analysis]\n\nThe piece is fine.\n\n[Scores]\n\n" + "\n\n".join(
        f"{c}: {score}" for c in cw.judge_criteria(record)
    )


# --- prompts and seeds ---------------------------------------------------------------------------------------


@needs_data
def test_the_prompt_ids_are_the_files_19(prompts):
    assert tuple(prompts) == cw.PROMPT_IDS
    assert cw.PROMPT_IDS[:8] == ("1", "2", "5", "6", "7", "8", "9", "10") and cw.PROMPT_IDS[-1] == "29"


def test_seed_index_is_iteration_minus_one_mod_n():
    assert [cw.seed_index(i, 10) for i in (1, 2, 10, 11, 21)] == [0, 1, 9, 0, 0]
    assert cw.seed_index(10, 9) == 0  # prompt 23 has 9 modifiers: its 10th iteration wraps
    with pytest.raises(ValueError):
        cw.seed_index(1, 0)


@needs_data
def test_writing_prompt_has_the_preamble_and_the_iterations_seed(prompts):
    rec = prompts["23"]
    first, tenth = cw.writing_prompt(rec, 1), cw.writing_prompt(rec, 10)
    assert first.startswith("You are a talented creative writer of compelling, original prose.\n\n")
    assert "<SEED>" not in first and rec["seed_modifiers"][0] in first
    assert first == tenth  # 9 modifiers: iteration 10 is iteration 1's
    assert rec["seed_modifiers"][1] in cw.writing_prompt(rec, 2)


# --- the writer's retries ------------------------------------------------------------------------------------


def test_four_attempts_from_0_5_in_steps_of_0_1_summed_as_upstream():
    temps = cw.piece_temperatures()
    assert temps == [0.5, 0.6, 0.7, 0.7 + 0.1]  # upstream's temp += 0.1: the fourth is 0.7999999999999999
    assert temps[3] != 0.8
    assert cw.piece_temperatures(8)[-1] == 1.0 and max(cw.piece_temperatures(8)) == 1.0  # capped


def test_short_or_missing_pieces_are_retried():
    assert not cw.piece_is_usable(None) and not cw.piece_is_usable("")
    assert not cw.piece_is_usable("x" * 299)
    assert cw.piece_is_usable("x" * 300)


def test_the_retry_prompt_is_the_first_prompt_unchanged():
    prompt = "Write a story."
    assert [cw.retry_prompt(prompt, a) for a in (1, 2, 3, 4)] == [prompt] * 4
    assert "PG-13" not in cw.retry_prompt(prompt, 2)  # upstream appends it to a copy it never sends


# --- the judge prompt ----------------------------------------------------------------------------------------


@needs_data
def test_judge_criteria_are_reversed_without_the_ignored_ones(prompts):
    for rec in prompts.values():
        crit = cw.judge_criteria(rec)
        assert not set(crit) & set(cw.CRITERIA_TO_IGNORE)
        combined = [c for s in rec["judging_criteria"] for c in s["criteria"]]
        assert crit == [c for c in combined[::-1] if c not in cw.CRITERIA_TO_IGNORE]
    # 6 of upstream's 7 ignored criteria are in the file; "Unearned Resolution: ..." was renamed "Shallow
    # Resolution: ..." (same description) before d28c60c, so upstream ignores nothing by that entry and the renamed
    # criterion is judged
    every = {c for rec in prompts.values() for s in rec["judging_criteria"] for c in s["criteria"]}
    absent = [c for c in cw.CRITERIA_TO_IGNORE if c not in every]
    assert [c.split(":")[0] for c in absent] == ["Unearned Resolution"]
    assert any(c.startswith("Shallow Resolution:") for c in every)


@needs_data
def test_judge_prompt_is_upstreams_byte_for_byte(prompts):
    # sha256 of d28c60c create_judging_prompt for prompt "1", iteration 1, a piece of 300 "x" (7,837 characters)
    text = cw.judge_prompt(prompts["1"], 1, "x" * 300)
    assert len(text) == 7837
    assert hashlib.sha256(text.encode()).hexdigest() == (
        "e13abddb2e0f2348ca50881a5c81d2cf33845b2f850e592e19ec66c26694be4c"
    )
    assert prompts["1"]["reference_output"] in text and "Gripping" not in text.split("---")[-1]


# --- parsing -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [  # each expected value is what d28c60c's parse_scores returns for the reply
        ("Time: 10:30", {"Time": 10.0, "": 30.0}),
        ("Trite: -2", {"Trite": -2.0}),
        ("Overall: Score 7", {"Overall": 7.0}),
        ("Overall: Score: 7", {"Overall: Score": 7.0}),
        ("Engagement: 8/10", {"Engagement": 8.0}),
        ("Name:\n\n 7.5 rest", {"Name": 7.5}),
        ("a: 1 b: 2\nc:3", {"a": 1.0, "b": 2.0, "c": 3.0}),
        ("[Scores]\n\nTrite: 3\nTrite: 4", {"Trite": 4.0}),
        ("No numbers here: none", {}),
        ("x:.5", {}),
        ("x: 5.", {"x": 5.0}),
        ("x: 1e3", {"x": 1.0}),
        ("Analysis of pacing: 3 scenes drag. Pacing: 6", {"Analysis of pacing": 3.0, "scenes drag. Pacing": 6.0}),
    ],
)
def test_parse_scores_reproduces_upstreams_regex(reply, expected):
    assert cw.parse_scores(reply) == expected


def test_empty_or_missing_reply_parses_to_nothing_and_asterisks_only_when_asked():
    assert cw.parse_scores(None) == {} and cw.parse_scores("") == {}
    assert cw.parse_scores("**Trite**: 3") == {"**Trite**": 3.0}  # d28c60c keeps the markdown in the name
    assert cw.parse_scores("**Trite**: 3", strip_asterisks=True) == {"Trite": 3.0}  # 38a29f8 strips it


def test_the_one_pass_reader_finds_what_upstreams_regex_finds():
    """score_pairs replaced ``SCORE_PATTERN.findall`` (quadratic in a line without a scored colon); upstream's regex
    stays the reference, over replies built from the pieces that steer it: colons, blanks, newlines, "Score", signs,
    decimals, other digits and characters ``.`` matches but ``\\s`` does too."""
    rng = random.Random(7)
    pieces = ["9" * 40, "1", "12", ":", " ", "\n", "\r", "\t", "-", ".", "Score ", "Score", "a", "1e309", "NaN",
              "é", "٣", "\u2028", "\x0b", "::", ": ", ":\n", "Trite", "3.", ".5"]  # fmt: skip
    for _ in range(20_000):
        reply = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 25)))
        assert cw.score_pairs(reply) == cw.SCORE_PATTERN.findall(reply), reply


def test_a_long_line_without_a_scored_colon_is_searched_once(monkeypatch):
    """The reply is scanned from each match on, once: a 100,000-character line of analysis costs one search, not a
    scan of the rest of the line from every one of its positions (upstream's regex did that, 5 CPU-s a test)."""
    searches = []
    pattern = cw._SCORE_AFTER_NAME

    class Counting:
        def search(self, text, pos):
            searches.append(pos)
            return pattern.search(text, pos)

    monkeypatch.setattr(cw, "_SCORE_AFTER_NAME", Counting())
    reply = "no colon here " * 7_000 + "\nTrite: 3\n" + "a: b " * 5_000 + "\nVivid: 5"
    assert cw.read_scores(reply).scores == {"Trite": 3.0, "Vivid": 5.0}
    assert len(searches) == 3  # two scores, then the search that finds no more


# --- scoring -------------------------------------------------------------------------------------------------


def test_negative_criteria_count_ten_minus_the_score_by_substring():
    assert cw.criterion_points("Trite", 2) == 8
    assert cw.criterion_points("Repetitive Tit-for-Tat Dialogue: Example", 3) == 7
    assert cw.criterion_points("Overall Impression", 2) == 2
    assert cw.piece_score({"Trite": 2, "Overall Impression": 6}) == 7
    assert cw.piece_score({}) is None


@needs_data
@pytest.mark.parametrize(("score", "upstream"), [(0, 44.82), (3, 47.93), (5, 50.0), (7.5, 52.59), (10, 55.18)])
def test_a_judge_giving_every_criterion_the_same_score_gets_upstreams_score(prompts, score, upstream):
    # upstream: d28c60c parse_scores + calculate_creative_writing_score on these replies, one iteration
    run = {1: {pid: cw.parse_scores(constant_reply(rec, score)) for pid, rec in prompts.items()}}
    result = cw.creative_writing_score(run)
    assert result.upstream_score == upstream and result.defined and result.n_prompts == 19


@needs_data
def test_an_iteration_counts_only_above_ten_prompts_and_none_is_undefined_not_zero(prompts):
    ids = list(prompts)
    ten = {1: {pid: cw.parse_scores(constant_reply(prompts[pid], 7)) for pid in ids[:10]}}
    none = cw.creative_writing_score(ten)
    assert none.upstream_score == 0.0 and not none.defined  # upstream reports 0
    assert none.text.startswith("undefined") and math.isnan(none.low)
    mixed = {
        1: {pid: cw.parse_scores(constant_reply(prompts[pid], 7)) for pid in ids[:11]},
        2: {pid: cw.parse_scores(constant_reply(prompts[pid], 3)) for pid in ids[:10]},
    }
    got = cw.creative_writing_score(mixed)
    assert got.upstream_score == 51.96 and got.counted_iterations == 1 and got.iterations == 2  # upstream: 51.96


def test_the_interval_is_over_prompts_and_brackets_the_score():
    run = {1: {str(i): {"Overall": float(i % 7)} for i in range(19)}}
    got = cw.creative_writing_score(run)
    assert got.n_prompts == 19 and got.low < got.upstream_score < got.high
    assert math.isclose((got.low + got.high) / 2, got.upstream_score, abs_tol=0.006)  # one iteration: same centre
