# %% [markdown]
# # Quickstart: run EQ-Bench on the bundled model, score it three ways
#
# EQ-Bench (Paech 2023, arXiv 2312.06281) asks a model to rate, 0–10, how strongly a character in a short
# dialogue feels each of four emotions, and compares the ratings with a reference answer. This notebook reads a
# run of a few questions made with the **bundled SmolLM2-135M-Instruct** (served offline by llama.cpp through its
# OpenAI-compatible HTTP server — the same code path as any remote endpoint), then scores the run under the
# three conventions found in the literature. Set `FRESH = True` below (or run `eqbench-nb reproduce 01 --fresh`)
# to make the run live here instead.
#
# The run exercises the pipeline, parse failures included; it says nothing about emotional intelligence. Where
# the bundled model's score stands against trivial baselines (uniform random ratings, all-zero ratings) is
# computed at the end.

# %%
import matplotlib

matplotlib.use("Agg")  # figures are also shown inline below; Agg keeps fresh kernels headless
# %matplotlib inline
import matplotlib.pyplot as plt
import pandas as pd

pd.set_option("display.width", 120)

# %%
from eqbench_nb import RunSettings, load_questions, plots, run_benchmark, score_question, score_run
from eqbench_nb.eqbench.study.table import run_table
from eqbench_nb.report import record_headline, save_figure, show_markdown

questions = load_questions("v2")
q = questions[0]
print(f"{len(questions)} questions; question {q.id} asks about: {', '.join(q.emotions)}")
print("reference (0-10):", q.reference)

# %% [markdown]
# ## One question, scored by hand
# A perfect answer scores 10; each emotion's error `d` costs `0.7477 · f(d)` with the sigmoid `f`.

# %%
perfect = dict(q.reference)
off_by_two = {e: min(10, v + 2) for e, v in q.reference.items()}
print("perfect:", score_question(perfect, q), " off by two:", round(score_question(off_by_two, q), 3),
      " missing an emotion:", score_question(dict(list(perfect.items())[:3]), q))

# %% [markdown]
# ## The bundled model's run
# `run_benchmark` with no `Endpoint` starts the bundled model on 127.0.0.1, runs, and stops it. Results are
# appended to a JSON Lines file as each question finishes; running the same call again resumes.
# `run_benchmark(Endpoint(base_url=..., model=...))` runs a real model on OpenAI, vLLM, llama.cpp or Ollama.
#
# By default this notebook reads the run committed under `data/quickstart/`, made with the same settings by
# `eqbench-nb run --limit 8 --seed 0 --out data/quickstart`, so that `eqbench-nb reproduce` takes seconds here
# on any machine and its output does not change. `FRESH = True` (or the environment variable
# `EQBENCH_NB_FRESH=1`, which `reproduce --fresh` sets) makes the run live, in about a minute on two cores.

# %%
import os
import shutil

from eqbench_nb import read_run
from eqbench_nb.paths import tables_dir

FRESH = os.environ.get("EQBENCH_NB_FRESH", "") not in ("", "0")
if FRESH:
    # A fresh run each time: remove the last one (running the same call again would resume it). seed=0 is sent
    # with every request, as in the committed run (the official pipeline sends none); progress=False keeps the
    # bar out of the saved notebook.
    shutil.rmtree("runs/quickstart", ignore_errors=True)
    run = run_benchmark(settings=RunSettings(out_dir="runs/quickstart", seed=0, progress=False), limit=8).run
else:
    run = read_run(next((tables_dir() / "quickstart").glob("*.jsonl")))
print(f"{'fresh run' if FRESH else 'committed run'}: {run.model}, set {run.version}, protocol "
      f"{run.header['protocol']}, seed {run.header.get('seed')}, {run.n_questions} questions, "
      f"{len(run.records)} records")

# %% [markdown]
# ## The same run under three conventions
# - **official**: unparseable questions left out of the mean (the run *fails* below 83.33 % parseable);
# - **lm-eval**: unparseable questions count 0, and `percent_parseable` is reported;
# - **evalscope**: each question clamped to 0–1, unparseable count 0.

# %%
from eqbench_nb import CONVENTIONS

run_scores = {c: score_run(run, c) for c in CONVENTIONS}
scores = pd.DataFrame([s.as_row() | {"percent_parseable": round(s.percent_parseable, 1)}
                       for s in run_scores.values()])
