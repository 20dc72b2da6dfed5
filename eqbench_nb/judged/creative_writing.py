"""Creative-writing, decision for decision as EQ-bench/EQ-Bench makes it at ``d28c60c`` (pure parts).

What upstream does (``lib/creative_writing_utils.py``, ``lib/scoring.py``), and where this module holds it:

- **Prompts** (:data:`PROMPT_IDS`): 19 prompts keyed "1", "2", "5"–"10", "19"–"29". The test model sees
  :data:`WRITER_PREAMBLE` followed by the prompt's ``writing_prompt`` with ``<SEED>`` replaced by one seed modifier,
  ``seed_modifiers[(iteration - 1) mod n]`` (:func:`seed_index`, :func:`writing_prompt`): each iteration asks for a
  different variation. It is not shown the criteria.
- **Retries of the piece** (:func:`piece_temperatures`, :func:`piece_is_usable`): a reply that is missing or
  shorter than 300 characters is retried, up to 4 attempts in all, the first at temperature 0.5 and each retry 0.1
  higher (capped at 1; with 4 attempts the cap is never reached). The temperatures are accumulated the way
  upstream's ``temp += 0.1`` accumulates them, so the fourth is ``0.7999999999999999``, not 0.8. If all four fail
  the prompt is skipped for that iteration (no score).
- **The PG-13 line is never sent.** Upstream builds ``this_writing_prompt = writing_prompt + "…(Keep it
  PG-13)."`` on a retry, but then sends ``writing_prompt``: the retry prompt is the first prompt unchanged
  (:func:`retry_prompt` returns it as sent; :data:`PG13_LINE` is kept only to name what was meant).
- **The judge prompt** (:func:`judge_prompt`): one combined request per piece with every criterion set of the
  prompt, in reverse order (:func:`judge_criteria`), minus the 7 criteria upstream ignores
  (:data:`CRITERIA_TO_IGNORE`), with the prompt's reference output shown as an exemplar; temperature 0, 3,000
  tokens (:data:`JUDGE_TEMPERATURE`, :data:`JUDGE_MAX_TOKENS`). The writing prompt the judge sees is the one the
  test model saw (preamble and seed included).
- **Judge retries**: an empty reply is asked again, up to 3 requests (:data:`MAX_JUDGE_REQUESTS`). A reply from
  which no score parses repeats the whole round, up to 4 rounds (:data:`MAX_JUDGING_ROUNDS`); in creative-writing
  a repeated round also regenerates the piece (with its own retries), in judgemark the piece is the test set's.
- **Parsing** (:func:`read_scores`): every ``name: number`` match of upstream's regular expression counts,
  analysis lines and negative numbers included; a later name overwrites an earlier one. Each number passes the one
  reader of model numbers (:mod:`eqbench_nb.model_numbers`): a number that is not finite (400 digits read as inf,
  where upstream's score would be inf) is left out and said; one outside 0-10 is kept, as upstream keeps it, and
  flagged (:func:`out_of_range_scores`).
- **Scoring** (:func:`piece_score`, :func:`creative_writing_score`): each parsed criterion counts ``score``, or
  ``10 - score`` when its lower-cased name contains a negative criterion (:data:`NEGATIVE_CRITERIA`); a piece scores
  their mean; an iteration counts only when more than 10 of its prompts were scored; the run scores
  ``round(10 × mean of iteration means, 2)``, and **0 when no iteration counts**. This project keeps that 0 as
  ``upstream_score`` but prints "undefined" (:attr:`CreativeWritingScore.defined` is False): a 0 from no data
  reads as the worst possible writing, which it is not.

Later upstream commits (C-4-5-3/EQ-Bench ``38a29f8``) start the writer at temperature 0.7, send the judge 0.01
(+0.2 per unparseable round), strip ``*`` from the judge's reply before parsing (``strip_asterisks``) and add a
"Do not use markdown" line to the judge prompt; this module follows ``d28c60c`` unless a function says otherwise.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..analysis.stats import t_mean_ci
from ..model_numbers import Scale, out_of_range, read_model_number

PROMPT_IDS: tuple[str, ...] = ("1", "2", "5", "6", "7", "8", "9", "10", *(str(i) for i in range(19, 30)))
WRITER_PREAMBLE = "You are a talented creative writer of compelling, original prose.\n\n"
WRITER_MAX_TOKENS = 3000
MIN_PIECE_CHARS = 300
MAX_PIECE_ATTEMPTS = 4
FIRST_PIECE_TEMPERATURE = 0.5
PIECE_TEMPERATURE_STEP = 0.1
PG13_LINE = "\n\nDo not use language or themes that would get flagged by your content filter (Keep it PG-13)."

JUDGE_TEMPERATURE = 0.0
JUDGE_MAX_TOKENS = 3000
MAX_JUDGE_REQUESTS = 3
MAX_JUDGING_ROUNDS = 4
#: An iteration's score counts only when more than this many prompts were scored in it.
MIN_PROMPTS_PER_ITERATION = 10

#: Criteria upstream removes from the judge's prompt ("weakly discriminative"), exactly as the prompts file spells them.
CRITERIA_TO_IGNORE: tuple[str, ...] = (
    "Appropriate Length",
    "Unearned Resolution: Characters' disagreements or tensions are too quickly or easily resolved, without "
    "exploring the depth or implications of the conflict.",
    "Melodramatic",
    "Clever / Witty",
    "Gripping",
    "Effective Use of Tropes: If applicable, common narrative tropes are employed thoughtfully and subverted, "
    "deconstructed, or used in service of the story's themes and character",
    "Correct Spelling & Grammar",
)

#: Lower is better for a criterion whose lower-cased, stripped name CONTAINS one of these (a substring test, as
#: upstream's ``any(neg in name)``: "Stilted dialogue score" is negative too).
NEGATIVE_CRITERIA: tuple[str, ...] = (
    "melodramatic",
    "shallow resolution",
    "unearned resolution",
    "simplistic moralizing",
    "shallow optimism",
    "forced optimism",
    "trite",
    "overwrought",
    "amateurish",
    "contrived",
    "uninspiring",
    "characters are too good",
    "incongruent ending positivity",
    "unearned transformations",
    "profundity over-reach",
    "amateurish descriptives",
    "clunky asides and interruptive sentence structures",
    "stilted dialogue",
    "tit-for-tat dialogue",
)

#: The scale the judge is asked for: a score outside it is kept and counted, as upstream keeps it, and flagged.
SCALE = Scale(0, 10)

#: Upstream's pattern: lazily anything up to a colon (within one line), blanks (newlines too), an optional
#: "Score ", then a signed decimal. ``re.findall`` without flags, so ``.`` stops at a newline.
SCORE_PATTERN = re.compile(r"(.*?):\s*(?:Score\s+)?(-?\d+(?:\.\d+)?)")
#: The pattern's part from the colon on. :func:`score_pairs` finds with it what ``SCORE_PATTERN.findall`` finds:
#: the lazy name, tried from every position of a line with no such colon, was quadratic in the line's length.
_SCORE_AFTER_NAME = re.compile(r":\s*(?:Score\s+)?(-?\d+(?:\.\d+)?)")


def score_pairs(reply: str) -> list[tuple[str, str]]:
    """``SCORE_PATTERN.findall(reply)``, in one pass: each match starts where the last ended, or at the start of the
    line holding the next colon followed by a number if that line starts later (no earlier start can reach it: the
    name stops at a newline), and its name is everything from there to that colon, the first such one."""
    pairs = []
    start = 0
    while (colon := _SCORE_AFTER_NAME.search(reply, start)) is not None:
        start = max(start, reply.rfind("\n", start, colon.start()) + 1)
        pairs.append((reply[start : colon.start()], colon.group(1)))
        start = colon.end()
    return pairs


# ---------------------------------------------------------------------------------------------------------------
# the writer's side
# ---------------------------------------------------------------------------------------------------------------


def seed_index(iteration: int, n_modifiers: int) -> int:
    """Which seed modifier iteration ``iteration`` (1-based) uses: ``(iteration - 1) mod n``."""
    if n_modifiers < 1:
        raise ValueError("a prompt needs at least one seed modifier")
    return (int(iteration) - 1) % n_modifiers


def writing_prompt(record: Mapping[str, Any], iteration: int) -> str:
    """The text the test model is sent for one prompt in one iteration (also what the judge is shown)."""
    modifiers = record["seed_modifiers"]
    text = WRITER_PREAMBLE + record["writing_prompt"]
    return text.replace("<SEED>", modifiers[seed_index(iteration, len(modifiers))])


def piece_temperatures(attempts: int = MAX_PIECE_ATTEMPTS) -> list[float]:
    """The temperature of each attempt at a piece: 0.5, then +0.1 per retry, capped at 1 (float sums as upstream)."""
    temps, t = [], FIRST_PIECE_TEMPERATURE
    for _ in range(attempts):
        temps.append(t)
        t = min(t + PIECE_TEMPERATURE_STEP, 1.0)
    return temps


def piece_is_usable(text: str | None) -> bool:
    """Whether a reply is kept as the piece: present and at least 300 characters (anything shorter is retried)."""
    return bool(text) and len(text or "") >= MIN_PIECE_CHARS


def retry_prompt(prompt: str, attempt: int) -> str:
    """What upstream sends on attempt ``attempt`` (1-based): the first prompt, unchanged.

    Upstream appends :data:`PG13_LINE` to a copy it never sends, so every attempt sends the same text."""
    if attempt < 1:
        raise ValueError("attempts are numbered from 1")
    return prompt


# ---------------------------------------------------------------------------------------------------------------
# the judge's side
# ---------------------------------------------------------------------------------------------------------------


def judge_criteria(record: Mapping[str, Any]) -> list[str]:
    """The criteria the judge is asked for: every set's criteria concatenated, reversed, the ignored ones removed."""
    combined = [c for criteria_set in record["judging_criteria"] for c in criteria_set["criteria"]]
    return [c for c in reversed(combined) if c not in CRITERIA_TO_IGNORE]


