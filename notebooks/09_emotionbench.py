# %% [markdown]
# # EmotionBench: how a model says it feels, beside 1,266 people
#
# EmotionBench (Huang et al., "Emotionally Numb or Empathetic? Evaluating How LLMs Feel Using EmotionBench";
# NeurIPS 2024 as "Apathetic or Empathetic?"; CUHK-ARISE/EmotionBench) asks a model for its *own* feelings on
# the 20 items of PANAS (1–5 each; Positive Affect, PA, and Negative Affect, NA, each a sum of 10 items, 10–50):
# first with no situation (the **default**), then after imagining one of 175 situations that evoke eight negative
# emotions (36 factors). The paper compares each factor's responses with the model's own default (an F-test on
# the variances, then Student's or Welch's t-test, α = 0.01: ↑, ↓ or −), and sets the model beside people who
# did the same.
#
# This notebook
# 1. rescores the paper's raw test sheets (7 models) and sets them beside the leaderboard's values;
# 2. recomputes the human norms from the raw answers of the 1,266 participants (`crowd.xlsx`);
# 3. measures each leaderboard model's **alignment with humans** — *this project's analysis, not the paper's*;
# 4. shows a run of the bundled SmolLM2-135M made with `eqbench-nb run --benchmark emotionbench`;
# 5. rescores the stored Challenging Bench runs (gpt-3.5-turbo on eight emotion-specific scales);
# 6. asks whether a model's EQ-Bench score predicts its EmotionBench alignment.
#
# **Terms.** EmotionBench is GPL-3.0 and "research use only"; the questionnaire items carry their authors'
# copyright. Every file is read at run time from `../shared/data/emotionbench` (or `EQBENCH_NB_DATA`, or a
# download of the pinned commit checked by sha256); no item text is stored in this notebook or the project.

# %%
import matplotlib

matplotlib.use("Agg")  # figures are shown inline below from their saved PNGs
# %matplotlib inline
import matplotlib.pyplot as plt
import pandas as pd

pd.set_option("display.width", 140)
pd.set_option("display.max_columns", 30)

# %%
from eqbench_nb.emotionbench import alignment, humans, sheets
from eqbench_nb.emotionbench.files import manifest
from eqbench_nb.emotionbench.plots import plot_factor_changes, plot_measure_ranking, plot_side_by_side
from eqbench_nb.report import record_headline, show_figure, show_markdown

NOTEBOOK = "09_emotionbench"
UPSTREAM = f"CUHK-ARISE/EmotionBench @ {manifest()['commit'][:7]}"
show_markdown(
    f"Upstream files: `{UPSTREAM}` (test sheets, questionnaire, situations, `crowd.xlsx`); the leaderboard "
    f"from its `gh-pages` branch @ {manifest()['files']['data.json']['commit'][:7]}."
)

# %% [markdown]
# ## 1. The paper's PANAS table, rescored from the raw test sheets
# Each sheet holds one model's 50 default and 1,750 evoked responses (175 situations × 10), the ratings in the
# listed item order; `order-0` maps them back to item ids. A column with a blank cell (a refusal upstream's reader
# could not read) is counted and left out. Each row: the default's mean ± SD, then each emotion's verdict against
# the default and the difference of means.

# %%
paper = pd.DataFrame(sheets.panas_paper_tables())
wide = paper.pivot(index="row", columns="model", values="NA").reindex(
    [
        "Default",
        "Anger",
        "Anxiety",
        "Depression",
        "Frustration",
        "Jealousy",
        "Guilt",
        "Fear",
        "Embarrassment",
        "Overall",
    ]
)
print("Negative Affect: default mean ± SD, then evoked against default (F then t, α = 0.01)")
wide

# %%
wide_pa = paper.pivot(index="row", columns="model", values="PA").reindex(wide.index)
print("Positive Affect")
wide_pa

# %%
versus = pd.DataFrame(sheets.control_and_overall_vs_leaderboard())
versus.round(3)