scores

# %% [markdown]
# ## The score beside trivial baselines
# Two baselines, computed exactly on the same questions (notebook 06 explains them): uniform random integer
# ratings 0–10, and 0 for every emotion. Beside them, the bundled model's full runs committed under `data/runs/`
# (all v2 questions, official settings; notebook 03 studies them).

# %%
from eqbench_nb.eqbench.questions import questions_by_id
from eqbench_nb.eqbench.study import metric
from eqbench_nb.eqbench.study.repeatability import complete_run, first_temperature
from eqbench_nb.eqbench.study.table import bundled_model_runs

by_id = questions_by_id("v2")
asked = [by_id[qid] for qid in dict.fromkeys(r.question_id for r in run.records)]
official = run_scores["official"]
baselines = pd.DataFrame({"questions": [f"these {len(asked)}", f"all {len(questions)}"],
                          "uniform random (expected)": [metric.expected_random_score(asked),
                                                       metric.expected_random_score(questions)],
                          "all-zero answers": [metric.constant_answer_scores(asked, [0]).score.iloc[0],
                                               metric.constant_answer_scores(questions, [0]).score.iloc[0]]})
full_runs = [complete_run(r) for r in bundled_model_runs() if (first_temperature(r) or 1.0) <= 0.01]
full = max(full_runs, key=lambda r: len(r.iterations)) if full_runs else None
full_score = score_run(full).score if full is not None and full.iterations else float("nan")
baselines.round(2)

# %%
floor = baselines.iloc[1, 1:].min()
smoke = (f"On these {len(asked)} questions the bundled model scores **{official.score:.1f}** (official, "
         f"{official.n_parseable:.0f} of {official.n_questions} parsed)" if official.n_parseable
         else f"None of the {len(asked)} answers parsed, so the official score is undefined")
if full is not None:
    full_text = (f"over all {len(questions)} questions and {len(full.iterations)} iterations (`{full.run_id}`) the "
                 f"model scores **{full_score:.1f}** against {baselines.iloc[1, 1]:+.1f} for uniform random and "
                 f"{baselines.iloc[1, 2]:+.1f} for all-zero answers.")
    if full_score < floor:
        full_text += " It is not near random on this task: it is far worse than answering at random."
else:
    full_text = "notebook 03 studies full runs."
show_markdown(smoke + f"; on the same questions uniform random ratings would score {baselines.iloc[0, 1]:+.1f} in "
              f"expectation and all-zero ratings {baselines.iloc[0, 2]:+.1f}. A few questions say little: " + full_text)

# %% [markdown]
# ## The run table every analysis starts from
# One row per model × iteration × question × emotion, for the parseable answers.

# %%
table = run_table(run)
table.head(8)

# %%
fig, ax = plt.subplots(figsize=(5, 4))
plots.plot_answers_vs_reference(ax, table, run.n_questions)
save_figure(fig, "01_quickstart_answers_vs_reference");
run_source = "this project's runner, seed 0" + ("" if FRESH else "; the run committed in data/quickstart/")
record_headline("01_quickstart",
                f"bundled SmolLM2-135M, official score on the smoke run ({official.n_questions} questions)",
                run_source, official.score, n=official.n_questions, n_unit="questions",
                key="quickstart_official_score")
record_headline("01_quickstart", "bundled SmolLM2-135M, parseable answers in the smoke run (%)",
                run_source, round(official.percent_parseable, 1), n=official.n_questions,
                n_unit="questions", key="quickstart_parseable_percent");

# %% [markdown]
# ## See what the model said
# Each item of the run — the prompt, every attempt's text, what the parser read and why an attempt was asked
# again, the answer beside the reference with the error, the item's share of each convention's score, tokens and
# latency — is one row of `samples(run)`, the table the run viewer draws from. `view(run)` shows the viewer here
# in JupyterLab (click a row for its detail; filter the unparsed or retried items, search the answers), and
# `eqbench-nb view RUN --out FILE.html` writes the same viewer as one page that opens in any browser.

# %%
from eqbench_nb import samples, view

items = samples(run)
items[["item_id", "n_attempts", "kept_attempt", "decision", "reason", "official", "largest_error"]]

# %%
view(run)
