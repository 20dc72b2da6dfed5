# %% [markdown]
# # Which emotions do models get wrong? Per-emotion errors in 86 published EQ-Bench v2 runs
#
# **What the paper says.** Nothing: the EQ-Bench paper (Paech 2023, arXiv 2312.06281) reports one score per
# model and no analysis by emotion, by reference intensity or by question.
#
# **Data.** The 86 single-iteration v2 runs published in the EQ-Bench repository (EQ-bench/EQ-Bench
# `results/eq-bench/*.json` @ d28c60c: GPT-4 snapshots, GPT-3.5, Gemini Pro, Mistral Medium, Llama-2, Mixtral,
# Yi, Qwen and many 7B fine-tunes), rescored from their stored answers against the released 171-question key (the
# per-question scores stored in the files are not used: §0 shows why). For each answered question we use the pass
# (first or revised) that the official rule picks. Every row below is one emotion of one answer: its reference
# intensity (0–10), the model's rating, the signed error (rating − reference), the absolute error, and the v2
# penalty f(|error|).
#
# **Families.** The 201 emotion words are grouped into 14 families in `data/emotion_families.csv`. This is
# *our own* grouping (source column: "eqbench_nb authors' grouping"), not a published taxonomy; word-level
# results are shown too so nothing hinges on it.
#
# **Uncertainty.** Rows from one model are correlated, and so are rows from one question; and the 86 runs are not
# 86 independent models: many are fine-tunes, merges or snapshots of one base (`data/base_models.csv` gives each run's
# **lineage**, the earliest pretrained weights it descends from). So the intervals treat the lineages and the
# questions as the two sampled units (`emotions.two_way_bootstrap`, `emotions.end_bias_against_null` with the
# lineages): from 30 lineages on a two-way bootstrap that draws whole lineages and, independently, the questions;
# below 30, the house small-n rule: a Student t interval (lineages − 1 degrees of freedom) whose standard error adds
# the variance from leaving out one lineage at a time to that from leaving out one question at a time. That t
# interval is an approximation: the two jackknife variances are added as if independent, and the degrees of freedom
# are the lineages' alone, not derived for the two-way design. In the comparisons of the bottom and top thirds (§6) a
# lineage leaves with all its runs, in whichever third they are. A pooled error weighs each lineage by its number of
# runs (the largest lineage holds far more runs than the others, counted below), so it describes this mix of runs,
# not an average lineage.

# %%
import matplotlib

matplotlib.use("Agg")  # headless in a fresh kernel; figures are still shown inline
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

pd.set_option("display.width", 140)
pd.set_option("display.max_colwidth", 80)
from eqbench_nb import plots
from eqbench_nb.analysis import emotions as em
from eqbench_nb.analysis import stats
from eqbench_nb.data import published_results_dir
from eqbench_nb.eqbench.conventions import score_run
from eqbench_nb.eqbench.study import published

# %%
from eqbench_nb.eqbench.study.table import published_runs, question_table, run_table
from eqbench_nb.report import record_headline, save_figure, show_markdown

NB = "05_per_emotion_errors"
REPS = 2000
SRC = "86 results JSON (EQ-bench/EQ-Bench @ d28c60c) rescored here"
runs = published_runs()
records = question_table(runs)
lineage = published.base_models().set_index("model")["lineage"].to_dict()   # each run's lineage
run_lineages = pd.Series([lineage[r.model] for r in runs])
table = em.add_reference_bin(em.add_family(run_table(runs)))
families = em.load_families()
n_models, n_questions = table.model.nunique(), table.question_id.nunique()
n_answered = len(records)
n_scored = table.groupby(["model", "question_id"]).ngroups
print(f"{len(runs)} runs, {n_answered:,} answered questions (records), {n_scored:,} parseable in the pass used, "
      f"{len(table):,} emotion ratings, {table.emotion.nunique()} emotion words in {table.family.nunique()} families")
record_headline(NB, "answered questions (records) in the published v2 runs", "86 results JSON (EQ-bench/EQ-Bench @ "
                "d28c60c), counted here", n_answered, n=len(runs), key="records", n_unit="runs")
n_lineages = run_lineages.nunique()
top_lineages = run_lineages.value_counts()
gpt35 = [r.model for r in runs if lineage[r.model] == "OpenAI GPT-3.5 (closed)"]
show_markdown(
    f"The {len(runs)} runs come from **{n_lineages} lineages**: {top_lineages.index[0]} alone has "
    f"{top_lineages.iloc[0]} runs, {top_lineages.index[1]} {top_lineages.iloc[1]}, {top_lineages.index[2]} "
    f"{top_lineages.iloc[2]}; the {len(gpt35)} OpenAI GPT-3.5 runs ({', '.join(gpt35)}) count as one lineage. "
    "Intervals below have the lineages, not the runs, as their units."
)
show_markdown(
    f"Of the {n_answered:,} answered questions, {n_answered - n_scored} have no parseable answer in the pass the "
    f"official rule uses, so the per-emotion table holds the other {n_scored:,} "
    f"({len(table) // n_scored} ratings each, {len(table):,} in all)."
)

