# %% [markdown]
# # Judgemark v1: the published board re-derived, and 15 judges of the same 19 writers
#
# The official EQ-Bench pipeline (EQ-bench/EQ-Bench at `d28c60c`) runs two benchmarks beside EQ-Bench that a judge
# model scores: creative-writing (19 prompts, each piece scored on that prompt's criteria) and Judgemark, in which a
# judge scores the pre-written pieces of 19 writer models and is itself scored on how well its scores of those
# writers spread them out and agree with other benchmarks. eqbench.com published a Judgemark v1 board of 15 judges
# (EQ-bench/EQ-bench-site `judgemark.js` at `03c3106`), committed here as `data/judgemark_v1_board.csv`.
#
# This notebook asks:
# 1. Does this project's implementation give the board's statistics from the judges' published writer scores, and
#    which version of upstream's formula made the board?
# 2. How much does the formula's version move the judges?
# 3. How far do the 15 judges agree about the 19 writers?
# 4. How widely does each judge spread its scores?
# 5. What are the self and family biases the board prints, and how large are they against the fit they come from?
# 6. How do Judgemark v1 and v2.1 rank the vendor families they share (no judge model is on both boards)?
#
# The rules are in `eqbench_nb/judged/` with the upstream commit each reproduces (see `docs/judged.md`).

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
from eqbench_nb.analysis import verdicts
from eqbench_nb.analysis.stats import correlation_summary
from eqbench_nb.data import shared_data_dir
from eqbench_nb.judged import board, plots
from eqbench_nb.report import record_headline, show_figure, show_markdown

NOTEBOOK = "12_judgemark_v1"
BOARD = f"Judgemark v1 board ({board.BOARD_SOURCE})"
judges = board.judges()
matrix = board.writer_matrix()
show_markdown(
    f"The board: **{len(judges)} judges**, each with its score of **{len(matrix)} writer models** and "
    f"{len(board.published(judges[0]))} statistics. Source: {board.BOARD_SOURCE}."
)

# %% [markdown]
# ## 1. The board, re-derived
# For each judge every statistic derivable from its published writer scores is recomputed with this project's
# implementation of C-4-5-3/EQ-Bench `38a29f8` (`lib/judgemark.py`): mean, range, SD, CV, top-5 SD, Pearson and
# Kendall with Arena Elo and EQ-Bench over all writers and over the judge's top 8, with the reference numbers from
# that file. Self and family bias also need the other judges' writer scores: upstream fits them against its own
# panel table of 8 judges (in the same file), which is used here too. The ANOVA F and p and the average 95 % CI
# need the judge's score of every piece, which was never published: they are taken as published, and the
# Judgemark score is recomputed with the published F as its one such input.

# %%
table = board.rederive()
derivable = table[table["kind"] != "per-item scores: taken as published"].copy()
derivable["matches"] = derivable["matches"].astype(bool)
by_stat = (
    derivable.assign(abs_diff=derivable["difference"].abs())
    .groupby("statistic", sort=False)
    .agg(judges=("judge", "size"), reproduced=("matches", "sum"), largest_abs_difference=("abs_diff", "max"))
)
by_stat

# %%
full = board.judges_fully_rederived(table)
jmk = table[table["statistic"] == "Judgemark"]
jm_ok = int((jmk["difference"].abs() <= board.JUDGEMARK_TOLERANCE).sum())
stat_rows = derivable[derivable["kind"] != "writer scores + published ANOVA F"]
bias_rows = stat_rows[stat_rows["kind"] == "writer scores + bias panel"]
bias_defined = int(bias_rows["published"].notna().sum())
record_headline(
    NOTEBOOK,
    "Judgemark v1 board: judges (of 15) whose every statistic derivable from published writer scores (range, SD, CV, "
    "top-5 SD, 8 correlations, self and family bias) re-derives within 0.01 under 38a29f8's formula",
    BOARD,
    len(full),
    n=len(judges),
    n_unit="judges",
    key="judgemark_v1_stats_rederived",
    caveats=[
        "ANOVA F and p and the average 95 % CI need per-item scores never published: taken as published",
        "bias fits use upstream's own panel table of 8 judges (C-4-5-3/EQ-Bench @ 38a29f8 lib/judgemark.py)",
    ],
)
record_headline(
    NOTEBOOK,
    "Judgemark v1 board: judges (of 15) whose Judgemark score re-derives within 0.05 from published writer scores "
    "and the published ANOVA F (38a29f8 formula)",
    BOARD,
    jm_ok,
    n=len(judges),
    n_unit="judges",
    key="judgemark_v1_score_rederived",
)
show_markdown(
    f"**{len(full)} of {len(judges)} judges** re-derive in full: {int(stat_rows['matches'].sum())} of "
    f"{len(stat_rows)} derivable statistics are within {board.STAT_TOLERANCE} of the board (the largest difference "
    f"is {stat_rows['difference'].abs().max():.4f}, i.e. the board's own rounding to 2 decimals). The board prints "
    f"self and family bias for {bias_defined} of the {len(bias_rows)} judge × bias cells; the fit gives a value for "
    f"exactly those and none for the others (judges that are not among the writers, that have no family in "
    f"upstream's family map, or that upstream leaves out of the panel). The Judgemark score, from the published "
    f"ANOVA F, is within {board.JUDGEMARK_TOLERANCE} for **{jm_ok} of {len(judges)}** (largest difference "
    f"{jmk['difference'].abs().max():.4f})."
)

