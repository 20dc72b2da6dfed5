"""The cheap looks that choose a file's reader are answered once per version of the file (runner/looks.py): a folder of
upstream results files is no longer decoded a dozen times before it is read once."""

import json
import os
import time

import pytest
from cli_helper import cli
from conftest import DATA, needs_data

from eqbench_nb.runner import looks


def _counted():
    calls = []

    @looks.per_file_version
    def look(path, flavour="plain"):
        calls.append((str(path), flavour))
        return open(path).read()

    return look, calls


def _settle(path):
    past = time.time() - 60
    os.utime(path, (past, past))


def test_a_settled_file_is_looked_at_once_per_version_and_per_argument(tmp_path):
    look, calls = _counted()
    path = tmp_path / "run.jsonl"
    path.write_text("first\n")
    _settle(path)
    assert look(path) == look(path) == "first\n" and len(calls) == 1
    assert look(path, flavour="other") == "first\n" and len(calls) == 2  # another question, another answer
    path.write_text("second, longer\n")
    _settle(path)
    assert look(path) == "second, longer\n" and len(calls) == 3  # a new version: looked at again


def test_a_file_written_in_the_last_two_seconds_is_looked_at_every_time(tmp_path):
    look, calls = _counted()
    path = tmp_path / "run.jsonl"
    path.write_text("aaaa\n")
    assert look(path) == "aaaa\n"
    path.write_text("bbbb\n")  # same size, perhaps the same modification time on a coarse clock
    assert look(path) == "bbbb\n" and len(calls) == 2


def test_a_missing_file_is_not_remembered(tmp_path):
    look, calls = _counted()
    with pytest.raises(FileNotFoundError):
        look(tmp_path / "absent.jsonl")
    with pytest.raises(FileNotFoundError):
        look(tmp_path / "absent.jsonl")
    assert len(calls) == 2


@needs_data
def test_a_leaderboard_of_the_published_runs_decodes_each_file_at_most_three_times(monkeypatch):
    """Before: 13 decodes a file (which files are runs, whose, each benchmark's test, the reader's three parses)."""
    folder = DATA / "eqbench" / "results" / "eq-bench"
    files = sorted(folder.glob("*.json"))
    lengths = {len(f.read_text(encoding="utf-8").removeprefix("\ufeff").strip()) for f in files}
    decoded = []
    real = json.decoder.JSONDecoder.decode

    def counting(self, s, *args, **kwargs):
        if len(s.strip()) in lengths:  # a whole published file (each is one JSON document on one line)
            decoded.append(len(s))
        return real(self, s, *args, **kwargs)

    monkeypatch.setattr(json.decoder.JSONDecoder, "decode", counting)
    monkeypatch.setattr(looks, "_ANSWERS", {})
    done = cli("leaderboard", str(folder), "--format", "csv")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == len(files) + 1
    assert len(files) == 86 and len(decoded) <= 3 * len(files), len(decoded) / len(files)
