# %% [markdown]
# # 08 — EQ-Bench as a test: reliability, items, the key, a short form, and general capability
#
# **The paper's claim** (arXiv 2312.06281): EQ-Bench "discriminates effectively" between models and gives "highly
# repeatable results"; it correlates strongly with general-capability benchmarks such as MMLU (notebook 04). The
# paper treats the score as a measurement but does not study the benchmark as a *test*: do its 171 questions
# measure one thing, which questions carry the measurement, is the reference key right, how few questions would
# do, and does the score say anything that MMLU does not?
#
# **Data used**
# - The **86 published v2 runs** (EQ-bench/EQ-Bench `results/eq-bench/*.json` @ d28c60c), rescored from their
#   answers. The runs are the test's *subjects* and the 171 questions its *items*. Each cell is the question score
#   of the pass the official convention uses for that run; an unparseable or missing answer counts **0** in the
#   reliability and item statistics (they need a complete matrix) and is left out elsewhere, as the official score
#   does.
# - `data/benchmarks_joined.csv` (EQ-Bench v2, Open LLM Leaderboard v1 MMLU, LMSys Arena Elo) and
#   `data/base_models.csv` (each model's lineage, the earliest pretrained weights it descends from, with its source:
#   a model card or a stated name rule).
#
# **Intervals.** Each interval says what it resamples. Statistics of the run sample (α, item–rest r, short forms) are
# 95 % percentile bootstraps over runs (2,000 resamples, seed 0). Correlations between benchmarks treat the
# **lineage** as the unit, since fine-tunes of one base are not independent: a percentile bootstrap over lineages
# from 30 lineages on, and below 30 the house small-n rule with the lineages as n (Fisher's z; a leave-one-lineage-out
# Student t for R²).

# %%
import matplotlib
import numpy as np
import pandas as pd

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from eqbench_nb import plots
from eqbench_nb.analysis import psychometrics as psy
from eqbench_nb.analysis import verdicts
from eqbench_nb.eqbench.questions import questions_by_id
from eqbench_nb.eqbench.study import published, ranking
from eqbench_nb.eqbench.study.key_audit import key_audit
from eqbench_nb.eqbench.study.table import published_runs, run_table
from eqbench_nb.report import MonteCarlo, figures_dir, record_headline, show_figure, show_markdown, stable_round

pd.set_option("display.width", 140, "display.max_colwidth", 60)
REPS, SEED, NB = 2000, 0, "08_psychometrics"
SRC = "86 published v2 results JSON (EQ-bench/EQ-Bench @ d28c60c), rescored, official pass"



