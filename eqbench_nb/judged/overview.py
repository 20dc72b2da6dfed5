"""A judged run as the research commands and the viewer's header show it: ``runs``' row, ``score``'s rows and
the viewer's summary (title, facts, scores, warnings), through :mod:`.summary` and :mod:`.report`."""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..runner.cost import Prices
from ..runner.redact import clip
from ..viewer.contract import RunView, endpoint_text, shown, timestamp_text, usage_facts
from . import creative_writing as cw
from . import judgemark as jm
from .report import caption
from .runs import CREATIVE_WRITING, JUDGEMARK, JudgedRun, read_judged_run
from .samples import JUDGE_ENDPOINT, SUBJECT, endpoint_items
from .summary import (
    STATISTICS,
    CreativeWritingSummary,
    JudgemarkSummary,
    summarise_creative_writing,
    summarise_judgemark,
)
from .task import judgemark_pieces, prompts


def read(path: Path, benchmark: str) -> JudgedRun:
    return read_judged_run(path, benchmark)


def summarise(run: JudgedRun) -> CreativeWritingSummary | JudgemarkSummary:
    if run.benchmark == JUDGEMARK:
        return summarise_judgemark(run, judgemark_pieces())
    return summarise_creative_writing(run)


def runs_row(path: Path, run: JudgedRun) -> dict[str, Any]:
    """``runs``' row: model (the judge, for Judgemark), run id, judge, iterations, items, requests, complete?,
    score (creative-writing's 0-100, or the judge's Judgemark under d28c60c, and under 38a29f8, the board's version,
    beside it), started, file."""
    s = summarise(run)
    board: dict[str, float] = {}
    if isinstance(s, JudgemarkSummary):
        score = s.statistics["d28c60c"].get("Judgemark", math.nan)
        board = {"judgemark_38a29f8": s.statistics["38a29f8"].get("Judgemark", math.nan)}
    else:
        score = s.score.upstream_score if s.score.defined else math.nan
    return {
        "model": run.model,
        "run_id": run.run_id,
        "judge": run.judge or "—",
        "iterations": run.iterations,
        "items": len(run.items_asked()),
        "requests": len(run.records),
        "complete": "yes" if s.progress.complete else "no",
        "score": score,
        **board,
        "flagged": "; ".join(s.flags) or None,
        "started": run.header.started_at,
        "file": str(path),
    }


def score_rows(path: Path, benchmark: str) -> list[dict[str, Any]]:
    """``score``'s rows of a run (one per version for Judgemark); what the judge's numbers flag is said on stderr,
    one warning each, as EQ-Bench 3's are, and counted in the rows' ``out_of_range`` and ``left_out``."""
    run = read_judged_run(path, benchmark)
    s = summarise(run)
    for flag in s.flags:
        print(f"warning: {clip(f'{path}: {flag}', 1000)}", file=sys.stderr)
    extra = {"file": str(path), "warnings": len(run.warnings)}
    if isinstance(s, JudgemarkSummary):
        return [dict(r, score=r.get("Judgemark"), **extra) for r in s.as_rows()]
    return [s.as_row() | extra]


def _common_facts(run: JudgedRun) -> list[list[str]]:
    h = run.header
    given_up = h.upstream
    up: dict[str, Any] = given_up if isinstance(given_up, dict) else {}
    sampling: Mapping[str, Any] = h.own.sampling or {}
    facts = [
        ["run id", run.run_id],
        ["file", Path(run.path).name],
        ["pipeline", f"{up.get('pipeline', '?')} ({up.get('repository', '?')} @ {str(up.get('commit') or '?')[:7]})"],
        ["iterations", shown(h.iterations)],
        ["sampling", ", ".join(f"{k.replace('_', ' ')} {shown(v)}" for k, v in sampling.items())],
        ["endpoint", endpoint_text(h)],
    ]
    settings = [
        ("judge endpoint", h.own.judge_endpoint),
        ("deviations", ", ".join(h.deviations()) or None),
        ("judge deviations", ", ".join(h.deviations("judge")) or None),
        ("seed", h.seed),
        ("started", timestamp_text(h.started_at)),
        ("eqbench_nb version", h.eqbench_nb_version),
    ]
    return facts + [[label, shown(value)] for label, value in settings if value not in (None, "", [])]


