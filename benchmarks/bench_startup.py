"""Start-up times, and a small run beside lm-eval on the same workload (issue 44).

    python benchmarks/bench_startup.py [--repeats 7] [--workload-repeats 3] [--skip-lm-eval] [--cache DIR]
                                       [--notebook notebooks/01_quickstart.py] [--checkout DIR]

Every figure is the median over fresh processes (the package of ``--checkout``, by default this one, first on the
path; one untimed start first), wall time and the process's CPU (user + system, from the kernel's accounting of the
finished child). Python's bytecode is cached, as an installed package's is (pip compiles it at install), under
``--cache``: an environment that sets ``PYTHONDONTWRITEBYTECODE`` compiles the package's modules again at every
start, which one more ``--help`` figure shows.

- the bare interpreter (``python -c pass``: what every command pays before it imports anything of ours);
- ``eqbench-nb --help`` and ``eqbench-nb run --help`` (target: at most 0.35 s each, quiet, two cores);
- the import of the package, of the command line, of the parser built, and of the heavy libraries the commands
  import where they use them (pandas, scipy.stats, matplotlib; the openai SDK with the aiohttp transport a run
  makes), each in its own interpreter;
- a notebook's import cells (``--notebook``: its code cells up to the first that imports ``eqbench_nb``, IPython's
  magics left out), and the heavy libraries they leave imported;
- the workload of issue 44: EQ-Bench v2's 171 questions under ``--protocol lm-eval`` (greedy, one request each),
  concurrency 8, against the loopback server of tests/fake_openai_server.py answering after 0.1 s. The floor is
  ceil(171 / 8) = 22 rounds of 0.1 s = 2.2 s; target: at most 3.0 s for ``eqbench-nb run`` (its progress bar on),
  process start to exit;
- the same workload through lm-eval (``lm_eval --model local-chat-completions``, ``num_concurrent=8``), pinned
  (:data:`LM_EVAL`) in a virtual environment of its own under ``--cache`` (created on the first use: pip fetches
  it and its dependencies, about 800 MB), its task's data from a local file this script writes from the same
  question file (the ``eq_bench`` task's scoring, its ``utils.py``, copied beside it): no download of the task's
  dataset. Both clients get the same answers, so both scores are printed and should agree.

The server runs in its own process, so its CPU is counted for neither client. Figures on a loaded machine are
long: print ``uptime`` beside them. This prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The checkout whose package is measured (``--checkout``; the server and the question file are this one's).
CHECKOUT = ROOT
#: The lm-eval the side by side runs (issue 44 measured 0.4.13).
LM_EVAL = "0.4.13"
N_QUESTIONS = 171
CONCURRENCY = 8
LATENCY_S = 0.1
HELP_TARGET_S = 0.35
RUN_TARGET_S = 3.0
MODEL = "fake-model"

#: What each import figure imports, in a fresh interpreter.
IMPORTS = {
    "eqbench_nb": "import eqbench_nb",
    "eqbench_nb.cli": "import eqbench_nb.cli",
    "the parser built": "from eqbench_nb.cli import build_parser; build_parser()",
    "pandas": "import pandas",
    "scipy.stats": "import scipy.stats",
    "matplotlib.pyplot": "import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot",
    # what a run's make_client does: the SDK (its __init__ imports every types module) and the aiohttp transport
    "openai + aiohttp client": "from openai import AsyncOpenAI, DefaultAioHttpClient; DefaultAioHttpClient()",
}


#: The heavy libraries a notebook's import cells are checked for.
HEAVY = ("numpy", "pandas", "scipy", "matplotlib", "seaborn", "openai", "ipywidgets")


def environment(**extra: str) -> dict[str, str]:
    """The measured checkout first on the path, and a key the loopback server does not check."""
    path = os.pathsep.join(p for p in (str(CHECKOUT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "OPENAI_API_KEY": "sk-bench", **extra}


def timed(command: Sequence[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of one process, from its start to its exit. Its CPU is the kernel's
    account of the children waited for in between (this one, and any process it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd or CHECKOUT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def median_of(repeats: int, command: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    timed(command, env)  # untimed: writes the bytecode cache, reads the files into the page cache
    runs = [timed(command, env)[:2] for _ in range(repeats)]
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def line(name: str, wall: float, cpu: float, note: str = "") -> None:
    print(f"  {name:<34} {wall:6.3f} s wall  {cpu:6.3f} s CPU  {note}".rstrip())


# ---------------------------------------------------------------- start-up


def startup(repeats: int) -> None:
    env = environment()
    python = [sys.executable]
    print(f"start-up (median of {repeats} fresh processes)")
    base_wall, base_cpu = median_of(repeats, [*python, "-c", "pass"], env)
    line("python -c pass", base_wall, base_cpu, "(the interpreter and site-packages' .pth files)")
    for args in (["--help"], ["run", "--help"]):
        wall, cpu = median_of(repeats, [*python, "-m", "eqbench_nb", *args], env)
        verdict = "within" if wall <= HELP_TARGET_S else "over"
        line(f"eqbench-nb {' '.join(args)}", wall, cpu, f"{verdict} the {HELP_TARGET_S} s target")
    no_cache = {k: v for k, v in env.items() if k != "PYTHONPYCACHEPREFIX"} | {"PYTHONDONTWRITEBYTECODE": "1"}
    wall, cpu = median_of(repeats, [*python, "-m", "eqbench_nb", "--help"], no_cache)
    line("eqbench-nb --help, no bytecode cache", wall, cpu, "(PYTHONDONTWRITEBYTECODE=1: every module compiled)")
    print(f"imports (median of {repeats} fresh processes, each less the bare interpreter's)")
    for name, code in IMPORTS.items():
        wall, cpu = median_of(repeats, [*python, "-c", code], env)
        line(name, wall - base_wall, cpu - base_cpu)


def import_cells(notebook: Path) -> str:
    """The code of a notebook's (percent-format ``.py``) cells up to the first that imports ``eqbench_nb``."""
    cells, cell = [], []
    for text in notebook.read_text(encoding="utf-8").splitlines():
        if text.startswith("# %%"):
            cells.append("\n".join(cell))
            cell = [] if "[markdown]" not in text else ["# markdown"]
        elif not text.startswith(("%", "!")):  # IPython's magics and shell lines
            cell.append(text)
    cells.append("\n".join(cell))
    code = [c for c in cells if c.strip() and not c.startswith("# markdown")]
    first = next(i for i, c in enumerate(code) if "eqbench_nb" in c)
    return "\n".join(code[: first + 1])


