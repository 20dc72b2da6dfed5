"""One EmotionBench run in a few numbers (``eqbench-nb score``) and the paper's table for it.

Means are over complete answers only; refused, incomplete, unreadable answers and failed requests are
counted, never averaged in. ``refusals`` counts answers the reader marked ``refused``; the refusal rate is
over all records. With ``parser`` other than the run's own, every stored text is read again (the items' words
come from the questionnaire file).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .clustered import clustered_compare
from .parsing import parse_answer
from .runs import EmotionRecord, EmotionRun, planned_records
from .scoring import NA, PA, SUBSCALES, Scored, TableRow, paper_table, subscale_scores


@dataclass
class RunSummary:
    model: str
    run_id: str
    parser: str
    default: dict[str, float]
    evoked: dict[str, float]
    n_default: int
    n_evoked: int
    statuses: dict[str, int]
    records: int
    overall: dict[str, str] = field(default_factory=dict)  # the paper's overall cell per sub-scale
    overall_clustered: dict[str, str] = field(default_factory=dict)  # the same with the situations as the units
    planned: int | None = None  # records the header plans (None: it does not say)

    @property
    def complete(self) -> bool | None:
        return None if self.planned is None else self.records >= self.planned

    def incomplete_note(self) -> str | None:
        """One line when the run holds fewer records than it plans: its means and test are of those alone."""
        if self.complete is not False:
            return None
        return (
            f"incomplete run: {self.records} of {self.planned} planned records; its means and the change (F then t) "
            "are of these alone: run the same command again to finish it"
        )

    def empty_note(self) -> str | None:
        """One line when a mean is missing (shown ``-``): how many answers were usable and what the others were, so
        a table of dashes and zeros says why (a model that never answers in the questionnaire's format)."""
        means = [*self.default.values(), *self.evoked.values()]
        if not any(math.isnan(x) for x in means):
            return None
        usable = self.n_default + self.n_evoked
        kinds = ", ".join(f"{n} {status}" for status, n in sorted(self.statuses.items()) if status != "complete" and n)
        return (
            f"{usable} of {self.records} answers complete ({kinds or 'no other'}; parser {self.parser}): a mean needs "
            f"complete answers, so {'no mean' if not usable else 'a mean of a part with none'} is shown (-)"
        )

    @property
    def refusals(self) -> int:
        return self.statuses.get("refused", 0)

    def as_row(self) -> dict[str, Any]:
        def r(x: float) -> float | None:
            return None if math.isnan(x) else round(x, 4)

        return {
            "benchmark": "emotionbench",
            "model": self.model,
            "run_id": self.run_id,
            "parser": self.parser,
            "default_pa": r(self.default[PA]),
            "default_na": r(self.default[NA]),
            "evoked_pa": r(self.evoked[PA]),
            "evoked_na": r(self.evoked[NA]),
            "n_default": self.n_default,
            "n_evoked": self.n_evoked,
            "refusals": self.refusals,
            "refusal_rate": round(self.refusals / self.records, 4) if self.records else None,
            "incomplete": self.statuses.get("incomplete", 0),
            "unreadable": self.statuses.get("unreadable", 0),
            "no_answer": self.statuses.get("no answer", 0),
            "records": self.records,
            "planned": self.planned,
            "complete": self.complete,
            "overall_pa": self.overall.get(PA, ""),
            "overall_na": self.overall.get(NA, ""),
            "overall_pa_clustered": self.overall_clustered.get(PA, ""),
            "overall_na_clustered": self.overall_clustered.get(NA, ""),
        }

    def table(self) -> str:
        row = self.as_row()

        def f(x: float | None) -> str:
            return "-" if x is None else f"{x:.2f}"

        rate = "-" if row["refusal_rate"] is None else f"{100 * row['refusal_rate']:.1f}%"
        return "\n".join(
            [
                f"{'':<9}{'PA':>8}{'NA':>8}{'n':>7}",
                f"{'default':<9}{f(row['default_pa']):>8}{f(row['default_na']):>8}{row['n_default']:>7}",
                f"{'evoked':<9}{f(row['evoked_pa']):>8}{f(row['evoked_na']):>8}{row['n_evoked']:>7}",
                f"{'change':<9}{row['overall_pa'] or '-':>8}{row['overall_na'] or '-':>8}"
                "   (paper's test: F then t, α = 0.01; it counts repeats of one situation as independent)",
                f"{'':<9}{row['overall_pa_clustered'] or '-':>8}{row['overall_na_clustered'] or '-':>8}"
                "   (situations as the units: emotionbench.clustered)",
                f"answers    complete {row['n_default'] + row['n_evoked']}, refused {row['refusals']} ({rate}), "
                f"incomplete {row['incomplete']}, unreadable {row['unreadable']}, no answer {row['no_answer']} "
                f"(parser {self.parser})",
            ]
        )


def reread(run: EmotionRun, parser: str, data_path: str | os.PathLike | None = None) -> list[EmotionRecord]:
    """The run's records with every stored text read again by ``parser``."""
    from .items import load_questionnaire

    questionnaire = load_questionnaire(run.header.own.questionnaire or "PANAS", data_path)
    scale = (1, questionnaire.scale_max)
    out = []
    for r in run.records:
        parsed = parse_answer(r.attempt.get("text"), [questionnaire.items[i] for i in r.item_ids], parser, scale)
        ratings = {i: int(v) for i, v in zip(r.item_ids, parsed.ratings) if v is not None} if parsed.complete else {}
        new = dataclasses.replace(r, ratings=ratings, status=parsed.status, refusal=parsed.refusal)
        new.raw_ratings = list(parsed.ratings)
        out.append(new)
    return out


def scored_responses(run: EmotionRun, records: list[EmotionRecord] | None = None) -> list[Scored]:
    """Each complete answer's sub-scale scores (as upstream: SUM of the category's items)."""
    categories = run.header.own.categories
    if categories is None:
        raise KeyError("categories")  # a header without its questionnaire's categories cannot be scored
    mode = run.header.own.compute_mode or "SUM"
    return [
        Scored(r.situation, subscale_scores(r.ratings, categories, mode))
        for r in (run.records if records is None else records)
        if r.complete
    ]


def run_table(run: EmotionRun, parser: str | None = None) -> tuple[dict[str, float], int, list[TableRow]]:
    """The paper's table (per factor, per emotion, overall) for one run."""
    records = None if parser in (None, run.header.own.parser) else reread(run, parser)
    names = run.header.own.factor_names or {}
    return paper_table(scored_responses(run, records), names)


def summarise_run(run: EmotionRun, parser: str | None = None, data_path: str | os.PathLike | None = None) -> RunSummary:
    """The run's summary under its own reader, or under ``parser`` (every text read again)."""
    own = run.header.own.parser or "robust"
    records = run.records if parser in (None, own) else reread(run, parser or own, data_path)
    scored = scored_responses(run, records)
    default = [s for s in scored if s.situation == "General"]
    evoked = [s for s in scored if s.situation != "General"]

    def mean(group: list[Scored], scale: str) -> float:
        return sum(s.scores[scale] for s in group) / len(group) if group else math.nan

    _, _, rows = paper_table(scored, run.header.own.factor_names or {})
    overall = rows[-1].comparisons if rows else {}
    clustered = {}
    for scale in SUBSCALES:
        sits: dict[str, list[float]] = {}
        for x in evoked:
            sits.setdefault(x.situation, []).append(x.scores[scale])
        c = clustered_compare(sits, [x.scores[scale] for x in default]) if default else None
        if c is not None:
            clustered[scale] = f"{c.verdict} ({c.difference:+.1f})"
    return RunSummary(
        run.model,
        run.run_id,
        parser or own,
        {s: mean(default, s) for s in SUBSCALES},
        {s: mean(evoked, s) for s in SUBSCALES},
        len(default),
        len(evoked),
        dict(Counter(r.status for r in records)),
        len(records),
        {s: c.cell() for s, c in overall.items() if c is not None},
        clustered,
        planned_records(run.header),
    )
