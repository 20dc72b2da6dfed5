"""Every plot of the notebooks, one module per analysis module (``plots.ranking`` draws what
``eqbench.study.ranking`` computes). Each function draws on a given ``ax`` and returns it; it takes plain data
(arrays, Series, the tables the analysis functions return); figure layout and saving stay in the notebook
(:func:`eqbench_nb.report.save_figure`). ``from eqbench_nb import plots; plots.plot_x(...)`` reaches them all,
each module imported only when one of its names is first used (EQ-Bench's studies stay unimported until a plot of
them is drawn).
:mod:`.runs` assembles whole figures of a set of runs from them, for ``eqbench-nb plot``."""

from __future__ import annotations

import importlib
from typing import Any

#: Each name, by the module that defines it (imported on first use: ``plots.plot_x`` and ``from .plots import x``).
_WHERE = {
    "MARKERS": "common",
    "OKABE_ITO": "common",
    "PALETTE": "common",
    "label_points": "common",
    "label_residuals": "stats",
    "plot_added_variable": "psychometrics",
    "plot_answers_vs_reference": "table",
    "plot_bias_by_reference": "emotions",
    "plot_clipped_noise_null": "metric",
    "plot_constant_answers": "metric",
    "plot_constant_calibration": "metric",
    "plot_control_forest": "psychometrics",
    "plot_correlation_forest": "stats",
    "plot_correlation_matrix": "paper",
    "plot_distribution_rows": "stats",
    "plot_failed_difficulty": "metric",
    "plot_gain_vs_strength": "paper",
    "plot_group_difference": "emotions",
    "plot_heatmap": "emotions",
    "plot_heatmap_counts": "emotions",
    "plot_interval_rows": "stats",
    "plot_item_map": "psychometrics",
    "plot_iteration_scores": "repeatability",
    "plot_key_candidate": "psychometrics",
    "plot_means": "emotions",
    "plot_neighbour_poi": "ranking",
    "plot_noisy_answers": "metric",
    "plot_pair_gaps": "repeatability",
    "plot_parse_counts": "repeatability",
    "plot_parse_failures": "metric",
    "plot_penalty": "metric",
    "plot_performance_profiles": "ranking",
    "plot_power_curves": "ranking",
    "plot_printed_vs_ours": "paper",
    "plot_probability_matrix": "ranking",
    "plot_pvalues_by_n": "stats",
    "plot_question_failures": "metric",
    "plot_question_score_tail": "metric",
    "plot_rank_bump": "ranking",
    "plot_rank_intervals": "ranking",
    "plot_ranked_intervals": "stats",
    "plot_reference_keys": "paper",
    "plot_revision_dumbbell": "paper",
    "plot_run_strips": "repeatability",
    "plot_scatter_by_group": "stats",
    "plot_scatter_fit": "stats",
    "plot_score_bars": "paper",
    "plot_score_histograms": "stats",
    "plot_score_panel": "stats",
    "plot_score_strips": "stats",
    "plot_sd_sources": "repeatability",
    "plot_separation_matrix": "stats",
    "plot_short_form": "psychometrics",
    "plot_shrinkage": "emotions",
    "plot_text_panel": "common",
    "plot_v1_v2": "metric",
    "robust_limits": "common",
    "short_name": "common",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
