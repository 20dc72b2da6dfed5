"""What a benchmark plugs into: one :class:`Benchmark` object per benchmark, which the registry lists.

The generic layers (the command line, :mod:`eqbench_nb.runner`, :mod:`eqbench_nb.analysis`) never name a
benchmark: the command line builds ``run``'s options from each benchmark's options dataclass, finds the benchmark of a
run file through :mod:`eqbench_nb.registry`, and calls the benchmark's hooks for ``run``, ``score``, ``runs``,
``compare``, ``leaderboard`` and ``plot``. A hook a benchmark leaves as None is a command that does not apply to its
runs: the command line says so in one line, naming the commands that do.

Each benchmark's object is built in ``benchmarks/<name>.py`` from its package (``eqbench/``, ``emotionbench/``, ...)
and what it reuses above it (EQ-Bench's ``compare`` is an analysis, its ``plot`` a figure), so no import runs
from a benchmark's rules up to the analyses built on them. Hooks return data (rows, a :class:`Table`, a figure);
the command line renders and prints them, through one redaction and one escape per output format.

This module also holds the small vocabulary hooks share with the command line: exit statuses, and (from
:mod:`~eqbench_nb.benchmarks.options`) the value types of options.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from ..runner.cost import Prices
    from ..viewer.contract import FrameSchema, RunView

from .options import CommandOptions, RunOptions

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


class Ran(Protocol):
    """What a benchmark's ``run`` hook returns, for the command line's one ending
    (:func:`eqbench_nb.cli.run.cmd_run`): the text it prints on stdout, whether the run is complete, and else the
    one line it prints on stderr (exit 3). Every :class:`~eqbench_nb.runner.session.RunResult` is one, and so is a
    dry run's :class:`Report`."""

    @property
    def complete(self) -> bool: ...

    def table(self) -> str: ...

    def unfinished_line(self) -> str: ...


@dataclass(frozen=True)
class Report:
    """What a command that sends nothing returns for the command line to print (a dry run's estimate)."""

    text: str
    complete: ClassVar[bool] = True

    def table(self) -> str:
        return self.text

    def unfinished_line(self) -> str:
        return ""


@dataclass(frozen=True, eq=False)  # one object per benchmark: compared and hashed by identity
class Benchmark:
    """One benchmark, as the generic layers see it.

    ``name`` is what ``--benchmark`` and a run file's header (``"benchmark": name``) call it; ``title`` what
    messages call it. ``reads_unnamed``: run files whose header names no benchmark (and other formats, such as
    upstream results files) are this benchmark's (EQ-Bench's, whose files predate the field).

    Running: ``run_options`` is the dataclass of its ``run`` options (:mod:`eqbench_nb.benchmarks.options`: each
    field declares its option once; the command line generates them, in a group of its own, and refuses their dests
    for the other benchmarks), ``run(options, endpoint, settings) -> Ran`` runs it with an instance of it and
    returns its result (the command line prints it and sets the exit status),
    ``features`` names the endpoint features it is wired for (:data:`eqbench_nb.runner.settings.FEATURES`, and
    ``dry_run``), ``option_hints`` maps another benchmark's option to its own counterpart, for the refusal message.

    Reading: ``score_rows(path, options) -> rows`` (one dict per row, with ``model``, ``run_id``, ``file``, ``score``)
    and ``score_tables(rows) -> [Table]`` for ``score`` in the terminal format, one :class:`Table` or several (one
    per kind of row), printed by :func:`eqbench_nb.cli.tabular.print_table` (JSON, CSV, Markdown and LaTeX are
    generic: one list, one table, over every benchmark).
    ``runs``, ``compare``, ``leaderboard`` return a :class:`Table`; ``plot(kind, files, options)`` a figure, of one
    of ``plot_kinds``. Each takes the run files and an instance of ``command_options``, the dataclass of the options
    its hooks read (:class:`~eqbench_nb.benchmarks.options.CommandOptions`; each field names the commands that take
    its option, and benchmarks may share one: the first declaration's help is shown); None: the command does not
    apply. ``shared_run_options`` are the dests of another benchmark's ``run`` options this one takes as well
    (``--iterations``). ``recognises(path)`` is a cheap look whether a file is of one of its formats at all; a
    benchmark that does not read unnamed files also claims by it the files of an upstream format of its own, whose
    header names no benchmark this version knows (:func:`~eqbench_nb.registry.benchmark_of`).

    The run viewer (``eqbench-nb view``, ``eqbench_nb.view``, ``eqbench_nb.samples``): ``read(path)`` gives a run
    file as the benchmark's run object (an instance of ``run_type``, or of one of its types); ``samples(run,
    prices)`` its item records, a DataFrame with one row per item, :data:`eqbench_nb.viewer.contract.COMMON_COLUMNS`
    and the ``attrs`` of :data:`~eqbench_nb.viewer.contract.FRAME_ATTRS` (``prices`` the
    :class:`~eqbench_nb.runner.cost.Prices` given, for this run (:meth:`~eqbench_nb.runner.cost.Prices.of_run`):
    the run's endpoint's, and a judge's apart), built through its declared
    :class:`~eqbench_nb.viewer.contract.FrameSchema`; ``summary(run, items, prices)`` its header, a
    :class:`~eqbench_nb.viewer.contract.RunView` (``title``, ``facts``, ``scores``, ``warnings``); ``frame_schemas``
    the schemas its frames are built by (one per kind of file); ``comparison(a, b)`` a sentence on run B against
    run A; ``view_formats`` what files of it the viewer shows, for its help (default ``formats``). None: the
    viewer does not show its runs (``comparison`` None: two runs are shown side by side without one).
    """

    name: str
    title: str
    run_options: type[RunOptions]
    run: Callable[[Any, Any, Any], Ran]
    score_rows: Callable[[Path, Any], list[dict[str, Any]]]
    score_tables: Callable[[list[dict[str, Any]]], list[Table]]
    reads_unnamed: bool = False
    features: frozenset[str] = frozenset()
    option_hints: Mapping[str, str] = field(default_factory=dict)
    runs: Callable[[Sequence[Path], Any], Table] | None = None
    compare: Callable[[Path, Path, Any], Table] | None = None
    leaderboard: Callable[[Sequence[Path], Any], Table] | None = None
    plot: Callable[[str, Sequence[Path], Any], Any] | None = None
    plot_kinds: Mapping[str, str] = field(default_factory=dict)
    command_options: type[CommandOptions] = CommandOptions
    #: what files of it ``score`` reads, for its help
    formats: str = "eqbench_nb JSON Lines"
    shared_run_options: frozenset[str] = frozenset()
    #: a cheap look whether a file a folder holds (and the registry gives it) is of one of its formats at all; a
    #: folder's other files (a ``config.json`` beside the runs) are passed over, said, and a file of its own that is
    #: no run (its answer None: a judge's ratings kept beside the runs) unsaid (None: every file it is given); see the
    #: docstring for the files it claims
    recognises: Callable[[Path], bool | None] | None = None
    read: Callable[[Path], Any] | None = None
    run_type: type | tuple[type, ...] | None = None
    samples: Callable[[Any, Prices], Any] | None = None
    summary: Callable[[Any, Any, Prices], RunView] | None = None
    frame_schemas: tuple[FrameSchema, ...] = ()
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