# %% [markdown]
# ## 0. Why rescore: the per-question scores stored in the files
#
# Each results file stores a score per question (`individual_scores`) beside the parsed answers
# (`respondent_answers`) and the run's `benchmark_score`. Below, every stored score is set beside a rescoring of
# the stored answer against the released key (`published.stored_question_scores`), and each run's score is
# recomputed from both with the official rule (`published.stored_run_scores`).

# %%
stored = published.stored_question_scores(sorted(published_results_dir().glob("*.json")))
both = stored.dropna(subset=["stored", "rescored"])
gap_q = (both.stored - both.rescored).abs()
runs_check = published.stored_run_scores(stored)
off_stored = (runs_check.from_stored - runs_check.published_score).abs()
off_rescored = (runs_check.from_rescored - runs_check.published_score).abs()
agree_by_q = both.assign(same=gap_q < 1e-6).groupby("question_id").same.mean()
show_markdown(
    f"Of {len(both):,} stored per-question scores with a parseable answer beside them, **{(gap_q > 1e-6).sum():,} "
    f"({(gap_q > 1e-6).mean():.1%}) differ** from the rescoring of the same answer (median |difference| "
    f"{gap_q.median():.2f}, largest {gap_q.max():.2f}, on a question scale that ends at 10). No question agrees "
    f"in every run (the most consistent agrees in {agree_by_q.max():.0%} of runs), so the differences are not "
    f"confined to a few changed keys. Recomputing each run's score from the stored values misses its published "
    f"`benchmark_score` by {off_stored.min():.2f} to {off_stored.max():.2f} points (median {off_stored.median():.2f}); "
    f"from the rescoring it matches within {off_rescored.max():.4f} in all {len(runs_check)} runs (largest: "
    f"{runs_check.loc[off_rescored.idxmax()].get('model', off_rescored.idxmax())}). "
    + ("The published scores were therefore computed from the answers against the released key, and the stored "
       "per-question values are not what entered them; what produced the stored values cannot be told from these "
       "files." if off_rescored.max() < 0.05 and off_stored.min() > 1 else
       "Neither source reproduces every published score cleanly; both are shown.")
)

# %% [markdown]
# ## 1. How big are the errors overall?

# %%
overall = em.two_way_bootstrap(table, "abs_error", n_boot=REPS, seed=0, clusters=lineage).iloc[0]
overall_pen = em.two_way_bootstrap(table, "penalty", n_boot=REPS, seed=0, clusters=lineage).iloc[0]
LINEAGE_UNITS = f"lineages ({n_models} runs; the {n_questions} questions are units as well)"
exact, within1 = (table.error == 0).mean(), (table.abs_error <= 1).mean()
record_headline(NB, "mean absolute error per emotion rating", SRC, round(float(overall["mean"]), 3),
                (overall["lo"], overall["hi"]), n=int(overall.n_units), key="mean_abs_error", method=overall.method,
                n_unit=LINEAGE_UNITS)
show_markdown(
    f"Mean absolute error per emotion rating: **{overall['mean']:.2f}** [{overall['lo']:.2f}, {overall['hi']:.2f}]; "
    f"mean penalty f(d): {overall_pen['mean']:.2f} [{overall_pen['lo']:.2f}, {overall_pen['hi']:.2f}]. "
    f"{exact:.1%} of the {len(table):,} ratings are exactly right and {within1:.1%} within one point. These pool "
    f"every run's ratings, so {top_lineages.index[0]} weighs {top_lineages.iloc[0]} of {n_models} runs: the numbers "
    "describe this mix of runs."
)

# %% [markdown]
# ## 2. Error by emotion family
# Mean absolute error with 95 % intervals, and the signed bias (positive: models rate the emotion stronger
# than the reference does). Families differ in how often they carry a reference of 0 (see §4), which moves
# their errors, so this is a description, not a claim that one kind of emotion is intrinsically harder.

