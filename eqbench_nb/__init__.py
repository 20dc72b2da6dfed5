"""eqbench_nb: run, score and study EQ-Bench (Paech, arXiv 2312.06281) from Python and Jupyter."""
from .conventions import CONVENTIONS, RunScore, score_run
from .parsing import PARSERS, ParsedAnswer, parse_answer
from .prompts import build_messages, build_prompt
from .questions import VERSIONS, Question, load_questions
from .runs import Run, RunFormatError, RunRecord, read_run
from .scoring import ADJUST_CONST, fullscale_penalty, score_question

__version__ = "0.1.0"

__all__ = [
    "ADJUST_CONST", "CONVENTIONS", "PARSERS", "VERSIONS", "ParsedAnswer", "Question", "Run",
    "RunFormatError", "RunRecord", "RunScore", "build_messages", "build_prompt", "fullscale_penalty",
    "load_questions", "parse_answer", "read_run", "score_question", "score_run", "__version__",
]
