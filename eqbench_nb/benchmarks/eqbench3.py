"""EQ-Bench 3 as the command line sees it: its ``run`` options (the judge's endpoint among them), its run, its
``score`` rows, ``runs`` and ``leaderboard`` over its runs.

Its run files name it in their header (``"benchmark": "eqbench3"``); its judgements files name
``"eqbench3-pairwise"``; upstream's canonical Elo results file (``canonical_leaderboard_elo_results.json.gz``,
gzipped or not) is recognised by its shape, and ``score`` re-derives it. ``compare`` and ``plot`` compare EQ-Bench
scores and do not apply. The run viewer shows its runs (an item per scenario and iteration) and its judgements files
(an item per pair judged), not the canonical file.
"""

from __future__ import annotations

import dataclasses
import gzip
import re
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..eqbench3.options import Eq3RunOptions, JudgeOptions, judges_of
from ..eqbench3.runs import BENCHMARK, PAIRWISE_BENCHMARK, Eq3Run, PairwiseFile
from ..eqbench3.samples import EQBENCH3_FRAME, PAIRWISE_FRAME
from ..eqbench3.versions import DEFAULT_VERSION, SCORING_VERSIONS
from ..runner.cost import Prices
from ..runner.header import RunHeader, file_benchmark
from ..runner.looks import per_file_version
from ..runner.redact import clip, output
from ..runner.settings import Endpoint, RunSettings
from ..viewer.contract import RunView, endpoint_text, shown, timestamp_text, usage_facts
from . import Benchmark, Report, Table
from .options import CommandOptions, option

CANONICAL_COLUMNS = ("model", "comparisons", "elo", "elo_norm", "ci_low", "ci_high", "published_elo_norm")
RUN_COLUMNS = ("model", "run_id", "judge", "scoring_version", "rubric", "low", "high", "tasks", "judge_errors",
               "out_of_range", "left_out")  # fmt: skip


# ---------------------------------------------------------------- files


@per_file_version
def recognises(path: Path) -> bool:
    """This project's EQ-Bench 3 runs and judgements files, or upstream's canonical Elo results (a JSON object whose
    first key is ``__metadata__``, gzipped or not)."""
    if file_benchmark(path, declared=True) in (BENCHMARK, PAIRWISE_BENCHMARK):
        return True
    try:
        with open(path, "rb") as f:
            head = f.read(2)
        opener: Any = gzip.open if head == b"\x1f\x8b" else open
        with opener(path, "rb") as f:
            start = f.read(64)
    except (OSError, EOFError):
        return False
    return re.match(rb'\s*\{\s*"__metadata__"', start) is not None


# ---------------------------------------------------------------- run


@dataclass(frozen=True)
class Eq3Options(JudgeOptions, CommandOptions):
    """What EQ-Bench 3's ``score``, ``runs`` and ``leaderboard`` read; ``leaderboard`` takes the judge's options
    too (``--judge`` asks it for the missing judgements)."""

    by_judge: bool = option(
        "--by-judge",
        default=False,
        flag=True,
        help="EQ-Bench 3: one run's rubric score per judge of its panel and the panel's (the mean of the judges' "
        "scores of each task): columns judge, rubric, low, high, tasks",
        commands=("score",),
    )
    eq3_scoring: str | None = option(
        "--scoring",
        choices=list(SCORING_VERSIONS),
        help="EQ-Bench 3: the scoring version (default: a canonical file's own, 8c3a125; else the judgements', else "
        "3c21bcc)",
        group="",
        commands=("score", "leaderboard"),
    )
    judgements: str | None = option(
        "--judgements",
        metavar="FILE",
        help="EQ-Bench 3: the pairwise judgements file (default: <first run's folder>/eqbench3-judgements.jsonl)",
        group="EQ-Bench 3",
        commands=("leaderboard",),
    )
    judge: bool = option(
        "--judge",
        default=False,
        flag=True,
        help="EQ-Bench 3: ask the judge for the missing pairwise judgements (upstream's staged matchups), each "
        "written to the judgements file as it arrives",
        group="EQ-Bench 3",
        commands=("leaderboard",),
    )
    canonical: str | None = option(
        "--canonical",
        metavar="RUNS",
        help="EQ-Bench 3: place the runs among upstream's first canonical field: the path of its runs file, or "
        "'download' (from the pinned commit, checked against its git blob id), beside the 8c3a125 Elo file (or the "
        "Elo file given among the paths)",
        group="EQ-Bench 3",
        commands=("leaderboard",),
    )
    #: EQ-Bench's ``--reps``, ``--seed`` and ``--level`` of ``leaderboard``, taken as well (None: 500 re-solves)
    reps: int | None = None
    seed: int = 0
    level: float = 0.95


