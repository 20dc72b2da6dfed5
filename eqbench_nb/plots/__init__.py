"""Every plot of the notebooks by name: ``from eqbench_nb import plots; plots.plot_x(...)`` reaches them all. Each
function draws on a given ``ax`` and returns it; it takes plain data (arrays, Series, the tables the analysis
functions return); figure layout and saving stay in the notebook (:func:`eqbench_nb.report.save_figure`).

The generic plots live here: ``common`` (palettes, labels, limits), ``stats`` (distributions, intervals,
correlations) and ``psychometrics``. A benchmark's study's plots live beside that study (EQ-Bench's in
:mod:`eqbench_nb.eqbench.study.plots`, on this floor); this module names them, and imports each module only when one
of its names is first used, so importing ``plots`` imports nothing of EQ-Bench's study until one of its plots is
drawn."""

from __future__ import annotations

import importlib
from typing import Any

#: Each name, by the module that defines it, relative to this package (imported on first use: ``plots.plot_x`` and
#: ``from .plots import x``).
_WHERE = {
    "MARKERS": ".common",
    "OKABE_ITO": ".common",
    "PALETTE": ".common",
    "label_points": ".common",
    "label_residuals": ".stats",
    "plot_added_variable": ".psychometrics",
    "plot_answers_vs_reference": "..eqbench.study.plots.table",
    "plot_bias_by_reference": "..eqbench.study.plots.emotions",
    "plot_clipped_noise_null": "..eqbench.study.plots.metric",
    "plot_constant_answers": "..eqbench.study.plots.metric",
    "plot_constant_calibration": "..eqbench.study.plots.metric",
    "plot_control_forest": ".psychometrics",
    "plot_correlation_forest": ".stats",
    "plot_correlation_matrix": "..eqbench.study.plots.paper",
    "plot_distribution_rows": ".stats",
    "plot_failed_difficulty": "..eqbench.study.plots.metric",
    "plot_gain_vs_strength": "..eqbench.study.plots.paper",
    "plot_group_difference": "..eqbench.study.plots.emotions",
    "plot_heatmap": "..eqbench.study.plots.emotions",
    "plot_heatmap_counts": "..eqbench.study.plots.emotions",
    "plot_interval_rows": ".stats",
    "plot_item_map": ".psychometrics",
    "plot_iteration_scores": "..eqbench.study.plots.repeatability",
    "plot_key_candidate": ".psychometrics",
    "plot_means": "..eqbench.study.plots.emotions",
    "plot_neighbour_poi": "..eqbench.study.plots.ranking",
    "plot_noisy_answers": "..eqbench.study.plots.metric",
    "plot_pair_gaps": "..eqbench.study.plots.repeatability",
    "plot_parse_counts": "..eqbench.study.plots.repeatability",
    "plot_parse_failures": "..eqbench.study.plots.metric",
    "plot_penalty": "..eqbench.study.plots.metric",
    "plot_performance_profiles": "..eqbench.study.plots.ranking",
    "plot_power_curves": "..eqbench.study.plots.ranking",
    "plot_printed_vs_ours": "..eqbench.study.plots.paper",
    "plot_probability_matrix": "..eqbench.study.plots.ranking",
    "plot_pvalues_by_n": ".stats",
    "plot_question_failures": "..eqbench.study.plots.metric",
    "plot_question_score_tail": "..eqbench.study.plots.metric",
    "plot_rank_bump": "..eqbench.study.plots.ranking",
    "plot_rank_intervals": "..eqbench.study.plots.ranking",
    "plot_ranked_intervals": ".stats",
    "plot_reference_keys": "..eqbench.study.plots.paper",
    "plot_revision_dumbbell": "..eqbench.study.plots.paper",
    "plot_run_strips": "..eqbench.study.plots.repeatability",
    "plot_scatter_by_group": ".stats",
    "plot_scatter_fit": ".stats",
    "plot_score_bars": "..eqbench.study.plots.paper",
    "plot_score_histograms": ".stats",
    "plot_score_panel": ".stats",
    "plot_score_strips": ".stats",
    "plot_sd_sources": "..eqbench.study.plots.repeatability",
    "plot_separation_matrix": ".stats",
    "plot_short_form": ".psychometrics",
    "plot_shrinkage": "..eqbench.study.plots.emotions",
    "plot_text_panel": ".common",
    "plot_v1_v2": "..eqbench.study.plots.metric",
    "robust_limits": ".common",
    "short_name": ".common",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
