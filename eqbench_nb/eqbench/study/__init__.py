"""EQ-Bench's own studies: the paper's analyses and the metric's behaviour, over EQ-Bench runs and published tables.

They sit beside EQ-Bench, as EmotionBench's and EQ-Bench 3's studies sit beside theirs, and build on the generic
statistics of :mod:`eqbench_nb.analysis` (which import no benchmark package; issue 39).

- ``table``: the long run table every study starts from
- ``published``: published numbers committed under ``data/``; per-question score matrices
- ``repeatability``: run-to-run variation: per-iteration scores, ICC, a single run's interval
- ``metric``: how the v2 metric behaves: baselines, the constant, parse failures
- ``paper``: the paper figure by figure: rebuilt figures and tables beside the printed values
- ``ranking``: the conventions' question values and ranks (the statistics: :mod:`eqbench_nb.analysis.ranks`)
- ``leaderboard``: the leaderboard and run comparisons of ``eqbench-nb leaderboard``/``compare``
- ``key_audit``: where strong runs agree with each other but not with the reference key
- ``short_forms``: fits the short forms of ``data/short_forms.json``
- ``emotions``: per-emotion errors over the run table
- ``protocol``: do protocol choices (revision, engine, quantisation) go with different scores, over the published runs
- ``plots``: the figures of these studies (``eqbench_nb.plots`` reaches them by name, with the generic ones)
"""
