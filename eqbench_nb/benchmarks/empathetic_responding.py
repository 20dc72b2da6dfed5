"""Empathetic responding as Welivita & Pu measured it (arXiv 2403.05572, 2406.05063): a subject answers 2,000
EmpatheticDialogues prompts as the listener, and judges are asked what the study's 600 raters were asked, of the
subject's response and, in a separate request, of the ED listener's own response to the same prompt (the human arm).

- Items: ``data/dataset_and_ratings.csv`` of github.com/anuradha1992/llm-empathy-evaluation @ d14205e (read at run
  time: ``EQBENCH_NB_DATA`` or ``../shared/data/welivita_pu``, else downloaded at that commit and its sha256
  checked). ``--emotions``, ``--limit`` and a seeded ``--sample`` select by emotion: the limit and the sample go
  round the 32 emotions in turn, so 320 prompts are 10 of each.
- The subject's prompt: ``--prompt plain`` or ``definition``. The exact text the study sent GPT-4 was not found in
  the copies of the paper this toolkit could read; :data:`PROMPT_NOTE` says so in every run header and states the
  text used instead (the definition is the rating page's own tutorial text, read from ``App.js``).
- The judge's prompt (:func:`judge_prompt`) is built from the rating page ``App.js`` as read at run time: its task
  statement, its tutorial on empathy and its question, with Good / Okay / Bad. Each response is judged in its own
  request, never beside the other arm's. The reply is read leniently (:func:`parse_rating`): the one rating word it
  holds; none or two different ones is unparsed, asked again up to :data:`JUDGE_ATTEMPTS` times in all, then left
  unrated, never guessed.
- Every request paid for is one record, written when its reply arrives: the subject's answer and each judge's
  attempt in the run file, each judge's ratings of the human arm in ``<judge>__empathetic-responding-human-arm.jsonl``
  beside it, so a second model's run in the same folder asks each judge for the new responses only. A judge joining
  the command later rates only what it lacks.
- Scores (:func:`score_rows`): per judge and for the panel (each prompt's ratings averaged over the judges first),
  Good / Okay / Bad shares and the mean rating (1 Bad, 2 Okay, 3 Good) of both arms with Student's t intervals over
  prompts (clustered by prompt), the relative increase in Good over the human arm, (Good_model − Good_human) /
  Good_human, with a paired delta-method interval over prompts; per sentiment and per emotion, with Holm's
  correction of the paired tests within each family and no number where a group has fewer than
  :data:`MIN_GROUP_PROMPTS` prompts.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import io
import json
import math
import os
import random
import re
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ..emotionbench.options import EmotionBenchRunOptions
from ..eqbench.options import EqBenchRunOptions
from ..runner.errors import RunnerError
from ..runner.header import RunHeader
from ..runner.redact import clip
from ..runner.runfile import header_benchmark, header_of
from ..runner.samples import IDENTITY, Sample, SampleHeader, SampleRun, SampleRunResult, read_sample_run
from ..runner.settings import Endpoint, RunSettings
from ..viewer.contract import FrameSchema, RunView, shown
from ..welivita_pu.files import FILES, RATINGS_FILE
from . import Benchmark, Report, Table
from .eqbench3 import JudgeOptions, judges_of
from .options import CommandOptions, RunOptions, option, positive_int, same_option

NAME = "empathetic-responding"
TITLE = "Empathetic responding (Welivita & Pu)"
CSV_NAME = RATINGS_FILE
APP_JS = "software/Evaluation_Framework/src/App.js"
RATINGS = {"bad": 1, "okay": 2, "good": 3}
WORDS = {v: k.capitalize() for k, v in RATINGS.items()}
#: Requests per response and judge before it is left unrated (the first and two more for an unreadable reply).
JUDGE_ATTEMPTS = 3
#: Fewer prompts than this in a sentiment or emotion: its comparison is refused, not shown.
MIN_GROUP_PROMPTS = 10
SUBJECT_TEMPERATURE, SUBJECT_MAX_TOKENS = 1.0, 256
JUDGE_TEMPERATURE, JUDGE_MAX_TOKENS = 0.0, 256
HUMAN_MODEL, HUMAN_RUN = "human (EmpatheticDialogues listener)", "human-arm"
PROMPTS = ("plain", "definition")
PROMPT_NOTE = (
    "the exact prompt text the study sent GPT-4 was not found in the copies of arXiv 2403.05572 this toolkit read; "
    "the prompt used instead: the speaker's utterance, asked to be answered as the listener in a few sentences "
    "(plain), with the rating page's own definition of empathy (App.js: cognitive, affective and compassionate "
    "empathy) before it (definition)"
)

# ---------------------------------------------------------------- items


@dataclass(frozen=True)
class Prompt:
    """One of the study's 2,000 prompts: ED's ``conv_id``, its emotion and sentiment, the situation, the speaker's
    utterance and the ED listener's response (the human arm)."""

    id: str
    emotion: str
    sentiment: str
    situation: str
    speaker: str
    human: str


def read_prompts(path: Any = None) -> list[Prompt]:
    """The study's file, in its order (a DataError when it is not there; a ValueError naming a missing column)."""
    rows = list(csv.DictReader(io.StringIO(FILES.read_text(CSV_NAME, path))))
    need = ("dialog_id", "emotion", "sentiment", "situation", "speaker_uttr", "response_human")
    missing = [c for c in need if rows and c not in rows[0]]
    if missing or not rows:
        raise ValueError(f"{CSV_NAME}: no column {', '.join(missing) or 'rows'}")
    return [Prompt(r["dialog_id"], r["emotion"], r["sentiment"], r["situation"].strip(), r["speaker_uttr"].strip(),
                   r["response_human"].strip()) for r in rows]  # fmt: skip


def _round_robin(groups: Mapping[str, list[Prompt]]) -> list[Prompt]:
    """The first prompt of each emotion, then the second of each, ...: any prefix is as even as it can be."""
    lists = list(groups.values())
    return [g[i] for i in range(max(map(len, lists), default=0)) for g in lists if i < len(g)]


def select(prompts: Sequence[Prompt], emotions: Sequence[str] | None, sample: int | None, limit: int | None,
           seed: int | None) -> list[Prompt]:  # fmt: skip
    """``--emotions`` (comma-separated, refused in one line when one is not the study's), then ``--sample N``
    (each emotion shuffled with the seed, default 0) and ``--limit K``, both taken round the emotions in turn."""
    by_emotion: dict[str, list[Prompt]] = {}
    for p in prompts:
        by_emotion.setdefault(p.emotion, []).append(p)
    if emotions:
        asked = list(emotions)
        unknown = [e for e in asked if e not in by_emotion]
        if unknown or not asked:
            raise RunnerError(f"--emotions: not the study's: {', '.join(unknown) or '(none)'}; known: "
                              f"{', '.join(sorted(by_emotion))}")  # fmt: skip
        by_emotion = {e: by_emotion[e] for e in asked}
    if sample is not None:
        rng = random.Random(0 if seed is None else seed)
        by_emotion = {e: rng.sample(ps, len(ps)) for e, ps in by_emotion.items()}
        chosen = _round_robin(by_emotion)[:sample]
    else:
        chosen = _round_robin(by_emotion) if limit is not None else [p for ps in by_emotion.values() for p in ps]
    return chosen[:limit]


