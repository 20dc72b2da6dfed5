# %% [markdown]
# # 02 — How widely EQ-Bench separates models
#
# **The paper's claim** (arXiv 2312.06281, EQ-Bench v1): scores spread widely, from **2.25** (text-ada-001)
# to **62.52** (gpt-4-0613), so the benchmark *discriminates* between models.
#
# **Data used**
# - `data/paper_scores.csv`: the 38 models of the v1-era eqbench.com leaderboard (the paper's models).
# - `data/leaderboard_v2.csv`: the final eqbench.com EQ-Bench **v2** leaderboard (172 models + a random baseline).
# - The **86 published v2 runs** (EQ-bench/EQ-Bench `results/eq-bench/*.json` @ d28c60c), rescored here from
#   their parsed answers with the official convention (unparseable questions left out of the mean).
#
# A wide range alone does not show that the benchmark separates models: two scores can differ only by the
# luck of which 171 questions were asked. So for each run we resample the **questions** (percentile
# bootstrap, 2000 resamples, 95 %) to get the interval of its score, and for each pair of runs we resample the
# same questions for both (a *paired* bootstrap) to ask whether their difference is beyond that noise.

# %%

import matplotlib
import numpy as np
import pandas as pd

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from IPython.display import Image, display

from eqbench_nb import plots
from eqbench_nb.analysis import published, stats
from eqbench_nb.report import figures_dir, record_headline, save_figure

pd.set_option("display.width", 140, "display.max_colwidth", 60)

def show(fig, name):
    """Save the figure under figures/ with a stable name and show the saved PNG."""
    path = save_figure(fig, name)
    plt.close(fig)
    display(Image(filename=str(path)))


# %% [markdown]
# ## The data

# %%
from eqbench_nb.analysis.table import published_runs
from eqbench_nb.eqbench.conventions import score_run

runs = published_runs()
matrix = published.question_score_matrix(runs)          # 86 models x 171 questions, NaN = left out
official = pd.Series({r.model: score_run(r).score for r in runs}, name="official")
lb = published.leaderboard_v2().set_index("model")
published_score = lb["results_benchmark_score"].dropna()
published_score.index = lb.loc[published_score.index, "results_json_model_path"]

v1 = published.v1_paper_scores()                        # paper-era v1 leaderboard (38 models)
v2_board = published.v2_leaderboard_scores()            # final v2 board (172 models, baseline left out)
fidelity = (official - published_score.reindex(official.index)).abs()
print(f"{len(runs)} runs x {matrix.shape[1]} questions; {int(matrix.notna().to_numpy().sum())} answers count")
print(f"rescored vs published benchmark_score: max |difference| = {fidelity.max():.3f} (n = {fidelity.notna().sum()})")
pd.DataFrame({"set": ["paper v1 (38)", "v2 leaderboard (172)", "v2 published runs, rescored (86)"],
              "min": [v1.min(), v2_board.min(), official.min()],
              "median": [v1.median(), v2_board.median(), official.median()],
              "max": [v1.max(), v2_board.max(), official.max()]}).round(2)

# %% [markdown]
# ## Score distributions
#
# v1 and v2 scores are on different scales (v2 has more questions and full-scale scoring; the README says v2
# scores are "generally slightly higher"), so they are drawn side by side, not compared point for point.

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4), gridspec_kw={"width_ratios": [1.2, 1]})
plots.plot_score_histograms(ax1, {"EQ-Bench v2 leaderboard": v2_board, "v2 published runs (rescored)": official,
                                  "EQ-Bench v1, paper era": v1}, xlabel="score (0 = random answering, 100 = reference)")
ax1.set_title("Score distributions")
plots.plot_score_strips(ax2, {"v1 paper era": v1.values, "v2 leaderboard": v2_board.values, "v2 runs": official.values},
                        labels={"v1 paper era": v1.index, "v2 leaderboard": v2_board.index, "v2 runs": official.index},
                        xlabel="score")
ax2.set_title("Spread: lowest and highest model")
fig.tight_layout()
show(fig, "02_score_distribution")

# %% [markdown]
# ## Each run's score with its 95 % interval over questions
#
# Each bar is the percentile bootstrap interval of a run's official score when the 171 questions are resampled
# (2000 resamples, seed 0). Models ranked best at the top.

# %%
iv = stats.run_score_intervals(matrix.to_numpy(), labels=matrix.index, reps=2000, seed=0)
print(f"median 95 % half-width: {iv.half_width.median():.2f} points "
      f"(range {iv.half_width.min():.2f} – {iv.half_width.max():.2f})")
iv.sort_values("score", ascending=False).round(2).head(10)

# %%
fig, ax = plt.subplots(figsize=(7.5, 0.13 * len(iv) + 1))
plots.plot_ranked_intervals(ax, iv, fontsize=6)
ax.set_title("86 published EQ-Bench v2 runs, 95 % bootstrap interval over questions", fontsize=9)
fig.tight_layout()
show(fig, "02_ranked_intervals")

