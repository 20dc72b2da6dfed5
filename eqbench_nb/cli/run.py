"""``eqbench-nb run``: any benchmark of the registry against an OpenAI-compatible endpoint (default: the bundled
model). Its options are the endpoint's and the run settings' (shared by every benchmark), then one group per
benchmark; an option of another benchmark (or an endpoint feature the benchmark is not wired for) is refused in
one line that says whose it is."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .. import registry
from ..benchmarks import EXIT_UNFINISHED, Benchmark
from ..runner.redact import output
from ..runner.settings import FEATURES, Endpoint, RunSettings
from .common import subparser
from .options import add_options, options_from

#: Endpoint features a benchmark may not be wired for, by the dest of their option.
_FEATURE_DESTS = (*FEATURES, "dry_run")


def add(sub: Any) -> None:
    p = subparser(
        sub,
        "run",
        "run a benchmark against an OpenAI-compatible endpoint (default: the bundled model)",
        "Run a benchmark (EQ-Bench by default) against any OpenAI-compatible endpoint; without --base-url the "
        "bundled SmolLM2-135M-Instruct is served on 127.0.0.1 for the run. Running the same command again "
        "resumes the run file.",
        cmd_run,
    )
    p.add_argument("--benchmark", choices=registry.names(), default=registry.DEFAULT, help="which benchmark to run")
    add_options(p, Endpoint)  # the endpoint's own options, declared on its fields
    p.add_argument("--seed", type=int, metavar="S", help="seed sent with every request (default: none, as upstream)")
    p.add_argument("--out", default="runs", metavar="DIR", help="folder for run files")
    p.add_argument("--run-id", metavar="ID", help="run id (default: derived from the settings, so reruns resume)")
    p.add_argument(
        "--repair",
        action="store_true",
        help="move unreadable lines in the middle of the run file aside (to FILE.unreadable) and ask their "
        "questions again",
    )
    p.add_argument(
        "--extend",
        metavar="FILE",
        help="grow the run in FILE to the questions these options select (a --limit 5 run to all, say), keeping its "
        "answers: the new selection holds all of its questions, every other option is the run's",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    owners: dict[str, set[str]] = {}
    for benchmark in registry.REGISTRY:
        before = {a.dest for a in p._actions}
        add_options(p, benchmark.run_options)
        for dest in {a.dest for a in p._actions} - before:
            owners[dest] = {benchmark.name}
    for benchmark in registry.REGISTRY:  # another benchmark's options it takes as well
        for dest in benchmark.shared_run_options:
            owners.setdefault(dest, set()).add(benchmark.name)
    for dest in _FEATURE_DESTS:
        owners[dest] = {b.name for b in registry.REGISTRY if dest in b.features}
    # after the benchmarks' options: its dest is --set's, which EQ-Bench's group must be seen to add
    p.add_argument("--version", action=_VersionIsNotTheSet, nargs="?", help=argparse.SUPPRESS)
    shown = [a for a in p._actions if a.option_strings and a.help != argparse.SUPPRESS]
    flags = {a.dest: a.option_strings[0] for a in shown}
    defaults = {a.dest: a.default for a in shown}
    # what refuse_foreign needs, in parser order (the order an error names the options in): each option a benchmark
    # may not take, its flag, who takes it, its default, and whether it is a feature (or one benchmark's own)
    p.set_defaults(_foreign=[(d, flags[d], owners[d], defaults[d], d in _FEATURE_DESTS) for d in flags if d in owners])


class _VersionIsNotTheSet(argparse.Action):
    """``run --version`` once chose the question set; it now means what it means everywhere else."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any, **__: Any) -> None:
        parser.error("--version is the tool's version (eqbench-nb --version); choose the question set with --set")


def refuse_foreign(args: argparse.Namespace, benchmark: Benchmark) -> None:
    """One line (ValueError) for the options given that ``benchmark`` does not take, naming whose they are."""
    foreign = sorted(args._foreign, key=lambda option: option[4])  # a benchmark's own options first, then features
    given = [(dest, flag, owners) for dest, flag, owners, default, _ in foreign
             if benchmark.name not in owners and getattr(args, dest) != default]  # fmt: skip
    if not given:
        return
    hints = benchmark.option_hints
    names = ", ".join(flag + (f" (use {hints[dest]})" if dest in hints else "") for dest, flag, _ in given)
    whose = [b.title for b in registry.REGISTRY if any(b.name in owners for _, _, owners in given)]
    own = [flag for _, flag, owners, _, feature in args._foreign if owners == {benchmark.name} and not feature]
    takes = f"; {benchmark.title} takes {', '.join(own)}" if own else ""
    raise ValueError(f"{names} belong{'s' if len(given) == 1 else ''} to {' and '.join(whose)}{takes}")


def cmd_run(args: argparse.Namespace) -> int:
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        # Ctrl-C must stop a run started with SIGINT ignored (a background job of a script): Python then
        # installs no handler of its own
        signal.signal(signal.SIGINT, signal.default_int_handler)
    benchmark = registry.by_name(args.benchmark)
    refuse_foreign(args, benchmark)
    settings = RunSettings(
        out_dir=args.out,
        run_id=args.run_id,
        seed=args.seed,
        progress=not args.no_progress,
        repair=args.repair,
        extend=args.extend,
    )
    result = benchmark.run(options_from(args, benchmark.run_options), options_from(args, Endpoint), settings)
    # the one ending of every benchmark's run: its table, and one line with exit 3 when work is left for a resume
    print(output(result.table()))
    if result.complete:
        return 0
    print(output(result.unfinished_line()), file=sys.stderr)
    return EXIT_UNFINISHED
