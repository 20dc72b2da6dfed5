"""Every plot of the notebooks, one module per analysis module (``plots.ranking`` draws what
``eqbench.study.ranking`` computes). Each function draws on a given ``ax`` and returns it; it takes plain data
(arrays, Series, the tables the analysis functions return); figure layout and saving stay in the notebook
(:func:`eqbench_nb.report.save_figure`). ``from eqbench_nb import plots; plots.plot_x(...)`` reaches them all.
:mod:`.runs` assembles whole figures of a set of runs from them, for ``eqbench-nb plot``."""

from __future__ import annotations

from .common import MARKERS, OKABE_ITO, PALETTE, label_points, plot_text_panel, robust_limits, short_name
from .emotions import (
    plot_bias_by_reference,
    plot_group_difference,
    plot_heatmap,
    plot_heatmap_counts,
    plot_means,
    plot_shrinkage,
)
from .metric import (
    plot_clipped_noise_null,
    plot_constant_answers,
    plot_constant_calibration,
    plot_failed_difficulty,
    plot_noisy_answers,
    plot_parse_failures,
    plot_penalty,
    plot_question_failures,
    plot_question_score_tail,
    plot_v1_v2,
)
from .paper import (
    plot_correlation_matrix,
    plot_gain_vs_strength,
    plot_printed_vs_ours,
    plot_reference_keys,
    plot_revision_dumbbell,
    plot_score_bars,
)
from .psychometrics import plot_added_variable, plot_control_forest, plot_item_map, plot_key_candidate, plot_short_form
from .ranking import (
    plot_neighbour_poi,
    plot_performance_profiles,
    plot_power_curves,
    plot_probability_matrix,
    plot_rank_bump,
    plot_rank_intervals,
)
from .repeatability import plot_iteration_scores, plot_pair_gaps, plot_parse_counts, plot_run_strips, plot_sd_sources
from .stats import (
    label_residuals,
    plot_correlation_forest,
    plot_distribution_rows,
    plot_interval_rows,
    plot_pvalues_by_n,
    plot_ranked_intervals,
    plot_scatter_by_group,
    plot_scatter_fit,
    plot_score_histograms,
    plot_score_panel,
    plot_score_strips,
    plot_separation_matrix,
)
from .table import plot_answers_vs_reference

__all__ = [
    "MARKERS",
    "OKABE_ITO",
    "PALETTE",
    "label_points",
    "label_residuals",
    "plot_added_variable",
    "plot_answers_vs_reference",
    "plot_bias_by_reference",
    "plot_clipped_noise_null",
    "plot_constant_answers",
    "plot_constant_calibration",
    "plot_control_forest",
    "plot_correlation_forest",
    "plot_correlation_matrix",
    "plot_distribution_rows",
    "plot_failed_difficulty",
    "plot_gain_vs_strength",
    "plot_group_difference",
    "plot_heatmap",
    "plot_heatmap_counts",
    "plot_interval_rows",
    "plot_item_map",
    "plot_iteration_scores",
    "plot_key_candidate",
    "plot_means",
    "plot_neighbour_poi",
    "plot_noisy_answers",
    "plot_pair_gaps",
    "plot_parse_counts",
    "plot_parse_failures",
    "plot_penalty",
    "plot_performance_profiles",
    "plot_power_curves",
    "plot_printed_vs_ours",
    "plot_probability_matrix",
    "plot_pvalues_by_n",
    "plot_question_failures",
    "plot_question_score_tail",
    "plot_rank_bump",
    "plot_rank_intervals",
    "plot_ranked_intervals",
    "plot_reference_keys",
    "plot_revision_dumbbell",
    "plot_run_strips",
    "plot_scatter_by_group",
    "plot_scatter_fit",
    "plot_score_bars",
    "plot_score_histograms",
    "plot_score_panel",
    "plot_score_strips",
    "plot_sd_sources",
    "plot_separation_matrix",
    "plot_short_form",
    "plot_shrinkage",
    "plot_text_panel",
    "plot_v1_v2",
    "robust_limits",
    "short_name",
]
