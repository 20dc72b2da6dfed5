"""Judgemark v2.1's published results as tidy tables, each judge's final score re-derived, and what the judges say.

**The final score.** ``results/scores.csv`` (at ``23c3e1c``) gives ``judgemark_score`` = 100 × the stats file's
``final_judgemark_score``. The stats files were written by upstream's first commit, ``7b9ed07`` (2025-01): its
``finalize_scores_and_compute_judgemark`` (``core/benchmark.py``) stores the calibrated elements as
``final_judgemark_score_elements_calibrated`` and computes

    separability = (std_dev + kruskal_wallis + ci99_overlap + score_range + intra_model_ci95 + emd) / 6
    final = (stability_between_iterations + correlation_with_arena + 4 · separability) / 6

with ``score_range`` the calibrated range normalised over 0–8 (``0cae168`` widened it to 0–10; the stored elements
equal range / 8, which is how the commit is told) and ``emd`` the calibrated earth mover's distance
``separability_metrics.calibrated.emd.average`` normalised over 0–4. That commit stores the wrong object as the
EMD element (the dict of normalised components, ``norm``, where ``emd_norm`` was meant), so the EMD element is
re-read from its source field. Later commits (``f4979c3`` on) keep only Kruskal–Wallis and the overlap in
separability; their formula does not give the published scores. ``liquid/lfm-7b`` has no elements (its file was
written without them) and ``deepseek/deepseek-r1-distill-qwen-14b`` no statistics: neither re-derives.

**Names.** ``scores.csv`` names judges by their API id with dots (``claude-3.5-haiku-20241022``,
``deepseek-ai/deepseek-r1``); the stats files are those names with ``/`` as ``__`` and ``.`` as ``-``
(upstream's file naming), which is the map used here.

**Writers and judges.** Each judge scored the same 17 writers' pieces (several iterations each); only per-writer
statistics are published (count, mean, median, SD, 95 % half-width, min, max, the correlation of score with
length), so an item-level re-analysis (a k-judge Judgemark score, say) cannot be done from them.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from ..analysis.stats import mean_interval
from . import files

if TYPE_CHECKING:
    import pandas as pd

#: The commit whose final formula the stats files' elements follow (see the module docstring).
FORMULA_COMMIT = "7b9ed07"
#: Normalisation ranges of the two elements re-read from their source at 7b9ed07.
SCORE_RANGE_MAX_7B9ED07 = 8.0
EMD_RANGE = (0.0, 4.0)
ELEMENTS = (
    "norm_stability_between_iterations",
    "norm_correlation_with_lmsys_arena",
    "norm_std_dev_between_models",
    "norm_kruskall_wallis",
    "norm_ci99_adjacent_overlap",
    "norm_score_range",
    "norm_intra_model_ci95",
    "norm_earth_movers_distance",
)


def file_stem(name: str) -> str:
    """The stats file a ``scores.csv`` name is stored under: ``/`` as ``__``, ``.`` as ``-``."""
    return name.replace("/", "__").replace(".", "-")


def load_stats(path: str | os.PathLike | None = None) -> dict[str, dict[str, Any]]:
    """{stats file stem: its JSON} for every pinned stats file (each checked by sha256)."""
    out = {}
    for name in files.stats_files():
        data = json.loads(files.read_bytes(name, path))
        if not isinstance(data, dict):
            raise ValueError(f"Judgemark v2.1 {name} is not a JSON object")
        out[name.rsplit("/", 1)[-1].removesuffix(".json")] = data
    return out


def load_scores(path: str | os.PathLike | None = None) -> list[dict[str, str]]:
    """The rows of ``results/scores.csv`` as upstream published them."""
    return list(csv.DictReader(io.StringIO(files.read_bytes(files.SCORES, path).decode("utf-8"))))


def _clamp01(x: float) -> float:
    return max(0.0, min(1.0, x))


def _finite(x: Any, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise ValueError(f"{what} is not a finite number: {x!r}")
    return float(x)


def emd_element(stats: Mapping[str, Any]) -> float:
    """The calibrated EMD element as ``7b9ed07`` meant it: ``separability_metrics.calibrated.emd.average``
    normalised over 0–4 (the stored element is a dict by upstream's slip)."""
    average = stats["separability_metrics"]["calibrated"]["emd"]["average"]
    low, high = EMD_RANGE
    return _clamp01((_finite(average, "calibrated EMD average") - low) / (high - low))


def final_score(stats: Mapping[str, Any]) -> float | None:
    """A judge's final Judgemark score re-derived from its published calibrated elements by ``7b9ed07``'s formula
    (None when the file has no elements)."""
    e = stats.get("final_judgemark_score_elements_calibrated")
    if not isinstance(e, Mapping):
        return None
    emd = e["norm_earth_movers_distance"]
    v: dict[str, float] = {k: _finite(e[k], k) for k in ELEMENTS if k != "norm_earth_movers_distance"}
    v["norm_earth_movers_distance"] = (
        _finite(emd, "EMD element") if isinstance(emd, (int, float)) else emd_element(stats)
    )
    separability = (
        v["norm_std_dev_between_models"]
        + v["norm_kruskall_wallis"]
        + v["norm_ci99_adjacent_overlap"]
        + v["norm_score_range"]
        + v["norm_intra_model_ci95"]
        + v["norm_earth_movers_distance"]
    ) / 6.0
    return (v["norm_stability_between_iterations"] + v["norm_correlation_with_lmsys_arena"] + 4 * separability) / 6


def score_range_is_7b9ed07(stats: Mapping[str, Any]) -> bool | None:
    """Whether the stored score-range element is the calibrated range over 0–8 (``7b9ed07``) rather than 0–10
    (``0cae168`` on): the evidence of which commit wrote the file (None without elements)."""
    e = stats.get("final_judgemark_score_elements_calibrated")
    if not isinstance(e, Mapping) or "calibrated_score_range" not in stats:
        return None
    expected = _clamp01(_finite(stats["calibrated_score_range"], "calibrated_score_range") / SCORE_RANGE_MAX_7B9ED07)
    return abs(float(e["norm_score_range"]) - expected) < 1e-9


@dataclass(frozen=True)
class Rederived:
    table: pd.DataFrame  # one row per judge of scores.csv
    matching: int  # judges whose re-derived score rounds to the published one (two decimals)
    published: int  # judges with a published score


def rederive(stats: Mapping[str, Mapping[str, Any]], scores: Sequence[Mapping[str, str]]) -> Rederived:
    """Each published judge's score beside the one re-derived from its stats file, and whether they match to two
    decimals (as published: 100 × the final score, rounded)."""
    import pandas as pd

    rows = []
    for r in scores:
        name = r["model"]
        published = float(r["judgemark_score"]) if r.get("judgemark_score", "").strip() else None
        s = stats.get(file_stem(name))
        ours = final_score(s) if s is not None else None
        rows.append(
            {
                "judge": name,
                "stats_file": file_stem(name) if s is not None else None,
                "published": published,
                "stored_final": s.get("final_judgemark_score") if s is not None else None,
                "rederived": None if ours is None else 100 * ours,
                "formula_7b9ed07": score_range_is_7b9ed07(s) if s is not None else None,
                "matches": published is not None and ours is not None and round(100 * ours, 2) == published,
            }
        )
    table = pd.DataFrame(rows)
    return Rederived(table, int(table["matches"].sum()), int(table["published"].notna().sum()))


def rederive_spread(stats: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """The two separability elements that can be recomputed from the per-writer statistics, not only re-weighted:
    per judge, the SD (population, as upstream's ``std_dev_across_models``) and the range of its calibrated writer
    means, recomputed from ``calibrated_model_stats`` beside the stored values, and the range element (the range over
    0–8, :data:`SCORE_RANGE_MAX_7B9ED07`) beside the stored ``norm_score_range``. ``matches``: all three agree to
    1e-9. Judges whose file has no elements are left out."""
    import pandas as pd

    rows = []
    for name, s in stats.items():
        e = s.get("final_judgemark_score_elements_calibrated")
        per_writer = s.get("calibrated_model_stats")
        if not isinstance(e, Mapping) or not isinstance(per_writer, Mapping):
            continue
        means = np.array([_finite(w["mean"], "calibrated writer mean") for w in per_writer.values()])
        sd, span = float(means.std(ddof=0)), float(means.max() - means.min())
        row = {
            "judge": s.get("judge_model", name),
            "writers": len(means),
            "sd_rederived": sd,
            "sd_stored": _finite(s["calibrated_cross_model_stats"]["std_dev_across_models"], "std_dev_across_models"),
            "range_rederived": span,
            "range_stored": _finite(s["calibrated_score_range"], "calibrated_score_range"),
            "range_element_rederived": _clamp01(span / SCORE_RANGE_MAX_7B9ED07),
            "range_element_stored": _finite(e["norm_score_range"], "norm_score_range"),
        }
        row["matches"] = all(
            abs(row[f"{k}_rederived"] - row[f"{k}_stored"]) < 1e-9 for k in ("sd", "range", "range_element")
        )
        rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- judges × writers


def writer_stats(stats: Mapping[str, Mapping[str, Any]], scale: str = "raw") -> pd.DataFrame:
    """One row per (judge, writer) with the judge's published per-writer statistics (``raw`` or ``calibrated``
    scores): count, mean, SD, 95 % half-width, and the correlation of score with length. The judge is named by
    its stats file's ``judge_model``; judges with no statistics are left out."""
    import pandas as pd

    if scale not in ("raw", "calibrated"):
        raise ValueError("scale must be 'raw' or 'calibrated'")
    rows = []
    for data in stats.values():
        per = data.get(f"{scale}_model_stats") or {}
        for writer, s in per.items():
            rows.append(
                {
                    "judge": str(data["judge_model"]),
                    "writer": str(writer),
                    "count": int(s["count"]),
                    "mean": _finite(s["mean"], f"{writer} mean"),
                    "stdev": _finite(s["stdev"], f"{writer} stdev"),
                    "ci95": _finite(s["ci95"], f"{writer} ci95"),
                    "length_correlation": float(s.get("length_correlation", float("nan"))),
                }
            )
    return pd.DataFrame(rows)


def means_table(writers: pd.DataFrame) -> pd.DataFrame:
    """Writers × judges: each judge's mean score of each writer."""
    return writers.pivot(index="writer", columns="judge", values="mean")


def standardised(means: pd.DataFrame) -> pd.DataFrame:
    """Each judge's column of writer means in its own SD units (centred; population SD over writers): judges
    use the scale differently, so gaps between judges are compared on this scale."""
    return (means - means.mean()) / means.std(ddof=0)


def agreement_with_rest(means: pd.DataFrame) -> pd.DataFrame:
    """Per judge: Spearman of its writer means with the mean of the other judges' (standardised) means, with the
    interval its n allows (:func:`~eqbench_nb.analysis.stats.correlation_summary`: Bonett–Wright below 30)."""
    import pandas as pd

    from ..analysis.stats import correlation_summary

    z = standardised(means)
    rows = []
    for judge in means.columns:
        rest = z.drop(columns=[judge]).mean(axis=1)
        s = correlation_summary(means[judge].to_numpy(float), rest.to_numpy(float))
        rows.append(
            {
                "judge": judge,
                "spearman": s["spearman"],
                "low": s["spearman_low"],
                "high": s["spearman_high"],
                "n": s["n"],
                "interval_method": s["interval_method"],
            }
        )
    return pd.DataFrame(rows).sort_values("spearman", ascending=False).reset_index(drop=True)


def length_bias(writers: pd.DataFrame) -> pd.DataFrame:
    """Per judge: the mean over writers of the within-writer correlation of score with length (upstream's
    ``length_correlation``; positive: longer pieces of the same writer score higher), with the interval over
    writers their number calls for (Student t below 30), and ``p_value``, the one-sample t test of mean 0 over the
    writers: one per judge, a family of tests to correct (:func:`~eqbench_nb.analysis.stats.correct_family`)."""
    import pandas as pd
    from scipy import stats as sps

    rows = []
    for judge, g in writers.groupby("judge", sort=True):
        values = g["length_correlation"].to_numpy(float)
        iv = mean_interval(values)
        rows.append(
            {"judge": judge, "length_correlation": iv.estimate, "low": iv.low, "high": iv.high, "writers": iv.n}
            | {"p_value": float(sps.ttest_1samp(values, 0.0).pvalue), "interval_method": f"{iv.method} over writers"}
        )
    return pd.DataFrame(rows).sort_values("length_correlation", ascending=False).reset_index(drop=True)


def _row_spearman(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman of each row of ``a`` with the same row of ``b`` (a 1-d ``b``: with every row), average ranks."""
    from scipy.stats import rankdata

    ra = rankdata(a, axis=1)
    rb = rankdata(np.broadcast_to(b, a.shape), axis=1)
    ra, rb = ra - ra.mean(axis=1, keepdims=True), rb - rb.mean(axis=1, keepdims=True)
    return np.asarray((ra * rb).sum(axis=1) / np.sqrt((ra * ra).sum(axis=1) * (rb * rb).sum(axis=1)))


def ensemble_curve(means: pd.DataFrame, standardise: bool = True) -> pd.DataFrame:
    """For k = 1 … all judges, over every subset of k judges (all of them: nothing is sampled), the Spearman of
    the writers ranked by the mean of the k judges' writer means with the full panel's ranking (all judges, the k
    included) and, for k below all, with the ranking by the judges left out (an independent panel): median, lowest,
    the share of subsets below 0.9, and ``rest_judges`` (how many judges are left out).

    With ``standardise`` (the default) each judge's writer means are standardised first (:func:`standardised`), as
    :func:`agreement_with_rest` does, so k = 1 against the rest is that function's Spearman and every judge weighs
    alike; ``standardise=False`` averages raw means (upstream's ensemble averages the judges' item scores), where a
    judge weighs in proportion to the spread of its scale."""
    import pandas as pd

    values = (standardised(means) if standardise else means).to_numpy(float)
    m = values.shape[1]
    full = values.mean(axis=1)
    rows = []
    for k in range(1, m + 1):
        subsets = np.array(list(combinations(range(m), k)))
        chosen = np.zeros((len(subsets), m), bool)
        chosen[np.arange(len(subsets))[:, None], subsets] = True
        ens = (chosen @ values.T) / k  # subsets × writers
        vs_full = _row_spearman(ens, full)
        row = {"k": k, "subsets": len(subsets), "full_median": float(np.median(vs_full))}
        row |= {"full_lowest": float(vs_full.min()), "full_below_0_9": float((vs_full < 0.9).mean())}
        if k < m:
            rest = ((~chosen) @ values.T) / (m - k)
            vs_rest = _row_spearman(ens, rest)
            row |= {"rest_median": float(np.median(vs_rest)), "rest_lowest": float(vs_rest.min())}
        else:
            row |= {"rest_median": float("nan"), "rest_lowest": float("nan")}
        row["rest_judges"] = m - k
        rows.append(row)
    return pd.DataFrame(rows)


def families() -> pd.DataFrame:
    """``data/model_families.csv``: each writer's and judge's family (its developer), the writer a judge is the same
    model as, and the source of each row."""
    import pandas as pd

    from ..paths import tables_dir

    table = pd.read_csv(tables_dir() / "model_families.csv", dtype=str, keep_default_na=False)
    if (table["source"].str.strip() == "").any():
        raise ValueError("data/model_families.csv: every row needs a source")
    return table


def same_model(table: pd.DataFrame) -> dict[str, str]:
    """{judge: the writer it is the same model as} from the families table."""
    rows = table[table["same_model_as"].str.strip() != ""]
    return dict(zip(rows["model"], rows["same_model_as"], strict=True))


__all__ = [
    "FORMULA_COMMIT",
    "Rederived",
    "agreement_with_rest",
    "emd_element",
    "ensemble_curve",
    "families",
    "file_stem",
    "final_score",
    "length_bias",
    "load_scores",
    "load_stats",
    "means_table",
    "rederive",
    "rederive_spread",
    "same_model",
    "score_range_is_7b9ed07",
    "standardised",
    "writer_stats",
]
