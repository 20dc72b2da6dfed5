# %% [markdown]
# # Empathetic responding: Welivita & Pu's study re-derived from its own file
#
# Welivita & Pu (https://arxiv.org/abs/2403.05572 and https://arxiv.org/abs/2406.05063) took 2,000
# EmpatheticDialogues prompts and three responses to each: the human listener's from the dialogue, GPT-4's, and GPT-4's when told a definition of empathy. Each response
# was rated once (Bad, Okay or Good) by one of 200 crowd raters per arm, who also filled in the Toronto Empathy
# Questionnaire. The study's file, `data/dataset_and_ratings.csv` (anuradha1992/llm-empathy-evaluation), holds all
# of it; it is read at run time (`../shared/data/welivita_pu`, or `EQBENCH_NB_DATA`, or a download of the pinned
# commit checked by sha256), never committed here.
#
# This notebook asks:
# 1. Does the file give the published counts per arm, the relative increase in Good responses and the mean-rating
#    gain?
# 2. Does the gain hold within each sentiment and each of the 32 emotions, once the 32 tests are adjusted?
# 3. Can the claim about the raters' empathy propensity be re-derived?
# 4. What does a comparison of the arms show, and what would rating them all under one judge show and not show?
# 5. What does a judge add? The bundled model as subject and as judge (the benchmark's committed run), and what the
#    human-arm comparison under one judge does and does not show.
#
# **Intervals are clustered by rater.** Rater k of every arm rated the same 10 prompts (the file's `part_no` k), so
# one rater's ratings are not independent; clustering on `part_no` clusters by rater in every arm at once and keeps a
# prompt's three ratings together (a difference between arms is paired by prompt). The rules are in
# `eqbench_nb/welivita_pu/study.py`.

# %%
import matplotlib

matplotlib.use("Agg")  # figures are shown inline below from their saved PNGs
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

pd.set_option("display.width", 140)
pd.set_option("display.max_columns", 30)

# %%
from eqbench_nb.report import record_headline, show_figure, show_markdown
from eqbench_nb.welivita_pu import files, study

NOTEBOOK = "13_empathetic_responding"
manifest = files.FILES.manifest()
SOURCE = f"Welivita & Pu, {files.RATINGS_FILE} ({manifest['repository']} @ {manifest['commit'][:7]})"
long = study.ratings()
w = study.wide(long)
CLUSTERED = (
    f"rater-clustered (part_no: {long.groupby('arm')['rater'].nunique().min()} raters per arm) delta method, "
    "CR1, normal 95 %"
)
show_markdown(
    f"Data: {SOURCE}: **{len(w)} prompts**, {long['arm'].nunique()} arms, **{len(long)} ratings** by "
    f"{long.drop_duplicates(['arm', 'rater']).shape[0]} raters ({long.groupby('arm')['rater'].nunique().min()} "
    "per arm)."
)

# %% [markdown]
# ## 1. The published numbers
# The later paper (https://arxiv.org/abs/2406.05063) reports the Bad / Okay / Good counts of each arm and the
# relative increase in Good responses over the human arm; the earlier one (https://arxiv.org/abs/2403.05572) a gain
# in the mean rating. Both are recomputed here from the ratings, with their rater-clustered intervals.

# %%
counts = study.counts(long)
counts

# %%
summaries = study.arm_summaries(long)
rows = []
for arm in study.ARMS:
    s = summaries[arm]
    rows.append(
        {
            "arm": study.ARMS[arm],
            "Good share": s.good_share.estimate,
            "Good low": s.good_share.low,
            "Good high": s.good_share.high,
            "mean rating": s.mean_rating.estimate,
            "mean low": s.mean_rating.low,
            "mean high": s.mean_rating.high,
        }
    )
pd.DataFrame(rows).set_index("arm").round(3)

# %%
increase = {arm: study.relative_increase(w, arm, "good") for arm in study.MODEL_ARMS}
gain = {arm: study.relative_increase(w, arm, "mean") for arm in study.MODEL_ARMS}
for arm in study.ARMS:
    record_headline(
        NOTEBOOK,
        f"Welivita & Pu: Bad / Okay / Good ratings of the {study.ARMS[arm]} arm",
        SOURCE,
        " / ".join(str(int(counts.loc[arm, label])) for label in study.LABELS.values()),
        n=len(w),
        n_unit="prompts",
        key=f"wp_{arm}_counts",
    )