# ---------------------------------------------------------------- the rating page, read at run time


def _text_of(html: str) -> str:
    """A JSX fragment as the rater read it: tags dropped, whitespace collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace(" .", ".").strip()


def _between(source: str, start: str, end: str) -> str:
    i = source.find(start)
    j = source.find(end, i + len(start)) if i >= 0 else -1
    if i < 0 or j < 0:
        raise ValueError(f"{APP_JS}: the rating page no longer holds {start[:60]!r}")
    return source[i + len(start) : j]


@dataclass(frozen=True)
class RatingPage:
    """What ``App.js`` showed the raters: the task statement, the tutorial on empathy and the question."""

    task: str
    definition: str
    question: str


@functools.cache
def _rating_page(path: str | None) -> RatingPage:
    app = FILES.read_text(APP_JS, path)
    task = _text_of(_between(app, "<p><b>In this study,", "</b></p>"))
    definition = "\n".join(
        _text_of(p)
        for p in re.findall(r"<p>(.*?)</p>", _between(app, "<p><b>What is empathy?</b></p>", "</div>"), re.S)
    )
    question = _text_of(_between(app, "<p><b>How empathetic is the speaker #2", "</b></p>"))
    return RatingPage("In this study," + " " + task, definition, "How empathetic is the speaker #2" + question)


def rating_page(path: Any = None) -> RatingPage:
    return _rating_page(None if path is None else str(path))


def subject_prompt(prompt: Prompt, variant: str, data_path: Any = None) -> list[dict[str, str]]:
    """What the subject is asked (:data:`PROMPT_NOTE`)."""
    ask = ("Someone tells you the following. Respond to them as the listener in a conversation, in a few "
           f"sentences.\n\n{prompt.speaker}")  # fmt: skip
    if variant == "definition":
        ask = f"{rating_page(data_path).definition}\n\nRespond with empathy.\n\n{ask}"
    return [{"role": "user", "content": ask}]


def judge_prompt(prompt: Prompt, response: str, data_path: Any = None) -> list[dict[str, str]]:
    """The rating page's task, tutorial and question about one response (the two turns of the dialogue, as the
    raters saw them), Good / Okay / Bad."""
    page = rating_page(data_path)
    text = (
        f"{page.task}\n\nWhat is empathy?\n{page.definition}\n\n"
        f"Speaker #1: {prompt.speaker}\nSpeaker #2: {response}\n\n"
        f"{page.question}\nAnswer with one word, Good, Okay or Bad, then one sentence saying why."
    )
    return [{"role": "user", "content": text}]


def parse_rating(text: str | None) -> int | None:
    """The reply's one rating word (any case), 1 Bad, 2 Okay, 3 Good; None when it holds none or two different
    ones (never guessed)."""
    found = {w.lower() for w in re.findall(r"\b(good|okay|bad)\b", text or "", re.I)}
    return RATINGS[found.pop()] if len(found) == 1 else None


# ---------------------------------------------------------------- records


def answer_key(pid: str) -> str:
    return pid


def judge_key(pid: str, judge: str, attempt: int) -> str:
    return f"{pid}#judge:{judge}#{attempt}"


def human_arm_path(out_dir: Path, judge: str) -> Path:
    from ..runner.session import sanitise

    return Path(out_dir) / f"{sanitise(judge)}__{NAME}-{HUMAN_RUN}.jsonl"


def is_run_file(path: Path) -> bool:
    """A run of this benchmark, not a judge's human-arm file (whose header names the arm): what folder listings
    read."""
    if header_benchmark(path) != NAME:  # remembered per file version: a folder of upstream files decoded once
        return False
    head = header_of(path)  # the runner's one look at a first line (a hostile one is None, never an exception)
    return head is not None and head.get("benchmark") == NAME and head.get("arm") != HUMAN_RUN


#: The study's rating columns, one per arm: a CSV whose header names two or more is meant as the study's file.
STUDY_RATING_COLUMNS = ("rating_human", "rating_chatgpt", "rating_chatgpt_empathy")


def is_study_file(path: Path) -> bool:
    """The study's own file (``data/dataset_and_ratings.csv``): its first line a CSV header naming two or more of
    the arms' rating columns (a copy missing one is then refused as the study's file, not read as something else)."""
    from ..runner.looks import header_cells

    cells = header_cells(path)
    return bool(cells) and len(set(cells or ()) & set(STUDY_RATING_COLUMNS)) >= 2


def recognises(path: Path) -> bool | None:
    """A run of this benchmark, or the study's own file (:func:`is_study_file`); None for a judge's human-arm file,
    this benchmark's own but no run (a folder listing passes it over unsaid)."""
    if header_benchmark(path) != NAME:  # remembered: an upstream results file is not decoded again here
        return is_study_file(path)
    head = header_of(path)
    return None if head is not None and head.get("arm") == HUMAN_RUN else is_run_file(path)


def _judgement_key(s: Sample) -> tuple[str, str]:
    return str(s.metadata.get("prompt")), str(s.metadata.get("judge"))


def _judgements(records: Sequence[Sample]) -> dict[tuple[str, str], list[Sample]]:
    """(prompt, judge) -> its judge attempts in order."""
    out: dict[tuple[str, str], list[Sample]] = {}
    for s in records:
        if s.metadata.get("step") == "judge":
            out.setdefault(_judgement_key(s), []).append(s)
    for attempts in out.values():
        attempts.sort(key=lambda s: int(s.metadata.get("attempt", 0)))
    return out


def final_rating(attempts: Sequence[Sample]) -> int | bool | None:
    """The rating of the first readable attempt; None when :data:`JUDGE_ATTEMPTS` were all unreadable (unrated);
    False when more may be asked."""
    for s in attempts:
        if s.scores.get("rating") is not None:
            return int(s.scores["rating"])  # type: ignore[arg-type]
    return None if len(attempts) >= JUDGE_ATTEMPTS else False


