# %% [markdown]
# # Repeatability: how much does a score move from run to run?
#
# **The paper's claim.** EQ-Bench "produces highly repeatable results"; a secondary summary of the paper gives a
# mean coefficient of variation (CV) of **2.93 %** across repeated v1 runs. The per-run scores behind that number
# are not published, so it cannot be recomputed.
#
# **The data here.** The published v2 runs are single iterations, so repeated runs must be produced. This project
# ran the bundled SmolLM2-135M-Instruct through its own runner on all 171 v2 questions, three iterations at the
# official settings (temperature 0.01, +0.15 per failed parse, 3 attempts) and three at a higher temperature;
# the run files are committed under `data/runs/`. Five models also have two published v2 scores from separate
# runs (leaderboard vs. results file), which we show beside ours with the caveat that their settings may differ.

# %%
import matplotlib

matplotlib.use("Agg")  # figures are also shown inline below; Agg keeps fresh kernels headless
# %matplotlib inline
import matplotlib.pyplot as plt
import pandas as pd

pd.set_option("display.width", 120)

# %%
from eqbench_nb.analysis.published import paper_repeatability
from eqbench_nb.analysis.repeatability import (
    first_temperature,
    icc_interval,
    identical_first_attempts,
    iteration_score_matrix,
    iteration_scores,
    published_pairs,
    single_run_interval,
    summarise_scores,
)
from eqbench_nb.analysis.table import bundled_model_runs, run_table
from eqbench_nb.report import record_headline, save_figure

runs = sorted(bundled_model_runs(), key=first_temperature)  # official settings first
per_iteration = iteration_scores(runs)
per_iteration

# %% [markdown]
# ## Per-run scores, SD and CV

# %%
summary = pd.DataFrame([{"run": r.run_id, "first temperature": first_temperature(r),
                         **summarise_scores(per_iteration[per_iteration.run_id == r.run_id].score)} for r in runs])
summary.round(3)

# %% [markdown]
# ## The same iterations under the three conventions
# evalscope's 0–1 score is multiplied by 100 to share the axis. The official and lm-eval conventions read numbers
# outside 0–10 as they come (the official parser has no range check), so one wild answer — the bundled model
# sometimes writes "Angry: 947" — can move an iteration by hundreds of points; evalscope rejects such answers and
# clamps each question to 0–1, so its run-to-run spread is the one to read for a model this weak.

# %%
by_convention = pd.concat([iteration_scores(runs, c) for c in ("official", "lm-eval", "evalscope")])
spread = pd.DataFrame([{"run": run_id, "convention": convention, **summarise_scores(g.score)}
                       for (run_id, convention), g in by_convention.groupby(["run_id", "convention"], sort=False)])
spread.round(2)

# %%
table = run_table(runs)
wild = table[table.answer > 10]
print(f"{len(wild)} of {len(table)} parsed ratings are above 10; the largest is {table.answer.max():g}")
wild.groupby("run_id").answer.describe()[["count", "max"]]

# %% [markdown]
# ## Where does the spread come from?
# The official protocol asks at temperature 0.01 first, then retries a failed parse at 0.16 and 0.31. At 0.01
# sampling is close to greedy but not identical to it: where a small model's top tokens are nearly tied, the
# sampler still picks differently. The share of questions whose *first* attempt came back word for word the same
# in every iteration says how much of the spread the endpoint's sampling explains before any retry.

# %%
first_same = pd.Series({r.run_id: identical_first_attempts(r) for r in runs},
                       name="questions with the same first-attempt text in every iteration")
(100 * first_same).round(1).rename("% of questions with the same first-attempt text in every iteration")

# %% [markdown]
# ## Is a *question's* score repeatable? Intraclass correlation
# ICC(2,1) of question scores across iterations (two-way random, absolute agreement; questions parseable in every
# iteration), with a bootstrap interval over questions.

# %%
iccs = {r.run_id: icc_interval(iteration_score_matrix(r).to_numpy(), reps=1000) for r in runs}
pd.DataFrame({k: {"ICC": v.estimate, "low": v.low, "high": v.high, "questions": v.n} for k, v in iccs.items()}).T.round(3)

# %% [markdown]
# ## The interval of a single run
# How far a single run's score could move if the questions had been drawn differently: the percentile bootstrap
# over questions. Compare its width with the run-to-run spread above.

# %%
single = {r.run_id: single_run_interval(r, 1) for r in runs}
pd.DataFrame({k: {"score": v.estimate, "low": v.low, "high": v.high, "half_width": v.half_width}
              for k, v in single.items()}).T.round(2)

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
ax = axes[0]
for i, r in enumerate(runs):
    s = per_iteration[per_iteration.run_id == r.run_id]
    ax.scatter([i] * len(s), s.score, s=40, zorder=3, label="iteration scores" if i == 0 else None)
    iv = single[r.run_id]
    ax.errorbar([i + 0.15], [iv.estimate], yerr=[[iv.estimate - iv.low], [iv.high - iv.estimate]], fmt="s",
                color="black", capsize=4, label="iteration 1, 95 % bootstrap over questions" if i == 0 else None)
