# %% [markdown]
# # How much does the judge decide?
#
# A benchmark judged by a model ranks what that judge prefers. Judgemark v2.1 (EQ-bench/Judgemark-v2, MIT) asked
# many judge models to score the same creative writing by the same writer models, and published each judge's
# per-writer statistics and final score: real multi-judge data. This notebook reads those files and asks:
# 1. does this project re-derive each judge's published Judgemark score from its published elements?
# 2. do the judges agree on which writers are better, and which judges stand apart?
# 3. does a judge reward length?
# 4. does a judge that is also one of the writers, or of the same family, score its own kind higher than the other
#    judges do?
# 5. what does an ensemble of k judges buy over one judge?
# 6. beside it, the EQ-Bench 3 judge's preference for a position (from notebook 10, not computed again here).
#
# The diagnostics are the generic ones of `eqbench_nb/analysis/judges.py` (over any table with a `judge` column);
# the Judgemark files are read by `eqbench_nb/judgemark_v2/` from `../shared/data/judgemark_v2` (or
# `EQBENCH_NB_DATA`, or a download of the pinned commit checked by sha256). `docs/judges.md` says what each
# diagnostic measures and how to read it.

# %%
import matplotlib

matplotlib.use("Agg")  # figures are shown inline below from their saved PNGs
# %matplotlib inline
import matplotlib.pyplot as plt
import pandas as pd

pd.set_option("display.width", 140)
pd.set_option("display.max_columns", 30)

# %%
from eqbench_nb.analysis import judges
from eqbench_nb.analysis.stats import DEFAULT_LEVEL, SMALL_N, correct_family, expected_false_exclusions
from eqbench_nb.judgemark_v2 import files, plots, published
from eqbench_nb.report import record_headline, show_figure, show_markdown

NOTEBOOK = "11_judges"
SOURCE = f"Judgemark v2.1 published results ({files.manifest()['repository']} @ {files.manifest()['commit'][:7]})"
show_markdown(f"Data: {SOURCE}: `results/scores.csv` and {len(files.stats_files())} stats files.")

# %% [markdown]
# ## 1. The published scores, re-derived
# Each judge's stats file holds its normalised elements (stability between iterations, correlation with the Arena
# ranking, and six measures of separability). Upstream's `core/benchmark.py` at the commit that wrote these files
# combines them; later commits changed the formula, so the commit is the one whose formula reads these fields and
# whose normalisation of the score range the stored element shows (`eqbench_nb/judgemark_v2/published.py` says how).

# %%
stats = published.load_stats()
scores = published.load_scores()
check = published.rederive(stats, scores)
check.table.round(4)

# %%
record_headline(
    NOTEBOOK,
    "Judgemark v2.1: judges whose published score equals, to two decimals, the weighted mean of the 8 stored, "
    f"already-normalised elements in their stats file ({published.FORMULA_COMMIT}'s formula; the elements are read, "
    "not recomputed)",
    SOURCE,
    check.matching,
    n=check.published,
    n_unit="judges with a published score",
    key="judgemark_scores_rederived",
)
missing = check.table[check.table["published"].notna() & ~check.table["matches"]]
unpublished = check.table[check.table["published"].isna()]
formula_rows = check.table["formula_7b9ed07"].dropna()
show_markdown(
    f"**{check.matching} of the {check.published} published scores re-derive** to two decimals from their stats "
    f"files, by the formula of `{published.FORMULA_COMMIT}` (the stored score-range element is the range over 0–8 "
    f"in {int(formula_rows.sum())} of the {len(formula_rows)} files with elements, which only that commit "
    f"used). {'The one that does not' if len(missing) == 1 else 'Those that do not'}: "
    f"{', '.join(missing['judge']) or 'none'}"
    f"{', whose file has no elements to re-derive from' if missing['stats_file'].map(lambda f: published.final_score(stats[f]) is None).all() else ''}. "
    f"{', '.join(unpublished['judge'])} is listed without a score (an unfinished run). Upstream stored the wrong "
    f"object as the EMD element (a dict of other components), so that element is re-read from "
    f"`separability_metrics.calibrated.emd.average` over 0–4."
)