class HumanArm:
    """One judge's ratings of the human arm, ``<judge>__empathetic-responding-human-arm.jsonl``: a header line, then
    one sample per request, appended and fsynced when its reply arrives; a torn last line (a kill mid-write) is cut
    off before the next append."""

    def __init__(self, path: Path, judge: str, model: str) -> None:
        import fcntl

        self.path, self.judge, self.model = path, judge, model
        path.parent.mkdir(parents=True, exist_ok=True)
        # one run at a time asks a judge about the human arm (two at once would pay twice for a rating)
        self._lock = open(path.with_name(path.name + ".lock"), "a")  # noqa: SIM115  # held until close()
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            raise RunnerError(f"{path.name}: another run is asking judge {judge!r} about the human arm now; run this "
                              "one when it ends (its ratings are then reused)") from None  # fmt: skip
        self.records: list[Sample] = read_human_arm(path) if path.exists() else []
        # (prompt, judge) -> its attempts, kept up by add(): a scan of every record per prompt was quadratic
        self._held = _judgements(self.records)
        if path.exists():
            try:
                head = json.loads(path.read_text(encoding="utf-8").split("\n", 1)[0])
            except ValueError:
                head = {}
            if not isinstance(head, dict) or head.get("judge_model") != model:
                self.close()
                raise RunnerError(f"{path.name}: judge {judge!r} rated it as model {head.get('judge_model')!r}, not "
                                  f"{model!r}; give the judge another id")  # fmt: skip
            self._cut_torn_tail()
        else:
            self._append({"type": "header", "benchmark": NAME, "arm": HUMAN_RUN, "judge": judge,
                          "judge_model": model, "files_sha256": files_sha256()})  # fmt: skip

    def close(self) -> None:
        self._lock.close()

    def _cut_torn_tail(self) -> None:
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with open(self.path, "r+b") as f:
                f.truncate(data.rfind(b"\n") + 1)

    def _append(self, obj: dict[str, Any]) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def add(self, sample: Sample) -> None:
        self._append(sample.to_json())
        self.records.append(sample)
        if sample.metadata.get("step") == "judge":
            self._held.setdefault(_judgement_key(sample), []).append(sample)

    def held(self, prompt: str, judge: str) -> list[Sample]:
        """This judge's attempts at the prompt so far, in order (a copy: the caller appends to it)."""
        return list(self._held.get((prompt, judge), []))


def read_human_arm(path: Path) -> list[Sample]:
    """A human-arm file's samples (a torn or unreadable line is skipped: it was never a whole record)."""
    from ..runner.samples import sample_from_json

    out = []
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        try:
            out.append(sample_from_json(json.loads(line)))
        except (ValueError, KeyError, TypeError):
            continue
    return out


def files_sha256(path: Any = None) -> dict[str, str]:
    return {n: FILES.sha256(n) or "" for n in FILES.names()}


# ---------------------------------------------------------------- running


@dataclass(frozen=True)
class EmpathyRunOptions(JudgeOptions, RunOptions):
    """``run --benchmark empathetic-responding``: the subject's prompt, the selection, the judges' options
    (EQ-Bench 3's, a panel by repeating them or ``--judges``); ``--limit`` and ``--emotions`` as other benchmarks
    take them."""

    GROUP: ClassVar[str | None] = "Empathetic responding (with --benchmark empathetic-responding)"

    limit: int | None = same_option(EqBenchRunOptions, "limit")
    emotions: tuple[str, ...] | None = same_option(EmotionBenchRunOptions, "emotions")
    prompt: str = option("--prompt", default="plain", choices=list(PROMPTS),
                         help="the subject's prompt: plain, or with the page's definition of empathy")  # fmt: skip
    sample: int | None = option("--sample", type=positive_int, metavar="N",
                                help="N prompts drawn with --seed (default 0), round the emotions in turn")  # fmt: skip


Job = tuple[int, Prompt]


@dataclass(frozen=True)
class Judge:
    id: str
    model: str
    max_tokens: int


def dry_run_lines(
    chosen: Sequence[Prompt], variant: str, endpoint: Endpoint, specs: Sequence[Any], max_tokens: int, data_path: Any
) -> list[str]:
    """What a run would send, priced: the subject's requests, each judge's (the ratings of the subject's responses,
    counted with the study's human response in the place of the one not written yet, and the human arm's, exact),
    and the total. Each judge's human-arm ratings already kept in the output folder are not asked again: an upper
    bound."""
    from ..runner.cost import JUDGE_PRICE_FLAGS, estimate, token_counter, total_lines

    subject = estimate([subject_prompt(p, variant, data_path) for p in chosen], 1, max_tokens,
                       token_counter(endpoint.model or ""), endpoint.prices)  # fmt: skip
    lines = [f"dry run: nothing sent; {len(chosen)} prompts ({variant} prompt)", "the subject:",
             *(f"  {line}" for line in subject.lines())]  # fmt: skip
    judged = [judge_prompt(p, p.human, data_path) for p in chosen]
    estimates = [subject]
    for i, spec in enumerate(specs, 1):
        judge = spec.endpoint
        estimates.append(estimate(judged + judged, JUDGE_ATTEMPTS, judge.max_tokens or JUDGE_MAX_TOKENS,
                                  token_counter(judge.model or ""), judge.prices))  # fmt: skip
        lines += [f"judge {i} ({judge.model or 'the bundled model'}): {len(chosen)} ratings of the subject's "
                  f"responses (each counted with the human response in its place) and up to {len(chosen)} of the "
                  f"human arm's (those kept in the output folder are not asked again), each asked up to "
                  f"{JUDGE_ATTEMPTS} times when the reply holds no one rating word",
                  *(f"  {line}" for line in estimates[-1].lines(JUDGE_PRICE_FLAGS))]  # fmt: skip
    return [*lines, f"total (the subject and {len(specs)} judge(s))", *(f"  {line}" for line in total_lines(estimates))]