def run(given: Eq3RunOptions, endpoint: Endpoint, settings: RunSettings) -> Any:
    from ..eqbench3.task import run_eqbench3

    if given.dry_run:
        return dry_run(endpoint, judges_of(given), settings, given)
    return run_eqbench3(endpoint, None, settings, given)  # the judges the options name


def dry_run(endpoint: Endpoint, judges: list[Any], settings: RunSettings, options: Eq3RunOptions) -> Report:
    """What the run would send, the model under test's requests and each judge's (a panel's judges apart)."""
    from ..eqbench3 import dryrun, prompts, rubric
    from ..eqbench3.task import select_scenarios
    from ..runner.cost import JUDGE_PRICE_FLAGS, token_counter

    endpoint = endpoint.checked()
    checked = [(spec.id, spec.endpoint.checked("judge-")) for spec in judges]
    chosen = select_scenarios(options.scenarios, options.limit, settings.data_path)
    counter = token_counter(endpoint.model or "")
    lines = [f"dry run: nothing sent; {len(chosen)} scenarios x {options.iterations} iteration(s)"]
    sides: list[Any] = []
    for i, (judge_id, judge) in enumerate(checked):
        judge_counter = token_counter(judge.model or "")
        subject, judged = dryrun.estimate(
            chosen, options.iterations, prompts.load_templates(), counter, judge_counter, endpoint.prices,
            judge.prices, endpoint.max_tokens or prompts.TURN_MAX_TOKENS, not options.no_rubric,
            judge.max_tokens or rubric.JUDGE_MAX_TOKENS,
        )  # fmt: skip
        if i == 0:
            lines += subject.lines(counter.method)
            sides.append(subject)
        if judged is not None:
            if len(checked) > 1:
                lines.append(f"judge {i + 1} of {len(checked)}: {judge_id or judge.model}")
            lines += judged.lines(judge_counter.method, "its price_in and price_out in the --judges file"
                                  if options.judges else JUDGE_PRICE_FLAGS)  # fmt: skip
            sides.append(dataclasses.replace(judged, label=f"judge {judge_id or judge.model or i + 1}"))
    if len(sides) > 2:
        lines += dryrun.total_lines(f"panel ({len(sides) - 1} judges)", sides[1:])
    if len(sides) > 1:
        lines += dryrun.total_lines("total (the model under test and every judge)", sides)
    return Report("\n".join(lines))


# ---------------------------------------------------------------- score


def score_rows(path: Path, options: Eq3Options) -> list[dict[str, Any]]:
    """A run's summary row; for upstream's canonical Elo file one row per model, re-derived (notes on stderr); for a
    judgements file, the standings it solves to."""
    named = file_benchmark(path)
    if named == BENCHMARK:
        return _by_judge_rows(path) if options.by_judge else [_run_row(path)]
    if named == PAIRWISE_BENCHMARK:
        return _judgements_rows(path, options.eq3_scoring)
    return _canonical_rows(path, options.eq3_scoring)


def _run_row(path: Path) -> dict[str, Any]:
    from ..eqbench3.runs import read_eq3_run
    from ..eqbench3.summary import summarise_run

    run = read_eq3_run(path)
    s = summarise_run(run)
    for warning in [*run.warnings, *s.flags]:
        print(f"warning: {clip(f'{path}: {warning}', 1000)}", file=sys.stderr)
    return s.as_row() | {"kind": "run", "file": str(path), "warnings": len(run.warnings)}


