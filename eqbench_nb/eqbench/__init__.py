"""EQ-Bench (Paech, arXiv 2312.06281): every rule of the benchmark, one module each.

- ``questions``: the question sets (v2, v1, German) as typed records
- ``prompts``: the exact prompt sent for each question
- ``parsing``: the parsers that turn a model's text into ratings
- ``scoring``: one question's score (v2 fullscale, v1 normalised)
- ``conventions``: a run's score under official / lm-eval / evalscope aggregation
- ``protocols``: decoding schedules and retry decisions, each naming its upstream pipeline
- ``runs``: the run format (:class:`EqBenchRun`, :class:`RunRecord`) and readers of other formats
- ``task``: :func:`run_benchmark`: EQ-Bench on the generic runner
"""

from .conventions import CONVENTIONS, RunScore, score_run
from .parsing import PARSERS, ParsedAnswer, parse_answer
from .prompts import build_messages, build_prompt
from .questions import VERSIONS, Question, load_questions
from .runs import EqBenchRun, RunFormatError, RunRecord, read_run
from .scoring import ADJUST_CONST, fullscale_penalty, score_question

__all__ = [
    "ADJUST_CONST",
    "CONVENTIONS",
    "PARSERS",
    "VERSIONS",
    "EqBenchRun",
    "ParsedAnswer",
    "Question",
    "RunFormatError",
    "RunRecord",
    "RunScore",
    "build_messages",
    "build_prompt",
    "fullscale_penalty",
    "load_questions",
    "parse_answer",
    "read_run",
    "score_question",
    "score_run",
]
