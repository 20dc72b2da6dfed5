"""Each protocol makes its upstream pipeline's decisions, shown on worked examples through the real openai
client and a loopback server (tests/fake_openai_server.py) that answers with constructed texts.

The upstream decisions quoted (EQ-bench/EQ-Bench lib/eq_bench_utils.py process_question at d28c60c, and
lib/run_bench.py on main_v1_1): an attempt is retried unless the v1 scorer accepts its first pass and,
with revision, its revised pass too; an all-zero answer is not accepted; after the last attempt nothing is
stored unless, with revision, an earlier attempt had one accepted pass, and then the first such one is.
"""

import hashlib
import json

import pytest
from cli_helper import cli
from conftest import DATA, needs_data, run
from fake_openai_server import FakeOpenAI
from hypothesis import given, settings
from hypothesis import strategies as st

from eqbench_nb import build_prompt, data, load_questions, read_run, score_question, score_run
from eqbench_nb.eqbench.parsing import ParsedAnswer, parse_answer
from eqbench_nb.eqbench.protocols import UPSTREAM, attempt_outcome, protocol_plan
from eqbench_nb.eqbench.questions import questions_by_id
from eqbench_nb.eqbench.scoring import upstream_v1_accepts, upstream_v1_score
from eqbench_nb.runner import RunnerError

pytestmark = pytest.mark.usefixtures("key")  # every test here talks to the loopback server


def question_for(prompt, version="v2", protocol=None):
    """The question a prompt asks, so a responder can answer it on purpose."""
    return next(
        q
        for q in load_questions(version, protocol=protocol)
        if prompt in (build_prompt(q, False), build_prompt(q, True))
    )


def lines(emotions, values):
    return "\n".join(f"{e}: {v}" for e, v in zip(emotions, values))


def right(q):
    return lines(q.emotions, [int(q.reference[e]) for e in q.emotions])


# ---------------------------------------------------------------- 1. all-zero answers


def test_an_all_zero_last_attempt_is_not_stored_and_can_fail_the_run(tmp_path):
    zero_ids = {"1", "2", "3"}  # 3 of 12: 9 parseable < 83.33 % of 12 -> the run fails

    def respond(prompt, temperature):
        q = question_for(prompt)
        return lines(q.emotions, [0, 0, 0, 0]) if q.id in zero_ids else right(q)

    fake = FakeOpenAI(responder=respond)
    with fake as url:
        result = run(url, tmp_path, limit=12)
    records = {r.question_id: r for r in result.run.records}
    for qid in zero_ids:
        r = records[qid]
        assert len(r.attempts) == 3, "an all-zero answer is retried"
        assert r.first_pass == {} and r.first_pass_score is None and r.answer_attempt is None
    official = result.scores["official"]
    assert official.n_parseable == 9 and official.failed and official.score == 100.0
    assert len(fake.log) == 9 + 3 * 3
    # the runner used to store the last all-zero answer: 12 parseable and a passing run


def test_an_all_zero_attempt_followed_by_an_answer_stores_the_answer(tmp_path):
    def respond(prompt, temperature):
        q = question_for(prompt)
        return lines(q.emotions, [0, 0, 0, 0]) if temperature < 0.1 else right(q)

    with FakeOpenAI(responder=respond) as url:
        (record,) = run(url, tmp_path, limit=1).run.records
    assert [a["temperature"] for a in record.attempts] == [0.01, 0.16]
    assert record.answer_attempt == 1 and record.first_pass_score == 10


# ---------------------------------------------------------------- 2. revision


def revision_text(first=None, revised=None):
    text = ""
    if first is not None:
        text += f"First pass scores:\n{first}\n\nCritique: fine.\n\n"
    if revised is not None:
        text += "Revised scores:\n" + revised
    return text


def test_with_revision_an_attempt_needs_both_passes(tmp_path):
    def respond(prompt, temperature):
        q = question_for(prompt)
        if temperature < 0.1:  # only the first pass: partial
            return revision_text(first=right(q)) + "\nRevised scores: I would not change anything."
        return revision_text(first=right(q), revised=right(q))

    fake = FakeOpenAI(responder=respond)
    with fake as url:
        result = run(url, tmp_path, limit=4, revise=True)
    for r in result.run.records:
        assert len(r.attempts) == 2 and r.answer_attempt == 1  # retried, stored from the second attempt
        assert r.first_pass_score == 10 and r.revised_score == 10
    assert len(fake.log) == 8  # the old rule (either pass) stopped after 4 requests