# %% [markdown]
# ## 2. Three versions of the formula
# The pinned pipeline (`d28c60c`) averaged six normalised parts (range, SD, top-5 SD, CV, mean Kendall and mean
# Pearson with Arena, EQ-Bench and MAGI, each divided by a fixed ceiling and clipped); `31bd53b` kept the SD and the
# correlations (adding the top-8 ones, dropping MAGI, with newer Arena numbers); `38a29f8` added the ANOVA F. Only the
# last reproduces the board; `docs/judged.md` gives every ceiling.

# %%
versions = board.versions_table()
versions.round(2)

# %%
opus = versions.loc["claude-3-opus-20240229"]
rank_d, rank_b = versions["d28c60c"].rank(ascending=False), versions["board"].rank(ascending=False)
moved = (rank_d - rank_b).abs()
agree = correlation_summary(versions["d28c60c"], versions["board"])
show_markdown(
    f"Under `d28c60c`'s formula claude-3-opus scores {opus['d28c60c']:.2f} (the board: {opus['board']:.2f}, which "
    f"`38a29f8` gives: {opus['38a29f8']:.2f}). Across the {len(versions)} judges, "
    + verdicts.describe(
        agree["spearman"],
        agree["spearman_low"],
        agree["spearman_high"],
        what="the Spearman correlation of the d28c60c and board rankings",
        n=agree["n"],
        unit="judges",
    )
    + f" ({agree['interval_method']}). The judge that moves most is {moved.idxmax()} ({int(moved.max())} places: "
    f"{versions.loc[moved.idxmax(), 'd28c60c']:.2f} under `d28c60c`, {versions.loc[moved.idxmax(), 'board']:.2f} "
    "on the board)."
)

# %% [markdown]
# ## 3. How far the judges agree about the writers
# The board is real multi-judge data: 15 judges scoring the same 360 pieces of 19 writers. Below, each pair of
# judges' Spearman correlation over the 19 writers, and each judge against the consensus of the other 14 (the mean
# of their scores per writer). With so few writers (below the project's small-n threshold) the intervals are Fisher-z
# (Bonett–Wright for Spearman), not a bootstrap; the writers are the unit, so they say nothing about a different set
# of writers or pieces.

# %%
pairwise = board.pairwise_agreement("spearman")
fig, ax = plt.subplots(figsize=(8.5, 7.5))
im = plots.plot_agreement(ax, pairwise, "Spearman correlation of two judges' scores of the 19 writers")
fig.colorbar(im, ax=ax, shrink=0.7)
show_figure(fig, "12_judge_agreement", caveats=["n = 19 writers per cell; published writer scores (judgemark.js)"])

# %%
upper = pairwise.where(np.triu(np.ones(pairwise.shape, dtype=bool), k=1)).stack().dropna()  # each pair once
consensus = board.consensus_agreement()
consensus[["n", "spearman", "spearman_low", "spearman_high", "pearson", "pearson_low", "pearson_high"]].round(2)

# %%
weakest = consensus["spearman"].idxmin()
w = consensus.loc[weakest]
low_pair = upper.idxmin()
show_markdown(
    f"Over the {len(upper)} pairs of judges the Spearman correlation runs from {upper.min():.2f} "
    f"({low_pair[0]} with {low_pair[1]}) to {upper.max():.2f}, median {upper.median():.2f}. Against the consensus of "
    f"the others, the Spearman runs from {consensus['spearman'].min():.2f} to {consensus['spearman'].max():.2f} "
    f"(median {consensus['spearman'].median():.2f}); the weakest: "
    + verdicts.describe(
        w["spearman"], w["spearman_low"], w["spearman_high"], what=f"{weakest}'s Spearman", n=int(w["n"]), unit="writers"
    )
    + "."
)

