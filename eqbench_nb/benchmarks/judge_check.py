"""Judges against people (issue 47): a judge rates items people have rated, and its ratings are set against theirs.

The run's endpoint **is the judge**: ``run --benchmark judge-check --data kumar --base-url ... --model JUDGE`` (or
``eqbench-nb judge-check`` with the judge options, one run per judge of a panel, then the panel's report). Each
judge's ratings are a run file of their own, ``<judge model>__judge-check-<data>__<run id>.jsonl``, on the one run
lifecycle: dry run, resume, the Batch API (``--batch``: one attempt per item and batch, an unreadable reply asked
again in the next), and a judge joining a panel later rates only its own file's items.

- ``--data welivita-pu``: Welivita & Pu's 6,000 responses (each of 2,000 prompts answered by the ED listener, by
  GPT-4, and by GPT-4 told a definition of empathy), each rated Good / Okay / Bad by one person. ``--sample N``
  takes N prompts, seeded and round the 32 emotions in turn (:func:`~.empathetic_responding.select`), each with
  its three responses. The judge is asked what the raters were asked: the empathetic-responding benchmark's judge
  prompt and reply reader, imported (:func:`~.empathetic_responding.judge_prompt`,
  :func:`~.empathetic_responding.parse_rating`).
- ``--data kumar``: Kumar et al.'s 150 conversations with public text (EmpatheticDialogues, EPITOME, Lend an Ear;
  12 dimensions), each rated by three experts and a crowd. The judge prompts are **this project's**, written from
  the frameworks' published definitions (:mod:`eqbench_nb.empathy_judges.conversations`).

Each item is asked on its own, at temperature 0; an unreadable reply is asked again, up to
:data:`JUDGE_ATTEMPTS` requests in all, then the item is left unrated (never guessed). Every request is one record.

Scores (:func:`report_rows`), per judge and, for several, for the panel (each item's ratings averaged over the
judges): weighted kappa and Spearman against each expert (Kumar) or the one human rating (W&P), 95 % intervals from
a bootstrap over the sampled unit (the conversation; the prompt block of ``part_no``, which is one rater's ten
prompts in every arm), the confusion matrix, and beside them the reference agreement; for Kumar a verdict per
dimension (:data:`VERDICT_RULE`), for W&P the arm bias (:func:`arm_bias`).
"""

from __future__ import annotations

import csv
import functools
import io
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ..runner.errors import RunnerError
from ..runner.header import RunHeader
from ..runner.redact import clip
from ..runner.samples import IDENTITY, Sample, SampleHeader, SampleRun, SampleRunResult, read_sample_run
from ..runner.settings import Endpoint, RunSettings
from ..viewer.contract import FrameSchema, RunView, shown
from . import Benchmark, Report, Table
from . import empathetic_responding as er
from .eqbench3 import JudgeOptions, judges_of
from .options import CommandOptions, RunOptions, option, same_option

NAME = "judge-check"
TITLE = "Judges against people"
DATA = ("welivita-pu", "kumar")
JUDGE_ATTEMPTS = er.JUDGE_ATTEMPTS
TEMPERATURE = 0.0
MAX_TOKENS = {"welivita-pu": er.JUDGE_MAX_TOKENS, "kumar": 400}
#: W&P's three arms, the file's column suffixes (as :data:`eqbench_nb.welivita_pu.study.ARMS`).
ARMS = ("human", "chatgpt", "chatgpt_empathy")
MODEL_ARMS = ARMS[1:]
NO_REFERENCE = "no reference: one human rating per response, no human–human agreement to reach"
VERDICT_RULE = (
    "verdict: the judge's mean kappa over the three experts, with its conversation-bootstrap 95 % interval, against "
    "the three expert pairs' kappas: reaches the expert band when the interval's lower end is at or above the "
    "lowest pair and its upper end at or above their median; below it when the upper end is under the lowest pair; "
    "otherwise cannot tell at this n"
)


@dataclass(frozen=True)
class Item:
    """One rated thing: its id, the messages the judge is sent, what the sample records about it (its cluster,
    arm or framework), and the people's ratings (by rater, by dimension)."""

    id: str
    messages: list[dict[str, str]]
    metadata: Mapping[str, Any]
    people: Mapping[str, Mapping[str, float]]