def test_after_the_last_attempt_the_first_partial_answer_is_kept(tmp_path):
    def respond(prompt, temperature):
        q = question_for(prompt)
        if temperature < 0.1:
            return revision_text(first=right(q), revised="nothing")  # partial: first pass only
        if temperature < 0.2:
            return revision_text(first="nothing", revised=right(q))  # partial: revised only
        return "no scores at all"

    with FakeOpenAI(responder=respond) as url:
        (record,) = run(url, tmp_path, limit=1, revise=True).run.records
    assert len(record.attempts) == 3 and record.answer_attempt == 0
    assert record.first_pass_score == 10 and record.revised_score is None
    assert record.final_text == record.attempts[0]["text"]


# ---------------------------------------------------------------- 3. v1 and the token limits


def test_v1_official_parses_the_whole_text_in_60_tokens_and_v11_splits_in_1000(tmp_path):
    def respond(prompt, temperature):
        return right(question_for(prompt, "v1"))  # plain ratings, no headings, as many models answer

    fake = FakeOpenAI(responder=respond)
    with fake as url:
        official = run(url, tmp_path / "a", version="v1", limit=6)
        sent = len(fake.log)
        v11 = run(url, tmp_path / "b", version="v1", limit=6, protocol="official-v1.1")
    bodies = [e["body"] for e in fake.log]
    assert all(b["max_tokens"] == 60 for b in bodies[:sent]) and all(b["max_tokens"] == 1000 for b in bodies[sent:])
    assert all("First pass scores:" in b["messages"][0]["content"] for b in bodies)  # the v1 prompt is sent whole
    assert official.scores["official"].n_parseable == 6 and sent == 6
    assert v11.scores["official"].n_parseable == 0 and len(bodies) - sent == 18
    assert official.run.header["upstream"]["commit"].startswith("d28c60c")
    assert v11.run.header["upstream"]["commit"].startswith("8e64f95") and v11.run.split_revision


@pytest.mark.parametrize(
    "protocol, version, revise, tokens",
    [
        ("official", "v2", False, 60),
        ("official", "v2", True, 60),
        ("official", "v1", False, 60),
        ("official-v2.4", "v2", False, 60),
        ("official-v2.4", "v2", True, 600),
        ("official-v2.4", "pl", True, 600),
        ("official-v1.1", "v1", False, 1000),
        ("lm-eval", "v2", False, 80),
    ],
)
def test_each_protocol_keeps_its_own_token_limit(protocol, version, revise, tokens):
    plan = protocol_plan(protocol, version, revise)
    assert plan.max_tokens == tokens and plan.upstream == UPSTREAM[protocol]


def test_protocols_refuse_sets_their_pipeline_does_not_run():
    with pytest.raises(RunnerError, match=r"official-v2\.4"):
        protocol_plan("official", "pl", False)
    for protocol, version in (("lm-eval", "v1"), ("official-v1.1", "v2"), ("official-v2.4", "v1")):
        with pytest.raises(RunnerError, match="question sets"):
            protocol_plan(protocol, version, False)


# ---------------------------------------------------------------- 5. German, 6. v2.4 names


def test_german_decimal_comma_and_markdown_under_v23_and_v24(tmp_path):
    def respond(prompt, temperature):
        q = question_for(prompt, "de")
        if q.id == "1":
            return right(q) + "\nGesamt: 7,5"  # five labels upstream: unparseable, retried, nothing stored
        return "\n".join(f"**{e}**: {int(q.reference[e])}" for e in q.emotions)  # markdown

    with FakeOpenAI(responder=respond) as url:
        v23 = run(url, tmp_path / "a", version="de", limit=2)
        v24 = run(url, tmp_path / "b", version="de", limit=2, protocol="official-v2.4")
    for result in (v23, v24):
        first = next(r for r in result.run.records if r.question_id == "1")
        assert len(first.attempts) == 3 and first.first_pass == {}
    second = {
        res.run.header["protocol"]: next(r for r in res.run.records if r.question_id == "2") for res in (v23, v24)
    }
    assert second["official"].first_pass_score is None and len(second["official"].attempts) == 3  # v2.3: no strip
    assert second["official-v2.4"].first_pass_score == 10 and len(second["official-v2.4"].attempts) == 1


def test_a_rating_float_cannot_read_fails_the_whole_attempt_no_partial_kept():
    q = load_questions("de")[0]
    good = {e: float(q.reference[e]) for e in q.emotions}
    comma = dict(good, **{q.emotions[0]: "7,5"})
    plan = protocol_plan("official", "de", True)
    assert attempt_outcome(ParsedAnswer(good, {}), q, plan) == "partial"  # revised pass missing: partial
    assert attempt_outcome(ParsedAnswer(good, comma), q, plan) == "failed"  # upstream's float("7,5") raises
    assert attempt_outcome(ParsedAnswer(comma, {}), q, plan) == "failed"
    assert attempt_outcome(ParsedAnswer(good, good), q, plan) == "stored"