# %% [markdown]
# That check re-weights the stored elements; it does not recompute them. Stability, the Arena correlation,
# Kruskal–Wallis and the interval overlap need the item scores, which are not published. Two separability elements
# can be recomputed from the per-writer statistics each file holds: the SD and the range of the judge's calibrated
# writer means (and from the range, its element: the range over 0–8).

# %%
spread_check = published.rederive_spread(stats)
record_headline(
    NOTEBOOK,
    "Judgemark v2.1: judges whose SD and range of calibrated writer means, and the range element, recompute from "
    "their per-writer statistics to the stored values (1e-9)",
    SOURCE,
    int(spread_check["matches"].sum()),
    n=len(spread_check),
    n_unit="judges with elements",
    key="judgemark_spread_elements_rederived",
)
show_markdown(
    f"Recomputed from the {int(spread_check['writers'].iloc[0])} calibrated writer means of each file, the SD and the "
    f"range match the stored values, and the range element its stored value, for **{int(spread_check['matches'].sum())} "
    f"of the {len(spread_check)} judges** with elements (largest gap "
    f"{(spread_check['sd_rederived'] - spread_check['sd_stored']).abs().max():.1e} for the SD, "
    f"{(spread_check['range_element_rederived'] - spread_check['range_element_stored']).abs().max():.1e} for the "
    "range element). The other six elements are taken as stored."
)

# %% [markdown]
# ## 2. Do the judges agree on the writers?
# Each judge's mean score of each writer is published. For two judges, the Spearman of their writer means says how
# alike they rank the writers. Every interval here rests on the writers: with fewer than the house's small-n
# threshold of writers, a bootstrap over them would be too narrow, so the Spearman intervals are Fisher's z with
# Bonett–Wright's standard error. Raw scores are used (what each judge said); judges use the scale differently,
# so the panel a judge is compared with is the mean of the other judges' standardised writer means.

# %%
writers = published.writer_stats(stats)
means = published.means_table(writers)
pairs = judges.rank_agreement(means)
matrix = means.corr(method="spearman")
fig, ax = plt.subplots(figsize=(10, 9))
plots.plot_rank_agreement(ax, matrix, len(means))
show_figure(fig, "11_rank_agreement")

# %%
rest = published.agreement_with_rest(means)
rest.round(3)

# %%
n_writers, n_judges = means.shape
median_pair = float(pairs["spearman"].median())
low_pair = pairs.loc[pairs["spearman"].idxmin()]
LEAST = 3  # the judges that agree least with the rest, described (not tested: see below)
least = rest.tail(LEAST)
scale_sd = means.std()  # each judge's SD of its writer means: how much of its scale it uses
others_sd = scale_sd.drop(least["judge"])
compressed = scale_sd[least["judge"]][lambda sd: sd < others_sd.min()].sort_values()
best, worst = rest.iloc[0], rest.iloc[-1]
score_of = {  # published Judgemark score by the judge's name in its stats file
    stats[r.stats_file]["judge_model"]: r.published for r in check.table.itertuples() if r.stats_file in stats
}
lowest_scored = sorted(score_of, key=lambda j: score_of[j])[:LEAST]
record_headline(
    NOTEBOOK,
    "Judgemark v2.1: median Spearman between two judges' rankings of the same writers (all pairs of judges)",
    SOURCE,
    round(median_pair, 3),
    n=len(pairs),
    n_unit=f"pairs of {n_judges} judges, each over {n_writers} writers",
    key="judgemark_judge_pair_spearman_median",
)
record_headline(
    NOTEBOOK,
    "Judgemark v2.1: lowest Spearman of one judge's writer ranking with the other judges' mean ranking",
    f"{SOURCE}; judge {worst['judge']}",
    round(float(worst["spearman"]), 3),
    (float(worst["low"]), float(worst["high"])),
    n=int(worst["n"]),
    method=str(worst["interval_method"]),
    n_unit="writers",
    key="judgemark_judge_vs_rest_spearman_lowest",
)
show_markdown(
    f"**{n_judges} judges × {n_writers} writers** (below the small-n threshold of {SMALL_N}). Over the "
    f"{len(pairs)} pairs of judges the median Spearman is **{median_pair:.3f}**; the lowest is {low_pair['spearman']:.3f} "
    f"({low_pair['judge_a']} with {low_pair['judge_b']}). Against the rest of the panel, {best['judge']} agrees most "
    f"(Spearman {best['spearman']:.3f}, {best['low']:.3f} to {best['high']:.3f}) and **{worst['judge']} least "
    f"({worst['spearman']:.3f}, {worst['low']:.3f} to {worst['high']:.3f})**. "
    + (
        f"The {LEAST} judges that agree least with the panel ({', '.join(least['judge'])}) "
        + (
            f"are the {LEAST} judges with the lowest published Judgemark scores "
            f"({', '.join(f'{score_of[j]:.2f}' for j in lowest_scored)})"
            if set(least["judge"]) == set(lowest_scored)
            else "are not all among the lowest-scoring judges"
        )
        + f". {len(compressed)} of them ({', '.join(compressed.index)}) use by far the most compressed scales: SDs of "
        f"writer means {', '.join(f'{v:.3f}' for v in compressed)}, against {others_sd.min():.2f} to "
        f"{others_sd.max():.2f} for the other judges; a compressed scale ranks writers on small differences, which "
        "Judgemark also penalises. This is a description, "
        "not a test: the judge-against-rest correlations share the same writers, and comparing an interval with the "
        "median judge's point estimate from the same data is not a test that a judge ranks the writers differently."
    )
)

