# %% [markdown]
# # Judges against people: Kumar et al.'s tables re-derived, and what a judge's ratings are worth
#
# Kumar et al. ("When large language models are reliable for judging empathic communication",
# aakriti1kumar/replication-data-and-code-when-LLMs-reliable-empathic-communication) had three experts, crowd
# workers and three LLMs (gpt-4o, claude-3.7-sonnet, gemini-2.5-pro) rate the same conversations on the dimensions
# of four frameworks of empathic communication (Empathetic Dialogues, EPITOME, Perceived Empathy, Lend an Ear), and
# published two tables of agreement between pairs of raters. The ratings and the tables are read at run time
# (`../shared/data/empathy_judges`, or `EQBENCH_NB_DATA`, or a download of the pinned commit checked by sha256).
#
# This notebook asks:
# 1. Do the two published tables re-derive from the ratings?
# 2. Per dimension, does each published LLM judge agree with the experts as well as the experts agree with one
#    another?
# 3. On Welivita & Pu's responses (notebook 13): how far is a judge's Good share from the people's on each arm, and
#    does a calibration to people on the human arm carry to GPT-4's arms? (a **stand-in** judge)
# 4. What do the people's ratings and a judge's together buy: the prediction-powered interval (a **stand-in**
#    judge)
# 5. The bundled model as judge: a committed `judge-check` run of the 135M model on a stratified sample.
#
# The rules are in `eqbench_nb/empathy_judges/tables.py` (read from the authors' `analysis.ipynb`) and
# `eqbench_nb/welivita_pu/calibration.py`; the agreement statistics in `eqbench_nb/analysis/agreement.py`, PPI in
# `eqbench_nb/analysis/ppi.py`.

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
from eqbench_nb.empathy_judges import files as kumar_files
from eqbench_nb.empathy_judges import tables
from eqbench_nb.paths import tables_dir
from eqbench_nb.report import MonteCarlo, record_headline, show_figure, show_markdown, stable_round
from eqbench_nb.welivita_pu import calibration, study
from eqbench_nb.welivita_pu import files as wp_files

NOTEBOOK = "14_judges_against_people"
km, wm = kumar_files.FILES.manifest(), wp_files.FILES.manifest()
KUMAR = f"Kumar et al. ratings and tables ({km['repository']} @ {km['commit'][:7]})"
WP = f"Welivita & Pu, {wp_files.RATINGS_FILE} ({wm['repository']} @ {wm['commit'][:7]})"
JUDGE_NAMES = {"gpt": "gpt-4o", "claude": "claude-3.7-sonnet", "gemini": "gemini-2.5-pro"}
ours = tables.rederived()
long = tables.all_ratings()
show_markdown(
    f"Data: {KUMAR}: **{long['dimension'].nunique()} dimensions** of {long['dataset'].nunique()} frameworks, "
    f"{long['rater'].nunique()} raters (with the experts' median and the `llm` alias), "
    f"{long.drop_duplicates(['dataset', 'id']).shape[0]} conversations in all."
)

# %% [markdown]
# ## 1. The two published tables, re-derived
# Each table has one row per dimension and pair of raters (experts' median–llm, experts–crowd, llm–crowd and the
# three expert pairs): Spearman with its Fisher interval and p, the weighted kappa with its z and p. Re-derived
# from the ratings with this project's code and compared cell by cell at the digits printed. As the authors'
# notebook does, **"llm" in the published tables is gemini-2.5-pro** (the file `gemini_ratings.csv`): its file list
# and its list of method names are in the same order with `gemini` where the names say `llm`.

# %%
comparisons = {t: tables.compare(t, ours=ours) for t in (tables.KAPPA_TABLE, tables.SPEARMAN_TABLE)}
for name, c in comparisons.items():
    record_headline(
        NOTEBOOK,
        f"Kumar et al.: rows of the published table {name.split('/')[-1]} that re-derive from the ratings to every "
        "printed digit",
        KUMAR,
        c.matching,
        n=c.rows,
        n_unit="rows (dimension × rater pair)",
        key=f"kumar_{name.split('/')[-1].removesuffix('.csv')}_rederived",
        caveats=["'llm' in the published tables is gemini-2.5-pro (gemini_ratings.csv), as in the authors' notebook"],
    )