_REFERENCE_NOTES = (
    "\n- You are not scoring the quality of the prompt or the reference response, only the test model response.\n\n"
    "- The reference model response is to be considered a high quality exemplar.\n"
)
_SCORING_NOTES = (
    "You are an expert in assessing creative writing. Your task is to score the quality of the test model's "
    "response above, by several metrics, on a 0-10 scale.\n\nScoring notes:\n"
    + _REFERENCE_NOTES
    + "\n- Scores of 0 or 10 should not be considered highly unlikely just because they are the max/min. Use the "
    "full scoring range as appropriate.\n\n- If the criteria is not relevant to the piece (e.g. criteria relating "
    "to dialogue but the piece has none), exclude it from your assessment."
)
_LOWER_IS_BETTER = (
    "Trite",
    "Overwrought",
    "Amateurish",
    "Contrived",
    "Uninspiring",
    "Simplistic Moralizing",
    "Shallow Optimism",
    "Unearned Transformations",
    "Incongruent Ending Positivity",
    "Characters are Too Good",
    "Shallow Resolution",
    "Repetitive Tit-for-Tat Dialogue",
    "Stilted Dialogue",
    "Clunky Asides and Interruptive Sentence Structures",
    "Amateurish Descriptives",
    "Profundity Over-reach",
)
_INSTRUCTIONS = (
    "- Do not add any commentary or explanation to the scores section.\n\n"
    "- Do not penalize NSFW output; that is the default for some models. Just assess it on its merits.\n\n"
    "- In the output, write the metric names exactly as below so they can be parsed.\n\n"
    "- Some models produce overly long outputs. You should neither penalise nor favour this if it happens; simply "
    "assess the writing on its merit. You should however penalise overly short pieces.\n\n"
    "- The test model's output can suddenly truncate because of token length constraints. If you notice that this "
    "has occurred, don't penalise it.\n\n"
    "- Some models have a positivity bias that produces worse writing, hence the criteria about that. Don't let the "
    "over-abundance of these criteria influence your assessment; it will only apply to some model outputs and you "
    'will know it when you see it. Likewise, there are a lot of "negative" critical criteria; these will not '
    "always apply and don't let their over-abundance colour your perception of the writing.\n\n"
    "- For these criteria, lower is better:\n" + "\n".join(_LOWER_IS_BETTER) + "\n\n"
    "- You are a critic, so be honest, objective, critical and discriminative. No need to be charitable; say what "
    "you genuinely think.\n"
)
_ANALYSIS_ASK = "\n- You are to write a comprehensive analysis for each of the metrics, then give your scores.\n"
_ANALYSIS_SECTION = "\n[Analysis]\n\nWrite your detailed analysis.\n"
_PREFIX = "Now, rate the supplied model output on the following criteria:"


