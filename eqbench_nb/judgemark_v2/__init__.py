"""Judgemark v2.1 (EQ-bench/Judgemark-v2, MIT): its published results read and re-derived.

:mod:`.files` finds and checks the upstream files; :mod:`.published` reads them into tidy tables (each judge's
per-writer statistics), re-derives each judge's final score from its published elements as upstream's code did,
and measures what the judges agree on (notebook 11).
"""
