"""No command writes over (or appends into) a file it reads (issue 34, class 1): ``view --out`` and its default,
``plot --out``, ``leaderboard --judge --judgements`` and ``reproduce``'s outputs, each compared with the command's
inputs as files (the same path written another way, a symlink, a hard link), one line and exit 2, the input
untouched."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from cli_helper import cli
from conftest import KEY, ROOT, needs_data
from fake_eqbench3 import responder
from fake_openai_server import FakeOpenAI

RUN = ROOT / "data" / "runs" / "SmolLM2-135M-Instruct__v2__official-x10-all.jsonl"
OTHER = ROOT / "data" / "runs" / "SmolLM2-135M-Instruct__v2__official-t0.7-x3-all.jsonl"


pytestmark = pytest.mark.usefixtures("key")  # OPENAI_API_KEY for every command


def refused(proc: subprocess.CompletedProcess, *words: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = [x for x in proc.stderr.splitlines() if x.strip()]
    assert lines and lines[-1].startswith("error: ") and "reads" in lines[-1], proc.stderr
    for word in words:
        assert word in lines[-1]
    return lines[-1]


@pytest.fixture
def runs(tmp_path):
    """Copies of two committed runs, and their bytes (to check they are untouched)."""
    a, b = tmp_path / "A.jsonl", tmp_path / "B.jsonl"
    shutil.copy(RUN, a)
    shutil.copy(OTHER, b)
    return a, b, a.read_bytes(), b.read_bytes()


# ---------------------------------------------------------------- the cases the issue lists


def test_view_out_naming_the_run_is_refused(runs):
    a, _, before, _ = runs
    refused(cli("view", a, "--out", a), "--out")
    assert a.read_bytes() == before


def test_view_of_two_runs_out_naming_the_second_is_refused(runs):
    a, b, before_a, before_b = runs
    refused(cli("view", a, b, "--out", b))
    assert (a.read_bytes(), b.read_bytes()) == (before_a, before_b)


def test_a_run_named_html_viewed_from_its_folder_with_the_default_out_is_refused(runs, tmp_path):
    a, _, before, _ = runs
    named = tmp_path / "myrun.html"
    a.rename(named)
    refused(cli("view", "myrun.html", cwd=tmp_path), "default --out")
    assert named.read_bytes() == before


# ---------------------------------------------------------------- the same file, written another way


def test_view_out_through_a_symlink_a_hard_link_or_another_spelling_is_refused(runs, tmp_path):
    a, _, before, _ = runs
    (tmp_path / "sub").mkdir()
    link = tmp_path / "page.html"
    link.symlink_to(a)
    hard = tmp_path / "copy.html"
    os.link(a, hard)
    for out in (link, hard, "sub/../A.jsonl", "./A.jsonl"):
        refused(cli("view", "A.jsonl", "--out", out, cwd=tmp_path))
    assert a.read_bytes() == before


def test_view_to_a_new_page_still_writes_it(runs, tmp_path):
    a, _, _, _ = runs
    proc = cli("view", a, "--out", tmp_path / "page.html")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "page.html").read_text().startswith("<!DOCTYPE html>")


def test_plot_out_naming_a_run_it_reads_is_refused(runs, tmp_path):
    a, b, _, before_b = runs
    png = tmp_path / "B.png"  # a run file with a figure's name
    b.rename(png)
    refused(cli("plot", "intervals", a, png, "--out", png))
    assert png.read_bytes() == before_b


def test_the_rule_compares_files_not_names(tmp_path):
    from eqbench_nb.output_paths import OutputOverInput, refuse_output_over_inputs, same_file

    f = tmp_path / "f.jsonl"
    f.write_text("x")
    os.link(f, tmp_path / "hard")
    (tmp_path / "soft").symlink_to(f)
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    assert same_file(tmp_path / "hard", f) and same_file(tmp_path / "soft", f)
    assert not same_file(tmp_path / "new.html", f) and not same_file(tmp_path / "loop", f)
    for out in (tmp_path / "hard", tmp_path / "soft", tmp_path / "." / "f.jsonl"):
        with pytest.raises(OutputOverInput, match="--out"):
            refuse_output_over_inputs(out, [f])
    refuse_output_over_inputs(tmp_path / "new.html", [f])  # not an input: allowed


# ---------------------------------------------------------------- leaderboard --judge appends


@needs_data
def test_leaderboard_judge_does_not_append_judgements_into_a_run(tmp_path):
    from eqbench_nb.eqbench3.task import run_eqbench3
    from eqbench_nb.runner import RetryPolicy
    from eqbench_nb.runner.settings import Endpoint, RunSettings

    os.environ.setdefault("OPENAI_API_KEY", KEY)
    fast = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
    paths = []
    for tag, model in (("one", "model-a"), ("two", "model-b")):
        with FakeOpenAI(models=(model,), responder=responder(tag=tag)) as url:
            subject = Endpoint(base_url=url, model=model, retry=fast, timeout_s=10)
            result = run_eqbench3(subject, None, RunSettings(out_dir=tmp_path, progress=False), scenarios="1",
                                  no_rubric=True)  # fmt: skip
            paths.append(result.path)
    before = [p.read_bytes() for p in paths]
    judge = FakeOpenAI(models=("judge-model",), responder=responder())
    with judge as url:
        for target in (paths[0], tmp_path / "link.jsonl"):
            if target.name == "link.jsonl":
                target.symlink_to(paths[1])
            proc = cli("leaderboard", *paths, "--judge", "--judge-base-url", url, "--judge-model", "judge-model",
                       "--judgements", target)  # fmt: skip
            refused(proc, "--judgements")
        other = tmp_path / "notes.txt"  # a file that is no judgements file, read or not: not appended to
        other.write_text("my notes\n")
        proc = cli("leaderboard", *paths, "--judge", "--judge-base-url", url, "--judge-model", "judge-model",
                   "--judgements", other)  # fmt: skip
        assert proc.returncode == 2 and "holds no judgements" in proc.stderr, proc.stderr
    assert judge.log == []  # nothing was asked
    assert [p.read_bytes() for p in paths] == before and other.read_text() == "my notes\n"


# ---------------------------------------------------------------- reproduce


def test_reproduce_refuses_a_notebook_whose_output_is_its_own_source(tmp_path):
    from eqbench_nb.cli.reproduce import refuse_outputs_over_sources

    folder = tmp_path / "notebooks"
    folder.mkdir()
    source = folder / "01_first.py"
    source.write_text("# %%\nprint(1)\n")
    (folder / "02_second.py").write_text("# %%\nprint(2)\n")
    refuse_outputs_over_sources([source])  # an .ipynb of its own: fine
    os.link(source, folder / "01_first.ipynb")  # the notebook saved over the source it runs from
    with pytest.raises(ValueError, match="01_first"):
        refuse_outputs_over_sources([source])
    (folder / "01_first.ipynb").unlink()
    (folder / "01_first.ipynb").symlink_to(folder / "02_second.py")  # over another notebook's source
    with pytest.raises(ValueError, match="02_second"):
        refuse_outputs_over_sources([source])