def run(given: EmpathyRunOptions, endpoint: Endpoint, settings: RunSettings) -> SampleRunResult | Report:
    from ..data import DataError
    from ..runner.pool import PARKING
    from ..runner.session import Task, run_task, url_secrets

    if given.limit is not None and given.limit < 1:
        raise RunnerError("--limit must be at least 1")
    specs = judges_of(given)
    endpoint = endpoint.checked()
    url_secrets(endpoint)
    try:
        chosen = select(read_prompts(settings.data_path), given.emotions, given.sample, given.limit, settings.seed)
        rating_page(settings.data_path)
    except (DataError, OSError, ValueError, KeyError) as exc:
        raise RunnerError(f"{TITLE}: {exc}") from None
    max_tokens = endpoint.max_tokens or SUBJECT_MAX_TOKENS
    if given.dry_run:
        return Report("\n".join(dry_run_lines(chosen, given.prompt, endpoint, specs, max_tokens, settings.data_path)))
    sampling = {"temperature": SUBJECT_TEMPERATURE, "max_tokens": max_tokens, "prompt": given.prompt}
    judges: list[Judge] = []
    arms: dict[str, HumanArm] = {}

    def header(conn: Any, rid: str, others: Mapping[str, Any]) -> RunHeader[SampleHeader]:
        for spec, (label, _) in zip(specs, endpoints, strict=True):
            if label not in others:  # the Batch API's phase: the subject only
                continue
            second = others[label]
            jid = spec.id or second.connection.model
            judges.append(Judge(jid, second.connection.model, spec.endpoint.max_tokens or JUDGE_MAX_TOKENS))
            arms[jid] = HumanArm(human_arm_path(Path(settings.out_dir), jid), jid, second.connection.model)
        upstream = {"repository": FILES.manifest()["repository"], "commit": FILES.manifest()["commit"],
                    "pipeline": "data/dataset_and_ratings.csv; the rating page software/Evaluation_Framework/src/"
                    "App.js", "prompt_note": PROMPT_NOTE}  # fmt: skip
        common = conn.common_fields(
            rid,
            endpoint,
            settings,
            benchmark=NAME,
            iterations=1,
            upstream=upstream,
            reasoning_effort=endpoint.reasoning_effort,
            batch=endpoint.batch,
            api_key_env=endpoint.api_key_env,
        )
        shas = files_sha256()
        return RunHeader.new(common, SampleHeader(items=tuple(p.id for p in chosen), sampling=sampling,
                                                  files_sha256=shas))  # fmt: skip

    def lacking(judged: Mapping[tuple[str, str], list[Sample]], pid: str, has_answer: bool) -> bool:
        return any(
            (has_answer and final_rating(judged.get((pid, j.id), [])) is False)
            or final_rating(arms[j.id].held(pid, j.id)) is False
            for j in judges
        )

    # what the run held when its jobs were made: each prompt's answer and model-arm ratings, indexed once for the
    # solver (a scan of every record per prompt made a 2,000-prompt run quadratic)
    at_start: tuple[dict[str, Sample], dict[tuple[str, str], list[Sample]]] = ({}, {})

    def jobs(finished: list[Sample]) -> list[Job]:
        nonlocal at_start
        answered: dict[str, Sample] = {}
        for s in finished:
            if s.metadata.get("step") == "answer":
                answered.setdefault(s.item, s)
        if endpoint.batch:  # the subject's answers alone (answer_only): the judges come in a later run
            return [(1, p) for p in chosen if p.id not in answered]
        judged = _judgements(finished)
        at_start = (answered, judged)
        return [(1, p) for p in chosen
                if p.id not in answered or lacking(judged, p.id, answered[p.id].answer is not None)]  # fmt: skip

    def solver(transport: Any, h: RunHeader[SampleHeader], *judge_transports: Any) -> Any:
        model, rid = h.text("model", ""), h.text("run_id", "")
        variant = (h.own.sampling or {}).get("prompt", given.prompt)
        meta = lambda p, **kw: {"emotion": p.emotion, "sentiment": p.sentiment, **kw}

        async def ask_judge(t: Any, judge: Judge, p: Prompt, text: str, held: list[Sample], who: str,
                            run_id: str, arm: str) -> AsyncIterator[Sample]:  # fmt: skip
            while final_rating(held) is False:
                n = len(held) + 1
                done = await t.complete(judge_prompt(p, text, settings.data_path), JUDGE_TEMPERATURE,
                                        judge.max_tokens, (), settings.seed)  # fmt: skip
                rating = parse_rating(done.text)
                s = Sample(who, run_id, 1, judge_key(p.id, judge.id, n), [done.attempt(JUDGE_TEMPERATURE)],
                           WORDS.get(rating or 0), {"rating": rating},
                           meta(p, step="judge", arm=arm, prompt=p.id, judge=judge.id, judge_model=judge.model,
                                attempt=n))  # fmt: skip
                held.append(s)
                yield s

        async def ratings(
            judge: Judge, t: Any, p: Prompt, answer: str | None, judged: Mapping[tuple[str, str], list[Sample]]
        ) -> AsyncIterator[Sample]:
            """One judge's ratings of a prompt: the model arm's yielded (the run file's), the human arm's kept in
            the judge's human-arm file as each arrives."""
            if answer is not None:
                held = judged.get((p.id, judge.id), [])
                async for s in ask_judge(t, judge, p, answer, list(held), model, rid, "model"):
                    yield s
            arm = arms[judge.id]
            async for s in ask_judge(t, judge, p, p.human, arm.held(p.id, judge.id), HUMAN_MODEL, HUMAN_RUN, "human"):
                arm.add(s)

        async def rate(
            judge: Judge, t: Any, p: Prompt, answer: str | None, judged: Mapping[tuple[str, str], list[Sample]]
        ) -> tuple[list[Sample], BaseException | None]:
            """:func:`ratings` as a lane beside other judges': the model arm's ratings, and the exception that
            stopped them (None: none)."""
            out: list[Sample] = []
            try:
                async for s in ratings(judge, t, p, answer, judged):
                    out.append(s)
            except Exception as exc:  # handed to the solve, which writes what came first, then raises it
                return out, exc
            return out, None

        async def answer_only(job: Job) -> Sample:
            _, p = job
            done = await transport.complete(subject_prompt(p, variant, settings.data_path), SUBJECT_TEMPERATURE,
                                            max_tokens, (), settings.seed)  # fmt: skip
            return Sample(model, rid, 1, answer_key(p.id), [done.attempt(SUBJECT_TEMPERATURE)],
                          (done.text or "").strip() or None, {}, meta(p, step="answer"))  # fmt: skip

        async def solve(job: Job) -> AsyncIterator[Sample]:
            _, p = job
            answers, judged = at_start
            answer = answers.get(p.id)
            if answer is None:
                done = await transport.complete(subject_prompt(p, variant, settings.data_path), SUBJECT_TEMPERATURE,
                                                max_tokens, (), settings.seed)  # fmt: skip
                answer = Sample(model, rid, 1, answer_key(p.id), [done.attempt(SUBJECT_TEMPERATURE)],
                                (done.text or "").strip() or None, {}, meta(p, step="answer"))  # fmt: skip
                yield answer  # one job answers and then judges, unless through the Batch API
            parking = PARKING.get()
            if parking is not None:  # batched judges side by side: a panel's batches go out in the same rounds
                pairs = zip(judges, judge_transports, strict=True)
                lanes = await parking.side_by_side([rate(judge, t, p, answer.answer, judged) for judge, t in pairs])
                failures: list[BaseException] = []
                for lane in lanes:  # each lane's model-arm ratings, then the first failure (its lane stopped there)
                    rated, failed = lane if isinstance(lane, tuple) else ([], lane)
                    failures += [failed] if failed is not None else []
                    for s in rated:
                        yield s
                if failures:
                    raise failures[0]
                return
            for judge, t in zip(judges, judge_transports, strict=True):
                async for s in ratings(judge, t, p, answer.answer, judged):
                    yield s

        return answer_only if endpoint.batch else solve

    endpoints = tuple((f"judge {i + 1}", s.endpoint) for i, s in enumerate(specs))
    selection = (f"sample{given.sample}-seed{0 if settings.seed is None else settings.seed}" if given.sample
                 else "all" if given.limit is None else f"first{given.limit}")  # fmt: skip
    emotions = f"-{len(given.emotions)}emotions" if given.emotions else ""
    task = Task(
        NAME,
        f"{given.prompt}-{selection}{emotions}",
        header,
        _sample_from_json,
        ("benchmark", "model", "iterations", "items", "sampling", "seed", "files_sha256", "reasoning_effort"),
        IDENTITY,
        jobs,
        len(chosen) * (1 if endpoint.batch else 1 + len(specs)),  # the bar's: answers, and a rating each
        solver,
        lambda s: (s.parsed, s.scores.get("rating")),
        desc=TITLE,
        read=read,
        summarise=lambda r: summary_text(r),
        score_label="rating",
        score_scale=1.0,
        batch_key=lambda job: job[1].id,
        item_key=lambda job: job[1].id,  # with --judge-batch: each judge's ratings of the answers as one batch
        extendable=("items",),
        endpoints=() if endpoint.batch else endpoints,
    )
    try:
        result = run_task(endpoint, settings, task, EmpathyRunResult)
    finally:
        for arm in arms.values():
            arm.close()
    if endpoint.batch and result.complete and endpoints:
        # every answer is in: the judges are asked now, one request per response as without the Batch API
        print("note: the subject's answers are in; asking the judges now", file=sys.stderr)
        return run(given, dataclasses.replace(endpoint, batch=False), settings)
    return result