# %% [markdown]
# ## How many pairs of models are separated beyond noise?
#
# For each of the 86 × 85 / 2 = 3,655 pairs we take the paired bootstrap interval of the difference in score
# (the same resampled questions for both runs). A pair is *separated* when the 95 % interval excludes 0.
# Each pair is a separate 95 % test with no correction for multiple comparisons, so even among truly equal
# models about 5 % of pairs would look separated.

# %%
order = np.argsort(-iv["score"].to_numpy())
m_sorted = matrix.to_numpy()[order]
sep = stats.pairwise_separation(m_sorted, reps=2000, seed=0)
k = len(sep)
share = sep[np.triu_indices(k, 1)].mean()
adjacent = np.array([sep[i, i + 1] for i in range(k - 1)])
gap = np.abs(np.subtract.outer(iv["score"].to_numpy()[order], iv["score"].to_numpy()[order]))[np.triu_indices(k, 1)]
sep_u = sep[np.triu_indices(k, 1)]
print(f"pairs separated: {sep_u.sum()} of {len(sep_u)} = {share:.1%}")
print(f"neighbours in the ranking separated: {adjacent.sum()} of {len(adjacent)}")
bins = pd.cut(gap, [0, 2, 4, 6, 8, 10, 100])
pd.DataFrame({"score gap": bins, "separated": sep_u}).groupby("score gap", observed=True)["separated"] \
    .agg(pairs="size", share_separated="mean").round(3)

# %%
fig, ax = plt.subplots(figsize=(10, 10))
plots.plot_separation_matrix(ax, sep, labels=iv["label"].to_numpy()[order], fontsize=5.5)
ax.set_title(f"Pairs separated at 95 % (dark), models ranked by score; {share:.0%} of pairs", fontsize=9)
fig.tight_layout()
show(fig, "02_pair_separation")

# %% [markdown]
# ## Headline numbers

# %%
NB = "02_discrimination"
lo_i, hi_i = iv["score"].idxmin(), iv["score"].idxmax()
record_headline(NB, f"v2 spread of the 86 published runs: lowest ({iv.label[lo_i]})",
                "SPEC §8; 86 results JSON rescored, official convention", round(float(iv.score[lo_i]), 2),
                (iv.low[lo_i], iv.high[lo_i]), n=86)
record_headline(NB, f"v2 spread of the 86 published runs: highest ({iv.label[hi_i]})",
                "SPEC §8; 86 results JSON rescored, official convention", round(float(iv.score[hi_i]), 2),
                (iv.low[hi_i], iv.high[hi_i]), n=86)
record_headline(NB, "v2 leaderboard spread (172 models): lowest – highest",
                "SPEC §8: 0 (random baseline) to the mid 80s; leaderboard_v2.csv",
                f"{v2_board.min():.2f} – {v2_board.max():.2f}", n=len(v2_board))
record_headline(NB, "median 95 % CI half-width of a run's score (questions resampled)",
                "computed here (percentile bootstrap, 2000 resamples)", round(float(iv.half_width.median()), 2),
                (iv.half_width.min(), iv.half_width.max()), n=86)
record_headline(NB, "share of model pairs separated beyond noise (paired bootstrap, 95 %)",
                "computed here (3,655 pairs of the 86 runs)", round(float(share), 3), n=len(sep_u))
record_headline(NB, "paper v1 spread: text-ada-001 (lowest)", "paper: 2.25 (paper_scores.csv, v1-era leaderboard)",
                float(v1["text-ada-001"]), n=len(v1))
record_headline(NB, "paper v1 spread: gpt-4-0613 (highest)", "paper: 62.52 (paper_scores.csv, v1-era leaderboard)",
                float(v1["gpt-4-0613"]), n=len(v1))
pd.read_json(figures_dir() / "headlines" / f"{NB}.json")

# %% [markdown]
# ## What this shows
#
# - The paper's v1 range (2.25 to 62.52 over 38 models) is reproduced exactly from the v1-era leaderboard. The
#   v2 numbers come from a different benchmark version (171 questions, full-scale scoring) and are not on the
#   same scale.
# - On v2, the 86 published runs span 14.5 (stablelm-2-zephyr-1_6b) to 86.1 (gpt-4-1106-preview), close to the
#   leaderboard's 15.0 to 86.4 over 172 models. But the score of one run is uncertain by about ±4 points
#   (median 95 % half-width 3.97; 2.2 for GPT-4, up to 7.5 for runs with many unparseable answers) from the
#   choice of questions alone, before any run-to-run variation (temperature, quantisation, prompt format) that
#   these single-iteration files cannot show.
# - The paired comparison is more sensitive than comparing the separate intervals, because a hard question is
#   hard for every model. 74 % of all pairs are separated. Pairs less than 2 points apart never are, pairs 2–4
#   points apart rarely (11 %), pairs more than 6 points apart almost always; only 2 of the 85 neighbours in the
#   ranking are separated. So EQ-Bench v2 separates *tiers* of models well, but places within the crowded
#   65–80 band of 7B–70B fine-tunes are not reliable.
# - The paper's spread is reproduced; what the paper does not give, and this adds, is the noise around each
#   score.