# %% [markdown]
# ## 3. Does a judge reward length?
# Each stats file gives, per writer, the correlation of the judge's score with the piece's length, within that
# writer's pieces (so a writer's quality does not enter). Its mean over writers is the judge's length bias: positive
# when the longer pieces of the same writer score higher. The interval is Student's t over the writers. "Within
# writer" pools the writer's prompts and iterations, so a prompt that draws longer pieces from every writer is not
# held fixed: prompt length is not controlled. Fourteen judges are fourteen tests, so the p-values are corrected as a
# family (Holm, `stats.correct_family`).

# %%
length = published.length_bias(writers)
fig, ax = plt.subplots(figsize=(7, 5))
plots.plot_intervals(ax, length, "length_correlation", "mean within-writer correlation of score with length")
ax.set_title("Length bias per judge (95 % Student t over writers)")
show_figure(fig, "11_length_bias")
length.round(3)

# %%
above = length[length["low"] > 0]
below = length[length["high"] < 0]
length_family = correct_family(length["p_value"], "holm", labels=length["judge"])
holm_above = length[length_family.reject & (length["length_correlation"] > 0)]
largest = length.iloc[length["length_correlation"].abs().argmax()]
record_headline(
    NOTEBOOK,
    "Judgemark v2.1: judges whose mean within-writer correlation of score with length is above 0 after Holm's "
    "correction over the judges (one-sample t over writers)",
    SOURCE,
    len(holm_above),
    n=len(length),
    n_unit="judges",
    key="judgemark_length_bias_positive_judges",
    caveats=[length_family.text("judges"), "prompt length is not controlled: within writer pools prompts and iterations"],
)
show_markdown(
    f"The judges' length biases run from {length['length_correlation'].min():+.3f} to "
    f"{length['length_correlation'].max():+.3f} (largest in size: {largest['judge']}, "
    f"{largest['length_correlation']:+.3f}, {largest['low']:+.3f} to {largest['high']:+.3f}). "
    f"**{len(above)} of the {len(length)} judges** have an interval above 0 (a preference for longer pieces) and "
    f"{len(below)} below 0 ({', '.join(below['judge']) if len(below) else 'none'}: the longer pieces of a writer "
    f"score lower). {length_family.text('judges')} (adjusted p of those {len(below)}: "
    f"{', '.join(f'{p:.2f}' for p in length_family.adjusted[(length['high'] < 0).to_numpy()])}), so no judge's length "
    "bias is established. These correlations are within writers; a judge that prefers verbose writers would not show "
    "here, and prompt length is not held fixed."
)

