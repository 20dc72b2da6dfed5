"""Batch API fuzz soak: many examples of tests/batch_fuzz.py (random statuses, output lines, kills, deletions),
each run to its end and checked, in a bounded loop; prints one line per example and a summary.

    python benchmarks/fuzz_batch.py [--examples 40] [--seconds 600] [--start 0] [--questions 4]
    EQBENCH_NB_FUZZ_CODE=/path/to/other/checkout python benchmarks/fuzz_batch.py   # what that code breaks

The loop stops after ``--examples`` examples or ``--seconds`` seconds, whichever comes first. CI runs two
seeded examples (tests/test_batch_fuzz.py). This prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]
# a canary, not a key: the fuzz checks it never reaches a file or a screen (split so no key scanner mistakes it)
os.environ.setdefault("OPENAI_API_KEY", "sk-" + "test-NEVER-WRITE-ME-0123456789")

from batch_fuzz import CODE, Example, reference_records, run_example  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=40, help="examples at most")
    parser.add_argument("--seconds", type=float, default=600.0, help="stop starting examples after this long")
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--questions", type=int, default=4, help="questions per run")
    args = parser.parse_args()
    print(f"code under test: {CODE}; load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    started = time.monotonic()
    totals: Counter = Counter()
    broken = []
    with tempfile.TemporaryDirectory() as tmp:
        reference = reference_records(Path(tmp) / "reference", args.questions)
        for seed in range(args.start, args.start + args.examples):
            if time.monotonic() - started > args.seconds:
                break
            outcome = run_example(Example.draw(seed, args.questions), Path(tmp) / f"seed-{seed}", reference)
            totals.update(examples=1, attempts=outcome.attempts, kills=outcome.kills, batches=outcome.batches,
                          requests=outcome.requests)  # fmt: skip
            status = "ok" if not outcome.problems else "BROKEN: " + " | ".join(p[:200] for p in outcome.problems)
            runs = f"{outcome.attempts} runs ({outcome.kills} killed), exits {outcome.exits}"
            print(f"seed {seed}: {outcome.seconds:.1f} s, {runs}, {outcome.batches} batches, {outcome.requests} "
                  f"requests: {status}", flush=True)  # fmt: skip
            if outcome.problems:
                broken.append(seed)
    wall = time.monotonic() - started
    print(f"{totals['examples']} examples in {wall:.0f} s: {totals['attempts']} runs, {totals['kills']} killed, "
          f"{totals['batches']} batches, {totals['requests']} requests; {len(broken)} broke a guarantee"
          + (f" (seeds {', '.join(map(str, broken))})" if broken else ""))  # fmt: skip
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
