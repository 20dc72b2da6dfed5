"""The command line's options, generated from the typed options of :mod:`eqbench_nb.benchmarks.options`: one
function adds a dataclass's options to a parser (:func:`add_options`), one converts the parsed arguments back into
the dataclass (:func:`options_from`), so the hooks never see an ``argparse.Namespace``. The endpoint's options
(the run's own, and a judge's) are built here too, once (:func:`add_endpoint_options`)."""

from __future__ import annotations

import argparse
import dataclasses
import functools
from collections.abc import Callable
from typing import Any, TypeVar

from ..benchmarks import options as typed
from ..benchmarks.options import OptionError, Options, SecondEndpoint, option_of

T = TypeVar("T", bound=Options)


def argument_type(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """A value type as argparse takes it: its :class:`OptionError` becomes argparse's one-line usage error (name,
    ``__doc__`` and the ``minimum`` the help states kept)."""
    if parse in (int, float, str):  # argparse's own message ("invalid int value: 'x'")
        return parse

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


def add_options(p: argparse.ArgumentParser, cls: type[Options], command: str = "run") -> None:
    """The options of ``cls``'s fields that ``command`` takes, each with the dest of its field and the field's
    default, in the order of the fields (those of the second endpoint's group after its options); an option the
    parser has already (another benchmark's, the same option) is shared, with the first one's help."""
    endpoint = cls.ENDPOINT if cls.ENDPOINT is not None and command in cls.ENDPOINT.commands else None
    declared = [(f, o.for_command(command)) for f in dataclasses.fields(cls)
                if (o := option_of(f)) is not None and command in o.commands]  # fmt: skip

    def title(o: typed.Option) -> str | None:
        return cls.GROUP if o.group is None else o.group

    for f, o in declared:
        if endpoint is None or title(o) != endpoint.title:
            _add(p, f, o, title(o))
    if endpoint is None:
        return
    if f"--{endpoint.prefix}base-url" not in p._option_string_actions:  # else another benchmark's, shared
        add_second_endpoint(p, endpoint)
    for f, o in declared:
        if title(o) == endpoint.title:
            _add(p, f, o, title(o))


def _add(p: argparse.ArgumentParser, f: dataclasses.Field[Any], o: typed.Option, title: str | None) -> None:
    if any(flag in p._option_string_actions for flag in o.flags):
        return  # another benchmark's, shared
    default = f.default if o.default is typed.FIELD_DEFAULT else o.default
    kwargs: dict[str, Any] = {"dest": f.name, "default": default, "help": o.help}
    if o.flag:
        kwargs["action"] = "store_true"
    else:
        kwargs |= {"type": argument_type(o.type) if o.type else None, "choices": o.choices, "metavar": o.metavar}
    _group(p, title).add_argument(*o.flags, **kwargs)


def options_from(args: argparse.Namespace, cls: type[T]) -> T:
    """The typed options ``args`` holds for ``cls`` (a field whose option the command has not: its default)."""
    return cls(**{f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if f.init and hasattr(args, f.name)})


# ---------------------------------------------------------------- endpoints


def add_endpoint_options(p: argparse.ArgumentParser, prefix: str = "", title: str | None = None) -> None:
    """The options that make an :class:`~eqbench_nb.runner.settings.Endpoint` (read back by
    :func:`endpoint_from_args`). ``prefix`` (``"judge-"``) and ``title`` give a second endpoint its own options in
    a group of its own; the run's own endpoint has none and its options spread over the parser and the groups of
    reasoning models, the Batch API, and pacing and cost."""
    from ..runner.reasoning import REASONING_EFFORTS

    flag = f"--{prefix}"
    who = f"the {prefix.rstrip('-')} " if prefix else ""
    main = p.add_argument_group(title) if title else p
    main.add_argument(f"{flag}base-url", metavar="URL" if prefix else None,
                      help=f"{who}endpoint, e.g. https://api.openai.com/v1 (default: the bundled model)")  # fmt: skip
    main.add_argument(f"{flag}model", help=f"{who}model name (default: the endpoint's first listed model)")
    main.add_argument(
        f"{flag}api-key-env", metavar="VAR", help="environment variable holding the API key (default OPENAI_API_KEY)"
    )
    main.add_argument(
        f"{flag}timeout", type=seconds, metavar="S", help="deadline for each request as a whole, seconds (default 120)"
    )
    main.add_argument(
        f"{flag}concurrency",
        type=positive_int,
        metavar="C",
        help="the most requests in flight (default 8; 1 for the bundled model); the run paces itself under it from "
        "the server's x-ratelimit headers, or its 429s",
    )
    main.add_argument(
        f"{flag}retry-budget",
        type=not_negative,
        metavar="S",
        help="seconds one request may wait between retries of 429s, 5xx and resets before its question is left "
        "for the next resume (default 300; at least 120 s of back-off, past a 60 s rate-limit window)",
    )
    g = main if title else p.add_argument_group("reasoning models")
    g.add_argument(
        f"{flag}max-tokens",
        type=positive_int,
        metavar="N",
        help="token limit of every request, replacing the protocol's (default: the protocol's, 60 official): a "
        "reasoning model's reasoning counts in it. Recorded in the run header and the table; changes the default "
        "run id",
    )
    g.add_argument(
        f"{flag}reasoning-effort",
        choices=REASONING_EFFORTS,
        help="sent as reasoning_effort while the endpoint accepts it (default: not sent)",
    )
    g = main if title else p.add_argument_group("OpenAI Batch API (half price)")
    g.add_argument(
        f"{flag}batch",
        action="store_true",
        help="send the run as batches (POST /v1/files, /v1/batches; 24h window); re-asks go out as further, "
        "smaller batches. The batch id is in the run file at once: the same command after a kill polls it, "
        "never paying twice",
    )
    g.add_argument(f"{flag}poll-interval", type=seconds, default=60.0, metavar="S", help="seconds between batch polls")
    g.add_argument(
        f"{flag}batch-wait",
        type=seconds,
        default=25 * 3600.0,
        metavar="S",
        help="seconds a run polls a batch before it stops (exit 3) with the batch left in the run file for the same "
        "command to collect; default 25 h (the 24 h window and an hour to finish)",
    )
    if not prefix:  # a second endpoint sends no batches
        g.add_argument(
            "--resubmit-unconfirmed",
            action="store_true",
            help="send again the requests of a batch create that a stopped run wrote ahead when the endpoint cannot "
            "say whether it made the batch (no GET /v1/batches): they may be paid for twice (default: stop and say)",
        )
    g = main if title else p.add_argument_group("pacing, tokens and cost")
    g.add_argument(
        f"{flag}no-adaptive",
        action="store_true",
        help="keep --concurrency requests in flight whatever the server's rate limits say (the old behaviour)",
    )
    if not prefix:
        g.add_argument(
            "--dry-run",
            action="store_true",
            help="send nothing: print the requests, an estimate of prompt and completion tokens (tiktoken where it "
            "loads offline for the model, else 4 characters per token) and the cost at --price-in/--price-out",
        )
    g.add_argument(
        f"{flag}price-in", type=not_negative, metavar="USD", help="dollars per million prompt tokens (for the cost)"
    )
    g.add_argument(
        f"{flag}price-out",
        type=not_negative,
        metavar="USD",
        help="dollars per million completion tokens, reasoning included (with --batch, half of both is charged)",
    )


def endpoint_from_args(args: argparse.Namespace, prefix: str = "") -> Any:
    """The :class:`~eqbench_nb.runner.settings.Endpoint` the options of :func:`add_endpoint_options` describe."""
    from ..runner.settings import Endpoint

    def get(name: str) -> Any:
        return getattr(args, prefix.replace("-", "_") + name)

    return Endpoint(
        base_url=get("base_url"),
        model=get("model"),
        api_key_env=get("api_key_env"),
        timeout_s=get("timeout"),
        concurrency=get("concurrency"),
        adaptive=not get("no_adaptive"),
        retry_budget_s=get("retry_budget"),
        max_tokens=get("max_tokens"),
        reasoning_effort=get("reasoning_effort"),
        batch=get("batch"),
        poll_interval_s=get("poll_interval"),
        batch_wait_s=get("batch_wait"),
        resubmit_unconfirmed=bool(getattr(args, prefix.replace("-", "_") + "resubmit_unconfirmed", False)),
        price_in=get("price_in"),
        price_out=get("price_out"),
    )


def add_second_endpoint(p: argparse.ArgumentParser, endpoint: SecondEndpoint) -> None:
    """A second endpoint's options (a judge's: ``--judge-base-url``, ``--judge-model``, ...) in a group of their
    own, as ``endpoint`` declares them: its ``repeated`` options once per endpoint of a panel, its ``hidden`` ones
    out of the help, its own help where it has one. The Batch API's are taken but not shown."""
    add_endpoint_options(p, endpoint.prefix, endpoint.title)
    for action in p._actions:
        if action.dest in endpoint.repeated:  # repeatable: one value per judge of a panel
            action.__class__ = argparse._AppendAction
        if action.dest in endpoint.help:
            action.help = endpoint.help[action.dest]
        elif action.dest in endpoint.hidden:
            action.help = argparse.SUPPRESS
