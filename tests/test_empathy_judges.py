"""Kumar et al.'s two published tables re-derived from the rating files (the authors' rules, this project's code)."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest
from conftest import DATA, needs_data

from eqbench_nb.data import DataError
from eqbench_nb.empathy_judges import tables

pytestmark = needs_data


@pytest.fixture(scope="module")
def ours() -> pd.DataFrame:
    return tables.rederived()


def test_every_row_of_both_published_tables_rederives(ours: pd.DataFrame) -> None:
    assert len(ours) == 126 and ours[["Dimension", "Annotator Pair"]].drop_duplicates().shape[0] == 126
    for table in (tables.KAPPA_TABLE, tables.SPEARMAN_TABLE):
        c = tables.compare(table, ours=ours)
        assert (c.rows, c.matching) == (126, 126), c.differences
        assert c.headline().endswith("126 of 126 rows re-derive to the printed digits")


def test_llm_is_gemini_and_experts_the_median(ours: pd.DataFrame, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules matter: read "llm" as GPT-4o's file and the published tables no longer re-derive."""
    monkeypatch.setitem(tables.RATER_FILES, "llm", "gpt")
    wrong = tables.rederived()
    c = tables.compare(tables.KAPPA_TABLE, ours=wrong)
    assert c.matching < 126 and set(c.differences["Annotator Pair"]) <= {"('experts', 'llm')", "('llm', 'crowd')"}
    long = tables.ratings("empatheticdialogues")
    one = long[long["dimension"] == "empathy"].pivot(index="id", columns="rater", values="rating")
    assert (one["experts"] == one[["expert1", "expert2", "expert3"]].median(axis=1)).all()


def test_differences_are_reported_cell_by_cell(ours: pd.DataFrame) -> None:
    shifted = ours.copy()
    shifted.loc[0, "Weighted Cohen's Kappa"] += 0.05
    c = tables.compare(tables.KAPPA_TABLE, ours=shifted)
    assert c.matching == 125
    assert c.differences[["Dimension", "Annotator Pair", "column"]].values.tolist() == [
        [ours.loc[0, "Dimension"], ours.loc[0, "Annotator Pair"], "Weighted Cohen's Kappa"]
    ]


def test_expert_band_and_verdict_rule(ours: pd.DataFrame) -> None:
    bands = tables.expert_bands(ours)
    assert len(bands) == 21
    ed = bands["empathy"]
    published = tables.read_csv(tables.KAPPA_TABLE)
    expert_rows = published[
        (published["Dimension"] == "empathy") & published["Annotator Pair"].str.contains("expert1|expert2|expert3")
    ]
    k = sorted(expert_rows["Weighted Cohen's Kappa"])
    assert (round(ed.low, 2), round(ed.median, 2), round(ed.high, 2)) == (k[0], k[1], k[2])
    assert tables.verdict(ed.low, ed.high + 0.1, ed) == "reaches the expert band"
    assert tables.verdict(ed.low - 0.3, ed.low - 0.01, ed) == "below the expert band"
    assert tables.verdict(ed.low - 0.2, ed.high, ed) == "cannot tell at this n"


def test_a_changed_rating_file_is_refused(tmp_path) -> None:
    src = DATA / "empathy_judges"
    shutil.copytree(src / "annotations", tmp_path / "annotations")
    target = tmp_path / "annotations" / "epitome" / "expert1_ratings.csv"
    target.write_text(target.read_text().replace(",1,", ",2,", 1))
    with pytest.raises(DataError, match="does not match the pinned"):
        tables.ratings("epitome", path=str(tmp_path))
    with pytest.raises(ValueError, match="framework"):
        tables.ratings("nope")


def test_headlines_count_the_rows_per_table() -> None:
    assert tables.headlines() == [
        "annotations/table_kappa.csv: 126 of 126 rows re-derive to the printed digits",
        "annotations/all_annotator_pairs_spearman_kappa.csv: 126 of 126 rows re-derive to the printed digits",
    ]


def test_published_judges_verdicts_use_the_published_kappas() -> None:
    v = tables.judge_verdicts("gemini", reps=200).set_index("Dimension")
    published = tables.read_csv(tables.KAPPA_TABLE)
    llm = published[published["Annotator Pair"] == "('experts', 'llm')"].set_index("Dimension")
    assert v["kappa"].round(2).to_dict() == pytest.approx(llm["Weighted Cohen's Kappa"].to_dict(), abs=0.0051)
    assert ((v["low"] <= v["kappa"]) & (v["kappa"] <= v["high"])).all()
    assert set(v["verdict"]) <= {"reaches the expert band", "below the expert band", "cannot tell at this n"}
    assert v.loc["dismissing_emotions", "verdict"] == "below the expert band"  # 0.17 [0.06, 0.30] vs band 0.35-0.51