def test_v24_names_case_insensitive_but_four_as_written(tmp_path):
    def respond(prompt, temperature):
        q = question_for(prompt)
        e = q.emotions
        if q.id == "1":  # "Annoyed" and "annoyed": four names as written, three emotions
            return lines([e[0], e[0].lower(), e[1], e[2]], [1, 1, 1, 1])
        return lines([x.upper() for x in e], [int(q.reference[x]) for x in e])

    with FakeOpenAI(responder=respond) as url:
        result = run(url, tmp_path, limit=2, protocol="official-v2.4")
    first, second = sorted(result.run.records, key=lambda r: r.question_id)
    # the v1 scorer accepts the first (each name matches some emotion), so it is stored in one request, and
    # fullscale scoring (four distinct emotions) finds it unparseable — as v2.4 does
    assert len(first.attempts) == 1 and len(first.first_pass) == 4 and first.first_pass_score is None
    assert second.first_pass_score == 10  # upper-case names match
    again = read_run(result.path)  # scoring a file uses the name matching its header records
    assert again.match == "casefold" and again.parser == "v2.4"
    assert score_run(again).n_parseable == 1


def test_polish_runs_under_v24(tmp_path):
    with FakeOpenAI() as url:
        plain = run(url, tmp_path / "a", version="pl", limit=3, protocol="official-v2.4")
        revised = run(url, tmp_path / "b", version="pl", limit=3, protocol="official-v2.4", revise=True)
    assert plain.run.header["parser"] == "pl" and plain.scores["official"].n_parseable == 3
    assert all(r.revised_score is not None for r in revised.run.records)


def test_lm_eval_reads_german_and_polish_with_their_own_parser(tmp_path):
    for version, parser, match in (("v2", "official", "exact"), ("de", "de", "exact"), ("pl", "pl", "casefold")):
        plan = protocol_plan("lm-eval", version, False)
        assert (plan.parser, plan.match, plan.max_tokens, plan.temperatures) == (parser, match, 80, (0.0,))
    with FakeOpenAI() as url:
        result = run(url, tmp_path, version="pl", limit=3, protocol="lm-eval")
    assert result.run.header["parser"] == "pl" and result.scores["lm-eval"].n_parseable == 3


def test_upstream_v1_check():
    ref = {"Angry": 5.0, "Sad": 3.0, "Happy": 2.0, "Calm": 0.0}
    assert upstream_v1_accepts({"Angry": 1, "Sad": 1, "Happy": 1, "Calm": 0}, ref, "exact")
    assert not upstream_v1_accepts({"Angry": 0, "Sad": 0, "Happy": 0, "Calm": 0}, ref, "exact")  # all zero
    assert not upstream_v1_accepts({"angry": 1, "Sad": 1, "Happy": 1, "Calm": 0}, ref, "exact")
    assert upstream_v1_accepts({"angry": 1, "Sad": 1, "Happy": 1, "Calm": 0}, ref, "casefold")
    assert upstream_v1_accepts({"Angry": 1, "angry": 1, "Happy": 1, "Calm": 0}, ref, "casefold")  # v2.4's looseness
    with pytest.raises(ValueError):
        upstream_v1_accepts({"Angry": "7,5", "Sad": 1, "Happy": 1, "Calm": 0}, ref, "exact")


# ---------------------------------------------------------------- 7. v2.4 reads the German file of its era

#: sha256 of the two German files (../shared/data/eqbench/PROVENANCE.md): d28c60c's, and the one every
#: v2.4-era commit carries (corrected upstream in f84568e, 2024-06-06)
GERMAN_D28C60C = "8ccce28058342fba13fbdf34e6c45936aaab54bc00099695a73d1df3da14cd46"
GERMAN_V24 = "0c2c34ef74434a3304aa233ebbd2ea9d3fce875acab41c01cc406977e7bcd804"