# %% [markdown]
# ### Per-factor means against the leaderboard
# The leaderboard (`data.json`) lists, per model, the PA and NA means of each of the 36 factors. Six of the seven
# sheet models are on it; a cell is matched when both means agree to 1e-6.

# %%
cells = sheets.match_factor_cells()
matched = sum(c.matched for c in cells)
misses = [c for c in cells if not c.matched]
pd.DataFrame(
    [
        {
            "sheet": c.sheet,
            "factor": c.factor,
            "responses in sheet": c.n,
            "ours PA": c.ours["Positive Affect"],
            "published PA": c.published["Positive Affect"],
            "ours NA": c.ours["Negative Affect"],
            "published NA": c.published["Negative Affect"],
        }
        for c in misses
    ]
).round(3)

# %%
record_headline(
    NOTEBOOK,
    "EmotionBench per-factor means rescored from the raw test sheets that equal the leaderboard's",
    f"raw PANAS test sheets and leaderboard data.json ({UPSTREAM}; gh-pages @ a7e95ec), rescored here",
    matched,
    n=len(cells),
    n_unit="factor cells (6 models × 36 factors)",
    key="emotionbench_factor_cells_matched",
)
import math

board_rows = versus[versus["leaderboard"] != "(not listed)"]
level_cols = ["default_pa", "default_na", "evoked_pa", "evoked_na"]
off = [
    f"{r.model} {c}"
    for r in board_rows.itertuples()
    for c in level_cols
    if not math.isclose(getattr(r, c), getattr(r, f"{c}_published"), abs_tol=1e-6)
]
show_markdown(
    f"**{matched} of {len(cells)}** factor cells match. The {len(misses)} others are "
    + ", ".join(f"{c.sheet} {c.factor}" for c in misses)
    + f": the sheet holds {' and '.join(str(c.n) for c in misses)} responses there instead of the 50 of five "
    f"situations × 10, so the leaderboard was computed from runs the committed sheet lacks. Of the "
    f"{len(board_rows) * len(level_cols)} default and overall means of the {len(board_rows)} listed models, "
    f"{len(board_rows) * len(level_cols) - len(off)} match; the others: {', '.join(off) or 'none'}."
)

# %% [markdown]
# ### The paper's test, and the same question at the unit that was sampled
# The paper's test (rescored faithfully above) compares a factor's 50 evoked responses with the 50 default ones as
# if all were independent. They are 5 situations × 10 repeats, and repeats of one situation resemble each other:
# the within-factor intraclass correlation (one-way ICC(1), situations as groups, median over the 36 factors)
# measures how much. A verdict about a *factor* rests on its situations, so this project also tests each factor with
# the situations as the units (`emotionbench.clustered.clustered_compare`: each situation's mean is one observation,
# t with Welch–Satterthwaite degrees of freedom against the default's responses), and again with Holm's correction
# over each model's 72 tests (36 factors × PA and NA, α = 0.01). This is this project's analysis, not the paper's.

# %%
from eqbench_nb.emotionbench import clustered

questionnaire = sheets.load_questionnaire("PANAS")
panas_sheets = sheets.read_panas_sheets()
unit_rows = []
for name, sheet in panas_sheets.items():
    fv = clustered.factor_verdicts(name, sheet.scored(questionnaire))
    unit_rows.append({"model": name, "ICC NA": fv.icc["Negative Affect"], "ICC PA": fv.icc["Positive Affect"],
                      "design effect NA": clustered.design_effect(fv.icc["Negative Affect"]), "tests": fv.tests,
                      "↑/↓ paper test": fv.count("paper"), "↑/↓ situations": fv.count("clustered"),
                      "↑/↓ situations, Holm": fv.count("holm")})  # fmt: skip
units = pd.DataFrame(unit_rows).set_index("model")
units.round(2)