@dataclass(frozen=True)
class JudgeCheckRunOptions(RunOptions):
    """``run --benchmark judge-check``: whose ratings (``--data``) and, for W&P, a seeded sample of prompts."""

    GROUP: ClassVar[str | None] = "Judges against people (with --benchmark judge-check; the endpoint is the judge)"

    data: str = option("--data", default="kumar", choices=list(DATA),
                       help="the people rated against: Welivita & Pu's 6,000 responses, or Kumar et al.'s 150 "
                       "conversations with public text")  # fmt: skip
    sample: int | None = same_option(er.EmpathyRunOptions, "sample")


@dataclass(frozen=True)
class JudgeCheckJudges(JudgeOptions):
    """``judge-check``'s judges: the judge options of every judged benchmark (a panel by repeating them, or
    ``--judges FILE``)."""


def judges_from(options: JudgeOptions) -> list[Any]:
    """The judges the options name (each a ``JudgeSpec``: its id, None for its model, and its endpoint); a
    ValueError in one line for a count mismatch, both ways at once, or two judges of one name."""
    from ..eqbench3.panel import refuse_duplicate_ids

    specs = judges_of(options)
    refuse_duplicate_ids(s.id or str(s.endpoint.model) for s in specs if s.id or s.endpoint.model)
    return specs


# ---------------------------------------------------------------- items


def _wp_items(data_path: Any, sample: int | None, seed: int | None) -> list[Item]:
    rows = {r["dialog_id"]: r for r in csv.DictReader(io.StringIO(er.FILES.read_text(er.CSV_NAME, data_path)))}
    chosen = er.select(er.read_prompts(data_path), None, sample, None, seed)
    items = []
    for p in chosen:
        row = rows[p.id]
        for arm in ARMS:
            response = row[f"response_{arm}"].strip()
            meta = {"prompt": p.id, "arm": arm, "cluster": row["part_no"], "emotion": p.emotion}
            items.append(Item(f"{p.id}|{arm}", er.judge_prompt(p, response, data_path), meta,
                              {"human": {"rating": float(row[f"rating_{arm}"])}}))  # fmt: skip
    return items


#: Kumar's people each item carries: the three experts, their median and the crowd.
RATERS = ("expert1", "expert2", "expert3", "experts", "crowd")


def _kumar_items(data_path: Any) -> list[Item]:
    return list(_kumar_items_once(None if data_path is None else str(data_path)))


@functools.cache
def _kumar_items_once(data_path: str | None) -> tuple[Item, ...]:
    from ..empathy_judges import conversations as kc
    from ..empathy_judges.tables import FRAMEWORKS, ratings

    items = []
    people: dict[str, Any] = {}
    for framework in kc.TEXT:
        long = ratings(framework, data_path)
        people[framework] = {
            rater: {
                str(k): v
                for k, v in long[long["rater"] == rater]
                .pivot(index="id", columns="dimension", values="rating")
                .to_dict("index")
                .items()
            }
            for rater in RATERS
        }
    for c in kc.conversations(data_path):
        rated = {r: {d: float(v) for d, v in people[c.framework][r].get(c.id, {}).items()} for r in RATERS}
        meta = {"framework": c.framework, "dataset": FRAMEWORKS[c.framework][0], "cluster": c.id}
        items.append(Item(f"{c.framework}|{c.id}", kc.judge_prompt(c), meta, rated))
    return tuple(items)


def items_of(data: str, data_path: Any, sample: int | None, seed: int | None) -> list[Item]:
    """The items of ``data`` (a ValueError naming what is wrong)."""
    if data not in DATA:
        raise ValueError(f"--data: {data!r} is not one of {', '.join(DATA)}")
    if data == "kumar":
        if sample is not None:
            raise ValueError("--sample draws W&P's prompts; Kumar's 150 conversations are rated whole")
        return _kumar_items(data_path)
    return _wp_items(data_path, sample, seed)


def parse(data: str, item_meta: Mapping[str, Any], text: str | None) -> dict[str, float] | None:
    """A reply's ratings: W&P's one rating word (``{"rating": 1-3}``), Kumar's framework dimensions."""
    if data == "welivita-pu":
        r = er.parse_rating(text)
        return None if r is None else {"rating": float(r)}
    from ..empathy_judges.conversations import parse_ratings

    return parse_ratings(text, str(item_meta["framework"]))


