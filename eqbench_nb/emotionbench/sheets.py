"""The published EmotionBench results, read from upstream's own files and rescored here.

- PANAS test sheets (``results/PANAS Test/<model>-PANAS-testing.csv``, 7 models): upstream's test-sheet layout
  (``utils.generate_testfile``): columns ``question-k`` / ``order-k`` (the items as listed, and their ids), then
  one column per response, ``General_test-t_order-k`` or ``<Emotion>-<f>_scenario-<s>_test-t_order-k``, whose
  rows 2-21 hold the ratings in the listed order. They are mapped back to item ids through ``order-k`` as
  upstream's ``convert_data`` does; a column with a blank or non-integer cell (a refusal upstream could not
  read) is counted and left out (upstream's analysis stops on it).
- Challenging Bench sheets (gpt-3.5-turbo on eight emotion-specific scales): the same layout; reverse-scored
  items are ``scale - value`` and sub-scales SUM, SUM*2 or AVG, as the questionnaire says.
- The leaderboard (branch ``gh-pages``: ``data.json``, ``metadata.json``): per model the default ("Control")
  and per-factor PA/NA means.
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
import statistics
from dataclasses import dataclass, field
from typing import Any

from .files import challenging_sheet_names, locate, panas_sheet_names
from .items import Questionnaire, load_questionnaire
from .scoring import NA, PA, SUBSCALES, Scored, subscale_scores

#: Test-sheet file stem -> leaderboard model name (the leaderboard has no llama3.1-8b).
SHEET_TO_LEADERBOARD = {
    "davinci-003": "Text-Davinci-003",
    "gpt-3.5-turbo": "GPT-3.5-Turbo",
    "gpt-4": "GPT-4",
    "llama2-13b": "LLaMA-2-13B",
    "llama2-7b": "LLaMA-2-7B",
    "mixtral-8x22b": "Mixtral-8x22B",
}
#: Two cells where the sheet and the leaderboard differ for a known reason: the llama2-7b sheet lacks 13 runs
#: of Jealousy's romantic factors (scenario 4), which the leaderboard's means include.
KNOWN_MISMATCHES = {("llama2-7b", "Jealousy-0"), ("llama2-7b", "Jealousy-1")}

_RESPONSE = re.compile(r"(?P<situation>General|[A-Za-z]+-\d+_scenario-\d+)_test-(?P<test>\d+)_order-(?P<order>\d+)")


@dataclass
class Sheet:
    """A filled test sheet: each readable response's ratings by item id, and the columns left out."""

    name: str  # the file stem's model part, "gpt-4"
    questionnaire: str
    responses: list[tuple[str, dict[int, int]]]  # (situation key or "General", item id -> rating)
    unreadable: list[str] = field(default_factory=list)  # response columns with a blank or non-integer cell

    def scored(self, questionnaire: Questionnaire) -> list[Scored]:
        """Each response's sub-scale scores (reverse items scored ``scale - value``, as upstream)."""
        out = []
        for situation, ratings in self.responses:
            values = {
                i: (questionnaire.scale_max + 1 - v if i in questionnaire.reverse else v) for i, v in ratings.items()
            }
            out.append(Scored(situation, subscale_scores(values, questionnaire.categories, questionnaire.compute_mode)))
        return out