def _by_judge_rows(path: Path) -> list[dict[str, Any]]:
    """``--by-judge``: each judge's rubric score and the panel's (:func:`~eqbench_nb.eqbench3.summary.by_judge`)."""
    from ..eqbench3.runs import read_eq3_run
    from ..eqbench3.summary import by_judge

    run = read_eq3_run(path)
    rows = by_judge(run)
    flagged = [f"judge {r['judge']}: {r['out_of_range']} criterion score(s) outside 0-20 (kept and counted, as "
               "upstream keeps them)" for r in rows[:-1] if r["out_of_range"]]  # fmt: skip
    flagged += [f"judge {r['judge']}: {r['left_out']} judgement(s) with a score that is not a finite number (left "
                "out, the rest kept)" for r in rows[:-1] if r["left_out"]]  # fmt: skip
    for warning in [*run.warnings, *flagged]:
        print(f"warning: {clip(f'{path}: {warning}', 1000)}", file=sys.stderr)
    return rows


def _canonical_rows(path: Path, scoring: str | None) -> list[dict[str, Any]]:
    from ..eqbench3.canonical import CanonicalFormatError, read_canonical, rederive
    from ..runner.runfile import RunFormatError

    try:
        elo = read_canonical(path)
    except CanonicalFormatError as exc:
        raise RunFormatError(path, str(exc).removeprefix(f"{path}: ")) from None
    version = scoring or "8c3a125"
    check = rederive(elo, version)
    kinds = ", ".join(f"{n} {k}" for k, n in check.errors.most_common())
    print(
        clip(
            f"{path}: {check.matching:,} of {check.checked:,} non-error judgements re-derived as stored ({version} "
            f"rules); {sum(check.errors.values())} errors ({kinds}); normalised ratings from the published raw ones "
            f"within {check.norm_max_diff:.3f}; re-solved as upstream's canonical recalculation (window "
            f"{check.version.rank_window} on the file's ratings): Spearman {check.spearman:.4f} with the published, "
            f"largest gap {check.max_abs_diff:.1f}; ci_low-ci_high: normalised 95 % interval (mu ± 1.96 sigma)",
            2000,
        ),
        file=sys.stderr,
    )
    return [dict(row, kind="canonical", file=str(path)) for row in check.table]


def _judgements_rows(path: Path, scoring: str | None) -> list[dict[str, Any]]:
    from ..eqbench3.runs import read_pairwise

    judged = read_pairwise(path)
    table = _standings(judged, scoring)
    return [dict(row, kind="judgements", file=str(path)) for row in table.to_dict("records")]


def _standings(judged: Any, scoring: str | None = None) -> Any:
    """The standings a judgements file solves to (:func:`~eqbench_nb.eqbench3.league.standings`), with the scoring
    version given, else the file's, else HEAD's; with several judges, each judge's and the pooled panel's, a
    ``judge`` column first."""
    from ..eqbench3.league import standings
    from ..eqbench3.panel import PANEL, with_judge_column
    from ..eqbench3.versions import scoring_version

    version = scoring_version(scoring or judged.header.own.scoring_version or DEFAULT_VERSION)
    comparisons = [r.comparison(version) for r in judged.records]
    models = sorted({m for r in judged.records for m in (r.test, r.other)})
    pooled = standings(models, comparisons, version)
    judges = list(dict.fromkeys(r.judge for r in judged.records))
    if len(judges) < 2:
        return pooled
    tables = {j: standings(models, [r.comparison(version) for r in judged.records if r.judge == j], version)
              for j in judges}  # fmt: skip
    return with_judge_column(tables | {PANEL: pooled})