# %%
by_family = em.summarise_errors(table, "family")
ci_family = em.two_way_bootstrap(table, "abs_error", by="family", n_boot=REPS, seed=0, clusters=lineage)
bias_family = em.two_way_bootstrap(table, "error", by="family", n_boot=REPS, seed=1, clusters=lineage)
zero_share = table.assign(ref0=table.reference == 0).groupby("family")["ref0"].mean().rename("share_ref_0")
by_family.set_index("family").join(zero_share)[["n", "n_questions", "mean_abs_error", "mean_error", "mean_penalty",
                                                "share_over", "share_under", "share_exact", "share_ref_0"]].round(3)

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 5), sharey=False)
fam_labels = ci_family.assign(label=lambda d: d.family + " (" + d.n_questions.astype(str) + " q)")
plots.plot_means(axes[0], fam_labels, "label", xlabel="mean |rating - reference|, 95 % two-way interval")
axes[0].set_title("Absolute error by family (q: questions)")
order = ci_family.sort_values("mean")["family"].tolist()
b = bias_family.set_index("family").loc[order].reset_index()
plots.plot_means(axes[1], b, "family", xlabel="mean (rating - reference), 95 % two-way interval",
                 color=plots.OKABE_ITO[5], sort=False)
axes[1].invert_yaxis(); axes[1].axvline(0, color="0.5", lw=0.8)
axes[1].set_title("Signed bias by family (same order)")
fig.tight_layout()
save_figure(fig, "05_error_by_family");

# %% [markdown]
# ## 3. Error by emotion word
# Most words occur in only a few questions, so a word's mean error is mostly a statement about those questions,
# and the extremes of a ranking of noisy means are the luckiest (or unluckiest) draws — a *winner's curse*. Two
# remedies, both shown: intervals with the questions as units too (two-way, lineages and questions), and **empirical
# Bayes shrinkage** (`stats.empirical_bayes_shrink`): each word's mean is pulled toward the mean of all words by an
# amount set by its own noise (its two-way standard error) against the spread between words, so words
# seen in few questions move most. The ranking keeps words used in at least 3 questions.

# %%
by_word = em.summarise_errors(table, "emotion")
common = by_word[by_word.n_questions >= 3]
ci_word = em.two_way_bootstrap(table[table.emotion.isin(common.emotion)], "abs_error", by="emotion", n_boot=REPS, clusters=lineage,
                               seed=2)
eb = stats.empirical_bayes_shrink(ci_word["mean"], ci_word["se"])
words = pd.concat([ci_word.reset_index(drop=True), eb[["shrunk", "shrunk_low", "shrunk_high", "shrinkage"]]], axis=1)
words = words.rename(columns={"mean": "estimate"}).merge(families[["emotion", "family"]], on="emotion")
words["rank_raw"] = words.estimate.rank(ascending=False).astype(int)
words["rank_shrunk"] = words.shrunk.rank(ascending=False).astype(int)
cols = ["emotion", "family", "n_questions", "estimate", "lo", "hi", "shrunk", "rank_raw", "rank_shrunk"]
pd.concat({"hardest (shrunken)": words.nlargest(10, "shrunk")[cols].reset_index(drop=True),
           "easiest (shrunken)": words.nsmallest(10, "shrunk")[cols].reset_index(drop=True)}, axis=1).round(2)

# %%
sel = pd.concat([words.nlargest(12, "shrunk"), words.nsmallest(12, "shrunk").iloc[::-1]])
sel = sel.assign(label=sel.emotion + " (" + sel.n_questions.astype(str) + " q)")
fig, ax = plt.subplots(figsize=(7, 8))
plots.plot_shrinkage(ax, sel, "label", xlabel="mean |rating - reference|")
ax.axvline(eb.attrs["mu"], color="0.5", ls=":", lw=1, label=f"shrinkage target (all words): {eb.attrs['mu']:.2f}")
ax.legend(fontsize=8, frameon=False, loc="lower right")
ax.set_title(f"The 12 hardest and 12 easiest of {len(words)} emotion words (used in >= 3 questions),\n"
             "ranked after shrinkage; q: questions using the word", fontsize=9)
fig.tight_layout()
save_figure(fig, "05_error_by_word");

# %%
raw_top = set(words.nlargest(10, "estimate").emotion)
shr_top = set(words.nlargest(10, "shrunk").emotion)
sep_words = words[(words.lo > words.estimate.mean()) | (words.hi < words.estimate.mean())]
few = words[words.n_questions <= 4]
show_markdown(
    f"Between words, the spread of true mean errors is estimated at a standard deviation of "
    f"{np.sqrt(eb.attrs['tau2']):.2f} (empirical Bayes); a word's own noise ranges from {words.se.min():.2f} to "
    f"{words.se.max():.2f}, so shrinkage keeps between {1 - words.shrinkage.max():.0%} and "
    f"{1 - words.shrinkage.min():.0%} of a word's distance from the mean (words in 3–4 questions: median "
    f"{1 - few.shrinkage.median():.0%}). {len(raw_top & shr_top)} of the 10 hardest words by raw mean stay in the "
    f"top 10 after shrinkage. {len(sep_words)} of the {len(words)} words have a two-way interval that excludes the "
    f"mean over all words ({words.estimate.mean():.2f}; uncorrected for the {len(words)} comparisons)."
)