def read_sheet(file_name: str, data_path: str | os.PathLike | None = None) -> Sheet:
    """One upstream test sheet (see the module docstring)."""
    with open(locate(file_name, data_path), encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[2:]
    columns = {name: [r[j] if j < len(r) else "" for r in body] for j, name in enumerate(header)}
    orders = {name: [int(v) for v in col] for name, col in columns.items() if name.startswith("order-")}
    stem = file_name.removesuffix("-testing.csv")
    model, _, questionnaire = stem.rpartition("-")
    if questionnaire == "21":  # DASS-21
        model, questionnaire = model.rsplit("-", 1)[0], "DASS-21"
    sheet = Sheet(model, questionnaire, [])
    for name, cells in columns.items():
        m = _RESPONSE.fullmatch(name)
        if not m:
            continue
        try:
            values = [int(v) for v in cells]
        except ValueError:
            sheet.unreadable.append(name)
            continue
        sheet.responses.append((m["situation"], dict(zip(orders[f"order-{m['order']}"], values))))
    return sheet


def read_panas_sheets(data_path: str | os.PathLike | None = None) -> dict[str, Sheet]:
    """The 7 published PANAS test sheets, by model name."""
    sheets = [read_sheet(n, data_path) for n in panas_sheet_names()]
    return {s.name: s for s in sheets}


def read_challenging_sheets(data_path: str | os.PathLike | None = None) -> dict[str, Sheet]:
    """The 8 Challenging Bench sheets (gpt-3.5-turbo), by questionnaire name."""
    sheets = [read_sheet(n, data_path) for n in challenging_sheet_names()]
    return {s.questionnaire: s for s in sheets}


def factor_means(scored: list[Scored]) -> dict[str, dict[str, float]]:
    """``"Anger-0"`` (or ``"General"``) -> sub-scale -> mean score over the responses."""
    groups: dict[str, list[Scored]] = {}
    for s in scored:
        groups.setdefault("General" if s.situation == "General" else s.factor, []).append(s)
    return {k: {c: statistics.fmean(x.scores[c] for x in g) for c in g[0].scores} for k, g in groups.items()}


def load_leaderboard(data_path: str | os.PathLike | None = None) -> dict[str, dict[str, dict[str, float]]]:
    """The leaderboard as model -> ``"General"`` or factor key (``"Anger-0"``) -> {PA, NA} means.

    Factor keys come from ``metadata.json``'s factor lists (emotion -> names in upstream order)."""
    with open(locate("data.json", data_path), encoding="utf-8") as f:
        data = json.load(f)
    with open(locate("metadata.json", data_path), encoding="utf-8") as f:
        meta = json.load(f)
    out: dict[str, dict[str, dict[str, float]]] = {}
    for model, values in data.items():
        cells = {"General": {PA: float(values["Control"][PA]), NA: float(values["Control"][NA])}}
        for emotion, names in meta.items():
            for i, name in enumerate(names):
                v = values.get(emotion, {}).get(name)
                if v is not None:
                    cells[f"{emotion}-{i}"] = {PA: float(v[PA]), NA: float(v[NA])}
        out[model] = cells
    return out


@dataclass(frozen=True)
class CellMatch:
    sheet: str
    leaderboard: str
    factor: str
    ours: dict[str, float]
    published: dict[str, float]
    n: int

    @property
    def matched(self) -> bool:
        return all(math.isclose(self.ours[s], self.published[s], abs_tol=1e-6) for s in SUBSCALES)


def match_factor_cells(data_path: str | os.PathLike | None = None) -> list[CellMatch]:
    """Each (model, factor) cell of the 6 sheet models in the leaderboard: our rescored mean beside its value."""
    questionnaire = load_questionnaire("PANAS", data_path)
    board = load_leaderboard(data_path)
    out = []
    for name, sheet in read_panas_sheets(data_path).items():
        if name not in SHEET_TO_LEADERBOARD:
            continue
        scored = sheet.scored(questionnaire)
        means = factor_means(scored)
        counts: dict[str, int] = {}
        for s in scored:
            counts[s.factor] = counts.get(s.factor, 0) + 1
        published = board[SHEET_TO_LEADERBOARD[name]]
        for factor, value in published.items():
            if factor == "General":
                continue
            ours = means.get(factor, {PA: math.nan, NA: math.nan})
            out.append(CellMatch(name, SHEET_TO_LEADERBOARD[name], factor, ours, value, counts.get(factor, 0)))
    return out


def challenging_table(data_path: str | os.PathLike | None = None) -> list[dict[str, Any]]:
    """The Challenging Bench sheets rescored as upstream does: per scale, factor and sub-scale, the paper's
    verdict of the evoked responses against the default (``verdict``: its test takes a factor's 5 situations x 10
    repeats as 50 independent responses), and beside it the verdict with the situations as the units
    (``clustered_verdict``, ``clustered_p``: :func:`.clustered.clustered_compare`, at the same α)."""
    from .clustered import clustered_compare
    from .items import factor_names
    from .scoring import compare

    names = factor_names(data_path)
    rows = []
    for scale, sheet in read_challenging_sheets(data_path).items():
        q = load_questionnaire(scale, data_path)
        scored = sheet.scored(q)
        default = [s for s in scored if s.situation == "General"]
        groups: dict[str, list[Scored]] = {}
        for s in scored:
            if s.situation != "General":
                groups.setdefault(s.factor, []).append(s)
        for factor, group in groups.items():
            for cat in q.categories:
                c = compare([x.scores[cat] for x in group], [x.scores[cat] for x in default])
                situations: dict[str, list[float]] = {}
                for x in group:
                    situations.setdefault(x.situation, []).append(x.scores[cat])
                cc = clustered_compare(situations, [x.scores[cat] for x in default])
                rows.append(
                    {
                        "scale": scale,
                        "factor": factor,
                        "factor_name": names.get(factor, factor),
                        "subscale": cat,
                        "default_mean": statistics.fmean(x.scores[cat] for x in default),
                        "evoked_mean": statistics.fmean(x.scores[cat] for x in group),
                        "n_default": len(default),
                        "n_evoked": len(group),
                        "verdict": c.verdict if c else "",
                        "cell": c.cell() if c else "",
                        "n_situations": len(situations),
                        "clustered_verdict": cc.verdict if cc else "",
                        "clustered_p": cc.p_value if cc else math.nan,
                        "unreadable_columns": len(sheet.unreadable),
                    }
                )
    return rows


def panas_paper_tables(data_path: str | os.PathLike | None = None) -> list[dict[str, Any]]:
    """The paper's PANAS table for each stored model: the default (mean ± SD), each emotion's cell and the overall
    cell (verdict and difference against the default: F-test then t-test, α = 0.01), and N per row."""
    from .items import factor_names
    from .scoring import paper_table

    questionnaire = load_questionnaire("PANAS", data_path)
    names = factor_names(data_path)
    rows: list[dict[str, Any]] = []
    for model, sheet in read_panas_sheets(data_path).items():
        scored = sheet.scored(questionnaire)
        default_means, n_default, table = paper_table(scored, names)
        default = [s for s in scored if s.situation == "General"]
        sd = {c: statistics.stdev(x.scores[c] for x in default) for c in SUBSCALES}
        pa, na = (f"{default_means[c]:.1f} ± {sd[c]:.1f}" for c in (PA, NA))
        rows.append({"model": model, "row": "Default", "PA": pa, "NA": na, "N": n_default,
                     "unreadable_columns": len(sheet.unreadable)})  # fmt: skip
        for t in table:
            if t.level == "factor":
                continue
            cells = {c: (t.comparisons[c].cell() if t.comparisons[c] else "") for c in SUBSCALES}  # type: ignore[union-attr]
            rows.append({"model": model, "row": t.emotion or "Overall", "PA": cells[PA], "NA": cells[NA], "N": t.n})
    return rows


def control_and_overall_vs_leaderboard(data_path: str | os.PathLike | None = None) -> list[dict[str, Any]]:
    """For each sheet model on the leaderboard: the default and overall evoked means, ours beside the published."""
    questionnaire = load_questionnaire("PANAS", data_path)
    with open(locate("data.json", data_path), encoding="utf-8") as f:
        data = json.load(f)
    rows = []
    for model, sheet in read_panas_sheets(data_path).items():
        scored = sheet.scored(questionnaire)
        board = data.get(SHEET_TO_LEADERBOARD.get(model, ""), {})
        default = [s for s in scored if s.situation == "General"]
        evoked = [s for s in scored if s.situation != "General"]
        row: dict[str, Any] = {"model": model, "leaderboard": SHEET_TO_LEADERBOARD.get(model, "(not listed)")}
        for c, tag in ((PA, "pa"), (NA, "na")):
            row[f"default_{tag}"] = statistics.fmean(x.scores[c] for x in default)
            row[f"default_{tag}_published"] = board.get("Control", {}).get(c, math.nan)
            row[f"evoked_{tag}"] = statistics.fmean(x.scores[c] for x in evoked)
            row[f"evoked_{tag}_published"] = board.get("Overall", {}).get(c, math.nan)
        row["n_default"], row["n_evoked"], row["unreadable_columns"] = len(default), len(evoked), len(sheet.unreadable)
        rows.append(row)
    return rows
