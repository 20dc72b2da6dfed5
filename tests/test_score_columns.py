"""`score`'s machine formats carry only the columns a row has: a canonical EQ-Bench 3 file's ratings have no
``score``, so its CSV and JSON have no empty ``score`` column; a run's undefined score is still null."""

import csv
import io
import json

from cli_helper import cli
from conftest import DATA, needs_data

from eqbench_nb.cli.score import finite

CANONICAL = DATA / "eqbench3" / "canonical_leaderboard_elo_results_8c3a125.json.gz"


def _score(*args):
    done = cli("score", *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


@needs_data
def test_the_canonical_files_csv_and_json_have_no_empty_score_column():
    rows = list(csv.DictReader(io.StringIO(_score(CANONICAL, "--format", "csv"))))
    assert rows and "score" not in rows[0] and rows[0]["elo_norm"]
    assert all("score" not in row for row in json.loads(_score(CANONICAL, "--format", "json")))


def test_a_row_with_a_score_keeps_it_and_an_undefined_one_is_null():
    assert finite({"model": "m", "score": 61.5}) == {"model": "m", "score": 61.5}
    assert finite({"model": "m", "score": float("nan")}) == {"model": "m", "score": None}
    assert finite({"model": "m", "elo": 1500.0}) == {"model": "m", "elo": 1500.0}
