"""How the metric behaves (notebook 06; :mod:`eqbench_nb.eqbench.study.metric`).

Each function draws on a given ``ax`` and returns it."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ....analysis import stats as S
from ....plots.common import (
    PALETTE,
    short_name,
)
from ...questions import PASS_FRACTION
from ...scoring import ADJUST_CONST, fullscale_penalty
from ..metric import penalty_curve


def plot_penalty(ax, d_max: float = 10.0):
    """f(d) beside plain absolute error d, with integer errors marked."""
    d = np.linspace(0, d_max, 401)
    ax.plot(d, d, "--", color="0.5", label="absolute error d")
    ax.plot(d, penalty_curve(d), color="C0", label="EQ-Bench v2 penalty f(d)")
    k = np.arange(0, int(d_max) + 1)
    ax.plot(k, penalty_curve(k), "o", color="C0", ms=4)
    for x in (1, 2, 3):
        ax.annotate(
            f"f({x})={fullscale_penalty(x):.2f}",
            (x, fullscale_penalty(x)),
            textcoords="offset points",
            xytext=(-5, 10),
            fontsize=8,
        )
    ax.axvline(5, color="0.8", lw=0.8)
    ax.text(5.1, 0.5, "sigmoid | linear", fontsize=8, color="0.4")
    ax.set_xlabel("|answer - reference| on one emotion")
    ax.set_ylabel("penalty")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    return ax


def plot_constant_answers(
    ax, const_scores: pd.DataFrame, random_score: float | None = None, zero_label: str = "score 0"
):
    """Bars: run score of answering k everywhere; optional line for the random baseline."""
    colors = ["C3" if s < 0 else "C0" for s in const_scores["score"]]
    ax.bar(const_scores["k"], const_scores["score"], color=colors)
    for k, s in zip(const_scores["k"], const_scores["score"]):
        ax.text(k, s + (1 if s >= 0 else -1), f"{s:.1f}", ha="center", va="bottom" if s >= 0 else "top", fontsize=7)
    ax.axhline(0, color="0.3", lw=0.8)
    if random_score is not None:
        ax.axhline(random_score, color="C1", ls="--", label=f"uniform random answers: {random_score:+.2f}")
        ax.legend(fontsize=8, loc="lower right")
    ax.set_xticks(const_scores["k"])
    ax.set_xlabel("constant answer k (every emotion rated k)")
    ax.set_ylabel("run score (10 × mean question score)")
    return ax


def plot_noisy_answers(ax, noisy: pd.DataFrame):
    """Expected run score of reference + noise against the noise SD (band: one run's 95 % range)."""
    ax.plot(noisy["sd"], noisy["expected"], color="C0", label="expected (exact)")
    if "sim_lo" in noisy:
        ax.fill_between(
            noisy["sd"],
            noisy["sim_lo"],
            noisy["sim_hi"],
            color="C0",
            alpha=0.2,
            label="one run: 95 % range (simulated)",
        )
    ax.axhline(0, color="0.3", lw=0.8)
    ax.set_xlabel("SD of the noise added to the reference (then rounded, clipped to 0-10)")
    ax.set_ylabel("run score (10 × mean question score)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return ax


def plot_constant_calibration(ax, by_const: pd.DataFrame, upstream: float = ADJUST_CONST, zero: float | None = None):
    """Expected random-answer score against the constant, marking upstream's and the zero-making one."""
    ax.plot(by_const["const"], by_const["expected"], color="C0")
    ax.axhline(0, color="0.3", lw=0.8)
    up = float(np.interp(upstream, by_const["const"], by_const["expected"]))
    ax.plot([upstream], [up], "o", color="C3")
    ax.annotate(
        f"upstream c = {upstream}\nrandom scores {up:+.3f}",
        (upstream, up),
        textcoords="offset points",
        xytext=(10, 10),
        fontsize=8,
        color="C3",
    )
    if zero is not None:
        ax.plot([zero], [0], "s", color="C2")
        ax.annotate(
            f"c = {zero:.4f}\nrandom scores 0",
            (zero, 0),
            textcoords="offset points",
            xytext=(10, -30),
            fontsize=8,
            color="C2",
        )
    ax.set_xlabel("adjustment constant c")
    ax.set_ylabel("expected run score of random answers")
    ax.grid(alpha=0.3)
    return ax


def plot_parse_failures(
    ax,
    sweep: pd.DataFrame,
    fail_threshold: float = 1 - PASS_FRACTION,
    coincide: float = 1.0,
    band: pd.DataFrame | None = None,
    band_label: str = "",
    legend: bool = True,
):
    """Run score under each convention against the share of unparseable answers.

    A convention whose curve lies within ``coincide`` points of an earlier one everywhere would hide it, so the
    earlier curve is drawn as a wide pale band under it and the later one's label says that the two coincide (and
    by how much at most): both stay visible. ``band`` (columns convention, rate, low, high; from
    :func:`~eqbench_nb.eqbench.study.metric.sweep_band`) shades what other seeds of a simulated sweep give around the
    one drawn, named by ``band_label``. The legend goes under the axes, where it hides no point."""
    styles = {"official": ("C0", "o-"), "lm-eval": ("C1", "s-"), "evalscope": ("C2", "^--")}
    curves = {conv: df.sort_values("rate") for conv, df in sweep.groupby("convention", sort=False)}
    under: set[str] = set()
    labels = {conv: f"{conv} (x100)" if conv == "evalscope" else conv for conv in curves}
    names = list(curves)
    for i, conv in enumerate(names):
        for earlier in names[:i]:
            a, b = curves[earlier]["score_100"].to_numpy(float), curves[conv]["score_100"].to_numpy(float)
            if len(a) == len(b) and np.nanmax(np.abs(a - b)) < coincide:
                under.add(earlier)
                labels[conv] += f": coincides with {earlier} (max |difference| {np.nanmax(np.abs(a - b)):.2f})"
                break
    for conv, df in curves.items():
        color, fmt = styles.get(conv, ("C4", "-"))
        x, y = df["rate"] * 100, df["score_100"]
        if band is not None and conv in set(band["convention"]):
            b = band[band["convention"] == conv].sort_values("rate")
            ax.fill_between(
                b["rate"] * 100,
                b["low"],
                b["high"],
                color=color,
                alpha=0.15,
                lw=0,
                label=f"{labels[conv]}: {band_label}",
            )
        if conv in under:
            ax.plot(x, y, "-", color=color, lw=6, alpha=0.35, solid_capstyle="round", label=labels[conv])
        else:
            ax.plot(x, y, fmt, color=color, ms=4, label=labels[conv])
    ax.axvspan(
        fail_threshold * 100,
        sweep["rate"].max() * 100,
        color="0.9",
        zorder=0,
        label="official flags the run failed\n(< 83.33 % parsed)",
    )
    ax.set_xlabel("unparseable answers (%)")
    ax.set_ylabel("run score (10 × mean question score)")
    if legend:
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    ax.grid(alpha=0.3)
    return ax


def plot_v1_v2(ax, run_scores: pd.DataFrame, random_v1: float | None = None, random_v2: float | None = None):
    """Scatter of each model's v1 score against its v2 score on the same answers.

    The two scores are on different scales, so no identity line: the least-squares line shows how one
    maps onto the other, and each axis marks where uniform random answers land on its own scale.
    """
    x, y = run_scores["v2"].to_numpy(float), run_scores["v1"].to_numpy(float)
    ax.scatter(x, y, s=14, alpha=0.8)
    slope, intercept = S.linear_fit(x, y)
    xs = np.array([np.nanmin(x), np.nanmax(x)])
    ax.plot(
        xs, intercept + slope * xs, "-", color="C1", lw=1, label=f"least squares: v1 = {intercept:.1f} + {slope:.2f} v2"
    )
    if random_v2 is not None:
        ax.axvline(random_v2, color="0.5", ls=":", lw=0.9, label=f"random answers, v2 scale ({random_v2:+.1f})")
    if random_v1 is not None:
        ax.axhline(random_v1, color="0.5", ls="--", lw=0.9, label=f"random answers, v1 scale ({random_v1:+.1f})")
    r = S.pearson_r(x, y)
    rho = S.spearman_r(x, y)
    ax.set_title(f"Pearson r = {r:.3f}, Spearman rho = {rho:.3f} (n = {len(run_scores)}); different scales", fontsize=9)
    ax.set_xlabel("v2 (fullscale) run score")
    ax.set_ylabel("v1 (normalised) run score, same answers")
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(alpha=0.3)
    return ax


def plot_clipped_noise_null(ax, by_reference: pd.DataFrame, observed_slope: float, null_slope: float, noise_sd: float):
    """Mean rating per reference value: observed, and under the clipped-noise null; the identity line.

    ``by_reference``: :func:`eqbench_nb.eqbench.study.metric.mean_rating_by_reference` (reference, n,
    observed, null). Marker area follows the number of ratings at that reference.
    """
    d = by_reference
    size = 8 + 120 * d["n"] / d["n"].max()
    ax.plot([0, 10], [0, 10], color="0.6", lw=0.8, ls="--", label="rating = reference (no error at all)")
    ax.plot(
        d["reference"],
        d["null"],
        "-o",
        color="C1",
        ms=3,
        label=f"clipped noise only (SD {noise_sd:.2f}): slope {null_slope:.2f}",
    )
    ax.scatter(
        d["reference"], d["observed"], s=size, color="C0", zorder=3, label=f"published runs: slope {observed_slope:.2f}"
    )
    ax.set_xlim(-0.5, 10.5)
    ax.set_ylim(-0.5, 10.5)
    ax.set_xlabel("reference value")
    ax.set_ylabel("mean rating")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3)
    return ax


def plot_question_score_tail(ax, scores, bins: int = 60):
    """Histogram of question scores (v2: -19.908..10 for ratings 0-10, lower for ratings above 10) with a log
    count axis so the tail shows."""
    s = np.asarray(scores, float)
    s = s[np.isfinite(s)]
    ax.hist(s, bins=bins, range=(min(-20.0, float(s.min())), 10), color="C0", alpha=0.85)
    ax.set_yscale("log")
    ax.axvline(0, color="0.3", ls="--", lw=0.8, label="0")
    ax.axvline(np.median(s), color="C1", lw=1, label=f"median {np.median(s):.2f}")
    ax.set_xlabel("question score (v2: −19.9 to 10 for ratings 0–10)")
    ax.set_ylabel("question scores (log scale)")
    ax.legend(fontsize=8, loc="upper left")
    return ax


def plot_failed_difficulty(ax, per_run: pd.DataFrame):
    """Per published run with failures: mean difficulty (for the other runs) of its failed and of its parsed questions.

    ``per_run`` is the output of :func:`eqbench_nb.eqbench.study.metric.failed_question_difficulty`;
    rows are sorted by the difference, each labelled with its number of failed questions.
    """
    t = per_run.sort_values("difference").reset_index(drop=True)
    y = np.arange(len(t))
    ax.hlines(y, t["difficulty_parsed"], t["difficulty_failed"], color="0.7", lw=1)
    ax.scatter(t["difficulty_parsed"], y, color=PALETTE[0], s=22, zorder=3, label="its parsed questions")
    ax.scatter(t["difficulty_failed"], y, color=PALETTE[1], marker="D", s=22, zorder=3, label="its failed questions")
    ax.set_yticks(y, [f"{short_name(r, 26)} ({n} failed)" for r, n in zip(t["run"], t["failed"])], fontsize=6.5)
    ax.set_ylim(len(t) - 0.4, -0.6)
    ax.set_xlabel("mean score of these questions in the other runs (lower = harder)")
    ax.legend(fontsize=7.5, loc="upper right")
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_question_failures(ax, per_question: pd.DataFrame, seed: int = 0):
    """Each question: how hard it is (mean score of the runs that parsed it) and how many runs fail it."""
    rng = np.random.default_rng(seed)
    f = per_question["failed"].to_numpy(float)
    ax.scatter(per_question["difficulty"], f + rng.uniform(-0.15, 0.15, len(f)), s=12, alpha=0.6, color=PALETTE[0])
    for k in range(int(f.max()) + 1):
        ax.text(1.01, k, f"{int((f == k).sum())} q.", transform=ax.get_yaxis_transform(), va="center", fontsize=7)
    ax.set_yticks(range(int(f.max()) + 1))
    ax.set_xlabel("question difficulty: mean score of the runs that parsed it")
    ax.set_ylabel("published runs failing the question")
    ax.grid(alpha=0.3)
    return ax