def test_v24_german_runs_read_the_corrected_file_worked_examples(tmp_path):
    # question 19 names "Frustriert" in the v2.4-era file where d28c60c's has "Frustrated"; question 107 lists
    # its emotions in German there (Frustriert, Erleichtert, Abweisend, Zufrieden), in English in d28c60c's
    answers = {
        "19": "Erleichtert: 3 / Verärgert: 6 / Mitfühlend: 0 / Frustriert: 8",
        "107": "Frustriert: 8\nErleichtert: 0\nAbweisend: 5\nZufrieden: 0",
    }

    def respond(prompt, temperature):
        return answers["19"] if "Mitfühlend" in prompt else answers["107"]

    fake = FakeOpenAI(responder=respond)
    with fake as url:
        v23 = run(url, tmp_path / "a", version="de", questions="19,107")
        sent = len(fake.log)
        v24 = run(url, tmp_path / "b", version="de", questions="19,107", protocol="official-v2.4")
    prompts = [e["body"]["messages"][0]["content"] for e in fake.log]
    assert v23.run.header["dataset_sha256"] == GERMAN_D28C60C and v24.run.header["dataset_sha256"] == GERMAN_V24
    key107 = {"Frustriert": 8, "Erleichtert": 0, "Abweisend": 5, "Zufrieden": 0}
    assert questions_by_id("de", protocol="official-v2.4")["107"].reference == key107
    assert all("Frustrated: <" in p for p in prompts[:sent] if "Mitfühlend" not in p)  # d28c60c: English
    assert all("Frustriert: <score>" in p and "Frustrated" not in p for p in prompts[sent:] if "Mitfühlend" not in p)
    for result, score, attempts in ((v23, None, 3), (v24, 10.0, 1)):
        for r in result.run.records:
            assert r.first_pass_score == score and len(r.attempts) == attempts, (result.run.header["protocol"], r)
    # scoring the file again (read_run, the score command) reads the file of the run's protocol
    again = read_run(v24.path)
    assert [r.first_pass_score for r in again.records] == [10.0, 10.0]
    assert score_run(again).n_parseable == 2 and score_run(again, "evalscope").score == 1.0
    out = cli("score", v24.path, "--format", "json")
    (row,) = json.loads(out.stdout)
    assert (row["score"], row["parseable"]) == (100.0, 2)  # d28c60c's file would find both unparseable


def test_v24_german_reproduces_the_v24_pipeline_on_all_171_questions(tmp_path):
    v24 = load_questions("de", protocol="official-v2.4")
    old = {q.id: q for q in load_questions("de")}
    changed = [q.id for q in v24 if (q.prompt, q.reference) != (old[q.id].prompt, old[q.id].reference)]
    assert changed == ["19", "26", "42", "50", "107", "111", "133", "153", "166"]

    def respond(prompt, temperature):  # each question answered with its v2.4 key, names as that file writes them
        q = question_for(prompt, "de", "official-v2.4")
        return "\n".join(f"{e}: {int(q.reference[e])}" for e in q.emotions)

    fake = FakeOpenAI(responder=respond)
    with fake as url:
        result = run(url, tmp_path, version="de", protocol="official-v2.4", concurrency=8)
    sent = sorted(e["body"]["messages"][0]["content"] for e in fake.log)
    assert sent == sorted(build_prompt(q) for q in v24)  # the v2.4 file's prompts, one request each
    assert result.scores["official"].score == 100.0 and result.scores["official"].n_parseable == 171


@needs_data
def test_the_v24_german_file_downloads_from_its_own_pinned_commit(monkeypatch, tmp_path, no_local_data):
    monkeypatch.delenv("EQBENCH_NB_UPSTREAM_URL", raising=False)
    asked = []

    class Body:
        def __init__(self, payload):
            self.payload = payload

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read(self):
            return self.payload

    def urlopen(url, timeout):  # upstream, at the pinned commit, serves the v2.4-era file
        asked.append(url)
        return Body((DATA / "eqbench" / "eq_bench_v2_questions_171_de_v2.4.json").read_bytes())

    monkeypatch.setattr(data.urllib.request, "urlopen", urlopen)
    path = data.locate("eq_bench_v2_questions_171_de_v2.4.json")
    assert asked == [
        "https://raw.githubusercontent.com/EQ-bench/EQ-Bench/f84568e77aedd25127f622340ef73e9d4699448d"
        "/data/eq_bench_v2_questions_171_de.json"
    ]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == GERMAN_V24 and "f84568e77aed" in str(path)
    # the same upstream path at d28c60c is the older file: served in its place, it is refused
    monkeypatch.setenv("EQBENCH_NB_CACHE", str(tmp_path / "cache2"))
    monkeypatch.setattr(
        data.urllib.request,
        "urlopen",
        lambda url, timeout: Body((DATA / "eqbench" / "eq_bench_v2_questions_171_de.json").read_bytes()),
    )
    with pytest.raises(data.DataError, match="nothing was cached"):
        data.locate("eq_bench_v2_questions_171_de_v2.4.json")


# ---------------------------------------------------------------- 8. v2.4's v1 tally, exactly


