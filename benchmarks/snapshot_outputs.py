"""Every command's output on the committed runs and the upstream files, written to a folder, so that a refactor can
be checked byte for byte: run it before and after, then ``diff -r BEFORE AFTER`` (or ``--compare BEFORE``).

    PYTHONPATH=$PWD python benchmarks/snapshot_outputs.py OUT_DIR [--compare EARLIER_OUT_DIR]

About 70 commands: ``score``, ``runs``, ``compare``, ``leaderboard``, ``plot`` and ``view`` on the committed runs
(data/runs, data/quickstart) and the upstream files (../shared/data), ``run --dry-run`` of each benchmark, runs of
each benchmark against loopback fakes (tests/fake_openai_server.py, tests/fake_eqbench3.py) and the commands on
what they wrote, and a few refused options (exit 2). Each command's stdout, stderr and exit status go to one file;
what changes from one identical call to the next (wall times, dates, the mean in flight, the fake's port, the
temporary folder) is replaced by a placeholder first, and figures and pages are written as their sha256 (but the page
of a run made here, which holds its latencies).
"""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT / "tests"))

from fake_eqbench3 import responder  # noqa: E402
from fake_openai_server import FakeOpenAI  # noqa: E402

KEY = "sk-snapshot-0123456789"
RUNS = ROOT / "data" / "runs"
V2_X10 = RUNS / "SmolLM2-135M-Instruct__v2__official-x10-all.jsonl"
V2_T07 = RUNS / "SmolLM2-135M-Instruct__v2__official-t0.7-x3-all.jsonl"
EMO = RUNS / "SmolLM2-135M-Instruct__emotionbench__panas-x1-d2-11sit.jsonl"
QUICK = next((ROOT / "data" / "quickstart").glob("*.jsonl"))
UPSTREAM = SHARED / "eqbench" / "results" / "eq-bench"
UP1, UP2 = sorted(UPSTREAM.glob("*.json"))[:2]
CANONICAL = SHARED / "eqbench3" / "canonical_leaderboard_elo_results_8c3a125.json.gz"
FORMATS = ("table", "csv", "json", "markdown", "latex")


def normalise(text: str, tmp: str, urls: list[str]) -> str:
    for url in urls:
        text = text.replace(url, "<FAKE>")
    text = text.replace(tmp, "<TMP>").replace(str(ROOT), "<ROOT>")
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\+00:00|Z)?", "<DATE>", text)
    text = re.sub(r"\b\d+(\.\d+)? ?(s|ms|min)\b", "<T>", text)
    text = re.sub(r"\d+(\.\d+)?/s\b", "<RATE>", text)
    text = re.sub(r"mean in flight \d+(\.\d+)?", "mean in flight <N>", text)
    return text