# %%
u = units
gpt4_icc = u.loc["gpt-4", "ICC NA"]
show_markdown(
    f"Within a factor, the repeats of one situation correlate: the median ICC of NA runs from "
    f"{u['ICC NA'].min():.2f} ({u['ICC NA'].idxmin()}) to {u['ICC NA'].max():.2f} ({u['ICC NA'].idxmax()}); "
    f"for gpt-4 it is {gpt4_icc:.2f}, a design effect of {clustered.design_effect(gpt4_icc):.1f}: the variance of "
    f"gpt-4's factor mean is that many times what the paper's test assumes. The paper's test gives "
    f"{u['↑/↓ paper test'].min()}–{u['↑/↓ paper test'].max()} significant changes out of {u.tests.iloc[0]} "
    f"per model; with the situations as units {u['↑/↓ situations'].min()}–{u['↑/↓ situations'].max()}, and "
    f"{u['↑/↓ situations, Holm'].min()}–{u['↑/↓ situations, Holm'].max()} after Holm's correction (at α = 0.01, "
    f"{u.tests.iloc[0]} tests give about "
    f"{0.01 * u.tests.iloc[0]:.1f} false verdicts per model by chance). The tables above reproduce the paper; their "
    "arrows are the paper's test, which treats repeats as independent, and so does the same test when this toolkit "
    "summarises a run of your own (`eqbench-nb score` prints the situation-level verdict beside it)."
)

# %% [markdown]
# ## 2. The human norms, recomputed from the raw answers
# The Raw sheet of `crowd.xlsx` holds, per participant, the situation's label, the 20 items before ("current
# feeling") and after imagining the situation. The Summary sheet has known errors (its before-PA SD is the
# after-PA SD; some per-emotion differences do not follow from Raw), so the norms are recomputed here from the
# item ratings. The map from a label (`Angry_F1S1`) to a situation of the test sheets is **inferred** (the
# situation counts per factor match exactly); upstream does not document it.

# %%
people = humans.load_participants()
norms = humans.norms()
overall = norms["Overall"]
PA, NA = "Positive Affect", "Negative Affect"
rows = []
for group in ["Overall", "Anger", "Anxiety", "Depression", "Frustration", "Jealousy", "Guilt", "Fear", "Embarrassment"]:
    g = norms[group]
    rows.append(
        {
            "group": group,
            "n": g.n,
            "PA before": f"{g.before[PA]:.2f} ± {g.sd_before[PA]:.2f}",
            "PA after": f"{g.after[PA]:.2f} ± {g.sd_after[PA]:.2f}",
            "NA before": f"{g.before[NA]:.2f} ± {g.sd_before[NA]:.2f}",
            "NA after": f"{g.after[NA]:.2f} ± {g.sd_after[NA]:.2f}",
            "PA change (95 % CI)": f"{g.change[PA]:+.2f} ({g.change_ci[PA][0]:+.2f}, {g.change_ci[PA][1]:+.2f})",
            "NA change (95 % CI)": f"{g.change[NA]:+.2f} ({g.change_ci[NA][0]:+.2f}, {g.change_ci[NA][1]:+.2f})",
        }
    )
pd.DataFrame(rows)

# %%
crowd_source = f"crowd.xlsx sheet Raw ({UPSTREAM}), recomputed here from the 20 item ratings before and after"
for scale, tag in ((PA, "pa"), (NA, "na")):
    for when, values in (("before", overall.before), ("after", overall.after)):
        record_headline(
            NOTEBOOK,
            f"EmotionBench humans: overall {tag.upper()} {when} imagining the situation (mean)",
            crowd_source,
            round(values[scale], 2),
            n=overall.n,
            n_unit="participants",
            key=f"emotionbench_human_{tag}_{when}",
        )
show_markdown(
    f"Over all {overall.n:,} participants, PA falls from {overall.before[PA]:.2f} to {overall.after[PA]:.2f} "
    f"(paired t = {overall.t_value[PA]:.1f}) and NA rises from {overall.before[NA]:.2f} to {overall.after[NA]:.2f} "
    f"(paired t = {overall.t_value[NA]:+.1f}). The before-PA SD is {overall.sd_before[PA]:.2f}; the Summary sheet "
    f"prints the after-PA SD, {overall.sd_after[PA]:.2f}, in its place."
)