show_markdown(
    " ".join(
        f"`{name}`: **{c.matching} of {c.rows}** rows re-derive to every printed digit"
        + (f" ({len(c.differences)} cells differ, listed below)." if len(c.differences) else "; no cell differs.")
        for name, c in comparisons.items()
    )
)
differing = pd.concat([c.differences for c in comparisons.values()], ignore_index=True)
differing if len(differing) else None

# %% [markdown]
# ## 2. The published LLM judges against the experts, per dimension
# Each judge's weighted kappa against the experts' median (the authors' rule: ratings × 100, rounded, positions as
# weights), with a 95 % interval from resampling the conversations, beside the **expert band**: the median and
# range of the three expert–expert kappas of that dimension. The verdict rule (`tables.verdict`): a judge
# **reaches the expert band** when its interval's upper end is at or above the band's median and its lower end at or
# above the band's lowest pair; it is **below the expert band** when its upper end is below the lowest pair;
# otherwise this n **cannot tell**. The judge is compared with the experts' *median*, the band is made of *single*
# experts: the median of three is less noisy than one expert, which favours the judge a little.
#
# The intervals (2,000 resamples each, 63 of them) are read from `data/kumar_judge_intervals.csv`, written by
# `benchmarks/empathy_judges_intervals.py` (too slow for this notebook's share of `reproduce`); the kappas are
# recomputed here and checked against it.

# %%
stored = pd.read_csv(tables_dir() / "kumar_judge_intervals.csv")
bands = tables.expert_bands(ours)
rows = []
for r in stored.itertuples(index=False):
    kappa = tables.pair_row(long[long["dataset"] == r.Dataset], r.Dimension, ("experts", r.judge))[
        "Weighted Cohen's Kappa"
    ]
    if not np.isclose(kappa, r.kappa, atol=1e-6, equal_nan=True):
        raise ValueError(f"kumar_judge_intervals.csv: {r.judge} {r.Dimension} kappa {r.kappa}, recomputed {kappa}")
    band = bands[r.Dimension]
    rows.append(
        {
            "judge": JUDGE_NAMES[r.judge],
            "Dataset": r.Dataset,
            "Dimension": r.Dimension,
            "kappa": kappa,
            "low": r.low,
            "high": r.high,
            "expert low": band.low,
            "expert median": band.median,
            "expert high": band.high,
            "verdict": tables.verdict(r.low, r.high, band),
        }
    )
verdicts = pd.DataFrame(rows)
verdict_counts = verdicts.pivot_table(index="judge", columns="verdict", values="kappa", aggfunc="size", fill_value=0)
verdict_counts

# %%
dims = list(dict.fromkeys(verdicts["Dimension"]))
fig, ax = plt.subplots(figsize=(8.5, 9.5))
for i, d in enumerate(dims):
    b = bands[d]
    ax.fill_betweenx([i - 0.4, i + 0.4], b.low, b.high, color="0.85", lw=0)
    ax.plot([b.median, b.median], [i - 0.4, i + 0.4], color="0.3", lw=1.5)
colours = {"gpt-4o": "tab:green", "claude-3.7-sonnet": "tab:orange", "gemini-2.5-pro": "tab:blue"}
for k, (name, colour) in enumerate(colours.items()):
    one = verdicts[verdicts["judge"] == name].set_index("Dimension").loc[dims]
    y = np.arange(len(dims)) + (k - 1) * 0.25
    ax.errorbar(
        one["kappa"],
        y,
        xerr=[one["kappa"] - one["low"], one["high"] - one["kappa"]],
        fmt="o",
        ms=4,
        color=colour,
        lw=1,
        label=name,
    )
ax.set_yticks(np.arange(len(dims)), [f"{verdicts.set_index('Dimension').loc[d, 'Dataset'].iloc[0]}: {d}" for d in dims])
ax.tick_params(axis="y", labelsize=7.5)
ax.invert_yaxis()
ax.axvline(0, color="k", lw=0.6)
ax.set_xlabel("weighted kappa against the experts' median (grey: expert-pair range, bar: its median)")
ax.set_title(
    f"Three published LLM judges on {len(dims)} dimensions, 95 % conversation-bootstrap intervals", fontsize=10
)
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
show_figure(
    fig,
    "14_judges_vs_expert_band",
    caveats=[
        "the judge is compared with the experts' median of three, the band with single expert pairs (favours the judge)",
        "intervals: 2,000 conversation resamples (data/kumar_judge_intervals.csv)",
    ],
)

