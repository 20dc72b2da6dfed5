"""EQ-Bench 3's first canonical Elo file: how long the re-derivation and the solves take, and how much the solve
depends on the order of the judgements (more shuffles than notebook 10 draws).

Run: python benchmarks/bench_eqbench3.py [--shuffles N] [--seed S] [--version 8c3a125|3c21bcc]
(3c21bcc's rules take about 5 s per solve: 20 pseudo-wins per comparison.)
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from eqbench_nb.eqbench3.canonical import check_comparisons, read_canonical, resolve
from eqbench_nb.eqbench3.study import order_spread
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
    t = time.perf_counter()
    version = FIRST_CANONICAL if args.version == "8c3a125" else HEAD
    table, spearmans = order_spread(elo, version, shuffles=args.shuffles, seed=args.seed)
    took = time.perf_counter() - t
    rho = np.array(spearmans)
    width = (table["highest"] - table["lowest"]).to_numpy()
    ranks = (table["worst_rank"] - table["best_rank"]).to_numpy()
    shuffled = f"{args.shuffles} shuffled orders (seed {args.seed}; {took:.0f} s)"
    print(f"\norder dependence, {version.name} rules, {shuffled}:")
    print(
        f"  Spearman with the published ratings: min {rho.min():.3f}, 5th pct {np.quantile(rho, 0.05):.3f}, "
        f"median {np.median(rho):.3f}, max {rho.max():.3f}"
    )
    print(
        f"  range of a model's normalised rating over the orders: median {np.median(width):.0f}, "
        f"largest {width.max():.0f} points; rank range median {np.median(ranks):.0f}, largest {ranks.max():.0f} places"
    )
    print(f"  median SD over orders: {table['sd'].median():.1f} points")


if __name__ == "__main__":
    main()
