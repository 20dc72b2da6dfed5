"""EQ-Bench 3's offline core, each rule against a worked example built from upstream's code (EQ-bench/eqbench3 at
3c21bcc and 8c3a125), and the first canonical Elo file re-derived from its own judgements."""

from __future__ import annotations

import gzip
import json
import math
import re

import numpy as np
import pytest
from conftest import DATA, needs_data

from eqbench_nb.data import DataError, git_blob_id
from eqbench_nb.eqbench3 import files, judge_json, pairwise, prompts, rating, rubric, scenarios
from eqbench_nb.eqbench3.versions import FIRST_CANONICAL, HEAD, scoring_version

EQ3 = DATA / "eqbench3"

# ---------------------------------------------------------------- files


@needs_data
def test_every_pinned_file_in_shared_data_matches_its_digest():
    for name, entry in files.manifest()["files"].items():
        path = EQ3 / name
        if not path.is_file():
            continue
        data = path.read_bytes()
        files.check(name, data, path)  # raises on a mismatch
        if entry.get("git_blob") and entry.get("sha256"):
            assert git_blob_id(data) == entry["git_blob"], name  # the id in the commit's tree, computed independently


def test_a_damaged_file_is_named_and_never_read(tmp_path):
    bad = tmp_path / "scenario_prompts.txt"
    bad.write_text("######## 1 | x | y\n####### Prompt1\nhello\n")
    with pytest.raises(DataError, match=r"does not match the pinned upstream scenario_prompts\.txt"):
        files.read_text("scenario_prompts.txt", tmp_path)


def test_a_site_table_has_no_download_and_says_where_to_put_it(monkeypatch, tmp_path):
    monkeypatch.setenv("EQBENCH_NB_CACHE", str(tmp_path))
    monkeypatch.setattr("eqbench_nb.data.shared_data_dir", lambda: None)
    assert files.url(files.SITE_LEADERBOARD) is None
    with pytest.raises(DataError, match="no file to download"):
        files.locate(files.SITE_LEADERBOARD)


def test_git_blob_id_is_what_git_computes():
    # `printf 'hello\n' | git hash-object --stdin`
    assert git_blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"


# ---------------------------------------------------------------- scenarios

SAMPLE = """######## 1   | Work Dilemma | Lunchroom
####### Prompt1
  First turn, indented.

####### Prompt2
Second turn.
######## 409 | Analytical | Dropped
####### 1
A prompt upstream never reads.
######## 7 | Friend | Twice
####### Prompt1
old
######## 401 | Analytical | Kept
####### Prompt1
Transcript.
######## 7 | Friend | Twice again
####### Prompt1
new
"""


def test_scenarios_parse_as_upstream_including_the_silent_drop():
    parsed = scenarios.parse_scenarios(SAMPLE)
    assert parsed.headers == 5
    assert parsed.dropped == ("409",) and parsed.replaced == ("7",)
    assert list(parsed.scenarios) == ["1", "7", "401"]  # a replaced id keeps its first place (a dict)
    assert parsed.scenarios["1"].prompts == ("First turn, indented.", "Second turn.")
    assert parsed.scenarios["7"].prompts == ("new",)
    assert parsed.scenarios["1"].category == "Work Dilemma"
    assert [s.kind for s in parsed.scenarios.values()] == ["roleplay", "roleplay", "analysis"]


@needs_data
def test_the_pinned_scenario_file_gives_45_scenarios_and_drops_409():
    text = (EQ3 / "scenario_prompts.txt").read_text()
    headers = re.findall(r"^######## *(\S+)", text, re.M)
    prompt_lines = len(re.findall(r"^####### *Prompt\d+", text, re.M))
    parsed = scenarios.load_parsed()
    assert parsed.headers == len(headers) == 46
    assert parsed.dropped == ("409",)
    assert len(parsed.scenarios) == 45
    assert sum(len(s.prompts) for s in parsed.scenarios.values()) == prompt_lines
    assert parsed.counts() == {"roleplay": 25, "drafting": 1, "analysis": 19, "no_rp": 0}
    assert sorted(len(s.prompts) for s in parsed.scenarios.values() if s.kind == "analysis") == [1] * 19


