"""The command line's rough edges a first-time user hits (issue 29, items 3, 6, 7, 9 and 10): short forms' dry run
and names, dash tables that say why, one look for every command, endpoints without the Files API, each through the
command line a user types.

Real parts: the command line (in the test's process), the real ``openai`` client over HTTP to the loopback fake
(``tests/fake_openai_server.py``) or to the hostile server (``tests/hostile_server.py``) for an endpoint without the
Files and Batch API, and one that drops its connections."""

import json
import time

import pytest
from cli_helper import cli
from conftest import KEY, ROOT
from fake_openai_server import FakeOpenAI
from hostile_server import HostileServer, ok, response

pytestmark = pytest.mark.usefixtures("key")  # OPENAI_API_KEY for every command


def one_line_error(proc, *words):
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("error: "), proc.stderr
    for w in words:
        assert w in last, last
    return last


def test_3_the_dry_run_prices_a_forms_questions_in_every_iteration():
    """`run --dry-run --form short20` priced all 171 questions ("requests 513" for 3 iterations)."""
    proc = cli("run", "--dry-run", "--form", "short20", "--iterations", "3")
    assert proc.returncode == 0, proc.stderr
    assert "requests   60 " in proc.stdout


@pytest.fixture(scope="module")
def form_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("form")
    with FakeOpenAI() as url:
        # a module's fixture: no `key` fixture yet
        proc = cli("run", "--base-url", url, "--model", "fake-model", "--form", "short20", "--out", out,
                   "--no-progress", env={"OPENAI_API_KEY": KEY})  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (path,) = out.glob("*.jsonl")
    return path, proc


def test_6_a_short_forms_run_is_named_after_its_form_and_says_its_prediction_later(form_run):
    """The run id was a hash (official-x1-q5fe096fb); `score` and `runs` showed neither the form's predicted full
    score nor its interval, printed only when the run ended."""
    path, proc = form_run
    assert path.name == "fake-model__v2__official-x1-short20.jsonl"
    printed = proc.stdout.split("short form short20: predicted full v2 score ")[1]
    full, low, high = printed.split(",")[0], *printed.split("interval ")[1].split(" (")[0].split(" to ")
    score = json.loads(cli("score", path, "--format", "json").stdout)[0]
    assert (score["predicted_full"], score["predicted_low"], score["predicted_high"]) == (
        float(full),
        float(low),
        float(high),
    )
    table = cli("score", path).stdout
    assert f"{float(full):.2f} [{float(low):.2f}, {float(high):.2f}]" in table
    runs = json.loads(cli("runs", path.parent, "--format", "json").stdout)[0]
    assert (runs["form"], runs["predicted_full"], runs["predicted_high"]) == ("short20", float(full), float(high))
    assert "revise no" in proc.stdout  # was `revise False`


def test_7_an_emotionbench_table_of_dashes_says_why():
    emotion = next((ROOT / "data" / "runs").glob("*__emotionbench__*.jsonl"))
    proc = cli("score", emotion)
    assert proc.returncode == 0, proc.stderr
    head, row = proc.stdout.splitlines()[:2]
    assert row.split()[head.split().index("unreadable")] == "13"
    assert "0 of 13 answers complete (13 unreadable; parser robust): a mean needs complete answers" in proc.stderr


def test_9_every_command_prints_alike():
    runs = ROOT / "data" / "runs"
    x10 = runs / "SmolLM2-135M-Instruct__v2__official-x10-all.jsonl"
    t07 = runs / "SmolLM2-135M-Instruct__v2__official-t0.7-x3-all.jsonl"
    for fmt, mark in (("markdown", "| model |"), ("latex", "\\begin{tabular}")):
        proc = cli("score", x10, "--format", fmt)
        assert proc.returncode == 0 and mark in proc.stdout, proc.stderr
    score = cli("score", x10).stdout.splitlines()[1]
    board = cli("leaderboard", x10, t07, "--reps", "200")
    assert "84.3/171" in score and "84.3/171" in board.stdout  # parseable reads alike in score and leaderboard
    assert [line.split()[0] for line in board.stdout.splitlines()[1:]] == ["1", "2"]  # not 1.0, 2.0
    compare = cli("compare", x10, t07)
    assert "A -53.67, B -83.35: A - B = " in compare.stdout  # the sentence states both scores
    helped = cli("run", "--help").stdout
    assert "(at least 2)" in " ".join(helped.split("  --default-repeats M")[1].split()[:20])
    one_line_error(cli("run", "--benchmark", "emotionbench", "--default-repeats", "1"), "at least 2")
    assert "None" not in helped and "False" not in helped