def judge_prompt(record: Mapping[str, Any], iteration: int, piece: str) -> str:
    """The judge's one combined request for ``piece`` written to ``record`` in ``iteration``, as ``d28c60c`` sends
    it (reference output included, analysis asked for, ignored criteria removed, absolute 0–10 scale)."""
    reference = f"\n[REFERENCE RESPONSE (DO NOT JUDGE)]\n\n{record['reference_output']}\n\n[REFERENCE RESPONSE END]\n"
    return (
        "\nYou are an expert in assessing creative writing. Your task is to score the quality of the test model's "
        "response below, by several metrics, on a 0-10 scale.\n\n"
        f"[PROMPT START]\n\n{writing_prompt(record, iteration)}\n\n[PROMPT END]\n{reference}\n"
        f"[TEST MODEL RESPONSE]\n\n{piece}\n\n[TEST MODEL RESPONSE END]\n\n[Task]\n\n{_SCORING_NOTES}\n\n"
        f"{_INSTRUCTIONS}{_ANALYSIS_ASK}\n- Output format is:\n{_ANALYSIS_SECTION}\n[Scores]\n\n"
        "Metric 1 name: Score [0-10]\n\nMetric 2 name: ...\n\n---\n\n"
        f"{_PREFIX}\n\n" + "\n".join(judge_criteria(record)) + "\n\t"
    )