@needs_data
def test_notes_are_read_per_scenario():
    notes = scenarios.load_notes()
    assert set(notes) == {str(i) for i in (*range(1, 16), 301, 302, 303, 304)}
    assert notes["1"].startswith("The stakes in the scenario")


# ---------------------------------------------------------------- the subject


def test_reasoning_is_taken_off_as_upstream_does():
    assert prompts.subject_text("a <think>x</think> b </think> c") == "b </think> c"  # after the first close
    assert prompts.subject_text("<think>unclosed answer") == "<think>unclosed answer"  # kept as it is
    assert prompts.subject_text("<THINK>x</THINK>answer") == "<THINK>x</THINK>answer"  # case-sensitive
    assert prompts.subject_text("<reasoning>r</reasoning>\n ok ") == "ok"
    assert prompts.subject_text("<think>t</think> <reasoning>r</reasoning> z") == "z"


def test_sections_are_read_with_either_apostrophe_and_any_case():
    text = "# i’m THINKING & feeling\nMine.\n# They're thinking & feeling\nTheirs.\n# My response\nSaid.\n--\ntail"
    parsed = prompts.parse_sections(text, "1", "roleplay")
    assert parsed == {
        "thinking_feeling": "Mine.",
        "their_thinking_feeling": "Theirs.",
        "response": "Said.",
        "raw": text,
    }
    assert prompts.parse_sections("no headings", "1", "roleplay")["response"] == ""
    assert prompts.parse_sections("prose", "401", "analysis") == {"raw": "prose"}
    draft = prompts.parse_sections("# Perspective taking\nP\n# Draft brainstorming\nB\n# Draft\nD", "208", "drafting")
    assert (draft["perspective_taking"], draft["draft_brainstorming"], draft["draft"]) == ("P", "B", "D")


@needs_data
def test_turns_carry_the_conversation_and_the_master_prompt():
    scenario = scenarios.Scenario("1", ("first {not a field}", "second"))
    templates = prompts.load_templates()
    messages = prompts.conversation(scenario, ["answer one"], templates)
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["content"].startswith("first {not a field}\n\n--\n\nRespond in exactly this output format:")
    assert prompts.turn_prompt(scenarios.Scenario("8", ("raw",)), 0, templates) == "raw"  # no role-play: as it is
    assert prompts.sends_min_p("http://localhost:8000/v1") and not prompts.sends_min_p("https://api.openai.com/v1")


# ---------------------------------------------------------------- the judge's JSON


def test_json_readings_differ_by_version():
    trailing = '{"a": "A0493+",\n}'
    for version in ("8c3a125", "3c21bcc"):  # neither accepts a trailing comma (52 canonical verdicts lost to it)
        with pytest.raises(judge_json.JudgeJSONError):
            judge_json.pairwise_object(trailing, version)
    fenced_twice = 'first ```json\n{"a": 1}\n``` then ```json\n{"b": 2}\n```'
    assert judge_json.pairwise_object(fenced_twice, "3c21bcc") == {"b": 2}  # the last fence
    with pytest.raises(judge_json.JudgeJSONError):  # first { to last } spans both objects
        judge_json.pairwise_object(fenced_twice, "8c3a125")
    newline = '{"reason": "line one\nline two", "x": "A0488++"}'
    assert judge_json.pairwise_object(newline, "8c3a125")["reason"] == "line one\nline two"
    assert judge_json.pairwise_object(newline, "3c21bcc")["x"] == "A0488++"
    quote = '{"reason": "he said "no" firmly", "x": 1}'
    assert judge_json.pairwise_object(quote, "3c21bcc")["reason"] == 'he said "no" firmly'
    with pytest.raises(judge_json.JudgeJSONError):
        judge_json.pairwise_object(quote, "8c3a125")
    with pytest.raises(judge_json.JudgeJSONError, match="No valid JSON block"):
        judge_json.pairwise_object("{}", "3c21bcc")  # HEAD wants a non-empty object
    assert judge_json.pairwise_object("{}", "8c3a125") == {}


# ---------------------------------------------------------------- rubric


