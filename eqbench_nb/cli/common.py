"""What every command shares: the parser's look (one-line usage errors, each default said once), and finding the
run files a command is given, each with its benchmark (:mod:`eqbench_nb.registry`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from ..benchmarks import EXIT_USAGE, Benchmark
from ..registry import benchmark_of, recognised
from ..runner.runfile import find_run_files
from .options import whole_number

PROG = "eqbench-nb"


class Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Help that shows each option's default once and keeps the description's line breaks.

    An option whose help already says its default, or whose default is "none given" (None, False),
    gets no "(default: ...)" appended.
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        minimum = getattr(action.type, "minimum", None)
        if minimum is not None and minimum > 1 and "at least" not in text:  # a refusal's limit is never a surprise
            text += f" (at least {minimum})"
        negated = isinstance(action, argparse._StoreFalseAction)  # --no-adaptive: its default is not giving it
        if action.default in (None, False) or negated or "default" in text:
            return text
        return super()._get_help_string(action)


class Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line (``error: ...``) and exit 2, like every other mistake."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"error: {message} (see {self.prog} --help)\n")


def subparser(
    sub: Any, name: str, help: str, description: str, func: Callable[[argparse.Namespace], int]
) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(name, help=help, description=description, formatter_class=Formatter)
    p.set_defaults(func=func)
    return p


def port(text: str) -> int:
    value = whole_number(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be between 0 (any free port) and 65535, not {value}")
    return value


def a_run_of(benchmark: Benchmark) -> str:
    return f"{'an' if benchmark.title[0] in 'AEIOU' else 'a'} {benchmark.title} run"


def files_for(paths: Sequence[str], command: str) -> list[tuple[Benchmark, Path]]:
    """The run files under ``paths`` that ``command`` applies to, each with its benchmark. A run of a benchmark the
    command does not apply to is passed over in a folder and, named, one line that says which commands do; a
    missing path, or no file at all, is one line too (ValueError)."""
    out: list[tuple[Benchmark, Path]] = []
    for given in paths:
        if not Path(given).exists():
            raise ValueError(f"{given}: no such file or folder")
    named = {Path(p).resolve() for p in paths if not Path(p).is_dir()}
    passed: dict[Benchmark, int] = {}
    for path in find_run_files(paths, recognised):  # a file reached twice is listed once; a folder's others passed over
        benchmark = benchmark_of(path)
        if benchmark.applies(command):
            out.append((benchmark, path))
        elif path.resolve() in named:
            raise ValueError(
                f"{path}: {a_run_of(benchmark)}; `{PROG} {command}` does not apply to it ({_commands(benchmark)})"
            )
        else:
            passed[benchmark] = passed.get(benchmark, 0) + 1
    for benchmark, n in passed.items():  # said, never silent: a folder's runs this command does not take
        print(
            f"note: {n} {benchmark.title} run{'s' if n != 1 else ''} passed over: `{PROG} {command}` does not apply "
            f"to {'them' if n != 1 else 'it'} ({_commands(benchmark)})",
            file=sys.stderr,
        )
    if not out:
        raise ValueError(no_run_files(paths))
    return out


def no_run_files(paths: Sequence[str | Path]) -> str:
    """The one line for paths that hold no run file, with where run files are and what they look like."""
    return (
        f"no run files found in {', '.join(map(str, paths))} (run files end in .jsonl or .json, found in sub-folders "
        f"too; `{PROG} run` writes them into runs/ unless --out says where; try `{PROG} runs runs`)"
    )


def _commands(benchmark: Benchmark) -> str:
    return f"for {benchmark.title} runs: {', '.join(f'`{PROG} {c}`' for c in benchmark.commands)}"


def one_benchmark(files: list[tuple[Benchmark, Path]], command: str) -> tuple[Benchmark, list[Path]]:
    """The one benchmark of ``files``; runs of several benchmarks cannot be compared (ValueError)."""
    benchmarks = list(dict.fromkeys(b for b, _ in files))
    if len(benchmarks) > 1:
        raise ValueError(
            f"`{PROG} {command}` compares runs of one benchmark; these are runs of "
            + " and ".join(b.title for b in benchmarks)
        )
    return benchmarks[0], [p for _, p in files]


def readable(func: Any) -> Any:
    """A command whose unreadable run file is one line naming the file and the problem (exit 2)."""
    import functools

    from ..runner.runfile import RunFormatError

    @functools.wraps(func)
    def wrapper(args: argparse.Namespace) -> int:
        try:
            return int(func(args))
        except RunFormatError as exc:
            raise ValueError(str(exc)) from None

    return wrapper
