"""The vocabulary of a benchmark's typed options, declared in :mod:`eqbench_nb.runner.options` (below every
benchmark, so a benchmark's own package declares its options and its ``run_<name>`` builds them) and named here
for the benchmarks' modules."""

from ..runner.options import (
    FIELD_DEFAULT,
    CommandOptions,
    Option,
    OptionError,
    Options,
    RunOptions,
    SecondEndpoint,
    at_least,
    not_negative,
    number,
    option,
    option_of,
    positive_int,
    same_option,
    seconds,
    text,
    value_type,
    whole_number,
)

__all__ = [
    "FIELD_DEFAULT",
    "CommandOptions",
    "Option",
    "OptionError",
    "Options",
    "RunOptions",
    "SecondEndpoint",
    "at_least",
    "not_negative",
    "number",
    "option",
    "option_of",
    "positive_int",
    "same_option",
    "seconds",
    "text",
    "value_type",
    "whole_number",
]
