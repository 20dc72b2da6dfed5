import json
import subprocess
import sys

from conftest import RESULTS, ROOT, needs_shared


def cli(*args):
    return subprocess.run([sys.executable, "-m", "eqbench_nb", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@needs_shared
def test_score_folder_prints_one_row_per_run():
    out = cli("score", RESULTS, "--format", "json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert len(rows) == 86
    published = {json.loads(p.read_text())["model_path"]: json.loads(p.read_text())["benchmark_score"]
                 for p in RESULTS.glob("*.json")}
    assert all(abs(r["score"] - published[r["model"]]) <= 0.025 for r in rows)
    table = cli("score", RESULTS)
    assert table.returncode == 0 and len(table.stdout.strip().splitlines()) == 87
    assert table.stdout.splitlines()[0].split() == ["model", "questions", "parseable", "score", "failed"]


@needs_shared
def test_bad_files_are_one_line_errors_and_others_still_scored(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("garbage\n")
    good = sorted(RESULTS.glob("*.json"))[0]
    out = cli("score", bad, good, tmp_path / "missing.json", "--format", "csv", "--convention", "lm-eval")
    assert out.returncode == 2
    errors = out.stderr.strip().splitlines()
    assert len(errors) == 2 and all(line.startswith("error: ") for line in errors)
    assert "bad.jsonl" in errors[0] and "Traceback" not in out.stderr
    assert len(out.stdout.strip().splitlines()) == 2  # csv header + the good run


def test_usage_errors_exit_2():
    assert cli("score").returncode == 2
    assert cli("score", "x", "--convention", "nope").returncode == 2