def files_sha256(data: str) -> dict[str, str]:
    if data == "welivita-pu":
        return er.files_sha256()
    from ..empathy_judges.files import FILES

    return {n: FILES.sha256(n) or "" for n in FILES.names()}


def upstream(data: str) -> dict[str, Any]:
    if data == "welivita-pu":
        m = er.FILES.manifest()
        return {"repository": m["repository"], "commit": m["commit"],
                "pipeline": f"{er.CSV_NAME}; the judge prompt of empathetic-responding (App.js)"}  # fmt: skip
    from ..empathy_judges.conversations import PROMPT_NOTE
    from ..empathy_judges.files import FILES

    m = FILES.manifest()
    return {"repository": m["repository"], "commit": m["commit"],
            "pipeline": "annotations/<framework>/expert*_ratings.csv; original_data/ texts",
            "prompt_note": PROMPT_NOTE}  # fmt: skip


# ---------------------------------------------------------------- running


def item_key(item_id: str, attempt: int) -> str:
    return f"{item_id}#{attempt}"


def attempts_by_item(records: Sequence[Sample]) -> dict[str, list[Sample]]:
    out: dict[str, list[Sample]] = {}
    for s in records:
        out.setdefault(str(s.metadata.get("item")), []).append(s)
    for held in out.values():
        held.sort(key=lambda s: int(s.metadata.get("attempt", 0)))
    return out


def final(attempts: Sequence[Sample]) -> dict[str, float] | bool | None:
    """The first readable attempt's ratings; None when :data:`JUDGE_ATTEMPTS` were all unreadable (unrated);
    False when more may be asked."""
    for s in attempts:
        if s.answer is not None:
            return {k: float(v) for k, v in s.scores.items() if v is not None}
    return None if len(attempts) >= JUDGE_ATTEMPTS else False


def judge_label(run: SampleRun) -> str:
    """The judge's id: the one a ``--judges`` file gave it, else its model."""
    return str((run.header.own.sampling or {}).get("judge") or run.model)


def run_judge(given: JudgeCheckRunOptions, endpoint: Endpoint, settings: RunSettings,
              judge_id: str | None = None) -> SampleRunResult | Report:  # fmt: skip
    """One judge's run (the module docstring); ``judge_id`` names it (a ``--judges`` file's id)."""
    from ..data import DataError
    from ..runner.session import Task, run_task, sanitise, url_secrets

    endpoint = endpoint.checked()
    url_secrets(endpoint)
    try:
        items = items_of(given.data, settings.data_path, given.sample, settings.seed)
        shas = files_sha256(given.data)
    except (DataError, OSError, KeyError) as exc:
        raise RunnerError(f"{TITLE}: {exc}") from None
    max_tokens = endpoint.max_tokens or MAX_TOKENS[given.data]
    if given.dry_run:
        from ..runner.cost import estimate, token_counter

        est = estimate([i.messages for i in items], 1, max_tokens, token_counter(endpoint.model or ""),
                       endpoint.prices)  # fmt: skip
        return Report("\n".join([f"dry run: nothing sent; {len(items)} items of {given.data} for judge "
                                 f"{judge_id or endpoint.model or '(the endpoint’s model)'}, each asked up to "
                                 f"{JUDGE_ATTEMPTS} times when its reply is unreadable", *est.lines()]))  # fmt: skip
    by_id = {i.id: i for i in items}
    sampling = {"temperature": TEMPERATURE, "max_tokens": max_tokens, "data": given.data,
                **({"judge": judge_id} if judge_id else {})}  # fmt: skip

    def header(conn: Any, rid: str, _others: Any) -> RunHeader[SampleHeader]:
        common = conn.common_fields(rid, endpoint, settings, benchmark=NAME, iterations=1,
                                    upstream=upstream(given.data), reasoning_effort=endpoint.reasoning_effort,
                                    batch=endpoint.batch, api_key_env=endpoint.api_key_env)  # fmt: skip
        return RunHeader.new(common, SampleHeader(items=tuple(by_id), sampling=sampling, files_sha256=shas))

    def jobs(finished: list[Sample]) -> list[tuple[Item, list[Sample]]]:
        held = attempts_by_item(finished)
        return [(i, held.get(i.id, [])) for i in items if final(held.get(i.id, [])) is False]

    def solver(transport: Any, h: RunHeader[SampleHeader]) -> Callable[[Any], Any]:
        model, rid = h.text("model", ""), h.text("run_id", "")

        async def ask(item: Item, n: int) -> Sample:
            done = await transport.complete(item.messages, TEMPERATURE, max_tokens, (), settings.seed)
            got = parse(given.data, item.metadata, done.text)
            return Sample(model, rid, 1, item_key(item.id, n), [done.attempt(TEMPERATURE)],
                          None if got is None else dict(got), dict(got or {}),
                          {**item.metadata, "item": item.id, "attempt": n})  # fmt: skip

        async def solve(job: tuple[Item, list[Sample]]) -> Any:
            item, held = job[0], list(job[1])
            while final(held) is False:
                s = await ask(item, len(held) + 1)
                held.append(s)
                yield s

        async def solve_once(job: tuple[Item, list[Sample]]) -> Sample:
            # through the Batch API one attempt per item and round: an unreadable reply is asked in the next batch
            return await ask(job[0], len(job[1]) + 1)

        return solve_once if endpoint.batch else solve

    selection = f"sample{given.sample}-seed{0 if settings.seed is None else settings.seed}" if given.sample else "all"
    rid = f"{sanitise(judge_id)}-{selection}" if judge_id and judge_id != endpoint.model else selection
    task = Task(
        f"{NAME}-{given.data}",
        rid,
        header,
        _sample_from_json,
        ("benchmark", "model", "iterations", "items", "sampling", "seed", "files_sha256", "reasoning_effort"),
        IDENTITY,
        jobs,
        len(items),
        solver,
        lambda s: (s.parsed, None),
        desc=TITLE,
        read=read,
        summarise=lambda r: summary_text([r]),
        score_label="rated",
        score_scale=1.0,
        batch_key=lambda job: item_key(job[0].id, len(job[1]) + 1),  # the attempt in it: a new request each round
        extendable=("items",),
        item_noun="items",
        key_owner="judge",
    )
    result = run_task(endpoint, settings, task, JudgeCheckResult)
    for _ in range(JUDGE_ATTEMPTS - 1):  # the Batch API's rounds: the unreadable replies of one asked in the next
        if not (endpoint.batch and result.complete and jobs(list(result.run.records))):
            break
        print("note: asking the unreadable replies again, in a batch of their own", file=sys.stderr)
        result = run_task(endpoint, settings, task, JudgeCheckResult)
    return result


