"""`eqbench-nb score` on Welivita & Pu's own file: three arms of human ratings, the published counts and relative
increases printed, equal to what :mod:`eqbench_nb.welivita_pu.study` re-derives (issue 46, "score on the study's own
file")."""

from __future__ import annotations

import csv
import io
import json

import pytest
from cli_helper import cli
from conftest import needs_data

from eqbench_nb.welivita_pu import files, study

pytestmark = needs_data

#: arXiv 2406.05063's counts of 2,000 prompts per arm (Bad, Okay, Good) and its relative increases in Good.
PUBLISHED = {"human": (342, 672, 986), "chatgpt": (156, 576, 1268), "chatgpt_empathy": (142, 563, 1295)}
PUBLISHED_INCREASE = {"chatgpt_empathy": "+31.3 %", "chatgpt": "+28.6 %"}


@pytest.fixture(scope="module")
def study_file() -> str:
    return str(files.FILES.locate(files.RATINGS_FILE))


@pytest.fixture(scope="module")
def rederived() -> dict[str, float]:
    return study.published_numbers(study.ratings())


def test_the_table_prints_the_published_counts_and_relative_increases(study_file, rederived):
    done = cli("score", study_file)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for arm, (bad, okay, good) in PUBLISHED.items():
        (line,) = [x for x in lines if x.startswith(study.ARMS[arm] + "  ")]
        cells = line[len(study.ARMS[arm]) :].split()
        assert cells[:5] == ["2000", "200", str(bad), str(okay), str(good)], line
        assert [rederived[f"{arm} {w}"] for w in ("Bad", "Okay", "Good")] == [bad, okay, good]
        if arm in PUBLISHED_INCREASE:
            assert f"{PUBLISHED_INCREASE[arm]} [" in line, line
            assert f"{100 * rederived[f'{arm} Good increase']:+.1f} %" == PUBLISHED_INCREASE[arm]
    assert "clustered by rater" in done.stdout


def test_csv_and_json_carry_the_numbers_study_py_derives(study_file, rederived):
    as_json = cli("score", study_file, "--format", "json")
    as_csv = cli("score", study_file, "--format", "csv")
    assert as_json.returncode == as_csv.returncode == 0, as_json.stderr + as_csv.stderr
    rows = json.loads(as_json.stdout)
    table = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert [r["arm"] for r in rows] == [r["arm"] for r in table] == list(study.ARMS)
    for row, line in zip(rows, table, strict=True):
        arm = row["arm"]
        assert (row["kind"], row["prompts"], row["raters"]) == ("study", 2000, 200)
        assert (row["bad"], row["okay"], row["good"]) == PUBLISHED[arm]
        assert (int(line["bad"]), int(line["okay"]), int(line["good"])) == PUBLISHED[arm]
        assert row["good_share"] == PUBLISHED[arm][2] / 2000
        if arm == "human":
            assert row["rel_good"] is None and line["rel_good"] == ""
            continue
        assert row["rel_good"] == rederived[f"{arm} Good increase"] == PUBLISHED[arm][2] / 986 - 1
        assert row["rel_mean"] == rederived[f"{arm} mean-rating gain"]
        assert row["rel_good_low"] < row["rel_good"] < row["rel_good_high"]
        assert float(line["rel_good"]) == pytest.approx(row["rel_good"], rel=1e-5)


def test_the_study_file_is_no_run_for_the_other_commands_and_a_changed_copy_is_refused(study_file, tmp_path):
    for command in ("runs", "view", "leaderboard"):
        done = cli(command, study_file)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert "the study's own file holds people's ratings, not a run" in done.stderr, done.stderr
    changed = tmp_path / "dataset_and_ratings.csv"
    with open(study_file, encoding="utf-8") as f:
        changed.write_text("".join(f.readlines()[:-1]), encoding="utf-8")  # the last prompt dropped
    done = cli("score", str(changed))
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr, done.stderr
    assert "does not match the pinned upstream data/dataset_and_ratings.csv" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