# %%
for judge, name in JUDGE_NAMES.items():
    one = verdicts[verdicts["judge"] == name]
    reaches = int((one["verdict"] == "reaches the expert band").sum())
    record_headline(
        NOTEBOOK,
        f"Kumar et al.: dimensions (of {len(one)}) where {name} against the experts' median reaches the expert band "
        "(interval's upper end at or above the expert pairs' median kappa, lower end at or above their lowest)",
        KUMAR,
        reaches,
        n=len(one),
        n_unit="dimensions",
        key=f"kumar_{judge}_reaches_band",
        caveats=[
            f"below the band: {int((one['verdict'] == 'below the expert band').sum())}; cannot tell: "
            f"{int((one['verdict'] == 'cannot tell at this n').sum())}",
            "judge against the experts' median, band from single expert pairs",
        ],
    )
by_dim = verdicts.pivot(index="Dimension", columns="judge", values="verdict").loc[dims]
all_reach = [d for d in dims if (by_dim.loc[d] == "reaches the expert band").all()]
none_reach = [d for d in dims if (by_dim.loc[d] == "below the expert band").all()]
share_cannot = float((verdicts["verdict"] == "cannot tell at this n").mean())
show_markdown(
    "Per judge, of the "
    + f"{len(dims)} dimensions: "
    + "; ".join(
        f"**{name}** reaches the band on {int(verdict_counts.loc[name].get('reaches the expert band', 0))}, is below "
        f"it on {int(verdict_counts.loc[name].get('below the expert band', 0))}, cannot tell on "
        f"{int(verdict_counts.loc[name].get('cannot tell at this n', 0))}"
        for name in JUDGE_NAMES.values()
    )
    + f". All three reach it on {len(all_reach)} dimension(s)"
    + (f" ({', '.join(all_reach)})" if all_reach else "")
    + f"; all three are below it on {len(none_reach)}"
    + (f" ({', '.join(none_reach)})" if none_reach else "")
    + f". {share_cannot:.0%} of the {len(verdicts)} verdicts are 'cannot tell': with the conversations each "
    "framework has, a judge's interval is wide next to the spread of the expert pairs."
)

# %% [markdown]
# ## 3. A judge on Welivita & Pu's responses: arm bias and calibration transfer (a stand-in judge)
# No judge's ratings of all of Welivita & Pu's 6,000 responses are stored, so this section runs on a **synthetic
# stand-in judge** (`calibration.synthetic_judge`): each response's human rating passed through a stated confusion
# matrix with a seeded draw, right about two times in three and leaning to Good. It shows what the machinery does
# with an imperfect judge of known quality, **not how any real judge behaves**. A real judge's ratings of a sample
# come from `eqbench-nb judge-check` (section 5: the bundled model's).
#
# The judge's **arm bias**: its Good share on an arm minus the people's. A calibration fitted on the human arm's
# responses (where both are known) predicts the people's Good share on a GPT-4 arm from the judge's ratings alone,
# two ways (`judge|human`: the judge's errors given the people's rating carry over, a label-shift correction;
# `human|judge`: the people's shares behind each judge category carry over). The intervals of the prediction's
# error (a rater-clustered bootstrap, 500 resamples) are read from `data/welivita_pu_calibration_transfer.csv`
# (`benchmarks/empathy_judges_intervals.py`); the predictions are recomputed here and checked against it.

# %%
wp = study.ratings()
stand_in = calibration.synthetic_judge(wp)
confusion = pd.DataFrame(
    calibration.STAND_IN_CONFUSION,
    index=[f"people: {v}" for v in study.LABELS.values()],
    columns=[f"judge: {v}" for v in study.LABELS.values()],
)
bias = pd.DataFrame(
    {
        study.ARMS[a]: {
            "people Good": float((wp.loc[wp["arm"] == a, "rating"] == study.GOOD).mean()),
            "judge Good": float((stand_in[wp["arm"] == a] == study.GOOD).mean()),
        }
        for a in study.ARMS
    }
).T.assign(arm_bias=lambda t: t["judge Good"] - t["people Good"])
confusion

# %%
bias.round(3)