def notebook_imports(notebook: Path, repeats: int) -> None:
    code = import_cells(notebook)
    probe = code + f"\nimport sys\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    env = environment(MPLBACKEND="Agg")
    wall, cpu = median_of(repeats, [sys.executable, "-c", code], env)
    heavy = timed([sys.executable, "-c", probe], env)[2].splitlines()[-1].split()  # after what the cells print
    print(f"{notebook.name}'s import cells (median of {repeats} fresh interpreters, no kernel)")
    line(f"{code.count(chr(10)) + 1} lines", wall, cpu, f"imports {', '.join(heavy) or 'no heavy library'}")


# ---------------------------------------------------------------- the workload


def start_server() -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "fake_openai_server.py"), "--latency", str(LATENCY_S)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


def our_run(url: str, out: Path) -> tuple[float, float, float]:
    """(wall, CPU, lm-eval score) of ``eqbench-nb run`` over the workload, in a fresh process."""
    command = [sys.executable, "-m", "eqbench_nb", "run", "--base-url", url, "--model", MODEL, "--protocol", "lm-eval"]
    command += ["--concurrency", str(CONCURRENCY), "--out", str(out)]  # its progress bar on, as lm-eval's
    wall, cpu, _ = timed(command, environment())
    (path,) = out.glob("*.jsonl")
    sys.path.insert(0, str(ROOT))
    from eqbench_nb import read_run, score_run

    run = read_run(path)
    assert len(run.records) == N_QUESTIONS, len(run.records)
    (score,) = score_run(run, "lm-eval").iteration_scores  # unrounded, as lm-eval prints its mean
    return wall, cpu, score


def task_folder(folder: Path, venv: Path) -> Path:
    """The ``eq_bench`` task of lm-eval over a local copy of the questions: its own YAML, with the dataset read
    from a JSON Lines file this script writes (the fields of its Hugging Face dataset, the prompt as our lm-eval
    protocol sends it) and its scoring (``utils.py``) copied from the installed harness."""
    sys.path.insert(0, str(ROOT))
    from eqbench_nb.eqbench.prompts import build_prompt
    from eqbench_nb.eqbench.questions import load_questions

    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "eq_bench_v2.jsonl"
    with data.open("w", encoding="utf-8") as f:
        for q in load_questions("v2"):
            reference = {f"emotion{i}": e for i, e in enumerate(q.emotions, 1)}
            reference |= {f"emotion{i}_score": q.reference[e] for i, e in enumerate(q.emotions, 1)}
            row = {"prompt": build_prompt(q), "reference_answer_fullscale": repr(reference)}
            f.write(json.dumps(row) + "\n")
    (utils,) = venv.glob("lib/python*/site-packages/lm_eval/tasks/eq_bench/utils.py")
    shutil.copy(utils, folder / "utils.py")
    (folder / "eq_bench_local.yaml").write_text(
        f"""task: eq_bench_local
dataset_path: json
dataset_kwargs:
  data_files:
    validation: {data}
output_type: generate_until
validation_split: validation
doc_to_text: prompt
doc_to_target: reference_answer_fullscale
process_results: !function utils.calculate_score_fullscale
generation_kwargs:
  do_sample: false
  temperature: 0.0
  max_gen_toks: 80
metric_list:
  - metric: eqbench
    aggregation: mean
    higher_is_better: true
  - metric: percent_parseable
    aggregation: mean
    higher_is_better: true
""",
        encoding="utf-8",
    )
    return folder