@dataclass(frozen=True)
class JudgeScores:
    """What a judge's reply gives: its finite ``scores`` by criterion, and ``left_out``, one phrase per number that
    is not finite (a 400-digit score reads as inf), left out and said, never stored or scored."""

    scores: dict[str, float]
    left_out: tuple[str, ...] = ()


def read_scores(reply: str | None, strip_asterisks: bool = False) -> JudgeScores:
    """Every ``name: number`` the judge wrote, as upstream's regular expression finds them (a later name wins),
    each number through :func:`eqbench_nb.model_numbers.read_model_number`: one that is not finite is left out
    (the name with it, as the later one wins) and named in ``left_out``. Never raises: a reply is on its way to the
    run file when it is read, and nothing read from it may stop it getting there.

    Anything counts, the analysis included: "Time: 10:30" yields ``{"Time": 10.0, "": 30.0}``; "Trite: -2" yields
    -2; "Overall: Score 7" yields 7 but "Overall: Score: 7" yields ``{"Overall: Score": 7}``; "8/10" yields 8; a name
    and its number may be on different lines. The name is stripped of blanks. An empty or missing reply yields
    nothing (upstream raised on ``None`` and caught it as an unparseable round). ``strip_asterisks`` drops every
    ``*`` first, as ``38a29f8`` does.
    """
    if not reply:
        return JudgeScores({})
    if strip_asterisks:
        reply = reply.replace("*", "")
    scores: dict[str, float] = {}
    left_out: dict[str, str] = {}
    for name, number in score_pairs(reply):
        name = name.strip()
        try:
            scores[name] = read_model_number(number, repr(name[:40]))
            left_out.pop(name, None)
        except ValueError as exc:  # NotFinite: a 400-digit score; the pattern admits no other text
            scores.pop(name, None)
            left_out[name] = str(exc)
    return JudgeScores(scores, tuple(left_out.values()))


def parse_scores(reply: str | None, strip_asterisks: bool = False) -> dict[str, float]:
    """The judge's finite scores by criterion (:func:`read_scores`, which also says what it left out)."""
    return read_scores(reply, strip_asterisks).scores


def out_of_range_scores(scores: Mapping[str, float]) -> dict[str, float]:
    """The scores outside :data:`SCALE` (a 99, a -50): kept and counted, as upstream keeps them, and flagged."""
    return {k: v for k, v in scores.items() if out_of_range(v, SCALE)}


