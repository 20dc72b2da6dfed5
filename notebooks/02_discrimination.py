# %% [markdown]
# # 02 — How widely EQ-Bench separates models
#
# **The paper's claim** (arXiv 2312.06281, EQ-Bench v1): scores spread widely between the weakest and the
# strongest model, so the benchmark *discriminates* between models. The two ends it names are read from
# `data/paper_claims.csv` below.
#
# **Data used**
# - `data/paper_claims.csv` and `data/paper_scores.csv`: the paper's claim, and the 38 models of the v1-era
#   eqbench.com leaderboard (the paper's models) with their v1 scores as published.
# - `data/leaderboard_v2.csv`: the final eqbench.com EQ-Bench **v2** leaderboard (172 models and a random
#   baseline row).
# - The **86 published v2 runs** (EQ-bench/EQ-Bench `results/eq-bench/*.json` @ d28c60c), rescored here from
#   their parsed answers with the official convention (unparseable questions left out of the mean).
#
# A wide range alone does not show that the benchmark separates models: two scores can differ only by the
# luck of which 171 questions were asked. So for each run we resample the **questions** (percentile
# bootstrap, 2,000 resamples, 95 %) to get the interval of its score, and for each pair of runs we resample the
# same questions for both (a *paired* bootstrap) to ask whether their difference is beyond that noise.

# %%

import matplotlib
import numpy as np
import pandas as pd

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from IPython.display import Image, display

from eqbench_nb import load_questions, plots
from eqbench_nb.analysis import metric, published, stats
from eqbench_nb.report import figures_dir, record_headline, save_figure, show_markdown

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
pd.DataFrame({"set": [f"paper v1 ({len(v1)})", f"v2 leaderboard ({len(v2_board)})",
                      f"v2 published runs, rescored ({len(official)})"],
              "min": [v1.min(), v2_board.min(), official.min()],
              "median": [v1.median(), v2_board.median(), official.median()],
              "max": [v1.max(), v2_board.max(), official.max()]}).round(2)

# %% [markdown]
# The paper's two ends, as `data/paper_claims.csv` states them, beside the same models in `data/paper_scores.csv`:

# %%
claims = published.paper_claims()
disc = claims[claims.topic == "discrimination"].dropna(subset=["value"])
ends = {}
for _, row in disc.iterrows():
    model = row.claim.split("(")[-1].rstrip(")")
    ends["highest" if "highest" in row.claim else "lowest"] = (model, float(row.value), float(v1[model]))
(lo_model, lo_claim, lo_table), (hi_model, hi_claim, hi_table) = ends["lowest"], ends["highest"]
same = np.isclose(lo_claim, lo_table) and np.isclose(hi_claim, hi_table)
is_v1_extreme = v1.idxmin() == lo_model and v1.idxmax() == hi_model
show_markdown(
    f"The paper's v1 range runs from **{lo_claim:.2f}** ({lo_model}) to **{hi_claim:.2f}** ({hi_model}). "
    + ("`paper_scores.csv` gives the same two values" if same else "`paper_scores.csv` gives other values "
       f"({lo_table:.2f}, {hi_table:.2f})")
    + (", and they are its lowest and highest of the " if is_v1_extreme else ", but they are not its extremes among the ")
    + f"{len(v1)} models. These are values **as published** (the upstream repository publishes no v1 answers to rescore), "
    "not numbers recomputed here."
)

# %% [markdown]
# ## Score distributions, each version with its own baselines
#
# v1 and v2 scores are on different scales (v2 has more questions and full-scale scoring; the upstream README
# says v2 scores are "generally slightly higher"), so each version gets its own panel and axis. Each panel marks
# two baselines computed from that version's own questions and scoring:
# - **uniform random answers** (every emotion rated uniformly from the integers 0–10): for v2 the exact
#   expectation (`metric.expected_random_score`, enumerating the 11 possible ratings); for v1 the mean of
#   simulated answers (`metric.expected_random_v1_score`: v1 normalises an answer to sum to 10, so it has no
#   simple closed form; all-zero draws are unparseable under v1 and left out, as the official convention does);
# - **answering 3 for every emotion** (`metric.constant_answer_scores`; under v1 any constant above 0 gives the
#   same normalised answer).
#
# The upstream README describes the scale as "0 = random, 100 = exact"; the computed baselines say where random
# answering actually lands on these question sets.

# %%
q_v1, q_v2 = load_questions("v1"), load_questions("v2")
base_v2 = {"uniform random answers": metric.expected_random_score(q_v2),
           "answering 3 everywhere": float(metric.constant_answer_scores(q_v2, [3]).score.iloc[0])}
base_v1 = {"uniform random answers": metric.expected_random_v1_score(q_v1, n_answers=1000, seed=0),
           "answering 3 everywhere": float(metric.constant_answer_scores(q_v1, [3], scale="v1").score.iloc[0])}