# %% [markdown]
# ## 4. Error by reference intensity: over- and under-estimation
# A rating can only err upward when the reference is 0 and mostly downward when it is high, so some bias at the
# ends is mechanical, and a test of "too high at 0" against zero bias cannot fail. The null that can fail is the
# **clipped-noise null** (`nulls.clipped_noise_null`): ratings = clip(round(reference + e), 0, 10) with symmetric
# normal noise e whose size is set so that the null's mean absolute error equals the observed one. It has no
# compression at all; whatever end bias it shows is clipping alone (dashed line below). Uniform random ratings
# are not a useful null here: they are far noisier than these models.

# %%
from eqbench_nb.analysis import nulls

bias_ref = em.two_way_bootstrap(table, "error", by="reference", n_boot=REPS, seed=3, clusters=lineage)
share_ref = em.summarise_errors(table, "reference")
noise_null = nulls.clipped_noise_null(table.reference.to_numpy(), float(table.abs_error.mean()))
null_by_ref = pd.Series({r: noise_null.bias(noise_null.reference == r) for r in sorted(bias_ref.reference)},
                        name=f"clipped-noise null (noise SD {noise_null.sigma:.2f})")
# The null's interval at each reference value in the data: the next cell's bootstrap with one bin per value (same seed, so
# its interval at 0 is the one quoted there), the noise size refitted in every resample.
per_value = tuple((r, r, str(r)) for r in sorted(bias_ref.reference.astype(int)))  # the values rated
null_iv = em.end_bias_against_null(table, bins=per_value, n_boot=REPS, seed=4, clusters=lineage)
null_iv = null_iv.assign(reference=null_iv.reference_bin.astype(int)).set_index("reference")
null_iv = null_iv[["null_lo", "null_hi"]].rename(columns={"null_lo": "lo", "null_hi": "hi"})
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.6))
plots.plot_bias_by_reference(ax1, bias_ref, share_ref, ax_share=ax2, null=null_by_ref, null_interval=null_iv,
                             null_interval_label=f"null's 95 % interval ({n_lineages} lineages and {n_questions} questions "
                             "resampled, noise SD refitted)")
ax1.set_title(f"Signed error by reference intensity ({n_models} runs in {n_lineages} lineages)", fontsize=10)
ax2.set_title("Share of ratings above, at and below the reference", fontsize=10)
fig.tight_layout()
save_figure(fig, "05_bias_by_reference");
share_ref.set_index("reference")[["n", "mean_error", "mean_abs_error", "share_over", "share_under", "share_exact"]].round(3)

# %%
ends = em.end_bias_against_null(table, n_boot=REPS, seed=4, clusters=lineage)
print(ends.round(3).to_string(index=False))
NULL_METHOD = (f"{ends.attrs['method']}; clipped-noise null: clip(round(reference + e), 0, 10), e ~ Normal(0, sigma^2), sigma "
               "refitted to the mean absolute error in every resample (or leave-one-out)")
e0, eh = ends.set_index("reference_bin").loc["0"], ends.set_index("reference_bin").loc["7-10"]
b0 = {"mean": e0.observed, "lo": e0.lo, "hi": e0.hi}
bh = {"mean": eh.observed, "lo": eh.lo, "hi": eh.hi}
for key, row, what in [("bias_ref_0", e0, "0"), ("bias_ref_7_10", eh, "7-10")]:
    record_headline(NB, f"signed bias (rating - reference) where the reference is {what}", SRC,
                    round(float(row.observed), 3), (row.lo, row.hi), n=int(ends.attrs["n_units"]), key=key,
                    method=ends.attrs["method"], n_unit=f"{LINEAGE_UNITS[:-1]}; {int(row.n):,} ratings)")
record_headline(NB, "share of the end bias at reference 0 that the clipped-noise null gives (mechanical)", SRC,
                round(float(e0.mechanical_share), 3), (e0.share_lo, e0.share_hi), n=int(ends.attrs["n_units"]),
                key="mechanical_share_ref_0", method=NULL_METHOD, n_unit=LINEAGE_UNITS)
from eqbench_nb.eqbench.study import metric

