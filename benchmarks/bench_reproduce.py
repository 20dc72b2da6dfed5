"""Time `python -m eqbench_nb reproduce`'s notebooks one at a time (issue 35's goal: the whole command, two at a
time, at most 60 s at load average 2 on 2 cores).

Figures go to a temporary folder and notebooks are executed without saving, so the working tree
is left as it is. Prints per notebook its wall time and the CPU seconds its kernel and this process spent (CPU
time moves far less with the machine's load than wall time does, so it shows where the floor is on a shared
machine), the load average when it ended, and the totals. Names given run only those notebooks.

Run: python benchmarks/bench_reproduce.py [NOTEBOOK ...]   (e.g. 08, or 08_psychometrics)
"""

import os
import resource
import sys
import tempfile
import time

from eqbench_nb.cli.reproduce import ReproduceError, execute_notebook, notebook_sources, select_notebooks


def _cpu_s() -> float:
    """CPU seconds of this process and its finished children (each notebook's kernel)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    if {"-h", "--help"} & set(sys.argv[1:]):
        print(__doc__)
        return
    try:
        paths = select_notebooks(sys.argv[1:]) if sys.argv[1:] else notebook_sources()
    except ReproduceError as exc:  # an unknown name: one line, not a traceback
        print(f"bench_reproduce: {exc}", file=sys.stderr)
        sys.exit(2)
    with tempfile.TemporaryDirectory() as figures:
        os.environ["EQBENCH_NB_FIGURES"] = figures
        start, cpu_start = time.perf_counter(), _cpu_s()
        for path in paths:
            cpu = _cpu_s()
            r = execute_notebook(path, save=False)
            print(f"{path.name:<32} {r.seconds:6.1f} s wall {_cpu_s() - cpu:6.1f} s CPU  load "
                  f"{os.getloadavg()[0]:5.2f}  {'FAILED: ' + r.error if r.error else 'ok'}", flush=True)  # fmt: skip
        total, cpu_total = time.perf_counter() - start, _cpu_s() - cpu_start
    print(f"{len(paths)} notebooks one at a time: {total:.1f} s wall, {cpu_total:.1f} s CPU")


if __name__ == "__main__":
    main()