def run(given: JudgeCheckRunOptions, endpoint: Endpoint, settings: RunSettings) -> SampleRunResult | Report:
    return run_judge(given, endpoint, settings)


class JudgeCheckResult(SampleRunResult):
    """A judge's run: its file, its agreement summary, and the requests."""

    @property
    def complete(self) -> bool:  # an item asked again holds several records: done when no item is left to ask
        return not self.unfinished

    def table(self, timing: bool = True) -> str:
        """The declared run's table, its records line counting requests against items (a reply asked again is a
        record of its own, so records may outnumber the items)."""
        lines = super().table(timing).split("\n")
        head = f"records    {len(self.run.records)} of {self.expected} ("
        return "\n".join(
            line.replace(head, f"records    {len(self.run.records)} for {self.expected} items (", 1) for line in lines
        )


def _sample_from_json(obj: dict[str, Any]) -> Sample:
    from ..runner.samples import sample_from_json

    return sample_from_json(obj)


def read(path: Path) -> SampleRun:
    return read_sample_run(path, NAME, TITLE)


def data_of(run: SampleRun) -> str:
    data = (run.header.own.sampling or {}).get("data")
    if data not in DATA:
        raise ValueError(f"{run.path}: its header names no data this version knows ({data!r})")
    return str(data)


# ---------------------------------------------------------------- scores


def ratings_of(run: SampleRun) -> dict[str, dict[str, float]]:
    """Item id -> the judge's ratings (items left unrated or not yet asked are absent)."""
    out = {}
    for item, attempts in attempts_by_item(run.records).items():
        got = final(attempts)
        if isinstance(got, dict):
            out[item] = got
    return out


def panels(runs: Sequence[SampleRun]) -> list[tuple[str, dict[str, dict[str, float]]]]:
    """Each judge's ratings, and with two or more the panel's: each item's mean over the judges that rated it."""
    judges = [(judge_label(r), ratings_of(r)) for r in runs]
    if len(judges) < 2:
        return judges
    panel: dict[str, dict[str, float]] = {}
    for item in dict.fromkeys(i for _, rs in judges for i in rs):
        got = [rs[item] for _, rs in judges if item in rs]
        panel[item] = {d: sum(g[d] for g in got) / len(got) for d in got[0]}
    return [*judges, ("panel", panel)]