# %% [markdown]
# ## 4. Does a judge prefer its own kind?
# Four judges are also writers: the same model judged its own pieces among the others. For each, per writer the
# judge's standardised mean minus the other judges' mean of theirs is its *gap*; its gap on its own pieces minus its
# mean gap on the other writers is its self-preference (its leniency on everyone cancels). With one own writer the
# interval is Student's t prediction interval for one new gap (the other writers give the spread). The same
# measure by family (the developer, from `data/model_families.csv`, each row with its source) uses every writer of
# the judge's family. The "other judges" are all the rest, same-family judges included (for the Claude Sonnet
# judge, the Claude Haiku judge is one of them): a preference that a family's judges share is partly subtracted.

# %%
family_table = published.families()
same = published.same_model(family_table)
self_map = {**{j: f"itself ({w})" for j, w in same.items()}, **{w: f"itself ({w})" for w in same.values()}}
z = published.standardised(means)
own = judges.self_preference_of_means(z, self_map)
fig, ax = plt.subplots(figsize=(7, 3))
plots.plot_intervals(ax, own, "self_preference", "own gap minus mean gap on other writers (judge SD units)")
ax.set_title("Self-preference of the four judges that are also writers")
show_figure(fig, "11_self_preference")
own[["judge", "own_models", "own_gap", "other_gap", "self_preference", "low", "high", "verdict"]].round(3)

# %%
by_family = judges.self_preference_of_means(z, judges.family_of(family_table[["model", "family", "source"]]))
by_family[["judge", "family", "own_models", "self_preference", "low", "high", "interval_method", "verdict"]].round(3)

# %%
favoured = own[own["verdict"] == "favours its own family"]
fam_favoured = by_family[by_family["verdict"] == "favours its own family"]
for r in own.itertuples():
    record_headline(
        NOTEBOOK,
        f"Judgemark v2.1: self-preference of {r.judge} on its own writing ({r.own_models}): its gap to the other "
        "judges on itself minus its mean gap on the other writers (standardised writer means)",
        SOURCE,
        round(float(r.self_preference), 3),
        (float(r.low), float(r.high)),
        n=n_writers,
        method=str(r.interval_method),
        n_unit="writers",
        key=f"judgemark_self_preference_{published.file_stem(str(r.judge)).lower()}",
    )
inconclusive = own["verdict"].str.startswith("not detected").all()
show_markdown(
    f"Of the {len(own)} judges that are also writers, **{len(favoured) or 'none'} "
    f"{'shows' if len(favoured) <= 1 else 'show'} a self-preference its interval can tell from 0**"
    + (f" ({', '.join(favoured['judge'])})" if len(favoured) else "")
    + ": "
    + "; ".join(f"{r.judge} {r.self_preference:+.2f} SD ({r.low:+.2f} to {r.high:+.2f})" for r in own.itertuples())
    + (
        f". With one own writer each the intervals are wide: {n_writers} writers cannot settle a preference of this "
        "size either way"
        if inconclusive
        else ""
    )
    + f". By family, {len(fam_favoured)} of {len(by_family)} judges have an interval above 0"
    + (f" ({', '.join(f'{r.judge}, {r.family}' for r in fam_favoured.itertuples())})" if len(fam_favoured) else "")
    + f"; with {len(by_family)} intervals at {DEFAULT_LEVEL * 100:.0f} % each, about "
    f"{expected_false_exclusions(len(by_family), DEFAULT_LEVEL):.1f} would "
    "exclude 0 by chance "
    "alone" + {1: ", so one such interval is not evidence of a family preference."}.get(len(fam_favoured), ".")
)

# %% [markdown]
# ## 5. What an ensemble of k judges buys
# Judgemark v2.1's ensemble scores an item by the mean of its judges' scores. Every judge scored the same items, so
# the mean of k judges' writer means is the k-judge ensemble's writer mean. Here each judge's writer means are
# standardised first, as in section 2, so every judge weighs alike (averaged raw, a judge weighs in proportion to the
# spread of its scale, and the spreads differ many-fold: the ratio is computed below) and k = 1 against the rest is
# section 2's Spearman. For every subset of k judges (all of them: nothing is sampled), the ranking of the writers by
# that mean is compared with the full panel's ranking (which contains the k judges) and, more fairly, with the ranking
# by the judges left out. That panel shrinks as k grows, and with one or two judges left out the curve measures them
# more than the k, so it is drawn only while at least three judges are left out. Only per-writer means are
# published, not the item scores, so a k-judge *Judgemark score* (its stability, separability and intervals need
# the items) cannot be recomputed from these files: only the ranking of the writers can.