def viewer_summary(run: JudgedRun, items: Any, prices: Prices) -> RunView:
    """The viewer's header of a creative-writing or Judgemark run."""
    s = summarise(run)
    warnings = list(run.warnings)
    p = s.progress
    if p.pending:
        warnings.append(f"{p.pending} of {p.expected} items are unfinished: run the same command again to resume")
    if p.unscored:
        warnings.append(f"{p.unscored} item(s) ended unscored and are left out, as upstream leaves them out (each "
                        "item says why)")  # fmt: skip
    warnings += [f"FLAGGED: {flag}" for flag in s.flags]
    if isinstance(s, CreativeWritingSummary):
        facts = [["model", run.model], ["judge", run.judge], *_common_facts(run)]
        for who, who_prices, options in (
            (SUBJECT, prices, "--price-in, --price-out"),
            (JUDGE_ENDPOINT, prices.of_judge, "--judge-price-in, --judge-price-out"),
        ):
            facts += [[f"{label} ({who})", text] for label, text in usage_facts(endpoint_items(items, who), who_prices,
                                                                                options)]  # fmt: skip
        sc = s.score
        interval = "—" if not sc.defined else f"{sc.low:.2f} – {sc.high:.2f}"
        rows = [["creative-writing (0-100)", sc.text, interval, f"{p.scored} of {p.expected}"]]
        rows += [[f"{name} (mean, 0-10{', lower is better' if cw.criterion_is_negative(name) else ''})",
                  shown(mean), "", ""] for name, mean in sorted(s.criteria.items())]  # fmt: skip
        return RunView(
            title=f"{run.model} · {run.run_id} (creative-writing, judge {run.judge})",
            facts=facts,
            scores={
                "caption": "upstream's score: each piece the mean of its parsed criteria (10 - score where lower is "
                "better), each iteration the mean of its pieces when more than 10 were scored, the run 10 × the "
                f"mean of those iterations, rounded to 2 decimals. 95 % interval: Student's t over the {sc.n_prompts} "
                "prompts (each prompt's mean piece over the counted iterations). Criteria: the judge's mean score "
                "as given",
                "columns": ["measure", "value", "95 % interval", "pieces"],
                "rows": rows,
            },
            warnings=warnings,
        )
    facts = [["judge", run.model], *_common_facts(run)]
    facts += usage_facts(endpoint_items(items, JUDGE_ENDPOINT), prices, "--judge-price-in, --judge-price-out")
    rows = []
    for name, versions in STATISTICS:
        digits = 4 if name == "anova_p" else 2
        rows.append([name, *("—" if v not in versions else jm.fmt(s.statistics[v].get(name, math.nan), digits)
                             for v in jm.VERSIONS)])  # fmt: skip
    writers = s.writer_scores["38a29f8"]
    rows += [[f"writer: {w}", jm.fmt(s.writer_scores["d28c60c"][w]), jm.fmt(writers[w]), jm.fmt(writers[w])]
             for w in sorted(writers, key=lambda w: -writers[w])]  # fmt: skip
    return RunView(
        title=f"judge {run.model} · {run.run_id} (Judgemark v1)",
        facts=facts,
        scores={"caption": caption(), "columns": ["statistic", *jm.VERSIONS], "rows": rows},
        warnings=warnings,
    )


def samples(run: JudgedRun, prices: Prices) -> Any:
    from .samples import judged_samples

    return judged_samples(run, prompts(), judgemark_pieces() if run.benchmark == JUDGEMARK else None, prices)


__all__ = ["CREATIVE_WRITING", "JUDGEMARK", "read", "runs_row", "samples", "score_rows", "summarise", "viewer_summary"]