slope_null = metric.compression_null_slope(table, reps=REPS, seed=0, lineages=lineage)  # as in notebook 06
key_excluded = slope_null.ratio.high < slope_null.key_floor.ratio
verdict = em.compression_verdict(ends, key_error_excluded=key_excluded)
compressed = verdict in ("compressed", "compressed or key error")
mech = [e0.mechanical_share, eh.mechanical_share]
show_markdown(
    f"Where the reference is 0, models rate the emotion **{e0.observed:+.2f}** [{e0.lo:+.2f}, {e0.hi:+.2f}] on "
    f"average; where it is 7–10, **{eh.observed:+.2f}** [{eh.lo:+.2f}, {eh.hi:+.2f}]. Clipped noise of the observed "
    f"size (noise SD {ends.attrs['sigma']:.2f}, mean absolute error {ends.attrs['mae']:.2f}; it gives "
    f"{noise_null.exact_share():.1%} exactly right ratings against {exact:.1%} observed, a weak check, since its share "
    f"barely moves with its noise size: notebook 06) "
    f"gives {e0.null:+.2f} [{e0.null_lo:+.2f}, {e0.null_hi:+.2f}] and {eh.null:+.2f} [{eh.null_lo:+.2f}, "
    f"{eh.null_hi:+.2f}] with no compression at all. Beyond that null the models are {e0.excess:+.2f} "
    f"[{e0.excess_lo:+.2f}, {e0.excess_hi:+.2f}] at 0 and {eh.excess:+.2f} [{eh.excess_lo:+.2f}, {eh.excess_hi:+.2f}] "
    f"at 7–10. "
    + {"compressed": "Both ends go beyond the clipped-noise null, so relative to the key the ratings are **compressed "
                     "toward the middle** beyond what clipping produces. The null takes the key for the truth; "
                     "independent errors in the key cannot explain it either (they cannot bring the slope ratio of "
                     f"notebook 06 below {slope_null.key_floor.ratio:.2f}; observed {slope_null.ratio.estimate:.2f} "
                     f"[{slope_null.ratio.low:.2f}, {slope_null.ratio.high:.2f}]), but a key whose own ratings are more "
                     "extreme than the truth would, and these data cannot tell that from models that compress; ",
       "compressed or key error": "Both ends go beyond the clipped-noise null, but the null takes the key for the "
                                  "truth, and independent errors in the key could produce the same pattern: "
                                  "compression and key error cannot be told apart here, ",
       "one end": "Only one end goes beyond the clipped-noise null, so compression toward the middle is not "
                  "established beyond what clipping produces, ",
       "mechanical": "Neither end goes beyond the clipped-noise null: the end biases are what clipping of noise of "
                     "this size produces, and compression is not established, "}[verdict]
    + f"but **{min(mech):.0%}–{max(mech):.0%} of the end biases is mechanical** (null / observed: "
    f"{e0.mechanical_share:.0%} [{e0.share_lo:.0%}, {e0.share_hi:.0%}] at 0, {eh.mechanical_share:.0%} "
    f"[{eh.share_lo:.0%}, {eh.share_hi:.0%}] at 7–10; intervals with {n_lineages} lineages and {n_questions} "
    "questions as the units, the null's noise size refitted each time)."
)

# %% [markdown]
# ### Family × reference intensity

# %%
fam_order = ci_family.sort_values("mean", ascending=False)["family"].tolist()
bins = [b[2] for b in em.REFERENCE_BINS]
signed = em.mean_matrix(table, "family", "reference_bin", "error", fam_order, bins)
absm = em.mean_matrix(table, "family", "reference_bin", "abs_error", fam_order, bins)
models_in_cell = table.groupby(["family", "reference_bin"], observed=True)["model"].nunique().unstack()
hw_signed = em.model_t_halfwidth(table, "family", "reference_bin", "error")
hw_abs = em.model_t_halfwidth(table, "family", "reference_bin", "abs_error")
null_by_bin = ends.set_index("reference_bin")["null"]  # section 4's clipped-noise null, all families pooled
fig, axes = plt.subplots(1, 2, figsize=(14, 7))
plots.plot_heatmap(axes[0], signed, cbar_label="mean rating - reference", cmap="RdBu_r", center=0,
                   half_width=hw_signed, counts=models_in_cell, count_unit=" models",
                   column_notes=[f"clipping null {null_by_bin[b]:+.2f}" for b in bins])
axes[0].set_title("Signed error (± 95 % t half-width over the models in the cell; under each bin:\nwhat clipped noise alone gives, "
                  "no compression)", fontsize=9)
plots.plot_heatmap(axes[1], absm, cbar_label="mean |rating - reference|", cmap="viridis",
                   half_width=hw_abs, counts=models_in_cell, count_unit=" models")
axes[1].set_title("Absolute error (± 95 % t half-width over the models in the cell)", fontsize=9)
for ax in axes:
    ax.set_xlabel("reference intensity")