def test_rubric_scores_count_only_the_allowed_criteria():
    text = json.dumps({"chain_of_thought_reasoning": "12 reasons", "demonstrated_empathy": 18, "warmth": 2,
                       "pragmatic_ei": "14/20", "depth_of_insight": "n/a"})  # fmt: skip
    scores = rubric.read_scores(text, "3c21bcc")
    assert scores == {"demonstrated_empathy": 18.0, "warmth": 2.0, "pragmatic_ei": 14.0}
    assert rubric.task_score(scores, rubric.STANDARD_COUNTED) == 16.0  # warmth does not count
    with pytest.raises(judge_json.JudgeJSONError, match="no numeric score"):
        rubric.read_scores('{"chain_of_thought_reasoning": "only words"}', "3c21bcc")


def test_rubric_score_is_the_rounded_mean_of_task_means_times_five():
    assert rubric.run_score([15.0] * 45) == 75.0
    assert rubric.run_score([10.0, 11.0, 12.5]) == round((10 + 11 + 12.5) / 3, 2) * 5  # 11.17 * 5
    assert rubric.run_score([]) is None


@needs_data
def test_rubric_prompt_deletes_every_star_and_hash_and_asks_for_every_criterion():
    rub = rubric.load_rubric("roleplay")
    assert len(rub.criteria) == 18 and len(rubric.load_rubric("analysis").criteria) == 6
    history = [{"role": "user", "content": "# Turn *one*"}, {"role": "assistant", "content": "raw reply"}]
    parsed = [{"thinking_feeling": "I *think*", "their_thinking_feeling": "they", "response": "said", "raw": "raw"}]
    text = rubric.rubric_prompt(rub, "roleplay", history, parsed, "my **debrief**")
    assert "*" not in text and "#" not in text
    assert "User:\n Turn one\n---\nAssistant:\n Im thinking & feeling" not in text  # the apostrophe stays
    assert "User:\n Turn one\n---\nAssistant:\n I'm thinking & feeling\nI think\n\n They're" in text
    assert "raw reply" not in text  # the judge sees the sections, not the raw reply
    assert "my debrief" in text
    for name in rub.criteria:
        assert f'"{name}": 0-20' in text


# ---------------------------------------------------------------- pairwise


def test_plus_counts_decide_the_outcome():
    verdict = {
        "chain_of_thought_reasoning": "A0493+++ was better",
        "x": "A0493++",
        "y": "A0488+++++",
        "z": "tie",
        "n": 3,
    }
    assert pairwise.interpret(verdict) == (0.0, 2, 5)
    assert pairwise.interpret({}) == (0.5, 0, 0)


def test_fraction_per_version():
    # the test model won 12 pluses to 6: diff 6 of 30 -> x = 0.2
    linear = pairwise.fraction(1.0, 12, 6, HEAD)
    assert linear.fraction_for_test == pytest.approx(0.6)
    sigmoid = pairwise.fraction(1.0, 12, 6, FIRST_CANONICAL)
    expected = (1 - math.exp(-3 * 0.2**0.75)) / (1 - math.exp(-3))  # past the 0.11 transition: the curve alone
    assert sigmoid.plus_diff_blended == pytest.approx(expected)
    assert sigmoid.fraction_for_test == pytest.approx(0.5 + expected / 2)
    small = pairwise.blend_sigmoid(0.05)  # inside the transition: smoothstep between 5x and the curve
    t = 0.05 / 0.11
    w = t * t * (3 - 2 * t)
    assert small == pytest.approx((1 - w) * 0.25 + w * (1 - math.exp(-3 * 0.05**0.75)) / (1 - math.exp(-3)))
    assert pairwise.fraction(0.0, 0, 40, HEAD).fraction_for_test == 0.0  # capped at 30
    assert pairwise.fraction(0.5, 7, 7, FIRST_CANONICAL).fraction_for_test == 0.5


def test_analysis_items_are_clamped_only_at_head():
    verdict = {"a": "A0488+++++", "b": "A0488+++++"}  # A0488 wins 10-0
    outcome, m = pairwise.score_verdict(verdict, test_is_a=False, scenario_id="404", version=HEAD)
    assert outcome == 1.0 and (m.plus_for_test, m.plus_for_other) == (1, 0)
    assert m.fraction_for_test == pytest.approx(0.5 + (1 / 30) / 2)
    _, old = pairwise.score_verdict(verdict, test_is_a=False, scenario_id="404", version=FIRST_CANONICAL)
    assert (old.plus_for_test, old.plus_for_other) == (10, 0)
    _, roleplay = pairwise.score_verdict(verdict, test_is_a=False, scenario_id="4", version=HEAD)
    assert roleplay.plus_for_test == 10