def _agreement_row(judge: str, dimension: str, against: str, a: Any) -> dict[str, Any]:
    return {"judge": judge, "dimension": dimension, "against": against, "n": a.n, "clusters": a.clusters,
            "kappa": a.kappa, "kappa_low": a.kappa_low, "kappa_high": a.kappa_high, "spearman": a.spearman,
            "spearman_low": a.spearman_low, "spearman_high": a.spearman_high,
            "confusion": {"categories": list(a.categories), "counts": [list(r) for r in a.confusion]}}  # fmt: skip


def kumar_rows(judge: str, rated: Mapping[str, Mapping[str, float]], items: Sequence[Item],
               reps: int, data_path: Any = None) -> list[dict[str, Any]]:  # fmt: skip
    """Per dimension: the judge against each expert, against the experts' median (the paper's comparison), and
    the verdict row (:data:`VERDICT_RULE`), each beside the expert band and the crowd's kappa from the project's
    re-derived tables."""
    from ..analysis.judge_vs_people import agreement, mean_kappa_interval
    from ..empathy_judges.tables import FRAMEWORKS, verdict

    bands, crowd = _reference(None if data_path is None else str(data_path))
    rows = []
    for framework in dict.fromkeys(str(i.metadata["framework"]) for i in items):
        mine = [i for i in items if i.metadata["framework"] == framework]
        for dim in FRAMEWORKS[framework][2]:
            judged = [rated.get(i.id, {}).get(dim, math.nan) for i in mine]
            clusters = [i.id for i in mine]
            band = bands[dim]
            ref = {"dataset": FRAMEWORKS[framework][0], "expert_median": band.median, "expert_low": band.low,
                   "expert_high": band.high, "crowd_kappa": crowd.get(dim)}  # fmt: skip
            experts = []
            for rater in ("expert1", "expert2", "expert3", "experts"):
                person = [i.people[rater].get(dim, math.nan) for i in mine]
                experts.append(person)
                a = agreement(person, judged, clusters, reps)
                label = "experts' median" if rater == "experts" else rater
                rows.append(ref | _agreement_row(judge, dim, label, a))
            mean, low, high = mean_kappa_interval(experts[:3], judged, clusters, reps)
            rated_n = sum(not math.isnan(v) for v in judged)
            rows.append(ref | {"judge": judge, "dimension": dim, "against": "mean of the three experts",
                               "n": rated_n, "clusters": rated_n, "kappa": mean, "kappa_low": low,
                               "kappa_high": high, "verdict": verdict(low, high, band)})  # fmt: skip
    return rows


@functools.cache
def _reference(data_path: str | None) -> tuple[dict[str, Any], dict[str, float]]:
    """Per dimension, the expert band and the experts–crowd kappa, from the project's re-derived tables (read
    once a process: they take seconds)."""
    from ..empathy_judges.tables import PAIRS, expert_bands, rederived

    table = rederived(data_path)
    crowd = {str(r["Dimension"]): float(r["Weighted Cohen's Kappa"]) for r in table.to_dict("records")
             if r["Annotator Pair"] == str(PAIRS[1])}  # fmt: skip
    return expert_bands(table), crowd


