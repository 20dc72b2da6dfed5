# %% [markdown]
# # 02 — How widely EQ-Bench separates models
#
# **The paper's claim** (arXiv 2312.06281, EQ-Bench v1): scores spread widely between the weakest and the
# strongest model, so the benchmark *discriminates* between models. The paper's own bar values are not available;
# the two ends below are read from `data/paper_claims.csv`, which takes them from the repository's score chart, the
# site's v1-era leaderboard and Papers-with-Code: a proxy for the paper's range (notebook 07, Figure 1).
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
from IPython.display import display

from eqbench_nb import load_questions, plots
from eqbench_nb.analysis import power, protocol, ranks, stats, verdicts
from eqbench_nb.eqbench.conventions import CONVENTIONS
from eqbench_nb.eqbench.scoring import score_v2
from eqbench_nb.eqbench.study import metric, published, ranking
from eqbench_nb.eqbench.study.table import published_runs
from eqbench_nb.report import MonteCarlo, figures_dir, record_headline, show_figure, show_markdown, stable_round

pd.set_option("display.width", 140, "display.max_colwidth", 60)


# %% [markdown]
# ## The data

# %%
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
print(f"rescored vs the v2 leaderboard's results_benchmark_score (2 decimals): max |difference| = "
      f"{fidelity.max():.4f} ({fidelity.idxmax()}; n = {fidelity.notna().sum()}); notebook 05 sets the rescoring "
      "beside each results file's own unrounded benchmark_score")
pd.DataFrame({"set": [f"paper v1 ({len(v1)})", f"v2 leaderboard ({len(v2_board)})",
                      f"v2 published runs, rescored ({len(official)})"],
              "min": [v1.min(), v2_board.min(), official.min()],
              "median": [v1.median(), v2_board.median(), official.median()],
              "max": [v1.max(), v2_board.max(), official.max()]}).round(2)

# %% [markdown]
# The two ends of the paper-era v1 range, as `data/paper_claims.csv` states them and sources them, beside the same
# models in `data/paper_scores.csv`:

# %%
claims = published.paper_claims()
disc = claims[claims.topic == "discrimination"].dropna(subset=["value"])
ends, end_sources = {}, {}
for _, row in disc.iterrows():
    model = row.claim.split("(")[-1].rstrip(")")
    side = "highest" if "highest" in row.claim else "lowest"
    ends[side] = (model, float(row.value), float(v1[model]))
    end_sources[side] = published.claim_source(row)
(lo_model, lo_claim, lo_table), (hi_model, hi_claim, hi_table) = ends["lowest"], ends["highest"]
same = np.isclose(lo_claim, lo_table) and np.isclose(hi_claim, hi_table)
is_v1_extreme = v1.idxmin() == lo_model and v1.idxmax() == hi_model
PROXY = ("a proxy for the paper's range: the paper's own v1 values are not available, and paper_claims.csv takes "
         "these from the repository chart, the site's v1-era leaderboard and Papers-with-Code (notebook 07, Figure 1)")
show_markdown(
    f"The paper-era v1 chart and leaderboard run from **{lo_claim:.2f}** ({lo_model}) to **{hi_claim:.2f}** "
    f"({hi_model}), {PROXY}. "
    + ("`paper_scores.csv` gives the same two values" if same else "`paper_scores.csv` gives other values "
       f"({lo_table:.2f}, {hi_table:.2f})")
    + (", and they are its lowest and highest of the " if is_v1_extreme else ", but they are not its extremes among the ")
    + f"{len(v1)} models. These are values **as published** (the upstream repository publishes no v1 answers to rescore), "
    "not numbers recomputed here. Source: " + end_sources["highest"] + "."
)

# %% [markdown]
# ## Score distributions, each version with its own baselines
#
# v1 and v2 scores are on different scales (v2 has more questions and full-scale scoring; the upstream README
# says v2 scores are "generally slightly higher"), so each version gets its own panel and axis. Each panel marks
# two baselines computed from that version's own questions and scoring:
# - **uniform random answers** (every emotion rated uniformly from the integers 0–10): for v2 the exact
#   expectation (`metric.expected_random_score`, enumerating the 11 possible ratings); for v1
#   `metric.expected_random_v1_score` (v1 normalises an answer to sum to 10; all-zero answers are unparseable under
#   v1 and left out, as the official convention does; notebook 06 derives it and records it as a headline);
# - **answering 3 for every emotion** (`metric.constant_answer_scores`; under v1 any constant above 0 gives the
#   same normalised answer).
#
# The upstream README describes the scale as "0 = random, 100 = exact"; the computed baselines say where random
# answering actually lands on these question sets.

# %%
q_v1, q_v2 = load_questions("v1"), load_questions("v2")
base_v2 = {"uniform random answers": metric.expected_random_score(q_v2),
           "answering 3 everywhere": float(metric.constant_answer_scores(q_v2, [3]).score.iloc[0])}
