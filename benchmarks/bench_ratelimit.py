"""Throughput against a rate-limited server, with adaptive concurrency off (before) and on (after).

    python benchmarks/bench_ratelimit.py [--rate 40] [--concurrency 64] [--iterations 5] [--latency 0.1]

The fake server (tests/fake_openai_server.py, its own process) holds a token bucket of ``rate``
requests refilled at ``rate`` per second and answers 429 with ``Retry-After`` when it is empty; it
sends OpenAI's ``x-ratelimit-*-requests`` headers, or (the second pair of rows) none. Each workload
runs in a fresh client process against a fresh server. Figures printed per workload:

- answers per second (200s over the server's span from the first request to the last) and that as
  a share of the limit, and of what the bucket allows in that time (``rate x span + bucket``: a full
  bucket at the start is a one-off bonus); the client's wall time (reading and scoring included) beside;
- the share of requests answered 429;
- where the adaptive limiter settled (window, mean in flight, pace).

Targets (issue 19): >= 0.85 of the limit and <= 5 % of requests answered 429 at concurrency 64.
This prints figures; it is not a test. Report ``uptime``'s load with them: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child(url: str, concurrency: int, iterations: int, adaptive: bool) -> None:
    """One workload in this (fresh) process; prints one JSON line of figures."""
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    from eqbench_nb import Endpoint, RunSettings, run_benchmark

    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        endpoint = Endpoint(base_url=url, model="fake-model", concurrency=concurrency, timeout_s=60, adaptive=adaptive)
        result = run_benchmark(endpoint, RunSettings(out_dir=out, progress=False), iterations=iterations)
        wall = time.perf_counter() - started
    print(
        json.dumps(
            {
                "requests": result.stats.requests,
                "answers": result.stats.responses,
                "429": result.stats.faults.get("429", 0),
                "records": len(result.run.records),
                "wall_s": wall,
                "concurrency": result.concurrency,
            }
        )
    )


def workload(rate: float, latency: float, headers: bool, concurrency: int, iterations: int, adaptive: bool) -> dict:
    command = [sys.executable, str(ROOT / "tests" / "fake_openai_server.py"), "--latency", str(latency)]
    command += ["--bucket-rate", str(rate)] + ([] if headers else ["--no-bucket-headers"])
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()  # type: ignore[union-attr]
        out = subprocess.run(
            [sys.executable, __file__, "--child", url, str(concurrency), str(iterations), str(int(adaptive))],
            capture_output=True,
            text=True,
            check=True,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    finally:
        server.send_signal(signal.SIGINT)
        served = server.communicate(timeout=30)[0].strip().splitlines()
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    figures["span_s"] = json.loads(served[-2])["span_s"]  # the server's first request to its last
    return figures


def report(name: str, fig: dict, rate: float) -> None:
    per_s = fig["answers"] / fig["span_s"]
    allowed = rate * fig["span_s"] + rate  # the refill over the requests plus the full bucket it starts with
    print(
        f"{name}\n  {fig['requests']:>5} requests  {per_s:5.1f} answers/s = {per_s / rate:.2f} of the limit "
        f"({fig['answers'] / allowed:.2f} of what the bucket allows)  "
        f"429s {fig['429']:>4} = {100 * fig['429'] / fig['requests']:4.1f} %  requests over {fig['span_s']:5.1f} s "
        f"(client wall {fig['wall_s']:5.1f} s)\n  concurrency {fig['concurrency']}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="throughput against a rate-limited server (prints figures)")
    parser.add_argument("--rate", type=float, default=40.0, help="the server's limit, requests per second")
    parser.add_argument("--latency", type=float, default=0.1, help="server latency per request, seconds")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--iterations", type=int, default=5, help="times the 171 questions are asked")
    parser.add_argument("--child", nargs=4, metavar=("URL", "C", "N", "ADAPTIVE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), int(args.child[2]), bool(int(args.child[3])))
        return
    print(
        f"token bucket {args.rate:g} requests/s, latency {args.latency * 1000:.0f} ms, concurrency "
        f"{args.concurrency}, 171 x {args.iterations} questions; load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores",
        flush=True,
    )
    for headers in (True, False):
        what = "x-ratelimit headers" if headers else "no headers, 429s only"
        for adaptive in (False, True):
            name = f"{'after (adaptive)' if adaptive else 'before (fixed)'}, {what}"
            report(
                name, workload(args.rate, args.latency, headers, args.concurrency, args.iterations, adaptive), args.rate
            )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
