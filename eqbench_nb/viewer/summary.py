"""A run's header for the viewer: its settings, where its pipeline comes from, its scores with intervals, parse
rates, tokens and cost, in a form any view lays out (``facts``: label and text; ``scores``: a small table with a
caption that says how each interval was made).

Scores and intervals come from the toolkit's own functions, never recomputed here: EQ-Bench's from
:func:`~eqbench_nb.eqbench.conventions.score_run` and :func:`~eqbench_nb.analysis.leaderboard.bootstrap_runs`
(a percentile bootstrap over the run's questions, every iteration resampled alike), EmotionBench's from
:func:`~eqbench_nb.emotionbench.summary.summarise_run` and
:func:`~eqbench_nb.emotionbench.alignment.welch_interval` (over the complete answers).
"""

from __future__ import annotations

import math
import statistics
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd

from ..analysis.leaderboard import timestamp_text
from ..emotionbench.runs import EmotionRun
from ..eqbench.runs import Run
from ..runner.cost import Prices, Usage

__all__ = ["run_summary"]


def run_summary(run: Run | EmotionRun, items: pd.DataFrame, prices: Prices) -> dict[str, Any]:
    """``{"title", "facts": [[label, text]], "scores": {"caption", "columns", "rows"}, "warnings"}`` for a run
    whose item records (:func:`eqbench_nb.viewer.samples.samples`) are ``items``."""
    if isinstance(run, EmotionRun):
        return _emotionbench_summary(run, items, prices)
    return _eqbench_summary(run, items, prices)


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list):
        return ", ".join(f"{v:g}" if isinstance(v, float) else _fmt(v) for v in value)
    return str(value)


def _usage_facts(items: pd.DataFrame, attempts: list[dict[str, Any]], prices: Prices) -> list[list[str]]:
    """Tokens, cost, requests, transport retries by kind, failed requests, latency: over every attempt."""
    usage = Usage.of(attempts)
    faults = Counter(f for fs in items["faults"] for f in fs)
    latencies = [a["latency_s"] for a in _attempt_rows(items) if a["latency_s"] is not None]
    failed = sum(1 for a in _attempt_rows(items) if a["text"] is None and a["error"])
    retried = ", ".join(f"{k} x{v}" for k, v in faults.most_common()) or "none"
    retries = int(items["transport_retries"].sum())
    facts = [
        ["tokens", usage.describe(prices if prices.known else None)],
        ["cost", f"${prices.cost(usage.prompt, usage.completion):,.4f} {prices.describe()}" if prices.known else
         "no prices given (--price-in, --price-out: dollars per million tokens)"],
        ["requests", f"{len(attempts):,} answered; transport retries {retries:,} ({retried}); {failed} failed on "
         "their own (400/413/422, no content)"],
    ]  # fmt: skip
    if latencies:
        facts.append(
            ["latency", f"median {statistics.median(latencies):.2f} s per request, {sum(latencies):,.0f} s in all"]
        )
    return facts


def _attempt_rows(items: pd.DataFrame) -> list[dict[str, Any]]:
    return [a for attempts in items["attempts"] for a in attempts]


def _file_name(run: Run | EmotionRun) -> str:
    return Path(str(run.path)).name if run.path else "—"


# ---------------------------------------------------------------- EQ-Bench


def _eqbench_summary(run: Run, items: pd.DataFrame, prices: Prices) -> dict[str, Any]:
    from ..eqbench.conventions import CONVENTIONS, score_run

    h = run.header
    expected = run.n_questions * len(run.iterations)
    facts = [
        ["model", run.model],
        ["run id", run.run_id],
        ["file", _file_name(run)],
        ["pipeline", _pipeline(run)],
        ["set", f"{run.version}, {run.n_questions} questions per iteration"],
        ["protocol", f"{h.get('protocol') or '—'}; revise {_fmt(run.revise)}; parser {run.parser}, names {run.match}"],
        ["iterations", _fmt(len(run.iterations))],
        ["records", f"{len(run.records):,} of {expected:,}" + ("" if len(run.records) >= expected else ", unfinished")],
    ]
    settings = [
        ("temperatures", h.get("temperatures")),
        ("max tokens", h.get("max_tokens")),
        ("seed", h.get("seed")),
        ("endpoint", "the bundled model (llama.cpp on 127.0.0.1)" if h.get("local_model") else h.get("endpoint")),
        ("started", timestamp_text(h.get("started_at"))),
        ("finished", timestamp_text(h.get("finished_at"))),
        ("deviations", ", ".join(map(str, h.get("deviations") or [])) or None),
        ("question file sha256", h.get("dataset_sha256")),
        ("eqbench_nb version", h.get("eqbench_nb_version")),
    ]
    facts += [[label, _fmt(value)] for label, value in settings if value not in (None, "", [])]
    attempts = [a for r in run.records for a in r.attempts]
    facts += _usage_facts(items, attempts, prices)
    scores = {c: score_run(run, c) for c in CONVENTIONS}
    intervals, caption = _eqbench_intervals(run)
    rows = [
        [c, _score_text(s.score, c), intervals.get(c, "—"), f"{s.n_parseable:g} / {s.n_questions}"
         + f" ({s.percent_parseable:.1f} %)", "FAILED" if s.failed else "no"]
        for c, s in scores.items()
    ]  # fmt: skip
    if h.get("published_score") is not None:
        rows.append(["published", _fmt(h.get("published_score")), "", "the file's benchmark_score", ""])
    return {
        "title": f"{run.model} · {run.run_id}",
        "facts": facts,
        "scores": {
            "caption": caption,
            "columns": ["convention", "score", "95 % interval", "parseable per iteration", "failed (< 83.33 %)"],
            "rows": rows,
        },
        "warnings": list(run.warnings),
    }