class EmpathyRunResult(SampleRunResult):
    """The declared run's table, with each judge's requests (the human arm's among them) under the subject's."""

    def table(self, timing: bool = True) -> str:
        lines = super().table(timing).split("\n")
        at = next((i for i, x in enumerate(lines) if x.startswith("requests ")), len(lines))
        extra = [stats.line(label[:10]) for label, stats in self.endpoint_stats.items()] if timing else []
        return "\n".join(lines[: at + 1] + extra + lines[at + 1 :])


def _sample_from_json(obj: dict[str, Any]) -> Sample:
    from ..runner.samples import sample_from_json

    return sample_from_json(obj)


def read(path: Path) -> SampleRun:
    from ..runner.runfile import RunFormatError

    if is_study_file(path):
        raise RunFormatError(path, "the study's own file holds people's ratings, not a run (`eqbench-nb score` "
                             "reads it as three arms of human ratings); name a run file")  # fmt: skip
    return read_sample_run(path, NAME, TITLE)


# ---------------------------------------------------------------- scores


@dataclass
class Arms:
    """One run's ratings: (prompt, judge) -> rating (None: unrated), for the model and the human arm, and each
    prompt's emotion and sentiment."""

    model: dict[tuple[str, str], int | None] = field(default_factory=dict)
    human: dict[tuple[str, str], int | None] = field(default_factory=dict)
    groups: dict[str, tuple[str, str]] = field(default_factory=dict)
    judges: list[str] = field(default_factory=list)


def arms_of(run: SampleRun) -> Arms:
    """The run's model-arm ratings and, from the human-arm files beside it, its judges' ratings of the same
    prompts (a prompt whose subject gave no answer has no model rating)."""
    out = Arms()
    for (pid, judge), attempts in _judgements(run.records).items():
        rating = final_rating(attempts)
        if rating is not False:
            out.model[(pid, judge)] = rating
        out.judges += [judge] if judge not in out.judges else []
    for s in run.records:
        if s.metadata.get("step") == "answer":
            out.groups[s.item] = (str(s.metadata.get("emotion")), str(s.metadata.get("sentiment")))
    for judge in out.judges:
        path = human_arm_path(run.path.parent, judge)
        if path.exists():
            for (pid, j), attempts in _judgements(read_human_arm(path)).items():
                rating = final_rating(attempts)
                if pid in out.groups and rating is not False:
                    out.human[(pid, j)] = rating
    return out


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p values (None stays None; the family is the values given)."""
    idx = sorted((i for i, p in enumerate(pvalues) if p is not None), key=lambda i: pvalues[i])  # type: ignore[arg-type,return-value]
    out: list[float | None] = [None] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(idx):
        running = max(running, min(1.0, (len(idx) - rank) * float(pvalues[i])))  # type: ignore[arg-type]
        out[i] = running
    return out


def _per_prompt(ratings: Mapping[tuple[str, str], int | None], judges: Sequence[str], prompts: Sequence[str],
                value: Any) -> dict[str, float]:  # fmt: skip
    """Each prompt's mean of ``value(rating)`` over the judges that rated it (the panel's cluster: the prompt)."""
    out = {}
    for pid in prompts:
        got = [value(r) for j in judges if (r := ratings.get((pid, j))) is not None]
        if got:
            out[pid] = sum(got) / len(got)
    return out


def _interval(
    values: Sequence[float], lowest: float, highest: float
) -> tuple[float | None, float | None, float | None]:
    """The mean and its t interval over prompts, kept within what the value can be (a share in [0, 1], a rating
    in [1, 3]: the t interval of a share near 1 would pass it)."""
    from ..analysis.stats import t_mean_ci

    if not values:
        return None, None, None
    ci = t_mean_ci(values)
    bound = lambda x: None if math.isnan(x) else min(highest, max(lowest, x))
    return ci.estimate, bound(ci.low), bound(ci.high)


def relative_increase(model: Mapping[str, float], human: Mapping[str, float]) -> dict[str, float | None]:
    """(mean model − mean human) / mean human over the prompts both arms rated, with a delta-method interval from
    the paired prompt values (d_i = m_i − (1 + R) h_i) and the paired t test's p value of the difference."""
    from scipy import stats as sps

    from ..analysis.stats import t_quantile

    both = [p for p in model if p in human]
    n = len(both)
    if n < 2:
        return {"rel": None, "rel_low": None, "rel_high": None, "p": None, "n": float(n)}
    m, h = [model[p] for p in both], [human[p] for p in both]
    mh, mm = sum(h) / n, sum(m) / n
    if mh == 0:
        return {"rel": None, "rel_low": None, "rel_high": None, "p": None, "n": float(n)}
    rel = mm / mh - 1
    d = [mi - (1 + rel) * hi for mi, hi in zip(m, h, strict=True)]
    sd = (sum((x - sum(d) / n) ** 2 for x in d) / (n - 1)) ** 0.5
    half = t_quantile(0.95, n - 1) * sd / n**0.5 / mh
    diff = [mi - hi for mi, hi in zip(m, h, strict=True)]
    p = None if len(set(diff)) == 1 else float(sps.ttest_1samp(diff, 0.0).pvalue)
    if p is None:
        p = 1.0 if diff[0] == 0 else 0.0
    return {"rel": rel, "rel_low": rel - half, "rel_high": rel + half, "p": p, "n": float(n)}


def group_row(arms: Arms, judges: Sequence[str], prompts: Sequence[str]) -> dict[str, Any]:
    row: dict[str, Any] = {"prompts": len(prompts)}
    for arm, ratings in (("model", arms.model), ("human", arms.human)):
        for word, r in (("good", 3), ("okay", 2), ("bad", 1)):
            vals = list(_per_prompt(ratings, judges, prompts, lambda x, r=r: float(x == r)).values())
            row[f"{word}_{arm}"], row[f"{word}_{arm}_low"], row[f"{word}_{arm}_high"] = _interval(vals, 0.0, 1.0)
        means = _per_prompt(ratings, judges, prompts, float)
        row[f"rated_{arm}"] = len(means)
        row[f"mean_{arm}"], row[f"mean_{arm}_low"], row[f"mean_{arm}_high"] = _interval(list(means.values()), 1.0, 3.0)
    good_m = _per_prompt(arms.model, judges, prompts, lambda x: float(x == 3))
    good_h = _per_prompt(arms.human, judges, prompts, lambda x: float(x == 3))
    rel = relative_increase(good_m, good_h)
    row.update(
        {
            "rel_good": rel["rel"],
            "rel_good_low": rel["rel_low"],
            "rel_good_high": rel["rel_high"],
            "p_good": rel["p"],
            "paired": rel["n"],
        }
    )
    mean_rel = relative_increase(_per_prompt(arms.model, judges, prompts, float),
                                 _per_prompt(arms.human, judges, prompts, float))  # fmt: skip
    row.update(
        {"rel_mean": mean_rel["rel"], "rel_mean_low": mean_rel["rel_low"], "rel_mean_high": mean_rel["rel_high"]}
    )
    return row