runs = published_runs()
m_off = ranking.convention_matrix(runs, "official")   # runs x 171, NaN = unparseable or missing
Z = psy.complete_matrix(m_off)                          # the same with those cells = 0
score = 10 * m_off.mean(axis=1)                         # official run score (NaN-ignoring mean)
qids = m_off.columns.to_numpy()
top_half = np.argsort(-score.to_numpy(), kind="stable")[: len(score) // 2]
lineage = published.base_models().set_index("model")["lineage"]
run_lineage = np.array([lineage[r.model] for r in runs], dtype=object)   # the units of the run-level intervals
show_markdown(
    f"The {len(runs)} runs are not {len(runs)} independent models: they come from **{len(set(run_lineage))} "
    f"lineages** (`data/base_models.csv`), the top half from {len(set(run_lineage[top_half]))}. Statistics of the "
    "run sample (α, item–rest r) therefore take the lineages as their units: below 30 lineages a Student t interval "
    "whose standard error comes from leaving out one lineage at a time (the house small-n rule). The short-form "
    "validation and the ceiling count below still resample runs and say so."
)
print(f"{Z.shape[0]} runs x {Z.shape[1]} questions; {int(m_off.isna().to_numpy().sum())} cells unparseable or "
      f"missing (counted 0 here); top half = {len(top_half)} runs scoring {score.iloc[top_half].min():.1f}–"
      f"{score.iloc[top_half].max():.1f}")

# %% [markdown]
# ## 1. Internal consistency
#
# **Cronbach's α** = k/(k−1) · (1 − Σ var(item) / var(total)) with the runs as subjects: the share of the variance
# of total scores that the questions hold in common. **Split-half reliability**: the questions are split into two
# halves, the two half-scores correlated across runs, and the correlation stepped up to full length with the
# Spearman–Brown formula 2r / (1 + r); shown for the odd–even split and as the mean over 200 random splits.
#
# α depends on how different the subjects are: a benchmark can rank a 1.6B model below GPT-4 with near certainty
# (high α over all runs) yet not order strong models among themselves. So everything is computed over all 86 runs
# and over the top half (the runs with the highest official scores).

# %%
rel_rows = []
for name, rows in [("all runs", np.arange(len(Z))), ("top half", top_half)]:
    a = psy.cronbach_alpha_interval(Z[rows], reps=REPS, seed=SEED, clusters=run_lineage[rows])
    sh = psy.split_half(Z[rows], splits=200, reps=REPS, seed=SEED)
    rel_rows.append({"runs": name, "n": len(rows), "lineages": a.n, "method": a.method, "alpha": a.estimate, "alpha_low": a.low, "alpha_high": a.high,
                     "split_half_odd_even": sh["odd_even"], "split_half_random": sh["random"],
                     "split_half_low": sh["low"], "split_half_high": sh["high"]})
rel = pd.DataFrame(rel_rows).set_index("runs")
a_all, a_top = rel.loc["all runs"], rel.loc["top half"]
run_mean_filled = m_off.to_numpy()  # the other way to fill an unparseable answer: the run's own mean
run_mean_filled = np.where(np.isnan(run_mean_filled), np.nanmean(run_mean_filled, axis=1, keepdims=True),
                           run_mean_filled)  # fmt: skip
a_top_mean = psy.cronbach_alpha(run_mean_filled[top_half])
STANDARD = 0.9  # the usual standard for a high-stakes score
top_vs_standard = verdicts.interval_verdict(a_top.alpha_low, a_top.alpha_high, null=STANDARD)
show_markdown(
    f"Over all {a_all.n:.0f} runs **α = {a_all.alpha:.3f}** (95 % interval {a_all.alpha_low:.3f}–"
    f"{a_all.alpha_high:.3f}, {a_all.lineages:.0f} lineages as the units); over the top half **α = {a_top.alpha:.3f}** "
    f"({a_top.alpha_low:.3f}–{a_top.alpha_high:.3f}, {a_top.lineages:.0f} lineages), or {a_top_mean:.3f} when an unparseable answer takes the run's "
    f"own mean instead of 0. Split-half reliability agrees (random splits: "
    f"{a_all.split_half_random:.3f} and {a_top.split_half_random:.3f}). Against the usual standard for a high-stakes "
    f"score ({STANDARD:g}): over all runs α clears it; "
    + {"above": "the top half's interval lies above it too. ",
       "below": "the top half's interval lies below it: among the stronger half the questions agree less, so fine "
                "distinctions near the top rest on fewer effective items. ",
       "inconclusive": f"the top half's interval runs from below it to above it, and the point estimate falls on "
                       f"either side depending on how unparseable answers are scored ({a_top.alpha:.3f} or "
                       f"{a_top_mean:.3f}): {len(top_half)} runs cannot settle whether the top half reaches it. "}[
        top_vs_standard]
    + f"The drop from {a_all.alpha:.2f} to {a_top.alpha:.2f} is what the narrower range of the top half does to α: much "
    "of the agreement over all runs comes from separating weak models from strong ones. α is consistency, not accuracy: it says the questions "
    "measure *something* in common, not that it is emotional intelligence."
)
rel.round(3)

# %% [markdown]
# ## 2. Item analysis
#
# - **Item–rest correlation**: each question's score against the sum of the other 170, across runs (unparseable =
#   0). A question that measures what the rest measure has a clearly positive r; near 0 it does not discriminate; a
#   negative r means strong runs do *worse* on it.
# - **Ceiling questions**: the mean score of the 10 best runs (official ranking; unparseable answers left out of the
#   mean) is at least 9 — about one point off per emotion or better. Such a question cannot order strong models.
# - The same item–rest r over the top half says whether a question still discriminates among strong runs.

# %%
items = psy.item_rest_intervals(Z, reps=REPS, seed=SEED, clusters=run_lineage)
items["question_id"] = qids
items["item_rest_top_half"] = psy.item_rest_correlations(Z[top_half])
ceiling_mask, ceiling = psy.ceiling_questions(m_off.to_numpy(), score.to_numpy(), top=10, threshold=9.0,
                                              reps=REPS, seed=SEED, interval="percentile")  # named: 10 runs
best10 = np.argsort(-score.to_numpy(), kind="stable")[:10]
items["top10_mean"] = np.nanmean(m_off.to_numpy()[best10], axis=0)
ceiling_zero = int((Z[best10].mean(axis=0) >= 9).sum())   # the same count with unparseable answers as 0
items["ceiling"] = ceiling_mask
items["weak"] = items.low <= 0          # interval of item-rest r reaches 0: no clear discrimination
items["backwards"] = items.r < 0
worst = items.loc[items.r.idxmin()]
n_weak_top = int((items.item_rest_top_half <= 0).sum())
show_markdown(
    f"Item–rest correlations run from **{worst.r:.3f}** (question {worst.question_id}; 95 % interval "
    f"{worst.low:.2f}–{worst.high:.2f}, lineages as the units) to {items.r.max():.2f}, median {items.r.median():.2f}. "
    f"{int(items.backwards.sum())} of them discriminate{'s' if items.backwards.sum() == 1 else ''} backwards "
    f"(r < 0) and {int(items.weak.sum())} have an interval reaching 0. Among the top half, {n_weak_top} questions have item–rest r ≤ 0. "
    f"**{ceiling.estimate:.0f} of {len(items)} questions are at the ceiling** (the 10 best runs average ≥ 9; "
    f"{ceiling.low:.0f}–{ceiling.high:.0f} when the 10 runs are resampled; {ceiling_zero} if their unparseable "
    f"answers count 0)."
)

# %% [markdown]
# **Do ceiling questions still rank the strong runs?** A question near the ceiling for the 10 best runs could
# still separate the strong half. The 10 best runs chose these questions (a mean ≥ 9 there), so their variance
# *within those 10 runs* is small by construction and says nothing; every check below is on runs that did not
# choose them: the top half **without** the 10 best. Checks there: the ceiling questions' item–rest r against the
# others'; the share of the variance of those runs' total score that they carry, against their share of the items
# (the null: *a question carries its 1/k*; `psychometrics.variance_share`, runs resampled), with an unparseable
# answer scored 0 and, again, as the run's own mean.

# %%
held_out = np.setdiff1d(top_half, best10)  # the top half less the 10 runs that selected the ceiling questions
held_r = pd.Series(psy.item_rest_correlations(Z[held_out]), index=items.index)
ceil_share = psy.variance_share_interval(Z[held_out], ceiling_mask, reps=REPS, seed=SEED)
ceil_share_mean = psy.variance_share_interval(run_mean_filled[held_out], ceiling_mask, reps=REPS, seed=SEED)
item_share = float(ceiling_mask.mean())
ceil_verdict = psy.ceiling_verdict(ceil_share.low, ceil_share.high, item_share)
ceil_verdict_mean = psy.ceiling_verdict(ceil_share_mean.low, ceil_share_mean.high, item_share)
show_markdown(
    f"In the top half less the 10 best ({len(held_out)} runs, none of which chose the ceiling questions) the ceiling "
    f"questions have a median item–rest r of **{held_r[items.ceiling].median():.2f}** against "
    f"{held_r[~items.ceiling].median():.2f} for the others. They are {item_share:.0%} of the items and carry "
    f"**{ceil_share.estimate:.0%}** of these runs' score variance [{ceil_share.low:.0%}, {ceil_share.high:.0%}, runs "
    f"resampled as if independent; unparseable = 0]: {ceil_verdict}; with an unparseable answer as the run's own mean "
    f"{ceil_share_mean.estimate:.0%} [{ceil_share_mean.low:.0%}, {ceil_share_mean.high:.0%}]: {ceil_verdict_mean}. "
    "How they do among the 10 best runs themselves these data cannot say: those runs selected them."
)
items.sort_values("r")[["question_id", "r", "low", "high", "item_rest_top_half", "mean", "top10_mean",
                        "ceiling"]].head(8).round(3)

# %% [markdown]
# ## 3. An item-response model
#
# **Which model and why.** A two-parameter logistic (2PL) IRT model on a dichotomised question score:
# P(pass) = logistic(a_j (θ_i − b_j)), with a difficulty b_j and a discrimination a_j per question and an ability θ_i
# per run. A one-factor (linear) model was the alternative; it was not chosen because question scores are bounded
# and piled up at the ceiling (section 2), so a question's response to ability is far from linear — exactly what
# the logistic curve describes. A "pass" is a question score of at least 7.5 (near the middle of the observed
# scores: printed below); unparseable counts as a fail. Parameters are estimated
# jointly by maximum a posteriori with weak normal priors (`psychometrics.fit_2pl`, checked on simulated data in
# `tests/test_psychometrics.py`); with 86 subjects the estimates are noisy, so they are read as an ordering.

# %%
PASS = 7.5
passed = (Z >= PASS).astype(float)
irt = psy.fit_2pl(passed)
items["a"], items["b"], items["pass_rate"] = irt.a, irt.b, passed.mean(axis=0)
r_theta = float(np.corrcoef(irt.theta, score.to_numpy())[0, 1])
r_a = float(np.corrcoef(irt.a, items.r)[0, 1])
low_a = items.nsmallest(5, "a")
show_markdown(
    f"The median cell score is {np.median(Z):.2f}, so the cut at {PASS} splits the cells near the middle. "
    f"The fit {'converged' if irt.converged else 'did NOT converge'}; {passed.mean():.0%} of cells are passes. "
    f"Ability θ correlates r = {r_theta:.3f} with the official score and discrimination a correlates "
    f"r = {r_a:.2f} with the item–rest correlation"
    + (", so the 2PL and the classical statistics tell the same story. " if r_a >= 0.7 else
       ": the two agree only in part (the 2PL sees pass or fail at the cut, the item–rest r the whole score, "
       "including the large penalties of answers far off the key). ")
    + f"Discrimination ranges {irt.a.min():.2f}–{irt.a.max():.2f} (median {np.median(irt.a):.2f}); the least "
    f"discriminating questions are {', '.join(low_a.question_id.astype(str))}. Ceiling questions have low difficulty "
    f"(median b {items.b[items.ceiling].median():.2f} against {items.b[~items.ceiling].median():.2f} for the rest) "
    f"and discrimination a of {items.a[items.ceiling].median():.2f} against {items.a[~items.ceiling].median():.2f}: "
    "at the cut of the pass mark they are passed by most runs. That is a statement about the pass mark, not about "
    f"ranking the strong runs, where (section 2) they carry {ceil_share.estimate:.0%} of the variance of the top-half "
    "runs that did not select them."
)
items.sort_values("a")[["question_id", "a", "b", "pass_rate", "r", "ceiling"]].head(6).round(3)

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
plots.plot_item_map(ax1, items, "top10_mean", "r", flag="ceiling")
ax1.axvline(9, color="black", lw=0.8, ls=":")
ax1.axhline(0, color="0.5", lw=0.8)
ax1.set_xlabel("mean score of the 10 best runs")
ax1.set_ylabel("item–rest correlation (all runs)")
ax1.set_title(f"171 questions; orange: ceiling (10 best runs average ≥ 9), n = {int(items.ceiling.sum())}",
              fontsize=9)
plots.plot_item_map(ax2, items, "b", "a", flag="ceiling")
ax2.set_xlabel("2PL difficulty b (θ scale)")
ax2.set_ylabel("2PL discrimination a")
ax2.set_title(f"2PL on pass = score ≥ {PASS}; orange: ceiling questions", fontsize=9)
fig.tight_layout()
show_figure(fig, "08_item_analysis")

# %% [markdown]
# ## 4. A reference-key audit
#
# Each question's key is one author's judgement. A *candidate key error* is a question where the **strong runs**
# (the top quarter by official score) agree with each other but not with the key. Per question and emotion
# (`eqbench.study.key_audit`): the strong runs' median rating (the *consensus*); its gap from the reference; the
# strong runs' usual gap at that reference value (they rate an emotion keyed 0 above 0 everywhere, so that bias is
# subtracted, leaving the *excess*); and the share of strong runs that are at least 2 points off the key in the
# direction of the gap. An emotion is flagged when |excess| ≥ 3 and at least 75 % of strong runs agree. These are
# candidates for a human to read, not verdicts.
#
# The dialogues are upstream text and are not stored in this notebook's saved outputs: set `SHOW_DIALOGUES = True`
# in your own session to print them from your local question file.

# %%
SHOW_DIALOGUES = False
strong = score.nlargest(len(score) // 4).index
answers = run_table(runs)
cells, audit = key_audit(answers, strong)
questions = questions_by_id("v2")
flagged = audit[audit.flagged > 0]
show_markdown(
    f"Strong runs: the {len(strong)} best (official {score[strong].min():.1f}–{score[strong].max():.1f}). "
    f"**{len(flagged)} questions** have at least one flagged emotion ({int(cells.flagged.sum())} emotions). "
    + (f"On the top candidate, question {audit.question_id[0]}, the key gives *{audit.emotion[0]}* "
       f"{audit.reference[0]:g} while the strong runs' median is {audit.consensus[0]:g} ({audit.agree[0]:.0%} of them "
       f"at least 2 points off in that direction); the strong runs average {audit.strong_mean_score[0]:.2f} on this "
       f"question, and their consensus answer would score {audit.consensus_score[0]:.2f} against the key."
       if len(flagged) else "No question meets the criteria.")
)
audit.head(8).round(2)

# %%
TOP = 3
for qid in audit.question_id[:TOP]:
    q = questions[qid]
    c = cells[cells.question_id == qid].set_index("emotion").loc[list(q.emotions)]
    print(f"question {qid}: " + "; ".join(f"{e}: key {c.loc[e, 'reference']:g}, strong-run median "
                                         f"{c.loc[e, 'consensus']:g}" for e in q.emotions))
    if SHOW_DIALOGUES:
        print(q.prompt.split("Give each of these possible emotions")[0].strip(), "\n")
    else:
        print(f"  (dialogue: {q.prompt.count(chr(10))} lines in the local question file; SHOW_DIALOGUES = True "
              "prints it)\n")

# %%
fig, axes = plt.subplots(1, TOP, figsize=(4.2 * TOP, 3.2), sharex=True)
for ax, qid in zip(np.atleast_1d(axes), audit.question_id[:TOP]):
    q = questions[qid]
    c = cells[cells.question_id == qid].set_index("emotion").loc[list(q.emotions)].reset_index()
    plots.plot_key_candidate(ax, c, answers[(answers.question_id == qid) & answers.model.isin(strong)],
                             title=f"question {qid} ({len(strong)} strong runs)")
handles, leg_labels = np.atleast_1d(axes)[0].get_legend_handles_labels()
fig.tight_layout(rect=(0, 0.08, 1, 1))
fig.legend(handles, leg_labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
show_figure(fig, "08_key_audit")

# %% [markdown]
# ## 5. A validated short form
#
# A researcher paying per API call may want fewer questions. A short form of k questions is chosen on *training*
# runs and judged on *held-out* runs (5-fold cross-validation over runs, repeated 10 times): a line fitted on the
# training runs maps the short-form score to the full official score, and the held-out runs give the correlation
# and the RMSE (points) of that prediction. Three ways to choose: **greedy** forward selection (each step adds the
# question that most raises the training correlation with the full score; chosen beforehand as the main method),
# the highest **item–rest** correlations, and **random** questions (the baseline any selection must beat).
# Intervals: runs resampled (the same resample for every repeat's held-out predictions). The held-out run's full
# score includes the short-form questions themselves, as it would in use — so this first check cannot tell
# whether the form predicts *questions it does not contain*; the check after it does.
#
# **Like with like.** The RMSE is an SD of prediction errors, so it is set beside the full score's own
# **standard error** (an SD: a run's score over its 171 questions, questions as the sample, as in notebook 02),
# not beside the half-width of a 95 % interval.

# %%
CV_REPEATS = 60  # random partitions of the runs: enough for the headline's digits to be stable
sf = psy.short_form_cv(m_off.to_numpy(), ks=(20, 40, 60), methods=("greedy", "item_rest", "random"), folds=5,
                       repeats=CV_REPEATS, reps=REPS, seed=SEED)
g = sf[sf.method == "greedy"].set_index("k")
rnd = sf[sf.method == "random"].set_index("k")
full_se = float(np.median(psy.full_score_se(m_off.to_numpy())))
show_markdown(
    "Held-out accuracy of the greedy short form: "
    + "; ".join(f"k = {k}: r = {g.r[k]:.3f} [{g.r_low[k]:.3f}, {g.r_high[k]:.3f}], RMSE {g.rmse[k]:.2f} points "
                f"[{g.rmse_low[k]:.2f}, {g.rmse_high[k]:.2f}]" for k in g.index)
    + ". Random questions give "
    + "; ".join(f"RMSE {rnd.rmse[k]:.2f} at k = {k}" for k in rnd.index) + ". "
    + f"For scale, in the same unit (an SD): the full 171-question score of one run has a median standard error of "
    f"**{full_se:.2f}** points (questions as the sample); the 40-question form's held-out RMSE ({g.rmse[40]:.2f}) is "
    f"{'smaller than' if g.rmse_high[40] < full_se else 'larger than' if g.rmse_low[40] > full_se else 'about'} "
    "that."
    + (" Choosing by item–rest correlation does worse than random questions at every k tried (its RMSE interval lies "
       "above theirs; the null: no worse than random)." if
       (sf[sf.method == "item_rest"].set_index("k").rmse_low > rnd.rmse_high).all() else "")
)
sf[["method", "k", "r", "r_low", "r_high", "rmse", "rmse_low", "rmse_high", "raw_rmse"]].round(3)

# %% [markdown]
# ### On questions the form does not contain, with a prediction interval
#
# `psychometrics.short_form_validation`: each of 10 repeats splits the questions at random into a *pool* (half)
# and a *target* (the other half) and the runs into 5 folds. On the training runs only, k questions are chosen
# from the pool to predict the runs' score on the target questions, a line is fitted, and the SD of its
# prediction is cross-validated within the training runs (a greedy choice fits its own runs too well, so the
# line's residual SD would be too small). The held-out runs' target scores are then predicted with a 95 %
# prediction interval. No held-out run and no target question enters the choice, so this is cross-validation
# over runs **and** questions. The target score is itself a sample of questions; removing its own standard
# error from the RMSE gives the error against the score on all possible questions, which is what the full
# score's standard error is about too. The null a form must beat: a random form of the same k, and an interval
# that does not keep its stated coverage (`psychometrics.short_form_verdict`). The random splits make every number
# here a simulation: it is repeated more often than the first check, and each headline carries its Monte-Carlo
# error (the spread over repeats) and only the digits that error leaves stable. The interval of the error on new
# questions resamples the runs. The forms are chosen on the 86 runs of January 2024: the validation covers the
# selection procedure on models like those, not transfer to newer models near the ceiling.

# %%
VAL_REPEATS = 30  # each repeat a new random split of the questions and of the runs
val = psy.short_form_validation(m_off.to_numpy(), ks=(20, 40, 60), methods=("greedy", "random"), folds=5,
                                repeats=VAL_REPEATS, seed=SEED, reps=REPS)
val_use = psy.short_form_validation(m_off.to_numpy(), ks=(20, 40, 60), methods=("greedy",), folds=5, repeats=10,
                                    seed=SEED, split_questions=False)
vg, vr = val[val.method == "greedy"].set_index("k"), val[val.method == "random"].set_index("k")
vu = val_use.set_index("k")
sf_verdicts = {k: psy.short_form_verdict(vg.coverage[k], 0.95, m_off.shape[0], vg.rmse_universe[k],
                                         vr.rmse_universe[k]) for k in vg.index}
use_ok = {k: psy.interval_calibrated(vu.coverage[k], 0.95, m_off.shape[0]) for k in vu.index}
supported = [k for k in vg.index if sf_verdicts[k] == "supported" and use_ok[k]]
from eqbench_nb.eqbench.short_form import form_names

offered = form_names()  # data/short_forms.json, written by `python -m eqbench_nb.eqbench.study.short_forms` with this validation
assert offered == [f"short{k}" for k in supported], f"data/short_forms.json ({offered}) is out of date: rebuild it"
mc40 = MonteCarlo(VAL_REPEATS, float(vg.rmse_universe_mc_se[40]), float(vg.rmse_universe_repeat_low[40]),
                  float(vg.rmse_universe_repeat_high[40]))  # fmt: skip
SELECTION = ("the forms were chosen on the 86 published runs of January 2024: the validation covers the selection "
             "procedure on models like those, not transfer to newer models near the ceiling")
show_markdown(
    f"On questions not in the form, over {VAL_REPEATS} repeats, the greedy form's error against the score on all "
    "questions is "
    + "; ".join(f"k = {k}: **{stable_round(vg.rmse_universe[k], vg.rmse_universe_mc_se[k]):g}** (points; 95 % interval "
                f"{vg.rmse_universe_low[k]:.1f}–{vg.rmse_universe_high[k]:.1f}, runs resampled; Monte-Carlo SE "
                f"{vg.rmse_universe_mc_se[k]:.2f}, single repeats {vg.rmse_universe_repeat_low[k]:.1f}–"
                f"{vg.rmse_universe_repeat_high[k]:.1f}; random questions "
                f"{stable_round(vr.rmse_universe[k], vr.rmse_universe_mc_se[k]):g}), 95 % prediction interval "
                f"±{vg.pi_half_width[k]:.1f} covering {vg.coverage[k]:.1%} of held-out runs"
                for k in vg.index)
    + f". The full score's median SE is {full_se:.2f}: on new questions the 40-question form errs about as much as the "
    "full score's own question sampling does. A single repeat of this validation can land anywhere in the "
    "single-repeat ranges above, so a figure from a few repeats is not to be quoted to more digits than shown here. "
    f"Caveat: {SELECTION}. Predicting the full score as used (form questions included, "
    "runs cross-validated): "
    + "; ".join(f"k = {k}: RMSE {vu.rmse_target[k]:.2f}, interval ±{vu.pi_half_width[k]:.1f} covering "
                f"{vu.coverage[k]:.1%}" for k in vu.index)
    + ". Verdicts against the null (miscalibrated interval, or no better than random questions): "
    + "; ".join(f"k = {k}: {sf_verdicts[k]}" for k in vg.index) + ". "
    + (f"The supported forms are offered as `eqbench-nb run --form NAME` ({', '.join(offered)}): each asks only its "
       "questions and reports the predicted full score with its 95 % prediction interval. They are cheaper screens; "
       "the interval is wider than the full score's own uncertainty."
       if offered else "No short form survives, so none is offered as a run option.")
)
val.round(3)

# %%
forms = {k: qids[psy.select_short_form(m_off.to_numpy(), k, "greedy")] for k in (20, 40, 60)}
print("greedy short forms chosen on all 86 runs (question ids, in order of selection):")
for k, ids in forms.items():
    print(f"k = {k}: {', '.join(map(str, ids))}")

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
se_label = f"full score's median SE ({full_se:.2f})"
plots.plot_short_form(ax1, sf, "rmse", ylabel="error, points (an SD)", reference=full_se, reference_label=se_label)
plots.plot_short_form(ax2, val, "rmse_universe", ylabel="error, points (an SD)", reference=full_se,
                      reference_label=se_label)  # its rmse_universe_low/high: the runs resampled
ax1.set_title("RMSE on held-out runs, against the full score\n(which contains the form's questions)", fontsize=9)
ax2.set_title("Error on held-out runs and questions not in the form\n(against the score on all questions; "
              "95 % interval, runs resampled)", fontsize=9)
fig.tight_layout()
show_figure(fig, "08_short_form", caveats=[
    f"right panel: {VAL_REPEATS} random splits of the questions and runs; Monte-Carlo SE of each point up to "
    f"{val.rmse_universe_mc_se.max():.2f}", SELECTION])

# %% [markdown]
# ## 6. Is it just general capability?
#
# If EQ-Bench only re-measured general capability, it would tell nothing about human preference (Arena Elo) beyond
# what MMLU tells. Over the models in `benchmarks_joined.csv` with all three — EQ-Bench v2, MMLU from the Open LLM
# Leaderboard v1 (the harness numbers notebook 04 uses as its main MMLU) and Arena Elo — we compute the **partial
# correlation** of EQ-Bench v2 with Arena Elo controlling for MMLU, and the **incremental R²** of EQ-Bench over MMLU
# in predicting Arena Elo. Fine-tunes of one base model are not independent observations, so the unit of the
# interval is the **lineage** (`data/base_models.csv`: the earliest pretrained weights each model descends from).
# With fewer than 30 lineages that interval is the house's closed form with the lineages as n
# (`psychometrics.capability_control` chooses); the bootstrap over models, which counts every fine-tune as
# independent, is shown beside it for comparison.

# %%
b = published.benchmarks_joined()
b = b[published.is_ollb_mmlu(b["mmlu_source"])].merge(published.base_models()[["model", "lineage"]], on="model",
                                                      how="left")
cap_df = b.dropna(subset=["eqbench_v2", "arena_elo", "mmlu"])
assert cap_df.lineage.notna().all(), "every model of the analysis needs a lineage in data/base_models.csv"
cap = psy.capability_control(cap_df, "eqbench_v2", "arena_elo", "mmlu", cluster="lineage", reps=REPS, seed=SEED)
c = cap.set_index("statistic")
pr, inc = c.loc["partial_r"], c.loc["incremental_r2"]
verdict = psy.partial_r_verdict(pr.low, pr.high, pr.cluster_low, pr.cluster_high)  # null: partial r = 0
biggest = cap_df.lineage.value_counts()
show_markdown(
    f"The largest lineage, {biggest.index[0]}, holds {biggest.iloc[0]} of the models. "
    f"Over **{pr.n:.0f} models** in **{pr.n_clusters:.0f} lineages**, EQ-Bench v2 correlates r = "
    f"{c.loc['r', 'estimate']:.2f} with Arena Elo. With MMLU held fixed the **partial r is {pr.estimate:.2f}** "
    f"(95 % interval {pr.cluster_low:.2f}–{pr.cluster_high:.2f} with the lineages as the units, "
    f"{pr.cluster_method.replace('clusters', 'lineages')}; {pr.low:.2f}–{pr.high:.2f} with models resampled as if "
    f"independent), and EQ-Bench adds **ΔR² = {inc.estimate:.3f}** (up to {inc.cluster_high:.3f}) to the "
    f"R² = {c.loc['r2_control_only', 'estimate']:.2f} of MMLU alone; ΔR² cannot fall below 0, so only the partial r's "
    "interval can speak to whether EQ-Bench adds anything. "
    + {"both": "Both intervals of the partial correlation lie above 0: EQ-Bench carries some information about "
               "human preference that MMLU lacks, but little; most of what it shares with Arena Elo is general "
               "capability.",
       "one": "The evidence is borderline: one interval of the partial correlation lies above 0 and the other "
              "reaches it. EQ-Bench may carry a little information about human preference beyond MMLU; with this "
              "many models the data cannot settle it, and most of what it shares with Arena Elo is general "
              "capability.",
       "none": "Both intervals of the partial correlation reach 0: with this many models the data cannot show that "
               "EQ-Bench tells anything about Arena Elo beyond MMLU."}[verdict]
)
cap.round(3)

# %% [markdown]
# **How fragile is the lineage interval?** A bootstrap over few clusters of very unequal size is itself unstable: a
# resample that draws the largest lineage twice, or not at all, moves the estimate a lot. Two checks: the partial r
# with each lineage left out in turn (its range), and the whole analysis without the largest lineage.

# %%
loo = pd.Series({lin: psy.partial_correlation(*(cap_df.loc[cap_df.lineage != lin, c].to_numpy(float)
                                                for c in ("eqbench_v2", "arena_elo", "mmlu")))
                 for lin in cap_df.lineage.unique()})
cap_wo = psy.capability_control(cap_df[cap_df.lineage != biggest.index[0]], "eqbench_v2", "arena_elo", "mmlu",
                                cluster="lineage", reps=REPS, seed=SEED).set_index("statistic").loc["partial_r"]
show_markdown(
    f"The partial r is {pr.estimate:.2f} with {pr.n_clusters:.0f} lineages, the largest ({biggest.index[0]}) holding "
    f"{biggest.iloc[0]} of the {pr.n:.0f} models. Leaving out one lineage at a time moves it between "
    f"**{loo.min():.2f}** (without {loo.idxmin()}) and **{loo.max():.2f}** (without {loo.idxmax()}). Without the "
    f"largest lineage ({cap_wo.n:.0f} models, {cap_wo.n_clusters:.0f} lineages): {cap_wo.estimate:.2f}, lineages as "
    f"the units {cap_wo.cluster_low:.2f}–{cap_wo.cluster_high:.2f}, models as independent units {cap_wo.low:.2f}–{cap_wo.high:.2f}. "
    f"Both intervals of the full analysis are reported ({pr.cluster_low:.2f}–{pr.cluster_high:.2f} lineages, "
    f"{pr.low:.2f}–{pr.high:.2f} models); "
    "with this few clusters neither settles whether the partial correlation is above 0."
    if verdict != "both" else
    f"Leaving out one lineage at a time moves the partial r between {loo.min():.2f} and {loo.max():.2f}; without the "
    f"largest lineage it is {cap_wo.estimate:.2f} [{cap_wo.cluster_low:.2f}, {cap_wo.cluster_high:.2f}]."
)

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5), gridspec_kw={"width_ratios": [1, 1.2]})
plots.plot_control_forest(ax1, cap, labels={"r": "r(EQ-Bench v2, Arena)", "partial_r": "partial r | MMLU",
                                            "incremental_r2": "ΔR² of EQ-Bench over MMLU",
                                            "r2_control_only": "R²(Arena ~ MMLU)"})
ax1.set_title(f"EQ-Bench v2, Arena Elo, MMLU (OLLB v1): {pr.n:.0f} models in {pr.n_clusters:.0f} lineages", fontsize=9)
plots.plot_added_variable(ax2, cap_df.eqbench_v2, cap_df.arena_elo, cap_df.mmlu, labels=cap_df.model,
                          xlabel="EQ-Bench v2, residual after MMLU", ylabel="Arena Elo, residual after MMLU")
ax2.set_title(f"What is left after MMLU: r of the residuals = partial r = {pr.estimate:.2f}", fontsize=9)
fig.tight_layout()
show_figure(fig, "08_general_capability")

# %% [markdown]
# ## Headline numbers

# %%
record_headline(NB, "Cronbach's α, 86 runs x 171 questions (official pass, unparseable = 0)", SRC,
                round(float(a_all.alpha), 4), (a_all.alpha_low, a_all.alpha_high), n=int(a_all.lineages),
                key="cronbach_alpha_questions", method=a_all.method, n_unit=f"lineages ({a_all.n:.0f} runs)")
record_headline(NB, f"Cronbach's α over the {len(top_half)} runs with the highest official scores", SRC,
                round(float(a_top.alpha), 4), (a_top.alpha_low, a_top.alpha_high), n=int(a_top.lineages),
                key="cronbach_alpha_questions_top_half", method=a_top.method,
                n_unit=f"lineages ({a_top.n:.0f} runs)", caveats=[f"unparseable answers scored 0; as the run's own mean α is {a_top_mean:.3f}",
                                        f"the interval includes {STANDARD:g}: whether the top half reaches the usual "
                                        "high-stakes standard is not settled"] if top_vs_standard == "inconclusive"
                else [f"unparseable answers scored 0; as the run's own mean α is {a_top_mean:.3f}"])
record_headline(NB, f"partial Pearson r of EQ-Bench v2 with Arena Elo controlling for MMLU (OLLB v1), {pr.n:.0f} "
                f"models, lineages as the units; with models resampled {pr.low:.3f} to {pr.high:.3f}; fragile: the "
                f"largest lineage holds {biggest.iloc[0]} models; leaving one lineage out gives "
                f"{loo.min():.2f} to {loo.max():.2f}",
                "benchmarks_joined.csv; lineages: base_models.csv", round(float(pr.estimate), 4),
                (pr.cluster_low, pr.cluster_high), n=int(pr.n_clusters), key="partial_r_arena_given_mmlu",
                method=pr.cluster_method.replace("clusters", "lineages"), n_unit="lineages")
record_headline(NB, "partial Pearson r of EQ-Bench v2 with Arena Elo controlling for MMLU (OLLB v1), models resampled",
                "benchmarks_joined.csv", round(float(pr.estimate), 4), (pr.low, pr.high), n=int(pr.n),
                key="partial_r_arena_given_mmlu_models", method="percentile bootstrap over models, 2,000 resamples",
                n_unit="models")
record_headline(NB, f"incremental R² of EQ-Bench v2 over MMLU (OLLB v1) for Arena Elo, {inc.n:.0f} models",
                "benchmarks_joined.csv; lineages: base_models.csv", round(float(inc.estimate), 4),
                (inc.cluster_low, inc.cluster_high), n=int(inc.n_clusters), key="incremental_r2_eqbench_over_mmlu",
                method=inc.cluster_method.replace("clusters", "lineages"), n_unit="lineages",
                caveats=["ΔR² cannot fall below 0, so an interval above 0 is no evidence; the partial r's interval is"])
record_headline(NB, "questions whose mean score over the 10 best runs (official) is ≥ 9", SRC, int(ceiling.estimate),
                (ceiling.low, ceiling.high), n=len(items), key="ceiling_questions",
                method="percentile bootstrap over the 10 best runs, 2,000 resamples", n_unit="questions",
                caveats=["a percentile bootstrap over 10 runs, asked for by name: indicative only",
                         f"in the {len(held_out)} other top-half runs, which did not select them, the ceiling questions "
                         f"carry {ceil_share.estimate:.0%} of the score variance for {item_share:.0%} of the items "
                         f"({ceil_verdict})"])
record_headline(NB, f"lowest item–rest correlation (question {worst.question_id}; unparseable = 0)", SRC,
                round(float(worst.r), 4), (worst.low, worst.high), n=len(set(run_lineage)), key="item_rest_min",
                method=f"{items.attrs['method']}, of that question's item–rest r", n_unit=f"lineages ({Z.shape[0]} runs)")
cv_r_mc = MonteCarlo(CV_REPEATS, float(g.r_mc_se[40]), float("nan"), float("nan"))
cv_rmse_mc = MonteCarlo(CV_REPEATS, float(g.rmse_mc_se[40]), float("nan"), float("nan"))
record_headline(NB, "held-out r of a 40-question greedy short form with the full score", SRC,
                stable_round(g.r[40], cv_r_mc.se), (g.r_low[40], g.r_high[40]), n=int(g.n_runs[40]),
                key="short_form_40_r", mc=cv_r_mc, caveats=[SELECTION],
                method=f"5-fold cross-validation over runs x {CV_REPEATS} repeats; percentile bootstrap over runs, "
                "2,000 resamples", n_unit="runs")
record_headline(NB, "held-out RMSE (points) of a 40-question greedy short form", SRC,
                stable_round(g.rmse[40], cv_rmse_mc.se), (g.rmse_low[40], g.rmse_high[40]), n=int(g.n_runs[40]),
                key="short_form_40_rmse", mc=cv_rmse_mc, caveats=[SELECTION],
                method=f"5-fold cross-validation over runs x {CV_REPEATS} repeats; percentile bootstrap over runs, "
                "2,000 resamples", n_unit="runs")
record_headline(NB, "error (points, an SD) of the 40-question greedy short form on questions not in the form, against "
                f"the score on all questions (full score's median SE: {full_se:.2f}; random 40 questions: "
                f"{stable_round(vr.rmse_universe[40], vr.rmse_universe_mc_se[40]):g}); its 95 % prediction interval "
                f"covers {vg.coverage[40]:.1%} of held-out runs", SRC, stable_round(vg.rmse_universe[40], mc40.se),
                (vg.rmse_universe_low[40], vg.rmse_universe_high[40]), n=m_off.shape[0],
                key="short_form_40_error_new_questions", mc=mc40,
                caveats=[SELECTION, "one repeat of the validation alone could have shown any value in the single-repeat "
                         "range"],
                method=f"cross-validation over runs (5 folds) and questions (random halves) x {VAL_REPEATS} repeats; "
                "the target half's own SE removed; interval: percentile bootstrap over runs, 2,000 resamples",
                n_unit="runs")
pd.read_json(figures_dir() / "headlines" / f"{NB}.json")[["key", "value", "interval", "n", "n_unit"]]

# %% [markdown]
# ## What this means for a reader of the leaderboard

# %%
show_markdown("\n".join([
    f"- **The questions hang together** (α = {a_all.alpha:.3f} over all runs), so the total is a consistent score. "
    f"Among the stronger half α is {a_top.alpha:.3f} [{a_top.alpha_low:.3f}, {a_top.alpha_high:.3f}] "
    f"({a_top_mean:.3f} with unparseable answers as the run's mean): "
    + ("still high, so strong models are ordered by a coherent score, though with more noise; whether it reaches "
       f"{STANDARD:g} the data cannot settle."
       if a_top.alpha_high >= STANDARD else "markedly lower: the score orders strong models much less reliably."),
    f"- **{ceiling.estimate:.0f} of 171 questions are at the ceiling** for the 10 best runs "
    f"[{ceiling.low:.0f}, {ceiling.high:.0f}; 10 runs resampled, indicative only]; in the {len(held_out)} other "
    f"top-half runs, which did not select them, they carry {ceil_share.estimate:.0%} of the score variance for "
    f"{item_share:.0%} of the items ({ceil_verdict}). Among the 10 best runs themselves, which selected them, their "
    "share is small by construction and is not reported.",
    f"- **The weakest question** ({worst.question_id}) has item–rest r = {worst.r:.3f} "
    f"[{worst.low:.2f}, {worst.high:.2f}]"
    + (": its interval includes 0, so there is no evidence that it measures what the others measure"
       if worst.low < 0 else "")
    + (f", and the key audit flags it too (candidate {int(audit.index[audit.question_id == worst.question_id][0]) + 1} "
       "of the list)." if (flagged.question_id == worst.question_id).any() else "."),
    f"- **A 40-question short form** predicts the full score on held-out runs with r = {g.r[40]:.3f} and RMSE "
    f"{g.rmse[40]:.2f} points (the full score's own SE: {full_se:.2f}); on questions it does not contain its error is "
    f"about {stable_round(vg.rmse_universe[40], mc40.se):g} [{sf_verdicts[40]}], as large as the full score's own "
    f"question sampling — a cheaper screen, not a replacement for a leaderboard entry ({SELECTION}).",
    f"- **Beyond general capability**: partial r with Arena Elo given MMLU = {pr.estimate:.2f} "
    f"[{pr.cluster_low:.2f}, {pr.cluster_high:.2f}] ({pr.n:.0f} models in {pr.n_clusters:.0f} lineages, the lineages "
    f"as the units), ΔR² = {inc.estimate:.3f}: "
    + {"both": "a real but small contribution beyond MMLU.",
       "one": f"borderline (the model-resampled interval is {pr.low:.2f}–{pr.high:.2f}); at most a small "
              "contribution beyond MMLU.",
       "none": "not distinguishable from none with these models."}[verdict],
]))
