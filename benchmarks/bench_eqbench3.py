"""EQ-Bench 3's first canonical Elo file: how long the re-derivation and the solves take, and how much the solve
depends on the order of the judgements, with upstream's window of 8 and without it (as many shuffles as asked);
and what ``leaderboard --judge`` costs now that its interval re-solves the ratings on every scenario resample.

Run: PYTHONPATH=$PWD python benchmarks/bench_eqbench3.py [--shuffles N] [--seed S] [--version 8c3a125|3c21bcc]
     PYTHONPATH=$PWD python benchmarks/bench_eqbench3.py --leaderboard [--reps 200,500]
(each game is TrueSkill's update in closed form: a re-solve in a prepared order takes about a hundredth of a second
under 8c3a125's rules, about five times that under 3c21bcc's, which play up to 20 games a comparison.)

``--leaderboard`` runs ``eqbench-nb leaderboard --judge`` (the judge a loopback fake, tests/fake_eqbench3.py: every
judgement is stored, so nothing is asked and what is timed is reading, solving and the interval) on the test
fixtures (two runs, two scenarios: below the small-n rule, no bootstrap) and on the largest judgements there are,
upstream's first canonical field (6,452 judgements, 27 models, 45 scenarios) under each scoring version, at each
number of resamples; it prints wall and CPU seconds (the command's process, from ``getrusage``) and the Monte-Carlo
error of the interval ends and of separability that the command states. A panel of J judges solves J + 1 tables.
Measured on the shared 2-core machine (CPU seconds of the command; wall was 2-3 times that under load): the fixtures
1.6 (no bootstrap: below 30 scenarios); the canonical field under 8c3a125 3.7 with 200 resamples and 5.9 with 500
(the default), under 3c21bcc 15 and 32; the Monte-Carlo SE of the interval ends, median 5.4 points with 200 and 3.8
with 500 (largest 7.2 and 6.0), against half-widths of about 70 points.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from eqbench_nb.eqbench3.canonical import check_comparisons, read_canonical, resolve
from eqbench_nb.eqbench3.study import OrderSolver, order_spread
from eqbench_nb.eqbench3.versions import FIRST_CANONICAL, HEAD


def timed(label: str, fn, repeats: int = 3):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    print(f"{label:<52} median {statistics.median(times):6.2f} s (min {min(times):.2f}, max {max(times):.2f})")
    return out


ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "eqbench3_before_panels"


def leaderboard_cost(reps: list[int]) -> None:
    """``leaderboard --judge`` on the fixtures and on the canonical field (module docstring)."""
    from eqbench_nb.eqbench3 import files

    sys.path.insert(0, str(ROOT / "tests"))
    from fake_eqbench3 import responder
    from fake_openai_server import FakeOpenAI

    canonical = files.locate(files.CANONICAL_ELO_8C3A125)
    env = {**os.environ, "OPENAI_API_KEY": "sk-bench-0123456789", "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(models=("judge-model",), responder=responder()) as url:
        small = Path(tmp) / "fixtures"
        shutil.copytree(FIXTURES, small)  # --judge may append: never to the committed fixtures
        judge = ["--judge", "--judge-base-url", url, "--judge-model", "judge-model", "--format", "json"]
        cases = [("test fixtures (2 runs, 2 scenarios)", [str(small)], None)]
        cases += [(f"canonical field, {v} rules, {n} resamples", [str(canonical), "--judgements",
                   str(Path(tmp) / "j.jsonl"), "--scoring", v, "--reps", str(n)], n)
                  for v in ("8c3a125", "3c21bcc") for n in reps]  # fmt: skip
        print(f"{'leaderboard --judge on':<46} {'wall s':>7} {'CPU s':>7}  interval")
        for label, argv, n in cases:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "eqbench_nb", "leaderboard", *argv, *judge],
                                  capture_output=True, text=True, env=env, cwd=tmp)  # fmt: skip
            wall = time.perf_counter() - t
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            if proc.returncode:
                raise SystemExit(f"{label}: exit {proc.returncode}: {proc.stderr.strip()[-500:]}")
            rows = json.loads(proc.stdout)
            se = [r["ci_mc_se"] for r in rows if r["ci_mc_se"] is not None]
            what = (
                f"{rows[0]['interval_method']}; Monte-Carlo SE of the ends up to {max(se):.1f} points (median "
                f"{statistics.median(se):.1f}); separability {rows[0]['separability']:.3f} (SE "
                f"{rows[0]['separability_se']:.3f})"
                if n
                else rows[0]["interval_method"]
            )
            print(f"{label:<46} {wall:7.2f} {cpu:7.2f}  {what}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shuffles", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--version", choices=["8c3a125", "3c21bcc"], default="8c3a125", help="the rules of the solve")
    ap.add_argument("--leaderboard", action="store_true", help="only the cost of leaderboard --judge")
    ap.add_argument("--reps", default="200,500", help="--leaderboard: resamples to time, comma-separated")
    args = ap.parse_args()
    if args.leaderboard:
        leaderboard_cost([int(n) for n in args.reps.split(",")])
        return
    elo = timed("read the canonical file (gzip, JSON, types)", read_canonical)
    timed("re-derive 6,452 judgements (8c3a125 rules)", lambda: check_comparisons(elo, FIRST_CANONICAL))
    timed("re-solve, 8c3a125 (window 8, 1 pseudo-win)", lambda: resolve(elo, FIRST_CANONICAL), repeats=2)
    timed("re-solve, 3c21bcc (window 16, 20 and 5 pseudo-wins)", lambda: resolve(elo, HEAD), repeats=1)
    version = FIRST_CANONICAL if args.version == "8c3a125" else HEAD
    order = np.random.default_rng(args.seed).permutation(len(elo.comparisons))
    for windowed in (True, False):
        solver = timed(f"prepare the re-solves, {'window' if windowed else 'no window'}",
                       lambda w=windowed: OrderSolver(elo, version, w), repeats=1)  # fmt: skip
        timed(f"one re-solve in a shuffled order ({solver.label})", lambda s=solver: s.in_order(order), repeats=5)
        t = time.perf_counter()
        spread = order_spread(elo, version, shuffles=args.shuffles, seed=args.seed, solver=solver)
        took = time.perf_counter() - t
        rho = np.array(spread.spearmans)
        table = spread.moved
        width = (table["highest"] - table["lowest"]).to_numpy()
        ranks = (table["worst_rank"] - table["best_rank"]).to_numpy()
        print(f"\norder dependence, {spread.solve}, {args.shuffles} shuffled orders (seed {args.seed}; {took:.1f} s):")
        print(
            f"  Spearman with the published ratings: min {rho.min():.3f}, 5th pct {np.quantile(rho, 0.05):.3f}, "
            f"median {np.median(rho):.3f}, 95th pct {np.quantile(rho, 0.95):.3f}, max {rho.max():.3f}"
        )
        print(
            f"  range of a model's normalised rating over the orders (anchors left out): median "
            f"{np.median(width):.0f}, largest {width.max():.0f} points; rank range median {np.median(ranks):.0f}, "
            f"largest {ranks.max():.0f} places; median SD {table['sd'].median():.1f} points"
        )
        print(
            f"  published rating outside the shuffled range: {spread.published_outside} of {len(table)} models; "
            f"spread of the mean ratings / published: {spread.compression:.2f}\n"
        )


if __name__ == "__main__":
    main()
