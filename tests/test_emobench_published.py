"""EmoBench's committed table of published numbers (data/emobench_published.csv) and how ``leaderboard`` shows it
beside a run: the table's rows must be what ``leaderboard`` can set beside a run's first breakdown (by task: ``EU``,
``EA``), on the run's scale (a share, 0 to 1, not the paper's percentage), each with its source."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from cli_helper import cli as run_cli
from conftest import KEY
from fake_openai_server import FakeOpenAI

TABLE = Path(__file__).resolve().parent.parent / "data" / "emobench_published.csv"
HEADER = ["model", "group", "accuracy", "source"]
TASKS = {"EU", "EA"}  # the labels of EmoBench's first breakdown, ("task",)


def cli(*argv: str) -> tuple[int, str, str]:
    done = run_cli(*argv)  # the suite's one in-process helper
    return done.returncode, done.stdout, done.stderr


def published_rows(path: Path = TABLE) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == HEADER
        return list(reader)


def test_the_committed_table_has_the_schema_and_each_row_a_model_a_task_a_share_and_a_source():
    # The table is header-only until the paper's numbers are read from the paper itself (none are guessed); every
    # row added later must still pass this: a percentage (58.75) or a spelled-out task name would show beside no run.
    for row in published_rows():
        assert row["model"].strip(), row
        assert row["group"] in TASKS, row
        assert 0.0 <= float(row["accuracy"]) <= 1.0, row
        assert row["source"].strip(), row


@pytest.fixture
def short_run(tmp_path, monkeypatch):
    """Four EU items asked of the loopback fake through the real ``openai`` client."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAI(responder=lambda prompt, temperature: '{"answer_q1": "A", "answer_q2": "B"}') as url:
        rc, _out, err = cli("run", "--benchmark", "emobench", "--base-url", url, "--model", "fake-model",
                           "--limit", "4", "--out", str(tmp_path / "runs"), "--no-progress")  # fmt: skip
    assert rc == 0, err
    (path,) = (tmp_path / "runs").glob("*.jsonl")
    return path


def test_each_published_row_stands_beside_the_run_in_the_leaderboard(short_run, tmp_path, monkeypatch):
    tables = tmp_path / "tables"
    tables.mkdir()
    rows = published_rows()
    marked = {"model": "published-model (test row)", "group": "EA", "accuracy": "0.5", "source": "this test's table"}
    with (tables / TABLE.name).open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, HEADER)
        writer.writeheader()
        writer.writerows([*rows, marked])
    monkeypatch.setenv("EQBENCH_NB_TABLES", str(tables))
    rc, out, err = cli("leaderboard", str(short_run), "--format", "csv")
    assert rc == 0, err
    shown = list(csv.DictReader(io.StringIO(out)))
    assert any(r["group"] == "EU" and r["source"].startswith("this run (") for r in shown), out
    for row in [*rows, marked]:
        assert any(
            r["model"] == row["model"]
            and r["group"] == row["group"]
            and r["source"] == row["source"]
            and float(r["accuracy"]) == pytest.approx(float(row["accuracy"]), abs=5e-4)
            for r in shown
        ), (row, out)


def test_leaderboard_reads_the_committed_table_row_for_row(short_run):
    rc, out, err = cli("leaderboard", str(short_run), "--format", "csv")
    assert rc == 0, err
    published = [r for r in csv.DictReader(io.StringIO(out)) if not r["source"].startswith("this run (")]
    assert [(r["model"], r["group"], r["source"]) for r in published] == [
        (r["model"], r["group"], r["source"]) for r in published_rows()
    ], out
