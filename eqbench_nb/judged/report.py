"""What a judged run prints: the creative-writing score, or a judge's score per writer and every statistic upstream
prints under each named formula version, an undefined value as "undefined" (:func:`.judgemark.fmt`), never a number.
"""

from __future__ import annotations

from . import judgemark as jm
from .summary import STATISTICS, CreativeWritingSummary, JudgemarkSummary

#: What each statistic is, for the caption.
VERSION_NOTES = {
    "d28c60c": "EQ-bench/EQ-Bench lib/run_bench.py: writer scores over every iteration; Judgemark = mean of "
    "range/60, SD/10, top-5 SD/2, CV/0.4, mean Kendall, mean Pearson (Arena, EQ-Bench, MAGI)",
    "31bd53b": "C-4-5-3/EQ-Bench lib/judgemark.py: iteration 1; mean Kendall, mean Pearson (all and top 8), SD/15",
    "38a29f8": "same file, the board's version: as 31bd53b plus ANOVA F/28",
}


def judgemark_lines(s: JudgemarkSummary) -> list[str]:
    """The judge's score per writer under each version's rule, then every statistic under each version."""
    writers = list(s.writer_scores["38a29f8"])
    width = max([len(w) for w in writers] + [24])
    out = [f"{'writer (0-100)':<{width}}  {'d28c60c':>9}  {'31bd53b/38a29f8':>16}"]
    for w in sorted(writers, key=lambda w: -s.writer_scores["38a29f8"][w]):
        out.append(f"{w:<{width}}  {jm.fmt(s.writer_scores['d28c60c'][w]):>9}  "
                   f"{jm.fmt(s.writer_scores['38a29f8'][w]):>16}")  # fmt: skip
    out += ["", f"{'statistic':<{width}}  " + "  ".join(f"{v:>9}" for v in jm.VERSIONS)]
    for name, _ in STATISTICS:
        cells = []
        for version in jm.VERSIONS:
            value = s.value(name, version)
            digits = 4 if name == "anova_p" else 2
            cells.append(f"{'—' if value is None else jm.fmt(value, digits):>9}")
        out.append(f"{name:<{width}}  " + "  ".join(cells))
    p = s.progress
    out += ["", f"pieces     {p.scored} scored, {p.unscored} unscored (upstream leaves them out), {p.pending} still to "
            f"ask, of {p.expected}"]  # fmt: skip
    out += s.numbers.lines()
    if s.unscored_writers:
        out.append(f"note: {len(s.unscored_writers)} writer(s) had 10 or fewer pieces scored and get upstream's 0 "
                   f"(which enters the statistics, as upstream's does): {', '.join(s.unscored_writers)}")  # fmt: skip
    return out


def caption() -> str:
    """What the Judgemark table's columns are (for stderr under ``score``, after the table under ``run``)."""
    notes = "; ".join(f"{v}: {t}" for v, t in VERSION_NOTES.items())
    return (
        f"versions: {notes}. '—': the version does not print it; 'undefined': not computable (a judge giving every "
        "writer one score has no correlation, hence no Judgemark). ANOVA, average 95 % CI and the overlapping and "
        "non-overlapping ranges are over iteration 1's per-piece scores (38a29f8's separation metric, which it "
        "prints and leaves out of the score); self and family bias fit this judge against upstream's panel of 8"
    )


def summary_lines(summary: CreativeWritingSummary | JudgemarkSummary) -> list[str]:
    if isinstance(summary, JudgemarkSummary):
        return [*judgemark_lines(summary), "", caption()]
    return summary.lines()


def cell(value: object) -> str:
    """A terminal cell: "—" for none, 2 decimals for a number ("undefined" for NaN), text clipped."""
    from ..runner.redact import clip

    if value is None:
        return "—"
    if isinstance(value, float):
        return jm.fmt(value)
    return clip(str(value), 80)