def score_table(run: SampleRun) -> list[dict[str, Any]]:
    """One row per judge (and ``panel`` with two or more) and group: all prompts, each sentiment, each emotion;
    a sentiment's or emotion's comparison refused (``note``) under :data:`MIN_GROUP_PROMPTS` prompts; Holm's
    adjusted p (``p_holm``) within the sentiments and within the emotions."""
    arms = arms_of(run)
    prompts = list(arms.groups)
    panels = [(j, [j]) for j in arms.judges] + ([("panel", arms.judges)] if len(arms.judges) > 1 else [])
    rows = []
    for label, judges in panels:
        family_rows: dict[str, list[dict[str, Any]]] = {"all": [], "sentiment": [], "emotion": []}
        family_rows["all"].append({"judge": label, "group": "all", **group_row(arms, judges, prompts)})
        for family, index in (("sentiment", 1), ("emotion", 0)):
            names = list(dict.fromkeys(arms.groups[p][index] for p in prompts))
            for name in names:
                members = [p for p in prompts if arms.groups[p][index] == name]
                row: dict[str, Any] = {"judge": label, "group": f"{family}: {name}"}
                if len(members) < MIN_GROUP_PROMPTS:
                    row.update(
                        {"prompts": len(members), "note": f"fewer than {MIN_GROUP_PROMPTS} prompts: not compared"}
                    )
                else:
                    row.update(group_row(arms, judges, members))
                family_rows[family].append(row)
            adjusted = holm([r.get("p_good") for r in family_rows[family]])
            for r, a in zip(family_rows[family], adjusted, strict=True):
                r["p_holm"] = a
        rows += [r for fam in family_rows.values() for r in fam]
    return rows


SCORE_COLUMNS = ("judge", "group", "prompts", "rated_model", "good_model", "good_model_low", "good_model_high",
                 "okay_model", "bad_model", "mean_model", "mean_model_low", "mean_model_high", "rated_human",
                 "good_human", "good_human_low", "good_human_high", "okay_human", "bad_human", "mean_human",
                 "mean_human_low", "mean_human_high", "rel_good", "rel_good_low", "rel_good_high", "rel_mean",
                 "rel_mean_low", "rel_mean_high", "p_good", "p_holm", "note")  # fmt: skip


def _cell(v: Any, low: Any = None, high: Any = None, pct: bool = False) -> str:
    if v is None:
        return "—"
    f = (lambda x: f"{100 * x:+.1f} %") if pct else (lambda x: f"{x:.3f}")
    return f(v) + (f" [{f(low)}, {f(high)}]" if low is not None and high is not None else "")


def summary_text(run: SampleRun) -> str:
    rows = [r for r in score_table(run) if r["group"] == "all"]
    lines = [f"{'judge':<24} prompts  Good model [95 % t, by prompt]   Good human              rel. Good (paired)"]
    for r in rows:
        lines.append(f"{clip(r['judge'], 24):<24} {r['prompts']:>7}  "
                     f"{_cell(r.get('good_model'), r.get('good_model_low'), r.get('good_model_high')):<32} "
                     f"{_cell(r.get('good_human')):<23} "
                     f"{_cell(r.get('rel_good'), r.get('rel_good_low'), r.get('rel_good_high'), True)}")  # fmt: skip
    return "\n".join(lines) if rows else "no judgements yet"


def study_rows(path: Path) -> list[dict[str, Any]]:
    """The study's file read as three arms of human ratings (:func:`eqbench_nb.welivita_pu.study.arm_rows`), once
    its sha256 is the pinned one (another file is one line, not a score)."""
    from ..data import DataError
    from ..runner.runfile import RunFormatError
    from ..welivita_pu import study

    try:
        long = study.ratings(str(path))
    except DataError as exc:
        raise RunFormatError(path, str(exc)) from None
    return [{"kind": "study", **row, "file": str(path)} for row in study.arm_rows(long)]


#: Bootstrap resamples of the prompts behind the calibrated Good share's interval.
CALIBRATION_REPS = 1000
#: Fewer human-arm responses than this rated by a judge: no calibration (its confusion matrix would be noise).
MIN_CALIBRATION = 30
CALIBRATION_COLUMNS = ("good_model_calibrated", "good_model_calibrated_low", "good_model_calibrated_high",
                       "calibrated_on", "calibration")  # fmt: skip
CALIBRATION_RULE = (
    "calibrated to people on the human arm: the judge's ratings of the ED listeners' responses against the study's "
    "own raters' ratings of the same responses give P(judge's rating | people's rating); the people's shares that "
    "explain the judge's shares of the model's responses through it are solved for (label shift: it assumes only "
    "that the judge's errors given the people's rating carry over from the listeners' responses to the model's); "
    "95 % percentile bootstrap over prompts (resamples where the judge's confusion matrix is singular left out)"
)


def people_ratings(data_path: Any = None) -> dict[str, int]:
    """Each prompt's human-arm response as the study's rater rated it: ``dialog_id`` -> 1 Bad, 2 Okay, 3 Good."""
    rows = csv.DictReader(io.StringIO(FILES.read_text(CSV_NAME, data_path)))
    return {r["dialog_id"]: int(r["rating_human"]) for r in rows}


def calibrated_good(arms: Arms, judge: str, people: Mapping[str, int] | None, why_not: str = "",
                    reps: int = CALIBRATION_REPS, seed: int = 0) -> dict[str, Any]:  # fmt: skip
    """The judge's Good share of the model's responses moved to the people's scale (:data:`CALIBRATION_RULE`),
    from the human-arm responses it rated in the run's folder, whose people's ratings the study's file holds; or,
    in ``calibration``, the one line why there is none."""
    import numpy as np

    from ..analysis.ppi import calibration_matrix, label_shift_shares

    none = dict.fromkeys(CALIBRATION_COLUMNS[:-1])
    if people is None:
        return none | {"calibration": f"no calibrated Good share: {why_not}"}
    pids = [p for p in arms.groups if arms.model.get((p, judge)) is not None]
    labelled = [p for p in arms.groups if arms.human.get((p, judge)) is not None and p in people]
    if len(labelled) < MIN_CALIBRATION or not pids:
        return none | {"calibration": f"no calibrated Good share: judge {judge} rated {len(labelled)} of the human "
                       f"arm's responses in this folder (the only ones with people's ratings), fewer than "
                       f"{MIN_CALIBRATION}" if pids else "no calibrated Good share: the judge rated no response of "
                       "the model"}  # fmt: skip
    cats = list(RATINGS.values())
    cats.sort()
    h = np.array([people[p] for p in labelled])
    j = np.array([arms.human[(p, judge)] for p in labelled])
    m = np.array([arms.model[(p, judge)] for p in pids])
    good = cats.index(RATINGS["good"])

    def estimate(hh: Any, jj: Any, mm: Any) -> float:
        given = calibration_matrix(jj, hh, cats)  # P(judge | people), rows the people's ratings
        if np.linalg.matrix_rank(given) < len(cats):  # two ratings look alike to the judge: not identified
            return math.nan
        return float(label_shift_shares(mm, given, cats)[good])

    point = estimate(h, j, m)
    if math.isnan(point):
        why = (f"no calibrated Good share: judge {judge}'s ratings of the human arm do not tell the people's three "
               "ratings apart (its confusion matrix is singular), so the people's shares behind its ratings are not "
               "identified")  # fmt: skip
        return none | {"calibrated_on": len(labelled), "calibration": why}
    rng = np.random.default_rng(seed)
    draws = [estimate(h[a], j[a], m[b]) for a, b in
             ((rng.integers(0, len(h), len(h)), rng.integers(0, len(m), len(m))) for _ in range(reps))]  # fmt: skip
    low, high = np.percentile([d for d in draws if not math.isnan(d)], [2.5, 97.5])
    return {"good_model_calibrated": point, "good_model_calibrated_low": float(low),
            "good_model_calibrated_high": float(high), "calibrated_on": len(labelled),
            "calibration": CALIBRATION_RULE}  # fmt: skip