def test_pairwise_prompt_fills_upstreams_placeholders():
    template = "{scenario_notes}|{conversation_history_A}|{debrief_A}|{conversation_history_B}|{debrief_B}"
    parsed = {"thinking_feeling": "x" * 2300, "their_thinking_feeling": "*t*", "response": "r", "raw": "RAW"}
    a = pairwise.Transcript(
        ({"role": "user", "content": "# hi"}, {"role": "assistant", "content": "RAW"}), (parsed,), "d" * 4001
    )
    b = pairwise.Transcript(({"role": "user", "content": "hi"}, {"role": "assistant", "content": "plain"}), (), None)
    text = pairwise.pairwise_prompt(template, "1", "desc", {"1": "NOTE"}, a, b)
    notes, hist_a, debrief_a, hist_b, debrief_b = text.split("|")
    assert notes == "NOTE"
    assert hist_a.startswith(
        "User:\n hi\n---\nAssistant:\n I'm thinking & feeling\n\n" + "x" * 2200 + "... [truncated]"
    )
    assert "RAW" not in hist_a and "*" not in hist_a
    assert debrief_a == "d" * 4000 + "... [truncated]"
    assert hist_b == "User:\nhi\n---\nAssistant:\nplain\n---"  # no sections: the raw reply, cut at 4,000
    assert debrief_b == "[No Debrief Provided]"
    analysis = pairwise.pairwise_prompt("{transcript_being_analysed}|{response_A}|{response_B}|{scenario_notes}",
                                        "401", " T ", {}, b, a)  # fmt: skip
    assert analysis == "T|plain|RAW|[No scenario notes available]"


# ---------------------------------------------------------------- rating


def test_pseudo_wins():
    assert rating.pseudo_wins(0.5, 20) == (1, 1)
    assert rating.pseudo_wins(1.0, 20) == (20, 0) and rating.pseudo_wins(0.0, 5) == (0, 5)
    assert rating.pseudo_wins(0.51, 20) == (1, 0)  # at least one
    assert rating.pseudo_wins(0.2, 1) == (0, 1)


def _comparison(test, other, sid, plus_test, plus_other, order="forward", iteration="1"):
    return {"scenario_id": sid, "pair": {"test_model": test, "neighbor_model": other, "iteration_index": iteration},
            "order": order, "plus_for_test": plus_test, "plus_for_other": plus_other}  # fmt: skip


def test_both_orders_of_a_pair_make_one_comparison_from_summed_pluses():
    comps = [_comparison("m1", "m2", "1", 6, 2), _comparison("m2", "m1", "1", 1, 4), _comparison("m2", "m1", "2", 3, 3)]
    paired = rating.pair_comparisons(comps, HEAD)
    assert [(p.a, p.b, p.scenario_id) for p in paired] == [("m1", "m2", "1"), ("m1", "m2", "2")]
    assert paired[0].fraction_a == pytest.approx(0.5 + (10 - 3) / 30 / 2)
    assert paired[1].fraction_a == 0.5
    assert rating.pair_comparisons([{**comps[0], "error": "x"}], HEAD) == []


def test_solve_ranks_a_consistent_winner_first_and_keeps_a_tie_level():
    comps = [_comparison("strong", "weak", str(s), 20, 0) for s in range(1, 11)]
    comps += [_comparison("even1", "even2", str(s), 5, 5) for s in range(1, 11)]
    mu, sigma = rating.solve(["strong", "weak", "even1", "even2", "idle"], rating.pair_comparisons(comps, HEAD), 20)
    assert mu["strong"] > rating.DEFAULT_ELO > mu["weak"]
    assert mu["even1"] == pytest.approx(mu["even2"]) and mu["even1"] == pytest.approx(rating.DEFAULT_ELO)
    assert mu["idle"] == rating.DEFAULT_ELO and sigma["idle"] == pytest.approx(rating.TS_SIGMA)  # never updated
    assert sigma["strong"] < rating.TS_SIGMA