def score_tables(rows: list[dict[str, Any]]) -> list[Table]:
    """Run rows, canonical rows and judgements rows (or one run's rows per judge), each kind as its own table."""
    import pandas as pd

    from ..analysis.stats import SMALL_N
    from ..eqbench3.league import INTERVAL_COLUMNS
    from ..eqbench3.panel import BY_JUDGE_COLUMNS

    by_judge = [r for r in rows if tuple(r) == BY_JUDGE_COLUMNS]
    if by_judge:
        rows = [r | {"kind": "by_judge"} for r in by_judge]
    tables = []
    for kind, columns in (("run", RUN_COLUMNS), ("canonical", CANONICAL_COLUMNS), ("judgements", None),
                          ("by_judge", BY_JUDGE_COLUMNS)):  # fmt: skip
        chosen = [r for r in rows if r.get("kind") == kind]
        if not chosen:
            continue
        # a judgements file's standings: what the interval is goes under the table, once (:func:`_interval_lines`)
        cols = list(columns or [k for k in chosen[0] if k not in ("kind", "file", *INTERVAL_COLUMNS)])
        frame = pd.DataFrame([[_cell(r.get(c)) for c in cols] for r in chosen], columns=cols)
        caption = None
        if kind == "run":
            methods = " or ".join(sorted({str(r.get("interval_method")) for r in chosen}))
            caption = (f"rubric: upstream's score (0-100); low-high: 95 % interval, {methods} (Student t below "
                       f"{SMALL_N} scenarios)")  # fmt: skip
        elif kind == "judgements":
            caption = _interval_lines(chosen)
        elif kind == "by_judge":
            caption = (f"rubric: upstream's score (0-100); low-high: 95 % interval over scenarios, as `score` gives "
                       f"it (Student t below {SMALL_N} scenarios); panel: the mean of the judges' scores of each task "
                       "(Judgemark v2.1's ensemble average)")  # fmt: skip
        tables.append(Table(frame, caption=caption, text_columns=1))
    return tables


def _interval_lines(rows: list[dict[str, Any]]) -> str:
    """What each judgements file's interval is (:func:`~eqbench_nb.eqbench3.league.interval_caption`), the file
    named when there are several."""
    import pandas as pd

    from ..eqbench3.league import interval_caption

    files = list(dict.fromkeys(r["file"] for r in rows))
    captions = [(f, interval_caption(pd.DataFrame([r for r in rows if r["file"] == f]))) for f in files]
    return "\n".join(output(f"{f}: {c}" if len(files) > 1 else c) for f, c in captions)


def _cell(value: Any) -> str:
    if value is None or value != value:
        return "—"
    if isinstance(value, float):
        return f"{value:.2f}"
    return clip(str(value), 80)


# ---------------------------------------------------------------- research commands


def runs(files: Sequence[Path], options: Eq3Options) -> Table:
    """One row per EQ-Bench 3 run file: model, run id, judge, scoring version, scenarios, iterations, records of the
    expected, complete?, rubric score, started, file."""
    import pandas as pd

    from ..eqbench3.runs import read_eq3_run
    from ..eqbench3.summary import summarise_run
    from ..eqbench3.task import expected_records

    rows = []
    for path in files:
        if file_benchmark(path) != BENCHMARK:
            continue  # a judgements file or a canonical file is not a run
        run = read_eq3_run(path)
        h = run.header
        turns = h.own.scenario_turns or {}
        expected = expected_records(h)
        s = summarise_run(run)
        rows.append(
            {
                "model": run.model,
                "run_id": run.run_id,
                "judge": " + ".join(run.judges) or "—",
                "scoring_version": h.own.scoring_version,
                "scenarios": len(turns),
                "iterations": h.iterations,
                "records": len(run.records),
                "expected": expected,
                "complete": "yes" if len(run.records) >= expected else "no",
                "rubric": s.score,
                "flagged": "; ".join(s.flags) or None,
                "started": h.started_at,
                "file": str(path),
            }
        )
    frame = pd.DataFrame(rows)
    if options.sort and options.sort in frame:
        frame = frame.sort_values(options.sort, ascending=options.sort != "rubric", na_position="last")
    return Table(frame.reset_index(drop=True), {"scenarios": 0, "iterations": 0, "records": 0, "expected": 0})