def _score_text(score: float, convention: str) -> str:
    return _fmt(score, 4 if convention == "evalscope" else 2)


def _eqbench_intervals(run: Run) -> tuple[dict[str, str], str]:
    """Each convention's 95 % interval as text, and the caption saying what was resampled."""
    from ..analysis.leaderboard import bootstrap_runs
    from ..analysis.stats import DEFAULT_LEVEL, DEFAULT_REPS, percentile_interval
    from ..eqbench.conventions import CONVENTIONS

    out: dict[str, str] = {}
    n = 0
    for convention in CONVENTIONS:
        try:
            boot = bootstrap_runs([run], convention)
        except ValueError:  # no question to resample
            continue
        n = boot.questions.shape[1]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            low, high = percentile_interval(boot.boot[:, 0], DEFAULT_LEVEL)
        digits = 4 if convention == "evalscope" else 2
        out[convention] = f"{_fmt(float(low), digits)} – {_fmt(float(high), digits)}"
    caption = (
        f"{DEFAULT_LEVEL * 100:g} % percentile bootstrap over the run's {n} questions ({DEFAULT_REPS:,} resamples, "
        "seed 0; every iteration resampled alike), as `eqbench-nb leaderboard`; official leaves unparseable answers "
        "out of the mean, lm-eval and evalscope count them 0"
    )
    return out, caption


def _pipeline(run: Run) -> str:
    """The upstream pipeline a run reproduces and its commit, or where a file another pipeline wrote comes from
    (a published results file is checked against the sha256 pinned for it)."""
    up = run.header.get("upstream")
    if isinstance(up, dict) and up:
        commit = str(up.get("commit") or "")
        where = f"{up.get('repository', '')} @ {commit[:7]}" if commit else str(up.get("repository", ""))
        return f"{up.get('pipeline', '?')} ({where})"
    source = run.header.get("source")
    if source == "upstream EQ-Bench results":
        return _published_source(run)
    return str(source or "—")


def _published_source(run: Run) -> str:
    from ..data import manifest, sha256_of

    m = manifest()
    name = _file_name(run)
    pinned = m["results"].get(name)
    where = f"{m['repository']} {m['results_dir']}/{name} @ {m['commit'][:7]}"
    if pinned is None:
        return "an upstream EQ-Bench results file (not one of the published files this toolkit pins)"
    if run.path and sha256_of(Path(run.path)) == pinned:
        return f"published upstream results: {where} (sha256 matches the pinned file)"
    return f"an upstream EQ-Bench results file named as {where}, but not that file (its sha256 differs)"


# ---------------------------------------------------------------- EmotionBench


def _emotionbench_summary(run: EmotionRun, items: pd.DataFrame, prices: Prices) -> dict[str, Any]:
    from ..emotionbench.alignment import welch_interval
    from ..emotionbench.scoring import SUBSCALES
    from ..emotionbench.summary import scored_responses, summarise_run

    h = run.header
    summary = summarise_run(run)
    up: dict[str, Any] = h["upstream"] if isinstance(h.get("upstream"), dict) else {}
    commit = str(up.get("commit") or "")
    facts = [
        ["model", run.model],
        ["run id", run.run_id],
        ["file", _file_name(run)],
        ["pipeline", f"{up.get('pipeline', '?')} ({up.get('repository', '?')} @ {commit[:7]})"],
        ["questionnaire", f"{h.get('questionnaire', '?')}, scale {h.get('scale')}, {h.get('compute_mode', 'SUM')}"],
        ["situations", f"{len(h.get('situations') or [])}; repeats {h.get('repeats')}, default repeats "
         f"{h.get('default_repeats')}, item orders {h.get('orders')}"],
        ["reader", str(h.get("parser"))],
        ["temperature", _fmt(h.get("temperature"))],
        ["max tokens", _fmt(h.get("max_tokens"))],
        ["endpoint", "the bundled model (llama.cpp on 127.0.0.1)" if h.get("local_model") else _fmt(h.get("endpoint"))],
        ["started", _fmt(timestamp_text(h.get("started_at")))],
        ["answers", ", ".join(f"{k} {v}" for k, v in sorted(summary.statuses.items())) +
         f"; refusal rate {_fmt(summary.as_row()['refusal_rate'], 4)}"],
    ]  # fmt: skip
    facts += _usage_facts(items, [r.attempt for r in run.records], prices)
    scored = scored_responses(run)
    rows = []
    for scale in SUBSCALES:
        default = [s.scores[scale] for s in scored if s.situation == "General"]
        evoked = [s.scores[scale] for s in scored if s.situation != "General"]
        change = "—"
        if default and evoked:
            d, low, high = welch_interval(evoked, default)
            change = f"{d:+.2f} [{_fmt(low)}, {_fmt(high)}]"
        rows.append(
            [
                scale,
                f"{_fmt(summary.default[scale])} (n {len(default)})",
                f"{_fmt(summary.evoked[scale])} (n {len(evoked)})",
                change,
                summary.overall.get(scale) or "—",
            ]
        )
    return {
        "title": f"{run.model} · {run.run_id} (EmotionBench)",
        "facts": facts,
        "scores": {
            "caption": "means over complete answers; evoked − default with its 95 % Welch t interval over the answers "
            "(each complete answer one unit); verdict: the paper's F-test then t-test, α = 0.01",
            "columns": ["sub-scale", "default", "evoked", "evoked − default [95 %]", "paper's verdict"],
            "rows": rows,
        },
        "warnings": list(run.warnings),
    }
