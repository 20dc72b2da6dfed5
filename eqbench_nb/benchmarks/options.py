"""A benchmark's options as typed values: one frozen dataclass per benchmark, each field declaring its command-line
option once (:func:`option`), from which :mod:`eqbench_nb.cli.options` generates the ``argparse`` options and to
which it converts the parsed arguments. A hook takes the dataclass, so Python (a notebook, a test) calls it with
the dataclass itself, no command line involved: ``EqBenchOptions(convention="lm-eval", reps=500)``.

The value types (:func:`whole_number`, :func:`at_least`, ...) check a text and raise :class:`OptionError` in one
line; the command line turns it into argparse's usage error. Nothing here imports argparse.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

# ---------------------------------------------------------------- option value types (one-line errors)


class OptionError(ValueError):
    """A value an option does not take, said in one line (``must be a whole number, not 'x'``)."""


def whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise OptionError(f"must be a whole number, not {text!r}") from None


def at_least(n: int) -> Callable[[str], int]:
    """A whole number of at least ``n``."""

    def parse(text: str) -> int:
        value = whole_number(text)
        if value < n:
            raise OptionError(f"must be at least {n}, not {value}")
        return value

    parse.minimum = n  # type: ignore[attr-defined]  # the help states it (cli.common.Formatter)
    return parse


positive_int = at_least(1)


def number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise OptionError(f"must be a number, not {text!r}") from None


def not_negative(text: str) -> float:
    """A finite number, 0 or more (a price, a budget of seconds): ``inf`` and ``nan`` are refused."""
    value = number(text)
    if not 0 <= value < math.inf:
        raise OptionError(f"must be a finite number, 0 or more, not {text}")
    return value


def seconds(text: str) -> float:
    """A finite number of seconds above 0."""
    value = number(text)
    if not 0 < value < math.inf:
        raise OptionError(f"must be a positive number, not {text}")
    return value


# ---------------------------------------------------------------- the declaration of an option


class _FieldDefault:
    def __repr__(self) -> str:
        return "FIELD_DEFAULT"


#: An :class:`Option`'s default when the command line's is the field's.
FIELD_DEFAULT: Any = _FieldDefault()


@dataclass(frozen=True)
class Option:
    """How one field of an options dataclass appears on the command line (its dest is the field's name).

    ``flags``, ``help``, ``type`` (a value type above, or ``int``/``float``), ``choices``, ``metavar`` as argparse
    takes them; ``flag``: a switch (``store_true``); ``group``: the title of its help group (None: the class's
    :attr:`Options.GROUP`; ``""``: none, the command's own options). ``commands``: the commands that take it;
    ``per_command``: what differs in one command (``{"score": {"help": ...}}``, a ``default`` too)."""

    flags: tuple[str, ...]
    help: str
    type: Callable[[str], Any] | None = None
    choices: Sequence[str] | None = None
    metavar: str | None = None
    flag: bool = False
    group: str | None = None
    commands: tuple[str, ...] = ("run",)
    per_command: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: the command line's default where it is not the field's (set through ``per_command``)
    default: Any = FIELD_DEFAULT

    def for_command(self, command: str | None) -> Option:
        """This option as ``command`` shows it."""
        return dataclasses.replace(self, **self.per_command.get(command or "", {}), per_command={})


def option(*flags: str, help: str, default: Any = None, **declared: Any) -> Any:
    """A dataclass field whose value comes from the option ``flags`` (:class:`Option` says the rest)."""
    return field(default=default, metadata={"option": Option(flags, help, **declared)})


def option_of(f: dataclasses.Field[Any]) -> Option | None:
    """A field's option (None: a value another part of the command line supplies)."""
    return f.metadata.get("option")


@dataclass(frozen=True)
class SecondEndpoint:
    """The options of a second endpoint (a judge's) that an options dataclass takes: the run's own endpoint options
    (:func:`eqbench_nb.cli.options.add_endpoint_options`), each flag after ``prefix`` (``judge-``) and each dest
    after its underscored form, in a help group of their own, ``title``; declared once, there. ``repeated``: the
    dests given once per endpoint of a panel (each a list), ``hidden``: the dests left out of the help, ``help``:
    a dest's own help; ``commands``: the commands that take them."""

    prefix: str
    title: str
    repeated: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    help: Mapping[str, str] = field(default_factory=dict)
    commands: tuple[str, ...] = ("run",)


@dataclass(frozen=True)
class Options:
    """What every options dataclass is. ``GROUP``: the title of the help group of its fields' options (None: the
    command's own options); ``ENDPOINT``: a second endpoint whose options it takes as well (its fields are theirs,
    by dest), added after the fields of other groups and before the fields of its own group."""

    GROUP: ClassVar[str | None] = None
    ENDPOINT: ClassVar[SecondEndpoint | None] = None


@dataclass(frozen=True)
class RunOptions(Options):
    """A benchmark's ``run`` options. ``dry_run``: the endpoint's ``--dry-run`` (send nothing, print an estimate)."""

    dry_run: bool = False


@dataclass(frozen=True)
class CommandOptions(Options):
    """What the research commands' hooks (``score``, ``runs``, ``compare``, ``leaderboard``, ``plot``) read.
    ``sort``: ``runs``' ``--sort`` (a column; the command checks it names one of some benchmark's table)."""

    sort: str | None = None
