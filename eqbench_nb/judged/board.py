"""The published Judgemark v1 board (eqbench.com ``judgemark.js``) as a committed table, and its re-derivation.

``data/judgemark_v1_board.csv`` (long: one row per judge and field) holds, for each of the 15 judges, its score of
each of the 19 writers (``field`` = ``writer:<name>``) and every statistic the board prints for it (``anova_f``,
``anova_p``, ``self_bias``, ``family_bias``, ``avg_ci95``, ``mean_score``, ``range``, ``std_dev``, ``CV``,
``std_dev_top_5``, the eight correlations, ``Judgemark``, ``cost_usd``); an empty value is the board's "N/A" or
a field the board leaves out. It was made by :func:`parse_board_text` from the ``leaderboardDataJudgemark`` text of
EQ-bench/EQ-bench-site ``judgemark.js`` @ ``03c3106`` (``source`` column).

:func:`rederive` recomputes, under ``38a29f8`` (:data:`~eqbench_nb.judged.judgemark.BOARD_VERSION`), every
statistic derivable from the published writer scores, the bias fits included (they also need the other judges'
writer scores: upstream's own panel table), and the Judgemark score with the published ANOVA F as input. The ANOVA
F and p and the average 95 % CI need the judge's per-item scores, which were never published: they are taken as
published (:data:`NEEDS_ITEM_SCORES`).
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
from functools import lru_cache
from typing import Any

import pandas as pd

from ..analysis.stats import correlation_summary
from ..paths import tables_dir
from . import judgemark as jm
from .board_columns import BOARD_COLUMNS

BOARD_TABLE = "judgemark_v1_board.csv"
BOARD_SOURCE = (
    "EQ-bench/EQ-bench-site @ 03c310667cbf93e2fd9f20076c5fc8ba54f10477 judgemark.js (leaderboardDataJudgemark)"
)
#: Statistics that need per-item scores (never published): taken from the board as published.
NEEDS_ITEM_SCORES: tuple[str, ...] = ("anova_f", "anova_p", "avg_ci95")
#: Statistics re-derived from the published writer scores alone.
FROM_WRITER_SCORES: tuple[str, ...] = (
    "mean_score",
    "range",
    "std_dev",
    "CV",
    "std_dev_top_5",
    "pearson_arena_elo",
    "kendall_arena_elo",
    "pearson_eq_bench",
    "kendall_eq_bench",
    "pearson_top_8_arena_elo",
    "kendall_top_8_arena_elo",
    "pearson_top_8_eq_bench",
    "kendall_top_8_eq_bench",
)
#: Statistics that also need the other judges' writer scores (upstream's panel).
BIAS_STATISTICS: tuple[str, ...] = ("self_bias", "family_bias")
#: The board prints 2 decimals: a re-derived value counts as reproduced within this (issue 37's bar).
STAT_TOLERANCE = 0.01
JUDGEMARK_TOLERANCE = 0.05

_STAT_LINES = {
    "ANOVA f-statistic": "anova_f",
    "ANOVA p-value": "anova_p",
    "Self bias:": "self_bias",
    "Family bias:": "family_bias",
    "Avg 95% CI:": "avg_ci95",
    "Cost:": "cost_usd",
}


def parse_board_text(text: str, source: str = BOARD_SOURCE) -> pd.DataFrame:
    """The board's text (``# judge``, "Test model scores:" lines ``score writer``, "Stats:" lines) as the long table.

    A leading ``*`` of a judge's heading (the site's mark) is kept in ``board_label`` and dropped from ``judge``.
    Upstream prints the family-bias line as a second "Self bias: N/A" when it is not derivable; both N/A lines
    give empty values. Raises ``ValueError`` on a line it does not understand (a transcription is checked whole).
    """
    rows: list[dict[str, object]] = []
    label = judge = None
    section = None
    na_self_seen = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("# "):
            label = line[2:].strip()
            judge, section, na_self_seen = label.lstrip("*"), None, False
            continue
        if judge is None:
            raise ValueError(f"board text: a line before the first judge: {line!r}")
        if line in ("Test model scores:", "Stats:"):
            section = line
            continue

        def add(field: str, value: float | None, judge: str = judge, label: str | None = label) -> None:
            rows.append({"judge": judge, "board_label": label, "field": field, "value": value, "source": source})

        if section == "Test model scores:":
            m = re.fullmatch(r"(-?\d+(?:\.\d+)?) (\S+)", line)
            if not m:
                raise ValueError(f"board text: not a writer score: {line!r}")
            add(f"writer:{m.group(2)}", float(m.group(1)))
            continue
        if line == "Self bias: N/A":
            add("family_bias" if na_self_seen else "self_bias", None)
            na_self_seen = True
            continue
        if line == "Family bias: N/A":
            add("family_bias", None)
            continue
        for prefix, field in _STAT_LINES.items():
            if line.startswith(prefix):
                add(field, float(line[len(prefix) :].strip().lstrip("$")))
                break
        else:
            m = re.fullmatch(r"(\w+) (-?\d+(?:\.\d+)?(?:e-?\d+)?)", line)
            if not m:
                raise ValueError(f"board text: not a statistic: {line!r}")
            add(m.group(1), float(m.group(2)))
    return pd.DataFrame(rows, columns=["judge", "board_label", "field", "value", "source"])


@lru_cache(maxsize=1)
def board_long() -> pd.DataFrame:
    """The committed board table (long)."""
    return pd.read_csv(tables_dir() / BOARD_TABLE)


def _or_committed(table: pd.DataFrame | None) -> pd.DataFrame:
    """The board table a caller gave (:func:`read_board`), else the committed one."""
    return board_long() if table is None else table


def judges(table: pd.DataFrame | None = None) -> list[str]:
    """The judges in board order (the committed board's 15, or those of ``table``)."""
    return list(dict.fromkeys(_or_committed(table)["judge"]))


def by_judge(table: pd.DataFrame | None = None) -> list[tuple[str, pd.DataFrame]]:
    """(judge, its rows) in board order: each judge's rows found once, not once per question asked of them."""
    t = _or_committed(table)
    return [(str(judge), rows) for judge, rows in t.groupby("judge", sort=False)]


def _fields(judge: str, table: pd.DataFrame | None) -> list[tuple[str, Any]]:
    """A judge's (field, value) rows in board order, by one pass over the columns: a board file of 270 judges asks
    for them 1,350 times, and each pandas mask and ``.str`` call cost a millisecond."""
    t = _or_committed(table)
    return [(f, v) for j, f, v in zip(t["judge"], t["field"], t["value"]) if j == judge]


def writer_scores(judge: str, table: pd.DataFrame | None = None) -> dict[str, float]:
    """A judge's published score of each writer, in board order."""
    return {f.removeprefix("writer:"): float(v) for f, v in _fields(judge, table) if f.startswith("writer:")}


def writer_matrix() -> pd.DataFrame:
    """Writers × judges of published scores (board order on both axes)."""
    return pd.DataFrame({j: writer_scores(j) for j in judges()})


def published(judge: str, table: pd.DataFrame | None = None) -> dict[str, float]:
    """A judge's published statistics (NaN for N/A or absent)."""
    return {f: (float(v) if pd.notna(v) else math.nan) for f, v in _fields(judge, table) if not f.startswith("writer:")}


def rederive_judge(judge: str, version: str = jm.BOARD_VERSION, table: pd.DataFrame | None = None) -> dict[str, float]:
    """Every statistic of ``judge`` re-derived from the published writer scores (bias fits from the panel with this
    judge's published scores), Judgemark with the published ANOVA F as input."""
    scores = writer_scores(judge, table)
    pub = published(judge, table)
    stats = jm.statistics(scores, version, anova_f=pub.get("anova_f"))
    self_bias, family_bias = jm.self_and_family_bias(judge, scores)
    stats["self_bias"], stats["family_bias"] = self_bias, family_bias
    return stats


def _matches(derived: float, board: float, tol: float) -> bool:
    if math.isnan(board) and math.isnan(derived):
        return True  # N/A on the board, not derivable here: the same verdict
    return abs(derived - board) <= tol + 1e-9


def rederive(version: str = jm.BOARD_VERSION, table: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per judge and statistic: ``published``, ``rederived``, ``difference``, ``matches`` (within 0.01, 0.05
    for Judgemark), ``kind`` (writer scores / bias panel / needs per-item scores: taken as published); the committed
    board's, or that of ``table`` (:func:`read_board`)."""
    rows = []
    for judge, mine in by_judge(table):
        pub, der = published(judge, mine), rederive_judge(judge, version, mine)
        for stat in (*FROM_WRITER_SCORES, *BIAS_STATISTICS, "Judgemark", *NEEDS_ITEM_SCORES):
            board = pub.get(stat, math.nan)
            if stat in NEEDS_ITEM_SCORES:
                rows.append(
                    {"judge": judge, "statistic": stat, "kind": "per-item scores: taken as published",
                     "published": board, "rederived": math.nan, "difference": math.nan, "matches": None}
                )  # fmt: skip
                continue
            value = der.get(stat, math.nan)
            tol = JUDGEMARK_TOLERANCE if stat == "Judgemark" else STAT_TOLERANCE
            kind = (
                "writer scores"
                if stat in FROM_WRITER_SCORES
                else "writer scores + bias panel"
                if stat in BIAS_STATISTICS
                else "writer scores + published ANOVA F"
            )
            rows.append(
                {"judge": judge, "statistic": stat, "kind": kind, "published": board, "rederived": value,
                 "difference": value - board, "matches": _matches(value, board, tol)}
            )  # fmt: skip
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------------------------
# a board file given to `score`: the file given is the file read
# ---------------------------------------------------------------------------------------------------------------

#: The statistics a board row may hold beside the writer scores (``cost_usd``: the board's, read by nothing here).
BOARD_STATISTICS: frozenset[str] = frozenset(
    (*FROM_WRITER_SCORES, *BIAS_STATISTICS, *NEEDS_ITEM_SCORES, "Judgemark", "cost_usd")
)
#: A board file larger than this is refused before it is read (the committed one is 60 kB).
MAX_BOARD_BYTES = 32 << 20


class BoardError(ValueError):
    """A board file that cannot be re-derived: one line naming what is wrong."""


def set_writers() -> list[str]:
    """The 19 writers of Judgemark v1's test set (upstream's bias panel names them, in board order)."""
    return list(next(iter(jm.bias_panel().values())))


def read_board(path: str | os.PathLike) -> pd.DataFrame:
    """The board table in ``path`` (the committed table's layout: :data:`BOARD_COLUMNS`, long), validated: every
    column present, every row a judge's writer score (``writer:<name>``, a finite number) or one of its statistics
    (:data:`BOARD_STATISTICS`, a finite number or empty for N/A), no judge's field twice, and every judge scoring
    exactly the test set's writers. Raises :class:`BoardError` (one line naming the row and what is wrong)."""
    if os.path.getsize(path) > MAX_BOARD_BYTES:
        raise BoardError(
            f"a board file of {os.path.getsize(path):,} bytes; the board is well under {MAX_BOARD_BYTES:,}"
        )
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            rows = list(csv.reader(io.StringIO(f.read())))
    except UnicodeDecodeError as exc:
        raise BoardError(f"not UTF-8 text (byte {exc.start})") from None
    except csv.Error as exc:
        raise BoardError(f"not a CSV file ({exc})") from None
    if not rows:
        raise BoardError("an empty file, not a Judgemark board CSV")
    header = [c.strip() for c in rows[0]]
    missing = [c for c in BOARD_COLUMNS if c not in header]
    if missing:
        raise BoardError(
            f"a Judgemark board CSV missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            f"(a board's columns: {','.join(BOARD_COLUMNS)})"
        )
    if len(set(header)) < len(header):
        raise BoardError(f"a board CSV whose header names a column twice: {','.join(header)}")
    at = {c: header.index(c) for c in BOARD_COLUMNS}
    records: list[dict[str, object]] = []
    seen: dict[tuple[str, str], int] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != len(header):
            raise BoardError(f"CSV line {number} has {len(row)} fields, the header {len(header)}")
        judge, field, text = (row[at[c]].strip() for c in ("judge", "field", "value"))
        if not judge:
            raise BoardError(f"CSV line {number} names no judge")
        value = _board_value(number, judge, field, text)
        if (judge, field) in seen:
            raise BoardError(f"CSV line {number} repeats judge {judge!r}'s {field} (CSV line {seen[judge, field]})")
        seen[judge, field] = number
        records.append({c: row[at[c]] for c in BOARD_COLUMNS} | {"judge": judge, "field": field, "value": value})
    if not records:
        raise BoardError("a board CSV with a header and no rows")
    table = pd.DataFrame(records, columns=list(BOARD_COLUMNS))
    _check_writers(table)
    return table


def _board_value(number: int, judge: str, field: str, text: str) -> float:
    """A row's value: a writer score is a finite number, a statistic a finite number or empty (the board's N/A)."""
    writer = field.startswith("writer:")
    if not writer and field not in BOARD_STATISTICS:
        raise BoardError(
            f"CSV line {number}: field {field!r} is neither writer:<name> nor one of the board's "
            f"{len(BOARD_STATISTICS)} statistics (Judgemark, std_dev, anova_f, ...)"
        )
    if not text:
        if writer:
            raise BoardError(f"CSV line {number}: judge {judge!r}'s score of {field} is empty")
        return math.nan
    try:
        value = float(text)
    except ValueError:
        raise BoardError(f"CSV line {number}: judge {judge!r}'s {field} is {text[:40]!r}, not a number") from None
    if not math.isfinite(value):
        raise BoardError(f"CSV line {number}: judge {judge!r}'s {field} is {text[:40]!r}, not a finite number")
    return value


def _check_writers(table: pd.DataFrame) -> None:
    """Every judge scores exactly the test set's writers (the statistics and the bias fits are over them)."""
    expected = set_writers()
    for judge, mine in by_judge(table):
        got = list(writer_scores(judge, mine))
        if set(got) == set(expected):
            continue
        parts = [
            f"{len(names)} {what} ({', '.join(names[:3])}{', ...' if len(names) > 3 else ''})"
            for what, names in (
                ("missing", [w for w in expected if w not in got]),
                ("not in the test set", [w for w in got if w not in expected]),
            )
            if names
        ]
        raise BoardError(
            f"judge {judge!r} scores {len(got)} writers, not the test set's {len(expected)}: {'; '.join(parts)}"
        )


def judges_fully_rederived(table: pd.DataFrame | None = None) -> list[str]:
    """The judges whose every derivable statistic (writer-score statistics and biases) re-derives within 0.01."""
    t = rederive() if table is None else table
    t = t[t["kind"].isin(["writer scores", "writer scores + bias panel"])]
    ok = t.groupby("judge", sort=False)["matches"].apply(lambda s: bool(s.astype(bool).all()))
    return [j for j in judges() if ok.get(j, False)]


# ---------------------------------------------------------------------------------------------------------------
# the board as multi-judge data (notebook 12)
# ---------------------------------------------------------------------------------------------------------------


def versions_table() -> pd.DataFrame:
    """Each judge's Judgemark under every named formula (``38a29f8`` with the published ANOVA F), and the board's."""
    rows = []
    for judge in judges():
        scores, pub = writer_scores(judge), published(judge)
        row: dict[str, object] = {"judge": judge, "board": pub.get("Judgemark", math.nan)}
        for version in jm.VERSIONS:
            row[version] = jm.judgemark(scores, version, anova_f=pub.get("anova_f"))
        rows.append(row)
    return pd.DataFrame(rows).set_index("judge")


def pairwise_agreement(method: str = "spearman") -> pd.DataFrame:
    """Judges × judges rank correlation of their scores of the 19 writers (``spearman`` or ``kendall``)."""
    return writer_matrix().corr(method=method)


def consensus_agreement() -> pd.DataFrame:
    """Each judge against the consensus of the other 14 (the mean of their scores of each writer): Pearson and
    Spearman with Fisher-z intervals (Bonett–Wright for Spearman), n = 19 writers (below the small-n threshold)."""
    m = writer_matrix()
    rows = []
    for judge in m.columns:
        others = m.drop(columns=judge).mean(axis=1)
        summary = correlation_summary(m[judge], others, interval="fisher")
        rows.append({"judge": judge, **summary})
    return pd.DataFrame(rows).set_index("judge")


def spread_table() -> pd.DataFrame:
    """Each judge's spread of writer scores (SD, range, top-5 SD, as re-derived) with its Judgemark on the board."""
    rows = []
    for judge in judges():
        s = jm.statistics(writer_scores(judge), jm.BOARD_VERSION, anova_f=published(judge).get("anova_f"))
        rows.append(
            {"judge": judge, "mean": s["mean_score"], "sd": s["std_dev"], "range": s["range"],
             "top5_sd": s["std_dev_top_5"], "judgemark": s["Judgemark"]}
        )  # fmt: skip
    return pd.DataFrame(rows).set_index("judge")


def bias_table() -> pd.DataFrame:
    """Self and family bias as published and as recomputed, with the fit's residual SD, for every judge."""
    rows = []
    for judge in judges():
        pub, fit = published(judge), jm.bias_fit(judge, writer_scores(judge))
        rows.append(
            {"judge": judge, "self_published": pub.get("self_bias", math.nan), "self_rederived": fit.self_bias,
             "family_published": pub.get("family_bias", math.nan), "family_rederived": fit.family_bias,
             "fit_residual_sd": fit.residual_sd, "n_writers": fit.n_writers}
        )  # fmt: skip
    return pd.DataFrame(rows).set_index("judge")


def family_comparison(v1: pd.Series, v2: pd.Series) -> pd.DataFrame:
    """Judgemark v1 and v2.1 by vendor family (:func:`~eqbench_nb.judged.judgemark.vendor_family`) for the families
    with judges on both boards: each family's judges (different models on each board), its best and mean score
    and its rank (1 = best) among the shared families on each board. ``v1``/``v2`` map judge to score."""
    fam1 = v1.groupby(v1.index.map(jm.vendor_family))
    fam2 = v2.groupby(v2.index.map(jm.vendor_family))
    shared = sorted(set(fam1.groups) & set(fam2.groups))
    out = pd.DataFrame(
        {
            "v1_judges": [", ".join(fam1.get_group(f).index) for f in shared],
            "v1_best": [fam1.get_group(f).max() for f in shared],
            "v1_mean": [fam1.get_group(f).mean() for f in shared],
            "v2_judges": [", ".join(fam2.get_group(f).index) for f in shared],
            "v2_best": [fam2.get_group(f).max() for f in shared],
            "v2_mean": [fam2.get_group(f).mean() for f in shared],
        },
        index=pd.Index(shared, name="family"),
    )
    out["v1_rank"] = out["v1_best"].rank(ascending=False)
    out["v2_rank"] = out["v2_best"].rank(ascending=False)
    return out
