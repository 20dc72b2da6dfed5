"""Runs as plain data: one JSON Lines format, and readers that turn other formats into it.

A run file holds a header line, then one record per question per iteration:

    {"type": "header", "model": ..., "run_id": ..., "version": "v2", "revise": false,
     "n_questions": 171, "protocol": "official", "parser": "official", ...}
    {"type": "record", "model": ..., "run_id": ..., "iteration": 1, "question_id": "1",
     "attempts": [{"text": ..., "temperature": 0.01, "latency_s": 2.1, ...}],
     "first_pass": {"Angry": 7.0, ...}, "revised": {}, "first_pass_score": 6.3, "revised_score": null}

Event lines (``{"type": "event", ...}``) say what happened to the run besides its records: a
deviation from the protocol learnt from the endpoint (``"event": "deviation"``, read into the
header's ``deviations``), what the Batch API path did (``batch_upload`` and ``batch_create`` written ahead
of each paid step, ``batch`` with a batch's id and custom_ids, ``batch_done``, ``batch_not_created``,
``batch_discarded``: :mod:`eqbench_nb.runner.batch`). Readers skip the rest of them.

Readers turn (a) the upstream EQ-Bench results files and (b) lm-evaluation-harness
``--log_samples`` output of its ``eq_bench`` task into the same :class:`EqBenchRun`.

Readers never let a damaged or doubled file inflate a run: of records for the same (iteration,
question) the first is kept, only the first header counts, records of another model or run id
than the header's are left out, and so are questions the header did not ask; ratings outside
0-10 are scored as given (as upstream would) but flagged. Each such finding is one line in
:attr:`EqBenchRun.warnings`.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..model_numbers import is_finite_number, number_or_text, reads_not_finite
from ..runner import runfile
from ..runner.header import RunHeader
from ..runner.looks import per_file_version
from ..runner.runfile import (
    JsonlContents,
    LeftOut,
    RunFormatError,
    find_run_files,
    header_benchmark,
    header_line,
    record_line,
)
from .header import EqBenchHeader
from .parsing import PARSERS, Ratings, default_parser, parse_answer
from .questions import VERSIONS, Question, questions_by_id, run_questions, scale_for
from .scoring import MATCHES, score_question

__all__ = [
    "EqBenchRun",
    "NotARunFile",
    "RunFormatError",
    "RunRecord",
    "find_run_files",
    "header_line",
    "is_run_file",
    "read_jsonl",
    "read_run",
    "record_from_json",
    "record_line",
    "score_record",
]


class NotARunFile(RunFormatError):
    """A file of none of the run formats at all (a ``config.json`` beside the runs): a folder's scan passes
    it over, said; named on its own it is an error like any unreadable file."""


RECORD_FIELDS = ("model", "run_id", "iteration", "question_id")
#: Fields a record shares with its run's header; a record whose differ belongs to another run.
IDENTITY = ("model", "run_id")
#: The header fields a run extended to more questions replaces (``run --extend``): the question ids, their count,
#: and the short form (None once the run holds more than the form's questions).
EXTENDABLE = ("question_ids", "n_questions", "form")


@dataclass
class RunRecord:
    """One question answered in one iteration of one run."""

    model: str
    run_id: str
    iteration: int
    question_id: str
    attempts: list[dict[str, Any]] = field(default_factory=list)
    first_pass: Ratings = field(default_factory=dict)  # names as the model wrote them
    revised: Ratings = field(default_factory=dict)
    first_pass_score: float | None = None
    revised_score: float | None = None
    #: index in ``attempts`` of the attempt whose answers are stored; None when none was kept
    answer_attempt: int | None = None

    @property
    def key(self) -> tuple[int, str]:
        return (self.iteration, self.question_id)

    @property
    def final_text(self) -> str | None:
        """Text the answers were parsed from: the stored attempt's, else the last attempt's."""
        if self.answer_attempt is not None and 0 <= self.answer_attempt < len(self.attempts):
            text = self.attempts[self.answer_attempt].get("text")
            if isinstance(text, str):
                return text
        for attempt in reversed(self.attempts):
            if isinstance(attempt.get("text"), str):
                return attempt["text"]
        return None

    def to_json(self) -> dict[str, Any]:
        # Shallow on purpose: json.dumps copies nothing, and dataclasses.asdict's deep copy was a
        # tenth of the runner's CPU per request.
        return {"type": "record", **{f.name: getattr(self, f.name) for f in fields(self)}}


@dataclass
class EqBenchRun:
    """An EQ-Bench run: its header (settings; a dict is read into a :class:`~eqbench_nb.runner.header.RunHeader` with
    EQ-Bench's part, :class:`~eqbench_nb.eqbench.header.EqBenchHeader`) and its records."""

    header: RunHeader[EqBenchHeader]
    records: list[RunRecord]
    path: str | None = None
    #: what the reader left out or flagged (duplicates, another run's records, ratings out of range)
    warnings: list[str] = field(default_factory=list)
    #: the run file's event lines (deviations learnt, batches submitted); none for other formats
    events: list[dict[str, Any]] = field(default_factory=list)
    #: scored answers with a rating outside 0-10, scored as given (one such rating can sink a small run's score)
    out_of_range: int = 0

    def __post_init__(self) -> None:
        self.header = RunHeader.read(self.header, EqBenchHeader)

    @property
    def model(self) -> str:
        return self.header.text("model", "?")

    @property
    def run_id(self) -> str:
        return self.header.text("run_id", "?")

    @property
    def version(self) -> str:
        return self.header.text("version", "v2")

    @property
    def revise(self) -> bool:
        return bool(self.header.own.revise)

    @property
    def parser(self) -> str:
        """The parser the run's answers were read with (from the header; the v2.3 one by default)."""
        return self.header.own.parser or default_parser(self.version)

    @property
    def match(self) -> str:
        """How the answers' emotion names are matched to the key: "exact" (v2.3) or "casefold" (v2.4)."""
        return self.header.own.match or ("exact" if self.parser in ("official", "de") else "casefold")

    @property
    def split_revision(self) -> bool:
        """Whether answers were read as first and revised passes (files before v0.2: revise, or any v1 run)."""
        split = self.header.own.split_revision
        return split if split is not None else self.revise or self.version == "v1"

    @property
    def n_questions(self) -> int:
        """Questions the run set out to answer per iteration (missing ones count as failed)."""
        n = self.header.own.n_questions
        return n if n else len({r.question_id for r in self.records})

    @property
    def form(self) -> str | None:
        """The short form the run asked (``short20`` ...: only its questions, :mod:`eqbench_nb.eqbench.short_form`), or
        None for a run of its whole set; its score is not a full score and every table says so."""
        form = self.header.own.form
        name = form.get("name") if isinstance(form, dict) else None
        return name if isinstance(name, str) and name else ("?" if form else None)

    @property
    def asked_ids(self) -> list[str]:
        """The questions the run set out to answer: its header's list, else (an upstream file) its whole set when
        it says it ran all of them (a missing record there is an unparseable answer), else those it holds."""
        ids = self.header.own.question_ids
        if ids:
            return list(ids)
        every = list(questions_by_id(self.version))
        if self.n_questions == len(every):
            return every
        return sorted({r.question_id for r in self.records})

    @property
    def iterations(self) -> list[int]:
        its = self.header.iterations
        found = sorted({r.iteration for r in self.records})
        if its is not None and its >= 1:
            return sorted(set(range(1, its + 1)) | set(found))
        return found or [1]


def score_record(record: RunRecord, question: Question, match: str = "exact") -> RunRecord:
    """Fill in the record's scores from its parsed answers against the question's key."""
    scale = scale_for(question.version)
    record.first_pass_score = score_question(record.first_pass, question, scale, match)
    record.revised_score = score_question(record.revised, question, scale, match) if record.revised else None
    return record


# ---------------------------------------------------------------- our JSON Lines format


def record_from_json(obj: dict[str, Any]) -> RunRecord:
    """A record line of a run file (already decoded) as a :class:`RunRecord`.

    Raises :class:`ValueError` for a record of the wrong shape (the line is then unreadable: named, and
    moved aside by ``--repair``) and :class:`~eqbench_nb.runner.runfile.LeftOut` for one whose iteration
    is not a whole number (left out with a warning, as a record of another run is)."""
    missing = [k for k in RECORD_FIELDS if k not in obj]
    if missing:
        raise ValueError(f"record lacks {', '.join(missing)}")
    iteration = obj["iteration"]
    if isinstance(iteration, bool) or not isinstance(iteration, int):
        raise LeftOut(f"iteration {_shown(iteration)} is not a whole number")
    question_id = obj["question_id"]
    if isinstance(question_id, bool) or not isinstance(question_id, (str, int)):
        raise ValueError(f"question_id must be text or a whole number, not {_shown(question_id)}")
    attempts = obj.get("attempts") or []
    if not isinstance(attempts, list) or not all(isinstance(a, dict) for a in attempts):
        raise ValueError(f"attempts must be a list of objects, not {_shown(attempts)}")
    answer_attempt = obj.get("answer_attempt")
    if answer_attempt is not None and (isinstance(answer_attempt, bool) or not isinstance(answer_attempt, int)):
        raise ValueError(f"answer_attempt must be a whole number or null, not {_shown(answer_attempt)}")
    return RunRecord(
        model=str(obj["model"]),
        run_id=str(obj["run_id"]),
        iteration=iteration,
        question_id=str(question_id),
        attempts=attempts,
        first_pass=_ratings(obj.get("first_pass")),
        revised=_ratings(obj.get("revised")),
        first_pass_score=_number(obj.get("first_pass_score")),
        revised_score=_number(obj.get("revised_score")),
        answer_attempt=answer_attempt,
    )


def _number(value: Any) -> float | None:
    """A stored score if it is a number (it is computed again when a run is read), else None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            return None
    return None


def _shown(value: Any) -> str:
    """A value from a file, for a one-line message: at most 40 characters of its repr."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an integer of over 4,300 digits, deep nesting
        text = f"(a {type(value).__name__})"
    return text if len(text) <= 40 else text[:39] + "…"


#: The most iterations a run may have: far above any study (EQ-Bench publishes 1 to 10), and a bound on
#: what a header's claim can make a reader or the runner set aside.
MAX_ITERATIONS = 1000


def check_header(header: Mapping[str, Any], path: str | os.PathLike) -> None:
    """Raise :class:`RunFormatError` naming the file and the field for the first header field a reader
    would trip on (the wrong type, a value out of range)."""
    problem = _header_problem(header)
    if problem is not None:
        field_name, why = problem
        raise RunFormatError(path, f"header field {field_name}: {why}")


def _header_problem(h: Mapping[str, Any]) -> tuple[str, str] | None:
    def whole(name: str, low: int, high: int) -> tuple[str, str] | None:
        v = h.get(name)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int):
            return name, f"{_shown(v)} is not a whole number"
        if not low <= v <= high:
            return name, f"{_shown(v)} is not between {low:,} and {high:,}"
        return None

    for name in ("model", "run_id"):
        if name in h and (isinstance(h[name], bool) or not isinstance(h[name], (str, int, float))):
            return name, f"{_shown(h[name])} is not text"
    for name in ("revise", "split_revision", "torn_tail"):
        if h.get(name) is not None and not isinstance(h[name], bool):
            return name, f"{_shown(h[name])} is not true or false"
    if h.get("parser") is not None and h["parser"] not in PARSERS:
        return "parser", f"{_shown(h['parser'])} is not one of {', '.join(PARSERS)}"
    if h.get("match") is not None and h["match"] not in MATCHES:
        return "match", f"{_shown(h['match'])} is not one of {', '.join(MATCHES)}"
    if h.get("version") is not None and h["version"] not in VERSIONS:
        return "version", f"{_shown(h['version'])} is not one of {', '.join(VERSIONS)}"
    found = whole("n_questions", 1, 10**6) or whole("iterations", 1, MAX_ITERATIONS)
    if found:
        return found
    ids = h.get("question_ids")
    if ids is not None and (
        not isinstance(ids, list) or not all(isinstance(q, (str, int)) and not isinstance(q, bool) for q in ids)
    ):
        return "question_ids", f"{_shown(ids)} is not a list of question ids"
    return None


