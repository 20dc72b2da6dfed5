"""The figures of EQ-Bench's own studies, one module per study module (``plots.ranking`` draws what
:mod:`eqbench_nb.eqbench.study.ranking` computes), built on the generic plots of :mod:`eqbench_nb.plots` (which
names each of them, so ``plots.plot_x`` reaches these too).

- ``table``: a run's answers against the reference (notebook 01, ``eqbench-nb plot reference``)
- ``repeatability``: run-to-run variation (notebook 03)
- ``emotions``: per-emotion errors (notebook 05, :mod:`eqbench_nb.eqbench.study.emotions`)
- ``metric``: how the metric behaves (notebook 06)
- ``paper``: the paper figure by figure (notebook 07)
- ``ranking``: ranking reliability and power (notebook 02)
- ``runs``: the figures ``eqbench-nb plot`` draws for a set of runs
"""
