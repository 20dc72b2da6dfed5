"""``eqbench-nb view RUN [RUN] --out FILE.html``: the run viewer (:mod:`eqbench_nb.viewer`) as one self-contained
page, for a run of any benchmark the registry's viewer hooks show.

One run, or two side by side with the per-item difference; a third is refused (the page compares two), and so is
a folder (``eqbench-nb runs DIR`` lists the run files in it). Every mistake is one line and exit 2.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from ..benchmarks import EXIT_USAGE
from ..output_paths import OutputOverInput, refuse_output_over_inputs
from ..registry import REGISTRY
from .common import subparser


def add(sub: Any) -> None:
    formats = "; ".join(f"{b.title}: {b.view_formats or b.formats}" for b in REGISTRY if b.samples is not None)
    p = subparser(
        sub,
        "view",
        "see what the model said: a run (or two side by side) as one self-contained HTML page",
        "Write one HTML page (script, styles and data inline; no network; opens from file://) showing a run's "
        "settings, its scores with their intervals, and every item: the prompt, each attempt's text, what was "
        "parsed and why, the answer beside the reference, tokens, latency, faults. Two runs are shown side by side "
        f"with the difference per item. Reads {formats}.",
        cmd_view,
    )
    p.add_argument("runs", nargs="+", metavar="RUN", help="one run file, or two to set side by side")
    p.add_argument("--out", metavar="FILE.html", help="the page to write (default: the run file's name, .html)")
    p.add_argument("--price-in", type=float, metavar="USD", help="dollars per million prompt tokens, for costs")
    p.add_argument("--price-out", type=float, metavar="USD", help="dollars per million completion tokens")
    p.add_argument(
        "--judge-price-in",
        type=float,
        metavar="USD",
        help="dollars per million prompt tokens of a run's judge (its second endpoint), for its costs",
    )
    p.add_argument(
        "--judge-price-out",
        type=float,
        metavar="USD",
        help="dollars per million completion tokens of a run's judge",
    )


def default_out(runs: list[Path]) -> Path:
    """``A.html``, or ``A_vs_B.html`` for two runs, in the working directory."""
    return Path("_vs_".join(r.stem for r in runs) + ".html")


def cmd_view(args: argparse.Namespace) -> int:
    from ..data import DataError
    from ..runner.cost import Prices
    from ..runner.redact import clip
    from ..runner.runfile import RunFormatError
    from ..viewer.page import write_page
    from ..viewer.payload import MAX_RUNS, ViewerError

    def error(message: object) -> int:
        print(f"error: {clip(message, 1000)}", file=sys.stderr)
        return EXIT_USAGE

    runs = [Path(r) for r in args.runs]
    if len(runs) > MAX_RUNS:
        return error(
            f"view shows one run, or two side by side with the difference per item; got {len(runs)} "
            "(view them two at a time, or list them with `eqbench-nb runs`)"
        )
    for run in runs:
        if run.is_dir():
            return error(f"{run} is a folder; name a run file in it (`eqbench-nb runs {run}` lists them)")
        if not run.is_file():
            return error(f"{run}: no such run file")
    prices = (
        ("--price-in", args.price_in),
        ("--price-out", args.price_out),
        ("--judge-price-in", args.judge_price_in),
        ("--judge-price-out", args.judge_price_out),
    )
    for name, price in prices:
        if price is not None and not 0 <= price < math.inf:  # inf and nan refused too
            return error(f"{name} must be 0 or more dollars per million tokens, and finite")
    out = Path(args.out) if args.out else default_out(runs)
    if out.is_dir():
        return error(f"--out {out} is a folder; name the page to write, e.g. {out / default_out(runs)}")
    try:
        refuse_output_over_inputs(out, runs, "--out" if args.out else "the default --out")
    except OutputOverInput as exc:
        return error(exc)
    try:
        written = write_page(runs, out, Prices.given(*(price for _, price in prices)))
    except (RunFormatError, DataError, ViewerError) as exc:
        return error(exc)
    except (ValueError, TypeError, KeyError, AttributeError, OverflowError, RecursionError) as exc:
        # a reader's gap (a field of the wrong type in a file), never a traceback: the file is named
        return error(f"{', '.join(map(str, runs))}: cannot view ({type(exc).__name__}: {exc})")
    except OSError as exc:
        return error(f"cannot write {out}: {exc.strerror or exc}")
    what = "run" if len(runs) == 1 else "runs side by side"
    print(f"viewer of {len(runs)} {what} written to {written}; open it in a browser")
    return 0
