"""A run with no score on the leaderboard's questions is not ranked: its basis says so, it comes last, and the
caption counts only the runs that have a rank."""

import json
from pathlib import Path

from cli_helper import cli
from conftest import needs_data
from test_leaderboard import X10

from eqbench_nb.eqbench.questions import load_questions
from eqbench_nb.eqbench.runs import RunRecord, header_line, record_line, score_record
from eqbench_nb.eqbench.study.leaderboard import NO_SCORE, leaderboard, leaderboard_caption

pytestmark = needs_data  # the unparseable run is built on the upstream questions


def _mute_run(path: Path) -> Path:
    """A run over the whole v2 set (the questions X10 is ranked on) with no answer that parses."""
    qs = load_questions("v2")
    header = {"model": "mute", "run_id": "none", "version": "v2", "n_questions": len(qs), "iterations": 1}
    lines = [header_line(header)]
    lines += [record_line(score_record(RunRecord("mute", "none", 1, q.id, first_pass={}), q)) for q in qs]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_run_with_no_score_is_not_ranked_and_not_counted_as_ranked(tmp_path):
    mute = _mute_run(tmp_path / "mute.jsonl")
    board = leaderboard([mute, X10], reps=200)
    assert board.model.tolist() == ["SmolLM2-135M-Instruct", "mute"]
    assert board.basis.tolist() == ["ranked", NO_SCORE]
    caption = leaderboard_caption(board, "official", 0.95, 200)
    assert "1 ranked run on the 171 questions" in caption and "2 ranked runs" not in caption
    assert f"1 run with no score (basis: {NO_SCORE})" in caption

    def board_command(*options):
        done = cli("leaderboard", mute, X10, "--reps", "200", *options)
        assert done.returncode == 0, done.stderr
        return done

    rows = json.loads(board_command("--format", "json").stdout)
    assert [(r["model"], r["basis"], r["rank"]) for r in rows][1] == ("mute", NO_SCORE, None)
    text = board_command()
    assert NO_SCORE in text.stdout.splitlines()[-1] and "1 ranked run" in text.stdout + text.stderr


def test_common_questions_too(tmp_path):
    mute = _mute_run(tmp_path / "mute.jsonl")
    board = leaderboard([mute, X10], reps=200, common=True)
    assert board.basis.tolist() == ["common questions", NO_SCORE]