def test_9_one_notebook_ran_in_the_singular():
    from eqbench_nb.cli.reproduce import ran_line

    assert ran_line(1, 8.4, ROOT / "figures") == f"1 notebook ran in 8 s; figures and SUMMARY.md are in {ROOT}/figures/"
    assert ran_line(9, 73).startswith("9 notebooks ran in 73 s")


def _no_files_api(request, n):
    if request.path.endswith("/models"):
        return response(200, {"object": "list", "data": [{"id": "m", "object": "model"}]})
    if "/files" in request.path or "/batches" in request.path:
        return response(404, {"error": {"message": "Not Found", "type": "invalid_request_error"}})
    return ok(request)


def _drops_files(request, n):
    return b"" if "/files" in request.path else _no_files_api(request, n)


def test_10_an_endpoint_without_the_files_api_is_one_line_naming_the_request_and_the_remedy(tmp_path):
    """Was a traceback (BatchLost: Error code: 404 - Not Found) after issue 26."""
    with HostileServer(_no_files_api) as url:
        proc = cli("run", "--base-url", url, "--model", "m", "--batch", "--limit", "2", "--out", tmp_path)
    one_line_error(proc, "404 for POST /v1/files", "run without --batch")


def test_10_a_dropped_connection_is_called_one_not_a_timeout(tmp_path):
    """The aiohttp transport reports a closed connection as "Request timed out." within milliseconds."""
    started = time.perf_counter()
    with HostileServer(_drops_files) as url:
        proc = cli("run", "--base-url", url, "--model", "m", "--batch", "--limit", "2", "--out", tmp_path,
                   "--retry-budget", "1")  # fmt: skip
    assert time.perf_counter() - started < 60
    last = one_line_error(proc, "upload the batch input file", "the server closed or reset the connection")
    assert "timed out" not in last


def test_8_the_reference_plot_keeps_the_0_10_scale_and_draws_each_answer_value_once():
    """`plot reference` let a rating of 235 stretch the axis and overplotted 6,840 points of one run."""
    from eqbench_nb import read_run
    from eqbench_nb.eqbench.study.plots.runs import figure_for_runs
    from eqbench_nb.eqbench.study.table import run_table

    path = ROOT / "data" / "runs" / "SmolLM2-135M-Instruct__v2__official-t0.7-x3-all.jsonl"
    run = read_run(path)
    ratings = run_table(run)
    assert ratings.answer.max() > 100  # the run holds the outlier (235)
    fig = figure_for_runs("reference", [run])
    ax = fig.axes[0]
    assert ax.get_ylim()[0] > -1.5 and ax.get_ylim()[1] < 11.5
    drawn = sum(len(c.get_offsets()) for c in ax.collections)
    assert drawn <= 11 * 11 + 2 * 11 < len(ratings), (drawn, len(ratings))
    outside = int((ratings.answer > 10).sum() + (ratings.answer < 0).sum())
    assert f"{outside} outside 0-10" in ax.get_title()


def test_8_the_emotions_plot_puts_every_run_on_one_axis():
    from eqbench_nb import read_run
    from eqbench_nb.eqbench.study.plots.runs import figure_for_runs

    runs = [read_run(p) for p in sorted((ROOT / "data" / "runs").glob("*__v2__*.jsonl"))]
    fig = figure_for_runs("emotions", runs)
    limits = {ax.get_xlim() for ax in fig.axes if ax.get_visible()}
    assert len(limits) == 1, limits