def leaderboard(files: Sequence[Path], options: Eq3Options) -> Table:
    from ..eqbench3.field import leaderboard_table
    from ..eqbench3.league import DEFAULT_ELO_REPS, INTERVAL_COLUMNS

    table, caption = leaderboard_table(
        list(files),
        judgements=options.judgements,
        ask=options.judge,
        judge=judges_of(options),
        scoring=options.eq3_scoring,
        canonical=options.canonical,
        reps=options.reps or DEFAULT_ELO_REPS,
        seed=options.seed,
        level=options.level,
    )
    # the interval's description is the caption's in the terminal; without an interval its columns are empty there
    bare = ("ci_low", "ci_high") if table["ci_low"].isna().all() else ()
    digits = {"rank": 0, "judgements": 0, "judge_errors": 0, "scenarios": 0, "reps": 0, "separability_pairs": 0}
    return Table(table, digits, machine_only=(*INTERVAL_COLUMNS, *bare), caption=caption)


# ---------------------------------------------------------------- the run viewer


def read(path: Path) -> Any:
    """A run file or a judgements file, for the viewer; upstream's canonical Elo file is refused in one line (its
    6,452 judgements are no run's items, and would not fit a page: ``score`` re-derives them)."""
    from ..eqbench3.runs import read_eq3_run, read_pairwise
    from ..runner.runfile import RunFormatError

    kind = file_benchmark(path)
    if kind == BENCHMARK:
        return read_eq3_run(path)
    if kind == PAIRWISE_BENCHMARK:
        return read_pairwise(path)
    raise RunFormatError(
        path,
        "upstream's canonical Elo results are not a run the viewer shows (`eqbench-nb score` re-derives every "
        "judgement in it); view an EQ-Bench 3 run file or a judgements file",
    )


def samples(run: Any, prices: Prices) -> Any:
    from ..eqbench3.runs import PairwiseFile
    from ..eqbench3.samples import eqbench3_samples, pairwise_samples

    return pairwise_samples(run, prices) if isinstance(run, PairwiseFile) else eqbench3_samples(run, prices)