fig.tight_layout()
save_figure(fig, "05_heatmap_family_reference");

# %% [markdown]
# ## 5. The hardest questions
# Questions ranked by their mean score over the 86 models (10 = perfect). The prompts are not shown (they
# are upstream text the project does not copy); the emotions, the reference key and the models' mean rating are.

# %%
hard = em.hardest_questions(table, k=10)
hard[["question_id", "n_models", "mean_score", "sd_score", "mean_abs_error", "reference", "mean_answer"]].round(2)

# %%
per_emotion = (table[table.question_id.isin(hard.question_id)]
               .groupby(["question_id", "emotion"]).agg(reference=("reference", "first"), mean_answer=("answer", "mean"))
               .reset_index().assign(gap=lambda d: d.mean_answer - d.reference))
zero_seen = per_emotion[(per_emotion.reference == 0)].nlargest(3, "gap")
strong_missed = per_emotion[(per_emotion.reference >= 7)].nsmallest(3, "gap")
def listing(df):
    return ", ".join(f"*{r.emotion}* (question {r.question_id}: key {r.reference:.0f}, models {r.mean_answer:.1f})"
                     for r in df.itertuples())
show_markdown(
    f"In the {len(hard)} hardest questions, the largest disagreements are emotions the key rates 0 that models rate "
    f"high — {listing(zero_seen)} — and emotions the key rates strong that models rate low — {listing(strong_missed)}. "
    "Whether the model or the key is \"wrong\" there cannot be settled from these data: each reference is one "
    "author's judgement."
)

# %% [markdown]
# ## 6. Strong against weak models
# Models are split into thirds by their official v2 score (recomputed from the answers; it matches `score_run`
# to within rounding). For each family: the mean penalty f(d) of the bottom third minus that of the top third
# (the *gap*), and the gap's *excess* over the gap on all ratings together. Weak models err more everywhere, so a
# family *separates* weak from strong models more than the rest only where its excess is above 0.
#
# Intervals take the lineages and, independently, the questions as the units (the same questions for both thirds;
# a lineage leaves with all its runs, in whichever third they are). With 14 families, 14 intervals at 95 % each would
# miss somewhere far more often than one in twenty, so each interval is **Bonferroni-adjusted** (each at level
# 1 − α/14 with α = 0.05, so that together they hold at 95 %); a bootstrap would need more resamples for those far
# tails (4,000 are asked for, used only from 30 lineages on).

# %%
scores = em.model_scores(table)
check = {r.model: score_run(r).score for r in runs}
print(f"model scores from the table vs score_run: max difference {max(abs(scores[m] - check[m]) for m in scores.index):.4f}")
groups = em.tercile_groups(scores)
print(scores.groupby(groups).agg(["count", "min", "max"]).round(2))
sep_family = em.two_way_group_difference(table, groups, by="family", value="penalty", n_boot=4000, seed=5,
                                         simultaneous=True, clusters=lineage)
overall_gap = sep_family.attrs["overall_diff"]
sep_family.round(3)

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 5.2), sharey=True)
fam = sep_family.sort_values("diff").assign(label=lambda d: d.family + " (" + d.n_questions.astype(str) + " q)")
plots.plot_means(ax1, fam.rename(columns={"diff": "mean"}), "label", sort=False, color=plots.OKABE_ITO[1],
                 xlabel="mean penalty: bottom third - top third")
ax1.invert_yaxis()
ax1.axvline(overall_gap, color="0.4", ls="--", lw=1, label=f"gap over all ratings: {overall_gap:.2f}")
ax1.axvline(0, color="0.7", lw=0.8)
ax1.legend(fontsize=8, loc="upper right", frameon=False)
ax1.set_title("Gap between weak and strong models", fontsize=10)
excess = fam[["label", "excess", "excess_lo", "excess_hi"]].set_axis(["label", "mean", "lo", "hi"], axis=1)
plots.plot_means(ax2, excess, "label",
                 sort=False, color=plots.OKABE_ITO[0], xlabel="gap minus the gap over all ratings")
ax2.invert_yaxis()
ax2.axvline(0, color="0.4", ls="--", lw=1)
ax2.set_title("Excess over the gap on all ratings", fontsize=10)
fig.suptitle(f"Which families separate the bottom third from the top third of models? Simultaneous 95 % intervals "
             f"(Bonferroni, {len(fam)} families; lineages and questions as units)", fontsize=9)
fig.tight_layout()
save_figure(fig, "05_separation_by_family");

