"""runs / compare / leaderboard over real run files: the 86 published runs and this project's own (data/runs)."""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import RESULTS, ROOT, needs_data

from eqbench_nb import load_questions, read_run, score_run
from eqbench_nb.analysis.stats import pairwise_separation
from eqbench_nb.cli.tabular import render
from eqbench_nb.eqbench.runs import RunRecord, header_line, record_line, score_record
from eqbench_nb.eqbench.study.leaderboard import (
    compact_letters,
    compare_runs,
    compare_statement,
    group_names,
    leaderboard,
    runs_overview,
    shared_matrix,
)

OURS = ROOT / "data" / "runs"
X10 = OURS / "SmolLM2-135M-Instruct__v2__official-x10-all.jsonl"
T07 = OURS / "SmolLM2-135M-Instruct__v2__official-t0.7-x3-all.jsonl"


@pytest.fixture(scope="module")
def board():
    return leaderboard(RESULTS)


def _shares_letter(a: str, b: str) -> bool:
    return bool(group_names(a) & group_names(b))


def test_letters_follow_separation_exactly_on_a_worked_example():
    # 0 and 1 overlap, 1 and 2 overlap, 0 and 2 are separated: the classic "a, ab, b"
    sep = np.array([[0, 0, 1], [0, 0, 0], [1, 0, 0]], dtype=bool)
    assert compact_letters(sep) == ["a", "ab", "b"]
    assert compact_letters(np.zeros((3, 3), bool)) == ["a", "a", "a"]
    everything = ~np.eye(4, dtype=bool)
    assert compact_letters(everything, order=[3, 2, 1, 0]) == ["d", "c", "b", "a"]


@needs_data
def test_published_leaderboard_letters_ranks_and_scores(board):
    assert len(board) == 86 and board.questions.eq(171).all()
    assert board.score.is_monotonic_decreasing
    assert board.model.iloc[0] == "gpt-4-1106-preview"
    assert ((board.low <= board.score) & (board.score <= board.high)).all()
    assert ((board.rank_low <= board["rank"]) & (board["rank"] <= board.rank_high)).all()
    # on a run's full set, one iteration, the leaderboard's score is the `score` command's
    by_file = {r.path: score_run(r).score for r in map(read_run, board.file)}
    assert np.allclose(board.score, [by_file[f] for f in board.file], atol=0.006)
    # two runs share a letter exactly when their paired difference is not separated from 0
    runs = [read_run(f) for f in board.file]
    sep = pairwise_separation(shared_matrix(runs).to_numpy(float))
    letters = board.group.tolist()
    for i in range(len(runs)):
        for j in range(i + 1, len(runs)):
            assert _shares_letter(letters[i], letters[j]) == (not sep[i, j]), (i, j)
    assert group_names(letters[0]) & {"a", "1"}  # the top group comes first
    assert board.engine.notna().all() and set(board.quantisation.dropna()) >= {"none"}


@needs_data
def test_compare_agrees_with_the_leaderboard(board):
    first, second, last = board.file.iloc[0], board.file.iloc[1], board.file.iloc[-1]
    top = compare_runs(first, last).iloc[0]
    assert top.separated and top.verdict == "A higher" and top["diff"] > 0 and top.p_a_better > 0.5
    assert top["diff"] == pytest.approx(board.score.iloc[0] - board.score.iloc[-1], abs=1e-9)
    near = compare_runs(second, first).iloc[0]
    assert near.separated == (not _shares_letter(board.group.iloc[1], board.group.iloc[0]))
    same = compare_runs(first, first).iloc[0]
    assert same["diff"] == 0 and not same.separated and same.p_a_better == 0.5
    text = compare_statement(compare_runs(last, first))
    assert "B scores higher" in text and "171 shared questions" in text and "bootstrap over questions" in text


def test_fresh_runs_listed_compared_and_ranked():
    overview = runs_overview(OURS, sort="score")
    assert len(overview) >= 2 and overview.score.dropna().is_monotonic_decreasing
    x10 = overview[overview.file == str(X10)].iloc[0]
    assert (x10.iterations, x10.records, x10.complete) == (10, 1710, True)
    assert x10.score == score_run(read_run(X10)).score and x10.started.startswith("2026-")
    row = compare_runs(X10, T07).iloc[0]
    assert row.questions == 171 and row.diff_low <= row["diff"] <= row.diff_high
    # iterations are averaged as the official score averages them: the difference is that of the `score` command
    official = {p: score_run(read_run(p)).score for p in (X10, T07)}
    assert row["diff"] == pytest.approx(official[X10] - official[T07], abs=0.011)
    assert leaderboard([X10, T07]).score.tolist() == pytest.approx(sorted(official.values(), reverse=True), abs=0.006)
    board = leaderboard([X10, T07], convention="lm-eval")
    assert board.engine.tolist() == ["llama.cpp (bundled)"] * 2 and board.group.str.len().gt(0).all()