board_random = published.v2_leaderboard_scores(include_baseline=True).get("random-baseline", np.nan)
pd.DataFrame({"v1 (60 questions)": base_v1, "v2 (171 questions)": base_v2}).round(2)

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [1, 1.25]})
plots.plot_score_panel(ax1, {"paper-era v1 leaderboard": v1}, base_v1, xlabel="EQ-Bench v1 score (v1 questions, v1 scoring)")
ax1.set_title("EQ-Bench v1 (the paper)")
plots.plot_score_panel(ax2, {"v2 leaderboard": v2_board, "v2 published runs, rescored": official}, base_v2,
                       xlabel="EQ-Bench v2 score (v2 questions, v2 scoring)")
ax2.set_title("EQ-Bench v2")
fig.tight_layout()
show(fig, "02_score_distribution")

# %%
below_random = (official < base_v2["uniform random answers"]).sum()
below_three = (official < base_v2["answering 3 everywhere"]).sum()
show_markdown(
    f"On v2, uniform random answers score **{base_v2['uniform random answers']:+.2f}** in expectation and answering 3 "
    f"everywhere scores **{base_v2['answering 3 everywhere']:.2f}**; on v1 (its own 60 questions and normalised scoring) "
    f"the same two strategies score **{base_v1['uniform random answers']:+.2f}** and "
    f"**{base_v1['answering 3 everywhere']:.2f}**. "
    + (f"The eqbench.com board lists a random-baseline row at {board_random:.2f}: the value the upstream README says "
       "random answering gives, not what it gives on these questions. " if np.isfinite(board_random) else "")
    + f"Of the {len(official)} published v2 runs, {below_random} score below random answering and {below_three} below "
    f"answering 3 everywhere. Paper-era v1 models below random answering: {(v1 < base_v1['uniform random answers']).sum()}"
    f" of {len(v1)} ({', '.join(v1[v1 < base_v1['uniform random answers']].index) or 'none'}); below answering 3 "
    f"everywhere: {(v1 < base_v1['answering 3 everywhere']).sum()}."
)

# %% [markdown]
# ## Each run's score with its 95 % interval over questions
#
# Each bar is the percentile bootstrap interval of a run's official score when the 171 questions are resampled
# (2,000 resamples, seed 0). Models ranked best at the top.

# %%
iv = stats.run_score_intervals(matrix.to_numpy(), labels=matrix.index, reps=2000, seed=0)
iv["parsed"] = iv["n_questions"]                        # questions that count (parseable in the pass used)
iv.sort_values("score", ascending=False).round(2).head(10)

# %%
fig, ax = plt.subplots(figsize=(7.5, 0.13 * len(iv) + 1))
plots.plot_ranked_intervals(ax, iv, fontsize=6)
ax.set_title(f"{len(iv)} published EQ-Bench v2 runs, 95 % bootstrap interval over questions", fontsize=9)
fig.tight_layout()
show(fig, "02_ranked_intervals")

# %% [markdown]
# ### What makes one run's interval wider than another's?
#
# Two candidates: the run's score (weaker runs err more, and more unevenly, from question to question) and its
# number of parseable answers (fewer answers, wider interval). Below, the Pearson correlation of each run's
# half-width with each, over the runs, with a 95 % percentile bootstrap interval that resamples the runs
# (2,000 resamples), and the widest intervals with their parse counts.

# %%
hw_score = stats.correlation_summary(iv.half_width, iv.score, reps=2000, seed=0)
hw_parsed = stats.correlation_summary(iv.half_width, iv.parsed, reps=2000, seed=0)
pd.DataFrame({"half-width vs score": hw_score, "half-width vs parseable answers": hw_parsed}).T.round(3)

# %%
n_q = matrix.shape[1]
median_hw = float(iv.half_width.median())
widest = iv.sort_values("half_width", ascending=False).head(5)
fewest = iv.sort_values("parsed").head(3)
def describe(rows):
    return ", ".join(f"{plots.short_name(r.label, 30)} (±{r.half_width:.2f}, {r.parsed}/{n_q} parsed, "
                     f"score {r.score:.1f})" for r in rows.itertuples())
def excludes_zero(s):
    return s["pearson_low"] > 0 or s["pearson_high"] < 0
score_tracks = excludes_zero(hw_score)
parse_tracks = excludes_zero(hw_parsed)
verdict = ("the half-width tracks the score" + (", not the number of parseable answers" if not parse_tracks
                                                 else ", and also the number of parseable answers")
           if score_tracks else
           ("the half-width tracks the number of parseable answers" if parse_tracks
            else "neither the score nor the parse count explains the half-width clearly"))