# %%
lvl = float(sep_family.interval_level.iloc[0])
above_names, below_names = em.separating_categories(sep_family)   # null: every family carries the overall gap
above = sep_family[sep_family.family.isin(above_names)]
below = sep_family[sep_family.family.isin(below_names)]
top_fam = sep_family.iloc[0]
n_thirds = int(groups.isin(["top", "bottom"]).sum())
THIRDS_UNITS = (f"lineages ({n_thirds} runs in the bottom and top thirds; the {n_questions} questions are units as "
                "well)")
record_headline(NB, "family gaps (bottom minus top third, mean penalty) above the gap on all ratings, jointly at 95 %",
                SRC, ", ".join(above.family) if len(above) else "none", n=int(top_fam.n_units),
                key="families_separating", n_unit=THIRDS_UNITS)
record_headline(NB, f"largest family gap, bottom minus top third, mean penalty ({top_fam.family})", SRC,
                round(float(top_fam["diff"]), 3), (top_fam.lo, top_fam.hi), n=int(top_fam.n_units),
                key="largest_family_gap", method=f"{top_fam.method}; Bonferroni over {len(sep_family)} families "
                f"(each interval at {lvl:.2%}, jointly 95 %)", n_unit=THIRDS_UNITS)
show_markdown(
    "The thirds are defined by the score, and the score is 10 minus these very penalties, so the bottom third "
    "has the larger penalty overall by construction; that it does so family by family is expected and is not a "
    "finding (a count of such families is circular and is not shown). The null that can fail is that every family "
    f"carries the overall gap of {overall_gap:.2f}: the *excess* over it. The largest gaps are "
    f"{', '.join(f'{r.family} {r.diff:.2f} [{r.lo:.2f}, {r.hi:.2f}]' for r in sep_family.head(3).itertuples())}. "
    + (f"Only {', '.join(above.family)} separate{'s' if len(above) == 1 else ''} weak from strong models more than the "
       "rest, with every family's interval adjusted for the other comparisons. " if len(above) else
       f"**No family's excess over that overall gap is above 0 once lineages and questions are the units and the {len(sep_family)} "
       f"comparisons are corrected for** (largest: {top_fam.family}, excess {top_fam.excess:+.2f} "
       f"[{top_fam.excess_lo:+.2f}, {top_fam.excess_hi:+.2f}]): the ordering of families by gap is not robust. ")
    + (f"{', '.join(below.family)} separate{'s' if len(below) == 1 else ''} less than the rest." if len(below) else "")
)

# %% [markdown]
# By word (used in at least 3 questions), the same gap, with two-way intervals (95 % each, uncorrected for the
# number of words) and shrunken toward the mean gap by empirical Bayes, for the same winner's-curse reason as in §3:

# %%
sep_word = em.two_way_group_difference(table, groups, by="emotion", value="penalty", min_questions=3, n_boot=REPS,
                                       clusters=lineage, seed=6)
eb_gap = stats.empirical_bayes_shrink(sep_word["diff"], sep_word["se"])
sep_word = pd.concat([sep_word, eb_gap[["shrunk", "shrunk_low", "shrunk_high"]]], axis=1)
ties = np.ptp(sep_word["shrunk"]) < 1e-9  # a between-word SD of 0 shrinks every word to the grand mean
sort_by = "diff" if ties else "shrunk"  # with all shrunken values tied, their order would be sort order, not data
sep_word = sep_word.merge(families[["emotion", "family"]], on="emotion").sort_values(sort_by, ascending=False)
wcols = ["emotion", "family", "n_questions", "mean_top", "mean_bottom", "diff", "lo", "hi", "shrunk"]
kind = "raw, no ranking supported" if ties else "shrunken"
pd.concat({f"largest gap ({kind})": sep_word.head(10)[wcols].reset_index(drop=True),
           f"smallest gap ({kind})": sep_word.tail(5)[wcols].reset_index(drop=True)}).round(2)

# %%
show_markdown(
    f"Word-level gaps are noisy: their between-word spread is estimated at a standard deviation of "
    f"{np.sqrt(eb_gap.attrs['tau2']):.2f} around a mean of {eb_gap.attrs['mu']:.2f}, against a median standard error "
    f"of {sep_word.se.median():.2f} per word. "
    + (
        f"With a between-word SD estimated at 0, every word shrinks to the grand mean ({eb_gap.attrs['mu']:.2f}): the "
        "shrunken gaps are exact ties, so **no word ranking is supported** by these data; the table above lists the "
        "raw gaps, largest and smallest, for reference only, and their order is noise as far as these intervals "
        "can tell."
        if ties
        else "After shrinkage the largest gaps are "
        f"{', '.join(f'{r.emotion} ({r.family}, {r.n_questions} q) {r.shrunk:.2f}' for r in sep_word.head(3).itertuples())}."
    )
)

