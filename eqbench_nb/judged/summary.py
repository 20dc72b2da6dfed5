"""A judged run in a few numbers, through the pure modules: the creative-writing score with its interval, and a
judge's Judgemark statistics under each named formula.

Nothing is decided here: what each item's scores are is :func:`.runs.next_step`'s, the score is
:func:`.creative_writing.creative_writing_score`'s, the statistics :func:`.judgemark.statistics`' (and
:func:`~.judgemark.anova_f`, :func:`~.judgemark.average_ci_width`, :func:`~.judgemark.separation`,
:func:`~.judgemark.bias_fit`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import creative_writing as cw
from . import judgemark as jm
from .runs import JUDGEMARK, Ask, JudgedRun, Outcome, outcomes, split_item

#: Statistics in the order they are printed, and the versions that print each (upstream's names).
STATISTICS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("mean_score", jm.VERSIONS),
    ("range", jm.VERSIONS),
    ("std_dev", jm.VERSIONS),
    ("CV", jm.VERSIONS),
    ("std_dev_top_5", jm.VERSIONS),
    ("pearson_arena_elo", jm.VERSIONS),
    ("kendall_arena_elo", jm.VERSIONS),
    ("pearson_eq_bench", jm.VERSIONS),
    ("kendall_eq_bench", jm.VERSIONS),
    ("pearson_magi", ("d28c60c",)),
    ("kendall_magi", ("d28c60c",)),
    ("pearson_top_8_arena_elo", ("31bd53b", "38a29f8")),
    ("kendall_top_8_arena_elo", ("31bd53b", "38a29f8")),
    ("pearson_top_8_eq_bench", ("31bd53b", "38a29f8")),
    ("kendall_top_8_eq_bench", ("31bd53b", "38a29f8")),
    ("avg_kendalls", jm.VERSIONS),
    ("avg_pearsons", jm.VERSIONS),
    ("anova_f", ("38a29f8",)),
    ("anova_p", ("38a29f8",)),
    ("avg_ci95", ("38a29f8",)),
    ("overlapping_range", ("38a29f8",)),
    ("non_overlapping_range", ("38a29f8",)),
    ("self_bias", ("31bd53b", "38a29f8")),
    ("family_bias", ("31bd53b", "38a29f8")),
    ("Judgemark", jm.VERSIONS),
)


def scored_by_iteration(run: JudgedRun, pieces: Mapping[str, str] | None = None) -> dict[int, dict[str, Any]]:
    """``{iteration: {item: parsed scores}}`` of the items that ended scored (the input of the pure scoring)."""
    out: dict[int, dict[str, Any]] = {i: {} for i in range(1, run.iterations + 1)}
    for (iteration, item), state in outcomes(run, pieces).items():
        if isinstance(state, Outcome) and state.scores is not None:
            out.setdefault(iteration, {})[item] = state.scores
    return out


@dataclass(frozen=True)
class NumberFlags:
    """What a reader of a judged score must know about the judge's numbers (the rule of
    :mod:`eqbench_nb.model_numbers`): ``out_of_range``, the criterion scores outside 0-10 among the scored pieces
    (kept and counted, as upstream keeps them); ``left_out``, the judge replies with a number that is not finite
    (left out, the rest of the reply kept)."""

    out_of_range: int = 0
    left_out: int = 0

    @classmethod
    def of(cls, run: JudgedRun, states: Mapping[Any, Ask | Outcome]) -> NumberFlags:
        outside = sum(len(cw.out_of_range_scores(s.scores)) for s in states.values()
                      if isinstance(s, Outcome) and s.scores)  # fmt: skip
        return cls(outside, sum(1 for r in run.records if r.left_out))

    @property
    def flags(self) -> list[str]:
        """One phrase per kind of flag (none: [])."""
        out = []
        if self.out_of_range:
            out.append(f"{self.out_of_range} criterion score{'s' if self.out_of_range != 1 else ''} outside "
                       f"{cw.SCALE} (kept and counted, as upstream keeps them)")  # fmt: skip
        if self.left_out:
            out.append(f"{self.left_out} judge repl{'ies' if self.left_out != 1 else 'y'} with a score that is not a "
                       "finite number (left out, the rest kept)")  # fmt: skip
        return out

    def columns(self) -> dict[str, int]:
        return {"out_of_range": self.out_of_range, "left_out": self.left_out}

    def lines(self) -> list[str]:
        return [f"FLAGGED    {flag}" for flag in self.flags]


@dataclass(frozen=True)
class Progress:
    """Items of a run: asked (iterations × items), ended scored, ended unscored, still to ask."""

    expected: int
    scored: int
    unscored: int
    pending: int

    @classmethod
    def of(cls, states: Mapping[Any, Ask | Outcome], expected: int) -> Progress:
        ended = [s for s in states.values() if isinstance(s, Outcome)]
        scored = sum(s.scored for s in ended)
        return cls(expected, scored, len(ended) - scored, expected - len(ended))

    @property
    def complete(self) -> bool:
        return self.pending <= 0


@dataclass(frozen=True)
class CreativeWritingSummary:
    model: str
    run_id: str
    judge: str
    score: cw.CreativeWritingScore
    progress: Progress
    #: mean score (0-10, as the judge gave it, not turned for negative criteria) per criterion, over scored pieces
    criteria: dict[str, float] = field(default_factory=dict)
    numbers: NumberFlags = field(default_factory=NumberFlags)

    @property
    def flags(self) -> list[str]:
        return self.numbers.flags

    def as_row(self) -> dict[str, Any]:
        def r(x: float) -> float | None:
            return round(x, 2) if math.isfinite(x) else None

        s = self.score
        return {
            "benchmark": "creative-writing",
            "model": self.model,
            "run_id": self.run_id,
            "judge": self.judge,
            "score": s.upstream_score if s.defined else None,
            "upstream_score": s.upstream_score,
            "low": r(s.low),
            "high": r(s.high),
            "iterations_counted": s.counted_iterations,
            "iterations": s.iterations,
            "pieces_scored": self.progress.scored,
            "expected": self.progress.expected,
            "unscored": self.progress.unscored,
            **self.numbers.columns(),
        }

    def lines(self) -> list[str]:
        s = self.score
        interval = "" if not s.defined else f"   95 % t interval over {s.n_prompts} prompts {s.low:.2f} – {s.high:.2f}"
        return [
            f"score      {s.text} (0-100){interval}",
            f"iterations {s.counted_iterations} of {s.iterations} counted (more than {cw.MIN_PROMPTS_PER_ITERATION} "
            "prompts scored)",
            f"pieces     {self.progress.scored} scored, {self.progress.unscored} unscored (upstream leaves them "
            f"out), {self.progress.pending} still to ask, of {self.progress.expected}",
            *self.numbers.lines(),
        ]


def summarise_creative_writing(run: JudgedRun) -> CreativeWritingSummary:
    states = outcomes(run)
    scored = scored_by_iteration(run)
    sums: dict[str, list[float]] = {}
    for by_item in scored.values():
        for scores in by_item.values():
            for name, value in scores.items():
                sums.setdefault(name, []).append(value)
    return CreativeWritingSummary(
        run.model,
        run.run_id,
        run.judge,
        cw.creative_writing_score(scored),
        Progress.of(states, run.iterations * len(run.items_asked())),
        {name: sum(v) / len(v) for name, v in sums.items()},
        NumberFlags.of(run, states),
    )


@dataclass(frozen=True)
class JudgemarkSummary:
    """A judge's Judgemark run: each writer's score under each version's rule (``d28c60c``: every iteration;
    ``31bd53b``/``38a29f8``: iteration 1), every statistic under each version, the items per writer."""

    judge: str
    run_id: str
    progress: Progress
    writer_scores: dict[str, dict[str, float]]  # version -> writer -> score
    statistics: dict[str, dict[str, float]]  # version -> statistic -> value
    items_by_writer: dict[str, list[float]]  # iteration 1's per-piece scores × 10
    unscored_writers: list[str]  # writers whose score is upstream's 0 (10 or fewer pieces scored)
    numbers: NumberFlags = field(default_factory=NumberFlags)

    @property
    def flags(self) -> list[str]:
        return self.numbers.flags

    def value(self, statistic: str, version: str) -> float | None:
        """A statistic's value under a version; None where the version does not print it."""
        if not any(name == statistic and version in versions for name, versions in STATISTICS):
            return None
        return self.statistics[version].get(statistic, math.nan)

    def as_rows(self) -> list[dict[str, Any]]:
        """One row per version (for ``score`` as JSON or CSV)."""
        rows = []
        for version in jm.VERSIONS:
            row: dict[str, Any] = {"benchmark": JUDGEMARK, "model": self.judge, "run_id": self.run_id,
                                   "version": version}  # fmt: skip
            for name, versions in STATISTICS:
                if version in versions:
                    v = self.statistics[version].get(name, math.nan)
                    row[name] = v if math.isfinite(v) else None
            rows.append(row | self.numbers.columns())
        return rows


