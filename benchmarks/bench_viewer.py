"""The run viewer's page: its size, and how long it takes to show in a browser (target for a 1,710-item run,
171 questions x 10 iterations: under 2 s to load, under 5 MB).

For each page it prints the time `eqbench-nb view` takes to write it, its size, and, over REPEATS loads in
headless chromium (Debian's, through its chromedriver): the time from navigation to the first frame painted
after the viewer drew every row (median and worst), then the time to apply a filter and to open an item.
Pages: a published run (171 items), the committed 10-iteration run of the bundled model (1,710), and that run
beside its 3-iteration sibling (1,710 pairs); an EQ-Bench 3 run of the full set in 3 iterations (135 items), made
first over the loopback fake (tests/fake_eqbench3.py) with answers as long as upstream's prompts ask (400, 300 and
300 words a role-play turn, 800 a debrief, 1,000 an analysis; a judge's reasoning of 250 words).

Large answers (issue 34, target: under 3 s): `eqbench-nb view` of a run of three answers of 5 MB each (the
committed run's header and first three records, each attempt's text grown to 5 MB of prose that ends with the
model's answer): the seconds it takes and the most memory it held (peak RSS). ``--code DIR`` times the checkout in
DIR instead (``--code /work/main`` for the code before a change).

Run: python benchmarks/bench_viewer.py [REPEATS]
     python benchmarks/bench_viewer.py --large [--code DIR]
     python benchmarks/bench_viewer.py --screenshot figures/viewer_published.png   (the README's picture)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT / "data" / "runs"
RESULTS = ROOT.parent / "shared" / "data" / "eqbench" / "results" / "eq-bench"
PAGES = {
    "published run (gpt-4-0613, 171 items)": [RESULTS / "gpt-4-0613_eqbench_v2_results.json"],
    "bundled model, 171 x 10 = 1,710 items": [RUNS / "SmolLM2-135M-Instruct__v2__official-x10-all.jsonl"],
    "two runs side by side (1,710 pairs)": [
        RUNS / "SmolLM2-135M-Instruct__v2__official-x10-all.jsonl",
        RUNS / "SmolLM2-135M-Instruct__v2__official-t0.7-x3-all.jsonl",
    ],
}
#: navigation start to the first frame after the rows are drawn (performance.now() counts from navigation)
PAINTED = (
    "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now())));"
)
TIMED = """const done = arguments[arguments.length - 1]; const t0 = performance.now(); %s;
requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t0)));"""


#: Six characters a word, one sentence of 75 characters repeated to a section's length.
PROSE = "She hears the worry under the words and answers it plainly, without hurry. "


def eqbench3_run(folder: Path, iterations: int = 3) -> Path:
    """A full-set EQ-Bench 3 run over the loopback fake, answers as long as upstream asks (module docstring)."""
    import json

    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from fake_eqbench3 import responder
    from fake_openai_server import FakeOpenAI

    from eqbench_nb.eqbench3.task import run_eqbench3
    from eqbench_nb.runner import RetryPolicy
    from eqbench_nb.runner.settings import Endpoint, RunSettings

    plain = responder()

    def long(prompt: str, temperature: float) -> str:
        text = plain(prompt, temperature)
        if text.startswith("{"):  # the judge: its reasoning at length
            return json.dumps({**json.loads(text), "chain_of_thought_reasoning": PROSE * 20})
        if "# My response" in text:  # 400, 300, 300 words
            text = text.replace("torn between the two.", PROSE * 32).replace("They feel unheard.", PROSE * 24)
            return text.replace("let us talk.", PROSE * 24)
        return text + " " + PROSE * (64 if text.startswith("Debrief") else 80)

    os.environ.setdefault("OPENAI_API_KEY", "sk-loopback")
    fast = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
    with FakeOpenAI(models=("fake-model", "judge-model"), responder=long) as url:
        subject = Endpoint(base_url=url, model="fake-model", retry=fast, timeout_s=30, concurrency=16)
        judge = Endpoint(base_url=url, model="judge-model", retry=fast, timeout_s=30, concurrency=16)
        settings = RunSettings(out_dir=folder, progress=False)
        return run_eqbench3(subject, judge, settings, iterations=iterations).path


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
    ):
        options.add_argument(arg)
    return webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))


def write(runs: list[Path], out: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "eqbench_nb", "view", *map(str, runs), "--out", str(out)],
        check=True,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    return time.perf_counter() - started


def large_answers_run(path: Path, n: int = 3, size: int = 5_000_000) -> Path:
    """The committed run's header and first ``n`` records, each with one attempt (the kept one, else the last) whose
    text is ``size`` characters of prose ending in the answer the record holds (module docstring)."""
    import json

    lines = (RUNS / "SmolLM2-135M-Instruct__v2__official-x10-all.jsonl").read_text().splitlines()
    out = [lines[0]]
    for line in lines[1 : n + 1]:
        record = json.loads(line)
        kept = record["answer_attempt"]
        record["attempts"] = [record["attempts"][kept if kept is not None else -1]]  # one answer an item
        record["answer_attempt"] = 0 if kept is not None else None
        for attempt in record["attempts"]:
            tail = "\n" + "\n".join(f"{name}: 5" for name in record["first_pass"] or ("Angry", "Sad", "Glad", "Calm"))
            attempt["text"] = (PROSE * (size // len(PROSE) + 1))[: size - len(tail)] + tail
        out.append(json.dumps(record))
    path.write_text("\n".join(out) + "\n")
    return path


def time_large(code: Path = ROOT) -> None:
    """`eqbench-nb view` of :func:`large_answers_run` in a fresh process of the checkout ``code``: time, peak RSS."""
    import resource

    with tempfile.TemporaryDirectory() as folder:
        run = large_answers_run(Path(folder) / "large.jsonl")
        page = Path(folder) / "large.html"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_before = before.ru_utime + before.ru_stime
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "eqbench_nb", "view", str(run), "--out", str(page)],
            check=True,
            capture_output=True,
            cwd=folder,
            env={**os.environ, "PYTHONPATH": str(code)},
        )
        seconds = time.perf_counter() - started
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu, peak = usage.ru_utime + usage.ru_stime - cpu_before, usage.ru_maxrss / 1024
        print(
            f"view of 3 answers of 5 MB ({run.stat().st_size / 1e6:.0f} MB run file; code {code}): {seconds:.1f} s "
            f"wall, {cpu:.1f} s CPU (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores), peak "
            f"{peak:.0f} MB, page {page.stat().st_size / 1e6:.1f} MB (target: under 3 s)"
        )


def measure(driver, page: Path, repeats: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"load": [], "filter": [], "open": []}
    for _ in range(repeats):
        driver.get("about:blank")
        driver.get(page.as_uri())
        times["load"].append(driver.execute_async_script(PAINTED) / 1000)
        rows = driver.execute_script("return document.querySelectorAll('[data-item-id]').length")
        toggle = (
            "const c = document.querySelector('[data-filter=unparsed]'); c.checked = true; "
            "c.dispatchEvent(new Event('change'))"
        )
        times["filter"].append(driver.execute_async_script(TIMED % toggle) / 1000)
        click = "document.querySelector('[data-item-id]').click()"
        times["open"].append(driver.execute_async_script(TIMED % click) / 1000)
    times["rows"] = [rows]
    return times


def screenshot(out: Path) -> None:
    """The README's picture: a published run, sorted by largest error, its settings folded, one item open."""
    driver = browser()
    try:
        with tempfile.TemporaryDirectory() as folder:
            page = Path(folder) / "page.html"
            write([RESULTS / "gpt-4-0613_eqbench_v2_results.json"], page)
            driver.set_window_size(1400, 1500)
            driver.get(page.as_uri())
            driver.execute_script(
                "document.querySelector('.eqv-settings').open = false;"
                "[...document.querySelectorAll('.eqv-items th')]"
                ".find(th => th.textContent === 'largest error').click();"
                "document.querySelector('tr[data-item-id]').click(); window.scrollTo(0, 0);"
            )
            driver.save_screenshot(str(out))
    finally:
        driver.quit()
    print(f"screenshot of the viewer on a published run saved to {out}")


def main(repeats: int = 5) -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {repeats} loads per page")
    driver = browser()
    try:
        with tempfile.TemporaryDirectory() as folder:
            pages = dict(PAGES)
            pages["EQ-Bench 3, 45 scenarios x 3 = 135 items"] = [eqbench3_run(Path(folder) / "eqbench3")]
            for name, runs in pages.items():
                page = Path(folder) / "page.html"
                seconds = write(runs, page)
                t = measure(driver, page, repeats)
                load = t["load"]
                print(
                    f"{name}: written in {seconds:.1f} s, {page.stat().st_size / 1e6:.2f} MB, {t['rows'][0]:,} rows; "
                    f"shown in {statistics.median(load):.2f} s median ({max(load):.2f} s worst); "
                    f"a filter {statistics.median(t['filter']) * 1000:.0f} ms, an item opened "
                    f"{statistics.median(t['open']) * 1000:.0f} ms"
                )
    finally:
        driver.quit()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--screenshot"]:
        screenshot(Path(sys.argv[2]))
    elif sys.argv[1:2] == ["--large"]:
        time_large(Path(sys.argv[3]) if sys.argv[2:3] == ["--code"] else ROOT)
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
