"""Runner throughput, client CPU and memory against a loopback server with a fixed latency.

    python benchmarks/bench_runner.py [--latency 0.1] [--quick]

The fake server (tests/fake_openai_server.py) runs in its own process, so its CPU is not counted;
each workload runs in a fresh client process, so its peak RSS is its own. Figures printed:

- wall time and requests per second;
- efficiency = (requests x latency / concurrency) / wall time: 1.0 means the runner adds nothing
  to the server's latency (target >= 0.85 at concurrency 32, latency 100 ms);
- client CPU per request (time.process_time over the whole run_benchmark call, including writing,
  fsync, reading the run back and scoring it; target <= 2 ms);
- peak RSS of the client process (target: flat, and under 200 MB at 10,000 requests).

Every answer is parseable, so each question is one request: 171 questions x N iterations.
This prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
N_QUESTIONS = 171


def child(url: str, concurrency: int, iterations: int) -> None:
    """One workload in this (fresh) process; prints one JSON line of figures."""
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    import openai  # imported before timing: a module import is a once-per-process cost, not a runner's
    import tqdm.auto  # noqa: F401

    openai.DefaultAioHttpClient(timeout=1)  # the same for the modules this transport imports lazily (0.13 s)

    from eqbench_nb import Endpoint, RunSettings, run_benchmark

    with tempfile.TemporaryDirectory() as out:
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        cpu0, wall0 = time.process_time(), time.perf_counter()
        endpoint = Endpoint(base_url=url, model="fake-model", concurrency=concurrency, timeout_s=60)
        result = run_benchmark(endpoint, RunSettings(out_dir=out), iterations=iterations)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    requests = result.stats.requests
    print(
        json.dumps(
            {
                "requests": requests,
                "records": len(result.run.records),
                "retries": result.stats.retries,
                "wall_s": wall,
                "cpu_s": cpu,
                "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "rss_before_mb": rss_before,
            }
        )
    )


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "fake_openai_server.py"), "--latency", str(latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    return proc, proc.stdout.readline().strip()


def workload(url: str, concurrency: int, iterations: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", url, str(concurrency), str(iterations)],
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def report(name: str, fig: dict, latency: float, concurrency: int) -> None:
    ideal = fig["requests"] * latency / concurrency
    print(
        f"{name:<34} {fig['requests']:>6} req  wall {fig['wall_s']:7.2f} s  "
        f"{fig['requests'] / fig['wall_s']:7.1f} req/s  "
        f"efficiency {ideal / fig['wall_s']:.3f}  CPU/req {1000 * fig['cpu_s'] / fig['requests']:.2f} ms  "
        f"peak RSS {fig['rss_mb']:.0f} MB",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="runner throughput, CPU and memory (prints figures)")
    parser.add_argument("--latency", type=float, default=0.1, help="server latency per request, seconds")
    parser.add_argument("--quick", action="store_true", help="skip the 10,000-request memory run")
    parser.add_argument("--child", nargs=3, metavar=("URL", "C", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), int(args.child[2]))
        return
    server, url = start_server(args.latency)
    try:
        print(
            f"fake server at {url}, latency {args.latency * 1000:.0f} ms, client on {os.cpu_count()} cores", flush=True
        )
        report("171 x 3, concurrency 32", workload(url, 32, 3), args.latency, 32)
        report("171 x 3, concurrency 1 (official)", workload(url, 1, 3), args.latency, 1)
        if not args.quick:
            report("171 x 10, concurrency 32", workload(url, 32, 10), args.latency, 32)
            report("171 x 59 (10,089), concurrency 32", workload(url, 32, 59), args.latency, 32)
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
