"""The official EQ-Bench pipeline's two judged benchmarks, as pure parts (EQ-bench/EQ-Bench @ ``d28c60c``).

- :mod:`.files`: the pinned upstream data (the 19 creative-writing prompts, the Judgemark test set), found and
  checked as every upstream file is (:mod:`eqbench_nb.data`), never committed.
- :mod:`.creative_writing`: the prompts and seed modifiers, the test model's retry decision, the judge prompt, the
  parsing of the judge's reply, and the 0–100 score with its interval over prompts.
- :mod:`.judgemark`: a judge's statistics from its per-writer scores under each named version of the formula
  (``d28c60c``, ``31bd53b``, ``38a29f8``), self and family bias, ANOVA F from per-item scores.
- :mod:`.board`: the published Judgemark v1 board (eqbench.com ``judgemark.js``) as a committed table, and its
  re-derivation.

The runner (``run --benchmark creative-writing`` / ``judgemark``) will call these; see ``docs/judged.md``.
"""
