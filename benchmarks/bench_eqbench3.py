"""EQ-Bench 3's first canonical Elo file: how long the re-derivation and the solves take, and how much the solve
depends on the order of the judgements, with upstream's window of 8 and without it (as many shuffles as asked).

Run: python benchmarks/bench_eqbench3.py [--shuffles N] [--seed S] [--version 8c3a125|3c21bcc]
(each game is TrueSkill's update in closed form: a re-solve in a prepared order takes a few hundredths of a second
under 8c3a125's rules, about ten times that under 3c21bcc's, which play up to 20 games a comparison.)
"""

from __future__ import annotations

import argparse
import statistics
import time

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shuffles", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--version", choices=["8c3a125", "3c21bcc"], default="8c3a125", help="the rules of the solve")
    args = ap.parse_args()
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