# %%
curve = published.ensemble_curve(means)  # standardised writer means, as in section 2
raw_curve = published.ensemble_curve(means, standardise=False)
assert abs(curve.iloc[0]["rest_median"] - rest["spearman"].median()) < 1e-12  # one definition with section 2
fig, ax = plt.subplots(figsize=(7, 4.2))
plots.plot_ensemble(ax, curve)
show_figure(fig, "11_ensemble")
curve.round(4)

# %%
one, three = curve.iloc[0], curve[curve["k"] == 3].iloc[0]
record_headline(
    NOTEBOOK,
    "Judgemark v2.1: worst single judge's Spearman with the ranking of the writers by the other judges' mean",
    SOURCE,
    round(float(one["rest_lowest"]), 3),
    n=n_judges,
    n_unit="single judges (every one)",
    key="judgemark_ensemble_k1_worst_vs_rest",
)
record_headline(
    NOTEBOOK,
    "Judgemark v2.1: worst 3-judge ensemble's Spearman with the ranking by the judges left out",
    SOURCE,
    round(float(three["rest_lowest"]), 3),
    n=int(three["subsets"]),
    n_unit="subsets of 3 judges (every one)",
    key="judgemark_ensemble_k3_worst_vs_rest",
)
show_markdown(
    f"The judges' SDs of writer means differ {scale_sd.max() / scale_sd.min():.0f}-fold, so the ensembles average "
    f"standardised means (averaging raw means, the 3-judge median would be "
    f"{raw_curve[raw_curve['k'] == 3].iloc[0]['rest_median']:.3f} instead of {three['rest_median']:.3f}). "
    f"A single judge ranks the writers with a median Spearman of {one['rest_median']:.3f} against the judges left "
    f"out (section 2's judge-against-the-rest median), but the worst single judge only {one['rest_lowest']:.3f}: {one['full_below_0_9']:.0%} of single judges "
    f"fall below 0.9 against the full panel. With 3 judges the median is {three['rest_median']:.3f} and the worst "
    f"of the {int(three['subsets'])} subsets {three['rest_lowest']:.3f} ({three['full_below_0_9']:.1%} below 0.9 "
    "against the full panel)"
    + (
        ": averaging raises the worst case far more than the typical one, so what a small ensemble buys is insurance "
        "against drawing a judge that disagrees with the rest."
        if three["rest_lowest"] - one["rest_lowest"] > 2 * abs(three["rest_median"] - one["rest_median"])
        else "."
    )
)

# %% [markdown]
# ## 6. Beside it: the EQ-Bench 3 judge's position preference
# Judgemark scores each piece alone, so position cannot enter. EQ-Bench 3's pairwise judge reads two answers, and
# notebook 10 measured its preference for the answer read first, per kind of task; here its functions are called
# again on the same file, not re-implemented: the table and the counts are notebook 10's.

# %%
from eqbench_nb.eqbench3 import canonical, study

elo = canonical.read_canonical()
biases = study.position_bias_by_kind(study.position_effects(elo))
pd.DataFrame({k: vars(b) for k, b in biases.items()}).T.round(3)

# %%
rp, an = biases[study.ROLEPLAY_GROUP], biases[study.ANALYSIS_GROUP]
show_markdown(
    f"The EQ-Bench 3 judge gives the respondent read first {rp.effect:+.2f} pluses per judgement in the "
    f"{rp.n_scenarios} role-play and drafting scenarios ({rp.verdict}; {rp.a_both:,} pairs won by the first seat in "
    f"both orders against {rp.b_both:,}) and {an.effect:+.2f} in the {an.n_scenarios} analysis scenarios "
    f"({an.verdict}; {an.b_both:,} against {an.a_both:,}). Notebook 10 gives the intervals and their method; a "
    "judge that compares two answers can be decided by the seat, which a judge scoring one piece alone cannot."
)
