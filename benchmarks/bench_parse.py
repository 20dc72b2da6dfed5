"""Parsing time on adversarial and ordinary text: the upstream expression (re.findall) against the package's
linear reading of it (eqbench_nb.eqbench.parsing.find_pairs), which finds the same pairs.

One unbroken word of n characters costs the upstream expression time in n² (it restarts at every character
of the word); the package's reading costs time in n. Prints seconds per size; the expression is stopped
being timed once one call passes 5 s.

Run: python benchmarks/bench_parse.py
"""

import re
import time

from eqbench_nb import load_questions, parse_answer
from eqbench_nb.eqbench.parsing import _EN, find_pairs

UPSTREAM = re.compile(r"(\w+):\s+(\d+)")


def timed(fn, text):
    start = time.perf_counter()
    result = fn(text)
    return time.perf_counter() - start, result


def main() -> None:
    print(f"{'input':<34} {'upstream re.findall':>20} {'eqbench_nb':>12}")
    give_up = False
    for n in (5_000, 10_000, 20_000, 40_000, 80_000, 1_000_000):
        text = "x" * n  # one unbroken word: the worst case for the expression
        ours, found = timed(lambda t: find_pairs(t, _EN), text)
        if give_up:
            theirs_s = "skipped"
        else:
            theirs, expected = timed(UPSTREAM.findall, text)
            assert found == expected
            theirs_s = f"{theirs:.3f} s"
            give_up = theirs > 5
        print(f"{f'one word of {n:,} characters':<34} {theirs_s:>20} {ours:>10.4f} s")
    q = load_questions("v2")[0]
    ordinary = "\n".join(f"{e}: 5" for e in q.emotions) + "\n\nI think these are right.\n"
    reps = 20_000
    start = time.perf_counter()
    for _ in range(reps):
        UPSTREAM.findall(ordinary)
    theirs = (time.perf_counter() - start) / reps
    start = time.perf_counter()
    for _ in range(reps):
        parse_answer(ordinary)
    ours = (time.perf_counter() - start) / reps
    print(f"{'an ordinary answer (per call)':<34} {theirs * 1e6:>17.1f} µs {ours * 1e6:>9.1f} µs")


if __name__ == "__main__":
    main()
