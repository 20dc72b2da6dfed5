"""Options as typed values: one frozen dataclass per set of options (a benchmark's, an endpoint's), each field
declaring its command-line option once (:func:`option`), from which :mod:`eqbench_nb.cli.options` generates the
``argparse`` options and to which it converts the parsed arguments. A hook takes the dataclass, so Python (a
notebook, a test) calls it with the dataclass itself, no command line involved:
``EqBenchOptions(convention="lm-eval", reps=500)``.

Each field is checked once, by its declaration, whoever builds the dataclass (:func:`check_fields`, run in its
``__post_init__``): the value type (:func:`whole_number`, :func:`at_least`, ...) reads a text and raises
:class:`OptionError` in one line; the command line gives it the option's text (argparse's usage error, exit 2),
Python the value's (a ``ValueError`` naming the field), so both say the same thing, before anything is paid. A value
of the wrong type (a text where a number or a list is expected) is refused, never converted: a judge's model given
as ``"judge"`` rather than ``["judge"]`` would otherwise be a panel of five one-letter judges.

Nothing here imports argparse.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .errors import RunnerError

# ---------------------------------------------------------------- option value types (one-line errors)


class OptionError(RunnerError):
    """A value an option does not take, said in one line (``must be a whole number, not 'x'``); a ValueError, and a
    :class:`~eqbench_nb.runner.errors.RunnerError` as every refusal of a run before it sends anything."""


def value_type(kind: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Marks a value type with the Python type of its values (what :func:`check_fields` expects from Python)."""

    def mark(parse: Callable[..., Any]) -> Callable[..., Any]:
        parse.kind = kind  # type: ignore[attr-defined]
        return parse

    return mark


@value_type(str)
def text(value: str) -> str:
    """Text that says something: an empty model name would be sent as ``"model": ""``."""
    if not value.strip():
        raise OptionError(f"must not be empty, not {value!r}")
    return value


@value_type(int)
def whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise OptionError(f"must be a whole number, not {text!r}") from None


def at_least(n: int, most: int | None = None, why: str = "") -> Callable[[str], int]:
    """A whole number of at least ``n`` (and at most ``most``, ``why`` saying why)."""

    @value_type(int)
    def parse(text: str) -> int:
        value = whole_number(text)
        if value < n:
            raise OptionError(f"must be at least {n}, not {_shown(value)}")
        if most is not None and value > most:
            raise OptionError(f"must be at most {most:,}{why}, not {_shown(value)}")
        return value

    parse.minimum = n  # type: ignore[attr-defined]  # the help states it (cli.common.Formatter)
    return parse


positive_int = at_least(1)


def _shown(value: int) -> str:
    """A whole number as a message shows it: a long one by its count of digits."""
    digits = str(abs(value))
    return f"{value:,}" if len(digits) <= 30 else f"a number of {len(digits):,} digits"


@value_type(float)
def number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise OptionError(f"must be a number, not {text!r}") from None


@value_type(float)
def not_negative(text: str) -> float:
    """A finite number, 0 or more (a price, a budget of seconds): ``inf`` and ``nan`` are refused."""
    value = number(text)
    if not 0 <= value < math.inf:
        raise OptionError(f"must be a finite number, 0 or more, not {value:g}")
    return value


@value_type(float)
def seconds(text: str) -> float:
    """A finite number of seconds above 0."""
    value = number(text)
    if not 0 < value < math.inf:
        raise OptionError(f"must be a positive number, not {value:g}")
    return value


@value_type(list)
def names(text: str) -> tuple[str, ...]:
    """Comma-separated names (``Anger,Fear``), trimmed, each once, in order; from Python a list of them."""
    found = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if not found:
        raise OptionError(f"names nothing, not {text!r} (an unset shell variable?): name at least one, or leave it out "
                          "for all")  # fmt: skip
    return found


def kind_of(parse: Callable[[str], Any] | None) -> type:
    """The Python type of the values ``parse`` gives (``str`` for an option without a value type)."""
    return getattr(parse, "kind", str) if parse is not None else str


# ---------------------------------------------------------------- the declaration of an option


class _FieldDefault:
    def __repr__(self) -> str:
        return "FIELD_DEFAULT"


#: An :class:`Option`'s default when the command line's is the field's.
FIELD_DEFAULT: Any = _FieldDefault()


