"""Fault soak: a long run through 20 % mixed faults and five SIGKILLs loses, doubles and leaks nothing.

    python benchmarks/bench_faults.py [--iterations 47] [--concurrency 64] [--kills 5]

The fake server (tests/fake_openai_server.py, its own process) answers every request after a short
latency, except a fifth: 429 (Retry-After), 500/502/503, a reset mid-response, a connection closed
with no response, a body that is not JSON or is empty, no choices, an answer slower than the
deadline, a body trickling in byte by byte, 400 (this question rejected), content null, a 50 MB
body and a gzip bomb. The client is ``eqbench-nb run`` at concurrency 64 (171 questions x 47
iterations = 8,037 questions, about 10,000 requests), SIGKILLed five times at random moments and
resumed each time, then left to finish. Figures printed:

- every (iteration, question) in the run file exactly once, and what the readers left out (nothing);
- requests the server answered, by outcome, and the answers a killed process had received but not
  yet written (asked again after the resume: the price of a SIGKILL);
- per segment (one process life): wall time, records on disk at its end, peak RSS and open
  sockets (sampled every 0.2 s from /proc); for the last, uninterrupted segment also RSS and
  sockets at each quarter of its life, so "flat" can be read off.

Everything runs on 127.0.0.1. This prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAULTS = {  # 20 % of requests in all
    "429": 0.03,
    "500": 0.02,
    "502": 0.015,
    "503": 0.015,
    "reset": 0.015,
    "close": 0.015,
    "garbage": 0.01,
    "empty": 0.01,
    "nochoices": 0.01,
    "slow": 0.01,
    "trickle": 0.01,
    "400": 0.015,
    "null": 0.015,
    "huge": 0.0025,
    "bomb": 0.0025,
}
TIMEOUT_S = 1.5  # the client's deadline per request; "slow" answers take 3 s, "trickle" bodies minutes


def start_server(latency: float, seed: int) -> tuple[subprocess.Popen, str]:
    cmd = [
        sys.executable,
        str(ROOT / "tests" / "fake_openai_server.py"),
        "--latency",
        str(latency),
        "--slow",
        "3",
        "--trickle",
        "0.2",
        "--huge-mb",
        "50",
        "--retry-after",
        "0.2",
        "--seed",
        str(seed),
    ]
    for kind, rate in FAULTS.items():
        cmd += ["--fault", f"{kind}={rate}"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    return proc, proc.stdout.readline().strip()


def sample(pid: int) -> tuple[float, int] | None:
    """(RSS in MB, open sockets) of a process, from /proc; None once it has gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        rss = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")) / 1024
        sockets = 0
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):  # closed while we looked
                sockets += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        return rss, sockets
    except (OSError, StopIteration):
        return None


