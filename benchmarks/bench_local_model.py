"""How fast the bundled model runs EQ-Bench under each llama.cpp server setting, on this machine.

Each configuration serves SmolLM2-135M-Instruct (xllamacpp) with its settings and runs the first
QUESTIONS v2 questions through the real runner (official protocol, seed 0, retries included, the
same requests a full run makes), writing to a temporary folder. Configurations are run in
interleaved ROUNDS (A B C ... A B C ...) so that a change in the machine's load hits all of them
alike; each figure is printed with the 1-minute load average when it was taken. The summary gives
each configuration's median seconds per question, its worst round, and the projected time of a
full v2 run (171 questions).

Run: python benchmarks/bench_local_model.py [QUESTIONS] [ROUNDS] [CONFIG ...]
(default 8 questions, 2 rounds, every configuration below; name configurations to run only those.)

``--requests`` instead times single requests (one EQ-Bench prompt each, 60 tokens, as the official
protocol's first attempt) and prints llama.cpp's own prompt and generation speeds beside the wall
time: quicker, and it shows where the time goes.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass

from eqbench_nb import Endpoint, RunSettings, run_benchmark
from eqbench_nb.runner.local_model import MODEL_NAME, LocalServer, ServerSettings

FULL_V2 = 171


@dataclass(frozen=True)
class Config:
    name: str
    settings: ServerSettings
    slots: int = 1  # n_parallel; the runner's concurrency is set to the same


CONFIGS = [
    Config("llama.cpp-defaults (2 threads, poll 50, 1 slot)", ServerSettings(n_threads=2, poll=50)),
    Config("poll0 (2 threads)", ServerSettings(n_threads=2, poll=0)),
    Config("1thread (poll 0)", ServerSettings(n_threads=1, poll=0)),
    Config("1thread-poll50", ServerSettings(n_threads=1, poll=50)),
    Config("default (auto threads, poll 0: what the runner uses)", ServerSettings()),
    Config("slots2 (2 threads, poll 0)", ServerSettings(n_threads=2, poll=0), slots=2),
    Config("slots4 (2 threads, poll 0)", ServerSettings(n_threads=2, poll=0), slots=4),
    Config("slots4-1thread", ServerSettings(n_threads=1, poll=0), slots=4),
    Config("slots4-ub256", ServerSettings(n_threads=2, poll=0, n_ubatch=256), slots=4),
    Config("slots4-fa", ServerSettings(n_threads=2, poll=0, flash_attn=1), slots=4),
]


def measure(config: Config, questions: int) -> tuple[float, int]:
    """Seconds per question and requests sent, for one run of ``questions`` questions."""
    with tempfile.TemporaryDirectory() as out, LocalServer(n_parallel=config.slots, settings=config.settings) as url:
        start = time.perf_counter()
        endpoint = Endpoint(base_url=url, model=MODEL_NAME, concurrency=config.slots)
        result = run_benchmark(endpoint, RunSettings(out_dir=out, seed=0, progress=False), limit=questions)
        seconds = time.perf_counter() - start
    return seconds / questions, result.stats.requests


def time_requests(config: Config, questions: int) -> list[tuple[float, float, float]]:
    """(wall s, prompt tokens/s, generated tokens/s) for one request per question, one at a time."""
    from eqbench_nb import build_messages, load_questions

    out = []
    with LocalServer(n_parallel=config.slots, settings=config.settings) as url:
        for q in load_questions("v2")[:questions]:
            body = {
                "model": MODEL_NAME,
                "messages": build_messages(q),
                "max_tokens": 60,
                "temperature": 0.01,
                "seed": 0,
            }
            request = urllib.request.Request(
                url + "/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
            )
            start = time.perf_counter()
            with urllib.request.urlopen(request, timeout=600) as response:
                timings = json.load(response).get("timings", {})
            out.append(
                (
                    time.perf_counter() - start,
                    timings.get("prompt_per_second", 0.0),
                    timings.get("predicted_per_second", 0.0),
                )
            )
    return out


def main_requests(questions: int, rounds: int, names: list[str] | None) -> None:
    configs = [c for c in CONFIGS if c.slots == 1 and (not names or c.name.split()[0] in names)]
    walls: dict[str, list[float]] = {c.name: [] for c in configs}
    print(f"{os.cpu_count()} CPUs; {questions} single requests per measurement, {rounds} interleaved rounds")
    for round_ in range(1, rounds + 1):
        for c in configs:
            load = os.getloadavg()[0]
            results = time_requests(c, questions)
            walls[c.name] += [w for w, _, _ in results]
            wall = statistics.median(w for w, _, _ in results)
            prompt = statistics.median(p for _, p, _ in results)
            gen = statistics.median(g for _, _, g in results)
            print(
                f"round {round_}  {c.name:40} {wall:5.2f} s/request  prompt {prompt:5.0f} tok/s  "
                f"generation {gen:4.0f} tok/s  load {load:.2f}",
                flush=True,
            )
    print("\nconfiguration                             median s/request  worst")
    for c in configs:
        print(f"{c.name:40} {statistics.median(walls[c.name]):10.2f}  {max(walls[c.name]):10.2f}")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main(questions: int = 8, rounds: int = 2, names: list[str] | None = None) -> None:
    configs = [c for c in CONFIGS if not names or c.name.split()[0] in names]
    per_question: dict[str, list[float]] = {c.name: [] for c in configs}
    print(f"{os.cpu_count()} CPUs; {questions} v2 questions per measurement, {rounds} interleaved rounds")
    for round_ in range(1, rounds + 1):
        for c in configs:
            load = os.getloadavg()[0]
            s, requests = measure(c, questions)
            per_question[c.name].append(s)
            print(
                f"round {round_}  {c.name:40} {s:5.2f} s/question  ({requests} requests)  load {load:.2f}", flush=True
            )
    print("\nconfiguration                             median s/q  worst   full v2 (median)")
    for c in configs:
        xs = per_question[c.name]
        med = statistics.median(xs)
        print(f"{c.name:40} {med:8.2f}  {max(xs):6.2f}   {med * FULL_V2 / 60:5.1f} min")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--requests"]
    run = main_requests if "--requests" in sys.argv else main
    run(int(args[0]) if args else 8, int(args[1]) if len(args) > 1 else 2, args[2:] or None)
