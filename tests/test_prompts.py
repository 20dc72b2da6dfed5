from eqbench_nb import build_prompt, load_questions
from eqbench_nb.eqbench.prompts import build_messages

# The sample shown in the evalscope documentation for its eq_bench benchmark (question 1), whose
# middle the documentation truncates. evalscope strips the prompt, so we compare stripped text.
EVALSCOPE_HEAD = (
    "Your task is to predict the likely emotional responses of a character in this dialogue:\n\n"
    "Robert: Claudia, you've always been the idealist. But let's be practical for once, shall we?\n"
    "Claudia: Practicality, according to you, means bulldozing ev"
)
EVALSCOPE_TAIL = (
    "ary:\n\nRemorseful: <score>\nIndifferent: <score>\nAffectionate: <score>\nAnnoyed: <score>\n\n\n"
    "[End of answer]\n\nRemember: zero is a valid score, meaning they are likely not feeling that "
    "emotion. You must score at least one emotion > 0.\n\nYour answer:"
)


def test_v2_prompt_without_revision_matches_evalscope_documentation():
    prompt = build_prompt(load_questions("v2")[0]).strip()
    assert prompt.startswith(EVALSCOPE_HEAD)
    assert prompt.endswith(EVALSCOPE_TAIL)


def test_v2_prompt_without_revision_removes_every_revision_part():
    for q in load_questions("v2"):
        p = build_prompt(q)
        assert "Critique: <your critique here>" not in p and "First pass scores" not in p and "Revised scores" not in p
        assert "Then critique your answer" not in p
        assert p.endswith("\nYour answer:\n")
        for e in q.emotions:
            assert f"{e}: <score>" in p


def test_revision_prompt_is_sent_as_is_and_v1_always_revises():
    q2 = load_questions("v2")[0]
    assert build_prompt(q2, revise=True) == q2.prompt
    for q in load_questions("v1")[:5]:
        assert build_prompt(q, revise=False) == q.prompt
    assert build_messages(q2) == [{"role": "user", "content": build_prompt(q2)}]


def test_german_prompt_without_revision():
    for q in load_questions("de"):
        p = build_prompt(q)
        assert (
            "Geben Sie jeder dieser möglichen Emotionen eine Punktzahl von 0-10 für die relative Intensität, "
            "die sie wahrscheinlich fühlen werden.\n" in p
        )
        assert "Kritik: <Ihre Kritik hier>" not in p and "Erste Bewertung" not in p and "Überarbeitete" not in p
        assert p.endswith("\nIhre Antwort:\n")


def test_polish_prompt_without_revision():
    qs = load_questions("pl")
    assert len(qs) == 171
    for q in qs:
        p = build_prompt(q)
        assert "Następnie skrytykuj" not in p and "Pierwsze oceny" not in p and "Weryfikacja" not in p
        assert "Zmienione oceny" not in p and p.endswith("\nTwoja odpowiedź:\n")
        assert "[Koniec odpowiedzi]" in p
        for e in q.emotions:  # (question 100 shows "<zmieniona ocena>" on one line: upstream's text, kept)
            assert f"{e}: <ocena>" in p or (q.id == "100" and f"{e}: <zmieniona ocena>" in p)
    # upstream's quirk kept: the prompts without a trailing newline stay without one before the cue
    quirky = {q.id for q in qs if not q.prompt.endswith("\n")}
    assert quirky == {"1", "129", "130", "156"}
    assert build_prompt(qs[0]).endswith("> 0.\nTwoja odpowiedź:\n")


def test_polish_revision_prompt_is_sent_as_is():
    q = load_questions("pl")[0]
    assert build_prompt(q, revise=True) == q.prompt