# %%
stored_transfer = pd.read_csv(tables_dir() / "welivita_pu_calibration_transfer.csv")
for r in stored_transfer.itertuples(index=False):
    t = calibration.calibration_transfer(wp, stand_in, r.calibrated_on, r.target, r.method, reps=2)
    if not np.isclose(t.predicted, r.predicted, atol=1e-6) or not np.isclose(t.actual, r.actual, atol=1e-6):
        raise ValueError(f"welivita_pu_calibration_transfer.csv: {r.target} {r.method} does not recompute")
transfer = stored_transfer[["target", "method", "raw", "predicted", "actual", "error", "low", "high"]].assign(
    target=lambda t: t["target"].map(study.ARMS)
)
transfer.round(3)

# %%
covers = transfer.assign(zero_inside=(transfer["low"] <= 0) & (transfer["high"] >= 0))
lsh = covers[covers["method"] == "judge|human"]
hj = covers[covers["method"] == "human|judge"]
human_bias = bias.loc[study.ARMS["human"], "arm_bias"]
show_markdown(
    f"The stand-in's arm bias is {human_bias:+.3f} on the human arm and "
    + " and ".join(f"{bias.loc[study.ARMS[a], 'arm_bias']:+.3f} on {study.ARMS[a]}" for a in study.MODEL_ARMS)
    + ": one confusion matrix, yet a different bias per arm, because the arms' people rate Good at different rates. "
    "So a judge's raw Good shares do not give the arms' difference in people's terms. Calibrated on the human arm, "
    "`judge|human` misses the GPT-4 arms' people's Good share by "
    + ", ".join(f"{r.error:+.3f} [{r.low:+.3f}, {r.high:+.3f}]" for r in lsh.itertuples())
    + f" (zero inside the interval for {int(lsh['zero_inside'].sum())} of {len(lsh)}); `human|judge` by "
    + ", ".join(f"{r.error:+.3f} [{r.low:+.3f}, {r.high:+.3f}]" for r in hj.itertuples())
    + f" (zero inside for {int(hj['zero_inside'].sum())} of {len(hj)}), since it carries the human arm's Good rate "
    "with it. The stand-in's errors are by construction the same on every arm, the case the label-shift calibration "
    "assumes; whether a real judge's errors are the same on human and model text is what its stored judgements will "
    "test."
)

# %% [markdown]
# ## 4. The prediction-powered interval (a stand-in judge)
# Suppose only n of the human arm's 2,000 responses had a person's rating and the stand-in judge had rated all of
# them. PPI (Angelopoulos et al.; power-tuned) estimates the people's Good share from the n people and the judge on
# the rest; the classical interval uses the n people alone. Repeated over seeded draws of which n are rated, it
# gives each interval's coverage of the full-2,000 truth (with its Monte-Carlo error) and the ratio of their mean
# widths.

# %%
PPI_REPS = 3000  # enough for a coverage's Monte-Carlo SE to leave two decimals stable
demo = calibration.ppi_demonstration(wp, stand_in, "human", ns=(50, 200), reps=PPI_REPS)
ppi_table = pd.DataFrame([r.__dict__ for r in demo]).set_index("n")
ppi_table.round(4)

# %%
for r in demo:
    cov_mc = MonteCarlo.from_share(r.ppi_coverage, r.reps, "seeded draws of the rated responses")
    record_headline(
        NOTEBOOK,
        f"W&P human arm, stand-in judge: coverage of PPI's 95 % interval of the Good share with {r.n} people's ratings",
        WP,
        stable_round(r.ppi_coverage, cov_mc.se),
        n=r.n,
        n_unit=f"human ratings (of {len(stand_in[wp['arm'] == 'human'])}; the stand-in judge on all)",
        mc=cov_mc,
        key=f"wp_ppi_coverage_{r.n}",
        caveats=["a synthetic stand-in judge (calibration.synthetic_judge), not a real one"],
    )
    ratio_mc = MonteCarlo(r.reps, r.width_ratio_mc, float("nan"), float("nan"), "seeded draws of the rated responses")
    record_headline(
        NOTEBOOK,
        f"W&P human arm, stand-in judge: PPI's mean interval width over the classical one's with {r.n} people's ratings",
        WP,
        stable_round(r.width_ratio, r.width_ratio_mc),
        n=r.n,
        n_unit=f"human ratings (of {len(stand_in[wp['arm'] == 'human'])}; the stand-in judge on all)",
        mc=ratio_mc,
        key=f"wp_ppi_width_ratio_{r.n}",
        caveats=["a synthetic stand-in judge (calibration.synthetic_judge), not a real one"],
    )