def _ratings(raw: Any) -> Ratings:
    """Answers as stored: numbers (upstream stores digit strings) or, where a number cannot be read, the
    text the model wrote (a German "7,5"), which scoring treats as unparseable, as upstream's float() does."""
    if not raw:
        return {}
    if not isinstance(raw, dict):
        raise ValueError(f"answers must be an object of emotion: rating, not {type(raw).__name__}")
    out: Ratings = {}
    for k, v in raw.items():
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise ValueError(f"rating {_shown(v)} for {_shown(k)} is neither a number nor text")
        # the one reader of model numbers: a number that is not finite is kept as the text it reads from (a
        # 400-digit rating), so a record read back stays strict JSON; scoring finds it unparseable either way
        if isinstance(v, str):
            out[str(k)] = number_or_text(v)
        else:
            out[str(k)] = float(v) if is_finite_number(v) else (f"{v:g}" if isinstance(v, float) else str(v))
    return out


def read_jsonl(path: str | os.PathLike) -> JsonlContents[RunRecord]:
    """Header and records of one of our run files; a torn last line is reported, not fatal."""
    return runfile.read_jsonl(path, record_from_json, IDENTITY, EXTENDABLE)


def _our_run(contents: JsonlContents[RunRecord], path: Path) -> EqBenchRun:
    header = dict(contents.header or {})
    if contents.header is None and not contents.records:
        raise RunFormatError(path, "holds no header line and no record a run could have written")
    if contents.header is None and contents.records:
        first = contents.records[0]
        header = {"model": first.model, "run_id": first.run_id, "version": "v2"}
    read = RunHeader.read(header, EqBenchHeader)
    if contents.torn_tail:
        read = read.replace(torn_tail=True)
    return EqBenchRun(read, contents.records, str(path), list(contents.warnings), contents.events)


