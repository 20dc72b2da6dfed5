"""The run viewer: see what the model said, item by item (issue 27).

==================  ==========================================================================================
``samples``         one item record per question x iteration (EQ-Bench) or situation x repeat (EmotionBench)
``summary``         a run's header: settings, pipeline and commit, scores with intervals, parse rate, tokens, cost
``payload``         one or two runs as the object the viewer script draws (redacted, laid out by column)
``page``            the self-contained HTML page (``eqbench-nb view``); ``viewer.js`` and ``viewer.css`` inlined
``widget``          the same script as a JupyterLab widget (``eqbench_nb.view``)
``command``         the ``eqbench-nb view`` command
==================  ==========================================================================================
"""