# %% [markdown]
# ## 3. Alignment with humans — this project's analysis
# The paper judges each model factor by factor against its own default. Here each model is also set beside the
# people who imagined the same situations:
# - **change**: the model's evoked minus default, beside the human paired change (after minus before);
# - **sign agreement**: the share of factors where the model's change has the human change's sign;
# - **r** and **MAE**: Pearson correlation and mean absolute error of the model's evoked levels against the human
#   after-levels across the 36 factors; **default error**: the default against the human before-level.
#
# First one model from its raw sheet, where the responses give the model's change an interval. Both intervals,
# the model's and the humans', take the factor's situations as the units (the model's repeats of a situation, and
# the people who imagined one situation, are not independent evidence about the factor).

# %%
gpt4 = panas_sheets["gpt-4"].scored(questionnaire)
changes_na = alignment.factor_changes(gpt4, NA, norms, people)
floor = max(c.model_floor for c in changes_na)
fig, ax = plt.subplots(figsize=(7.5, 9.5))
plot_factor_changes(ax, changes_na, "Negative Affect: gpt-4 (raw sheet) beside humans", "gpt-4")
show_figure(fig, "09_factor_changes_gpt4", caveats=[
    f"both intervals are t intervals over the factor's {changes_na[0].n_situations} situations (clustered); "
    "the paper's test treats gpt-4's 10 repeats of a situation as independent",
    f"gpt-4's default NA is at the scale's floor, so its change cannot go below {floor:g}: it can only rise"])

# %%
inside = sum(c.human_low <= c.model_change <= c.human_high for c in changes_na)
larger = sum(c.model_low > c.human_high for c in changes_na)
show_markdown(
    f"gpt-4's default NA sits at the scale's floor (its change cannot go below {floor:g}), so every change it "
    f"shows is a rise. Its NA change lies inside the humans' 95 % interval for {inside} of {len(changes_na)} factors, "
    f"and its whole interval lies above the humans' in {larger}"
    + (": with the situations as units it still reacts more strongly than people report they would."
       if larger > len(changes_na) / 2 else ".")
)

# %% [markdown]
# ### The 22 leaderboard models
# The leaderboard gives means only, so a model's own noise cannot be resampled: the intervals are percentile
# bootstraps over the 36 factors, resampled within each of the 8 emotions they are nested in (2,000 resamples, the
# same for every model), and say how much a measure depends on which factors were asked. The human means have
# sampling error of their own (a few dozen people per factor): their reliability caps the r any model could reach, and
# each r is also shown disattenuated (r divided by that ceiling). The same resamples give each model's rank, with an
# interval. A null to read sign agreement against: a model that always moves the way most people do.

# %%
board = sheets.load_leaderboard()
align_rows = alignment.leaderboard_alignment(board, norms)
table = pd.DataFrame(align_rows)
cols = [
    "model",
    "n_factors",
    "pa_sign_agreement",
    "na_sign_agreement",
    "pa_r",
    "pa_r_low",
    "pa_r_high",
    "pa_r_disattenuated",
    "na_r",
    "na_r_low",
    "na_r_high",
    "na_r_disattenuated",
    "na_r_rank_low",
    "na_r_rank_high",
    "pa_mae",
    "na_mae",
]
table[cols].sort_values("na_r", ascending=False).round(2)

