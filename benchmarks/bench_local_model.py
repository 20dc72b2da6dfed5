"""How fast the bundled model runs EQ-Bench under each llama.cpp server setting, on this machine, at a chosen load.

Each configuration serves SmolLM2-135M-Instruct (xllamacpp) with its settings and runs the first QUESTIONS v2
questions through the real runner (official protocol, retries included, the same requests a full run makes: a
failed parse is asked again with the same prompt), writing to a temporary folder. Configurations are run in
interleaved ROUNDS (A B C ... A B C ...) so that a change in the machine's load hits all of them alike; each
figure is printed with the 1-minute load average when it was taken and, for the runner's own server, how many
requests each thread count answered. The summary gives each configuration's median seconds per question, its
worst round, and the projected time of a full v2 run (171 questions).

Run: python benchmarks/bench_local_model.py [QUESTIONS] [ROUNDS] [CONFIG ...] [--load N] [--budget S]
(default 8 questions, 2 rounds, every configuration below; name configurations to run only those.)

``--requests`` instead times single requests (one new EQ-Bench prompt each, 60 tokens, as the official protocol's
first attempt) and prints llama.cpp's own prompt and generation speeds beside the wall time.

``--load N`` adds N processes that keep a core busy (a bounded burner: they stop when the script ends, and in any
case after ``--budget`` x configurations x rounds + 60 s), so the figures can be taken at a load the machine's other
users do not provide. ``--budget S`` stops a configuration's measurement after S seconds (default 150), reporting
the questions or requests it finished: at load 4 two threads can take minutes per request.

``--full`` times one full v2 run (171 questions) with the runner's own settings and prints it with the load.
"""

from __future__ import annotations

import json
import multiprocessing
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
    Config("router (1 or 2 threads by the load of the moment: what the runner uses)", ServerSettings()),
    Config("fixed1 (1 thread, poll 0: a seeded run's)", ServerSettings(n_threads=1, poll=0)),
    Config("fixed2 (2 threads, poll 0)", ServerSettings(n_threads=2, poll=0)),
    Config("llama.cpp-defaults (2 threads, poll 50, 1 slot)", ServerSettings(n_threads=2, poll=50)),
    Config("1thread-poll50", ServerSettings(n_threads=1, poll=50)),
    Config("slots2 (2 threads, poll 0)", ServerSettings(n_threads=2, poll=0), slots=2),
    Config("slots4 (2 threads, poll 0)", ServerSettings(n_threads=2, poll=0), slots=4),
    Config("slots4-ub256", ServerSettings(n_threads=2, poll=0, n_ubatch=256), slots=4),
    Config("slots4-fa", ServerSettings(n_threads=2, poll=0, flash_attn=1), slots=4),
    Config("ub128 (2 threads, poll 0, physical batch 128)", ServerSettings(n_threads=2, poll=0, n_ubatch=128)),
]


def _burn(deadline: float) -> None:
    while time.time() < deadline:
        pass


def start_burners(n: int, seconds: float) -> list[multiprocessing.Process]:
    """``n`` processes that each keep a core busy for at most ``seconds``."""
    deadline = time.time() + seconds
    procs = [multiprocessing.Process(target=_burn, args=(deadline,), daemon=True) for _ in range(n)]
    for p in procs:
        p.start()
    return procs


def _served(server: LocalServer) -> str:
    router = server.router
    if router is None:
        return ""
    served = ", ".join(f"{t} thread{'s' if t > 1 else ''}: {n}" for t, n in router.served.items())
    return f"  served by {served} (others' runnable tasks, smoothed, at the end: {router.watch.value:.1f})"


def measure(config: Config, questions: int, budget_s: float) -> tuple[float, int, int, str]:
    """Seconds per question, questions finished and requests sent, for a run of at most ``questions`` questions
    stopped at ``budget_s`` seconds (the run's per-request deadline), and which thread counts served it."""
    server = LocalServer(n_parallel=config.slots, settings=config.settings)
    url = server.start()
    try:
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            endpoint = Endpoint(base_url=url, model=MODEL_NAME, concurrency=config.slots, timeout_s=budget_s)
            done = requests = 0
            for q in range(1, questions + 1):  # one question per run, so that the budget can stop the measurement
                settings = RunSettings(out_dir=out, progress=False, run_id=f"bench-{q}")
                result = run_benchmark(endpoint, settings, questions=str(q))
                done, requests = done + len(result.run.records), requests + result.stats.requests
                if time.perf_counter() - start > budget_s:
                    break
            seconds = time.perf_counter() - start
        return seconds / max(done, 1), done, requests, _served(server)
    finally:
        server.stop()


