"""The researcher's commands end to end (runs, compare, leaderboard, plot, score --convention all), and the help."""

import csv
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from cli_helper import cli
from conftest import RESULTS, ROOT, needs_data
from matplotlib import image
from test_leaderboard import T07, X10, _unparseable_run


def one_line_error(proc, *words):
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    for w in words:
        assert w in proc.stderr, proc.stderr


def test_runs_lists_the_bundled_model_runs_sorted(tmp_path):
    out = cli("runs", ROOT / "data" / "runs", "--sort", "score", "--format", "json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [r["records"] for r in rows if r["file"].endswith(X10.name)] == [1710]
    scores = [r["score"] for r in rows if r["benchmark"] == "eqbench"]
    assert scores == sorted(scores, reverse=True)
    table = cli("runs", ROOT / "data" / "runs").stdout.splitlines()
    at = table.index("EQ-Bench runs")  # the folder holds an EmotionBench run too: one table per benchmark
    assert table[at + 1].split()[:3] == ["model", "run_id", "set"]
    one_line_error(cli("runs", ROOT / "no-such-folder"), "no-such-folder: no such file or folder")
    one_line_error(cli("runs", cwd=tmp_path), "no runs/ folder here")  # an empty folder, whatever the checkout holds
    one_line_error(cli("runs", ROOT / "data" / "runs", "--sort", "colour"), "cannot sort by 'colour'")


def test_compare_one_sentence_and_json():
    out = cli("compare", X10, T07)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith("A = SmolLM2") and "P(A > B)" in lines[2] and "171 shared questions" in lines[2]
    row = json.loads(cli("compare", X10, T07, "--format", "json").stdout)
    assert row["diff_low"] <= row["diff"] <= row["diff_high"] and isinstance(row["separated"], bool)
    assert ("not separated" in lines[2]) == (not row["separated"])


def test_compare_and_leaderboard_user_mistakes_are_one_line(tmp_path):
    one_line_error(cli("compare", X10, tmp_path / "missing.jsonl"), "missing.jsonl")
    one_line_error(cli("compare", X10, T07, "--level", "95"), "--level")
    one_line_error(cli("leaderboard", tmp_path), "no run files found")
    one_line_error(cli("plot", "pie", X10, "--out", tmp_path / "x.png"), "pie")
    one_line_error(cli("plot", "reference", X10, "--out", tmp_path / "x.gif"), ".gif")


def memoised(monkeypatch, module, name):
    """``module.name`` computed once per set of arguments while the test runs; returns what it computed."""
    computed: dict[str, object] = {}
    compute = getattr(module, name)

    def once(*args, **kwargs):
        key = repr((args, sorted(kwargs.items())))
        if key not in computed:
            computed[key] = compute(*args, **kwargs)
        value = computed[key]
        return value.copy() if hasattr(value, "copy") else value

    monkeypatch.setattr(module, name, once)
    return computed


@pytest.fixture
def leaderboard_computed_once(monkeypatch):
    """The 86 published runs found and ranked once (about 8 s of the command's 9) while the test prints the board
    in each format: the first command does all its work, the others reuse the files it found and the board."""
    from eqbench_nb.cli import research
    from eqbench_nb.eqbench.study import leaderboard as study

    return memoised(monkeypatch, research, "files_for"), memoised(monkeypatch, study, "leaderboard")


@needs_data
@pytest.mark.slow
def test_leaderboard_of_the_published_runs_in_every_format(leaderboard_computed_once):
    rows = json.loads(cli("leaderboard", RESULTS, "--format", "json").stdout)
    assert len(rows) == 86 and rows[0]["rank"] == 1 and rows[0]["model"] == "gpt-4-1106-preview"
    assert all(r["low"] <= r["score"] <= r["high"] for r in rows)
    table = cli("leaderboard", RESULTS)
    assert table.returncode == 0 and len(table.stdout.strip().splitlines()) == 87
    assert "percentile bootstrap" in table.stderr
    parsed = list(csv.DictReader(io.StringIO(cli("leaderboard", RESULTS, "--format", "csv").stdout)))
    assert [r["model"] for r in parsed] == [r["model"] for r in rows]
    md = cli("leaderboard", RESULTS, "--format", "markdown").stdout.splitlines()
    assert md[0].startswith("| rank | group | model") and len(md) == 88
    tex = cli("leaderboard", RESULTS, "--format", "latex").stdout
    assert tex.startswith("\\begin{tabular}") and tex.count("\\\\") == 87
    assert [len(computed) for computed in leaderboard_computed_once] == [1, 1], "every format printed the one board"


def test_leaderboard_and_score_show_an_undefined_score_as_such(tmp_path):
    mute = _unparseable_run(tmp_path / "mute.jsonl")
    board = cli("leaderboard", mute, X10)
    assert board.returncode == 0, board.stderr
    last = board.stdout.strip().splitlines()[-1]
    assert "mute" in last and "—" in last and "0.00" not in last
    assert json.loads(cli("leaderboard", mute, X10, "--format", "json").stdout)[1]["score"] is None
    score = cli("score", mute, X10, "--convention", "all", "--sort", "score")
    assert score.returncode == 0, score.stderr
    lines = score.stdout.strip().splitlines()
    assert lines[0].split()[:3] == ["model", "run_id", "convention"] and len(lines) == 7
    assert lines[1].startswith("SmolLM2") and lines[4].split()[:3] == ["mute", "none", "official"]
    assert "—" in lines[4] and lines[5].split()[2] == "lm-eval"
    rows = json.loads(cli("score", mute, "--format", "json").stdout)
    assert rows[0]["score"] is None


def test_plot_each_kind_draws_a_non_blank_figure(tmp_path):
    for kind in ("intervals", "emotions", "reference"):
        out = tmp_path / f"{kind}.png"
        proc = cli("plot", kind, X10, T07, "--out", out)
        assert proc.returncode == 0, proc.stderr
        pixels = image.imread(out)
        assert float(np.std(pixels)) > 0.01, kind
    again = tmp_path / "again.png"
    cli("plot", "reference", X10, T07, "--out", again)
    assert again.read_bytes() == (tmp_path / "reference.png").read_bytes(), "same runs, same bytes"


def test_help_says_each_default_once_and_no_internal_names():
    helptext = cli("run", "--help").stdout
    assert "(default: None)" not in helptext and "(default: False)" not in helptext
    assert helptext.count("(default:") + helptext.count("(default ") >= 3
    flat = " ".join(helptext.split())
    assert "the official-v2.4 and lm-eval protocols" in flat  # as the protocols table (docs/run.md) says
    for args, name in ((("serve-local", "--port", "abc"), "_port"), (("run", "--iterations", "x"), "_positive_int")):
        proc = cli(*args)
        one_line_error(proc, "whole number")
        assert name not in proc.stderr
    one_line_error(cli("run", "--version", "v1"), "--set")
    assert cli("--version").stdout.startswith("eqbench-nb ")


def test_reproduce_list_names_every_notebook():
    out = cli("reproduce", "--list")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    stems = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
    assert [line.split()[0] for line in lines] == stems
    assert all(len(line.split()) > 1 for line in lines), "each notebook with its title"


@pytest.mark.slow
def test_reproduce_into_a_file_prints_plain_lines_without_a_bar(tmp_path):
    """Output going to a file: one line per notebook with its time, no carriage returns of a progress bar."""
    good = tmp_path / "01_good.py"
    good.write_text("# %% [markdown]\n# A title\n\n# %%\nprint(6 * 7)\n")
    code = (
        "import sys; from pathlib import Path; from eqbench_nb.cli.reproduce import reproduce; "
        f"reproduce([Path({str(good)!r})])"
    )
    env = {**__import__("os").environ, "EQBENCH_NB_FIGURES": str(tmp_path / "figures")}
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "\r" not in proc.stdout + proc.stderr
    line = proc.stdout.strip().splitlines()[-1]
    assert line.startswith("ok     01_good (") and line.endswith(" s)")


def test_an_emotionbench_run_is_listed_passed_over_in_a_folder_with_a_note_and_refused_by_name():
    """Issue 29, item 7: `runs` lists EmotionBench runs (it omitted them); the commands that compare EQ-Bench scores
    pass them over in a folder and say so (`plot reference data/runs` skipped them silently)."""
    emotion = next((ROOT / "data" / "runs").glob("*__emotionbench__*.jsonl"))
    listed = cli("runs", ROOT / "data" / "runs", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    row = next(r for r in json.loads(listed.stdout) if r["file"].endswith(emotion.name))
    assert (row["benchmark"], row["usable"], row["unreadable"], row["records"]) == ("emotionbench", 0, 13, 13)
    plot = cli("plot", "reference", ROOT / "data" / "runs", "--out", Path(tempfile.mkdtemp()) / "r.png")
    assert plot.returncode == 0 and "note: 1 EmotionBench run passed over: `eqbench-nb plot`" in plot.stderr
    one_line_error(cli("leaderboard", emotion), "an EmotionBench run")
