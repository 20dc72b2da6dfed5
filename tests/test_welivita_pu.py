"""Welivita & Pu's file read as three arms of human ratings; the published numbers re-derived exactly."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import needs_data
from statsmodels.stats.multitest import multipletests

from eqbench_nb.analysis.agreement import weighted_kappa
from eqbench_nb.analysis.clustered import clustered_mean, clustered_ratio
from eqbench_nb.analysis.multiplicity import benjamini_hochberg, holm
from eqbench_nb.welivita_pu import calibration, study


@pytest.fixture(scope="module")
def long() -> pd.DataFrame:
    return study.ratings()


@needs_data
def test_published_counts_and_increases(long: pd.DataFrame) -> None:
    assert study.counts(long).values.tolist() == [[342, 672, 986], [156, 576, 1268], [142, 563, 1295]]
    n = study.published_numbers(long)
    assert round(100 * n["chatgpt_empathy Good increase"], 1) == 31.3  # (1295 - 986) / 986
    assert round(100 * n["chatgpt Good increase"], 1) == 28.6  # (1268 - 986) / 986
    assert n["chatgpt mean-rating gain"] == pytest.approx(5112 / 4644 - 1)  # 10.1 %: the earlier paper's ≈10 %
    assert n["chatgpt_empathy mean-rating gain"] == pytest.approx(5153 / 4644 - 1)  # 11.0 %


@needs_data
def test_intervals_cluster_by_rater(long: pd.DataFrame) -> None:
    assert long.groupby(["arm", "rater"]).size().eq(10).all()  # each rater rated one part: 10 prompts
    assert long.groupby(["arm", "part_no"])["rater"].nunique().eq(1).all()
    w = study.wide(long)
    inc = study.relative_increase(w, "chatgpt_empathy")
    assert inc.clusters == 200 and inc.low < 0.313 < inc.high
    naive = clustered_ratio(w["chatgpt_empathy"] == 3, w["human"] == 3, np.arange(len(w)))
    assert naive.se != pytest.approx(inc.se, rel=0.01)  # clustering changes the interval


@needs_data
def test_sentiment_and_emotion_comparisons(long: pd.DataFrame) -> None:
    w = study.wide(long)
    s = study.group_comparisons(w, "sentiment", "chatgpt").set_index("sentiment")
    assert s.loc["positive", "prompts"] == 881 and s.loc["negative", "prompts"] == 1119
    e = study.group_comparisons(w, "emotion", "chatgpt_empathy")
    assert len(e) == 32 and not e["refused"].any()
    assert (e["p_holm"] >= e["p"]).all()
    small = study.group_comparisons(w.iloc[:300], "emotion", "chatgpt")
    assert small["refused"].any() and small.loc[small["refused"], "p"].isna().all()


@needs_data
def test_propensity_alignment_candidates(long: pd.DataFrame) -> None:
    a = study.propensity_alignment(long)
    ratio = a["chatgpt_empathy"].rater_r / a["human"].rater_r
    assert 5.0 < ratio < 6.0  # the rater-level reading comes nearest the paper's "5 times"
    assert a["chatgpt_empathy"].item_r / a["human"].item_r > 6.0


@needs_data
def test_stand_in_judge_and_calibration_transfer(long: pd.DataFrame) -> None:
    judge = calibration.synthetic_judge(long, seed=1)
    assert weighted_kappa(long["rating"], long["rating"], categories=[1, 2, 3]).kappa == 1.0
    assert 0.3 < weighted_kappa(long["rating"], judge, categories=[1, 2, 3]).kappa < 0.7
    t = calibration.calibration_transfer(long, judge, "human", "chatgpt_empathy", reps=40)
    assert t.low < t.error < t.high
    shifted = calibration.calibration_transfer(long, judge, "human", "chatgpt_empathy", "human|judge", reps=40)
    assert shifted.error < -0.05  # P(human | judge) carries the human arm's Good rate with it


def test_clustered_mean_and_multiplicity_against_references() -> None:
    y = np.array([1.0, 0, 1, 1, 0, 1, 0, 0])
    one_each = clustered_mean(y, np.arange(8))
    assert one_each.se == pytest.approx(y.std(ddof=1) / np.sqrt(8))
    p = [0.01, 0.04, np.nan, 0.03, 0.5]
    finite = [0.01, 0.04, 0.03, 0.5]
    assert holm(p)[[0, 1, 3, 4]] == pytest.approx(multipletests(finite, method="holm")[1])
    assert benjamini_hochberg(p)[[0, 1, 3, 4]] == pytest.approx(multipletests(finite, method="fdr_bh")[1])
    assert np.isnan(holm(p)[2])


@needs_data
def test_without_a_data_folder_the_file_is_downloaded_and_checked(tmp_path, monkeypatch, no_local_data) -> None:
    """The pinned file comes from a (loopback) mirror of the study's repository, kept only when its sha256 matches."""
    from conftest import DATA, serve_folder

    from eqbench_nb.data import DataError
    from eqbench_nb.welivita_pu import files

    mirror = tmp_path / "mirror" / "data"
    mirror.mkdir(parents=True)
    body = (DATA / "welivita_pu" / files.RATINGS_FILE).read_bytes()
    (mirror / "dataset_and_ratings.csv").write_bytes(body.replace(b"hit:", b"hut:", 1))
    with serve_folder(tmp_path / "mirror") as url:
        monkeypatch.setenv(files.MIRROR_ENV, url)
        with pytest.raises(DataError, match="nothing was cached"):
            study.read_table()
        (mirror / "dataset_and_ratings.csv").write_bytes(body)
        assert study.counts(study.ratings()).loc["human", "Good"] == 986
    assert (no_local_data / "welivita_pu").is_dir()


@needs_data
def test_headlines_print_the_published_numbers(long: pd.DataFrame) -> None:
    text = "\n".join(study.headlines(long))
    assert "Good 986" in text and "Good 1268" in text and "Good 1295" in text
    assert "Good +31.3% over people" in text and "Good +28.6% over people" in text
    assert "mean rating +10.1% over people" in text


@pytest.mark.parametrize("package", ["welivita_pu", "empathy_judges"])
def test_the_hint_of_a_missing_file_names_where_it_is_found(package, no_local_data, monkeypatch, tmp_path) -> None:
    import importlib

    from eqbench_nb.data import DataError

    files = importlib.import_module(f"eqbench_nb.{package}.files")
    monkeypatch.setenv(files.MIRROR_ENV, "http://127.0.0.1:9")
    name = files.FILES.names()[-1]
    with pytest.raises(DataError) as missing:
        files.FILES.locate(name, download=False)
    rel = f"{package}/{name}"
    assert rel in str(missing.value)
    (tmp_path / "data" / rel).parent.mkdir(parents=True)
    (tmp_path / "data" / rel).write_bytes(b"placed where the hint says")
    monkeypatch.setenv("EQBENCH_NB_DATA", str(tmp_path / "data"))
    assert files.FILES.locate(name, download=False) == tmp_path / "data" / rel
