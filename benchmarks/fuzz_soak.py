"""Fuzz soak: the reader and transport fuzz suites (tests/test_fuzz_*.py) with many more examples than CI.

    python benchmarks/fuzz_soak.py [--examples 2000] [--suite readers|transport|all]

CI runs the suites derandomised with a few dozen examples each; this runs them with ``--examples``
examples per test, drawn afresh each time (``EQBENCH_NB_FUZZ_EXAMPLES``), and prints, per test, the
examples run, the wall time and the outcome (a failure prints hypothesis's smallest failing example).
It also prints the load average: timings on a shared machine say little without it. This prints
figures; it is not a test.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUITES = {"readers": ["tests/test_fuzz_readers.py"], "transport": ["tests/test_fuzz_transport.py"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=2000, help="examples per fuzz test")
    parser.add_argument("--suite", choices=[*SUITES, "all"], default="all")
    args = parser.parse_args()
    files = [f for name, fs in SUITES.items() if args.suite in (name, "all") for f in fs]
    env = {**os.environ, "EQBENCH_NB_FUZZ_EXAMPLES": str(args.examples), "PYTHONPATH": str(ROOT)}
    print(f"load average before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    failed = 0
    for file in files:
        started = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=0", file],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - started
        for line in proc.stdout.splitlines():
            found = re.match(r"\s*([\d.]+)s call\s+\S+::(\w+)", line)
            if found:
                seconds, test = float(found.group(1)), found.group(2)
                each = 1000 * seconds / args.examples
                print(f"{test}: {args.examples} examples in {seconds:.1f} s ({each:.0f} ms each)")
        summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-500:]
        print(f"{file}: {summary} ({wall:.0f} s)")
        if proc.returncode:
            failed += 1
            print(proc.stdout[-6000:])
    print(f"load average after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
