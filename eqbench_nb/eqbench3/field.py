"""``leaderboard`` over EQ-Bench 3 runs: the field, its stored judgements, the missing ones asked, the standings.

- **The field**: this project's runs (each its model), and with ``canonical`` upstream's first canonical field (its
  Elo file's 6,452 judgements and ratings, pinned at ``8c3a125``, and its runs file of transcripts, needed only to
  judge new pairs: downloaded from that commit and checked against its git blob id, or a path).
- **Stored judgements**: the judgements file (``eqbench3-pairwise``: one record per judgement and order, the judge's
  raw text in every attempt), and the canonical file's.
- **Asking** (``ask``): each run in the order given is placed among the rest as upstream places a new model
  (:mod:`.placement`: stage 1's anchors, then the neighbours, round by round); each round's judgements go through
  the runner with the judge's endpoint, every one written and fsynced as it arrives, so a killed ``leaderboard
  --judge`` resumes without paying twice. A run whose judgements are all stored asks nothing.
- **A panel** (several judges, :mod:`.panel`): the first judge of the command places the runs as above; then every
  other judge of the command is asked each judgement (pair, scenario, iteration and order) that some judge of the
  file holds and it lacks, so every judge judges the same pairs and a judge that joins asks only what it lacks.
- **Standings** (:func:`.league.standings`): the scoring version's final solve, normalised when the anchors are in
  the field, with the scenario-cluster bootstrap interval and separability (:func:`.league.elo_interval`); with a
  panel, each judge's (its judgements and the canonical file's, its own interval) and the pooled panel's.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._version import __version__
from ..analysis.stats import DEFAULT_LEVEL
from ..output_paths import refuse_output_over_inputs
from ..runner.endpoint import NO_KEY
from ..runner.errors import RunnerError
from ..runner.header import RunHeader, file_benchmark
from ..runner.loop import run_coroutine
from ..runner.session import Connection, RunPlan, connect, execute, url_secrets
from ..runner.settings import Endpoint, RunSettings
from . import files, panel, prompts, steps
from .canonical import read_canonical
from .contenders import Contender, from_run, from_upstream_runs
from .header import PairwiseHeader
from .league import DEFAULT_ELO_REPS, interval_caption, standings
from .pairwise import pairwise_template
from .placement import Judgement, Placement
from .rating import DEFAULT_ELO
from .runs import (
    BENCHMARK,
    JOINABLE,
    PAIRWISE_BENCHMARK,
    PAIRWISE_IDENTITY,
    PairRecord,
    is_pairwise_file,
    pair_from_json,
    pair_key,
    read_eq3_run,
    read_pairwise,
)
from .scenarios import load_notes, load_scenarios
from .summary import summarise_run
from .versions import DEFAULT_VERSION, FIRST_CANONICAL, ScoringVersion, scoring_version

if TYPE_CHECKING:
    import pandas as pd

JUDGEMENTS_FILE = "eqbench3-judgements.jsonl"
CANONICAL_RUNS = "canonical_leaderboard_results_8c3a125.json.gz"
PAIRWISE_FILES = ("pairwise_prompt_eqbench3.txt", "pairwise_prompt_eqbench3_analysis.txt", "scenario_notes.txt")
SETTINGS_KEYS = ("benchmark", "judge", "scoring_version", "files_sha256")


@dataclass
class Field:
    contenders: dict[str, Contender]
    runs: list[str]  # the names of this project's runs, in the order given
    comparisons: list[dict[str, Any]]  # every judge's (and the canonical file's)
    ratings: dict[str, float]  # a starting ladder (the canonical file's ratings; the others at 1200)
    rubric: dict[str, float | None]
    version: ScoringVersion
    judged: list[PairRecord] = dataclasses.field(default_factory=list)  # the judgements files' records
    canonical: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # the canonical file's comparisons

    def comparisons_of(self, judge: str) -> list[dict[str, Any]]:
        """One judge's comparisons, after the canonical file's (what that judge's placement and standings read)."""
        return self.canonical + [r.comparison(self.version) for r in self.judged if r.judge == judge]

    @property
    def judges(self) -> list[str]:
        """The judges of the judgements files, in the order they first appear."""
        return list(dict.fromkeys(r.judge for r in self.judged))


def _name(model: str, taken: set[str], run_id: str) -> str:
    return model if model not in taken else f"{model}@{run_id}"


def load_field(paths: Sequence[Path], judgements: Path, scoring: str | None, canonical: str | None) -> Field:
    """The field of ``paths`` (run files, judgements files, a canonical Elo file) with ``canonical`` (a runs file
    path, or ``download``)."""
    scenarios = {s.id: s for s in load_scenarios()}
    templates = prompts.load_templates()
    contenders: dict[str, Contender] = {}
    runs: list[str] = []
    rubric: dict[str, float | None] = {}
    comparisons: list[dict[str, Any]] = []
    ratings: dict[str, float] = {}
    judged_files = [judgements] if judgements.is_file() else []
    header_version = None
    elo_files: list[Path] = []
    for path in paths:
        kind = file_benchmark(path)
        if kind == BENCHMARK:
            run = read_eq3_run(path)
            name = _name(run.model, set(contenders), run.run_id)
            contenders[name] = from_run(run, scenarios, templates, name)
            runs.append(name)
            rubric[name] = summarise_run(run).score
        elif kind == PAIRWISE_BENCHMARK:
            if path.resolve() != judgements.resolve():
                judged_files.append(path)
        else:
            elo_files.append(path)
    if canonical is not None:
        if not elo_files:  # the pinned first canonical Elo file, unless an Elo file of the field is given
            elo_files.append(files.locate(files.CANONICAL_ELO_8C3A125))
        source = files.locate(CANONICAL_RUNS) if canonical == "download" else Path(canonical)
        upstream = _read_json(source)
        for name, c in from_upstream_runs(upstream, str(source)).items():
            if name in contenders:
                raise RunnerError(f"model name {name!r} is in the canonical field too; give the run another model name")
            contenders[name] = c
    for path in elo_files:
        elo = read_canonical(path)
        comparisons += elo.comparisons
        for m, r in elo.ratings.items():
            ratings.setdefault(m, r["elo"])
        header_version = header_version or FIRST_CANONICAL.name
    for path in judged_files:
        judged = read_pairwise(path)
        header_version = judged.header.own.scoring_version or header_version
    version = scoring_version(scoring or header_version or DEFAULT_VERSION)
    canonical_comparisons = list(comparisons)
    records = [r for path in judged_files for r in read_pairwise(path).records]
    comparisons += [r.comparison(version) for r in records]
    for name in contenders:
        ratings.setdefault(name, DEFAULT_ELO)
    return Field(contenders, runs, comparisons, ratings, rubric, version, records, canonical_comparisons)


def _read_json(path: Path) -> Any:
    raw = path.read_bytes()
    try:
        return json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    except (OSError, EOFError, ValueError, RecursionError) as exc:
        raise RunnerError(f"{path}: not readable JSON ({type(exc).__name__})") from None


def judgements_header(
    judge_model: str,
    endpoint: str | None,
    version: ScoringVersion,
    judges: list[dict[str, Any]] | None = None,
    local: bool = False,
    api_key_env: str | None = None,
) -> dict[str, Any]:
    """A judgements file's header: its first judge (``judge``, as before panels) and the panel (``judges``);
    ``judge_api_key_env`` the variable the first judge's key is in (a name, never the key)."""
    return {
        "benchmark": PAIRWISE_BENCHMARK,
        "judge": judge_model,
        "judges": judges or [],
        "run_id": "judgements",
        "judge_endpoint": endpoint,
        "judge_local_model": local,
        "scoring_version": version.name,
        "eqbench_nb_version": __version__,
        "upstream": {"repository": files.manifest()["repository"], "commit": version.commit},
        "files_sha256": {name: files.sha256(name) for name in PAIRWISE_FILES},
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "judge_api_key_env": api_key_env,
    }


def _key(j: Judgement, judge: str) -> tuple[int, str]:
    return pair_key(judge, int(j.iteration), j.scenario_id, j.test, j.other, j.order)


def lacking_judgements(records: Sequence[PairRecord], judge: str, judgeable: Any) -> list[Judgement]:
    """The judgements (pair, scenario, iteration, order) some judge of ``records`` made and ``judge`` lacks, among
    those ``judgeable(judgement)`` allows (both transcripts at hand), in file order."""
    have = {_key(_judgement(r), judge) for r in records if r.judge == judge}
    out: dict[tuple[int, str], Judgement] = {}
    for r in records:
        j = _judgement(r)
        k = _key(j, judge)
        if k not in have and k not in out and judgeable(j):
            out[k] = j
    return list(out.values())


def _judgement(r: PairRecord) -> Judgement:
    return Judgement(test=r.test, other=r.other, scenario_id=r.scenario_id, iteration=str(r.iteration), order=r.order)


@dataclass(frozen=True)
class _Asker:
    """One judge of the command, connected: its id, endpoint, connection, system message and token limit."""

    id: str
    endpoint: Endpoint
    conn: Connection
    system: tuple[dict[str, str], ...]
    max_tokens: int

    def judge(self, transport: Any) -> steps.Judge:
        return steps.Judge(transport, self.id, self.system, self.max_tokens)


def _file_panel(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    try:
        return read_pairwise(path).panel
    except (OSError, ValueError):
        return []


def ask_missing(
    field: Field,
    judge: Endpoint | panel.JudgeSpec | Sequence[Endpoint | panel.JudgeSpec],
    judgements: Path,
    settings: RunSettings,
) -> tuple[list[str], dict[str, float]]:
    """Place each run of the field among the rest, asking the command's first judge for every judgement upstream's
    placement would ask that the judgements file lacks; then ask each other judge of the command what it lacks of
    the file's judgements (module docstring); (one line per placement and judge, the ladder it ended on)."""
    given = [judge] if isinstance(judge, (Endpoint, panel.JudgeSpec)) else list(judge)
    specs = [g if isinstance(g, panel.JudgeSpec) else panel.JudgeSpec(None, g) for g in given]
    specs = [panel.JudgeSpec(s.id, s.endpoint.checked("judge-")) for s in specs]
    if len(specs) > 1 and any(s.id is None and s.endpoint.model is None for s in specs):
        raise RunnerError("name each judge of a panel (--judge-model, or a --judges file's model or id)")
    for spec in specs:
        url_secrets(spec.endpoint)
    scenarios = {s.id: s for s in load_scenarios()}
    notes = load_notes()
    templates = {kind: pairwise_template(kind) for kind in ("roleplay", "analysis")}
    ready = {name: c.ready for name, c in field.contenders.items()}
    log: list[str] = []
    ratings = dict(field.ratings)
    with ExitStack() as stack:
        askers = []
        for spec in specs:
            conn = connect(stack, spec.endpoint)
            system = tuple(prompts.system_messages(spec.endpoint.base_url, conn.model))
            max_tokens = spec.endpoint.max_tokens or steps.rubric.JUDGE_MAX_TOKENS
            askers.append(_Asker(spec.id or conn.model, spec.endpoint, conn, system, max_tokens))
        panel.refuse_duplicate_ids(a.id for a in askers)
        asked = [panel.panel_entry(a.id, a.conn.model, a.conn.endpoint, a.endpoint, a.max_tokens, a.conn.local,
                                  a.conn.api_key != NO_KEY)
                 for a in askers]  # fmt: skip
        judges = panel.merge_panel(_file_panel(judgements), asked)
        first = judges[0]
        # the first judge's key variable: a name, never the key (redacted, each judge's too)
        header = judgements_header(first["model"], first["endpoint"], field.version, judges, bool(first.get("local")),
                                   first.get("api_key_env"))  # fmt: skip
        context = (field, settings, judgements, header, judges, scenarios, notes, templates)
        lead = askers[0]
        seen = field.comparisons_of(lead.id)  # one list: each placement adds its judgements for the next to see
        for name in field.runs:
            placement = Placement(name, dict(ratings), ready, seen, field.version)
            count = 0
            while (asks := placement.next_round()) is not None:
                new = _ask_round(asks, lead, context)
                count += len(new)
                placement.record(new)
            ratings = placement.ratings
            log.append(f"{name}: {count} judgements asked now ({'; '.join(placement.log) or 'nothing to ask'})")
        if len(askers) > 1:
            records = read_pairwise(judgements).records if judgements.is_file() else []

            def judgeable(j: Judgement) -> bool:
                return all(
                    m in field.contenders and (j.iteration, j.scenario_id) in field.contenders[m].transcripts
                    for m in (j.test, j.other)
                ) and j.scenario_id in scenarios  # fmt: skip

            for asker in askers[1:]:
                lack = lacking_judgements(records, asker.id, judgeable)
                unseen = len(lacking_judgements(records, asker.id, lambda j: True)) - len(lack)
                new = _ask_round(lack, asker, context)
                log.append(
                    f"judge {asker.id}: {len(new)} judgements asked now, of {len(lack)} it lacked"
                    + (f"; {unseen} more it lacks need a transcript not given here" if unseen else "")
                )
    return log, ratings


def _ask_round(asks: list[Judgement], asker: _Asker, context: tuple) -> list[dict[str, Any]]:
    """Ask one judge one round's judgements through the runner (those the file lacks); the comparisons the file has
    gained."""
    field, settings, path, header, judges, scenarios, notes, templates = context
    if not asks:
        return []
    wanted = {_key(j, asker.id): j for j in asks}
    before = {r.key for r in read_pairwise(path).records} if path.is_file() else set()

    def solver(transport: Any, file_header: RunHeader[Any]) -> Any:
        bound = asker.judge(transport)

        async def solve(j: Judgement) -> PairRecord:
            scenario = scenarios[j.scenario_id]
            test = (j.test, field.contenders[j.test].transcripts[(j.iteration, j.scenario_id)])
            other = (j.other, field.contenders[j.other].transcripts[(j.iteration, j.scenario_id)])
            template = templates["analysis" if scenario.kind == "analysis" else "roleplay"]
            return await steps.judge_pair(
                bound, file_header.text("run_id", ""), template, scenario, notes, int(j.iteration), test, other,
                j.order, field.version,
            )  # fmt: skip

        return solve

    place = panel.label_of(judges, asker.id)
    plan: RunPlan[Judgement] = RunPlan(
        path,
        RunHeader.read(header, PairwiseHeader),
        pair_from_json,
        SETTINGS_KEYS,
        PAIRWISE_IDENTITY,
        lambda finished: [j for k, j in wanted.items() if k not in {r.key for r in finished}],
        len(wanted),
        solver,
        lambda r: (r.verdict is not None, None),
        desc=f"{asker.id} judging",
        joinable=JOINABLE,
        endpoint_label=None if place == "judge" else place,  # the first judge's as before panels: ``deviations``
        item_noun="judgements",
        key_owner=place,
        option_prefix="judge-",
        batch_key=pair_batch_key,  # with --judge-batch: each round's judgements as one batch
    )
    run_coroutine(lambda: execute(asker.conn, asker.endpoint, settings, plan))
    stored = {r.key: r for r in read_pairwise(path).records}
    return [stored[k].comparison(field.version) for k in wanted if k in stored and k not in before]


def pair_batch_key(j: Judgement) -> str:
    """A judgement's name in the Batch API's custom ids: its iteration and scenario, and a digest of its pair and
    order (model names may hold any character)."""
    import hashlib

    digest = hashlib.sha256(json.dumps([j.test, j.other, j.order]).encode()).hexdigest()[:12]
    return f"{j.iteration}-{j.scenario_id}-{digest}"


def leaderboard_table(
    paths: Sequence[Path],
    judgements: str | os.PathLike | None = None,
    ask: bool = False,
    judge: Endpoint | panel.JudgeSpec | Sequence[Endpoint | panel.JudgeSpec] | None = None,
    scoring: str | None = None,
    canonical: str | None = None,
    settings: RunSettings | None = None,
    reps: int = DEFAULT_ELO_REPS,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
) -> tuple[pd.DataFrame, str]:
    """(the standings, a caption) of the field of ``paths`` (module docstring); with judgements from several judges,
    each judge's standings and the pooled panel's, a ``judge`` column first. ``reps``, ``seed`` and ``level`` are
    the interval's (:func:`.league.elo_interval`)."""
    runs = [p for p in paths if file_benchmark(p) == BENCHMARK]
    if judgements is None:
        base = runs[0].parent if runs else Path(".")
        judgements = base / JUDGEMENTS_FILE
    path = Path(judgements)
    if ask:  # the judgements are appended to this file: never into a run, a canonical file or another file
        reads = [p for p in paths if not is_pairwise_file(p)]
        refuse_output_over_inputs(path, [*reads, *([canonical] if canonical not in (None, "download") else [])],
                                  "--judgements", "append to")  # fmt: skip
        if path.is_file() and path.stat().st_size and not is_pairwise_file(path):
            raise RunnerError(
                f"--judgements {path} holds no judgements (its first line is not a judgements header); appending "
                "would mix them into it: name a judgements file or a new one"
            )
    field = load_field(paths, path, scoring, canonical)
    notes: list[str] = []
    # the ladder the window is taken on: the placements' last one, else a canonical file's own ratings, else
    # (None) a first solve without the window
    ladder: dict[str, float] | None = (
        field.ratings if canonical is not None or len(field.runs) < len(field.ratings) else None
    )
    if ask:
        notes, ladder = ask_missing(field, judge or Endpoint(), path, settings or RunSettings(progress=False))
        field = load_field(paths, path, scoring, canonical)

    def standings_of(comparisons: list[dict[str, Any]]) -> pd.DataFrame:
        return standings(sorted(field.ratings), comparisons, field.version, ladder, field.rubric, reps, seed, level)

    table = standings_of(field.comparisons)
    judges = field.judges
    if len(judges) > 1:
        tables = {j: standings_of(field.comparisons_of(j)) for j in judges}
        table = panel.with_judge_column(tables | {panel.PANEL: table})
    by_judge = (
        f"\njudges: {', '.join(judges)}, each on its own judgements; {panel.PANEL}: all judges' pooled"
        if len(judges) > 1
        else ""
    )
    anchored = table["elo_norm"].notna().any()
    valid = sum("error" not in c for c in field.comparisons)
    scale = (
        "normalised so that o3 = 1500 and llama-3.2-1b = 200"
        if anchored
        else "raw (the anchors o3 and llama-3.2-1b are not in this field)"
    )
    caption = (
        f"EQ-Bench 3 ratings ({field.version.description}): TrueSkill over {valid:,} pairwise judgements (both "
        f"orders of a pair summed), window of {field.version.rank_window} ranks; {scale}; scenarios: those a "
        f"model's rating rests on; judgements: {path}"
        + by_judge
        + f"\n{interval_caption(table)}"
        + "".join(f"\n{n}" for n in notes)
    )
    return table, caption