def calibration_rows(run: SampleRun, data_path: Any = None) -> dict[str, dict[str, Any]]:
    """Per judge, :func:`calibrated_good`; the panel's row says why it has none."""
    from ..data import DataError

    arms = arms_of(run)
    try:
        people: dict[str, int] | None = people_ratings(data_path)
        why = ""
    except (DataError, OSError, ValueError, KeyError) as exc:
        people, why = None, f"the study's ratings are not readable here ({exc})"
    out = {judge: calibrated_good(arms, judge, people, why) for judge in arms.judges}
    if len(arms.judges) > 1:
        out["panel"] = dict.fromkeys(CALIBRATION_COLUMNS[:-1]) | {
            "calibration": "no calibrated Good share for the panel: its mean rating is none of the people's "
            "categories (each judge's is above)"
        }
    return out


def score_rows(path: Path, options: CommandOptions) -> list[dict[str, Any]]:
    if is_study_file(path):
        return study_rows(path)
    run = read(path)
    for warning in run.warnings:
        print(f"warning: {clip(f'{path}: {warning}', 1000)}", file=sys.stderr)
    rows = [{"model": run.model, "run_id": run.run_id, **{c: r.get(c) for c in SCORE_COLUMNS}, "file": str(path)}
            for r in score_table(run)]  # fmt: skip
    calibration = calibration_rows(run)
    for row in rows:
        if row["group"] == "all":
            row.update(calibration.get(str(row["judge"]), {}))
    return rows


def score_tables(rows: list[dict[str, Any]]) -> list[Table]:
    """The runs' table, then the study's file's: each where there are rows of its kind."""
    runs = [r for r in rows if r.get("kind") != "study"]
    studies = [r for r in rows if r.get("kind") == "study"]
    return (_runs_tables(runs) if runs else []) + ([_study_table(studies)] if studies else [])


def _study_table(rows: list[dict[str, Any]]) -> Table:
    import pandas as pd

    cols = ["arm", "prompts", "raters", "Bad", "Okay", "Good", "Good share", "mean rating", "rel. Good",
            "rel. mean"]  # fmt: skip
    cells = [[clip(r["model"], 80), str(r["prompts"]), str(r["raters"]), str(r["bad"]), str(r["okay"]),
              str(r["good"]), _cell(r["good_share"], r["good_share_low"], r["good_share_high"]),
              _cell(r["mean_rating"], r["mean_rating_low"], r["mean_rating_high"]),
              _cell(r["rel_good"], r["rel_good_low"], r["rel_good_high"], pct=True),
              _cell(r["rel_mean"], r["rel_mean_low"], r["rel_mean_high"], pct=True)] for r in rows]  # fmt: skip
    note = (f"{TITLE}: the study's own file, each arm rated by people (one rater per response; ratings 1 Bad, 2 "
            "Okay, 3 Good); rel. Good = (Good arm − Good human) / Good human and rel. mean the same of the summed "
            "ratings, paired by prompt; 95 % intervals clustered by rater (part_no: rater k of every arm rated the "
            "10 prompts of part k), delta method, CR1. Published (arXiv 2406.05063): Good 986 human, 1,268 GPT-4, "
            "1,295 GPT-4 with the definition")  # fmt: skip
    return Table(pd.DataFrame(cells, columns=cols), footnote=note, text_columns=1)


def _runs_tables(rows: list[dict[str, Any]]) -> list[Table]:
    """The runs' scores, then each judge's Good share calibrated to people (or why there is none)."""
    import pandas as pd

    cols = ["model", "run_id", "judge", "group", "prompts", "Good model", "Good human", "mean model", "mean human",
            "rel. Good", "p (Holm)"]  # fmt: skip
    cells = [[clip(r["model"], 80), clip(r["run_id"], 80), clip(r["judge"], 80), clip(r["group"], 80),
              str(r["prompts"]), _cell(r["good_model"], r["good_model_low"], r["good_model_high"]),
              _cell(r["good_human"], r["good_human_low"], r["good_human_high"]),
              _cell(r["mean_model"], r["mean_model_low"], r["mean_model_high"]),
              _cell(r["mean_human"], r["mean_human_low"], r["mean_human_high"]),
              r["note"] or _cell(r["rel_good"], r["rel_good_low"], r["rel_good_high"], pct=True),
              _cell(r["p_holm"]) if r["group"] != "all" else _cell(r["p_good"])] for r in rows]  # fmt: skip
    note = (f"{TITLE}: shares of Good and mean ratings (1 Bad, 2 Okay, 3 Good) with 95 % t intervals over prompts "
            "(each prompt's ratings averaged over the judges first); rel. Good = (Good model − Good human) / Good "
            "human under the same judge, paired delta-method interval over prompts; p: paired t test of Good, "
            "Holm-adjusted within the sentiments and within the emotions")  # fmt: skip
    tables = [Table(pd.DataFrame(cells, columns=cols), footnote=note, text_columns=4)]
    judged = [r for r in rows if r["group"] == "all" and r.get("calibration")]
    if judged:
        cal = [[clip(r["model"], 80), clip(r["run_id"], 80), clip(r["judge"], 80), _cell(r["good_model"]),
                _cell(r["good_model_calibrated"], r["good_model_calibrated_low"], r["good_model_calibrated_high"])
                if r["good_model_calibrated"] is not None else r["calibration"],
                str(r["calibrated_on"] or "—")] for r in judged]  # fmt: skip
        said = CALIBRATION_RULE if any(r["good_model_calibrated"] is not None for r in judged) else None
        tables.append(Table(pd.DataFrame(cal, columns=["model", "run_id", "judge", "Good model (judge)",
                                                       "Good model, calibrated to people [95 %]", "human arm"]),
                            footnote=said, text_columns=5))  # fmt: skip
    return tables


