"""The run viewer: see what the model said, item by item, for a run of any benchmark (issue 27).

Each benchmark gives its item records and its run's header (its ``samples`` and ``summary`` hooks,
:mod:`eqbench_nb.benchmarks`); the viewer finds the benchmark through :mod:`eqbench_nb.registry` and never names one.

- ``samples``: a run's item records, whatever its benchmark (``eqbench_nb.samples``)
- ``payload``: one or two runs as the object the viewer script draws (redacted, laid out by column)
- ``page``: the self-contained HTML page (``eqbench-nb view``, :mod:`eqbench_nb.cli.view`); ``viewer.js`` and
  ``viewer.css`` inlined
- ``widget``: the same script as a JupyterLab widget (``eqbench_nb.view``)
"""