# %%
null_pa, null_na = alignment.sign_agreement_null(norms, PA), alignment.sign_agreement_null(norms, NA)
rel = {scale: alignment.human_reliability(norms, scale) for scale in (PA, NA)}
best = table.sort_values("na_r", ascending=False).iloc[0]
worst = table.sort_values("na_r").iloc[0]
reach_top = int((table["na_r_rank_low"] <= 1).sum())
show_markdown(
    f"The humans' NA moves the same way in {null_na:.0%} of the factors and their PA in {null_pa:.0%}, so the "
    f"constant answer that always moves that way scores a sign agreement of {null_na:.2f} (NA) and {null_pa:.2f} "
    "(PA). "
    + ("On NA that is the maximum: no model can beat it, so sign agreement cannot tell models apart there and is not "
       "used to compare them. " if null_na >= 1 else "")
    + f"The human factor means are themselves noisy: their reliability is {rel[NA]:.2f} for NA and {rel[PA]:.2f} for "
    f"PA, so even a model that tracked the true human means perfectly would reach r of about {rel[NA] ** 0.5:.2f} (NA) "
    f"and {rel[PA] ** 0.5:.2f} (PA) against these. NA r ranges from {worst['na_r']:.2f} ({worst['model']}, interval "
    f"{worst['na_r_low']:.2f} to {worst['na_r_high']:.2f}) to {best['na_r']:.2f} ({best['model']}, "
    f"{best['na_r_low']:.2f} to {best['na_r_high']:.2f}); disattenuated, {worst['na_r_disattenuated']:.2f} to "
    f"{best['na_r_disattenuated']:.2f}. The order is loosely supported: {best['model']}'s rank interval is "
    f"{best['na_r_rank_low']:.0f}–{best['na_r_rank_high']:.0f}, and {reach_top} of {len(table)} models could rank "
    "first on another draw of factors. These are this project's measures, not the paper's."
)

# %%
fig, axes = plt.subplots(1, 2, figsize=(13, 7.5))
plot_measure_ranking(axes[0], align_rows, "na_r", "NA r with humans")
plot_measure_ranking(axes[1], align_rows, "na_mae", "NA mean absolute error", higher_is_better=False)
fig.tight_layout()
show_figure(fig, "09_alignment_leaderboard", caveats=[
    "alignment with humans is this project's measure, not EmotionBench's; the factor-to-situation map is inferred",
    "rank intervals in the labels: where they overlap, the order of the rows is not supported",
    f"the human means are noisy (reliability {rel[NA]:.2f} for NA), so no model could exceed r = "
    f"{rel[NA] ** 0.5:.2f}; hollow marks are r divided by that ceiling"])

# %% [markdown]
# ## 4. The bundled model, from a committed run
# `data/runs/` holds a run of the bundled SmolLM2-135M-Instruct made with `eqbench-nb run --benchmark emotionbench`;
# the command and its design are read back from the run's header below, and a live re-run uses the same settings.
# Running the model live is left to a flag, so that `eqbench-nb reproduce` stays fast. Caveats: this is a
# 135-million-parameter model, far below anything the paper tested; and the human comparison rests on the inferred
# label map.

# %%
from eqbench_nb.emotionbench.runs import command_line, read_emotion_run
from eqbench_nb.emotionbench.summary import summarise_run
from eqbench_nb.paths import tables_dir

RUN_LIVE = False  # True: run the bundled model now (minutes on 2 cores), into runs/emotionbench
run_path = next((tables_dir() / "runs").glob("SmolLM2-135M-Instruct__emotionbench__*.jsonl"))
committed = read_emotion_run(run_path)
settings = committed.settings()
show_markdown(
    f"The committed run was made with `{command_line(settings, committed.timeout_s)}`: {settings['per_factor']} "
    f"situation of each "
    f"{' and '.join(settings['emotions'])} factor, each asked {settings['repeats']} time(s), the default "
    f"{settings['default_repeats']} times."
)
if RUN_LIVE:
    from eqbench_nb.emotionbench.task import run_emotionbench
    from eqbench_nb.runner.settings import Endpoint, RunSettings

    live = run_emotionbench(Endpoint(timeout_s=committed.timeout_s), RunSettings(out_dir="runs/emotionbench",
                            progress=False), **settings)  # the committed run's design  # fmt: skip
    run_path = live.path
