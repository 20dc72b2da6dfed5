"""How much the judge decides: diagnostics of judge models, per judge and for the panel, as small pure functions.

Every function reads a tidy table with a ``judge`` column and knows no benchmark:

- **rubric** judgements: one row per (judge, model, task) with ``score`` (and ``length``, the answer's length,
  where known);
- **pairwise** judgements: one row per (judge, task, model_a, model_b) where ``model_a`` was shown *first*, with
  ``outcome`` for the first position (1 it won, 0 it lost, 0.5 a tie) and ``len_a`` / ``len_b`` where known; a pair
  judged in both orders has two rows (an ``iteration`` column, where given, tells repeated pairs apart);
- **calls**: one row per judge request with ``cost`` (and tokens, where known).

What each measures and how to read it:

- :func:`panel_scores`: the panel's score of a task is the mean of the judges' scores of that task, as Judgemark
  v2.1's ensemble (``aggregate_ensemble_scores``, method ``average``, in EQ-bench/Judgemark-v2 ``core/benchmark.py``)
  averages each judge's per-item score; a judge that gave no score to a task is left out of that task's mean.
- :func:`rank_agreement`: Spearman (and Pearson) of two judges' per-model means, the interval fitting the number of
  models (Fisher z / Bonett–Wright below :data:`~eqbench_nb.analysis.stats.SMALL_N`, a percentile bootstrap over
  models from there on).
- :func:`score_agreement`: Pearson of two judges' scores of the same (model, task) items; the interval resamples
  tasks (a cluster bootstrap) from :data:`SMALL_N` tasks on, and below is Fisher's z with n = the number of tasks
  (each task one unit: conservative, since items of a task move together).
- :func:`position_consistency`: of pairs judged in both orders, the share whose verdict flips (a different model,
  or a tie against a win, when the order flips), and the share of decided judgements the first position won
  (Wilson interval over the decided judgements; 0.5 is no preference).
- :func:`length_bias_pairwise`: the share of decided verdicts between answers of different length that went to the
  longer answer (Wilson; 0.5 is no preference), and the length coefficient of the style-controlled Bradley–Terry
  fit (:mod:`.bradley_terry`), which controls for the models' strength.
- :func:`length_bias_rubric`: Spearman of the rubric score with the answer's length, per judge.
- :func:`self_preference`: how much more a judge likes its own family's models than the rest of the panel does,
  beyond how much more (or less) it likes every model: per item, the judge's score minus the other judges' mean;
  per task, its own-family gap minus its gap on the other models; the mean over tasks, with an interval over tasks.
  :func:`self_preference_of_means` does the same from per-model means alone (an interval over models). Families
  come from a table with a source per row.
- :func:`cost_per_judge`: requests, cost and cost per scored item per judge.
- :func:`bias_report`: one row per judge and bias with its number, interval and verdict, and a sentence naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import TYPE_CHECKING

from .verdicts import interval_verdict

# numpy and .stats (pandas, scipy) are imported in the functions that use them: a benchmark's panel of judges
# imports PANEL from here, and the command line's parser imports that panel (tests/test_import_cost.py)
if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

PANEL = "panel"
RUBRIC_COLUMNS = ("judge", "model", "task", "score")
PAIRWISE_COLUMNS = ("judge", "task", "model_a", "model_b", "outcome")


def _require(table: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"{what} table lacks the column(s) {', '.join(missing)}")


def _finite_scores(table: pd.DataFrame, column: str = "score") -> pd.DataFrame:
    """The rows whose ``column`` is a finite number (a judge's unreadable score is absent, never zero)."""
    import numpy as np
    import pandas as pd

    values = pd.to_numeric(table[column], errors="coerce")
    return table[np.isfinite(values.to_numpy(dtype=float))].assign(**{column: values})


# ---------------------------------------------------------------- the panel


def panel_scores(rubric: pd.DataFrame) -> pd.DataFrame:
    """The panel's score of each (model, task): the mean of the judges' finite scores of it, with ``judges`` the
    number that scored it (Judgemark v2.1's ``aggregate_ensemble_scores``, ``average``)."""
    _require(rubric, RUBRIC_COLUMNS, "rubric")
    scored = _finite_scores(rubric)
    out = scored.groupby(["model", "task"], sort=True)["score"].agg(["mean", "count"]).reset_index()
    return out.rename(columns={"mean": "score", "count": "judges"}).assign(judge=PANEL)


def with_panel(rubric: pd.DataFrame) -> pd.DataFrame:
    """The rubric table with the panel's rows added as one more judge (``judge == "panel"``)."""
    import pandas as pd

    panel = panel_scores(rubric)[["judge", "model", "task", "score"]]
    return pd.concat([rubric[["judge", "model", "task", "score"]], panel], ignore_index=True)


def model_means(rubric: pd.DataFrame) -> pd.DataFrame:
    """Models × judges: each judge's mean score of each model over the tasks it scored."""
    _require(rubric, RUBRIC_COLUMNS, "rubric")
    return _finite_scores(rubric).pivot_table(index="model", columns="judge", values="score", aggfunc="mean")


# ---------------------------------------------------------------- agreement


def rank_agreement(means: pd.DataFrame) -> pd.DataFrame:
    """For each pair of judges (columns of a models × judges table of means), Spearman and Pearson over the models
    both scored, each with the interval its n calls for (:func:`~eqbench_nb.analysis.stats.correlation_summary`)."""
    import pandas as pd

    from .stats import correlation_summary

    rows = []
    for a, b in combinations(list(means.columns), 2):
        s = correlation_summary(means[a].to_numpy(float), means[b].to_numpy(float))
        rows.append({"judge_a": a, "judge_b": b, **s})
    return pd.DataFrame(rows)


def score_agreement(rubric: pd.DataFrame, reps: int = 2000, seed: int = 0) -> pd.DataFrame:
    """For each pair of judges, Pearson of their scores of the same (model, task) items, with an interval over
    tasks (a cluster bootstrap from :data:`SMALL_N` tasks on; Fisher z with n = tasks below)."""
    import pandas as pd

    from .stats import SMALL_N, cluster_bootstrap_corr_ci, fisher_z_ci, pearson_r

    _require(rubric, RUBRIC_COLUMNS, "rubric")
    wide = _finite_scores(rubric).pivot_table(index=["model", "task"], columns="judge", values="score")
    rows = []
    for a, b in combinations(list(wide.columns), 2):
        both = wide[[a, b]].dropna()
        tasks = both.index.get_level_values("task").to_numpy()
        k = len(set(tasks))
        r = pearson_r(both[a], both[b]) if len(both) > 1 else float("nan")
        if k >= SMALL_N:
            iv = cluster_bootstrap_corr_ci(both[a], both[b], tasks, reps=reps, seed=seed)
            low, high, method = iv.low, iv.high, f"percentile bootstrap over {k} tasks, {reps:,} resamples"
        else:
            low, high = fisher_z_ci(r, k)
            method = f"Fisher z with n = {k} tasks (each task one unit)"
        rows.append(
            {"judge_a": a, "judge_b": b, "pearson": r, "low": low, "high": high, "items": len(both), "tasks": k}
            | {"interval_method": method}
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- position


def _order_key(row: pd.Series) -> tuple:
    """A pair's identity whatever its order: judge, task, the two models, and the iteration where one is given."""
    iteration = row["iteration"] if "iteration" in row.index else None
    return (row["judge"], row["task"], iteration, *sorted([str(row["model_a"]), str(row["model_b"])]))


def _winner(model_a: str, model_b: str, outcome: float) -> str:
    return model_a if outcome == 1.0 else model_b if outcome == 0.0 else "tie"


def _check_outcomes(pairwise: pd.DataFrame) -> None:
    ok = pairwise["outcome"].isin([0.0, 0.5, 1.0])
    if not ok.all():
        raise ValueError("pairwise outcome must be 1 (first position won), 0 (it lost) or 0.5 (a tie)")


def position_consistency(pairwise: pd.DataFrame) -> pd.DataFrame:
    """Per judge: pairs judged in both orders, the share whose verdict flips when the order flips, and the share of
    decided judgements won by the first position with its Wilson interval (0.5: no preference)."""
    import pandas as pd

    from .stats import wilson_interval

    _require(pairwise, PAIRWISE_COLUMNS, "pairwise")
    _check_outcomes(pairwise)
    rows = []
    for judge, group in pairwise.groupby("judge", sort=True):
        verdicts: dict[tuple, list[str]] = {}
        for _, r in group.iterrows():
            verdicts.setdefault(_order_key(r), []).append(_winner(r["model_a"], r["model_b"], r["outcome"]))
        both = [v for v in verdicts.values() if len(v) == 2]
        flips = sum(v[0] != v[1] for v in both)
        decided = group[group["outcome"] != 0.5]
        first = float((decided["outcome"] == 1.0).sum())
        low, high = wilson_interval(first, len(decided))
        rows.append(
            {
                "judge": judge,
                "pairs_both_orders": len(both),
                "flipped": flips,
                "flip_share": flips / len(both) if both else float("nan"),
                "flip_low": wilson_interval(flips, len(both))[0],
                "flip_high": wilson_interval(flips, len(both))[1],
                "decided": len(decided),
                "first_wins": first / len(decided) if len(decided) else float("nan"),
                "first_low": low,
                "first_high": high,
                "verdict": _preference(low, high, "prefers the first position", "prefers the second position"),
            }
        )
    return pd.DataFrame(rows)


def _preference(low: float, high: float, above: str, below: str, null: float = 0.5) -> str:
    """The verdict of a share's interval against ``null`` (no preference)."""
    side = interval_verdict(low, high, null)
    return above if side == "above" else below if side == "below" else f"no preference detected ({side})"


# ---------------------------------------------------------------- length


def length_bias_pairwise(pairwise: pd.DataFrame, reg: float = 1e-3) -> pd.DataFrame:
    """Per judge: of decided judgements between answers of different length, the share won by the longer answer
    (Wilson interval; 0.5 no preference), and the length coefficient of a style-controlled Bradley–Terry fit of its
    verdicts (logit per SD of the normalised length difference, ``reg`` the L2 penalty on it)."""
    import pandas as pd

    from .bradley_terry import length_controlled
    from .stats import wilson_interval

    _require(pairwise, (*PAIRWISE_COLUMNS, "len_a", "len_b"), "pairwise")
    _check_outcomes(pairwise)
    rows = []
    for judge, group in pairwise.groupby("judge", sort=True):
        la, lb = group["len_a"].to_numpy(float), group["len_b"].to_numpy(float)
        y = group["outcome"].to_numpy(float)
        useful = (y != 0.5) & (la != lb)
        longer_won = float((((la > lb) & (y == 1.0)) | ((lb > la) & (y == 0.0)))[useful].sum())
        n = int(useful.sum())
        low, high = wilson_interval(longer_won, n)
        fit = length_controlled(group["model_a"], group["model_b"], y, la, lb, reg=reg)
        rows.append(
            {
                "judge": judge,
                "decided_unequal": n,
                "longer_wins": longer_won / n if n else float("nan"),
                "longer_low": low,
                "longer_high": high,
                "length_coeff": float(fit.coeffs[0]),
                "verdict": _preference(low, high, "prefers the longer answer", "prefers the shorter answer"),
            }
        )
    return pd.DataFrame(rows)


def length_bias_rubric(rubric: pd.DataFrame) -> pd.DataFrame:
    """Per judge: Spearman of the rubric score with the answer's length over the items it scored, with the
    interval its n calls for."""
    import pandas as pd

    from .stats import correlation_summary

    _require(rubric, (*RUBRIC_COLUMNS, "length"), "rubric")
    rows = []
    for judge, group in _finite_scores(rubric).groupby("judge", sort=True):
        s = correlation_summary(group["length"].to_numpy(float), group["score"].to_numpy(float))
        rows.append(
            {"judge": judge, "n": s["n"], "spearman": s["spearman"], "low": s["spearman_low"]}
            | {"high": s["spearman_high"], "interval_method": s["interval_method"]}
        )
    return pd.DataFrame(rows)


def pairwise_ratings(pairwise: pd.DataFrame, reg: float = 1.0) -> pd.DataFrame:
    """Models × (judge, raw / length-controlled): each judge's Bradley–Terry ratings and the pooled panel's (all
    judges' verdicts together), raw beside length-controlled (:mod:`.bradley_terry`)."""
    import pandas as pd

    from .bradley_terry import bradley_terry, length_controlled

    _require(pairwise, (*PAIRWISE_COLUMNS, "len_a", "len_b"), "pairwise")
    _check_outcomes(pairwise)
    columns = {}
    groups = [(str(j), g) for j, g in pairwise.groupby("judge", sort=True)] + [(PANEL, pairwise)]
    for judge, g in groups:
        y = g["outcome"].to_numpy(float)
        columns[(judge, "raw")] = bradley_terry(g["model_a"], g["model_b"], y).as_dict()
        lc = length_controlled(g["model_a"], g["model_b"], y, g["len_a"], g["len_b"], reg=reg)
        columns[(judge, "length_controlled")] = lc.as_dict()
    return pd.DataFrame(columns)


# ---------------------------------------------------------------- self-preference


def family_of(families: pd.DataFrame) -> dict[str, str]:
    """{model: family} from a table with ``model``, ``family`` and ``source`` columns (a row without a source is
    refused: a family is a claim that says where it comes from)."""
    _require(families, ("model", "family", "source"), "families")
    blank = families["source"].isna() | (families["source"].astype(str).str.strip() == "")
    if blank.any():
        raise ValueError(f"families table: no source for {', '.join(families.loc[blank, 'model'].astype(str))}")
    return dict(zip(families["model"].astype(str), families["family"].astype(str), strict=True))


def _gaps(means: pd.DataFrame, judge: str) -> pd.Series:
    """Per model (row), the judge's score minus the mean of the other judges' (columns) scores."""
    others = [j for j in means.columns if j != judge]
    return (means[judge] - means[others].mean(axis=1)).dropna()


def self_preference(rubric: pd.DataFrame, family: Mapping[str, str]) -> pd.DataFrame:
    """Per judge with a family and models of it among those judged: per (model, task), the judge's score minus the
    other judges' mean (its *gap*); per task, the mean gap on its own family's models minus the mean gap on the
    others (its leniency on every model cancels); the estimate is the mean over tasks, with the interval over tasks
    that their number calls for (:func:`~eqbench_nb.analysis.stats.mean_interval`: Student t below
    :data:`SMALL_N`). Tasks are the unit: the same task's items share a prompt."""
    import numpy as np
    import pandas as pd

    from .stats import mean_interval

    _require(rubric, RUBRIC_COLUMNS, "rubric")
    wide = _finite_scores(rubric).pivot_table(index=["task", "model"], columns="judge", values="score")
    rows = []
    for judge in wide.columns:
        fam = family.get(str(judge))
        if fam is None or wide.shape[1] < 2:
            continue
        gap = _gaps(wide, judge)
        own = np.array([family.get(str(m)) == fam for m in gap.index.get_level_values("model")])
        if not own.any() or own.all():
            continue
        frame = pd.DataFrame({"task": gap.index.get_level_values("task"), "gap": gap.to_numpy(), "own": own})
        per_task = frame.groupby(["task", "own"])["gap"].mean().unstack().dropna()
        diffs = (per_task[True] - per_task[False]).to_numpy(float)
        iv = mean_interval(diffs)
        rows.append(
            _self_row(judge, fam, gap.index.get_level_values("model")[own].unique(), frame, iv.estimate)
            | {"low": iv.low, "high": iv.high, "interval_method": f"{iv.method} over {len(diffs)} tasks"}
            | {"verdict": _side_text(iv.low, iv.high, "favours its own family", "disfavours its own family")}
        )
    return pd.DataFrame(rows)


def _self_row(judge: str, fam: str, own_models, frame: pd.DataFrame, estimate: float) -> dict:
    return {
        "judge": judge,
        "family": fam,
        "own_models": ", ".join(sorted(map(str, own_models))),
        "own_gap": float(frame.loc[frame["own"], "gap"].mean()),
        "other_gap": float(frame.loc[~frame["own"], "gap"].mean()),
        "self_preference": float(estimate),
    }


def self_preference_of_means(means: pd.DataFrame, family: Mapping[str, str]) -> pd.DataFrame:
    """:func:`self_preference` when only per-model means are known (models × judges): per model the judge's mean
    minus the other judges' mean; the own-family gap minus the mean gap on the other models, with a Student t
    interval over models (one own model: the prediction interval of one new gap, t with k - 1 df; several: Welch).
    """
    import numpy as np
    import pandas as pd

    from .stats import DEFAULT_LEVEL, t_quantile

    rows = []
    for judge in means.columns:
        fam = family.get(str(judge))
        if fam is None or means.shape[1] < 2:
            continue
        gap = _gaps(means, judge)
        own_mask = np.array([family.get(str(m)) == fam for m in gap.index])
        own, rest = gap[own_mask].to_numpy(float), gap[~own_mask].to_numpy(float)
        if len(own) == 0 or len(rest) < 2:
            continue
        estimate = float(own.mean() - rest.mean())
        if len(own) == 1:
            half = t_quantile(DEFAULT_LEVEL, len(rest) - 1) * float(rest.std(ddof=1)) * np.sqrt(1 + 1 / len(rest))
            low, high, method = estimate - half, estimate + half, f"t prediction interval over {len(rest)} other models"
        else:
            low, high = _welch(own, rest)
            method = f"Welch t over {len(own)} own and {len(rest)} other models"
        frame = pd.DataFrame({"gap": gap.to_numpy(), "own": own_mask})
        rows.append(
            _self_row(judge, fam, gap.index[own_mask], frame, estimate)
            | {"low": low, "high": high, "interval_method": method}
            | {"verdict": _side_text(low, high, "favours its own family", "disfavours its own family")}
        )
    return pd.DataFrame(rows)


def _welch(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Welch's interval of mean(a) - mean(b) at :data:`~eqbench_nb.analysis.stats.DEFAULT_LEVEL`."""
    import numpy as np

    from .stats import DEFAULT_LEVEL, t_quantile

    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = np.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1)) if se > 0 else len(a) + len(b) - 2
    half = t_quantile(DEFAULT_LEVEL, float(df)) * se
    d = float(a.mean() - b.mean())
    return d - half, d + half


def _side_text(low: float, high: float, above: str, below: str) -> str:
    side = interval_verdict(low, high, 0.0)
    return above if side == "above" else below if side == "below" else f"not detected ({side})"


# ---------------------------------------------------------------- cost


def cost_per_judge(calls: pd.DataFrame, items: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per judge: requests, total cost (and tokens where given), and with ``items`` (a table with a ``judge``
    column, one row per scored item) the cost per scored item. Costs must be finite and non-negative."""
    import numpy as np

    _require(calls, ("judge", "cost"), "calls")
    cost = calls["cost"].astype(float)
    if not (np.isfinite(cost).all() and (cost >= 0).all()):
        raise ValueError("a judge request's cost must be a finite, non-negative number")
    sums = {"requests": ("cost", "size"), "cost": ("cost", "sum")}
    sums |= {c: (c, "sum") for c in ("prompt_tokens", "completion_tokens") if c in calls.columns}
    out = calls.assign(cost=cost).groupby("judge", sort=True).agg(**sums)
    if items is not None:
        scored = items.groupby("judge").size()
        out["items"] = scored.reindex(out.index).fillna(0).astype(int)
        out["cost_per_item"] = out["cost"] / out["items"].where(out["items"] > 0)
    return out.reset_index()


# ---------------------------------------------------------------- the report


def bias_report(
    position: pd.DataFrame | None = None,
    length: pd.DataFrame | None = None,
    self_pref: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per judge and bias measured: ``bias``, ``value``, ``low``, ``high``, the ``verdict`` and a
    ``sentence`` that names the bias with its number (tables from :func:`position_consistency`,
    :func:`length_bias_pairwise`, :func:`self_preference`)."""
    import pandas as pd

    rows = []
    for r in [] if position is None else position.to_dict("records"):
        rows.append(
            _row(r["judge"], "position", r["first_wins"], r["first_low"], r["first_high"], r["verdict"])
            | {
                "sentence": f"{r['judge']}: {r['verdict']}: the first position won {r['first_wins']:.1%} of "
                f"{r['decided']} decided judgements ({r['first_low']:.1%} to {r['first_high']:.1%}, Wilson); "
                f"{r['flip_share']:.1%} of {r['pairs_both_orders']} pairs flip when the order flips"
            }
        )
    for r in [] if length is None else length.to_dict("records"):
        rows.append(
            _row(r["judge"], "length", r["longer_wins"], r["longer_low"], r["longer_high"], r["verdict"])
            | {
                "sentence": f"{r['judge']}: {r['verdict']}: the longer answer won {r['longer_wins']:.1%} of "
                f"{r['decided_unequal']} decided judgements ({r['longer_low']:.1%} to {r['longer_high']:.1%}, "
                f"Wilson); length coefficient {r['length_coeff']:+.2f} logit per SD"
            }
        )
    for r in [] if self_pref is None else self_pref.to_dict("records"):
        rows.append(
            _row(r["judge"], "self-preference", r["self_preference"], r["low"], r["high"], r["verdict"])
            | {
                "sentence": f"{r['judge']}: {r['verdict']}: it scores {r['family']} models "
                f"{r['self_preference']:+.2f} above the rest of the panel's view, beyond its gap on other models "
                f"({r['low']:+.2f} to {r['high']:+.2f}, {r['interval_method']})"
            }
        )
    return pd.DataFrame(rows, columns=["judge", "bias", "value", "low", "high", "verdict", "sentence"])


def _row(judge: str, bias: str, value: float, low: float, high: float, verdict: str) -> dict:
    return {"judge": judge, "bias": bias, "value": value, "low": low, "high": high, "verdict": verdict}


__all__ = [
    "PANEL",
    "bias_report",
    "cost_per_judge",
    "family_of",
    "length_bias_pairwise",
    "length_bias_rubric",
    "model_means",
    "pairwise_ratings",
    "panel_scores",
    "position_consistency",
    "rank_agreement",
    "score_agreement",
    "self_preference",
    "self_preference_of_means",
    "with_panel",
]