def commands(tmp: Path, eq_url: str, eq3_url: str) -> list[tuple[str, list[str]]]:
    out = tmp / "runs"
    v2, t07, emo, quick = str(V2_X10), str(V2_T07), str(EMO), str(QUICK)
    fake = ["--base-url", eq_url, "--model", "fake-model", "--out", str(out), "--no-progress", "--retry-budget", "120"]
    judge = ["--judge-base-url", eq3_url, "--judge-model", "judge-model"]
    eq3 = ["--benchmark", "eqbench3", "--base-url", eq3_url, "--model", "fake-model", *judge]
    c: list[tuple[str, list[str]]] = []
    for f in FORMATS:
        c.append((f"score-runs-{f}", ["score", str(RUNS), "--format", f]))
    c += [
        ("score-all-conventions", ["score", str(RUNS), "--convention", "all"]),
        ("score-sort-model", ["score", str(RUNS), str(QUICK), "--sort", "model"]),
        ("score-sort-file", ["score", str(RUNS), "--sort", "file"]),
        ("score-emotionbench-json", ["score", emo, "--format", "json"]),
        ("score-upstream", ["score", str(UPSTREAM), "--format", "csv"]),
        ("score-upstream-all", ["score", str(UP1), str(UP2), "--convention", "all"]),
        ("score-canonical", ["score", str(CANONICAL)]),
        ("score-canonical-3c21bcc", ["score", str(CANONICAL), "--scoring", "3c21bcc", "--format", "csv"]),
        ("score-quickstart", ["score", quick]),
    ]
    for f in FORMATS:
        c.append((f"runs-{f}", ["runs", str(RUNS), str(QUICK), "--format", f]))
    c += [
        ("runs-sort-model", ["runs", str(RUNS), "--sort", "model"]),
        ("runs-upstream", ["runs", str(UPSTREAM), "--format", "csv"]),
    ]
    for f in FORMATS:
        c.append((f"compare-{f}", ["compare", v2, t07, "--reps", "200", "--seed", "1", "--format", f]))
    c += [
        ("compare-by-question", ["compare", v2, t07, "--by-question", "--format", "csv"]),
        ("compare-common", ["compare", v2, quick, "--common", "--reps", "200", "--seed", "2"]),
        ("compare-lm-eval", ["compare", v2, t07, "--convention", "lm-eval", "--reps", "200", "--seed", "3"]),
        ("compare-upstream", ["compare", str(UP1), str(UP2), "--reps", "200", "--seed", "4"]),
        ("compare-refused", ["compare", v2, quick]),
    ]
    for f in FORMATS:
        c.append((f"leaderboard-{f}", ["leaderboard", v2, t07, quick, "--reps", "200", "--seed", "5", "--format", f]))
    c += [
        ("leaderboard-published", ["leaderboard", v2, t07, "--with-published", "--reps", "200", "--seed", "6"]),
        ("leaderboard-common", ["leaderboard", v2, quick, "--common", "--reps", "200", "--seed", "7"]),
        ("leaderboard-upstream", ["leaderboard", str(UPSTREAM), "--reps", "200", "--seed", "8", "--format", "csv"]),
        ("leaderboard-emotionbench", ["leaderboard", emo, "--reps", "200", "--seed", "9"]),
        ("leaderboard-canonical", ["leaderboard", str(CANONICAL), "--reps", "200", "--seed", "10"]),
    ]
    for kind, path in (("intervals", str(RUNS)), ("emotions", v2), ("reference", v2)):
        c.append((f"plot-{kind}", ["plot", kind, path, "--out", str(tmp / f"plot-{kind}.png")]))
    for name, paths in (("v2", [v2]), ("emotionbench", [emo]), ("pair", [v2, t07]), ("upstream", [str(UP1)])):
        c.append((f"view-{name}", ["view", *paths, "--out", str(tmp / f"view-{name}.html"), "--price-in", "1"]))
    c += [
        ("dry-eqbench", ["run", "--dry-run"]),
        ("dry-eqbench-options", ["run", "--dry-run", "--set", "v1", "--revise", "--iterations", "3", "--limit", "7",
                                 "--price-in", "2", "--price-out", "8", "--model", "gpt-4o"]),
        ("dry-eqbench-form", ["run", "--dry-run", "--form", "f24"]),
        ("dry-eqbench-batch", ["run", "--dry-run", "--batch", "--price-in", "2", "--price-out", "8"]),
        ("dry-emotionbench", ["run", "--dry-run", "--benchmark", "emotionbench", "--repeats", "2",
                              "--per-factor", "1"]),
        ("dry-eqbench3", ["run", "--dry-run", "--benchmark", "eqbench3", "--price-in", "1", "--judge-price-in", "3"]),
        ("dry-eqbench3-some", ["run", "--dry-run", "--benchmark", "eqbench3", "--scenarios", "1,2,401",
                               "--no-rubric"]),
        ("bad-iterations", ["run", "--iterations", "0", *fake]),
        ("bad-questions", ["run", "--questions", "x", *fake]),
        ("bad-emotionbench-option", ["run", "--benchmark", "emotionbench", "--form", "f24", *fake]),
        ("bad-eqbench3-scenarios", ["run", *eq3, "--scenarios", "9999", "--out", str(out), "--no-progress"]),
        ("bad-price", ["run", "--dry-run", "--price-in", "nan"]),
        ("run-eqbench", ["run", *fake, "--limit", "6", "--iterations", "2"]),
        ("run-eqbench-resume", ["run", *fake, "--limit", "6", "--iterations", "2"]),
        ("run-eqbench-revise", ["run", *fake, "--questions", "1,5,10-12", "--revise", "--seed", "3"]),
        ("run-eqbench-extend", ["run", *fake, "--limit", "8", "--iterations", "2", "--extend",
                                str(out / "fake-model__v2__official-x2-first6.jsonl")]),
        ("run-emotionbench", ["run", "--benchmark", "emotionbench", *fake, "--repeats", "2", "--per-factor", "1",
                              "--emotions", "Anger,Fear"]),
        ("run-eqbench3", ["run", *eq3, "--scenarios", "401", "--out", str(out), "--no-progress"]),
        ("run-eqbench3-norubric", ["run", *eq3, "--scenarios", "1", "--no-rubric", "--out", str(out),
                                   "--no-progress", "--run-id", "nr"]),
        ("after-score", ["score", str(out), "--convention", "all"]),
        ("after-score-json", ["score", str(out), "--format", "json"]),
        ("after-runs", ["runs", str(out)]),
        ("after-leaderboard", ["leaderboard", str(out), "--reps", "200", "--seed", "11"]),
        ("after-view", ["view", str(out / "fake-model__v2__official-x2-first6.jsonl"), "--out",
                        str(tmp / "view-after.html")]),
    ]  # fmt: skip
    return c


def snapshot(dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp_s, FakeOpenAI() as eq_url:
        tmp = Path(tmp_s)
        eq3_fake = FakeOpenAI(models=("fake-model", "judge-model"), responder=responder())
        with eq3_fake as eq3_url:
            env = {**os.environ, "OPENAI_API_KEY": KEY, "PYTHONPATH": str(ROOT), "COLUMNS": "120"}
            for name, argv in commands(tmp, eq_url, eq3_url):
                proc = subprocess.run(
                    [sys.executable, "-m", "eqbench_nb", *argv],
                    capture_output=True, text=True, env=env, timeout=600, cwd=tmp,
                )  # fmt: skip
                text = (
                    f"$ {' '.join(argv)}\nexit {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
                )
                (dest / f"{name}.txt").write_text(normalise(text, tmp_s, [eq_url, eq3_url]))
                print(f"{name}: exit {proc.returncode}", flush=True)
            # the page of a run made here holds its latencies and times: its command's output is compared, not its bytes
            for made in sorted(p for p in tmp.glob("*.*") if p.name != "view-after.html"):
                (dest / f"{made.name}.sha256").write_text(hashlib.sha256(made.read_bytes()).hexdigest() + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--compare", type=Path, help="an earlier snapshot: list the files that differ")
    args = parser.parse_args()
    snapshot(args.out)
    if args.compare is None:
        return 0
    cmp = filecmp.dircmp(args.compare, args.out)
    differ = sorted(cmp.diff_files + cmp.left_only + cmp.right_only)
    print(f"{len(differ)} of {len(os.listdir(args.out))} outputs differ: {', '.join(differ) or 'none'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