for arm in study.MODEL_ARMS:
    g, m = increase[arm], gain[arm]
    record_headline(
        NOTEBOOK,
        f"Welivita & Pu: relative increase in Good ratings, {study.ARMS[arm]} over the human listener",
        SOURCE,
        round(g.estimate, 4),
        (round(g.low, 4), round(g.high, 4)),
        n=g.clusters,
        n_unit="raters (clusters)",
        method=CLUSTERED,
        key=f"wp_{arm}_good_increase",
        caveats=["different raters per arm: the difference mixes the responses with the rater pools"],
    )
    record_headline(
        NOTEBOOK,
        f"Welivita & Pu: relative gain in mean rating (1-3), {study.ARMS[arm]} over the human listener",
        SOURCE,
        round(m.estimate, 4),
        (round(m.low, 4), round(m.high, 4)),
        n=m.clusters,
        n_unit="raters (clusters)",
        method=CLUSTERED,
        key=f"wp_{arm}_mean_gain",
    )
emp, plain = increase["chatgpt_empathy"], increase["chatgpt"]
show_markdown(
    "The counts are the published ones: "
    + "; ".join(
        f"{study.ARMS[a]} {counts.loc[a, 'Bad']} / {counts.loc[a, 'Okay']} / {counts.loc[a, 'Good']}"
        for a in study.ARMS
    )
    + f" (Bad / Okay / Good). GPT-4 told the definition has **{emp.estimate:+.1%}** more Good responses than the human "
    f"listener [{emp.low:+.1%}, {emp.high:+.1%}], plain GPT-4 **{plain.estimate:+.1%}** [{plain.low:+.1%}, "
    f"{plain.high:+.1%}]. The mean rating rises by {gain['chatgpt'].estimate:+.1%} "
    f"[{gain['chatgpt'].low:+.1%}, {gain['chatgpt'].high:+.1%}] (plain) and {gain['chatgpt_empathy'].estimate:+.1%} "
    f"[{gain['chatgpt_empathy'].low:+.1%}, {gain['chatgpt_empathy'].high:+.1%}] (definition). Intervals: 95 %, "
    f"clustered by rater ({emp.clusters} clusters of {emp.n // emp.clusters} prompts)."
)

# %% [markdown]
# ## 2. Per sentiment and per emotion
# The papers' own tests could not be read (only their abstracts were reachable), so a stated test is used: the
# two-sided Mann-Whitney U between an arm's ratings and the human arm's (different raters: a between-groups
# design), with Holm and Benjamini-Hochberg adjustment across the emotions, beside the rater-clustered interval of
# the difference of mean ratings. The arm compared is GPT-4 told the definition.

# %%
ARM = "chatgpt_empathy"
by_sentiment = study.group_comparisons(w, "sentiment", ARM)
by_sentiment.round(3).assign(p=by_sentiment["p"].map("{:.1e}".format))

# %%
by_emotion = study.group_comparisons(w, "emotion", ARM)
by_emotion = by_emotion.assign(diff=by_emotion["mean_arm"] - by_emotion["mean_human"]).sort_values("diff")
by_emotion[
    ["emotion", "prompts", "mean_human", "mean_arm", "mean_gain", "diff_low", "diff_high", "p", "p_holm", "p_bh"]
].round(3)

# %%
fig, ax = plt.subplots(figsize=(7.5, 8.5))
y = np.arange(len(by_emotion))
diff = by_emotion["diff"]
holm_hit = by_emotion["p_holm"] < 0.05
ax.errorbar(
    diff,
    y,
    xerr=[diff - by_emotion["diff_low"], by_emotion["diff_high"] - diff],
    fmt="none",
    ecolor="0.6",
    lw=1,
)
ax.scatter(diff[~holm_hit], y[~holm_hit], color="0.4", s=18, zorder=3, label="Holm-adjusted p ≥ 0.05")
ax.scatter(diff[holm_hit], y[holm_hit], color="tab:red", s=24, zorder=3, label="Holm-adjusted p < 0.05")
ax.axvline(0, color="k", lw=0.8)
ax.set_yticks(y, by_emotion["emotion"], fontsize=8)
ax.set_xlabel("mean rating (1-3): GPT-4 with the definition minus the human listener")
ax.set_title(
    f"Per emotion ({len(by_emotion)}): difference of mean ratings, 95 % rater-clustered intervals", fontsize=10
)
ax.legend(loc="upper left", fontsize=8, bbox_to_anchor=(1.01, 1.0))
show_figure(
    fig,
    "13_per_emotion",
    caveats=[
        f"{int(by_emotion['prompts'].min())}-{int(by_emotion['prompts'].max())} prompts per emotion; intervals "
        "clustered by rater, not adjusted for the emotions' multiplicity (the colour is)",
    ],
)