# ---------------------------------------------------------------- upstream EQ-Bench results


def read_upstream_results(path: str | os.PathLike) -> EqBenchRun:
    """An upstream ``*_eqbench_v2_results.json`` file as an EqBenchRun (one per iteration stored)."""
    path = Path(path)
    obj = json.loads(path.read_text(encoding="utf-8"))
    return _upstream_run(obj, path)


def _upstream_run(obj: dict[str, Any], path: Path) -> EqBenchRun:
    version = str(obj.get("eqbench_version", "v2"))
    if version not in VERSIONS:
        raise RunFormatError(path, f"eqbench_version {version!r} is not one of {VERSIONS}")
    model = str(obj.get("model_path") or path.stem)
    run_id = str(obj.get("run_id", "1"))
    records = []
    revise = False
    for iteration, it in sorted(obj["raw_results"].items(), key=lambda kv: int(kv[0])):
        answers = it.get("respondent_answers") or {}
        texts = it.get("raw_inference") or {}
        for qid in sorted(set(answers) | set(texts), key=int):
            a = answers.get(qid) or {}
            revised = _ratings(a.get("revised"))
            revise = revise or bool(revised)
            text = texts.get(qid)
            records.append(
                RunRecord(
                    model,
                    run_id,
                    int(iteration),
                    str(qid),
                    attempts=[{"text": text}] if text is not None else [],
                    first_pass=_ratings(a.get("first_pass")),
                    revised=revised,
                )
            )
    header = {
        "model": model,
        "run_id": run_id,
        "version": version,
        "revise": revise,
        "n_questions": int(obj.get("n_questions_total") or 171),
        "iterations": int(obj.get("total_iterations") or len(obj["raw_results"])),
        "protocol": "official",
        "parser": "official",
        "match": "exact",
        "split_revision": revise,
        "source": "upstream EQ-Bench results",
        "published_score": obj.get("benchmark_score"),
        "inference_engine": obj.get("inference_engine"),
        "quantisation": obj.get("bitsandbytes_quant") or None,
        "finished_at": obj.get("run_completed"),
    }
    return EqBenchRun(RunHeader.read(header, EqBenchHeader), records, str(path))