base_v1 = {"uniform random answers": metric.expected_random_v1_score(q_v1),
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
show_figure(fig, "02_score_distribution")

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
show_figure(fig, "02_ranked_intervals")

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
# Null for both: no association (r = 0). For the parse count, a non-rejection is evidence against an effect only if the
# test could have seen the effect theory predicts (half-width proportional to 1 / sqrt(parsed)): its power.
POWER_SIMS = 40_000
parse_power = power.halfwidth_parse_power(iv.half_width, iv.parsed, iv.score, n_q, reps=POWER_SIMS, seed=0)
power_mc = MonteCarlo.from_share(parse_power.power, POWER_SIMS)  # the binomial error of a simulated share
score_text = "the half-width tracks the score" if score_tracks else "no association with the score is detected"
parse_text = "for the parse count, " + verdicts.describe(
    hw_parsed["pearson"], hw_parsed["pearson_low"], hw_parsed["pearson_high"], what="r", n=hw_parsed["n"],
    unit="runs", power=parse_power.power)  # fmt: skip
verdict = f"{score_text}; {parse_text}"
fewest_below = (fewest.half_width < median_hw).sum()
show_markdown(
    f"The median 95 % half-width is **±{median_hw:.2f}** points (range {iv.half_width.min():.2f} to "
    f"{iv.half_width.max():.2f} over the {len(iv)} runs). The widest intervals: {describe(widest)}. "
    f"Across runs, the half-width correlates with the score at r = {hw_score['pearson']:.2f} "
    f"[{hw_score['pearson_low']:.2f}, {hw_score['pearson_high']:.2f}] and with the number of parseable answers at "
    f"r = {hw_parsed['pearson']:.2f} [{hw_parsed['pearson_low']:.2f}, {hw_parsed['pearson_high']:.2f}] (null: r = 0): "
    f"{verdict}. "
    f"{parse_power.n_full} of the {parse_power.n_runs} runs parse all {n_q} questions and the fewest parsed is "
    f"{int(iv.parsed.min())}, so a half-width proportional to 1/√(parsed) would make the widest-affected run only "
    f"{parse_power.max_widening:.1%} wider ({parse_power.max_widening_points:.2f} points at the median half-width), "
    f"against a residual SD of {parse_power.residual_sd:.2f} points around the half-widths' fit on the score. "
    f"Simulating that effect with that noise, the same test (r with the parse count, Fisher z, 5 %) detects it in "
    f"**{parse_power.power:.0%}** of data sets. "
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
fig.suptitle("Each run's interval width against its score and its parse count "
             f"({parse_power.n_full} of {parse_power.n_runs} runs parse all {n_q}: the right panel has little range)",
             fontsize=10)
fig.tight_layout()
show_figure(fig, "02_halfwidth")

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
fig, ax = plt.subplots(figsize=(12, 13))
plots.plot_separation_matrix(ax, sep, labels=iv["label"].to_numpy()[order], fontsize=7)
ax.set_title(f"Pairs separated (dark): each pair a separate 95 % test, uncorrected for the {len(sep_u):,} pairs; "
             f"{share:.0%} of pairs. Models ranked by score", fontsize=10)
fig.tight_layout()
show_figure(fig, "02_pair_separation", caveats=[
    f"{len(sep_u):,} uncorrected tests: even among equal models about one pair in twenty would look separated; the "
    "ranking-reliability section gives the share after Benjamini–Hochberg"])

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
record_headline(NB, "power of the half-width vs parse-count check to detect the widening 1/sqrt(parsed) predicts",
                src_runs, stable_round(parse_power.power, power_mc.se), n=parse_power.n_runs,
                key="halfwidth_parse_power", n_unit="runs", mc=power_mc,
                method=f"simulation, {POWER_SIMS:,} data sets: fit on score + normal residuals, times "
                "sqrt(171 / parsed); test: Pearson r, Fisher z, two-sided 5 %")
record_headline(NB, "share of pairs of runs separated beyond noise (paired bootstrap over questions, 95 %, "
                "uncorrected)", src_runs, round(float(share), 3), n=len(sep_u), key="pairs_separated_share",
                n_unit="pairs of runs")
for key, (model, claim, _) in [("paper_v1_lowest", ends["lowest"]), ("paper_v1_highest", ends["highest"])]:
    side = key.rsplit("_", 1)[1]
    record_headline(NB, f"paper-era v1 chart and leaderboard, {side} score ({model}); a proxy for the paper's range",
                    end_sources[side], claim, n=len(v1), key=key, n_unit="models on the v1-era leaderboard",
                    caveats=[PROXY])
record_headline(NB, "v2: expected score of uniform random answers (exact; upstream README: 0 = random)",
                "computed here (metric.expected_random_score on the 171 released questions, c = 0.7477)",
                round(base_v2["uniform random answers"], 3), n=len(q_v2), key="v2_random_baseline",
                n_unit="questions")
record_headline(NB, "v2: score of answering 3 for every emotion", "computed here (metric.constant_answer_scores)",
                round(base_v2["answering 3 everywhere"], 2), n=len(q_v2), key="v2_constant_3", n_unit="questions")
pd.read_json(figures_dir() / "headlines" / f"{NB}.json")

# %% [markdown]
# ## What this shows

# %%
tier = by_gap.share_separated
show_markdown(
    f"- The paper-era v1 range ({lo_claim:.2f} to {hi_claim:.2f}), {PROXY}, is taken **as published** in "
    "`paper_claims.csv` / `paper_scores.csv`; the upstream repository publishes no v1 answers, so it is not recomputed "
    "here. v2 is a different benchmark version and is not on the same scale.\n"
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

# %% [markdown]
# ## Ranking reliability
#
# A leaderboard is read as an order. This section asks how much of that order the data support, using the same
# 86 published v2 runs (EQ-bench/EQ-Bench `results/eq-bench` @ d28c60c, rescored here) and the functions of
# `eqbench_nb.analysis.ranks` (and, for the conventions, `eqbench_nb.eqbench.study.ranking`):
#
# - **rank intervals**: the 171 questions are resampled (percentile bootstrap, 2,000 resamples, seed 0), the *same*
#   resample for every run, and the runs are re-ranked in each resample (1 = best, ties averaged);
# - **probability of improvement** P(X > Y): the share of questions on which run X scores higher than run Y (ties
#   count half), rliable's statistic with questions in the place of tasks, with its interval from the same resamples;
#   pairs are tested (score difference ≠ 0, and P(X > Y) ≠ 0.5) with p-values from the bootstrap standard error and
#   corrected for the number of pairs with Benjamini–Hochberg (false discovery rate 5 %);
# - the same runs **ranked under the official, lm-evaluation-harness and evalscope conventions**;
# - **performance profiles**: the distribution of each run's question scores;
# - **power**: how many questions, and how many iterations, a comparison needs.

# %%
REPS, SEED, NB = 2000, 0, "02_discrimination"



conv = {c: ranking.convention_matrix(runs, c) for c in CONVENTIONS}   # runs x 171, question-score scale
m_off = conv["official"]                                                 # NaN = left out (unparseable or missing)
score = {c: 10 * m.mean(axis=1) for c, m in conv.items()}                # official: NaN-ignoring mean, as upstream
labels = m_off.index.to_numpy()
print({c: m.shape for c, m in conv.items()})

# %% [markdown]
# ### Rank intervals
#
# Each bar is the 95 % percentile interval of a run's rank over the question resamples. A narrow bar is a place the
# data pin down; a wide bar is a place that another draw of 171 questions could change.

# %%
ri = ranks.rank_intervals(m_off.to_numpy(), labels, reps=REPS, seed=SEED)
med_w = float(ri.width.median())
# No interval for this median: the widths come from one shared set of question resamples, so the runs' widths are
# not independent and resampling runs would treat them as if they were.
MEDIAN_WIDTH_CAVEAT = ("no interval: every run's width comes from the same question resamples, so the widths are not "
                       "independent draws that resampling runs could treat as such")
best = ri.sort_values("rank").iloc[0]
n_wide = int((ri.width >= 10).sum())
top10 = ri.sort_values("rank").head(10)
show_markdown(
    f"The median rank interval is **{med_w:.1f} places** wide ({MEDIAN_WIDTH_CAVEAT}); {n_wide} of {len(ri)} runs "
    "have intervals of 10 places or more. "
    f"The top run, {best.label}, ranks first in {best.p_top:.0%} of resamples "
    f"(rank interval {best.rank_low:g}–{best.rank_high:g}). "
    + ("So a leaderboard place is a range, not a point: " if med_w >= 5 else "Places are mostly well determined: ")
    + f"a typical run could sit about {med_w / 2:.0f} places higher or lower on another set of questions."
)
top10[["label", "score", "rank", "rank_low", "rank_high", "width", "p_top"]].round(2)

# %%
fig, ax = plt.subplots(figsize=(7.5, 0.13 * len(ri) + 1))
plots.plot_rank_intervals(ax, ri, fontsize=6)
ax.set_title("86 published EQ-Bench v2 runs: rank with 95 % interval (questions resampled)", fontsize=9)
fig.tight_layout()
show_figure(fig, "02_rank_intervals")

# %% [markdown]
# ### Probability of improvement, and pairs separated after correction
#
# The binary "separated" matrix above says only whether a pair's interval excludes 0. P(X > Y) says how often the
# higher-ranked run wins a question, which is what "better" means to a user who asks one question. Each pair is
# tested twice — score difference ≠ 0 and P(X > Y) ≠ 0.5 — first each at 5 %, then with Benjamini–Hochberg over all
# pairs.

# %%
order = np.argsort(-score["official"].to_numpy(), kind="stable")
pc = ranks.pairwise_comparisons(m_off.to_numpy()[order], reps=REPS, seed=SEED)
shares = pd.DataFrame(
    {test: {"uncorrected (each at 5 %)": pc.share_separated(test),
            "Benjamini–Hochberg (FDR 5 %)": pc.share_separated(test, correction="bh")}
     for test in ("diff", "poi")}
).rename(columns={"diff": "score difference ≠ 0", "poi": "P(X > Y) ≠ 0.5"})
nb_pairs = pc.table[pc.table.j == pc.table.i + 1].reset_index(drop=True)   # each run vs the next one down
bh_reject = ranks.benjamini_hochberg(pc.table.p_poi.to_numpy())[0]   # P(X > Y) = 0.5 rejected after BH
nb_sig = bh_reject[(pc.table.j == pc.table.i + 1).to_numpy()]
share_bh, share_raw = shares.iloc[1, 0], shares.iloc[0, 0]
nb_below = int((nb_pairs.poi < 0.5).sum())
show_markdown(
    f"Of the {len(pc.table):,} pairs, {share_raw:.1%} differ in score at 5 % each and **{share_bh:.1%} after "
    f"Benjamini–Hochberg**; for P(X > Y) ≠ 0.5 the shares are {shares.iloc[0, 1]:.1%} and {shares.iloc[1, 1]:.1%}. "
    + (f"The correction barely changes the shares ({share_raw - share_bh:.1%} of pairs for the score difference): "
       "most separated pairs are so far apart that their p-values are far below any corrected threshold. "
       if share_raw - share_bh < 0.05 else
       f"The correction removes {share_raw - share_bh:.1%} of the pairs: many separations were near the threshold. ")
    + f"Between neighbours in the ranking, P(X > Y) has a median of {nb_pairs.poi.median():.2f} (range "
    f"{nb_pairs.poi.min():.2f}–{nb_pairs.poi.max():.2f}); {int(nb_sig.sum())} of {len(nb_pairs)} neighbour pairs have "
    f"P(X > Y) ≠ 0.5 after correction, and in {nb_below} of them the higher-ranked run wins *fewer* than half of the "
    "questions (it is ahead on the mean through fewer, larger wins). "
    + ("The run one place higher is, question by question, close to a coin flip." if abs(nb_pairs.poi.median() - 0.5) < 0.05
       else "")
)
shares.round(3)

# %%
poi_separated = np.zeros_like(pc.poi, dtype=bool)  # P(X > Y) = 0.5 rejected after Benjamini–Hochberg, both ways
poi_separated[pc.table.i.to_numpy()[bh_reject], pc.table.j.to_numpy()[bh_reject]] = True
poi_separated |= poi_separated.T
fig, ax = plt.subplots(figsize=(14, 13.5))
plots.plot_probability_matrix(ax, pc.poi, labels=labels[order], fontsize=6.5, separated=poi_separated,
                              separated_label="P(X > Y) ≠ 0.5 after Benjamini–Hochberg (FDR 5 %)")
ax.set_title("P(row beats column on a random question), runs ranked by official score; an undotted cell is not told "
             "apart from 0.5", fontsize=9)
fig.tight_layout()
show_figure(fig, "02_probability_of_improvement")

# %%
fig, ax = plt.subplots(figsize=(7.5, 0.13 * len(nb_pairs) + 1.2))
plots.plot_neighbour_poi(ax, labels[order][:-1], nb_pairs.poi, nb_pairs.poi_low, nb_pairs.poi_high,
                         significant=nb_sig, fontsize=6)
ax.set_title("Each run against the next one down: P(X > Y), 95 % interval (questions resampled)", fontsize=9)
fig.tight_layout()
show_figure(fig, "02_neighbour_probability")

# %% [markdown]
# ### The same runs under three conventions
#
# The conventions (`eqbench_nb.eqbench.conventions`) differ in three ways that matter here: the official score
# leaves an unparseable answer out of the mean while lm-eval and evalscope count it 0; lm-evaluation-harness's scorer
# reads the **whole raw output** with one `word: number` pattern and rejects an answer unless it finds exactly four
# names, so an extra line such as "Confidence: 8" zeroes a correct answer; and a run made with the revision prompt
# holds first-pass scores, a critique and revised scores, which lm-eval reads as one answer (a repeated emotion keeps
# its last, revised, value) while the official rule picks one pass. Here the lm-eval score is what lm-eval's scorer
# gives each run's stored raw output (unparseable = 0, mean over 171); evalscope's adapter also reads the whole raw
# output, never split into passes (v2.4's pattern after stripping markdown, names in any case, an answer with a
# rating outside 0–10 rejected), each question clamped to 0–10. Rank agreement: Spearman ρ with a 95 % interval in
# which the questions are resampled (the same resample for both conventions).

# %%
rk = pd.DataFrame({c: ranks.ranks(score[c].to_numpy()) for c in CONVENTIONS}, index=labels)
agree_rows = []
for a, b in [("official", "lm-eval"), ("official", "evalscope"), ("lm-eval", "evalscope")]:
    cb = ranking.convention_rank_bootstrap(conv[a].to_numpy(), conv[b].to_numpy(), reps=REPS, seed=SEED)
    agree_rows.append({"a": a, "b": b, "spearman": cb["spearman"].estimate, "low": cb["spearman"].low,
                       "high": cb["spearman"].high, "largest_move": cb["max_change"].estimate,
                       "move_low": cb["max_change"].low, "move_high": cb["max_change"].high,
                       "runs_moving_10+": int((rk[a] - rk[b]).abs().ge(10).sum())})
agreement = pd.DataFrame(agree_rows)
ol = agreement.iloc[0]
changes = ranking.rank_changes(score["official"], score["lm-eval"], labels)
diffs = ranking.lm_eval_differences(runs)
movers = ranking.explain_rank_changes(changes, diffs, k=6)
show_markdown(
    f"Official and lm-eval ranks agree with **Spearman ρ = {ol.spearman:.3f}** (95 % interval {ol.low:.3f}–"
    f"{ol.high:.3f}, questions resampled), but ρ hides single runs: {ol['runs_moving_10+']} runs move 10 places or "
    f"more, and the largest move is **{ol.largest_move:g} places** ({movers.label[0]}, rank "
    f"{movers.official_rank[0]:g} → {movers.lm_eval_rank[0]:g}). Official and evalscope agree with ρ = "
    f"{agreement.spearman[1]:.3f} [{agreement.low[1]:.3f}, {agreement.high[1]:.3f}]. "
    + ("A reader comparing a number from an lm-eval run with the official leaderboard should expect places to change "
       "for runs whose outputs carry extra lines or revision text (below)." if ol["runs_moving_10+"] > 0 else "")
)
display(agreement.round(3))
show_markdown("**Why the biggest movers move** (computed from each run's answers):\n\n" + "\n".join(
    f"- **{r.label}** ({r.official_rank:g} → {r.lm_eval_rank:g}): {r.reason}." for r in movers.itertuples()))

# %%
fig, ax = plt.subplots(figsize=(10, 9))
plots.plot_rank_bump(ax, rk.reset_index(names="label"), list(CONVENTIONS), n_label=6)
ax.set_title("Rank of each of the 86 runs under the three conventions; the six biggest official → lm-eval moves named",
             fontsize=9)
fig.tight_layout()
show_figure(fig, "02_rank_conventions")

# %% [markdown]
# ### Performance profiles
#
# rliable's performance profile, per run: the share of its questions (official convention, unparseable left out)
# scored at least τ, for every τ. A question scores 10 only for an exact answer.

# %%
taus = np.linspace(-5, 10, 61)
prof = ranks.performance_profiles(m_off.to_numpy(), taus)
i9 = int(np.argmin(np.abs(taus - 9)))
share9 = pd.Series(prof["profile"][:, i9], index=labels)
key1 = load_questions("v2")[0].reference   # how far off an answer scoring 9 is: every emotion off by 1, then by 2
off_by = {d: score_v2({e: min(10.0, v + d) if v < 5 else v - d for e, v in key1.items()}, key1) for d in (1, 2)}
top_ids = score["official"].nlargest(10).index
bottom_ids = score["official"].nsmallest(10).index
show_markdown(
    f"(For scale: an answer one point off on each of the four emotions scores {off_by[1]:.2f}, two points off "
    f"{off_by[2]:.2f}.) The ten best runs score 9 or more on {share9[top_ids].mean():.0%} of their questions on average "
    f"(range {share9[top_ids].min():.0%}–{share9[top_ids].max():.0%}); the ten weakest on "
    f"{share9[bottom_ids].mean():.0%}. The best runs' curves bunch together at the right: on a large share of the "
    f"questions the strong models are all near the ceiling, so those questions cannot order them (notebook 08 counts "
    f"these ceiling questions)."
)

# %%
fig, ax = plt.subplots(figsize=(8, 5))
plots.plot_performance_profiles(ax, taus, prof["profile"], score["official"].to_numpy(),
                                label="official run score")
ax.axvline(9, color="black", lw=0.8, ls=":")
ax.set_title("Performance profiles of the 86 runs (one curve per run)", fontsize=9)
fig.tight_layout()
show_figure(fig, "02_performance_profiles")

# %% [markdown]
# ### Power: how many questions, how many iterations?
#
# Two different questions, two different noise sources:
#
# - **Questions.** If the 171 questions are a sample of the situations EQ-Bench stands for, a difference between two
#   models is uncertain because of which questions were drawn. Both models answer the same questions, so what matters
#   is the SD across questions of their *per-question difference* (paired design); a two-sided 5 % test has 80 % power
#   when n = (1.96 + 0.84)² · (10 · SD)² / Δ² (the run score is 10 × the mean). The SD is taken from the data: for
#   every pair of runs, the SD of their per-question differences; the median over pairs whose scores are within 5
#   points of each other (the comparisons a reader cares about). The unpaired design (two independent question sets)
#   uses √(SD_a² + SD_b²) instead.
# - **Iterations.** With the 171 questions fixed, a score still moves from run to run (sampling, quantisation, a
#   changed template). r iterations per model detect Δ when r = 2 · (1.96 + 0.84)² · σ_run² / Δ². The published
#   runs are single iterations. The five models with both a leaderboard score and a results-file score
#   (`data/paper_repeatability.csv`) are not repeated runs: notebook 03 shows their gap follows the unparseable
#   answers (recomputed below from the same pairs). The bundled 135M model's repeated runs (notebook 03) score far
#   below random, so their SD says nothing about a real model. The closest the published data come is notebook 03's
#   real-model anchor: four near-identical gpt-3.5-turbo endpoints run on one day (four names, not one model asked
#   four times; its alias caveat applies). So the iterations are given for that anchor and as a function of
#   σ_run, for a reader who measures it (`eqbench-nb run --iterations`, then notebook 03 on the output).

# %%
DELTAS = np.array([1.0, 2.0, 5.0])
m_np = m_off.to_numpy()
sd_pair = ranks.pair_difference_sd(m_np)
iu = np.triu_indices(len(m_np), 1)
gap = np.abs(np.subtract.outer(score["official"].to_numpy(), score["official"].to_numpy()))[iu]
sd_row = np.nanstd(m_np, axis=1, ddof=1)
close = gap < 5
sd_paired = float(np.median(sd_pair[close]))
sd_unpaired = float(np.median(np.sqrt(sd_row[iu[0]] ** 2 + sd_row[iu[1]] ** 2)[close]))
from eqbench_nb.analysis.spread import sd_interval
from eqbench_nb.eqbench.study.repeatability import ANCHOR_SCOPE, published_pairs, same_day_runs

pairs = published_pairs(published.paper_repeatability().query("eqbench_version == 'v2'"))
pairs["unparseable"] = pairs.model.map({r.model: r.n_questions - score_run(r).n_parseable for r in runs})
clean_pairs = pairs[pairs.unparseable == 0]
anchor_sd = sd_interval(same_day_runs(runs).score)  # notebook 03's real-model anchor (the same function)
SIGMAS = np.array([0.5, 1.0, 2.0, 4.0])   # assumed run-to-run SDs (points), beside the anchor
n_q = m_np.shape[1]
power_tbl = pd.DataFrame({
    "difference (points)": DELTAS,
    "questions, paired": ranks.required_questions(DELTAS, sd_paired),
    "questions, unpaired": ranks.required_questions(DELTAS, sd_unpaired),
    f"power with {n_q} questions (paired)": [ranks.paired_power(d, n_q, sd_paired) for d in DELTAS],
    **{f"iterations if σ_run = {sg:g}": ranks.required_iterations(DELTAS, sg) for sg in SIGMAS},
})
q2 = power_tbl.set_index("difference (points)")
iters_2 = {sg: int(ranks.required_iterations(2.0, sg)) for sg in SIGMAS}
show_markdown(
    f"Per-question SD of a paired difference: median **{sd_paired:.2f}** over the {int(close.sum())} pairs within 5 "
    f"points (all {len(sd_pair):,} pairs: {np.median(sd_pair):.2f}); unpaired it would be {sd_unpaired:.2f}, so pairing "
    f"saves a factor of {(sd_unpaired / sd_paired) ** 2:.1f} in questions. Detecting a 2-point difference with 80 % "
    f"power needs **{q2.loc[2, 'questions, paired']:,.0f} questions** (1 point: {q2.loc[1, 'questions, paired']:,.0f}; "
    f"5 points: {q2.loc[5, 'questions, paired']:,.0f}); the {n_q} questions of v2 give "
    f"{q2.loc[2, f'power with {n_q} questions (paired)']:.0%} power at 2 points and "
    f"{q2.loc[5, f'power with {n_q} questions (paired)']:.0%} at 5. "
    f"Run to run, of the {len(pairs)} models with two published v2 scores, "
    f"the {len(clean_pairs)} whose results file has no unparseable answer differ by "
    f"{', '.join(f'{g:.2f}' for g in clean_pairs.gap)} points and the others by "
    f"{pairs[pairs.unparseable > 0].gap.min():.2f}–{pairs[pairs.unparseable > 0].gap.max():.2f} (notebook 03), which "
    "says how failed answers were counted, not how a score moves from one run to the next. The real-model anchor of "
    f"notebook 03 gives σ_run = {anchor_sd.estimate:.2f} [{anchor_sd.low:.2f}, {anchor_sd.high:.2f}] (four "
    "near-identical gpt-3.5-turbo endpoints, an upper bound for one such model): at its upper end a 2-point "
    f"difference needs {int(ranks.required_iterations(2.0, anchor_sd.high))} iteration(s), so for a model like that "
    f"the questions, not the iterations, limit a comparison (scope: {ANCHOR_SCOPE}). For other models the iterations "
    "are given per assumed σ_run: "
    + ", ".join(f"{iters_2[sg]} if σ_run = {sg:g}" for sg in SIGMAS) + " (the count grows with σ_run², "
    "r = 2 · (1.96 + 0.84)² · σ_run² / Δ²). "
    + ("Differences of a point or two between models on the leaderboard are therefore not evidence that one is better."
       if q2.loc[2, 'questions, paired'] > n_q else "")
)
power_tbl.round(3)

# %%
dd = np.linspace(0.5, 8, 40)
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.3))
plots.plot_power_curves(ax1, dd, {"paired (same questions)": ranks.required_questions(dd, sd_paired),
                                  "unpaired": ranks.required_questions(dd, sd_unpaired)},
                        reference=n_q, ylabel="questions for 80 % power")
ax1.set_title(f"Questions needed (per-question SD of the difference {sd_paired:.2f})", fontsize=9)
curves = {f"if σ_run = {sg:g}": ranks.required_iterations(dd, sg) for sg in SIGMAS[::-1]}
curves[f"gpt-3.5 anchor's upper bound, σ_run = {anchor_sd.high:.2f}"] = ranks.required_iterations(dd, anchor_sd.high)
plots.plot_power_curves(ax2, dd, curves, ylabel="iterations per model for 80 % power")
ax2.set_title("Iterations needed on the fixed 171 questions, per run-to-run SD\n"
              "(assumed, and notebook 03's real-model anchor: four near-identical endpoints)", fontsize=9)
fig.tight_layout()
show_figure(fig, "02_power")

# %% [markdown]
# ### Do protocol choices go with different scores?
#
# Each results file records how its run was made: with or without the revision prompt, the inference engine (a
# hosted API; text-generation-webui, "ooba"; or Hugging Face transformers) and, for transformers runs only, the
# bitsandbytes quantisation (ooba runs load quantised files whose format the results do not record). Below, the
# difference in mean official score between the two sides of each choice, and the same difference adjusted for
# MAGI-Hard (eqbench.com's general reasoning benchmark, one source for every model; least squares, runs with a
# MAGI-Hard score only). Runs are not independent draws: the hosted API side holds six gpt-3.5-turbo endpoints (one
# lineage) and four GPT-4 snapshots. So the units are the models' **lineages** (`data/base_models.csv`): both
# intervals are the regression's t with a lineage-clustered standard error and lineages − 1 degrees of freedom
# (`protocol.covariate_effect(..., lineages=...)`, which refuses to run without the lineage map); each row says how
# many lineages each side has; with few lineages on a side a cluster-robust standard error is itself uncertain and
# tends to be too small, so read such rows as rough. Whether adjustment explains a difference is judged by how much of the raw estimate it
# keeps, not by whether the adjusted interval happens to reach 0.
#
# **Caveat: these are not experiments.** The protocol went with the model: the API runs are the large commercial
# models, the 8-bit runs small open ones, so a raw difference mixes the protocol with the models that used it.
# Adjusting for one capability measure removes only what that measure captures. Null for each row: no score
# difference between the two sides (`protocol.covariate_verdict` chooses the sentence). Revision runs are also
# scored with the better of their two passes (notebook 06), which favours them mechanically.

# %%
prot = protocol.run_protocols(runs, official)
magi = prot.model.map(published.benchmarks_joined().set_index("model").magi_hard)
comparisons = [
    ("revision prompt vs none", prot.revise, prot.index == prot.index),
    ("hosted API vs open weights", prot.engine.eq("api"), prot.index == prot.index),
    ("ooba vs transformers (open weights)", prot.engine.eq("ooba"), prot.engine.isin(["ooba", "transformers"])),
    ("4-bit vs 8-bit (transformers)", prot.quantisation.eq("4bit"), prot.quantisation.isin(["4bit", "8bit"])),
]
cov_rows = []
for name, grp, keep in comparisons:
    e = protocol.covariate_effect(prot[keep], grp[keep], magi[keep], lineages=published.lineage_map())
    cov_rows.append({"comparison": name, **e, "verdict": protocol.covariate_verdict(e)})
covariates = pd.DataFrame(cov_rows)
print(prot.groupby(["engine", "quantisation"], dropna=False).score.agg(["count", "mean"]).round(2).to_string())
covariates.round(2)

# %%
cv = covariates.set_index("comparison")
def verdict_text(r) -> str:
    """The sentence `protocol.covariate_verdict` chose, with the share of the raw difference that adjustment keeps."""
    kept = protocol.kept_share(dict(r._asdict()))
    return {
        "persists": "differs beyond noise, before and after adjusting for MAGI-Hard (still an association, not an "
                    "effect)",
        "attenuated": f"differs beyond noise raw; adjusted for MAGI-Hard the estimate moves to {r.adjusted:+.1f} "
                      f"({kept:.0%} of the raw difference) and its interval includes 0: inconclusive, though "
                      "compatible with the models' capability explaining much of it",
        "inconclusive after adjustment": f"differs beyond noise raw; adjusting for MAGI-Hard barely moves the "
                                         f"estimate (it keeps {kept:.0%} of the raw difference), only its interval "
                                         "widened: inconclusive",
        "adjusted only": "differs beyond noise only after adjusting for MAGI-Hard",
        "inconclusive": "the interval includes 0: with this few lineages, inconclusive",
        "unadjusted": "differs beyond noise raw; too few runs have MAGI-Hard to check the models' capability",
    }[r.verdict]
n_none = int(prot.quantisation.eq("none").sum())
show_markdown(
    "\n".join(
        f"- **{r.Index}** ({r.n_true} vs {r.n_false} runs, {r.n_lineages_true} vs {r.n_lineages_false} lineages): "
        f"{r.raw:+.1f} points [{r.raw_low:+.1f}, {r.raw_high:+.1f}]"
        + (f"; adjusted for MAGI-Hard ({r.n_adj_true} vs {r.n_adj_false} runs) {r.adjusted:+.1f} "
           f"[{r.adjusted_low:+.1f}, {r.adjusted_high:+.1f}]" if np.isfinite(r.adjusted) else "")
        + f" ({r.method}): {verdict_text(r)}."
        for r in cv.itertuples()
    )
    + f"\n\nOnly {n_none} transformers runs are unquantised, too few to compare with the quantised ones; ooba runs "
    "do not record their quantisation. None of these rows says what a protocol does to one model's score: that needs "
    "the same model run both ways."
)

# %%
fig, ax = plt.subplots(figsize=(8, 3.6))
rows = []
for r in covariates.itertuples():
    rows.append({"label": f"{r.comparison}\nraw ({r.n_true} vs {r.n_false})", "mean": r.raw, "lo": r.raw_low,
                 "hi": r.raw_high})
    if np.isfinite(r.adjusted):
        rows.append({"label": f"same, adjusted for MAGI-Hard ({r.n_adj_true} vs {r.n_adj_false})", "mean": r.adjusted,
                     "lo": r.adjusted_low, "hi": r.adjusted_high})
plots.plot_means(ax, pd.DataFrame(rows), "label", sort=False, color=plots.OKABE_ITO[0],
                 xlabel="difference in mean official score (points), 95 % interval (regression t, lineage-clustered SE)")
ax.axvline(0, color="0.4", lw=0.8)
ax.tick_params(axis="y", labelsize=7)
ax.set_title("Protocol choices of the 86 published runs: associations; each protocol went with its models", fontsize=9)
fig.tight_layout()
show_figure(fig, "02_protocol_covariates")

# %% [markdown]
# ### Headline numbers: ranking reliability

# %%
src = "86 published v2 results JSON (EQ-bench/EQ-Bench @ d28c60c), rescored"
record_headline(NB, "Spearman ρ between the 86 runs' official and lm-eval scores (lm-eval: its scorer over each "
                "run's whole raw output, unparseable = 0, mean over 171)", src, round(float(ol.spearman), 4),
                (ol.low, ol.high), n=len(labels), key="rank_spearman_official_vs_lmeval",
                method="percentile bootstrap over questions (same resample for both conventions), 2,000 resamples",
                n_unit="runs")
record_headline(NB, "largest absolute rank change (1 = best, ties averaged) between official and lm-eval scores",
                src + f"; {movers.label[0]}", float(ol.largest_move), n=len(labels), key="rank_biggest_mover_places",
                n_unit="runs", caveats=["no interval: a bootstrap interval of a maximum is unreliable (the resampled "
                                        "maximum is biased and its percentiles undercover)"])
record_headline(NB, "median across runs of the width (hi − lo) of the 95 % interval of each run's rank", src,
                round(med_w, 2), n=len(ri), key="median_rank_interval_width", n_unit="runs",
                caveats=["widths: percentile bootstrap over questions (same resample for all runs), 2,000 resamples",
                         MEDIAN_WIDTH_CAVEAT])
record_headline(NB, "share of run pairs whose score difference is separated after Benjamini–Hochberg (FDR 5 %)", src,
                round(float(share_bh), 4), n=len(pc.table), key="pairs_separated_bh_share", n_unit="pairs")
record_headline(NB, "questions needed to detect a 2-point difference at 80 % power (paired, two-sided 5 %)",
                src + "; median per-question SD of differences of pairs within 5 points",
                float(q2.loc[2, "questions, paired"]), n=int(close.sum()), key="questions_for_2_points",
                n_unit="pairs of runs")
record_headline(NB, "iterations per model needed to detect a 2-point difference at 80 % power on the fixed questions",
                "assumed σ_run, and notebook 03's real-model anchor (four near-identical gpt-3.5-turbo endpoints of "
                "2024-01-14, key repeatability_published_sd)",
                f"{int(ranks.required_iterations(2.0, anchor_sd.high))} at the anchor's upper bound "
                f"σ_run = {anchor_sd.high:.2f}; otherwise " + ", ".join(f"{iters_2[sg]} if σ_run = {sg:g}"
                                                                        for sg in SIGMAS),
                key="iterations_for_2_points", method="r = 2 (1.96 + 0.84)² σ_run² / Δ², per assumed σ_run",
                caveats=[ANCHOR_SCOPE])
pd.read_json(figures_dir() / "headlines" / f"{NB}.json")[["key", "claim", "value", "interval", "n"]].tail(6)
