"""Per-emotion error analysis over the run table (:func:`eqbench_nb.eqbench.study.table.run_table`).

The EQ-Bench paper reports no per-emotion analysis. These small, pure functions take the long
run table (one row per model x iteration x question x emotion, with ``reference``, ``answer``,
signed ``error`` = answer - reference, ``abs_error`` and ``penalty`` = f(|error|)) and return
tidy DataFrames, which :mod:`eqbench_nb.plots` draws.

Uncertainty: rows from one model are not independent, and neither are rows from one question.
:func:`cluster_bootstrap` resamples models only: it says how much a number would move with
another sample of models like these, not with another set of questions. :func:`two_way_bootstrap`
and :func:`two_way_group_difference` resample models and, independently, questions, so they also
cover the luck of which questions were asked (the larger part for a word used in few questions).

Emotion families come from ``data/emotion_families.csv`` (the eqbench_nb authors' own grouping
of the 201 emotion words of the v2 set; see :func:`load_families`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ...analysis import stats as _stats
from ...paths import tables_dir

FAMILIES_FILE = "emotion_families.csv"  # in the project's data/ (see eqbench_nb.paths.tables_dir)

#: Reference-intensity bins (inclusive bounds) and their labels.
REFERENCE_BINS: tuple[tuple[float, float, str], ...] = ((0, 0, "0"), (1, 3, "1-3"), (4, 6, "4-6"), (7, 10, "7-10"))

#: Columns a question-level table carries over from the run table.
QUESTION_KEYS = ["model", "run_id", "iteration", "question_id"]


# ---------------------------------------------------------------- families


def load_families(path: str | Path | None = None) -> pd.DataFrame:
    """The emotion -> family table (columns ``emotion``, ``family``, ``source``)."""
    df = pd.read_csv(path or tables_dir() / FAMILIES_FILE, dtype=str)
    missing = {"emotion", "family"} - set(df.columns)
    if missing:
        raise ValueError(f"family table lacks columns {sorted(missing)}")
    if df["emotion"].duplicated().any():
        dup = sorted(df.loc[df["emotion"].duplicated(), "emotion"])
        raise ValueError(f"family table lists these emotions twice: {dup}")
    return df


def family_map(families: pd.DataFrame | Mapping[str, str] | None = None) -> dict[str, str]:
    """emotion -> family as a dict, from a table, a mapping, or the bundled CSV."""
    if families is None:
        families = load_families()
    if isinstance(families, pd.DataFrame):
        return dict(zip(families["emotion"], families["family"]))
    return dict(families)


def unmapped_emotions(emotions: Iterable[str], families: pd.DataFrame | Mapping[str, str] | None = None) -> list[str]:
    """The emotion words that the family table does not cover (sorted)."""
    fmap = family_map(families)
    return sorted(set(emotions) - set(fmap))


def add_family(
    table: pd.DataFrame, families: pd.DataFrame | Mapping[str, str] | None = None, missing: str | None = None
) -> pd.DataFrame:
    """A copy of ``table`` with a ``family`` column.

    Emotions the table does not cover raise ``ValueError`` unless ``missing`` names a family to
    put them in. Matching is exact first, then case-insensitive (lm-eval style answers keep the
    key's spelling, so this only matters for hand-made tables).
    """
    fmap = family_map(families)
    lower = {k.lower(): v for k, v in fmap.items()}
    fam = table["emotion"].map(lambda e: fmap.get(e, lower.get(str(e).lower())))
    if fam.isna().any():
        if missing is None:
            raise ValueError(f"no family for emotions: {sorted(set(table.loc[fam.isna(), 'emotion']))[:10]}")
        fam = fam.fillna(missing)
    return table.assign(family=fam.to_numpy())


def reference_bin(
    reference: Sequence[float] | pd.Series, bins: tuple[tuple[float, float, str], ...] = REFERENCE_BINS
) -> pd.Series:
    """Label each reference intensity with its bin (an ordered categorical)."""
    ref = pd.Series(reference, dtype=float)
    out = pd.Series(pd.NA, index=ref.index, dtype=object)
    for lo, hi, label in bins:
        out[(ref >= lo) & (ref <= hi)] = label
    if out.isna().any():
        raise ValueError(f"reference values outside the bins: {sorted(set(ref[out.isna()]))}")
    return pd.Series(pd.Categorical(out, categories=[b[2] for b in bins], ordered=True), index=ref.index)


def add_reference_bin(table: pd.DataFrame, bins: tuple[tuple[float, float, str], ...] = REFERENCE_BINS) -> pd.DataFrame:
    """A copy of ``table`` with a ``reference_bin`` column."""
    return table.assign(reference_bin=reference_bin(table["reference"], bins).to_numpy())


# ---------------------------------------------------------------- summaries


def summarise_errors(table: pd.DataFrame, by: str | list[str]) -> pd.DataFrame:
    """Error statistics per group of rows (one row = one emotion of one answer).

    Columns: n (rows), n_questions (distinct questions), n_models, mean_abs_error, mean_error
    (signed bias: > 0 means the models rate the emotion too high), mean_penalty (mean f(d)),
    share_over / share_under / share_exact (answer above / below / equal to the reference).
    Sorted by the grouping keys.
    """
    g = table.assign(_over=table["error"] > 0, _under=table["error"] < 0, _exact=table["error"] == 0).groupby(
        by, observed=True, sort=True
    )
    out = pd.DataFrame(
        {
            "n": g.size(),
            "n_questions": g["question_id"].nunique(),
            "n_models": g["model"].nunique(),
            "mean_abs_error": g["abs_error"].mean(),
            "mean_error": g["error"].mean(),
            "mean_penalty": g["penalty"].mean(),
            "share_over": g["_over"].mean(),
            "share_under": g["_under"].mean(),
            "share_exact": g["_exact"].mean(),
        }
    )
    return out.reset_index()


def cluster_bootstrap(
    table: pd.DataFrame,
    value: str,
    by: str | list[str] | None = None,
    cluster: str = "model",
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> pd.DataFrame:
    """Mean of ``value`` per group with a percentile interval from resampling clusters.

    Each replicate draws the clusters (models by default) with replacement and recomputes every
    group's mean as (sum of values) / (number of rows) over the drawn clusters. Returns columns
    ``[*by, mean, lo, hi, n]``; with ``by=None`` one row for the whole table.
    """
    keys = [by] if isinstance(by, str) else list(by or [])
    t = table if keys else table.assign(_all="all")
    keys = keys or ["_all"]
    sums = t.pivot_table(index=cluster, columns=keys, values=value, aggfunc="sum", observed=True, fill_value=0.0)
    counts = t.pivot_table(index=cluster, columns=keys, values=value, aggfunc="count", observed=True, fill_value=0)
    counts = counts.reindex(index=sums.index, columns=sums.columns, fill_value=0)
    s, c = sums.to_numpy(float), counts.to_numpy(float)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, s.shape[0], size=(n_boot, s.shape[0]))
    with np.errstate(invalid="ignore", divide="ignore"):
        reps = s[idx].sum(axis=1) / c[idx].sum(axis=1)
    lo, hi = _stats.percentile_interval(reps, level, axis=0)
    cols = sums.columns.to_frame(index=False)
    if len(keys) == 1:
        cols.columns = keys
    out = cols.assign(mean=s.sum(0) / c.sum(0), lo=lo, hi=hi, n=c.sum(0).astype(int))
    return out.drop(columns="_all") if "_all" in out else out


def question_level(table: pd.DataFrame) -> pd.DataFrame:
    """One row per answered question (model x run x iteration x question).

    Columns: the keys, question_score, abs_error (sum over the 4 emotions), penalty (sum of f(d),
    the question's "tally"), error (sum of signed errors).
    """
    g = table.groupby(QUESTION_KEYS, sort=True)
    return pd.DataFrame(
        {
            "question_score": g["question_score"].first(),
            "abs_error": g["abs_error"].sum(),
            "penalty": g["penalty"].sum(),
            "error": g["error"].sum(),
        }
    ).reset_index()


def model_scores(table: pd.DataFrame) -> pd.Series:
    """Each model's run score as the official convention computes it from the table.

    10 x the mean question score of the answered questions of each iteration, averaged over
    iterations and (if a model has several runs) runs. The table holds the pass the official rule
    picked, so for the published single-iteration runs this equals ``score_run(run).score``
    up to its rounding to 2 decimals.
    """
    q = question_level(table)
    per_it = q.groupby(["model", "run_id", "iteration"])["question_score"].mean() * 10
    return per_it.groupby("model").mean().sort_values(ascending=False).rename("score")


def tercile_groups(scores: pd.Series, labels: tuple[str, str, str] = ("bottom", "middle", "top")) -> pd.Series:
    """Split models into three groups of (nearly) equal size by score (ties broken by order)."""
    ranks = scores.rank(method="first")
    return pd.qcut(ranks, 3, labels=list(labels)).astype(str).rename("group")


def hardest_questions(table: pd.DataFrame, k: int = 10) -> pd.DataFrame:
    """The ``k`` questions with the lowest mean score across the models that answered them.

    Columns: question_id, n_models, mean_score, sd_score, mean_abs_error (per emotion), emotions,
    reference (the key, "E=r" joined), mean_answer (the models' mean rating per emotion).
    """
    q = question_level(table).groupby("question_id")["question_score"].agg(["count", "mean", "std"])
    per_emotion = (
        table.groupby(["question_id", "emotion_index", "emotion"], sort=True)
        .agg(reference=("reference", "first"), mean_answer=("answer", "mean"), mae=("abs_error", "mean"))
        .reset_index()
    )

    def joined(df: pd.DataFrame, col: str) -> str:
        return ", ".join(f"{e}={v:.3g}" for e, v in zip(df["emotion"], df[col]))

    rows = []
    for qid, df in per_emotion.groupby("question_id"):
        df = df.sort_values("emotion_index")
        rows.append(
            {
                "question_id": qid,
                "emotions": ", ".join(df["emotion"]),
                "reference": joined(df, "reference"),
                "mean_answer": joined(df, "mean_answer"),
                "mean_abs_error": df["mae"].mean(),
            }
        )
    info = pd.DataFrame(rows).set_index("question_id")
    out = q.rename(columns={"count": "n_models", "mean": "mean_score", "std": "sd_score"}).join(info)
    return out.sort_values("mean_score").head(k).reset_index()


def group_difference(
    table: pd.DataFrame,
    groups: pd.Series,
    by: str = "family",
    value: str = "penalty",
    strong: str = "top",
    weak: str = "bottom",
    min_questions: int = 1,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> pd.DataFrame:
    """How much worse weak models do than strong ones on each category of ``by``.

    ``groups`` maps model -> group label (e.g. from :func:`tercile_groups`). For each category:
    mean ``value`` among the strong models' rows and among the weak models' rows, ``diff`` =
    weak - strong (for penalty and abs_error, larger means the category separates the groups
    more), ``ratio`` = weak / strong, and a percentile interval for ``diff`` from resampling models
    within each group independently. Weak models err more everywhere, so ``diff`` mixes "this
    category is hard" with "this category separates"; ``ratio`` is the scale-free view.
    Categories seen in fewer than ``min_questions`` distinct questions are dropped. Sorted by
    ``diff``, largest first.
    """
    t = table.assign(_group=table["model"].map(groups))
    nq = t.groupby(by, observed=True)["question_id"].nunique()
    keep = nq[nq >= min_questions].index
    t = t[t[by].isin(keep)]
    parts = {}
    for label, offset in ((strong, 0), (weak, 1)):
        sub = t[t["_group"] == label]
        if sub.empty:
            raise ValueError(f"no models in group {label!r}")
        sums = sub.pivot_table(index="model", columns=by, values=value, aggfunc="sum", observed=True, fill_value=0.0)
        counts = sub.pivot_table(index="model", columns=by, values=value, aggfunc="count", observed=True, fill_value=0)
        sums, counts = sums.reindex(columns=keep, fill_value=0.0), counts.reindex(columns=keep, fill_value=0)
        rng = np.random.default_rng(seed + offset)
        idx = rng.integers(0, len(sums), size=(n_boot, len(sums)))
        s, c = sums.to_numpy(float), counts.to_numpy(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            parts[label] = (s.sum(0) / c.sum(0), s[idx].sum(1) / c[idx].sum(1), c.sum(0))
    diff_reps = parts[weak][1] - parts[strong][1]
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = parts[weak][0] / parts[strong][0]
    lo, hi = _stats.percentile_interval(diff_reps, level, axis=0)
    out = pd.DataFrame(
        {
            by: keep,
            f"mean_{strong}": parts[strong][0],
            f"mean_{weak}": parts[weak][0],
            "diff": parts[weak][0] - parts[strong][0],
            "ratio": ratio,
            "lo": lo,
            "hi": hi,
            f"n_{strong}": parts[strong][2].astype(int),
            f"n_{weak}": parts[weak][2].astype(int),
            "n_questions": nq.reindex(keep).to_numpy(),
        }
    )
    return out.sort_values("diff", ascending=False).reset_index(drop=True)


def mean_matrix(
    table: pd.DataFrame,
    index: str,
    columns: str,
    value: str = "penalty",
    index_order: Sequence | None = None,
    column_order: Sequence | None = None,
) -> pd.DataFrame:
    """Mean ``value`` for every (index, columns) cell, optionally reordered (a heatmap's data)."""
    m = table.pivot_table(index=index, columns=columns, values=value, aggfunc="mean", observed=True)
    if index_order is not None:
        m = m.reindex(index=list(index_order))
    if column_order is not None:
        m = m.reindex(columns=list(column_order))
    return m


# ---------------------------------------------------------------- two-way bootstrap (models and questions)


def model_t_halfwidth(table: pd.DataFrame, row: str, column: str, value: str, level: float = 0.95) -> pd.DataFrame:
    """The 95 % half-width of each ``row`` x ``column`` cell's mean, from a Student t interval over the models in the
    cell: each model's mean ``value`` there is one observation (the questions are held fixed). A band of 8 models
    gets the t interval its n calls for, not a percentile bootstrap (:data:`~eqbench_nb.analysis.stats.SMALL_N`).
    NaN where a cell has fewer than 2 models."""
    from scipy import stats as sps

    per_model = table.groupby([row, column, "model"], observed=True)[value].mean()

    def half(x: pd.Series) -> float:
        n = len(x)
        return float(sps.t.ppf(0.5 + level / 2, n - 1) * x.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")

    return per_model.groupby(level=[0, 1], observed=True).agg(half).unstack()


def cell_cube(
    table: pd.DataFrame,
    value: str,
    by: str | None = None,
    rows: str = "model",
    cols: str = "question_id",
    categories: Sequence | None = None,
) -> tuple[np.ndarray, np.ndarray, list, list, list]:
    """The sum of ``value`` and the number of ratings in every (row, column, category) cell.

    Returns ``(sums, counts, row_labels, col_labels, categories)`` with ``sums`` and ``counts`` of
    shape ``(n_rows, n_cols, n_categories)``: by default models x questions x categories of ``by``
    (one category, "all", when ``by`` is None). The input of :func:`~eqbench_nb.analysis.stats.weighted_ratio`.
    """
    t = table if by is not None else table.assign(_all="all")
    key = by if by is not None else "_all"
    g = t.groupby([rows, cols, key], observed=True, sort=True)[value].agg(["sum", "count"]).reset_index()
    row_labels = sorted(t[rows].unique(), key=str)
    col_labels = sorted(t[cols].unique(), key=lambda q: (len(str(q)), str(q)))
    cats = list(categories) if categories is not None else sorted(g[key].unique(), key=str)
    ri = pd.Index(row_labels).get_indexer(g[rows])
    ci = pd.Index(col_labels).get_indexer(g[cols])
    ki = pd.Index(cats).get_indexer(g[key])
    keep = ki >= 0
    sums = np.zeros((len(row_labels), len(col_labels), len(cats)))
    counts = np.zeros_like(sums)
    sums[ri[keep], ci[keep], ki[keep]] = g["sum"].to_numpy(float)[keep]
    counts[ri[keep], ci[keep], ki[keep]] = g["count"].to_numpy(float)[keep]
    return sums, counts, row_labels, col_labels, cats


def two_way_bootstrap(
    table: pd.DataFrame,
    value: str,
    by: str | None = None,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    clusters: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Mean of ``value`` per category of ``by`` with an interval that resamples models *and* questions.

    With ``clusters`` (each model's lineage) the lineages, not the models, are the units, by the house rule for
    their number (:func:`~eqbench_nb.analysis.stats.two_way_design`; ``method`` says which, ``n_units`` how many).

    Each replicate draws the models with replacement and, independently, the questions with
    replacement, and recomputes every category's mean as (weighted sum) / (weighted count). The
    interval says how much a number would move with another sample of models *and* another
    sample of questions like these. A category whose questions are all missing from a replicate
    has no value there; ``share_defined`` says in how many replicates it had one (the interval is
    over those). Columns ``[by, mean, lo, hi, se, n, n_questions, n_models, share_defined]``.
    """
    sums, counts, models, questions, cats = cell_cube(table, value, by)
    design = _design(models, len(questions), n_boot, seed, clusters)
    reps = _stats.weighted_ratio(sums, counts, design.w, design.v)
    mean = sums.sum((0, 1)) / counts.sum((0, 1))
    lo, hi = design.interval(reps, mean, level)
    key = by if by is not None else "_all"
    out = pd.DataFrame(
        {
            key: cats,
            "mean": mean,
            "lo": lo,
            "hi": hi,
            "se": design.se(reps),
            "n": counts.sum((0, 1)).astype(int),
            "n_questions": (counts.sum(0) > 0).sum(0),
            "n_models": (counts.sum(1) > 0).sum(0),
            "share_defined": np.isfinite(reps).mean(0),
            "n_units": design.n_units,
            "method": design.method,
        }
    )
    return out.drop(columns="_all") if by is None else out


def _design(models: Sequence, n_questions: int, n_boot: int, seed: int, clusters: Mapping[str, str] | None):
    """The two-way design over ``models`` (rows) and questions, with ``clusters`` mapping each model to its lineage."""
    if clusters is None:
        return _stats.two_way_design(len(models), n_questions, n_boot, seed)
    missing = [m for m in models if m not in clusters]
    if missing:
        raise ValueError(f"no lineage for {missing}")
    return _stats.two_way_design(len(models), n_questions, n_boot, seed, [clusters[m] for m in models], "lineages")


def two_way_group_difference(
    table: pd.DataFrame,
    groups: pd.Series,
    by: str = "family",
    value: str = "penalty",
    strong: str = "top",
    weak: str = "bottom",
    min_questions: int = 1,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    simultaneous: bool = False,
    clusters: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """How much worse weak models do than strong ones on each category, models and questions resampled.

    With ``clusters`` (each model's lineage) the lineages are the units instead, by the house rule for their
    number (:func:`~eqbench_nb.analysis.stats.two_way_design`): a lineage enters or leaves with all its models,
    in whichever group they are (so the groups' sizes are no longer fixed); ``method`` says which interval.

    As :func:`group_difference`, but each replicate draws models with replacement *within* each
    group and, independently, the questions with replacement (the same questions for both groups,
    so the comparison stays paired by question). Besides ``diff`` (weak - strong) it gives
    ``excess`` = ``diff`` minus the gap over all ratings (computed in the same replicate): a
    category *separates* weak from strong models more than the rest only where ``excess`` is
    above 0. With ``simultaneous`` the intervals are Bonferroni-adjusted for the number of
    categories (each at ``1 - (1 - level) / k``), so they hold jointly at ``level``; the level
    used is in the column ``interval_level``. Sorted by ``diff``, largest first.
    """
    t = table.assign(_group=table["model"].map(groups))
    t = t[t["_group"].isin([strong, weak])]
    nq = t.groupby(by, observed=True)["question_id"].nunique()
    keep = list(nq[nq >= min_questions].index)
    t = t[t[by].isin(keep)]
    for label in (strong, weak):
        if not (t["_group"] == label).any():
            raise ValueError(f"no models in group {label!r}")
    sums, counts, models, _, cats = cell_cube(t, value, by, categories=keep)
    sums = np.concatenate([sums, sums.sum(axis=2, keepdims=True)], axis=2)  # last: every rating
    counts = np.concatenate([counts, counts.sum(axis=2, keepdims=True)], axis=2)
    strata = pd.Series(models).map(groups).to_numpy()
    if clusters is None:
        w, v = _stats.two_way_weights(len(models), sums.shape[1], n_boot, seed, row_strata=strata)
        design = _stats.TwoWayDesign(
            w,
            v,
            len(models),
            False,
            f"two-way percentile bootstrap (models within each group and questions resampled), {n_boot:,} resamples",
        )
    else:
        design = _design(models, sums.shape[1], n_boot, seed, clusters)
        w, v = design.w, design.v
    is_weak = strata == weak
    rep_weak = _stats.weighted_ratio(sums[is_weak], counts[is_weak], w[:, is_weak], v)
    rep_strong = _stats.weighted_ratio(sums[~is_weak], counts[~is_weak], w[:, ~is_weak], v)
    diff_reps = rep_weak - rep_strong
    excess_reps = diff_reps[:, :-1] - diff_reps[:, -1:]
    mean_weak = sums[is_weak].sum((0, 1)) / counts[is_weak].sum((0, 1))
    mean_strong = sums[~is_weak].sum((0, 1)) / counts[~is_weak].sum((0, 1))
    diff = mean_weak - mean_strong
    lvl = _stats.bonferroni_level(level, len(cats)) if simultaneous else level
    lo, hi = design.interval(diff_reps[:, :-1], diff[:-1], lvl)
    elo, ehi = design.interval(excess_reps, diff[:-1] - diff[-1], lvl)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = mean_weak[:-1] / mean_strong[:-1]
    out = pd.DataFrame(
        {
            by: cats,
            f"mean_{strong}": mean_strong[:-1],
            f"mean_{weak}": mean_weak[:-1],
            "diff": diff[:-1],
            "lo": lo,
            "hi": hi,
            "se": design.se(diff_reps[:, :-1]),
            "excess": diff[:-1] - diff[-1],
            "excess_lo": elo,
            "excess_hi": ehi,
            "ratio": ratio,
            "n_questions": nq.reindex(cats).to_numpy(),
            "interval_level": lvl,
            "n_units": design.n_units,
            "method": design.method,
        }
    )
    out.attrs["overall_diff"] = float(diff[-1])
    return out.sort_values("diff", ascending=False).reset_index(drop=True)


# ---------------------------------------------------------------- end biases against the clipped-noise null


def end_bias_against_null(
    table: pd.DataFrame,
    bins: tuple[tuple[float, float, str], ...] = REFERENCE_BINS,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    clusters: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Signed bias per reference bin beside what the clipped-noise null gives there, with intervals.

    The null (:func:`eqbench_nb.analysis.nulls.clipped_noise_null`): ratings = clip(round(reference
    + e), 0, 10), e ~ Normal(0, sigma^2), sigma set so that the null's mean absolute error equals
    the observed one. It has no compression; clipping alone biases the ends.

    Every replicate of the two-way bootstrap (models and questions resampled) recomputes the
    observed bias per bin, the observed mean absolute error, the mix of reference values, the
    sigma that matches that error on that mix, and the null's exact bias per bin. So the null's
    interval carries the uncertainty of its fitted noise size, and ``excess`` (observed - null)
    and ``mechanical_share`` (null / observed) are paired within replicates.

    With ``clusters`` (each model's lineage) the lineages are the units, as in :func:`two_way_bootstrap`.

    Columns: reference_bin, observed, lo, hi, null, null_lo, null_hi, excess, excess_lo,
    excess_hi, mechanical_share, share_lo, share_hi, n. ``attrs``: sigma, mae, level, method, n_units.
    """
    from ...analysis import nulls

    t = add_reference_bin(table, bins)
    labels = [b[2] for b in bins]
    ref_values = np.arange(nulls.SCALE_LOW, nulls.SCALE_HIGH + 1, dtype=float)
    t = t.assign(_ref=t["reference"].round().astype(int).astype(str), _all="all")
    err_s, err_c, models, questions, _ = cell_cube(t, "error", "reference_bin", categories=labels)
    abs_s, abs_c, _, _, _ = cell_cube(t, "abs_error", "_all")
    ref_keys = [str(int(v)) for v in ref_values]
    ref_c = cell_cube(t, "abs_error", "_ref", categories=ref_keys)[1]  # ratings per reference value
    total_c = np.broadcast_to(ref_c.sum(axis=2, keepdims=True), ref_c.shape)
    ones = np.ones((1, len(models))), np.ones((1, len(questions)))
    design = _design(models, len(questions), n_boot, seed, clusters)
    w, v = np.vstack([ones[0], design.w]), np.vstack([ones[1], design.v])  # row 0: the data as observed
    bias = _stats.weighted_ratio(err_s, err_c, w, v)
    mae = _stats.weighted_ratio(abs_s, abs_c, w, v)[:, 0]
    mix = np.nan_to_num(_stats.weighted_ratio(ref_c, total_c, w, v))  # share of each reference value

    grid = np.geomspace(0.05, 30.0, 1200)  # noise SDs; the null's error rises monotonically with sigma
    abs_grid = np.stack([nulls.expected_abs_error(ref_values, s) for s in grid])  # (grid, 11)
    bias_grid = np.stack([nulls.expected_rating(ref_values, s) - ref_values for s in grid])
    mae_curves = mix @ abs_grid.T  # (reps, grid)
    sigma = np.array([np.interp(m, c, grid) for m, c in zip(mae, mae_curves)])
    in_bin = np.stack([(ref_values >= lo) & (ref_values <= hi) for lo, hi, _ in bins], axis=1).astype(float)
    null = np.empty_like(bias)
    for i, s in enumerate(sigma):
        g = np.array([np.interp(s, grid, bias_grid[:, k]) for k in range(len(ref_values))])
        null[i] = (mix[i] * g) @ in_bin / (mix[i] @ in_bin)
    excess = bias - null
    with np.errstate(invalid="ignore", divide="ignore"):
        share = null / bias

    def iv(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return design.interval(x[1:], x[0], level)

    (lo, hi), (nlo, nhi), (elo, ehi), (slo, shi) = iv(bias), iv(null), iv(excess), iv(share)
    out = pd.DataFrame(
        {
            "reference_bin": labels,
            "observed": bias[0],
            "lo": lo,
            "hi": hi,
            "null": null[0],
            "null_lo": nlo,
            "null_hi": nhi,
            "excess": excess[0],
            "excess_lo": elo,
            "excess_hi": ehi,
            "mechanical_share": share[0],
            "share_lo": slo,
            "share_hi": shi,
            "n": err_c.sum((0, 1)).astype(int),
        }
    )
    out.attrs.update(
        sigma=float(sigma[0]), mae=float(mae[0]), level=level, method=design.method, n_units=design.n_units
    )
    return out


def compression_verdict(
    ends: pd.DataFrame, low_bin: str = "0", high_bin: str = "7-10", key_error_excluded: bool | None = None
) -> str:
    """Which sentence the end biases support, tested against the clipped-noise null.

    ``ends`` comes from :func:`end_bias_against_null`. The null assumes an error-free key, and a noisy key also
    puts ratings above a reference of 0 and below a high one (true intensities regress toward the middle of the
    key); ``key_error_excluded`` says whether the slope comparison of :func:`eqbench_nb.eqbench.study.metric.
    compression_null_slope` rules independent key error out. Returns

    * ``"compressed"``: too high at the low end *and* too low at the high end by more than clipped noise of the
      observed size gives (both excess intervals exclude 0 in that direction), and independent key error is ruled
      out (the key could still be more extreme than the truth: "relative to the key");
    * ``"compressed or key error"``: the same, but independent key error is not ruled out (or was not checked);
    * ``"one end"``: only one end is beyond the null in the compressing direction;
    * ``"mechanical"``: neither end is beyond the null: the end biases are what clipping alone gives.
    """
    e = ends.set_index("reference_bin")
    low_beyond = bool(e.loc[low_bin, "excess_lo"] > 0)
    high_beyond = bool(e.loc[high_bin, "excess_hi"] < 0)
    if low_beyond and high_beyond:
        return "compressed" if key_error_excluded else "compressed or key error"
    return "one end" if low_beyond or high_beyond else "mechanical"


def separating_categories(diff: pd.DataFrame, by: str = "family") -> tuple[list, list]:
    """Categories that separate weak from strong models more (and less) than the gap over all ratings.

    ``diff`` comes from :func:`two_way_group_difference`. The null is that every category carries
    the overall gap (``excess`` = 0); the gap itself is not tested, because weak models are defined
    by a score built from the same penalties and so err more everywhere by construction. Returns
    ``(above, below)``: the categories whose excess interval lies above 0, and below 0.
    """
    above = diff.loc[diff["excess_lo"] > 0, by].tolist()
    below = diff.loc[diff["excess_hi"] < 0, by].tolist()
    return above, below