def test_anchors_map_o3_to_1500_and_llama_1b_to_200():
    norm = rating.normalise({"o3": 1300.0, "meta-llama/llama-3.2-1b-instruct": 1000.0, "m": 1150.0})
    assert norm == {"o3": 1500.0, "meta-llama/llama-3.2-1b-instruct": 200.0, "m": 850.0}
    assert rating.normalise({"o3": 1300.0, "m": 1.0}) == {"o3": 1300.0, "m": 1.0}  # one anchor: raw


def test_window_keeps_comparisons_of_near_models_only():
    ladder = {f"m{i}": float(i) for i in range(10)}
    comps = [_comparison("m0", "m8", "1", 1, 0), _comparison("m0", "m9", "1", 1, 0), _comparison("x", "m1", "1", 1, 0)]
    assert [c["pair"]["neighbor_model"] for c in rating.within_window(comps, ladder, 8)] == ["m8"]


def test_scoring_versions_are_named():
    assert scoring_version("8c3a125") is FIRST_CANONICAL and scoring_version("3c21bcc") is HEAD
    with pytest.raises(ValueError, match="choose one of 8c3a125, 3c21bcc"):
        scoring_version("v3")


# ---------------------------------------------------------------- the first canonical file


@pytest.fixture(scope="module")
def canonical():
    from eqbench_nb.eqbench3.canonical import read_canonical, rederive

    return rederive(read_canonical(), "8c3a125")


@needs_data
def test_every_canonical_comparison_rederives_exactly(canonical):
    raw = json.loads(gzip.decompress((EQ3 / files.CANONICAL_ELO_8C3A125).read_bytes()))
    comparisons = raw["__metadata__"]["global_pairwise_comparisons"]
    errors = sum("error" in c for c in comparisons)
    assert (len(comparisons), errors) == (6452, 90)  # PROVENANCE.md; the 90 lost judgements
    assert canonical.checked == len(comparisons) - errors == 6362
    assert canonical.matching == canonical.checked, canonical.mismatches
    assert sum(canonical.errors.values()) == errors
    assert canonical.errors["complete object with a trailing comma"] > 0


@needs_data
def test_head_rules_disagree_with_the_stored_fields(canonical):
    """A null that can fail: HEAD's blend and clamp do not reproduce the 8c3a125 file's fractions."""
    from eqbench_nb.eqbench3.canonical import check_comparisons, read_canonical

    head = check_comparisons(read_canonical(), "3c21bcc")
    assert head.matching < 0.5 * head.checked
    assert head.mismatches["fraction_for_test"] > 0


@needs_data
def test_normalised_ratings_follow_from_the_published_raw_ones(canonical):
    assert canonical.norm_max_diff < 0.02  # rounding of the published raw ratings only
    assert canonical.norm_ci_max_diff < 0.02


@needs_data
def test_resolved_ratings_rank_as_published(canonical):
    assert canonical.spearman > 0.99
    rows = canonical.table
    assert next(r["model"] for r in rows) == "o3" and rows[0]["elo_norm"] == 1500.0
    assert {r["model"] for r in rows if r["elo_norm"] == 200.0} == {"meta-llama/llama-3.2-1b-instruct"}
    assert all(r["ci_low"] < r["elo_norm"] < r["ci_high"] for r in rows if r["elo_norm"] not in (1500.0, 200.0))
    assert sum(r["comparisons"] for r in rows) == 2 * canonical.checked


def test_qwen3_at_openrouter_gets_upstreams_no_think_system_message():
    assert prompts.system_messages("https://openrouter.ai/api/v1", "qwen/qwen3-235b-a22b") == [
        {"role": "system", "content": "/no_think"}
    ]
    assert prompts.system_messages("https://openrouter.ai/api/v1", "qwen/qwq-32b") == []
    assert prompts.system_messages("http://localhost:8000/v1", "Qwen/Qwen3-8B") == []