def segment(url: str, out: Path, iterations: int, concurrency: int, kill_after: float | None) -> dict:
    """One process life of the client: run (or resume) until done, or SIGKILL it after ``kill_after`` s."""
    env = {**os.environ, "OPENAI_API_KEY": "sk-soak", "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "eqbench_nb", "run", "--base-url", url, "--model", "fake-model"]
    cmd += ["--iterations", str(iterations), "--concurrency", str(concurrency), "--timeout", str(TIMEOUT_S)]
    cmd += ["--out", str(out), "--no-progress", "--run-id", "soak"]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rss, sockets = [], []
    while proc.poll() is None:
        if kill_after is not None and time.perf_counter() - started >= kill_after:
            proc.send_signal(signal.SIGKILL)
            break
        point = sample(proc.pid)
        if point:
            rss.append(point[0])
            sockets.append(point[1])
        time.sleep(0.2)
    quarters = [len(rss) * k // 4 - 1 for k in (1, 2, 3, 4)] if len(rss) >= 4 else []
    stdout, stderr = proc.communicate()
    files = list(out.glob("*.jsonl"))
    on_disk = max(0, files[0].read_bytes().count(b"\n") - 1) if files else 0
    return {
        "wall_s": time.perf_counter() - started,
        "killed": proc.returncode == -signal.SIGKILL,
        "returncode": proc.returncode,
        "records": on_disk,
        "peak_rss_mb": max(rss, default=0.0),
        "sockets_peak": max(sockets, default=0),
        "rss_quarters": [rss[i] for i in quarters],
        "sockets_quarters": [sockets[i] for i in quarters],
        "stderr": stderr.strip().splitlines()[-1:] if proc.returncode not in (0, -signal.SIGKILL) else [],
        "stdout": stdout,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="fault soak: faults and SIGKILLs lose, double and leak nothing")
    parser.add_argument("--iterations", type=int, default=47, help="171 questions x N iterations")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--latency", type=float, default=0.02, help="server latency per answer, seconds")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    server, url = start_server(args.latency, args.seed)
    segments = []
    try:
        print(
            f"fault soak: fake server at {url} ({100 * sum(FAULTS.values()):.0f} % faults), "
            f"{171 * args.iterations:,} questions at concurrency {args.concurrency}, {args.kills} SIGKILLs, "
            f"client on {os.cpu_count()} cores",
            flush=True,
        )
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            for k in range(args.kills + 1):
                kill_after = rng.uniform(4.0, 12.0) if k < args.kills else None
                seg = segment(url, out, args.iterations, args.concurrency, kill_after)
                segments.append(seg)
                how = ("SIGKILL after" if seg["killed"] else "finished in") + f" {seg['wall_s']:5.1f} s"
                print(
                    f"segment {k + 1}: {how}  exit {seg['returncode']:>3}  records on disk {seg['records']:>5,}  "
                    f"peak RSS {seg['peak_rss_mb']:5.1f} MB  peak sockets {seg['sockets_peak']:>3}  "
                    f"{' '.join(seg['stderr'])}",
                    flush=True,
                )
            last = segments[-1]
            print(
                "last segment at 1/4, 1/2, 3/4 and the end of its life: RSS "
                + " / ".join(f"{x:.0f}" for x in last["rss_quarters"])
                + " MB, open sockets "
                + " / ".join(str(x) for x in last["sockets_quarters"]),
                flush=True,
            )
            path = next(out.glob("*.jsonl"))
            kept = report(path, 171 * args.iterations, segments)
    finally:
        server.send_signal(signal.SIGINT)
        served_line = server.communicate(timeout=30)[0].strip().splitlines()
    served = json.loads(served_line[-1]) if served_line else {}
    total = sum(served.values())
    faults = total - served.get("ok", 0)
    print(
        f"server: {total:,} requests, {faults:,} faults ({100 * faults / max(total, 1):.1f} %): "
        + ", ".join(f"{k} {v}" for k, v in sorted(served.items(), key=lambda kv: -kv[1])),
        flush=True,
    )
    print(
        f"answers sent by the server {served.get('ok', 0):,}, kept in the run file {kept:,}: "
        f"{served.get('ok', 0) - kept:,} were in the hands of a killed process and asked again",
        flush=True,
    )


def report(path: Path, expected: int, segments: list[dict]) -> int:
    """Print what the run file holds; return how many answers (attempts with text) it keeps."""
    sys.path.insert(0, str(ROOT))
    from eqbench_nb.eqbench.runs import read_run

    keys = []
    for line in path.read_bytes().splitlines()[1:]:
        if line.strip():
            obj = json.loads(line)
            keys.append((obj["iteration"], obj["question_id"]))
    run = read_run(path)
    doubled = len(keys) - len(set(keys))
    print(
        f"run file: {len(keys):,} records, {len(set(keys)):,} distinct (iteration, question) of {expected:,} "
        f"expected, {doubled} doubled; readers left out: {'; '.join(run.warnings) or 'nothing'}",
        flush=True,
    )
    failed = sum(1 for r in run.records if r.answer_attempt is None)
    print(f"questions with no stored answer (every attempt failed or unparseable): {failed}", flush=True)
    last = segments[-1]["stdout"].splitlines()
    for line in last:
        if line.startswith(("records", "requests", "           failed", "wall time")):
            print(f"last segment: {line.strip()}", flush=True)
    return sum(1 for r in run.records for a in r.attempts if a.get("text") is not None)


if __name__ == "__main__":
    main()