def arm_bias(rated: Mapping[str, Mapping[str, float]], items: Sequence[Item]) -> list[dict[str, Any]]:
    """Does the judge favour GPT-4's responses over people's more than people did? Per prompt whose three
    responses it rated: (judge − human rating) on a GPT-4 arm minus the same on the human arm; its mean over the
    prompts with a 95 % interval clustered by ``part_no`` (paired by prompt, one rater's block per cluster), per
    GPT-4 arm and for both together (each prompt's two GPT-4 differences averaged first)."""
    from ..analysis.clustered import clustered_mean

    diff: dict[str, dict[str, float]] = {}
    cluster: dict[str, str] = {}
    for i in items:
        if i.id in rated:
            pid = str(i.metadata["prompt"])
            diff.setdefault(pid, {})[str(i.metadata["arm"])] = rated[i.id]["rating"] - i.people["human"]["rating"]
            cluster[pid] = str(i.metadata["cluster"])
    full = [p for p, d in diff.items() if all(a in d for a in ARMS)]
    rows = []
    for label, arms in (("chatgpt − human", ("chatgpt",)), ("chatgpt_empathy − human", ("chatgpt_empathy",)),
                        ("GPT-4 (both arms) − human", MODEL_ARMS)):  # fmt: skip
        values = [sum(diff[p][a] for a in arms) / len(arms) - diff[p]["human"] for p in full]
        if len(values) < 2:
            rows.append({"arms": label, "prompts": len(values), "bias": None, "low": None, "high": None})
            continue
        est = clustered_mean(values, [cluster[p] for p in full])
        rows.append({"arms": label, "prompts": len(values), "bias": est.estimate, "low": est.low, "high": est.high,
                     "clusters": est.clusters})  # fmt: skip
    return rows


def wp_rows(judge: str, rated: Mapping[str, Mapping[str, float]], items: Sequence[Item],
            reps: int) -> list[dict[str, Any]]:  # fmt: skip
    """The judge against the one human rating of each response, on all responses and per arm, with the Good
    shares of both beside; then the arm bias rows."""
    from ..analysis.judge_vs_people import agreement

    rows = []
    for group in ("all", *ARMS):
        mine = [i for i in items if group == "all" or i.metadata["arm"] == group]
        person = [i.people["human"]["rating"] for i in mine]
        judged = [rated.get(i.id, {}).get("rating", math.nan) for i in mine]
        a = agreement(person, judged, [i.metadata["cluster"] for i in mine], reps)
        both = [(p, j) for p, j in zip(person, judged, strict=True) if not math.isnan(j)]
        row = _agreement_row(judge, f"rating ({group})", "the one human rating", a)
        row |= {"good_human": sum(p == 3 for p, _ in both) / len(both) if both else None,
                "good_judge": sum(j == 3 for _, j in both) / len(both) if both else None,
                "verdict": NO_REFERENCE}  # fmt: skip
        rows.append(row)
    rows += [{"judge": judge, "kind": "arm bias", **r} for r in arm_bias(rated, items)]
    return rows


def report_rows(runs: Sequence[SampleRun], reps: int | None = None, data_path: Any = None) -> list[dict[str, Any]]:
    """Every judge's rows and the panel's, for runs of one ``data`` over the same items (a ValueError otherwise)."""
    from ..analysis.judge_vs_people import REPS

    datas = {data_of(r) for r in runs}
    if len(datas) != 1:
        raise ValueError(f"{TITLE}: runs of {' and '.join(sorted(datas))} cannot be reported together")
    data = datas.pop()
    wanted = {i for r in runs for i in (r.header.own.items or ())}
    items = [i for i in items_of(data, data_path, None, None) if i.id in wanted]
    rows = []
    for judge, rated in panels(runs):
        made = kumar_rows(judge, rated, items, reps or REPS, data_path) if data == "kumar" else wp_rows(
            judge, rated, items, reps or REPS)  # fmt: skip
        rows += [{"data": data, "kind": "agreement", **r} for r in made]
    return rows


def _number(v: float) -> str:
    return f"{round(v, 3) + 0.0:.3f}"  # + 0.0: a value that rounds to zero prints as 0.000, never -0.000