def summary(run: Any, items: Any, prices: Prices) -> RunView:
    """The viewer's header of an EQ-Bench 3 run (or of a judgements file: :func:`_judgements_summary`): where it
    comes from, its settings, the rubric score with its interval over scenarios and each criterion's mean, tokens,
    requests and cost of the model under test and of the judge apart."""
    from ..analysis.stats import SMALL_N
    from ..eqbench3.runs import PairwiseFile
    from ..eqbench3.samples import JUDGE, SUBJECT, endpoint_items
    from ..eqbench3.scenarios import kind_of
    from ..eqbench3.summary import summarise_run
    from ..eqbench3.task import expected_records
    from ..eqbench3.versions import SCORING_VERSIONS

    if isinstance(run, PairwiseFile):
        return _judgements_summary(run, items, prices)
    h = run.header
    s = summarise_run(run)
    asked = list(h.own.scenarios or ())
    kinds = Counter(kind_of(sid) for sid in asked)
    expected = expected_records(h)
    version = SCORING_VERSIONS.get(str(h.own.scoring_version))
    sampling = h.own.sampling or {}
    facts = [
        ["model", run.model],
        ["judge", run.judge or "— (no judge asked)"] if len(run.judges) < 2 else
        ["judges (a panel)", ", ".join(f"{e['id']} ({e.get('model')}, {_key_said(e)})" for e in run.panel)],
        ["run id", run.run_id],
        ["file", Path(run.path).name],
        ["pipeline", _pipeline(h)],
        ["scoring version", version.description if version else shown(h.own.scoring_version)],
        ["scenarios", f"{len(asked)} ({', '.join(f'{n} {k}' for k, n in kinds.most_common())}); iterations "
         f"{shown(h.iterations)}"],
        ["records", f"{len(run.records):,} of {expected:,}" + ("" if len(run.records) >= expected else ", unfinished")],
        ["sampling", ", ".join(f"{k.replace('_', ' ')} {shown(v)}" for k, v in sampling.items())],
        ["endpoint", endpoint_text(h)],
        ["judge endpoint", endpoint_text(h, "judge_")],
    ]  # fmt: skip
    settings = [
        ("deviations", ", ".join(h.deviations()) or None),
        ("judge deviations", ", ".join(h.deviations("judge")) or None),
        ("seed", h.seed),
        ("started", timestamp_text(h.started_at)),
        ("eqbench_nb version", h.eqbench_nb_version),
    ]
    facts += [[label, shown(value)] for label, value in settings if value not in (None, "", [])]
    for who, who_prices, options in (
        (SUBJECT, prices, "--price-in, --price-out"),
        (JUDGE, prices.of_judge, "--judge-price-in, --judge-price-out"),
    ):
        facts += [[f"{label} ({who})", text] for label, text in usage_facts(endpoint_items(items, who), who_prices,
                                                                            options)]  # fmt: skip
    interval = "—" if s.low is None or s.high is None else f"{shown(s.low)} – {shown(s.high)}"
    rows = [["rubric (0-100)" + (", the panel" if len(run.judges) > 1 else ""), shown(s.score), interval,
             f"{s.tasks_scored} of {s.tasks_expected} ({s.scenarios_scored} scenarios)", ""]]  # fmt: skip
    if len(run.judges) > 1:  # each judge's own score beside the panel's
        for judge in run.judges:
            j = summarise_run(run, judge=judge)
            band = "—" if j.low is None or j.high is None else f"{shown(j.low)} – {shown(j.high)}"
            rows.append([f"rubric (0-100), judge {judge}", shown(j.score), band, f"{j.tasks_scored} of "
                         f"{j.tasks_expected} ({j.scenarios_scored} scenarios)", ""])  # fmt: skip
    n_tasks = Counter(c["criterion"] for rows_ in items["criteria"] for c in rows_ if c["score"] is not None)
    rows += [[f"{name} (mean, 0-20)", shown(mean), "", shown(n_tasks[name]), "yes" if name in s.counted else "no"]
             for name, mean in s.criteria.items()]  # fmt: skip
    warnings = list(run.warnings)
    if s.judge_errors:
        warnings.append(f"{s.judge_errors} judgement(s) did not parse and are left out of the score, as upstream "
                        "leaves them out (each item says why)")  # fmt: skip
    warnings += [f"FLAGGED: {flag}" for flag in s.flags]
    if s.scenarios_scored == 1:
        warnings.append("only 1 scenario: no interval (`eqbench-nb score` gives none either)")
    elif 0 < s.scenarios_scored < SMALL_N:
        warnings.append(f"only {s.scenarios_scored} scenarios: the interval is {s.interval_method}, since a "
                        f"percentile bootstrap over fewer than {SMALL_N} is too narrow (`eqbench-nb score` prints the "
                        "same one)")  # fmt: skip
    return RunView(
        title=f"{run.model} · {run.run_id} (EQ-Bench 3, {_judges_said(run.judges)})",
        facts=facts,
        scores={
            "caption": "rubric: upstream's score, the mean over every judged task of its counted criteria (all "
            "iterations pooled), rounded on 0-20, times 5; each item's contribution is its task's mean times 5. "
            f"95 % interval: {s.interval_method}, each scenario with all its iterations (how much the score "
            "depends on which scenarios were asked, not how noisy the model or the judge was). Criteria: the mean "
            "of 0-20 over the tasks that have it; judgements that did not parse are left out",
            "columns": ["measure", "value", "95 % interval", "tasks", "counts toward the score"],
            "rows": rows,
        },
        warnings=warnings,
    )


def _judges_said(judges: Sequence[str]) -> str:
    """``judge J``, ``judges A + B`` (a panel) or ``no judge``, as a title names them."""
    if not judges:
        return "no judge"
    return f"judge {judges[0]}" if len(judges) == 1 else f"judges {' + '.join(judges)}"


def _key_said(entry: Mapping[str, Any]) -> str:
    """Where a panel judge's key came from: the bundled model and a loopback server with no key set used none
    (their entries name no variable); a header written before entries said so names OPENAI_API_KEY."""
    if entry.get("local"):
        return "the bundled model, no key"
    var = entry.get("api_key_env")
    return f"key in {var}" if var else "no key"