@needs_data
def test_dry_run_counts_upstreams_requests_and_prices_the_judge_apart():
    from eqbench_nb.eqbench3 import dryrun
    from eqbench_nb.runner.cost import Prices, TokenCounter, approximate

    counter = TokenCounter(approximate, "approximation")
    chosen = scenarios.load_scenarios()
    subject, judge = dryrun.estimate(chosen, 2, prompts.load_templates(), counter, counter, Prices(1, 2), Prices(3, 4))
    assert subject.requests == 2 * (92 + 26) and judge.requests == 2 * 45
    assert subject.prompt[0] < subject.prompt[1] < subject.prompt[2]
    assert judge.prompt[0] < judge.prompt[1] < judge.prompt[2]
    assert subject.completion == (2 * (92 * 1333 + 26 * 1067), 2 * 118 * 12000)
    assert judge.completion == (None, 2 * 45 * 8000)
    assert "$3 in / $4 out" in "\n".join(judge.lines("approximation"))
    none, no_judge = dryrun.estimate(
        chosen[:1], 1, prompts.load_templates(), counter, counter, Prices(), Prices(), rubric_on=False
    )
    assert no_judge is None and none.requests == len(chosen[0].prompts) + 1


# ---------------------------------------------------------------- the solve against the trueskill package


def _package_solve(models, paired, bin_size, inactive_start):
    """Upstream's solve as it reads, with the trueskill package's rate_1vs1 for every game."""
    import trueskill
    from trueskill import rate_1vs1

    from eqbench_nb.eqbench3.rating import pseudo_wins

    env = trueskill.TrueSkill(mu=1200.0, sigma=350 / 3, beta=350 / 6, tau=0.0, draw_probability=0.0)
    active = {p.a for p in paired} | {p.b for p in paired}
    r = {m: env.create_rating(mu=1200.0 if m in active else inactive_start) for m in [*models, *sorted(active)]}
    for p in paired:
        wins_a, wins_b = pseudo_wins(p.fraction_a, bin_size)
        try:
            if wins_a == 1 and wins_b == 1:
                r[p.a], r[p.b] = rate_1vs1(r[p.a], r[p.b], drawn=True, env=env)
                continue
            for _ in range(wins_a):
                r[p.a], r[p.b] = rate_1vs1(r[p.a], r[p.b], env=env)
            for _ in range(wins_b):
                r[p.b], r[p.a] = rate_1vs1(r[p.b], r[p.a], env=env)
        except (ValueError, ArithmeticError):
            continue
    return {m: x.mu for m, x in r.items()}, {m: x.sigma for m, x in r.items()}


def test_one_closed_form_game_is_the_packages_rate_1vs1():
    import trueskill
    from trueskill import rate_1vs1

    from eqbench_nb.eqbench3.rating import _play

    env = trueskill.TrueSkill(mu=1200.0, sigma=350 / 3, beta=350 / 6, tau=0.0, draw_probability=0.0)
    margin = trueskill.calc_draw_margin(0.0, 2, env)
    rng = np.random.default_rng(0)
    for _ in range(200):
        mu_a, mu_b = rng.uniform(600, 1800, 2)
        sd_a, sd_b = rng.uniform(5, 350 / 3, 2)
        drawn = bool(rng.random() < 0.3)
        mu, var = {"a": mu_a, "b": mu_b}, {"a": sd_a**2, "b": sd_b**2}
        try:
            ra, rb = rate_1vs1(env.create_rating(mu_a, sd_a), env.create_rating(mu_b, sd_b), drawn=drawn, env=env)
        except (ValueError, ArithmeticError):  # the package refuses this game: so must the closed form
            with pytest.raises((ValueError, ArithmeticError)):
                _play(env, mu, var, "a", "b", margin, 2 * env.beta**2, drawn)
            assert (mu["a"], mu["b"]) == (mu_a, mu_b)  # and change nothing
            continue
        _play(env, mu, var, "a", "b", margin, 2 * env.beta**2, drawn)
        # a draw's update divides by cdf(a) - cdf(b) over a draw margin of ~3e-6, where the package's arithmetic
        # (precision and mean-times-precision messages) and the closed form part at ~1e-8; a win's agree to ~1e-12
        rel = 1e-6 if drawn else 1e-10
        assert (mu["a"], mu["b"]) == (pytest.approx(ra.mu, rel=rel), pytest.approx(rb.mu, rel=rel))
        sigmas = (pytest.approx(ra.sigma, rel=rel), pytest.approx(rb.sigma, rel=rel))
        assert (var["a"] ** 0.5, var["b"] ** 0.5) == sigmas


