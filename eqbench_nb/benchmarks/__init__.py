"""What a benchmark plugs into: one :class:`Benchmark` object per benchmark, which the registry lists.

The generic layers (the command line, :mod:`eqbench_nb.runner`, :mod:`eqbench_nb.analysis`) never name a
benchmark: the command line builds ``run``'s options from each benchmark's group, finds the benchmark of a run
file through :mod:`eqbench_nb.registry`, and calls the benchmark's hooks for ``run``, ``score``, ``runs``,
``compare``, ``leaderboard`` and ``plot``. A hook a benchmark leaves as None is a command that does not apply to its
runs: the command line says so in one line, naming the commands that do.

Each benchmark's object is built in ``benchmarks/<name>.py`` from its package (``eqbench/``, ``emotionbench/``, ...)
and what it reuses above it (EQ-Bench's ``compare`` is an analysis, its ``plot`` a figure), so no import runs
from a benchmark's rules up to the analyses built on them. Hooks return data (rows, a :class:`Table`, a figure);
the command line renders and prints them, through one redaction and one escape per output format.

This module also holds the small vocabulary hooks share with the command line: exit statuses and the value
types of options.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..runner.cost import Prices

EXIT_USAGE = 2
EXIT_UNFINISHED = 3
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143

#: The commands a run file can be given to, besides ``score`` (which every benchmark answers).
RESEARCH_COMMANDS = ("runs", "compare", "leaderboard", "plot")


@dataclass(frozen=True)
class Table:
    """What a research command prints: ``frame`` with ``digits`` per column (two otherwise; None: as few as the
    value needs); ``fractions`` a count column and the column it counts of (``parseable/questions`` in the text
    formats, :func:`eqbench_nb.cli.tabular.render`); ``machine_only`` columns appear only in CSV and JSON; in the
    terminal format ``sentence`` (if any) replaces the table, ``footnote`` follows it on stdout and ``caption`` on
    stderr; ``single`` makes JSON one object rather than a list. ``text_columns`` gives the terminal table
    ``score``'s layout: its cells already text (each benchmark's own cell formats), the first ``text_columns``
    columns left-aligned and the others right-aligned, every heading left-aligned and each line padded to the
    table's width (None: numbers right-aligned by their type, lines trimmed)."""

    frame: Any
    digits: Mapping[str, int | None] = field(default_factory=dict)
    machine_only: tuple[str, ...] = ()
    fractions: Mapping[str, str] = field(default_factory=dict)
    sentence: str | None = None
    caption: str | None = None
    single: bool = False
    footnote: str | None = None
    text_columns: int | None = None