ax.set_xticks(range(len(runs)), [r.run_id for r in runs], rotation=10)
ax.set(ylabel="official score", title="Bundled model: repeated full v2 runs")
ax.legend(fontsize=8)
ax = axes[1]
m = iteration_score_matrix(runs[0])
ax.scatter(m[1], m[2], alpha=0.5)
ax.plot([-20, 10], [-20, 10], color="grey", ls="--", lw=1)
ax.set(xlabel="question score, iteration 1", ylabel="iteration 2", title=f"{runs[0].run_id}: same questions, two runs")
save_figure(fig, "03_repeatability_runs");

# %% [markdown]
# ## Published models with two v2 scores
# Two published v2 scores from separate runs. Their settings (quantisation, template, engine) are not documented,
# so this is not a controlled repeatability experiment.

# %%
pairs = published_pairs(paper_repeatability().query("eqbench_version == 'v2'"))
pairs.round(2)

# %%
fig, ax = plt.subplots(figsize=(7, 3.2))
y = range(len(pairs))
ax.hlines(y, pairs.score_a, pairs.score_b, color="grey")
ax.scatter(pairs.score_a, y, label="score A", zorder=3)
ax.scatter(pairs.score_b, y, label="score B", zorder=3)
ax.set_yticks(list(y), pairs.model, fontsize=8)
ax.set(xlabel="published EQ-Bench v2 score", title="Two published v2 scores for the same model")
ax.legend(fontsize=8)
save_figure(fig, "03_repeatability_published_pairs");

# %%
# The official protocol starts at temperature 0.01; the other runs were made with --temperature 0.7.
official_runs = [r for r in runs if first_temperature(r) <= 0.01]
hot_runs = [r for r in runs if first_temperature(r) > 0.01]
cv_official = summary.set_index("run").cv_percent[official_runs[0].run_id] if official_runs else float("nan")
cv_hot = summary.set_index("run").cv_percent[hot_runs[0].run_id] if hot_runs else float("nan")
record_headline("03_repeatability", "mean CV of repeated runs (paper: 2.93 %, v1, secondary source)",
                "bundled SmolLM2-135M, 3 full v2 runs at official settings", round(cv_official, 3), n=3)
record_headline("03_repeatability", "SD of repeated run scores, points (official settings)",
                "bundled SmolLM2-135M, 3 full v2 runs at official settings",
                round(summary.set_index("run").sd[official_runs[0].run_id], 2) if official_runs else float("nan"), n=3)
record_headline("03_repeatability", "CV of repeated runs at a higher temperature",
                "bundled SmolLM2-135M, 3 full v2 runs", round(cv_hot, 3), n=3)
first = official_runs[0] if official_runs else runs[0]
record_headline("03_repeatability", "ICC(2,1) of question scores across iterations",
                f"bundled SmolLM2-135M ({first.run_id})", round(iccs[first.run_id].estimate, 3),
                iccs[first.run_id].as_tuple(), n=iccs[first.run_id].n)
record_headline("03_repeatability", "one run's score, 95 % bootstrap over questions",
                f"bundled SmolLM2-135M ({first.run_id}, iteration 1)", round(single[first.run_id].estimate, 2),
                single[first.run_id].as_tuple(), n=single[first.run_id].n)
record_headline("03_repeatability", "mean CV of the 5 published v2 score pairs", "eqbench.com board vs results files",
                round(pairs.cv_percent.mean(), 2), n=len(pairs))
record_headline("03_repeatability", "questions whose first attempt is identical in every iteration (%)",
                f"bundled SmolLM2-135M ({first.run_id})", round(100 * first_same[first.run_id], 1),
                n=first.n_questions);

# %% [markdown]
# ## What this says
# - **Run to run, at the official settings**, the bundled model's three full runs score −47.4 with an SD of
#   4.9 points, a CV of 10.2 %. The paper's 2.93 % (v1, secondary source, per-run scores unpublished) was for
#   models with positive scores; a CV divides by the mean, so for a model scoring near or below 0 the SD in
#   points is the figure to compare. The five published models with two v2 scores differ by 0.02 to 5.2 points,
#   a mean pair CV of 2.7 %, close to the paper's figure.
# - **Temperature 0.01 is not determinism.** Only two thirds of the questions got word for word the same first
#   attempt in all three iterations: where a small model's top tokens are nearly tied the sampler still picks
#   differently, and the retries at 0.16 and 0.31 add more.
# - **Question scores are repeatable at the official settings** (ICC 0.84, 95 % interval 0.69–0.93, over the 62
#   questions parseable in every iteration) and not at temperature 0.7 (ICC 0.03).
# - **One run's interval is wider than the run-to-run spread.** The bootstrap over questions puts ±14 points
#   around a single official-settings run, about three times the SD between runs: which questions are asked
#   matters more than decoding noise for a single score.
# - **At temperature 0.7 the official score is dominated by a few wild answers** (ratings up to 947, which the
#   official parser accepts): −80 to −451. evalscope's range check and clamp keep the same runs at 4.9–7.5 on a
#   0–100 scale. Compare scores only within one convention, and for a weak model read the evalscope row.
#
# Everything here is for a 135M model that is near random on the task. To measure a real model, run
# `run_benchmark(base_url=..., iterations=3)` (or `python -m eqbench_nb run --base-url ... --iterations 3`) and
# point this notebook's `read_runs` at the output folder.