def _writer_frames(run: JudgedRun, pieces: Mapping[str, str]) -> tuple[list[str], dict[int, dict[str, dict]]]:
    """(writers in test-set order, ``{iteration: {writer: {prompt id: scores}}}``)."""
    writers = list(dict.fromkeys(w for w in (split_item(i)[0] for i in run.items_asked()) if w is not None))
    by: dict[int, dict[str, dict]] = {i: {w: {} for w in writers} for i in range(1, run.iterations + 1)}
    for iteration, by_item in scored_by_iteration(run, pieces).items():
        for item, scores in by_item.items():
            writer, prompt_id = split_item(item)
            if writer is not None:
                by.setdefault(iteration, {}).setdefault(writer, {})[prompt_id] = scores
    return writers, by


def summarise_judgemark(run: JudgedRun, pieces: Mapping[str, str]) -> JudgemarkSummary:
    """The Judgemark statistics of a run (``pieces``: the test set's text per item)."""
    states = outcomes(run, pieces)
    writers, by = _writer_frames(run, pieces)
    first = by.get(1, {})
    all_iterations = {w: cw.creative_writing_score({i: by[i].get(w, {}) for i in by}).upstream_score for w in writers}
    first_only = {w: cw.writer_score(first.get(w, {})) for w in writers}
    items = {w: cw.item_scores(first.get(w, {})) for w in writers}
    f, p = jm.anova_f(items) if all(items.values()) else (math.nan, math.nan)
    overlapping, non_overlapping = jm.separation(first_only, items)
    fit = jm.bias_fit(run.judge or run.model, first_only)
    extra = {
        "anova_f": f,
        "anova_p": p,
        "avg_ci95": jm.average_ci_width(items),
        "overlapping_range": overlapping,
        "non_overlapping_range": non_overlapping,
        "self_bias": fit.self_bias,
        "family_bias": fit.family_bias,
    }
    stats: dict[str, dict[str, float]] = {}
    scores_by_version: dict[str, dict[str, float]] = {}
    for version in jm.VERSIONS:
        scores = all_iterations if version == "d28c60c" else first_only
        scores_by_version[version] = scores
        s = jm.statistics(scores, version, anova_f=f) if len(scores) > 1 else {}
        if version != "d28c60c":
            s |= {k: v for k, v in extra.items() if version == "38a29f8" or k in ("self_bias", "family_bias")}
        stats[version] = s
    unscored = [w for w in writers if first_only[w] == 0.0 or all_iterations[w] == 0.0]
    return JudgemarkSummary(
        run.judge or run.model,
        run.run_id,
        Progress.of(states, run.iterations * len(run.items_asked())),
        scores_by_version,
        stats,
        items,
        unscored,
        NumberFlags.of(run, states),
    )
