"""Judgemark v2.1's published results (:mod:`eqbench_nb.judgemark_v2`): the final score re-derived as upstream's
code computed it, the names mapped, the files checked, and the judge-level summaries on the published data."""

import copy

import numpy as np
import pandas as pd
import pytest
from conftest import needs_data

from eqbench_nb.data import DataError
from eqbench_nb.judgemark_v2 import files, published


@pytest.fixture(scope="module")
def stats():
    return published.load_stats()


@needs_data
def test_thirteen_of_fourteen_published_scores_rederive(stats):
    check = published.rederive(stats, published.load_scores())
    assert (check.matching, check.published) == (13, 14)
    table = check.table.set_index("judge")
    assert not table.loc["liquid/lfm-7b", "matches"]  # no elements in its file
    assert pd.isna(table.loc["deepseek/deepseek-r1-distill-qwen-14b", "published"])
    # every scores.csv row maps to a stats file by upstream's file naming
    assert table["stats_file"].notna().all()
    # the stored range element is the range over 0-8: the files were written by 7b9ed07
    assert table["formula_7b9ed07"].dropna().all() and table["formula_7b9ed07"].notna().sum() == 13


@needs_data
def test_the_emd_element_is_reread_from_its_source(stats):
    """The stored EMD element is a dict (upstream's slip); the formula fails without the source field, and a
    different EMD average moves the score by 4/36 of its normalised change."""
    s = stats["gpt-4o-mini"]
    assert isinstance(s["final_judgemark_score_elements_calibrated"]["norm_earth_movers_distance"], dict)
    moved = copy.deepcopy(s)
    moved["separability_metrics"]["calibrated"]["emd"]["average"] += 0.4
    assert published.final_score(moved) - published.final_score(s) == pytest.approx(4 / 36 * 0.1)
    broken = copy.deepcopy(s)
    del broken["separability_metrics"]["calibrated"]["emd"]
    with pytest.raises(KeyError):
        published.final_score(broken)


def test_names_map_to_files():
    assert published.file_stem("claude-3.5-haiku-20241022") == "claude-3-5-haiku-20241022"
    assert published.file_stem("meta-llama/llama-3.1-405b-instruct") == "meta-llama__llama-3-1-405b-instruct"
    assert {f"results/stats/{published.file_stem(n)}.json" for n in ["gpt-4o-mini"]} <= set(files.stats_files())


def test_a_non_finite_element_is_refused():
    bad = {"final_judgemark_score_elements_calibrated": dict.fromkeys(published.ELEMENTS, float("nan"))}
    with pytest.raises(ValueError, match="finite"):
        published.final_score(bad)


@needs_data
def test_an_edited_file_is_named(tmp_path):
    target = tmp_path / "judgemark_v2" / "results"
    target.mkdir(parents=True)
    (target / "scores.csv").write_text("model,judgemark_score\nx,1\n")
    with pytest.raises(DataError, match="does not match the pinned"):
        files.read_bytes(files.SCORES, tmp_path)


@needs_data
def test_judges_and_writers(stats):
    writers = published.writer_stats(stats)
    means = published.means_table(writers)
    assert means.shape == (17, 14)
    rest = published.agreement_with_rest(means)
    assert rest["interval_method"].str.startswith("Fisher").all()  # 17 writers: small-n
    assert ((rest["low"] <= rest["spearman"]) & (rest["spearman"] <= rest["high"])).all()
    length = published.length_bias(writers)
    assert (length["writers"] == 17).all() and length["interval_method"].str.startswith("Student t").all()
    assert set(published.same_model(published.families())) == {
        "anthropic/claude-3.5-sonnet-20240620",
        "deepseek/deepseek-r1",
        "openai/gpt-4o-2024-11-20",
        "mistralai/mistral-large-2411",
    }
    assert set(published.same_model(published.families()).values()) <= set(means.index)
    assert set(means.columns) <= set(published.families()["model"])  # every judge has a family with a source


def test_the_ensemble_curve_on_judges_built_to_disagree():
    """Three judges that rank ten writers alike and one that ranks them backwards: a single judge can be the
    backwards one (Spearman -1 with the rest); in every pair the agreeing judge outweighs it (raw means: the
    backwards judge's scale is half as wide; standardised, a pair of opposite judges would cancel exactly)."""
    truth = np.arange(10, dtype=float)
    means = pd.DataFrame({"a": truth, "b": truth + 0.1, "c": truth * 2, "d": -0.5 * truth})
    curve = published.ensemble_curve(means, standardise=False).set_index("k")
    assert curve.loc[1, "subsets"] == 4 and curve.loc[4, "subsets"] == 1
    assert curve.loc[1, "rest_lowest"] == pytest.approx(-1.0)
    assert curve.loc[2, "full_lowest"] > curve.loc[1, "full_lowest"]
    assert curve.loc[4, "full_median"] == pytest.approx(1.0)
    assert np.isnan(curve.loc[4, "rest_median"])