run = read_emotion_run(run_path)
summary = summarise_run(run)
print(summary.table())
statuses = pd.Series([r.status for r in run.records]).value_counts()
statuses

# %%
import re

upstream_summary = summarise_run(run, parser="upstream")
listing = re.compile(r"^\s*\d+\.\s*[A-Za-z][A-Za-z ]*$")
lists_only = sum(all(listing.match(line) for line in (r.attempt["text"] or "").splitlines() if line.strip())
                 for r in run.records)  # fmt: skip
complete = summary.n_default + summary.n_evoked
show_markdown(
    f"Of the run's {summary.records} answers, {complete} carry a rating for every item under this project's reader "
    f"({statuses.to_dict()}); upstream's last-character reader finds "
    f"{upstream_summary.n_default + upstream_summary.n_evoked} complete. {lists_only} of the {summary.records} "
    f"answers are nothing but numbered lines of words (`<n>. <word>`): the model lists items instead of rating them"
    + (", so the run exercises the pipeline and says nothing about feelings." if complete == 0 else ".")
)

# %% [markdown]
# ## 5. The Challenging Bench: gpt-3.5-turbo on eight emotion-specific scales
# Upstream also ran gpt-3.5-turbo on a scale matched to each emotion, each factor's situations against a default of
# its own. Rescored as upstream does (reverse items `scale − value`; SUM, SUM×2 or AVG as the questionnaire says),
# the verdicts per scale (the emotion each scale was given is read from its sheet):

# %%
challenge = pd.DataFrame(sheets.challenging_table())
print({scale: sorted({f.split("-")[0] for f in g["factor"]}) for scale, g in challenge.groupby("scale")})
verdicts = challenge.pivot_table(
    index=["scale", "subscale"], columns="verdict", values="factor", aggfunc="count", fill_value=0
)
verdicts

# %%
share_up = (challenge["verdict"] == "↑").mean()
share_same = (challenge["verdict"] == "−").mean()
share_up_sit = (challenge["clustered_verdict"] == "↑").mean()
share_same_sit = (challenge["clustered_verdict"] == "−").mean()
n_sit = challenge["n_situations"].agg(["min", "max"])
sits_text = f"{n_sit['min']}" if n_sit["min"] == n_sit["max"] else f"{n_sit['min']}–{n_sit['max']}"
show_markdown(
    f"Across the {len(challenge)} scale × factor × sub-scale cells, {share_up:.0%} rise against the default and "
    f"{share_same:.0%} show no significant change at α = {clustered.ALPHA} under the paper's test, which takes a "
    f"factor's repeats as independent responses (section 1). With the factor's {sits_text} situations as the units "
    f"(`clustered.clustered_compare`, same α), **{share_up_sit:.0%} rise and {share_same_sit:.0%} show no "
    f"significant change** ({(challenge['clustered_verdict'] == '↓').mean():.0%} fall, against "
    f"{(challenge['verdict'] == '↓').mean():.0%} under the paper's test). No human norms exist for these scales, so "
    f"nothing here says whether people would move as much."
)

# %% [markdown]
# ## 6. Both benchmarks side by side
# Does a model's EQ-Bench score predict how it aligns with humans on EmotionBench? The models on both boards are
# matched by name in `data/emotionbench_eqbench_names.csv` (a source and a note per row; "judgement" where an API
# alias had to be dated). The EQ-Bench v2 score is the one in `data/benchmarks_joined.csv`. The units of the
# intervals are the models' lineages (`data/base_models.csv`; `side_by_side` refuses to run without the map).

# %%
from eqbench_nb.eqbench.study import published

joined, corr = alignment.side_by_side(align_rows, lineages=published.lineage_map())
joined[
    [
        "emotionbench_model",
        "eqbench_model",
        "match",
        "eqbench_v2",
        "na_r",
        "pa_r",
        "na_mae",
        "pa_mae",
        "na_default_error",
    ]
].round(2)

# %%
corr.round(2)