# %% [markdown]
# ## 4. How widely each judge spreads its scores
# Judgemark rewards spread directly (SD/15 is a quarter of the `38a29f8` score, and the ANOVA F another quarter),
# so a judge that separates the writers scores higher even before the correlations count.

# %%
spread = board.spread_table().sort_values("sd")
fig, ax = plt.subplots(figsize=(8, 6))
plots.plot_spread(ax, matrix, list(spread.index))
show_figure(fig, "12_judge_spread", caveats=["published writer scores (judgemark.js); judges ordered by SD"])

# %%
sd_vs_score = correlation_summary(spread["sd"], spread["judgemark"])
show_markdown(
    f"The SDs of the judges' writer scores run from {spread['sd'].min():.2f} ({spread['sd'].idxmin()}) to "
    f"{spread['sd'].max():.2f} ({spread['sd'].idxmax()}). Across the {len(spread)} judges, "
    + verdicts.describe(
        sd_vs_score["pearson"],
        sd_vs_score["pearson_low"],
        sd_vs_score["pearson_high"],
        what="the Pearson correlation of SD with the Judgemark score",
        n=sd_vs_score["n"],
        unit="judges",
    )
    + " (partly by construction: SD is one of the score's four parts)."
)
spread.round(2)

# %% [markdown]
# ## 5. Self and family bias, as published and as recomputed
# Upstream fits each judge's score of a writer by a quadratic in the mean score the panel's other judges gave it
# (18 or 19 writers); self bias is the judge's residual on its own writing, family bias its mean residual on its
# family's writers. Upstream prints the bias alone; here it is set beside the fit's residual SD, the scale a single
# residual varies on, which the board does not give.

# %%
bias = board.bias_table()
bias.round(2)

# %%
has_self = bias.dropna(subset=["self_rederived"])
ratio = has_self["self_rederived"] / has_self["fit_residual_sd"]
top = has_self["self_rederived"].idxmax()
rest = ratio.drop(top)
show_markdown(
    f"{len(has_self)} judges have a self bias. The largest is {top}'s {has_self.loc[top, 'self_rederived']:+.2f} "
    f"points (published {has_self.loc[top, 'self_published']:+.2f}), {ratio[top]:.1f} times its fit's residual SD "
    f"of {has_self.loc[top, 'fit_residual_sd']:.2f}; the other {len(rest)} lie between {rest.min():+.1f} and "
    f"{rest.max():+.1f} residual SDs. One residual on one writer is a single observation: the board gives no "
    "interval, and none is computed here."
)

# %% [markdown]
# ## 6. Judgemark v1 against v2.1, by vendor family
# No judge model is on both boards, so they can only be compared by vendor family, and the families' judges are
# different models of different generations (listed in the table). Judgemark v2.1's published scores are read
# simply from `../shared/data/judgemark_v2/results/scores.csv` (EQ-bench/Judgemark-v2 @ `23c3e1c`), leaving out the
# one unfinished run.

# %%
folder = shared_data_dir()
v2_path = folder / "judgemark_v2" / "results" / "scores.csv" if folder else None
if v2_path is not None and v2_path.is_file():
    v2_scores = pd.read_csv(v2_path).dropna(subset=["judgemark_score"]).set_index("model")["judgemark_score"]
    families = board.family_comparison(versions["board"], v2_scores)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    plots.plot_families(ax, families)
    show_figure(
        fig,
        "12_v1_v2_families",
        caveats=["different judge models on the two boards: a family's best judge on each", "n = 5 families"],
    )
    fam = correlation_summary(families["v1_best"], families["v2_best"])
    show_markdown(
        f"{len(families)} families have judges on both boards. The best judge of each family ranks "
        + ", ".join(f"{f} {int(r.v1_rank)} → {int(r.v2_rank)}" for f, r in families.iterrows())
        + " (v1 → v2.1). "
        + verdicts.describe(
            fam["spearman"],
            fam["spearman_low"],
            fam["spearman_high"],
            what="The Spearman correlation of the families' best scores",
            n=fam["n"],
            unit="families",
        )
        + "."
    )
    display_table = families
else:
    show_markdown("Judgemark v2.1's results are not beside the checkout (`../shared/data/judgemark_v2`): skipped.")
    display_table = None
display_table