@dataclass(frozen=True)
class Option:
    """How one field of an options dataclass appears on the command line (its dest is the field's name).

    ``flags``, ``help``, ``type`` (a value type above; None: :func:`text`), ``choices``, ``metavar`` as argparse
    takes them; ``flag``: a switch (``store_true``; ``negated``: ``store_false``, the field True unless given);
    ``group``: the title of its help group (None: the class's :attr:`Options.GROUP`; ``""``: none, the command's own
    options). ``commands``: the commands that take it; ``per_command``: what differs in one command
    (``{"score": {"help": ...}}``, a ``default`` too). ``repeated``: one value per time given (a list).
    ``before``: a flag its option is shown before."""

    flags: tuple[str, ...]
    help: str
    type: Callable[[str], Any] | None = None
    choices: Sequence[str] | None = None
    metavar: str | None = None
    flag: bool = False
    negated: bool = False
    group: str | None = None
    commands: tuple[str, ...] = ("run",)
    per_command: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: the command line's default where it is not the field's (set through ``per_command``)
    default: Any = FIELD_DEFAULT
    repeated: bool = False
    #: a flag of its group it is shown before, where the parser has it (``--dry-run`` among the endpoint's)
    before: str | None = None

    def for_command(self, command: str | None) -> Option:
        """This option as ``command`` shows it."""
        return dataclasses.replace(self, **self.per_command.get(command or "", {}), per_command={})

    def parse(self, value: str) -> Any:
        """One value of the option from its text: its value type's, then its choices (the one check of both the
        command line and Python)."""
        parsed = (self.type or text)(value)
        if self.choices is not None and parsed not in self.choices:
            raise OptionError(f"must be one of {', '.join(map(str, self.choices))}, not {parsed!r}")
        return parsed

    def check(self, value: Any, none: bool) -> Any:
        """A value given from Python, checked as the command line checks its text (``none``: None is the field's
        "not given"); its normal form (a tuple for a repeated option), or an :class:`OptionError`."""
        if value is None and (none or self.repeated):
            return None
        if self.flag:
            if not isinstance(value, bool):
                raise OptionError(f"must be True or False, not {value!r}")
            return value
        if not self.repeated:
            return self._one(value)
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise OptionError(f"must be a list, one value per time the option is given, not {_said(value)}")
        if not value:
            raise OptionError("must hold at least one value (None: not given)")
        return tuple(self._one(v) for v in value)

    def _one(self, value: Any) -> Any:
        kind = kind_of(self.type)
        choices = [*(self.choices or ()), *(c for p in self.per_command.values() for c in p.get("choices") or ())]
        every = dataclasses.replace(self, choices=list(dict.fromkeys(choices)) if self.choices is not None else None)
        if kind is str:
            if not isinstance(value, str):
                raise OptionError(f"must be text, not {_said(value)}")
            return every.parse(value)
        if kind is list:
            if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
                raise OptionError(f"must be a list of names, not {_said(value)}")
            if not all(isinstance(v, str) for v in value):
                raise OptionError(f"must be a list of names (text), not {_said(value)}")
            return every.parse(",".join(value))
        if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int):
            raise OptionError(f"must be {'a number' if kind is float else 'a whole number'}, not {_said(value)}")
        if kind is float:
            try:
                value = float(value)
            except OverflowError:  # an int past float's range
                raise OptionError(f"must be a finite number, not {_shown(value)}") from None
        return every.parse(repr(value) if kind is float else str(value))


def _said(value: Any) -> str:
    if isinstance(value, str):
        return f"the text {value[:60]!r}"
    return f"{type(value).__name__} {str(value)[:60]!r}" if not isinstance(value, (int, float)) else repr(value)


def option(*flags: str, help: str, default: Any = None, **declared: Any) -> Any:
    """A dataclass field whose value comes from the option ``flags`` (:class:`Option` says the rest)."""
    return field(default=default, metadata={"option": Option(flags, help, **declared)})


def same_option(cls: type, name: str, **default: Any) -> Any:
    """A field that takes the option another dataclass's field ``name`` declares (``--iterations``, shared), with
    that field's default unless ``default`` is given: the declaration stays there, its check applies here."""
    f = next(f for f in dataclasses.fields(cls) if f.name == name)
    return field(default=default.get("default", f.default), metadata={"option": option_of(f), "shared": True})


def option_of(f: dataclasses.Field[Any]) -> Option | None:
    """A field's option (None: a value another part of the command line supplies)."""
    return f.metadata.get("option")


