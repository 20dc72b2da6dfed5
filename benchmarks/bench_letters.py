"""How long the leaderboard's group letters take as the number of runs grows (target: 1,000 runs in seconds).

Two measurements, each printed:

1. ``compact_letters`` alone on the separation of K synthetic runs (K = 100, 300, 1,000): run k's score is
   drawn around 0.02 k with noise, so neighbours overlap and far runs separate, as on a real leaderboard,
   and its bootstrap replicates are drawn around that (the separation matrix is what ``leaderboard`` builds);
   then on the worst case of the old insert-and-absorb: K runs each separated from one other run only (a
   perfect matching), whose "not separated" graph has 2^(K/2) maximal cliques.
2. ``eqbench-nb leaderboard`` end to end on N synthetic 8-question run files (N = 60, 80, 100: the issue's
   probe, which took 2 s, 15 s and over 150 s before the letters were made polynomial).

   Issue 34's target: 1,000 runs in under 5 s (below 30 questions each pair's t interval once asked scipy for
   the same t quantile 499,500 times): ``--only-files --files 1000``, and ``--code /work/main`` for the code before.

Run: python benchmarks/bench_letters.py [--runs 100,300,1000] [--files 60,80,100] [--code DIR] [--only-files]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from eqbench_nb.eqbench.study.leaderboard import compact_letters, group_names, separation  # noqa: E402


def synthetic_separation(k: int, reps: int = 2000, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scores = 0.02 * np.arange(k) + rng.normal(0, 0.3, k)
    boot = scores + rng.normal(0, 1.0, (reps, k))
    return separation(boot)


def matching_separation(k: int) -> np.ndarray:
    """Run i separated from run i + k/2 only: 2^(k/2) maximal groups of runs not separated."""
    sep = np.zeros((k, k), dtype=bool)
    half = k // 2
    for i in range(half):
        sep[i, i + half] = sep[i + half, i] = True
    return sep


def time_letters(k: int, worst: bool = False) -> tuple[float, int]:
    sep = matching_separation(k) if worst else synthetic_separation(k)
    started = time.perf_counter()
    letters = compact_letters(sep)
    return time.perf_counter() - started, len(set().union(*(group_names(x) for x in letters)))


def write_runs(folder: Path, n: int, questions: int = 8, seed: int = 0) -> None:
    from eqbench_nb import load_questions
    from eqbench_nb.eqbench.runs import RunRecord, header_line, record_line, score_record

    rng = random.Random(seed)
    qs = load_questions("v2")[:questions]
    for k in range(n):
        header = {"model": f"model-{k:04d}", "run_id": "r", "version": "v2", "n_questions": questions}
        lines = [header_line(header | {"question_ids": [q.id for q in qs], "iterations": 1})]
        for q in qs:
            ratings = {e: float(rng.randint(0, 10)) for e in q.emotions}
            record = RunRecord(f"model-{k:04d}", "r", 1, q.id, first_pass=ratings)
            lines.append(record_line(score_record(record, q)))
        (folder / f"run-{k:04d}.jsonl").write_text("\n".join(lines) + "\n")


def time_leaderboard(n: int, timeout_s: float, code: Path = ROOT) -> str:
    """``eqbench-nb leaderboard`` of ``n`` synthetic runs in a fresh process of the checkout ``code``: its wall
    time, and its CPU time (what a shared machine's load does not stretch)."""
    import os
    import resource

    with tempfile.TemporaryDirectory() as tmp:
        write_runs(Path(tmp), n)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        try:
            subprocess.run(
                [sys.executable, "-m", "eqbench_nb", "leaderboard", tmp, "--format", "csv"],
                cwd=tmp,  # not the checkout: `python -m` would import the package beside it, not ``code``'s
                capture_output=True,
                check=True,
                timeout=timeout_s,
                env={**os.environ, "PYTHONPATH": str(code)},
            )
        except subprocess.TimeoutExpired:
            return f"over {timeout_s:.0f} s (stopped)"
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        load = os.getloadavg()[0]
        return f"{time.perf_counter() - started:.1f} s wall, {cpu:.1f} s CPU (load average {load:.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", default="100,300,1000", help="sizes for compact_letters alone")
    parser.add_argument("--files", default="60,80,100", help="run files for the whole leaderboard command")
    parser.add_argument("--timeout", type=float, default=150.0, help="seconds before a leaderboard is stopped")
    parser.add_argument(
        "--code", type=Path, default=ROOT, help="the checkout whose leaderboard is timed (the code before a change)"
    )
    parser.add_argument(
        "--only-files", action="store_true", help="time only the leaderboard command (--files), not compact_letters"
    )
    args = parser.parse_args()
    for k in (int(x) for x in args.runs.split(",") if x and not args.only_files):
        seconds, groups = time_letters(k)
        print(f"compact_letters, {k:,} runs: {seconds:.2f} s ({groups:,} groups)")
    for k in (int(x) for x in args.runs.split(",") if x and not args.only_files):
        seconds, groups = time_letters(k, worst=True)
        print(
            f"compact_letters, {k:,} runs each separated from one other (2^{k // 2} maximal groups): {seconds:.2f} s "
            f"({groups:,} groups)"
        )
    for n in (int(x) for x in args.files.split(",") if x):
        print(f"leaderboard, {n:,} synthetic 8-question runs: {time_leaderboard(n, args.timeout, args.code)}")


if __name__ == "__main__":
    main()