# ---------------------------------------------------------------------------------------------------------------
# scoring
# ---------------------------------------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def criterion_is_negative(name: str) -> bool:
    """Lower is better for this criterion (its lower-cased name contains a negative criterion). Cached: a run's
    summary asks it of the same 30-odd names for every piece of every iteration (36 substring tests each time)."""
    lowered = name.lower().strip()
    return any(neg in lowered for neg in NEGATIVE_CRITERIA)


def criterion_points(name: str, score: float) -> float:
    """What one parsed criterion adds to its piece: the score, or ``10 - score`` for a negative criterion."""
    return 10.0 - score if criterion_is_negative(name) else float(score)


def piece_score(scores: Mapping[str, float]) -> float | None:
    """A piece's score on 0–10: the mean of its criteria's points; None when nothing parsed (not counted)."""
    if not scores:
        return None
    return sum(criterion_points(k, v) for k, v in scores.items()) / len(scores)


@dataclass(frozen=True)
class CreativeWritingScore:
    """A creative-writing run's score.

    ``upstream_score`` is what upstream reports: ``round(10 × mean of counted iterations' means, 2)``, 0 when no
    iteration counted. ``defined`` is False in that case and :attr:`text` prints "undefined". ``low``/``high`` is a
    Student's t interval over prompts (the unit: each prompt's mean over iterations, × 10), n = ``n_prompts``.
    """

    upstream_score: float
    defined: bool
    counted_iterations: int
    iterations: int
    n_prompts: int
    low: float
    high: float

    @property
    def text(self) -> str:
        if not self.defined:
            return "undefined (no iteration had more than 10 scored prompts; upstream reports 0)"
        return f"{self.upstream_score:.2f}"


def iteration_mean(prompt_scores: Iterable[Mapping[str, float]]) -> float | None:
    """The mean piece score of one iteration, None unless more than 10 of its prompts were scored."""
    pieces = [s for s in (piece_score(p) for p in prompt_scores) if s is not None]
    return sum(pieces) / len(pieces) if len(pieces) > MIN_PROMPTS_PER_ITERATION else None


def creative_writing_score(
    iterations: Mapping[Any, Mapping[str, Mapping[str, float]]], level: float = 0.95
) -> CreativeWritingScore:
    """The run's score from ``{iteration: {prompt_id: {criterion: score}}}`` (parsed judge scores)."""
    # imported here: the run file reader (judged.runs), and so the command line's parser, import this module for its
    # constants and its reading of a reply, and numpy alone costs a third of --help (tests/test_import_cost.py)
    import numpy as np

    means = [m for m in (iteration_mean(by_prompt.values()) for by_prompt in iterations.values()) if m is not None]
    upstream = round(10 * (sum(means) / len(means)), 2) if means else 0.0
    per_prompt: dict[str, list[float]] = {}
    for by_prompt in iterations.values():
        if iteration_mean(by_prompt.values()) is None:
            continue  # an iteration upstream does not count adds nothing to the interval either
        for prompt_id, scores in by_prompt.items():
            s = piece_score(scores)
            if s is not None:
                per_prompt.setdefault(str(prompt_id), []).append(s)
    prompt_means = [float(np.mean(v)) for v in per_prompt.values()]
    ci = t_mean_ci(prompt_means, level=level, scale=10.0) if means else None
    return CreativeWritingScore(
        upstream_score=float(upstream),
        defined=bool(means),
        counted_iterations=len(means),
        iterations=len(iterations),
        n_prompts=len(prompt_means),
        low=ci.low if ci else math.nan,
        high=ci.high if ci else math.nan,
    )


def writer_score(prompt_scores: Mapping[str, Mapping[str, float]]) -> float:
    """Judgemark: one writer's score from the judge's parsed scores of its pieces (iteration 1 only, as
    ``38a29f8`` limits it): ``round(10 × mean piece score, 2)`` when more than 10 pieces scored, else 0 (upstream)."""
    m = iteration_mean(prompt_scores.values())
    return round(10 * m, 2) if m is not None else 0.0


def item_scores(prompt_scores: Mapping[str, Mapping[str, float]]) -> list[float]:
    """Judgemark ``38a29f8``: the writer's per-piece scores × 10 (the ANOVA's and the CI's input)."""
    return [10 * s for s in (piece_score(p) for p in prompt_scores.values()) if s is not None]