# %%
n_holm, n_bh = int((by_emotion["p_holm"] < 0.05).sum()), int((by_emotion["p_bh"] < 0.05).sum())
n_raw = int((by_emotion["p"] < 0.05).sum())
above = int((by_emotion["diff_low"] > 0).sum())
neg, pos = by_sentiment.set_index("sentiment").loc["negative"], by_sentiment.set_index("sentiment").loc["positive"]
record_headline(
    NOTEBOOK,
    f"Welivita & Pu: emotions (of {len(by_emotion)}) where GPT-4 with the definition's ratings differ from the human "
    "listener's "
    "(two-sided Mann-Whitney U, Holm-adjusted p < 0.05)",
    SOURCE,
    n_holm,
    n=len(by_emotion),
    n_unit="emotions",
    key="wp_emotions_holm",
    caveats=[f"Benjamini-Hochberg at 0.05: {n_bh}; unadjusted: {n_raw}"],
)
holm_up = int((by_emotion.loc[by_emotion["p_holm"] < 0.05, "diff"] > 0).sum())
both_above = bool((by_sentiment["diff_low"] > 0).all())
show_markdown(
    ("Within each sentiment the gain holds" if both_above else "The gain does not hold in every sentiment")
    + f": negative prompts ({int(neg['prompts'])}) {neg['mean_gain']:+.1%} in mean "
    f"rating, difference [{neg['diff_low']:+.2f}, {neg['diff_high']:+.2f}]; positive ({int(pos['prompts'])}) "
    f"{pos['mean_gain']:+.1%}, [{pos['diff_low']:+.2f}, {pos['diff_high']:+.2f}]. Across the {len(by_emotion)} "
    f"emotions (of {int(by_emotion['prompts'].min())} to {int(by_emotion['prompts'].max())} prompts each) the mean "
    f"gain runs from {by_emotion['mean_gain'].min():+.1%} "
    f"({by_emotion.loc[by_emotion['mean_gain'].idxmin(), 'emotion']}) to {by_emotion['mean_gain'].max():+.1%} "
    f"({by_emotion.loc[by_emotion['mean_gain'].idxmax(), 'emotion']}). {n_raw} emotions are significant "
    f"unadjusted, **{n_bh} after Benjamini-Hochberg and {n_holm} after Holm** ({holm_up} of them gains); the clustered interval of the "
    f"difference lies above zero for {above}. An emotion has a median of {int(by_emotion['prompts'].median())} prompts "
    f"against the {len(w)} of the overall comparison: a non-significant emotion is not evidence of no gain there."
)

# %% [markdown]
# ## 3. The empathy-propensity claim
# The earlier paper says GPT-4's responses were rated "five times more closely aligned" with raters of high
# empathy propensity. Its computation could not be read, so the claim is not re-derivable as stated. Below, three
# readings computed from the file: per arm, the correlation of rating with the rater's questionnaire total over the
# 2,000 ratings and over the 200 raters, and the mean rating of raters at or above the median total minus those
# below; the ratio of a model arm's value to the human arm's is "times more closely aligned" under that reading.

# %%
align = study.propensity_alignment(long)
alignment = pd.DataFrame(
    {
        study.ARMS[a]: {"item r": v.item_r, "rater r": v.rater_r, "high minus low TEQ": v.high_minus_low}
        for a, v in align.items()
    }
).T
ratios = alignment.loc[[study.ARMS[a] for a in study.MODEL_ARMS]] / alignment.loc[study.ARMS["human"]]
alignment.round(3)

# %%
ratio_range = (float(ratios.to_numpy().min()), float(ratios.to_numpy().max()))
show_markdown(
    f"Under these readings a model arm is between **{ratio_range[0]:.1f} and {ratio_range[1]:.1f} times** as aligned "
    "with propensity as the human arm: "
    + "; ".join(
        f"{arm}: " + ", ".join(f"{c} ×{ratios.loc[arm, c]:.1f}" for c in ratios.columns) for arm in ratios.index
    )
    + f". The human arm's own values are near zero (item r {align['human'].item_r:.3f}), so any ratio to it is "
    "unstable: a small change in the denominator moves it a lot. The paper's number is one reading among several; "
    "which one, the file alone does not say."
)

