"""No computed number is typed into a notebook's markdown.

A sentence that states a computed number (or a conclusion drawn from one) must be generated in a code cell
(``report.show_markdown(f"...")``) so it changes when the data do. This test reads every markdown cell of every
notebook source (``notebooks/NN_*.py``) and rejects what a typed result looks like: decimals, percentages, ``±``,
``≈``, ``n = …`` and "N of M" counts. Fixed constants of the benchmark (and the confidence level) are allowed
by name in :data:`ALLOWED_NUMBERS` / :data:`ALLOWED_PERCENT`; integers alone (``0–10 ratings``, ``171 questions``,
``2,000 resamples``) are definitions and pass.
"""

import re

import jupytext
import pytest

from eqbench_nb.cli.reproduce import notebook_sources

#: Constants of the benchmark and of the method, not results: the v2 adjustment constant, the official
#: first temperature, its step per retry and the two retry temperatures, the pass threshold (83.33 %), the
#: significance level, the penalty's sigmoid constants (6.5, 1.2), the paper's arXiv id; the null of a
#: probability of improvement (0.5), the normal quantiles of a two-sided 5 % test with 80 % power (1.96, 0.84),
#: and 7.5 (the parser's example "7.5 reads as 7", and the pass mark of notebook 08's item model).
ALLOWED_NUMBERS = {
    "0.7477",
    "0.01",
    "0.15",
    "0.16",
    "0.31",
    "83.33",
    "0.05",
    "6.5",
    "1.2",
    "2312.06281",
    "0.5",
    "1.96",
    "0.84",
    "7.5",
}
#: Percentages that are definitions: the confidence level, the official pass threshold, a test's level and power,
#: notebook 08's key-audit rule (75 % of strong runs) and notebook 06's predict-then-check question (10 %).
ALLOWED_PERCENT = {"95", "83.33", "5", "80", "75", "10"}

_URL = re.compile(r"https?://\S+")
_SETTING = re.compile(r"\btemperature\s+\d+(?:\.\d+)?")  # a run setting ("at temperature 0.7"), not a result
RULES = [
    # a decimal that is not part of a name (gpt-3.5-turbo, Qwen1.5-1.8B, v2.4): a sign may precede it
    ("decimal", re.compile(r"(?<![\w.])(?<!\w[-−])[-−+]?(\d+\.\d+)(?![\w.]*\d)(?!\w)")),
    ("percentage", re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?%")),
    ("plus-minus", re.compile(r"±\s?(\d+(?:\.\d+)?)")),
    ("approximately", re.compile(r"[≈~]\s?[-−]?(\d+(?:\.\d+)?)")),
    ("sample size", re.compile(r"\bn\s?=\s?(\d+)")),
    ("count of a total", re.compile(r"\b(\d+) of (?:the |all |its )?\d+\b")),
]


def typed_numbers(markdown: str) -> list[str]:
    """What in ``markdown`` reads like a computed number typed by hand, each with a little context."""
    text = _SETTING.sub("", _URL.sub("", markdown))
    found = []
    for name, rx in RULES:
        for m in rx.finditer(text):
            token = m.group(1)
            if name == "decimal" and token in ALLOWED_NUMBERS:
                continue
            if name == "percentage" and token in ALLOWED_PERCENT:
                continue
            context = text[max(0, m.start() - 30) : m.end() + 15].replace("\n", " ")
            found.append(f"{name} {m.group(0)!r} in “…{context}…”")
    return found


@pytest.mark.parametrize(
    "text",
    [
        "the 22 models give r = 0.92 [0.79, 0.97]",
        "74 % of model pairs are separated",
        "scores span 14.54–86.05",
        "one run is uncertain by ±14 points",
        "the runs score −47.4 on average",
        "a mean CV of 2.7%",
        "random answers score ≈ 7 on v1",
        "on the n = 22 models",
        "only 2 of the 85 neighbours are separated",
    ],
)
def test_a_typed_result_is_caught(text):
    assert typed_numbers(text), text


@pytest.mark.parametrize(
    "text",
    [
        "each emotion gets 0–10 ratings",
        "the 171 questions of v2, 2,000 resamples, 95 % intervals",
        "score = 10 − 0.7477 · Σ f(d), with f(d) = 6.5 / (1 + e^(−1.2 (d − 4)))",
        "runs fail below 83.33 % parseable; temperature 0.01, +0.15 per retry",
        "Mistral-7B-v0.1, gpt-3.5-turbo, Qwen1.5-1.8B-Chat and the v2.4 parser",
        "EQ-Bench (arXiv 2312.06281), https://arxiv.org/abs/2312.06281v2",
        "three runs at temperature 0.7",
        "Bonferroni: each at level 1 − α/14 with α = 0.05",
    ],
)
def test_a_definition_passes(text):
    assert typed_numbers(text) == [], typed_numbers(text)


@pytest.mark.parametrize("path", notebook_sources(), ids=[p.stem for p in notebook_sources()])
def test_no_computed_number_is_typed_into_markdown(path):
    nb = jupytext.read(path)
    problems = [
        f"markdown cell {i}: {p}"
        for i, c in enumerate(nb.cells)
        if c.cell_type == "markdown"
        for p in typed_numbers(c.source)
    ]
    assert not problems, (
        f"{path.name} states computed numbers in markdown; generate them with report.show_markdown(f'...') "
        "in a code cell:\n" + "\n".join(problems)
    )
