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
# First one model from its raw sheet, where the responses give the model's change an interval.

# %%
gpt4 = sheets.read_panas_sheets()["gpt-4"].scored(sheets.load_questionnaire("PANAS"))
changes_na = alignment.factor_changes(gpt4, NA, norms)
fig, ax = plt.subplots(figsize=(7, 9))
plot_factor_changes(ax, changes_na, "Negative Affect: gpt-4 (raw sheet) beside humans", "gpt-4")
show_figure(fig, "09_factor_changes_gpt4")

# %%
inside = sum(c.human_low <= c.model_change <= c.human_high for c in changes_na)
larger = sum(abs(c.model_change) > abs(c.human_change) for c in changes_na)
show_markdown(
    f"gpt-4's NA change lies inside the humans' 95 % interval for {inside} of {len(changes_na)} factors and is "
    f"larger in size than the humans' for {larger}"
    + (": it reacts more strongly than people report they would." if larger > len(changes_na) / 2 else ".")
)

# %% [markdown]
# ### The 22 leaderboard models
# The leaderboard gives means only, so a model's own noise cannot be resampled: the intervals are percentile
# bootstraps over the 36 factors (2,000 resamples) and say how much a measure depends on which factors were asked.
# A null to read sign agreement against: a model that always says "PA down, NA up", whatever the situation.

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
    "na_r",
    "na_r_low",
    "na_r_high",
    "pa_mae",
    "na_mae",
    "pa_default_error",
    "na_default_error",
]
table[cols].sort_values("na_r", ascending=False).round(2)

# %%
factors = [k for k in norms if "-" in k]
always_down = sum(norms[f].change[PA] < 0 for f in factors) / len(factors)
always_up = sum(norms[f].change[NA] > 0 for f in factors) / len(factors)
best = table.sort_values("na_r", ascending=False).iloc[0]
worst = table.sort_values("na_r").iloc[0]
above_null = int((table["na_sign_agreement"] > always_up).sum())
show_markdown(
    f"The humans' PA falls in {always_down:.0%} of the factors and their NA rises in {always_up:.0%}, so the "
    f'constant answer "PA down, NA up" already scores a sign agreement of {always_down:.2f} (PA) and '
    f"{always_up:.2f} (NA); {above_null} of {len(table)} models beat it on NA, so sign agreement barely separates "
    f"the models. The correlation across factors does: NA r ranges from {worst['na_r']:.2f} ({worst['model']}, "
    f"interval {worst['na_r_low']:.2f} to {worst['na_r_high']:.2f}) to {best['na_r']:.2f} ({best['model']}, "
    f"{best['na_r_low']:.2f} to {best['na_r_high']:.2f})."
)

# %%
fig, axes = plt.subplots(1, 2, figsize=(12, 7))
plot_measure_ranking(axes[0], align_rows, "na_r", "NA r with humans")
plot_measure_ranking(axes[1], align_rows, "na_mae", "NA mean absolute error")
fig.tight_layout()
show_figure(fig, "09_alignment_leaderboard")

# %% [markdown]
# ## 4. The bundled model, from a committed run
# `data/runs/` holds a run of the bundled SmolLM2-135M-Instruct made with the command line:
#
# ```bash
# eqbench-nb run --benchmark emotionbench --repeats 1 --default-repeats 2 --per-factor 1 \
#     --emotions Anger,Depression --timeout 1800 --out data/runs
# ```
#
# (one situation of each Anger and Depression factor, each asked once; the default twice). Running the model
# live is left to a flag below, so that `eqbench-nb reproduce` stays fast. Caveats: this is a 135-million-parameter
# model, far below anything the paper tested; and the human comparison rests on the inferred label map.

# %%
from eqbench_nb.emotionbench.runs import read_emotion_run
from eqbench_nb.emotionbench.summary import summarise_run
from eqbench_nb.paths import tables_dir

RUN_LIVE = False  # True: run the bundled model now (minutes on 2 cores), into runs/emotionbench
run_path = next((tables_dir() / "runs").glob("SmolLM2-135M-Instruct__emotionbench__*.jsonl"))
if RUN_LIVE:
    from eqbench_nb.emotionbench.task import run_emotionbench

    live = run_emotionbench(
        repeats=1, default_repeats=2, per_factor=1, emotions=["Anger"], out_dir="runs/emotionbench", progress=False
    )
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
show_markdown(
    f"Across the {len(challenge)} scale × factor × sub-scale cells, {share_up:.0%} rise against the default and "
    f"{share_same:.0%} show no significant change at α = 0.01. No human norms exist for these scales, so nothing "
    f"here says whether people would move as much."
)

# %% [markdown]
# ## 6. Both benchmarks side by side
# Does a model's EQ-Bench score predict how it aligns with humans on EmotionBench? The models on both boards are
# matched by name in `data/emotionbench_eqbench_names.csv` (a source and a note per row; "judgement" where an API
# alias had to be dated). The EQ-Bench v2 score is the one in `data/benchmarks_joined.csv`.

# %%
joined, corr = alignment.side_by_side(align_rows)
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
fig, ax = plt.subplots(figsize=(6, 4.5))
plot_side_by_side(ax, joined["eqbench_v2"], joined["na_r"], joined["emotionbench_model"], "NA r with humans")
show_figure(fig, "09_eqbench_vs_emotionbench")

# %%
r_na = corr.set_index("measure").loc["na_r"]
record_headline(
    NOTEBOOK,
    "EQ-Bench v2 score against EmotionBench NA alignment (r with humans across factors), Pearson r",
    "data/benchmarks_joined.csv (EQ-Bench v2) and EmotionBench leaderboard data.json beside crowd.xlsx, "
    "matched by data/emotionbench_eqbench_names.csv",
    round(float(r_na["pearson"]), 3),
    (round(float(r_na["pearson_low"]), 3), round(float(r_na["pearson_high"]), 3)),
    int(r_na["n"]),
    method="percentile bootstrap over models, 2,000 resamples",
    n_unit="models on both boards",
    key="emotionbench_eqbench_na_r",
)
spearman_crosses = r_na["spearman_low"] <= 0 <= r_na["spearman_high"]
without = joined[~joined["emotionbench_model"].str.startswith("LLaMA-2")]
r_without = alignment.correlation_without(without)
show_markdown(
    f"Over the {int(r_na['n'])} models on both boards, EQ-Bench v2 correlates with EmotionBench NA alignment at "
    f"Pearson r = {r_na['pearson']:.2f} (95 % interval {r_na['pearson_low']:.2f} to {r_na['pearson_high']:.2f}, "
    f"bootstrap over models) and Spearman {r_na['spearman']:.2f} ({r_na['spearman_low']:.2f} to "
    f"{r_na['spearman_high']:.2f})"
    + (", an interval that includes zero" if spearman_crosses else "")
    + f". Without the two LLaMA-2 models, the weakest on both boards, Pearson r is {r_without['pearson']:.2f} "
    f"({r_without['pearson_low']:.2f} to {r_without['pearson_high']:.2f}, n = {r_without['n']}). "
    + (
        "The association rests on them: stronger models score higher on both boards, which is not the same as "
        "EQ-Bench measuring what EmotionBench measures."
        if r_without["pearson_low"] <= 0
        else "The association holds without them, though n is small."
    )
)