# ---------------------------------------------------------------- lm-evaluation-harness samples


def read_lm_eval_samples(path: str | os.PathLike, model: str | None = None) -> EqBenchRun:
    """lm-evaluation-harness ``--log_samples`` output of its ``eq_bench`` task as an EqBenchRun.

    Each line holds ``doc`` (with ``prompt`` and a ``reference_answer_fullscale`` dict or its
    repr) and ``resps``/``filtered_resps``. Questions are matched to the v2 set by prompt text
    prefix when possible, else by the ``Question ID``/``doc_id`` fields.
    """
    path = Path(path)
    return _lm_eval_run(path.read_text(encoding="utf-8"), path, model)


def _lm_eval_run(text: str, path: Path, model: str | None = None) -> EqBenchRun:
    model = model or path.parent.name
    records = []
    by_prompt = {_dialogue_key(q.prompt): q.id for q in questions_by_id("v2").values()}
    for line in text.splitlines():
        if not line.strip():
            continue
        obj = json.loads(line)
        doc = obj.get("doc") or {}
        qid = by_prompt.get(_dialogue_key(str(doc.get("prompt", ""))))
        if qid is None:
            qid = str(doc.get("Question ID") or (int(obj["doc_id"]) + 1))
        text = _first_text(obj.get("filtered_resps")) or _first_text(obj.get("resps")) or ""
        records.append(
            RunRecord(
                model,
                path.stem,
                1,
                str(qid),
                attempts=[{"text": text, "temperature": 0.0}],
                first_pass=parse_answer(text).first_pass,
            )
        )
    header = {
        "model": model,
        "run_id": path.stem,
        "version": "v2",
        "revise": False,
        "n_questions": len(records),
        "iterations": 1,
        "protocol": "lm-eval",
        "parser": "official",
        "source": "lm-evaluation-harness samples",
    }
    return EqBenchRun(RunHeader.read(header, EqBenchHeader), records, str(path))