@dataclass(frozen=True, eq=False)  # one object per benchmark: compared and hashed by identity
class Benchmark:
    """One benchmark, as the generic layers see it.

    ``name`` is what ``--benchmark`` and a run file's header (``"benchmark": name``) call it; ``title`` what
    messages call it. ``reads_unnamed``: run files whose header names no benchmark (and other formats, such as
    upstream results files) are this benchmark's (EQ-Bench's, whose files predate the field).

    Running: ``add_run_options(parser)`` adds its own options to ``run`` (in a group of its own; their dests are
    refused for the other benchmarks), ``run(args, endpoint, settings) -> exit status`` runs it, ``features``
    names the endpoint features it is wired for (:data:`eqbench_nb.runner.settings.FEATURES`, and ``dry_run``),
    ``option_hints`` maps another benchmark's option to its own counterpart, for the refusal message.

    Reading: ``score_rows(path, args) -> rows`` (one dict per row, with ``model``, ``run_id``, ``file``, ``score``)
    and ``score_tables(rows) -> [Table]`` for ``score`` in the terminal format, one :class:`Table` or several (one
    per kind of row), printed by :func:`eqbench_nb.cli.tabular.print_table` (JSON, CSV, Markdown and LaTeX are
    generic: one list, one table, over every benchmark).
    ``runs``, ``compare``, ``leaderboard`` return a :class:`Table`; ``plot(kind, files, args)`` a figure, of one of
    ``plot_kinds``. Each takes the run files and the parsed arguments; None: the command does not apply.
    ``add_command_options(command, parser)`` adds the options its hooks read to a command's parser (with
    :func:`add_once`: benchmarks may share one). ``shared_run_options`` are the dests of another benchmark's
    ``run`` options this one takes as well (``--iterations``). ``recognises(path)`` is a cheap look whether a file
    is of one of its formats at all; a benchmark that does not read unnamed files also claims by it the files of an
    upstream format of its own, whose header names no benchmark this version knows (:func:`~eqbench_nb.registry.
    benchmark_of`).

    The run viewer (``eqbench-nb view``, ``eqbench_nb.view``, ``eqbench_nb.samples``): ``read(path)`` gives a run
    file as the benchmark's run object (an instance of ``run_type``, or of one of its types); ``samples(run,
    prices)`` its item records, a DataFrame with one row per item, :data:`eqbench_nb.runner.items.COMMON_COLUMNS`
    and the ``attrs`` of :data:`~eqbench_nb.runner.items.FRAME_ATTRS` (``prices`` the
    :class:`~eqbench_nb.runner.cost.Prices` given, for this run (:meth:`~eqbench_nb.runner.cost.Prices.of_run`):
    the run's endpoint's, and a judge's apart); ``summary(run, items,
    prices)`` its header (``title``, ``facts``, ``scores``, ``warnings``); ``comparison(a, b)`` a sentence on run B
    against run A; ``view_formats`` what files of it the viewer shows, for its help (default ``formats``). None: the
    viewer does not show its runs (``comparison`` None: two runs are shown side by side without one).
    """

    name: str
    title: str
    add_run_options: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, Any, Any], int]
    score_rows: Callable[[Path, argparse.Namespace], list[dict[str, Any]]]
    score_tables: Callable[[list[dict[str, Any]]], list[Table]]
    reads_unnamed: bool = False
    features: frozenset[str] = frozenset()
    option_hints: Mapping[str, str] = field(default_factory=dict)
    runs: Callable[[Sequence[Path], argparse.Namespace], Table] | None = None
    compare: Callable[[Path, Path, argparse.Namespace], Table] | None = None
    leaderboard: Callable[[Sequence[Path], argparse.Namespace], Table] | None = None
    plot: Callable[[str, Sequence[Path], argparse.Namespace], Any] | None = None
    plot_kinds: Mapping[str, str] = field(default_factory=dict)
    add_command_options: Callable[[str, argparse.ArgumentParser], None] | None = None
    #: what files of it ``score`` reads, for its help
    formats: str = "eqbench_nb JSON Lines"
    shared_run_options: frozenset[str] = frozenset()
    #: a cheap look whether a file a folder holds (and the registry gives it) is of one of its formats at all; a
    #: folder's other files (a ``config.json`` beside the runs) are passed over, said (None: every file it is given);
    #: see the docstring for the files it claims
    recognises: Callable[[Path], bool] | None = None
    read: Callable[[Path], Any] | None = None
    run_type: type | tuple[type, ...] | None = None
    samples: Callable[[Any, Prices], Any] | None = None
    summary: Callable[[Any, Any, Prices], dict[str, Any]] | None = None
    comparison: Callable[[Any, Any], str] | None = None
    view_formats: str | None = None

    def applies(self, command: str) -> bool:
        """Whether ``command`` (``score`` or one of :data:`RESEARCH_COMMANDS`) takes this benchmark's runs."""
        return command == "score" or getattr(self, command, None) is not None

    @property
    def commands(self) -> list[str]:
        return [c for c in ("score", *RESEARCH_COMMANDS) if self.applies(c)]


def count_of(count: Any, total: Any) -> str:
    """``count/total`` as every command prints a parsed count (``170/171``; a mean over iterations to one decimal:
    ``84.3/171``), undefined (None, NaN) as ``—``."""
    if hasattr(count, "item"):
        count = count.item()
    if count is None or total is None or count != count:
        return "—"
    shown = f"{count:g}" if float(count).is_integer() else f"{count:.1f}"
    return f"{shown}/{total}"


# ---------------------------------------------------------------- option value types (one-line errors)


def whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None


def at_least(n: int) -> Callable[[str], int]:
    """A whole number of at least ``n``."""

    def parse(text: str) -> int:
        value = whole_number(text)
        if value < n:
            raise argparse.ArgumentTypeError(f"must be at least {n}, not {value}")
        return value

    parse.minimum = n  # type: ignore[attr-defined]  # the help states it (cli.common.Formatter)
    return parse


positive_int = at_least(1)


def add_once(parser: argparse.ArgumentParser, *flags: str, **kwargs: Any) -> None:
    """Add an option unless the command already has it: benchmarks that share an option of a command (``--seed``
    of ``leaderboard``, say) share one, with the first one's help."""
    if not any(flag in parser._option_string_actions for flag in flags):
        parser.add_argument(*flags, **kwargs)


def number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None


def not_negative(text: str) -> float:
    """A finite number, 0 or more (a price, a budget of seconds): ``inf`` and ``nan`` are refused."""
    value = number(text)
    if not 0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a finite number, 0 or more, not {text}")
    return value


def _seconds(text: str) -> float:
    value = number(text)
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text}")
    return value


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
        f"{flag}timeout", type=_seconds, metavar="S", help="deadline for each request as a whole, seconds (default 120)"
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
    g.add_argument(f"{flag}poll-interval", type=_seconds, default=60.0, metavar="S", help="seconds between batch polls")
    g.add_argument(
        f"{flag}batch-wait",
        type=_seconds,
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
