"""How long `python -m eqbench_nb score <the 86 published runs>` takes (target: under 5 s).

Run: python benchmarks/bench_score.py [REPEATS]
"""

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT.parent / "shared" / "data" / "eqbench" / "results" / "eq-bench"


def main(repeats: int = 5) -> None:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-m", "eqbench_nb", "score", str(RESULTS)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        times.append(time.perf_counter() - t)
    rows = len(out.stdout.strip().splitlines()) - 1
    print(
        f"score {rows} runs: median {statistics.median(times):.2f} s, min {min(times):.2f} s, "
        f"max {max(times):.2f} s over {repeats} runs (target < 5 s)"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
