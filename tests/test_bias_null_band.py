"""The bias-by-reference plot draws the null's interval as a band, labelled with what it resamples."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from eqbench_nb import plots


def test_null_interval_is_a_labelled_band_around_the_null_line():
    bias = pd.DataFrame(
        {
            "reference": [0, 1, 2],
            "mean": [2.0, 1.0, 0.0],
            "lo": [1.5, 0.5, -0.5],
            "hi": [2.5, 1.5, 0.5],
            "n": [10, 10, 10],
        }
    )
    null = pd.Series([1.27, 0.8, 0.5], index=[0, 1, 2], name="clipped-noise null")
    interval = pd.DataFrame({"lo": [1.08, 0.6, np.nan], "hi": [1.46, 1.0, np.nan]}, index=[0, 1, 2])
    fig, ax = plt.subplots()
    plots.plot_bias_by_reference(
        ax,
        bias,
        null=null,
        null_interval=interval,
        null_interval_label="null's 95 % interval (lineages and questions resampled)",
    )
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "null's 95 % interval (lineages and questions resampled)" in labels
    (band,) = ax.collections[-1:]
    vertices = band.get_paths()[0].vertices
    assert np.isclose(vertices[:, 1].min(), 0.6)
    assert np.isclose(vertices[:, 1].max(), 1.46)
    assert vertices[:, 0].max() == 1  # the reference value with no interval is left out, not drawn as zero
    plt.close(fig)


def test_without_an_interval_no_band_is_drawn():
    bias = pd.DataFrame({"reference": [0, 1], "mean": [1.0, 0.0], "lo": [0.5, -0.5], "hi": [1.5, 0.5]})
    fig, ax = plt.subplots()
    plots.plot_bias_by_reference(ax, bias, null=pd.Series([0.5, 0.0], index=[0, 1]))
    assert not any(type(c).__name__ in ("PolyCollection", "FillBetweenPolyCollection") for c in ax.collections)
    plt.close(fig)