def time_requests(config: Config, questions: int, budget_s: float) -> tuple[list[tuple[float, float, float]], str]:
    """(wall s, prompt tokens/s, generated tokens/s) for one request per question, one at a time, until
    ``budget_s`` seconds are spent; and which thread counts served them."""
    from eqbench_nb import build_messages, load_questions

    out = []
    server = LocalServer(n_parallel=config.slots, settings=config.settings)
    url = server.start()
    try:
        started = time.perf_counter()
        for q in load_questions("v2")[:questions]:
            body = {"model": MODEL_NAME, "messages": build_messages(q), "max_tokens": 60, "temperature": 0.01}
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
            if time.perf_counter() - started > budget_s:
                break
        return out, _served(server)
    finally:
        server.stop()


def main_requests(questions: int, rounds: int, names: list[str] | None, budget_s: float) -> None:
    configs = [c for c in CONFIGS if c.slots == 1 and (not names or c.name.split()[0] in names)]
    walls: dict[str, list[float]] = {c.name: [] for c in configs}
    print(f"{os.cpu_count()} CPUs; up to {questions} single requests per measurement ({budget_s:g} s budget), "
          f"{rounds} interleaved rounds")  # fmt: skip
    for round_ in range(1, rounds + 1):
        for c in configs:
            load = os.getloadavg()[0]
            results, served = time_requests(c, questions, budget_s)
            walls[c.name] += [w for w, _, _ in results]
            wall = statistics.median(w for w, _, _ in results)
            prompt = statistics.median(p for _, p, _ in results)
            gen = statistics.median(g for _, _, g in results)
            print(
                f"round {round_}  {c.name[:44]:44} {wall:6.2f} s/request (n={len(results)})  prompt {prompt:5.0f} "
                f"tok/s  generation {gen:4.0f} tok/s  load {load:.2f} -> {os.getloadavg()[0]:.2f}{served}",
                flush=True,
            )
    print("\nconfiguration                                 median s/request  worst")
    for c in configs:
        print(f"{c.name[:44]:44} {statistics.median(walls[c.name]):10.2f}  {max(walls[c.name]):10.2f}")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main(questions: int, rounds: int, names: list[str] | None, budget_s: float) -> None:
    configs = [c for c in CONFIGS if not names or c.name.split()[0] in names]
    per_question: dict[str, list[float]] = {c.name: [] for c in configs}
    print(f"{os.cpu_count()} CPUs; up to {questions} v2 questions per measurement ({budget_s:g} s budget), "
          f"{rounds} interleaved rounds")  # fmt: skip
    for round_ in range(1, rounds + 1):
        for c in configs:
            load = os.getloadavg()[0]
            s, done, requests, served = measure(c, questions, budget_s)
            per_question[c.name].append(s)
            print(
                f"round {round_}  {c.name[:44]:44} {s:6.2f} s/question ({done} questions, {requests} requests)  "
                f"load {load:.2f} -> {os.getloadavg()[0]:.2f}{served}",
                flush=True,
            )
    print("\nconfiguration                                 median s/q  worst   full v2 (median)")
    for c in configs:
        xs = per_question[c.name]
        med = statistics.median(xs)
        print(f"{c.name[:44]:44} {med:8.2f}  {max(xs):6.2f}   {med * FULL_V2 / 60:5.1f} min")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main_full() -> None:
    """One full v2 run with the runner's own settings (the router), timed."""
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        result = run_benchmark(Endpoint(), RunSettings(out_dir=out, progress=False))
        seconds = time.perf_counter() - start
    print(
        f"full v2 run: {seconds:.0f} s ({seconds / 60:.1f} min, {seconds / FULL_V2:.2f} s/question, "
        f"{result.stats.requests} requests); load average before {' '.join(f'{x:.2f}' for x in load)}, after "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


def _option(args: list[str], name: str, default: float) -> tuple[list[str], float]:
    if name in args:
        at = args.index(name)
        return args[:at] + args[at + 2 :], float(args[at + 1])
    return args, default


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a not in ("--requests", "--full")]
    args, load = _option(args, "--load", 0)
    args, budget = _option(args, "--budget", 150)
    questions = int(args[0]) if args else 8
    rounds = int(args[1]) if len(args) > 1 else 2
    names = args[2:] or None
    burners = start_burners(int(load), budget * rounds * max(1, len(names or CONFIGS)) + 60) if load else []
    if burners:
        time.sleep(5)  # the load average follows the burners
        print(f"--load {int(load)}: {len(burners)} burner processes running")
    try:
        if "--full" in sys.argv:
            main_full()
        elif "--requests" in sys.argv:
            main_requests(questions, rounds, names, budget)
        else:
            main(questions, rounds, names, budget)
    finally:
        for p in burners:
            p.terminate()