fewest_below = (fewest.half_width < median_hw).sum()
show_markdown(
    f"The median 95 % half-width is **±{median_hw:.2f}** points (range {iv.half_width.min():.2f} to "
    f"{iv.half_width.max():.2f} over the {len(iv)} runs). The widest intervals: {describe(widest)}. "
    f"Across runs, the half-width correlates with the score at r = {hw_score['pearson']:.2f} "
    f"[{hw_score['pearson_low']:.2f}, {hw_score['pearson_high']:.2f}] and with the number of parseable answers at "
    f"r = {hw_parsed['pearson']:.2f} [{hw_parsed['pearson_low']:.2f}, {hw_parsed['pearson_high']:.2f}]: {verdict}. "
    f"The runs with the fewest parseable answers, {describe(fewest)}, have {fewest_below} of {len(fewest)} "
    "half-widths below the median."
)

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
for ax, col, label, s in [(ax1, "score", "official v2 score", hw_score),
                          (ax2, "parsed", f"parseable answers (of {n_q})", hw_parsed)]:
    ax.scatter(iv[col], iv.half_width, s=16, alpha=0.7, color=plots.OKABE_ITO[0], edgecolor="none")
    ax.set_xlabel(label)
    ax.text(0.03, 0.03, f"Pearson r = {s['pearson']:.2f} [{s['pearson_low']:.2f}, {s['pearson_high']:.2f}]\n"
            f"(95 % bootstrap over runs), n = {s['n']} runs", transform=ax.transAxes, va="bottom", fontsize=8)
    ax.grid(alpha=0.3)
ax2.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
plots.label_points(ax1, widest.score, widest.half_width, [plots.short_name(m, 24) for m in widest.label])
plots.label_points(ax2, fewest.parsed, fewest.half_width, [plots.short_name(m, 24) for m in fewest.label])
ax1.set_ylabel("95 % half-width of the run's score (points)")
ax1.set_ylim(top=iv.half_width.max() + 0.6)
fig.suptitle(f"Each run's interval width against its score and its parse count: {verdict}", fontsize=10)
fig.tight_layout()
show(fig, "02_halfwidth")

# %% [markdown]
# ## How many pairs of models are separated beyond noise?
#
# For each pair of runs we take the paired bootstrap interval of the difference in score (the same resampled
# questions for both runs). A pair is *separated* when the 95 % interval excludes 0. Each pair is a separate
# 95 % test with no correction for multiple comparisons, so even among truly equal models one pair in twenty
# would look separated.

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
by_gap = pd.DataFrame({"score gap": bins, "separated": sep_u}).groupby("score gap", observed=True)["separated"] \
    .agg(pairs="size", share_separated="mean")
by_gap.round(3)

# %%
fig, ax = plt.subplots(figsize=(10, 10))
plots.plot_separation_matrix(ax, sep, labels=iv["label"].to_numpy()[order], fontsize=5.5)
ax.set_title(f"Pairs separated at 95 % (dark), models ranked by score; {share:.0%} of pairs", fontsize=9)
fig.tight_layout()
show(fig, "02_pair_separation")

# %%
close = by_gap.iloc[0]
show_markdown(
    f"**{share:.0%}** of the {len(sep_u):,} pairs of runs ({sep_u.sum():,}) are separated beyond question-sampling "
    f"noise. Pairs less than {by_gap.index[0].right:g} points apart are separated in {close.share_separated:.1%} of "
    f"{int(close.pairs)} cases, pairs {by_gap.index[1].left:g}–{by_gap.index[1].right:g} apart in "
    f"{by_gap.share_separated.iloc[1]:.1%}, pairs more than {by_gap.index[3].left:g} apart in "
    f"{by_gap.iloc[3:].pairs.mul(by_gap.iloc[3:].share_separated).sum() / by_gap.iloc[3:].pairs.sum():.1%}; "
    f"only {adjacent.sum()} of the {len(adjacent)} neighbours in the ranking are separated."
)

# %% [markdown]
# ## Headline numbers

# %%
NB = "02_discrimination"
BOOT_Q = "percentile bootstrap over questions, 2,000 resamples"
lo_i, hi_i = iv["score"].idxmin(), iv["score"].idxmax()
src_runs = "86 results JSON (EQ-bench/EQ-Bench @ d28c60c) rescored here, official convention"
record_headline(NB, f"v2, lowest of the published runs ({iv.label[lo_i]})", src_runs, round(float(iv.score[lo_i]), 2),
                (iv.low[lo_i], iv.high[lo_i]), n=int(iv.parsed[lo_i]), key="v2_runs_lowest", method=BOOT_Q,
                n_unit="questions (parseable in that run)")
record_headline(NB, f"v2, highest of the published runs ({iv.label[hi_i]})", src_runs, round(float(iv.score[hi_i]), 2),
                (iv.low[hi_i], iv.high[hi_i]), n=int(iv.parsed[hi_i]), key="v2_runs_highest", method=BOOT_Q,
                n_unit="questions (parseable in that run)")