def _dialogue_key(prompt: str) -> str:
    """The part of a prompt that identifies its question (dialogue and emotions), whitespace-normalised."""
    return " ".join(prompt.split("Give each of these possible emotions")[0].split())


def _first_text(value: Any) -> str | None:
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else None


def _is_lm_eval_line(obj: dict[str, Any]) -> bool:
    return "doc" in obj and ("resps" in obj or "filtered_resps" in obj)


# ---------------------------------------------------------------- any format


def read_run(path: str | os.PathLike) -> EqBenchRun:
    """Read a run file of any supported format, scoring every record against its question set.

    Raises :class:`RunFormatError` (naming the file and the problem) for anything unreadable:
    not JSON, the wrong schema, a header field of the wrong type or out of range, unknown question
    ids, or answers that match another version's key. This project's JSON Lines files are read line
    by line, so memory follows the distinct records, not the file's size.
    """
    path = Path(path)
    try:
        with open(path, "rb") as f:
            first = _first_line(f)
            if first is None:
                raise RunFormatError(path, "file is empty")
            f.seek(0)
            if _is_ours(first):
                _refuse_other_benchmark(first, path)
                run = _our_run(runfile.parse_jsonl(f, path, record_from_json, IDENTITY, extendable=EXTENDABLE), path)
            else:
                run = _read_other(path, f.read(), first)
        return _validate_and_score(run, path)
    except RunFormatError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise RunFormatError(path, f"cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise RunFormatError(path, f"not JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise RunFormatError(path, "nested too deeply to read") from None
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise RunFormatError(path, f"not an EQ-Bench run ({type(exc).__name__}: {_shown(str(exc))})") from None


def _first_line(f: Any) -> Any:
    """The first line that is not blank, decoded as JSON (None if the file is blank; "" if not JSON)."""
    for line in f:
        line = line.removeprefix(runfile.BOM)
        if line.strip():
            try:
                return json.loads(line)
            except ValueError:
                return ""
    return None


#: The reader of each other benchmark's run files, as :func:`read_run` names it for a file it was given by mistake.
OTHER_READERS = {
    "eqbench3": "eqbench_nb.eqbench3.runs.read_eq3_run",
    "eqbench3-pairwise": "eqbench_nb.eqbench3.runs.read_pairwise",
    "emotionbench": "eqbench_nb.emotionbench.runs.read_emotion_run",
    "creative-writing": "eqbench_nb.judged.runs.read_judged_run(path, 'creative-writing')",
    "judgemark": "eqbench_nb.judged.runs.read_judged_run(path, 'judgemark')",
}


def _refuse_other_benchmark(first: Any, path: Path) -> None:
    """One line naming the right reader when the header names another benchmark (an EQ-Bench 3 file's records
    would otherwise be refused for lacking a question id)."""
    name = first.get("benchmark") if first.get("type") == "header" else None
    if not isinstance(name, str) or name in ("", "eqbench"):
        return
    reader = OTHER_READERS.get(name, "eqbench_nb.registry.benchmark_of(path).read(path)")
    raise RunFormatError(path, f"its header names benchmark {_shown(name)}, not EQ-Bench: read it with {reader}")


def _is_ours(first: Any) -> bool:
    return isinstance(first, dict) and ("type" in first or "question_id" in first)


def _read_other(path: Path, raw: bytes, first: Any) -> EqBenchRun:
    """An upstream results file or lm-evaluation-harness samples, read whole; ``first`` is the file's first line
    as :func:`_first_line` decoded it ("" when it is not JSON)."""
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")  # a torn last character is not fatal
    if isinstance(first, dict) and _is_lm_eval_line(first):
        return _lm_eval_run(text, path)
    one_line = "\n" not in text.strip()
    # a whole-file JSON document: upstream results, most of them on one line, which _first_line has decoded already
    obj = first if one_line and first != "" else json.loads(text)
    if isinstance(obj, dict) and "raw_results" in obj:
        return _upstream_run(obj, path)
    if (
        isinstance(obj, dict)
        and len(obj) == 1
        and isinstance(next(iter(obj.values())), dict)
        and "raw_results" in next(iter(obj.values()))
    ):
        return _upstream_run(next(iter(obj.values())), path)  # keyed by run id, as upstream writes locally
    raise NotARunFile(
        path,
        "not a recognised run format (expected eqbench_nb JSON Lines, "
        "EQ-Bench results JSON, or lm-evaluation-harness samples)",
    )


def _validate_and_score(run: EqBenchRun, path: Path) -> EqBenchRun:
    check_header(run.header, path)
    if run.version not in VERSIONS:
        raise RunFormatError(path, f"version {run.version!r} is not one of {', '.join(VERSIONS)}")
    _keep_first_of_asked(run)
    questions = run_questions(run)
    unknown = sorted({r.question_id for r in run.records} - set(questions), key=lambda s: (len(s), s))
    if unknown:
        raise RunFormatError(
            path,
            f"question ids not in the {run.version} set: {', '.join(unknown[:5])}" + (" …" if len(unknown) > 5 else ""),
        )
    named = [r for r in run.records if r.first_pass or r.revised]
    mismatched = [r for r in named if not _names_match(r, questions[r.question_id])]
    if named and len(mismatched) > len(named) / 2:
        raise RunFormatError(
            path,
            f"{len(mismatched)} of {len(named)} answers name emotions that are not in the "
            f"{run.version} key for their question; answers for another version's key?",
        )
    for r in run.records:
        score_record(r, questions[r.question_id], run.match)
    _flag_out_of_range(run)
    return run


def _keep_first_of_asked(run: EqBenchRun) -> None:
    """Leave out a second record of the same (iteration, question), questions the header did not ask, and
    iterations it does not allow (this project's files are filtered so as they are read; other formats here)."""
    asked = run.header.own.question_ids
    asked_set = set(asked) if asked is not None else None
    iterations = run.header.iterations
    kept, seen, duplicates, unasked, outside = [], set(), 0, 0, 0
    for r in run.records:
        if asked_set is not None and r.question_id not in asked_set:
            unasked += 1
        elif not (r.iteration >= 1 and (iterations is None or r.iteration <= iterations)):
            outside += 1
        elif r.key in seen:
            duplicates += 1
        else:
            seen.add(r.key)
            kept.append(r)
    if duplicates:
        run.warnings.append(f"{duplicates} duplicate records (same iteration and question) ignored; the first is kept")
    if unasked:
        run.warnings.append(f"{unasked} records for questions the header did not ask ignored")
    if outside:
        run.warnings.append(f"{outside} records with an iteration the header does not allow ignored")
    run.records = kept


def _flag_out_of_range(run: EqBenchRun) -> None:
    """Warn about scored answers with a rating outside 0-10 (the official parser reads any digits): the
    score counts them as given. Unparseable answers are left alone: their ratings count for nothing."""
    bad = [
        (r, name, value)
        for r in run.records
        for ratings, score in ((r.first_pass, r.first_pass_score), (r.revised, r.revised_score))
        if score is not None
        for name, value in ratings.items()
        if not (isinstance(value, float) and math.isfinite(value) and 0 <= value <= 10)
    ]
    if bad:
        r, name, value = bad[0]
        n_answers = len({r.key for r, _, _ in bad})
        run.out_of_range = n_answers
        run.warnings.append(
            f"{n_answers} answer{'s' if n_answers > 1 else ''} with a rating outside 0-10 (e.g. question "
            f"{r.question_id}, iteration {r.iteration}: {name} {value:g}); scored as given, as upstream would"
        )
    # A rating that is no finite number (NaN, inf, 1e308: too large to square) makes its answer unparseable
    # (scoring.answer_ratings); say so, as the one rule for model numbers asks (issue 34).
    not_finite = [
        (r, name, value)
        for r in run.records
        for ratings in (r.first_pass, r.revised)
        for name, value in ratings.items()
        if reads_not_finite(value)
    ]
    if not_finite:
        r, name, value = not_finite[0]
        n_answers = len({r.key for r, _, _ in not_finite})
        run.warnings.append(
            f"{n_answers} answer{'s' if n_answers > 1 else ''} with a rating that is not a finite number (e.g. "
            f"question {r.question_id}, iteration {r.iteration}: {name} {_written(value)}); left out as unparseable, "
            "as upstream leaves out what it cannot read"
        )


def _written(value: Any) -> str:
    """A rating that is not finite, for a warning: a float as ``:g`` writes it, text (a 400-digit rating) cut."""
    if isinstance(value, float):
        return f"{value:g}"
    text = str(value)
    return text if len(text) <= 24 else f"{text[:12]}… ({len(text)} characters)"


def _names_match(record: RunRecord, question: Question) -> bool:
    """An answer "matches" when it names at least one of the question's emotions."""
    wanted = {e.lower() for e in question.emotions}
    answers = record.first_pass or record.revised
    return bool(wanted & {k.lower() for k in answers})


@per_file_version
def is_run_file(path: Path) -> bool:
    """Whether a file is of one of EQ-Bench's run formats at all (a cheap look, not a check that it reads): its
    first line is this project's header or record or an lm-evaluation-harness sample, or it is a JSON document
    naming ``raw_results`` (an upstream results file). A folder's other files (a ``config.json`` beside the runs)
    are passed over (:func:`~eqbench_nb.runner.runfile.find_run_files`)."""
    try:
        with open(path, "rb") as f:
            first = _first_line(f)
            if first is None:
                return False
            if _is_ours(first) or (isinstance(first, dict) and _is_lm_eval_line(first)):
                return True
            f.seek(0)
            return b'"raw_results"' in f.read()
    except OSError:
        return True  # unreadable: the reader says why


def is_eqbench_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` is EQ-Bench's to read: its header names no other benchmark (this project's EQ-Bench files
    name none; upstream results and lm-eval samples have no such header)."""
    return header_benchmark(path) in (None, "eqbench")