def test_v24_v1_tally_counts_only_names_in_the_keys_exact_case_worked_examples():
    v2 = questions_by_id("v2")
    # question 57, key (normalised) Humiliated 0, Excited 5, Confused 0, Challenged 5
    q57 = v2["57"]
    answer = parse_answer("Challenged: 03 Humiliated: 0 Confused: 6 excited: 2", parser="v2.4").first_pass
    assert answer == {"Challenged": 3, "Humiliated": 0, "Confused": 6, "excited": 2}
    # all four ratings are rescaled (sum 11), but "excited" is not the key's "Excited": its error is not added
    expected = 10 - (abs(30 / 11 - 5) + abs(0 - 0) + abs(60 / 11 - 0))
    assert upstream_v1_score(answer, q57.reference_normalised, "casefold") == expected
    assert round(expected, 2) == 2.27  # the toolkit used to add |20/11 - 5| too: -0.91
    assert upstream_v1_score(answer, q57.reference_normalised, "exact") is None  # v2.3: "excited" matches nothing
    # question 145, key Fearful 4, Indignant 5, Resigned 1, Confident 0: "Resigned" and "resigned" both pass
    q145 = v2["145"]
    answer = parse_answer("Resigned: 5.2\nresigned: 3\nIndignant: 4\nConfident: 4", parser="v2.4").first_pass
    assert answer == {"Resigned": 5, "resigned": 3, "Indignant": 4, "Confident": 4}  # "5.2" reads as 5
    expected = 10 - (abs(50 / 16 - 1) + abs(40 / 16 - 5) + abs(40 / 16 - 0))  # "resigned" adds nothing
    assert upstream_v1_score(answer, q145.reference_normalised, "casefold") == expected == 2.875
    # the v1 scorer accepts it (no retry), and fullscale scoring (four distinct emotions) finds it unparseable
    plan = protocol_plan("official-v2.4", "v2", False)
    assert attempt_outcome(ParsedAnswer(answer, {}), q145, plan) == "stored"
    assert score_question(answer, q145, "v2", "casefold") is None


def upstream_calculate_score(reference, user, commit):
    """Upstream's v1 ``calculate_score``, restated from its logic (EQ-bench/EQ-Bench lib/scoring.py at
    d28c60c and 92e4a8f) over its own data shapes: ``reference`` with emotion1..4 and emotion1..4_score,
    ``user`` a dict of name -> rating. At 92e4a8f the name check compares lower-cased names and the tally
    compares names as written; at d28c60c both compare names as written."""
    if len(user) != 4:
        return None
    seen = set()
    for name in user:
        for i in range(1, 5):
            key_name = reference[f"emotion{i}"]
            if (name.lower() == key_name.lower()) if commit == "92e4a8f" else (name == key_name):
                seen.add(name)
    if len(seen) != 4:
        return None
    total = sum(float(v) for v in user.values())
    if total <= 0:
        return None
    tally = 0
    for name, value in user.items():
        for i in range(1, 5):
            if name == reference[f"emotion{i}"]:
                tally += abs(float(value) / total * 10 - reference[f"emotion{i}_score"])
    return 10 - tally


def _case(name, flips):
    return "".join(c.swapcase() if f else c for c, f in zip(name, flips))


@settings(max_examples=400, deadline=None)
@given(
    qid=st.integers(1, 171),
    picks=st.lists(
        st.tuples(
            st.integers(0, 5),  # which key name (4, 5: a name not in the key)
            st.lists(st.booleans(), min_size=12, max_size=12),  # which letters change case
            st.integers(0, 10),
            st.sampled_from(["", "**"]),
        ),
        min_size=2,
        max_size=6,
    ),
)
def test_v24_v1_value_equals_upstreams_on_generated_case_mixes(qid, picks):
    q = load_questions("v2")[qid - 1]
    names = [*q.emotions, "Surprised", "Calm"]
    text = "\n".join(f"{mark}{_case(names[i], flips)}{mark}: {value}" for i, flips, value, mark in picks)
    answer = parse_answer(text, parser="v2.4").first_pass
    reference = {f"emotion{i}": e for i, e in enumerate(q.emotions, 1)} | {
        f"emotion{i}_score": int(q.reference_normalised[e]) for i, e in enumerate(q.emotions, 1)
    }
    user = {k: str(int(v)) for k, v in answer.items()}  # upstream's dict holds the digits as written
    for match, commit in (("casefold", "92e4a8f"), ("exact", "d28c60c")):
        expected = upstream_calculate_score(reference, user, commit)
        assert upstream_v1_score(answer, q.reference_normalised, match) == expected
        assert upstream_v1_accepts(answer, q.reference_normalised, match) == (expected is not None)