def lm_eval_venv(cache: Path) -> Path:
    """The virtual environment holding lm-eval :data:`LM_EVAL`, created (through pip) when absent."""
    venv = cache / f"lm-eval-{LM_EVAL}"
    ready = venv / "installed"
    if not ready.exists():
        print(f"  creating {venv} (lm_eval[api]=={LM_EVAL} and its dependencies, about 800 MB) ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", f"lm_eval[api]=={LM_EVAL}"]
        subprocess.run(pip, check=True)
        ready.write_text(LM_EVAL + "\n")
    return venv


def lm_eval_run(url: str, venv: Path, tasks: Path, out: Path, hf_cache: Path) -> tuple[float, float, float]:
    """(wall, CPU, eqbench score) of lm-eval over the workload, in a fresh process, offline."""
    model_args = f"model={MODEL},base_url={url}/chat/completions,num_concurrent={CONCURRENCY}"
    model_args += ",max_retries=1,tokenized_requests=False"
    command = [str(venv / "bin" / "lm_eval"), "run", "--model", "local-chat-completions", "--model_args", model_args]
    command += ["--tasks", "eq_bench_local", "--include_path", str(tasks), "--apply_chat_template"]
    command += ["--output_path", str(out)]
    offline = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(hf_cache)}
    env = {k: v for k, v in environment(**offline).items() if k != "PYTHONPATH"}
    wall, cpu, _ = timed(command, env, cwd=out.parent)
    (results,) = out.rglob("results_*.json")
    scores = json.loads(results.read_text(encoding="utf-8"))["results"]["eq_bench_local"]
    return wall, cpu, scores["eqbench,none"]


def workload(repeats: int, cache: Path | None) -> None:
    floor = math.ceil(N_QUESTIONS / CONCURRENCY) * LATENCY_S
    print(
        f"workload: {N_QUESTIONS} EQ-Bench v2 requests, concurrency {CONCURRENCY}, a loopback server answering after "
        f"{LATENCY_S} s (floor {floor:.1f} s); median of {repeats}, process start to exit"
    )
    server, url = start_server()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            ours = [our_run(url, Path(tmp) / f"ours{i}") for i in range(repeats)]
            wall, cpu = statistics.median(r[0] for r in ours), statistics.median(r[1] for r in ours)
            verdict = "within" if wall <= RUN_TARGET_S else "over"
            line("eqbench-nb run", wall, cpu, f"{wall / floor:.2f}x the floor; {verdict} the {RUN_TARGET_S} s target")
            print(f"  {'':<34} walls {', '.join(f'{r[0]:.2f}' for r in ours)}; lm-eval score {ours[0][2]!r}")
            if cache is None:
                print("  lm-eval: skipped (--skip-lm-eval)")
                return
            venv = lm_eval_venv(cache)
            tasks = task_folder(Path(tmp) / "tasks", venv)
            runs = [lm_eval_run(url, venv, tasks, Path(tmp) / f"lm{i}", Path(tmp) / "hf") for i in range(repeats)]
            wall, cpu = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
            line(f"lm-eval {LM_EVAL}", wall, cpu, f"{wall / floor:.2f}x the floor")
            print(f"  {'':<34} walls {', '.join(f'{r[0]:.2f}' for r in runs)}; eqbench score {runs[0][2]!r}")
            same = all(math.isclose(r[2], ours[0][2], rel_tol=1e-9) for r in runs)
            print(f"  scores {'agree' if same else 'DIFFER'}: ours {ours[0][2]!r}, lm-eval {runs[0][2]!r}")
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="fresh processes per start-up figure")
    parser.add_argument("--workload-repeats", type=int, default=3, help="runs of the workload by each client")
    parser.add_argument("--skip-lm-eval", action="store_true", help="no lm-eval side by side")
    parser.add_argument("--skip-startup", action="store_true", help="the workload alone")
    parser.add_argument("--skip-workload", action="store_true", help="the start-up figures alone")
    parser.add_argument("--notebook", type=Path, help="a notebook (.py) whose import cells are timed as well")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the checkout whose package is measured")
    default_cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "eqbench-nb"
    parser.add_argument("--cache", type=Path, default=default_cache, help="lm-eval's environment, the bytecode")
    args = parser.parse_args()
    global CHECKOUT
    CHECKOUT = args.checkout.resolve()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(args.cache / "pycache")
    print(f"{CHECKOUT} ({checkout_commit()}); load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on "
          f"{os.cpu_count()} CPUs")  # fmt: skip
    if not args.skip_startup:
        startup(args.repeats)
    if args.notebook:
        notebook_imports(args.notebook.resolve(), args.repeats)
    if not args.skip_workload:
        workload(args.workload_repeats, None if args.skip_lm_eval else args.cache)


def checkout_commit() -> str:
    done = subprocess.run(
        ["git", "-C", str(CHECKOUT), "describe", "--always", "--dirty"], capture_output=True, text=True
    )
    return done.stdout.strip() or "not a git checkout"


if __name__ == "__main__":
    main()