# %%
from eqbench_nb.analysis import verdicts

r_na = corr.set_index("measure").loc["na_r"]
leverage = joined["emotionbench_model"].str.startswith("LLaMA-2")
r_without = alignment.correlation_without(joined[~leverage])
size = corr.set_index("measure").pearson.abs()
na_rank = int(size.rank(ascending=False)["na_r"])
caveats = [
    f"alignment with humans is this project's measure, not EmotionBench's; NA r is one of the {len(corr)} measures "
    f"tried against EQ-Bench on {int(r_na['n'])} models (|r| {size.min():.2f} to {size.max():.2f}; NA r ranks "
    f"{na_rank} of {len(corr)}), chosen for the headline after seeing them",
    f"without the two LLaMA-2 models, the weakest on both boards: r = {r_without['pearson']:.2f} "
    f"[{r_without['pearson_low']:.2f}, {r_without['pearson_high']:.2f}], {r_without['n']} models",
]
fig, ax = plt.subplots(figsize=(6.5, 5))
plot_side_by_side(ax, joined["eqbench_v2"], joined["na_r"], joined["emotionbench_model"], "NA r with humans",
                  summary=r_na.to_dict(), leverage=leverage.to_numpy(), without=r_without)
show_figure(fig, "09_eqbench_vs_emotionbench", caveats=caveats[:1])

# %%
record_headline(
    NOTEBOOK,
    "EQ-Bench v2 score against EmotionBench NA alignment (r with humans across factors), Pearson r",
    "data/benchmarks_joined.csv (EQ-Bench v2) and EmotionBench leaderboard data.json beside crowd.xlsx, "
    "matched by data/emotionbench_eqbench_names.csv",
    round(float(r_na["pearson"]), 3),
    (round(float(r_na["pearson_low"]), 3), round(float(r_na["pearson_high"]), 3)),
    int(r_na["n"]),
    method=r_na["interval_method"],
    n_unit=f"models on both boards ({int(r_na['n_clusters'])} lineages)",
    key="emotionbench_eqbench_na_r",
    caveats=caveats,
    selected_from=len(corr),
    family={m: round(float(v), 3) for m, v in corr.set_index("measure")["pearson"].items()},
)
spearman_crosses = r_na["spearman_low"] <= 0 <= r_na["spearman_high"]
openai = int(joined["lineage"].str.startswith("OpenAI").sum())
without_text = verdicts.describe(r_without["pearson"], r_without["pearson_low"], r_without["pearson_high"],
                                 what="Pearson r", n=r_without["n"], unit="models", precise_to=0.5)  # fmt: skip
show_markdown(
    f"Over the {int(r_na['n'])} models on both boards, EQ-Bench v2 correlates with EmotionBench NA alignment at "
    f"Pearson r = {r_na['pearson']:.2f} (95 % interval {r_na['pearson_low']:.2f} to {r_na['pearson_high']:.2f}, "
    f"{r_na['interval_method']}) and Spearman {r_na['spearman']:.2f} ({r_na['spearman_low']:.2f} to "
    f"{r_na['spearman_high']:.2f})"
    + (", an interval that includes zero" if spearman_crosses else "")
    + f". NA r is one of the {len(corr)} alignment measures set beside EQ-Bench above (by |r| it ranks {na_rank}; "
    f"|r| runs from {size.min():.2f} to {size.max():.2f}), chosen for the headline after seeing them, and all of them "
    "are this project's, not EmotionBench's. Without the two LLaMA-2 models, the weakest on "
    f"both boards: {without_text}. The {int(r_na['n'])} models are {int(r_na['n_clusters'])} lineages by "
    f"`data/base_models.csv`, but {openai} of them are OpenAI's, a vendor's models that may share training data: "
    "the points are less independent than the count says. The headline row therefore carries all "
    f"{len(corr)} measures' r beside the one chosen. Stronger models score higher on both boards, which is not the "
    "same as EQ-Bench measuring what EmotionBench measures."
)