def _unparseable_run(path: Path) -> Path:
    qs = load_questions("v2")[:3]
    lines = [header_line({"model": "mute", "run_id": "none", "version": "v2", "n_questions": 3, "iterations": 1})]
    lines += [record_line(score_record(RunRecord("mute", "none", 1, q.id, first_pass={}), q)) for q in qs]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_run_with_no_parseable_answer_has_no_score(tmp_path):
    mute = _unparseable_run(tmp_path / "mute.jsonl")
    assert math.isnan(score_run(read_run(mute)).score)
    assert score_run(read_run(mute), "lm-eval").score == 0  # lm-eval counts an unparseable answer 0, as upstream
    overview = runs_overview(mute)
    assert "—" in render(overview) and json.loads(render(overview, "json"))[0]["score"] is None
    assert ",," in render(overview, "csv").splitlines()[1]
    board = leaderboard([mute, X10])
    assert board.model.tolist() == ["SmolLM2-135M-Instruct", "mute"]  # undefined last
    assert board.group.tolist()[1] == "" and math.isnan(board["rank"].iloc[1])


def test_a_run_with_no_record_yet_has_no_score_not_a_traceback(tmp_path):
    """A run file holding only its header (a run just started; found by the viewer's fuzz test, issue 27)."""
    started = tmp_path / "started.jsonl"
    started.write_text(header_line({"model": "new", "run_id": "r", "version": "v2", "question_ids": ["1", "2"]}) + "\n")
    board = leaderboard([started, X10])
    assert board.model.tolist() == ["SmolLM2-135M-Instruct", "new"] and math.isnan(board.score.iloc[1])
    with pytest.raises(ValueError, match="different questions"):  # 2 questions against 10 (issue 29)
        compare_runs(started, X10)
    row = compare_runs(started, X10, common=True).iloc[0]
    assert math.isnan(row["diff"]) and not row["separated"]


def test_runs_of_different_sets_are_refused(tmp_path):
    v1 = tmp_path / "v1.jsonl"
    q = load_questions("v1")[0]
    v1.write_text(
        header_line({"model": "m", "run_id": "v1", "version": "v1", "n_questions": 1, "iterations": 1})
        + "\n"
        + record_line(score_record(RunRecord("m", "v1", 1, q.id, first_pass=dict(q.reference)), q))
        + "\n"
    )
    with pytest.raises(ValueError, match="different question sets"):
        compare_runs(v1, X10)


def test_every_format_renders_the_same_rows():
    table = pd.DataFrame({"model": ["a_b", "c"], "score": [1.234, float("nan")], "ok": [True, False]})
    assert render(table).splitlines()[2].split() == ["c", "—", "no"]
    assert "a\\_b" in render(table, "latex") and "---" in render(table, "latex")
    assert render(table, "markdown").splitlines()[1] == "|---|---|---|"
    assert json.loads(render(table, "json"))[1] == {"model": "c", "score": None, "ok": False}
    assert render(table, "csv").splitlines()[2] == "c,,False"


def test_past_52_groups_entries_are_numbered_ranges():
    sep = ~np.eye(60, dtype=bool)
    sep[0, 2] = sep[2, 0] = sep[1, 2] = sep[2, 1] = False  # 2 overlaps 0 and 1, which are separated
    letters = compact_letters(sep)
    assert letters[:4] == ["1", "2", "1-2", "3"]
    for i in range(60):
        for j in range(i + 1, 60):
            assert _shares_letter(letters[i], letters[j]) == (not sep[i, j])
    assert group_names("1-3,7") == {"1", "2", "3", "7"}


def test_the_t_separation_of_many_runs_decides_each_pair_as_the_pairwise_t_interval_does():
    # issue 34: a 1,000-run board below 30 questions asked scipy for the same t quantile 499,500 times; the
    # vectorised separation must decide every pair as the interval of that pair's differences on its own does
    from eqbench_nb.analysis.stats import t_mean_ci
    from eqbench_nb.eqbench.study.leaderboard import t_separation

    rng = np.random.default_rng(7)
    values = rng.integers(0, 11, (120, 8)).astype(float)  # scores of whole questions: ties and equal differences
    values[3, 2] = values[40, 7] = np.nan  # a question undefined for a run: that pair drops it
    estimate = np.nanmean(values, axis=1) * 10
    idx = np.flatnonzero(np.arange(120) != 5)  # run 5 has no score: never separated
    fast = t_separation(values, estimate, idx, 0.95, 10.0)
    slow = np.zeros_like(fast)
    for i in idx:
        for j in idx[idx > i]:
            half = t_mean_ci(values[i] - values[j], 0.95).half_width * 10.0
            slow[i, j] = slow[j, i] = abs(estimate[i] - estimate[j]) > half
    assert (fast == slow).all() and 0 < fast.sum() < fast.size and not fast[5].any()