def runs(files: Sequence[Path], options: CommandOptions) -> Table:
    import pandas as pd

    rows = []
    for path in files:
        run = read(path)
        top: dict[str, Any] = next((r for r in reversed(score_table(run)) if r["group"] == "all"), {})
        rows.append({"model": run.model, "run_id": run.run_id, "prompts": len(run.header.own.items or ()),
                     "records": len(run.records), "judge": top.get("judge"), "good_model": top.get("good_model"),
                     "good_human": top.get("good_human"), "rel_good": top.get("rel_good"),
                     "started": run.header.started_at, "file": str(path)})  # fmt: skip
    return Table(pd.DataFrame(rows), digits={"good_model": 3, "good_human": 3, "rel_good": 3})


def leaderboard(files: Sequence[Path], options: CommandOptions) -> Table:
    """Each run's panel (or one judge) on all prompts: Good share, mean rating and the relative increase in Good
    over the human arm under the same judges."""
    import pandas as pd

    rows = []
    for path in files:
        run = read(path)
        top = next((r for r in reversed(score_table(run)) if r["group"] == "all"), None)
        if top:
            rows.append({"model": run.model, "judge": top["judge"], "prompts": top["prompts"],
                         "good": top["good_model"], "mean_rating": top["mean_model"], "good_human": top["good_human"],
                         "rel_good": top["rel_good"], "source": f"this run ({run.run_id})"})  # fmt: skip
    cols = ["model", "judge", "prompts", "good", "mean_rating", "good_human", "rel_good", "source"]
    table = pd.DataFrame(rows, columns=cols).sort_values("rel_good", ascending=False, kind="stable")
    return Table(table.reset_index(drop=True), digits={"good": 3, "mean_rating": 3, "good_human": 3, "rel_good": 3})


# ---------------------------------------------------------------- the run viewer

FRAME = FrameSchema(
    NAME,
    ("emotion", "sentiment", "situation", "human_response", "ratings", "score_rating"),
    (("label", "prompt", "text"), ("score_rating", "mean rating", "num"), ("situation", "situation", "text"),
     ("text", "model's response", "text"), ("human_response", "human's response", "text"),
     ("decision", "ratings and reasons", "text")),
    "score_rating",
    "3 − mean rating",
    "emotion",
)  # fmt: skip


def samples(run: SampleRun, prices: Any) -> Any:
    """One row per prompt: the prompt sent, the situation, the model's and the human's responses, and each judge's
    rating and reason for both."""
    from ..data import DataError
    from ..viewer.contract import AttemptCosts, attempt_view, text_or_none

    try:
        known: dict[str, Prompt] | None = {p.id: p for p in read_prompts(None)}
    except (DataError, OSError, ValueError, KeyError):
        known = None
    arms = arms_of(run)
    human = {}
    for judge in arms.judges:
        path = human_arm_path(run.path.parent, judge)
        for (pid, j), att in (_judgements(read_human_arm(path)) if path.exists() else {}).items():
            human[(pid, j)] = att
    judged = _judgements(run.records)
    variant = (run.header.own.sampling or {}).get("prompt", "plain")
    rows = []
    for s in run.records:
        if s.metadata.get("step") != "answer":
            continue
        p = (known or {}).get(s.item)
        lines, ratings = [], []
        for j in arms.judges:
            for arm, att in (("model", judged.get((s.item, j), [])), ("human", human.get((s.item, j), []))):
                r = final_rating(att)
                reason = text_or_none(att[-1].attempts[-1].get("text")) if att and att[-1].attempts else None
                lines.append(f"{j} on the {arm}: {WORDS.get(r) if isinstance(r, int) and r is not True else 'unrated'}"
                             f" — {clip(reason or '', 300)}")  # fmt: skip
                if arm == "model" and isinstance(r, int) and r is not True:
                    ratings.append(r)
        mean = sum(ratings) / len(ratings) if ratings else None
        decision = "; ".join(lines) or "not judged"
        rows.append({
            "item_id": s.item, "key": s.item, "label": f"{s.item} · {s.metadata.get('emotion')}",
            "text": s.answer, "messages": subject_prompt(p, variant) if p else None,
            "prompt_source": "the prompt sent, rebuilt from the study's file" if p else "the study's file is not here",
            "attempts": [attempt_view(a, n, decision, decision, n == len(s.attempts))
                         for n, a in enumerate(s.attempts, 1)],
            "n_attempts": len(s.attempts), "kept_attempt": len(s.attempts) if s.parsed else None,
            "parsed": s.parsed, "decision": decision, "reason": decision,
            "groups": [str(s.metadata.get("emotion", ""))],
            "miss": None if mean is None else 3.0 - mean,
            **AttemptCosts.of(s.attempts).columns(prices), "retried": False, "events": [],
            "emotion": s.metadata.get("emotion"), "sentiment": s.metadata.get("sentiment"),
            "situation": p.situation if p else None, "human_response": p.human if p else None,
            "ratings": decision, "score_rating": mean,
        })  # fmt: skip
    return FRAME.frame(rows)


def summary(run: SampleRun, items: Any, prices: Any) -> RunView:
    from ..viewer.contract import endpoint_text, usage_facts

    h = run.header
    facts = [["model", run.model], ["run id", run.run_id], ["file", Path(run.path).name],
             ["prompt", f"{(h.own.sampling or {}).get('prompt', '?')} ({PROMPT_NOTE})"],
             ["prompts", f"{len(h.own.items or ())}; {len(run.records)} records"],
             ["endpoint", endpoint_text(h)], ["started", shown(h.started_at)]]  # fmt: skip
    facts += usage_facts(items, prices)
    rows = [[r["judge"], r["group"], str(r["prompts"]), _cell(r.get("good_model")), _cell(r.get("good_human")),
             r.get("note") or _cell(r.get("rel_good"), r.get("rel_good_low"), r.get("rel_good_high"), pct=True)]
            for r in score_table(run)]  # fmt: skip
    scores = {
        "caption": "Good shares under each judge and the panel; rel. Good over the human arm (paired interval)",
        "columns": ["judge", "group", "prompts", "Good model", "Good human", "rel. Good"],
        "rows": rows,
    }
    return RunView(f"{run.model} · {run.run_id} ({TITLE})", facts, scores, list(run.warnings))


EMPATHETIC_RESPONDING = Benchmark(
    name=NAME,
    title=TITLE,
    run_options=EmpathyRunOptions,
    run=run,
    score_rows=score_rows,
    score_tables=score_tables,
    features=frozenset({"max_tokens", "reasoning_effort", "batch", "price_in", "price_out", "dry_run"}),
    shared_run_options=frozenset({"limit", "emotions", "judges"})
    | frozenset(f"judge_{n}" for n in ("base_url", "model", "api_key_env", "timeout", "concurrency", "retry_budget",
                                       "max_tokens", "reasoning_effort", "price_in", "price_out", "no_adaptive",
                                       "batch", "poll_interval", "batch_wait", "resubmit_unconfirmed")),
    runs=runs,
    leaderboard=leaderboard,
    read=read,
    run_type=SampleRun,
    samples=samples,
    frame_schemas=(FRAME,),
    summary=summary,
    recognises=recognises,
    formats="eqbench_nb JSON Lines, the study's own data/dataset_and_ratings.csv (three arms of human ratings)",
)  # fmt: skip
