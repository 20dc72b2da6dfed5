"""`score BOARD.csv` reads the file it is given (issue 43, broken 2).

``score`` re-derived the committed ``data/judgemark_v1_board.csv`` whatever board file it was given, printing the
committed judges and numbers under the given file's name. Now the file given is the file read: its judges and writer
scores are what is re-derived, and a file that cannot be (a column missing, a value not a finite number, a judge's
field twice, a judge not scoring the test set's 19 writers) is refused in one line naming what is wrong, exit 2."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
from pathlib import Path

import pytest

from eqbench_nb.cli import main
from eqbench_nb.judged import board
from eqbench_nb.judged import judgemark as jm
from eqbench_nb.paths import tables_dir

COMMITTED = tables_dir() / board.BOARD_TABLE
COLUMNS = ("judge", "board_label", "field", "value", "source")


def score(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["score", *args])
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def committed_rows() -> list[dict[str, str]]:
    with open(COMMITTED, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def write_board(path: Path, rows: list[dict[str, str]], columns=COLUMNS, prefix: str = "") -> Path:
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(prefix + text.getvalue(), encoding="utf-8")
    return path


def halved_and_renamed(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    names = {j: f"renamed-judge-{n}" for n, j in enumerate(dict.fromkeys(r["judge"] for r in rows))}
    out = []
    for r in rows:
        value = r["value"]
        if r["field"].startswith("writer:"):
            value = repr(float(value) / 2)
        out.append(r | {"judge": names[r["judge"]], "board_label": names[r["judge"]], "value": value})
    return out


def refused_in_one_line(code: int, out: str, err: str, path: Path, *words: str) -> None:
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith(f"error: {path}: "), (code, err)
    assert "Traceback" not in err and "not JSON" not in err and out.strip() in ("", "[]"), (out, err)
    for word in words:
        assert word in lines[0], lines[0]


def test_a_board_with_every_writer_score_halved_and_judges_renamed_is_what_is_derived(tmp_path):
    rows = halved_and_renamed(committed_rows())
    path = write_board(tmp_path / "halved.csv", rows)
    code, out, err = score("--format", "json", str(path))
    assert code == 0, err
    printed = json.loads(out)
    assert [r["judge"] for r in printed] == [f"renamed-judge-{n}" for n in range(15)]
    assert all(r["file"] == str(path) for r in printed)
    committed = json.loads(score("--format", "json", str(COMMITTED))[1])
    for mine, theirs in zip(printed, committed):
        judge = mine["judge"]
        scores = {
            r["field"][7:]: float(r["value"]) for r in rows if r["judge"] == judge and r["field"][:7] == "writer:"
        }
        assert len(scores) == 19
        for version in ("31bd53b", "d28c60c"):
            assert mine[version] == pytest.approx(jm.judgemark(scores, version))
        assert mine["rederived_mean_score"] == pytest.approx(theirs["rederived_mean_score"] / 2)
        assert mine["d28c60c"] != pytest.approx(theirs["d28c60c"])  # not the committed board's numbers


def test_a_board_with_a_byte_order_mark_is_read(tmp_path):
    plain = write_board(tmp_path / "plain.csv", halved_and_renamed(committed_rows()))
    bom = write_board(tmp_path / "bom.csv", halved_and_renamed(committed_rows()), prefix="\ufeff")
    code, out, err = score("--format", "json", str(bom))
    assert code == 0, err
    strip = [{k: v for k, v in r.items() if k != "file"} for r in json.loads(out)]
    plain_rows = [
        {k: v for k, v in r.items() if k != "file"} for r in json.loads(score("--format", "json", str(plain))[1])
    ]
    assert strip == plain_rows and strip[0]["judge"] == "renamed-judge-0"


def test_a_header_and_one_row_that_is_no_board_is_refused(tmp_path):
    path = tmp_path / "junk.csv"
    path.write_text(",".join(COLUMNS) + "\nthis,is,not,a,board\n")
    refused_in_one_line(*score(str(path)), path, "CSV line 2", "'not'")


def test_a_board_without_the_value_column_is_refused_as_a_csv_missing_it(tmp_path):
    columns = [c for c in COLUMNS if c != "value"]
    path = write_board(tmp_path / "novalue.csv", committed_rows(), columns=columns)
    refused_in_one_line(*score(str(path)), path, "missing column value")


@pytest.mark.parametrize("bad", ["nan", "NaN", "inf", "-Infinity"])
def test_a_value_that_is_no_finite_number_is_refused(tmp_path, bad):
    rows = committed_rows()
    rows[5] = rows[5] | {"value": bad}
    path = write_board(tmp_path / "nan.csv", rows)
    refused_in_one_line(*score(str(path)), path, "CSV line 7", "not a finite number", rows[5]["field"])


def test_text_values_are_refused(tmp_path):
    rows = committed_rows()
    rows[40] = rows[40] | {"value": "seventy"}
    path = write_board(tmp_path / "text.csv", rows)
    refused_in_one_line(*score(str(path)), path, "CSV line 42", "'seventy'", "not a number")


def test_every_row_twice_is_refused(tmp_path):
    rows = committed_rows()
    path = write_board(tmp_path / "twice.csv", rows + rows)
    refused_in_one_line(*score(str(path)), path, "repeats", f"CSV line {len(rows) + 2}")


def test_a_judge_scoring_18_writers_is_refused(tmp_path):
    rows = committed_rows()
    dropped = next(r for r in rows if r["field"].startswith("writer:"))
    path = write_board(tmp_path / "eighteen.csv", [r for r in rows if r is not dropped])
    refused_in_one_line(*score(str(path)), path, dropped["judge"], "18 writers", dropped["field"][7:])


def test_a_judge_scoring_a_writer_outside_the_test_set_is_refused(tmp_path):
    rows = committed_rows()
    extra = next(r for r in rows if r["field"].startswith("writer:")) | {"field": "writer:someone-else"}
    path = write_board(tmp_path / "twenty.csv", [*rows, extra])
    refused_in_one_line(*score(str(path)), path, "20 writers", "someone-else")


def test_ten_thousand_rows_of_renamed_judges_are_each_derived_from_the_file(tmp_path):
    rows = committed_rows()
    copies = [r | {"judge": f"{r['judge']}#{n}"} for n in range(18) for r in rows]
    assert len(copies) > 10_000
    path = write_board(tmp_path / "big.csv", copies)
    code, out, err = score("--format", "json", str(path))
    assert code == 0, err
    printed = json.loads(out)
    committed = {r["judge"]: r for r in json.loads(score("--format", "json", str(COMMITTED))[1])}
    assert len(printed) == 18 * 15
    for row in printed:
        original = committed[row["judge"].split("#")[0]]
        for version in ("31bd53b", "d28c60c"):
            assert row[version] == pytest.approx(original[version])


def test_an_na_statistic_stays_na_and_the_committed_board_still_derives_as_before():
    table = board.read_board(COMMITTED)
    assert board.judges(table) == board.judges()
    assert board.rederive(table=table).equals(board.rederive())
    assert math.isnan(board.published("claude-3-opus-20240229", table).get("cost_usd", math.nan)) == math.isnan(
        board.published("claude-3-opus-20240229").get("cost_usd", math.nan)
    )
