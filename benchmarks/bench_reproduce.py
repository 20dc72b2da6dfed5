"""Time `python -m eqbench_nb reproduce` end to end from bundled data (target: under 3 minutes).

Figures go to a temporary folder and notebooks are executed without saving, so the working tree
is left as it is. Prints the time per notebook and in total (the quickstart's fresh run of the
bundled model included).

Run: python benchmarks/bench_reproduce.py
"""

import os
import tempfile
import time

from eqbench_nb.cli.reproduce import execute_notebook, notebook_sources


def main() -> None:
    with tempfile.TemporaryDirectory() as figures:
        os.environ["EQBENCH_NB_FIGURES"] = figures
        start = time.perf_counter()
        for path in notebook_sources():
            r = execute_notebook(path, save=False)
            print(f"{path.name:<32} {r.seconds:6.1f} s  {'FAILED: ' + r.error if r.error else 'ok'}", flush=True)
        total = time.perf_counter() - start
    print(f"reproduce end to end: {total:.1f} s for {len(notebook_sources())} notebooks (target < 180 s)")


if __name__ == "__main__":
    main()