show_markdown(
    " ".join(
        f"With **{r.n}** people's ratings, PPI covers the truth {r.ppi_coverage:.3f} ± {r.ppi_coverage_mc:.3f} of "
        f"the time (classical {r.classical_coverage:.3f} ± {r.classical_coverage_mc:.3f}; ± one Monte-Carlo SE over "
        f"{r.reps} draws) and its interval is {r.width_ratio:.3f} ± {r.width_ratio_mc:.3f} times as wide "
        f"(mean width {r.ppi_width:.3f} against {r.classical_width:.3f}; mean power-tuning λ {r.mean_lam:.2f})."
        for r in demo
    )
    + f" A width ratio of {demo[0].width_ratio:.2f} is worth about {1 / demo[0].width_ratio ** 2 - 1:.0%} more "
    "people's ratings at the same width; a judge right about two times in three predicts a person's Good only "
    "partly. A better judge narrows the interval more; with a worse one the power tuning moves λ towards zero, "
    "back to the classical interval."
)

# %% [markdown]
# ## 5. The bundled model as judge (a 135M model, on a stratified sample)
# `data/judge_check_runs/` holds a committed run of the bundled **SmolLM2-135M-Instruct, a 135-million-parameter model**, far
# smaller than any judge in use, made offline with `eqbench-nb judge-check --data welivita-pu --sample 32 --seed 0
# --judge-max-tokens 24`: 32 of Welivita & Pu's prompts drawn round the 32 emotions (one each), each with its three
# responses, 96 in all. It was asked what the study's raters were asked (the empathetic-responding benchmark's judge
# prompt, built from the rating page) and read by the same reader; a reply with no one rating word was asked again,
# three requests in all, then left unrated. The report below is `judge-check`'s own (`benchmarks/judge_check.py`),
# computed here from the run file and the study's ratings. It shows how a real judge's report reads; a 135M model is
# not expected to be a reliable judge, and 96 responses give wide intervals.

# %%
from eqbench_nb.benchmarks import judge_check

judge_run = judge_check.read(
    next((tables_dir() / "judge_check_runs").glob("SmolLM2-135M-Instruct__judge-check-welivita-pu__*.jsonl"))
)
judge_rows = judge_check.report_rows([judge_run])
agreement = pd.DataFrame([r for r in judge_rows if r.get("against")])
agreement_table = agreement[["dimension", "n", "clusters", "kappa", "kappa_low", "kappa_high", "spearman",
                             "good_human", "good_judge"]].set_index("dimension")  # fmt: skip
agreement_table.round(3)

# %%
overall = agreement.set_index("dimension").loc["rating (all)"]
cats = [study.LABELS[int(c)] for c in overall["confusion"]["categories"]]
pd.DataFrame(overall["confusion"]["counts"], index=[f"people: {c}" for c in cats],
             columns=[f"judge: {c}" for c in cats])  # fmt: skip

# %%
judge_bias = pd.DataFrame([r for r in judge_rows if r.get("kind") == "arm bias"]).set_index("arms")
judge_bias[["prompts", "bias", "low", "high"]].round(3)

# %%
both = judge_bias.loc["GPT-4 (both arms) − human"]
if both["low"] <= 0 <= both["high"]:
    reading = "the interval holds 0, so at this n it cannot tell whether the model favours GPT-4's responses more than people did"
elif both["low"] > 0:
    reading = "above 0: it favours GPT-4's responses more than people did"
else:
    reading = "below 0: it favours GPT-4's responses less than people did"
asked = len(judge_run.header.own.items or ())
show_markdown(
    f"The 135M model rated {int(overall['n'])} of the {asked} responses (the rest stayed unreadable after three "
    f"requests). Against the one person who rated each, its weighted kappa is {overall['kappa']:.2f} "
    f"[{overall['kappa_low']:.2f}, {overall['kappa_high']:.2f}] (95 %, bootstrap over the part_no blocks); it calls "
    f"{overall['good_judge']:.0%} of them Good where the people called {overall['good_human']:.0%} Good. Its arm "
    f"bias, (judge − people) on GPT-4's responses minus on the listeners', is {both['bias']:+.2f} "
    f"[{both['low']:+.2f}, {both['high']:+.2f}] rating points over {int(both['prompts'])} prompts rated in all three "
    f"arms: {reading}."
)