def _cell(v: Any, low: Any = None, high: Any = None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if low is None or high is None or any(isinstance(x, float) and math.isnan(x) for x in (low, high)):
        return _number(v)
    return f"{_number(v)} [{_number(low)}, {_number(high)}]"


def tables(rows: Sequence[Mapping[str, Any]]) -> list[Table]:
    """The agreement table (and, for W&P, the arm bias table) as the terminal shows them."""
    import pandas as pd

    agree = [r for r in rows if r.get("kind") == "agreement"]
    out = []
    if agree:
        kumar = agree[0]["data"] == "kumar"
        cols = ["judge", "dimension", "against", "n", "kappa [95 %]", "Spearman [95 %]"]
        cols += ["expert band: median [low, high]", "crowd kappa", "verdict"] if kumar else ["Good human", "Good judge"]
        cells = []
        for r in agree:
            line = [clip(r["judge"], 60), r["dimension"], r["against"], str(r["n"]),
                    _cell(r["kappa"], r.get("kappa_low"), r.get("kappa_high")),
                    _cell(r.get("spearman"), r.get("spearman_low"), r.get("spearman_high"))]  # fmt: skip
            if kumar:
                band = f"{r['expert_median']:.2f} [{r['expert_low']:.2f}, {r['expert_high']:.2f}]"
                line += [band, _cell(r.get("crowd_kappa")), r.get("verdict") or ""]
            else:
                line += [_cell(r.get("good_human")), _cell(r.get("good_judge"))]
            cells.append(line)
        note = ("weighted kappa (Kumar et al.'s rule: categories the values either side used, quadratic weights by "
                "position) and Spearman, 95 % intervals from a bootstrap over the sampled unit ("
                + ("the conversation); reference: the expert pairs' kappas and the experts–crowd kappa, from the "
                   "project's re-derived tables; " + VERDICT_RULE if kumar else
                   "part_no: one rater's block of ten prompts in every arm); W&P has one rating per response, so "
                   "there is no human–human agreement to reach") + "; confusion matrices: --format json")  # fmt: skip
        out.append(Table(pd.DataFrame(cells, columns=cols), footnote=note, text_columns=3))
    bias = [r for r in rows if r.get("kind") == "arm bias"]
    if bias:
        cells = [[clip(r["judge"], 60), r["arms"], str(r["prompts"]), _cell(r["bias"], r["low"], r["high"])]
                 for r in bias]  # fmt: skip
        note = (
            "arm bias: per prompt, (judge − human rating) on the GPT-4 response minus the same on the human "
            "response (ratings 1 Bad, 2 Okay, 3 Good); mean over prompts, 95 % interval clustered by part_no "
            "(paired by prompt); above 0: the judge favours GPT-4's responses more than people did"
        )
        out.append(Table(pd.DataFrame(cells, columns=["judge", "arms", "prompts", "bias [95 %]"]), footnote=note,
                         text_columns=2))  # fmt: skip
    return out


def summary_text(runs: Sequence[SampleRun]) -> str:
    """Each judge's items rated, for the run's closing table (the full report is ``score`` and ``judge-check``)."""
    lines = []
    for r in runs:
        rated = ratings_of(r)
        lines.append(f"judge {judge_label(r)}: {len(rated)} of {len(r.header.own.items or ())} items rated "
                     f"({data_of(r)}); `eqbench-nb score {r.path}` sets them against the people")  # fmt: skip
    return "\n".join(lines)


def score_rows(path: Path, options: CommandOptions) -> list[dict[str, Any]]:
    run = read(path)
    for warning in run.warnings:
        print(f"warning: {clip(f'{path}: {warning}', 1000)}", file=sys.stderr)
    from ..data import DataError
    from ..runner.runfile import RunFormatError

    try:
        rows = report_rows([run])
    except DataError as exc:  # the people's ratings are not here: the file is named, the others still scored
        raise RunFormatError(path, f"cannot set the judge against the people ({exc})") from None
    return [{"model": run.model, "run_id": run.run_id, **r, "file": str(path)} for r in rows]


def score_tables(rows: list[dict[str, Any]]) -> list[Table]:
    return tables(rows)


def runs(files: Sequence[Path], options: CommandOptions) -> Table:
    import pandas as pd

    rows = []
    for path in files:
        run = read(path)
        rows.append({"judge": judge_label(run), "model": run.model, "data": data_of(run),
                     "items": len(run.header.own.items or ()), "rated": len(ratings_of(run)),
                     "records": len(run.records), "started": run.header.started_at, "file": str(path)})  # fmt: skip
    return Table(pd.DataFrame(rows))


# ---------------------------------------------------------------- the run viewer

FRAME = FrameSchema(
    NAME,
    ("arm", "framework", "ratings", "people", "score_agreement"),
    (("label", "item", "text"), ("score_agreement", "agreement", "num"), ("ratings", "judge's ratings", "text"),
     ("people", "people's ratings", "text"), ("text", "reply", "text")),
    "score_agreement",
    "1 − agreement",
    "framework",
)  # fmt: skip


def samples(run: SampleRun, prices: Any) -> Any:
    """One row per item: the messages sent, each attempt, the judge's ratings beside the people's, and the share
    of dimensions where the judge gave exactly a reference rater's rating (the first expert, or the human)."""
    from ..data import DataError
    from ..viewer.contract import AttemptCosts, attempt_view, text_or_none

    data = data_of(run)
    try:
        known: dict[str, Item] | None = {i.id: i for i in items_of(data, None, None, None)}
    except (DataError, OSError, ValueError, KeyError):
        known = None
    rows = []
    for item_id, attempts in attempts_by_item(run.records).items():
        got = final(attempts)
        item = (known or {}).get(item_id)
        ref = None if item is None else item.people.get("human" if data == "welivita-pu" else "expert1")
        mine = got if isinstance(got, dict) else {}
        same = [mine[d] == v for d, v in (ref or {}).items() if d in mine]
        decision = "; ".join(f"{d} {shown(v)}" for d, v in mine.items()) or "unrated"
        first = attempts[0].metadata
        rows.append({
            "item_id": item_id, "key": item_id, "label": item_id, "text": text_or_none(
                attempts[-1].attempts[-1].get("text")) if attempts[-1].attempts else None,
            "messages": item.messages if item else None,
            "prompt_source": "the prompt sent, rebuilt from the study's files" if item else "the files are not here",
            "attempts": [attempt_view(s.attempts[-1], n, decision, decision, n == len(attempts))
                         for n, s in enumerate(attempts, 1) if s.attempts],
            "n_attempts": len(attempts), "kept_attempt": next((n for n, s in enumerate(attempts, 1) if s.parsed), None),
            "parsed": isinstance(got, dict), "decision": decision, "reason": decision,
            "groups": [str(first.get("framework") or first.get("arm") or "")],
            "miss": None if not same else 1 - sum(same) / len(same),
            **AttemptCosts.of([a for s in attempts for a in s.attempts]).columns(prices), "retried": len(attempts) > 1,
            "events": [], "arm": first.get("arm"), "framework": first.get("framework"), "ratings": decision,
            "people": "; ".join(f"{r}: " + ", ".join(f"{d} {shown(v)}" for d, v in p.items())
                                for r, p in (item.people.items() if item else ())),
            "score_agreement": None if not same else sum(same) / len(same),
        })  # fmt: skip
    return FRAME.frame(rows)


def summary(run: SampleRun, items: Any, prices: Any) -> RunView:
    from ..viewer.contract import endpoint_text, usage_facts

    h = run.header
    facts = [["judge", judge_label(run)], ["model", run.model], ["run id", run.run_id], ["file", Path(run.path).name],
             ["data", data_of(run)], ["items", f"{len(h.own.items or ())}; {len(run.records)} records"],
             ["endpoint", endpoint_text(h)], ["started", shown(h.started_at)]]  # fmt: skip
    up = h.upstream if isinstance(h.upstream, dict) else {}
    if up.get("prompt_note"):
        facts.append(["prompts", str(up["prompt_note"])])
    facts += usage_facts(items, prices)
    from ..data import DataError

    warnings = list(run.warnings)
    try:
        report = report_rows([run])
    except DataError as exc:
        report, warnings = [], [*warnings, f"no agreement shown: the people's ratings are not readable here ({exc})"]
    rows = [[r["dimension"], r["against"], str(r["n"]), _cell(r["kappa"], r.get("kappa_low"), r.get("kappa_high")),
             r.get("verdict") or ""] for r in report if r.get("kind") == "agreement"]  # fmt: skip
    scores = {"caption": "weighted kappa against the people, 95 % cluster-bootstrap interval",
              "columns": ["dimension", "against", "n", "kappa", "verdict"], "rows": rows}  # fmt: skip
    return RunView(f"{judge_label(run)} · {run.run_id} ({TITLE})", facts, scores, warnings)


def is_run_file(path: Path) -> bool:
    from ..runner.runfile import header_benchmark

    return header_benchmark(path) == NAME  # remembered per file version (runner/looks.py)


JUDGE_CHECK = Benchmark(
    name=NAME,
    title=TITLE,
    run_options=JudgeCheckRunOptions,
    run=run,
    score_rows=score_rows,
    score_tables=score_tables,
    features=frozenset({"max_tokens", "reasoning_effort", "batch", "price_in", "price_out", "dry_run"}),
    shared_run_options=frozenset({"sample"}),
    runs=runs,
    read=read,
    run_type=SampleRun,
    samples=samples,
    frame_schemas=(FRAME,),
    summary=summary,
    recognises=is_run_file,
)