record_headline(NB, "v2 leaderboard: lowest – highest score", "data/leaderboard_v2.csv (eqbench.com final v2 board), "
                "as published", f"{v2_board.min():.2f} – {v2_board.max():.2f}", n=len(v2_board), key="v2_board_range",
                n_unit="models")
record_headline(NB, "median over runs of a run's 95 % half-width (questions resampled, 2,000 resamples)", src_runs,
                round(median_hw, 2), n=len(iv), key="halfwidth_median", n_unit="runs")
record_headline(NB, "a run's 95 % half-width: narrowest – widest over the runs", src_runs,
                f"{iv.half_width.min():.2f} – {iv.half_width.max():.2f}", n=len(iv), key="halfwidth_range",
                n_unit="runs")
for key, s, what in [("halfwidth_vs_score_r", hw_score, "score"), ("halfwidth_vs_parsed_r", hw_parsed,
                                                                    "number of parseable answers")]:
    record_headline(NB, f"Pearson r of a run's half-width with its {what}", src_runs, round(float(s["pearson"]), 3),
                    (s["pearson_low"], s["pearson_high"]), n=int(s["n"]), key=key,
                    method="percentile bootstrap over runs, 2,000 resamples", n_unit="runs")
record_headline(NB, "share of pairs of runs separated beyond noise (paired bootstrap over questions, 95 %, "
                "uncorrected)", src_runs, round(float(share), 3), n=len(sep_u), key="pairs_separated_share",
                n_unit="pairs of runs")
for key, (model, claim, _) in [("paper_v1_lowest", ends["lowest"]), ("paper_v1_highest", ends["highest"])]:
    record_headline(NB, f"paper: v1 {key.rsplit('_', 1)[1]} score ({model})",
                    "arXiv 2312.06281 via data/paper_claims.csv; as published (not recomputed)", claim, n=len(v1),
                    key=key, n_unit="models on the v1-era leaderboard")
record_headline(NB, "v2: expected score of uniform random answers (exact; upstream README: 0 = random)",
                "computed here (metric.expected_random_score on the 171 released questions, c = 0.7477)",
                round(base_v2["uniform random answers"], 3), n=len(q_v2), key="v2_random_baseline",
                n_unit="questions")
record_headline(NB, "v2: score of answering 3 for every emotion", "computed here (metric.constant_answer_scores)",
                round(base_v2["answering 3 everywhere"], 2), n=len(q_v2), key="v2_constant_3", n_unit="questions")
record_headline(NB, "v1: expected score of uniform random answers (60 v1 questions, 1,000 simulated answers each)",
                "computed here (metric.expected_random_v1_score, seed 0)", round(base_v1["uniform random answers"], 2),
                n=len(q_v1), key="v1_random_baseline", n_unit="questions")
pd.read_json(figures_dir() / "headlines" / f"{NB}.json")

# %% [markdown]
# ## What this shows

# %%
tier = by_gap.share_separated
show_markdown(
    f"- The paper's v1 range ({lo_claim:.2f} to {hi_claim:.2f}) is taken **as published** in `paper_claims.csv` / "
    "`paper_scores.csv`; the upstream repository publishes no v1 answers, so it is not recomputed here. v2 is a different "
    "benchmark version and is not on the same scale.\n"
    f"- On v2, the {len(iv)} published runs span {iv.score.min():.2f} ({plots.short_name(iv.label[lo_i])}) to "
    f"{iv.score.max():.2f} ({plots.short_name(iv.label[hi_i])}), rescored here from their answers; the leaderboard "
    f"spans {v2_board.min():.2f} to {v2_board.max():.2f} over {len(v2_board)} models (as published). "
    f"{below_random} runs score below random answering ({base_v2['uniform random answers']:+.2f}) and "
    f"{below_three} below answering 3 everywhere ({base_v2['answering 3 everywhere']:.2f}).\n"
    f"- One run's score is uncertain by a median ±{median_hw:.2f} points from the choice of questions alone, "
    f"before any run-to-run variation that these single-iteration files cannot show; {verdict}.\n"
    f"- {share:.0%} of all pairs of runs are separated, but only {adjacent.sum()} of {len(adjacent)} neighbours in "
    f"the ranking: pairs under {by_gap.index[0].right:g} points apart are separated in {tier.iloc[0]:.1%} of cases. "
    + ("EQ-Bench v2 separates tiers of models; adjacent places in the ranking are mostly within noise."
       if share > 0.5 and adjacent.mean() < 0.5 else
       "EQ-Bench v2 separates most neighbours in the ranking as well." if adjacent.mean() >= 0.5 else
       "Most pairs of runs are within noise of each other.")
)
