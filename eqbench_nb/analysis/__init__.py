"""The generic statistics, as small pure functions: they import no benchmark package (issue 39).

EQ-Bench's own studies build on them from :mod:`eqbench_nb.eqbench.study`, as every other benchmark's do from its own
package (its per-emotion errors and decoding-protocol comparisons among them).

- ``stats``: interval estimates (bootstrap over questions or over models), correlations
- ``verdicts``: verdicts phrased from intervals
- ``ranks``: rank intervals, P(X > Y), BH-corrected pairs, profiles, power over a score matrix
- ``power``: power and sample size
- ``spread``: how much repeated scores vary: CV, SD with its interval, ICC(2,1)
- ``nulls``: null models for verdicts: the clipped-noise null of ratings on 0–10
- ``psychometrics``: reliability (α, split-half), items, a 2PL model, short form, validity
- ``judges``: judges' agreement and bias
- ``bradley_terry``: Bradley–Terry strengths, with a length control
"""