# %% [markdown]
# ## 4. What a comparison of the arms shows, and what one judge would
# Each arm was rated by its own 200 raters. The comparison above therefore shows that GPT-4's responses were rated
# higher **by the people who rated them** than the listeners' responses were by theirs; it cannot separate the
# responses from the rater pools. The raters' questionnaire totals measure one way the pools differ.

# %%
pools = long.drop_duplicates(["arm", "rater"]).groupby("arm")["propensity"].agg(["count", "mean", "std"])
pools.index = [study.ARMS[a] for a in pools.index]
pools.round(2)

# %%
spread_pools = pools["mean"].max() - pools["mean"].min()
show_markdown(
    f"The three pools' mean questionnaire totals span {pools['mean'].min():.1f} to {pools['mean'].max():.1f} "
    f"(a difference of {spread_pools:.1f}, beside a within-pool SD of {pools['std'].mean():.1f}), and rating follows "
    f"the total weakly within each arm (item r {min(v.item_r for v in align.values()):.2f} to "
    f"{max(v.item_r for v in align.values()):.2f}). "
    "Rating every response of the three arms under **one judge** removes the pools: the same rater, the same scale, "
    f"all {len(long):,} responses. It does not make the judge's scale the people's. A judge that is more lenient to one kind "
    "of text (longer, more formal, model-written) moves the arms' difference by its own bias, and the difference it "
    "gives is its preference, not the people's. Whether its calibration to people on one arm carries to another is "
    "an empirical question, tested in notebook 14 (on a stand-in judge until real judgements are stored)."
)

# %% [markdown]
# ## 5. What a judge adds: the bundled model as subject and as judge
# `eqbench-nb run --benchmark empathetic-responding` puts a model in GPT-4's place and asks a judge what the study's
# raters were asked (the rating page's task, its tutorial on empathy and its question, Good / Okay / Bad): once of the
# model's response and, in a separate request, once of the ED listener's response to the same prompt, the human arm
# under the same judge (`docs/empathetic_responding.md`). A judge adds what the file cannot: a rating of responses no
# person rated, so any model can be set beside the listener, and one rater for every arm.
#
# `data/empathetic_responding_runs/` holds a run of the bundled **SmolLM2-135M-Instruct as both subject and
# judge**, made offline on a seeded sample stratified by emotion, with its judge's ratings of the human arm beside it;
# its command is read back from the run's header below, and a live re-run with the same settings is left to a flag,
# so that `eqbench-nb reproduce` stays fast. **This is a 135-million-parameter
# model**, far below GPT-4: the run exercises the whole pipeline, and as a judge the model shows what an unchecked
# judge does. Its numbers say nothing about how empathetic language models are. Intervals in this section are
# Student's t over prompts (no person rated the subject's responses, so there are no raters to cluster by).

# %%
from pathlib import Path

from eqbench_nb.benchmarks import empathetic_responding as er
from eqbench_nb.benchmarks import empathetic_responding_run as er_run

RUN_LIVE = False  # True: run the bundled model now (minutes on 2 cores), into runs/empathetic_responding
prompts = er.read_prompts()
run_path = er_run.committed_run_path()
committed = er.read(run_path)
command = er_run.command_line(committed, prompts)
if RUN_LIVE:
    import shlex

    from eqbench_nb.cli import main

    live_out = "runs/empathetic_responding"
    main([*shlex.split(er_run.command_line(committed, prompts, live_out))[1:], "--no-progress"])
    run_path = Path(live_out) / run_path.name  # the run id comes from the settings: the same name
run = er.read(run_path)
per_emotion = pd.Series([s.metadata["emotion"] for s in run.records if s.metadata.get("step") == "answer"])
per_emotion = per_emotion.value_counts()
ratings = er_run.arm_ratings(run)
judge_name = ratings["judge"].iloc[0]
each = f"{per_emotion.min()}" if per_emotion.min() == per_emotion.max() else f"{per_emotion.min()}-{per_emotion.max()}"
show_markdown(
    f"The {'live' if RUN_LIVE else 'committed'} run was made with `{command}`: {len(run.header.own.items)} prompts, "
    f"{each} of each of {len(per_emotion)} emotions, subject `{run.model}` at temperature "
    f"{run.header.own.sampling['temperature']:g}, judge `{judge_name}` at temperature {er.JUDGE_TEMPERATURE:g}. Of the "
    f"judge's {ratings['requests'].sum()} requests, {ratings['requests'].sum() - ratings['readable'].sum()} got a "
    f"reply with no single rating word (asked again, up to {er.JUDGE_ATTEMPTS} requests a response); "
    f"{ratings['unrated'].sum()} responses stayed unrated and count in no share below."
)
ratings.set_index("arm").round(3)