# %%
print("families by ratio bottom/top:")
print(sep_family.sort_values("ratio", ascending=False)[["family", "mean_top", "mean_bottom", "ratio"]].round(2).to_string(index=False))

# %% [markdown]
# ### Model × family
# Mean penalty by family for models grouped into bands of their official v2 score (rows, best band at the top;
# the number of models in each band in its label), families ordered hardest first. The colour scale spans every
# cell (nothing clipped) on a log scale, so the weakest band's large penalties do not flatten the other rows;
# cells resting on fewer than 200 ratings show their count. The per-model table is printed below the figure.

# %%
band_edges = [-np.inf, 50, 60, 65, 70, 75, 80, np.inf]
band = pd.cut(scores, band_edges, right=False)
band_label = {iv: (f"below {iv.right:g}" if not np.isfinite(iv.left) else f"{iv.left:g} and above"
                   if not np.isfinite(iv.right) else f"{iv.left:g}–{iv.right:g}") for iv in band.cat.categories}
band_names = band.map(lambda iv: f"{band_label[iv]} ({(band == iv).sum()} models)").astype(str)
tb = table.assign(band=table.model.map(band_names))
row_order = [n for n in band_names.loc[scores.sort_values(ascending=False).index].unique()]
mf_band = em.mean_matrix(tb, "band", "family", "penalty", index_order=row_order, column_order=fam_order)
n_band = tb.pivot_table(index="band", columns="family", values="penalty", aggfunc="count")
hw_band = em.model_t_halfwidth(tb, "band", "family", "penalty")
fig, ax = plt.subplots(figsize=(14, 6.2))
plots.plot_heatmap_counts(ax, mf_band, n_band, cbar_label="mean penalty f(d) per rating", cmap="viridis", sparse=200,
                          half_width=hw_band)
ax.set_ylabel("official v2 score band")
ax.set_title("Mean penalty by score band and emotion family (best band at the top, hardest family on the left);\n"
             "± 95 % t half-width over the band's models", fontsize=10)
fig.tight_layout()
save_figure(fig, "05_heatmap_model_family", caveats=[
    f"bands hold {int(band.value_counts().min())} to {int(band.value_counts().max())} models; the ± is a Student t "
    "interval over the band's models with the questions held fixed, so it leaves out question sampling",
    "the bands are cut from the same penalties (the score), so weaker bands err more by construction"]);
mf = em.mean_matrix(table, "model", "family", "penalty", index_order=scores.index, column_order=fam_order)
mf.index = [f"{plots.short_name(m, 34)} ({scores[m]:.1f})" for m in mf.index]
mf.round(2)

# %% [markdown]
# ## What this shows

# %%
show_markdown(
    f"- Across {n_models} published runs a rating is off by {overall['mean']:.2f} [{overall['lo']:.2f}, "
    f"{overall['hi']:.2f}] points on average ({n_lineages} lineages and {n_questions} questions as the units); "
    f"{exact:.0%} of ratings are exact.\n"
    + ("- Relative to the key, the ratings are compressed toward the middle beyond the clipped-noise null (models that "
       "compress, or a key more extreme than the truth: these data cannot tell which): " if compressed else
       "- By reference intensity (not beyond the clipped-noise null at both ends): ")
    + f"emotions the reference rates 0 get {b0['mean']:+.2f} on "
    f"average, strong emotions (7–10) {bh['mean']:+.2f}; clipping alone would give {e0.null:+.2f} and {eh.null:+.2f}, "
    f"so about {np.mean(mech):.0%} of the end biases is mechanical. Among the hardest questions (§5) the largest "
    "disagreements are emotions the key calls absent that models rate high, and the reverse.\n"
    "- Weak models (bottom third by score) err more than strong ones overall by construction, since the score is "
    f"built from the same penalties; the largest family gaps are in {', '.join(sep_family.family.head(3))}, but "
    + (f"only {', '.join(above.family)} stand{'s' if len(above) == 1 else ''} above the gap over all ratings once "
       f"lineages and questions are the units and the {len(sep_family)} comparisons corrected for." if len(above) else
       "no family stands above the gap over all ratings once lineages and questions are the units and the "
       f"{len(sep_family)} comparisons corrected for: which families separate weak from strong models is not "
       "established by these data.") + "\n"
    f"- Word-level means carry much question-level noise: shrinkage moves a word used in 3–4 questions a median "
    f"{few.shrinkage.median():.0%} of the way to the mean of all words.\n"
    "- Caveats: families are our grouping; the reference key itself is one set of human judgements; the per-question "
    "scores stored in the results files are not used (§0)."
)
