"""The paper's analyses and the metric's behaviour, as small pure functions over runs and tables.

================  =====================================================================
``stats``         interval estimates (bootstrap over questions or over models), correlations
``table``         the long run table every analysis starts from
``published``     published numbers committed under ``data/``; per-question score matrices
``repeatability`` run-to-run variation: per-iteration scores, ICC, a single run's interval
``emotions``      per-emotion errors
``metric``        how the v2 metric behaves: baselines, the constant, parse failures
``paper``         the paper figure by figure: rebuilt figures and tables beside the printed values
``ranking``       rank intervals, P(X > Y), BH-corrected pairs, conventions' ranks, profiles, power
``psychometrics`` reliability (α, split-half), items, a 2PL model, key audit, short form, validity
``nulls``         null models for verdicts: the clipped-noise null of ratings on 0–10
================  =====================================================================
"""
