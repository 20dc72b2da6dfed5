"""Time `python -m eqbench_nb reproduce` end to end from bundled data (target: under 3 minutes).

Figures go to a temporary folder and notebooks are executed without saving, so the working tree
is left as it is. Prints the time per notebook and in total. The quickstart resumes its run in
runs/quickstart/ when that exists: delete it first to time the bundled model's run too (as on a
clean clone).

Run: python benchmarks/bench_reproduce.py
"""
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from eqbench_nb.reproduce import execute_notebook, notebook_paths  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as figures:
        os.environ["EQBENCH_NB_FIGURES"] = figures
        start = time.perf_counter()
        for path in notebook_paths():
            r = execute_notebook(path, save=False)
            print(f"{path.name:<32} {r.seconds:6.1f} s  {'FAILED: ' + r.error if r.error else 'ok'}", flush=True)
        total = time.perf_counter() - start
    print(f"reproduce end to end: {total:.1f} s for {len(notebook_paths())} notebooks (target < 180 s)")


if __name__ == "__main__":
    main()
