"""The command line's options, generated from the typed options of :mod:`eqbench_nb.runner.options`: one
function adds a dataclass's options to a parser (:func:`add_options`: a benchmark's, the endpoint's, a judge's), one
converts the parsed arguments back into the dataclass (:func:`options_from`), so the hooks never see an
``argparse.Namespace``. Each option's text is checked by its declaration (:meth:`~eqbench_nb.runner.options.Option.
parse`), the check Python's values get too."""

from __future__ import annotations

import argparse
import dataclasses
import functools
from collections.abc import Callable
from typing import Any, TypeVar

from ..runner import options as typed
from ..runner.options import OptionError, option_of

T = TypeVar("T")


def argument_type(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """A value type as argparse takes it: its :class:`OptionError` becomes argparse's one-line usage error (name,
    ``__doc__`` and the ``minimum`` the help states kept)."""

    @functools.wraps(parse)
    def checked(text: str) -> Any:
        try:
            return parse(text)
        except OptionError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return checked


whole_number = argument_type(typed.whole_number)
positive_int = argument_type(typed.positive_int)
not_negative = argument_type(typed.not_negative)
seconds = argument_type(typed.seconds)


def _group(p: argparse.ArgumentParser, title: str | None) -> Any:
    """The help group ``title`` of ``p`` (made the first time; None or "": the parser itself)."""
    if not title:
        return p
    return next((g for g in p._action_groups if g.title == title), None) or p.add_argument_group(title)


def add_options(p: argparse.ArgumentParser, cls: type, command: str = "run") -> None:
    """The options of ``cls``'s fields that ``command`` takes, each with the dest of its field and the field's
    default, in the order of the fields (those of the second endpoint's group after its options); an option the
    parser has already (another benchmark's, the same option) is shared, with the first one's help."""
    group: str | None = getattr(cls, "GROUP", None)
    endpoint: typed.SecondEndpoint | None = getattr(cls, "ENDPOINT", None)
    if endpoint is not None and command not in endpoint.commands:
        endpoint = None
    declared = [(f.name, f.default, o.for_command(command)) for f in dataclasses.fields(cls)
                if (o := option_of(f)) is not None and command in o.commands]  # fmt: skip

    def title(o: typed.Option) -> str | None:
        return group if o.group is None else o.group

    for dest, default, o in declared:
        if endpoint is None or title(o) != endpoint.title:
            _add(p, dest, default, o, title(o))
    if endpoint is None:
        return
    fields = {f.name: f.default for f in dataclasses.fields(cls)}
    for dest, f, o in endpoint.options():  # its fields' defaults; an option it has no field for, the endpoint's
        _add(p, dest, fields.get(dest, f.default), o, endpoint.title, dest in endpoint.hidden)
    for dest, default, o in declared:
        if title(o) == endpoint.title:
            _add(p, dest, default, o, title(o))


def _add(p: argparse.ArgumentParser, dest: str, default: Any, o: typed.Option, title: str | None,
         hidden: bool = False) -> None:  # fmt: skip
    if any(flag in p._option_string_actions for flag in o.flags):
        return  # another benchmark's, shared
    default = default if o.default is typed.FIELD_DEFAULT else o.default
    kwargs: dict[str, Any] = {"dest": dest, "default": default, "help": argparse.SUPPRESS if hidden else o.help}
    if o.flag:
        kwargs["action"] = "store_false" if o.negated else "store_true"
    else:
        parse = argument_type(o.parse)
        parse.minimum = getattr(o.type, "minimum", None)  # type: ignore[attr-defined]  # the help states it
        kwargs |= {"type": parse, "choices": o.choices, "metavar": o.metavar}
        if o.repeated:
            kwargs["action"] = "append"
    group = _group(p, title)
    action = group.add_argument(*o.flags, **kwargs)
    if o.before in p._option_string_actions:  # shown (help and usage) before that option
        for actions in (group._group_actions, p._actions):
            actions.remove(action)
            actions.insert(actions.index(p._option_string_actions[o.before]), action)


def options_from(args: argparse.Namespace, cls: type[T]) -> T:
    """The typed options ``args`` holds for ``cls`` (a field whose option the command has not: its default), built
    as Python builds them: each value checked by its declaration."""
    given = {f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if f.init and hasattr(args, f.name)}  # type: ignore[arg-type]
    return cls(**given)