def _pipeline(header: RunHeader[Any]) -> str:
    given = header.upstream
    up: dict[str, Any] = given if isinstance(given, dict) else {}
    commit = str(up.get("commit") or "")
    return f"{up.get('pipeline', 'EQ-Bench 3')} ({up.get('repository', '?')} @ {commit[:7] or '?'})"


def _judgements_summary(judged: Any, items: Any, prices: Prices) -> RunView:
    """The viewer's header of a judgements file: the judge and its settings, what was judged, the standings these
    judgements alone solve to (as ``score`` prints them), the judge's tokens, requests and cost."""
    from ..eqbench3.league import interval_caption

    h = judged.header
    table = _standings(judged)
    version = str(table["scoring_version"].iloc[0]) if len(table) else str(h.own.scoring_version)
    errors = sum(1 for r in judged.records if r.verdict is None)
    facts = [
        ["judge", shown(h.own.judge)],
        ["run id", shown(h.run_id)],
        ["file", Path(judged.path).name],
        ["pipeline", f"EQ-Bench 3 pairwise judging ({_pipeline(h).rsplit('(', 1)[-1]}"],
        ["scoring version", version],
        ["judgements", f"{len(judged.records):,} (one per pair, scenario, iteration and order); {errors} judge "
         "errors, left out of the rating"],
        ["pairs judged", f"{len(items):,}"],
        ["models", ", ".join(sorted({m for r in judged.records for m in (r.test, r.other)}))],
        ["judge endpoint", endpoint_text(h, "judge_")],
    ]  # fmt: skip
    settings = [
        ("deviations", ", ".join(h.deviations()) or None),
        ("started", timestamp_text(h.started_at)),
        ("eqbench_nb version", h.eqbench_nb_version),
    ]
    facts += [[label, shown(value)] for label, value in settings if value not in (None, "", [])]
    facts += usage_facts(items, prices.of_judge, "--judge-price-in, --judge-price-out")
    rows = [
        [int(r["rank"]), r["model"], shown(r["elo"]), shown(r["elo_norm"]),
         "—" if r["ci_low"] is None or r["ci_low"] != r["ci_low"] else f"{shown(r['ci_low'])} – {shown(r['ci_high'])}",
         int(r["judgements"]), int(r["judge_errors"])]
        for r in table.to_dict("records")
    ]  # fmt: skip
    return RunView(
        title=f"judgements by {h.own.judge} · {h.run_id} (EQ-Bench 3 pairwise)",
        facts=facts,
        scores={
            "caption": f"ratings these judgements alone solve to ({version}'s final solve: the plus counts of both "
            "orders of a pair summed into a win fraction, pseudo-wins, TrueSkill; the order of the comparisons "
            "matters); normalised to o3 = 1500 and llama-3.2-1b = 200 only when both are in the field, raw otherwise. "
            + interval_caption(table).replace("ci_low-ci_high: ", "interval: "),
            "columns": ["rank", "model", "rating", "normalised", "95 % interval", "judgements", "judge errors"],
            "rows": rows,
        },
        warnings=list(judged.warnings),
    )


EQBENCH3 = Benchmark(
    name=BENCHMARK,
    title="EQ-Bench 3",
    run_options=Eq3RunOptions,
    run=run,
    score_rows=score_rows,
    score_tables=score_tables,
    features=frozenset({"max_tokens", "reasoning_effort", "price_in", "price_out", "dry_run"}),
    runs=runs,
    leaderboard=leaderboard,
    command_options=Eq3Options,
    formats="eqbench_nb JSON Lines, its pairwise judgements, upstream's canonical Elo results (.json.gz)",
    shared_run_options=frozenset({"iterations", "limit"}),
    recognises=recognises,
    read=read,
    run_type=(Eq3Run, PairwiseFile),
    samples=samples,
    frame_schemas=(EQBENCH3_FRAME, PAIRWISE_FRAME),
    summary=summary,
    view_formats="eqbench_nb JSON Lines, its pairwise judgements",
)