def _solve_game_by_game(models, paired, bin_size, inactive_start, start):
    """The solve as a loop of :func:`rating._play` calls, one per game: what the fused win loop must equal."""
    import trueskill

    env = trueskill.TrueSkill(mu=1200.0, sigma=350 / 3, beta=350 / 6, tau=0.0, draw_probability=0.0)
    margin = trueskill.calc_draw_margin(0.0, 2, env)
    active = {p.a for p in paired} | {p.b for p in paired}
    first = {m: (start.get(m, 1200.0) if start is not None else 1200.0 if m in active else inactive_start)
             for m in [*models, *sorted(active)]}  # fmt: skip
    mu, var = {m: float(v) for m, v in first.items()}, {m: env.sigma**2 for m in first}
    refused = 0
    for p in paired:
        if p.a == p.b:
            continue
        wins_a, wins_b = rating.pseudo_wins(p.fraction_a, bin_size)
        try:
            if wins_a == 1 and wins_b == 1:
                rating._play(env, mu, var, p.a, p.b, margin, 2 * env.beta**2, drawn=True)
                continue
            for _ in range(wins_a):
                rating._play(env, mu, var, p.a, p.b, margin, 2 * env.beta**2)
            for _ in range(wins_b):
                rating._play(env, mu, var, p.b, p.a, margin, 2 * env.beta**2)
        except (ValueError, ArithmeticError):
            refused += 1
    return mu, {m: math.sqrt(v) for m, v in var.items()}, refused


def test_the_fused_win_loop_is_game_by_game_play_to_the_bit():
    """solve plays runs of won games in one loop with trueskill's cdf and pdf written out; the ratings must be those
    of one :func:`rating._play` per game to the last bit (notebook 10's figures and headlines rest on them),
    refused games included: rating gaps of 10^5 make the package refuse, and the games before stay played."""
    rng = np.random.default_rng(7)
    refused = 0
    for trial in range(250):
        models = [f"m{i}" for i in range(int(rng.integers(2, 10)))]
        paired = []
        for _ in range(int(rng.integers(1, 300))):
            a, b = rng.choice(len(models), 2, replace=bool(rng.random() < 0.05))
            frac = float(rng.choice([0.5, rng.random(), 0.0, 1.0]))
            paired.append(rating.Paired(models[a], models[b], "s", "1", frac))
        bin_size = int(rng.choice([1, 5, 20, 40]))
        start = None
        if trial % 3 == 0:  # far apart: the package refuses many of the games
            start = {m: float(rng.choice([-1e5, 0.0, 1e5])) for m in models}
        elif trial % 3 == 1:
            start = {m: float(rng.uniform(0, 3000)) for m in models}
        *expected, refusals = _solve_game_by_game([*models, "idle"], paired, bin_size, 800.0, start)
        assert rating.solve([*models, "idle"], paired, bin_size, 800.0, start) == tuple(expected)
        refused += refusals
    assert refused > 100  # the refusal path was exercised


@needs_data
@pytest.mark.parametrize("version", ["8c3a125", "3c21bcc"])
def test_the_solve_is_the_packages_over_the_canonical_file(version):
    """The closed-form solve gives the package's ratings over all 6,452 judgements, under both versions' rules
    (3c21bcc's plays up to 20 games a comparison: errors would accumulate)."""
    from eqbench_nb.eqbench3.canonical import read_canonical
    from eqbench_nb.eqbench3.pairwise import recompute
    from eqbench_nb.eqbench3.rating import is_valid, pair_comparisons, solve
    from eqbench_nb.eqbench3.versions import scoring_version

    v = scoring_version(version)
    elo = read_canonical()
    comps = [{**c, **d} if (d := recompute(c, v)) is not None else c for c in elo.comparisons]
    paired = pair_comparisons([c for c in comps if is_valid(c)], v)
    ours, ours_sigma = solve(elo.models, paired, v.bin_size, v.inactive_start)
    theirs, theirs_sigma = _package_solve(elo.models, paired, v.bin_size, v.inactive_start)
    assert max(abs(ours[m] - theirs[m]) for m in theirs) < 1e-6
    assert max(abs(ours_sigma[m] - theirs_sigma[m]) for m in theirs) < 1e-6