# %%
score_rows = pd.DataFrame([r for r in er.score_table(run) if not r["group"].startswith("emotion: ")])
scored = score_rows.set_index("group")[
    ["prompts", "rated_model", "good_model", "good_model_low", "good_model_high", "rated_human", "good_human",
     "good_human_low", "good_human_high", "rel_good", "rel_good_low", "rel_good_high", "p_good", "paired"]
]  # fmt: skip
scored = scored.astype(float).round(3)
counts_of = ["prompts", "rated_model", "rated_human", "paired"]
scored[counts_of] = scored[counts_of].astype(int)
scored

# %%
top = scored.loc["all"]
people_good = summaries["human"].good_share.estimate
lenient = min(top["good_model"], top["good_human"]) >= 0.85
show_markdown(
    f"Under the bundled judge the subject's responses are Good in {top['good_model']:.0%} of those it rated "
    f"[{top['good_model_low']:.0%}, {top['good_model_high']:.0%}] and the listeners' in {top['good_human']:.0%} "
    f"[{top['good_human_low']:.0%}, {top['good_human_high']:.0%}], where the study's raters found "
    f"{people_good:.0%} of all the listeners' responses Good. The relative increase in Good, the study's measure, is "
    f"**{top['rel_good']:+.1%}** [{top['rel_good_low']:+.1%}, {top['rel_good_high']:+.1%}] over the prompts "
    f"both arms got a rating on (paired t p = {top['p_good']:.2f})"
    + (
        ": a judge that calls nearly every response Good leaves no room for either arm to be better."
        if lenient
        else "."
    )
)

# %% [markdown]
# The human arm is where a judge can be checked against people: each listener's response the judge rated was also
# rated by one of the study's raters. Below, the people's rating (rows) against the judge's (columns), for the
# responses the judge rated.

# %%
vs_people = er_run.against_people(run, long)
vs_people.table

# %%
kappa = vs_people.kappa
show_markdown(
    f"On these {len(vs_people.pairs)} responses the people said Good {vs_people.good_people:.0%} of the time and the "
    f"judge {vs_people.good_judge:.0%}; they give the same rating to {vs_people.exact:.0%} of them, and the "
    f"quadratic-weighted kappa is **{kappa.kappa:.2f}** (se {kappa.se:.2f}, p = {kappa.p:.2f}; 0 is the agreement "
    "of chance)"
    + (
        ": no evidence that this judge rates as people do."
        if kappa.p >= 0.05 or kappa.kappa <= 0
        else ": agreement beyond chance on the listeners' responses."
    )
)

# %% [markdown]
# ### What the human-arm comparison under one judge does and does not show
# **It shows** how one judge rates the subject's responses against the listeners' on the same prompts, with the
# rater pools of section 4 taken out: one rater, one scale, each prompt's two ratings paired. A difference is that
# judge's preference between the two kinds of response.
#
# **It does not show** that people would prefer one of them. That needs the judge to rate as people do, and the
# human arm can check that only on human-written text: a judge can agree with people on the listeners' responses and
# still favour model-written ones (longer, more polished), which no rating of the human arm reveals; notebook 14 asks
# how a calibration carries from one arm to another. A sample stratified by emotion is also not the study's set, and
# an emotion with fewer prompts than the benchmark's minimum is not compared at all.

# %%
inside = top["rel_good_low"] <= emp.estimate <= top["rel_good_high"]
show_markdown(
    f"Here the judge's agreement with people on the human arm is kappa {kappa.kappa:.2f}, so its "
    f"{top['rel_good']:+.1%} is a statement about the bundled model as a judge, not about what people would prefer. "
    f"Its interval over {int(top['paired'])} paired prompts, [{top['rel_good_low']:+.1%}, "
    f"{top['rel_good_high']:+.1%}], {'holds' if inside else 'excludes'} the people-rated increase of GPT-4 told the "
    f"definition ({emp.estimate:+.1%}, section 1): "
    + (
        "a sample this small could not tell the two apart even with a judge that rated as people do."
        if inside
        else "with a judge this lenient and a subject this small the number differs from the study's, and neither the "
        "difference nor its sign says anything about what people would prefer."
    )
)