@dataclass(frozen=True)
class SecondEndpoint:
    """The options of a second endpoint (a judge's) that an options dataclass takes: the run's own endpoint's
    (the options of :class:`~eqbench_nb.runner.settings.Endpoint`'s fields), each flag after ``prefix``
    (``judge-``) and each dest after its flag's underscored form (``judge_timeout``), in a help group of their own,
    ``title``; declared once, there. ``repeated``: the dests given once per endpoint of a panel (each a list),
    ``hidden``: the dests left out of the help, ``help`` and ``metavar``: a dest's own; ``omitted``: the endpoint's
    fields it has no option for; ``commands``: the commands that take them. ``endpoint`` is the endpoint's
    dataclass (:class:`~eqbench_nb.runner.settings.Endpoint`; given, for this module sits below it)."""

    endpoint: type
    prefix: str
    title: str
    repeated: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    help: Mapping[str, str] = field(default_factory=dict)
    metavar: Mapping[str, str] = field(default_factory=dict)
    omitted: tuple[str, ...] = ("resubmit_unconfirmed",)
    commands: tuple[str, ...] = ("run",)

    def options(self) -> list[tuple[str, dataclasses.Field[Any], Option]]:
        """(dest, the endpoint's field, option) of each of the endpoint's options, as this second endpoint takes
        it."""
        out = []
        for f in dataclasses.fields(self.endpoint):
            o = option_of(f)
            if o is None or f.name in self.omitted:
                continue
            flag = f"--{self.prefix}{o.flags[0].removeprefix('--')}"
            dest = flag.removeprefix("--").replace("-", "_")
            o = dataclasses.replace(o, flags=(flag,), group=self.title, commands=self.commands, negated=False,
                                    help=self.help.get(dest, o.help), metavar=self.metavar.get(dest, o.metavar),
                                    repeated=dest in self.repeated, default=FIELD_DEFAULT)  # fmt: skip
            out.append((dest, f, o))
        return out


# ---------------------------------------------------------------- every field checked by its declaration


def declarations(cls: type) -> Iterator[tuple[dataclasses.Field[Any], Option]]:
    """Each field of ``cls`` with the option that declares it: its own, or its second endpoint's by dest."""
    endpoint: SecondEndpoint | None = getattr(cls, "ENDPOINT", None)
    second = {dest: o for dest, _, o in endpoint.options()} if endpoint is not None else {}
    for f in dataclasses.fields(cls):
        o = option_of(f) or second.get(f.name)
        if o is not None:
            yield f, o


def check_fields(obj: Any) -> None:
    """Every declared field of the dataclass ``obj`` checked as its option's text is (:meth:`Option.check`), and
    given its normal form; an :class:`OptionError` naming the field and its flag, in one line."""
    for f, o in declarations(type(obj)):
        none = f.default is None or any(p.get("default", 0) is None for p in o.per_command.values())
        try:
            value = o.check(getattr(obj, f.name), none)
        except OptionError as exc:
            raise OptionError(f"{type(obj).__name__}.{f.name} ({o.flags[0]}): {exc}") from None
        object.__setattr__(obj, f.name, value)


@dataclass(frozen=True)
class Options:
    """What every options dataclass is: checked on construction, field by field (:func:`check_fields`).
    ``GROUP``: the title of the help group of its fields' options (None: the command's own options); ``ENDPOINT``: a
    second endpoint whose options it takes as well (its fields are theirs, by dest), added after the fields of other
    groups and before the fields of its own group."""

    GROUP: ClassVar[str | None] = None
    ENDPOINT: ClassVar[SecondEndpoint | None] = None

    def __post_init__(self) -> None:
        check_fields(self)

    @classmethod
    def of(cls, options: Any = None, **given: Any) -> Any:
        """The options of a Python call: ``options`` (an instance, or None: the defaults) with the keywords
        ``given`` in place of its fields, checked; a keyword that is not a field is a TypeError naming it, as
        Python's own for a function's unknown keyword."""
        names = [f.name for f in dataclasses.fields(cls) if f.init]
        unknown = [name for name in given if name not in names]
        if unknown:
            raise TypeError(f"unexpected keyword argument {unknown[0]!r}: not one of {cls.__name__}'s options "
                            f"({', '.join(names)})")  # fmt: skip
        if options is not None and not isinstance(options, cls):
            raise OptionError(f"options must be {cls.__name__}, not {type(options).__name__}")
        return dataclasses.replace(options, **given) if options is not None else cls(**given)


@dataclass(frozen=True)
class RunOptions(Options):
    """A benchmark's ``run`` options. ``dry_run``: send nothing, print an estimate."""

    dry_run: bool = option(
        "--dry-run",
        default=False,
        flag=True,
        group="pacing, tokens and cost",
        before="--price-in",
        help="send nothing: print the requests, an estimate of prompt and completion tokens (tiktoken where it "
        "loads offline for the model, else 4 characters per token) and the cost at --price-in/--price-out",
    )


@dataclass(frozen=True)
class CommandOptions(Options):
    """What the research commands' hooks (``score``, ``runs``, ``compare``, ``leaderboard``, ``plot``) read.
    ``sort``: ``runs``' ``--sort`` (a column; the command checks it names one of some benchmark's table)."""

    sort: str | None = None
