"""``eqbench-nb reproduce``: execute every notebook in a fresh kernel, regenerate every figure.

Each notebook is a jupytext pair in ``notebooks/``: ``NN_name.py`` (percent format, the source
read in review) and ``NN_name.ipynb`` (the same cells with their outputs, read on GitHub). Before a
notebook runs, the pair is brought in step the way ``jupytext --sync`` does: when the two differ,
the file modified last wins, so an edit made in either (with or without jupytext in Jupyter) is
kept. The notebook then runs top to bottom in a fresh kernel with ``notebooks/`` as working
directory. Only a notebook that ran without error, and drew in each cell at least the figures and
tables the committed notebook holds there, is saved, with outputs that do not change from one
identical run to the next (widget ids and widget state are left out); a failed one, or one that
skipped a part (upstream data not found), stays as it was and is reported as not reproduced.
Headlines recorded by the notebooks are gathered into ``figures/SUMMARY.md``.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..paths import checkout_root, figures_dir, notebooks_dir, other_checkout_warning

NOTEBOOK_PATTERN = re.compile(r"^\d\d_\w+$")
#: Set (to 1) in the kernels' environment by ``reproduce --fresh``: 01_quickstart then runs the bundled
#: model live instead of reading its committed run.
FRESH_ENV = "EQBENCH_NB_FRESH"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def kernelspec() -> dict[str, str]:
    """The kernelspec a saved notebook names: ipykernel's own ``python3`` (display name and all), which is what
    JupyterLab writes into the notebook when it starts the kernel; any other value (``"Python 3"``) changes on
    opening, and the notebook is marked modified before any edit."""
    from ipykernel.kernelspec import get_kernel_dict

    spec = get_kernel_dict()
    return {"name": "python3", "display_name": spec["display_name"], "language": spec["language"]}


class ReproduceError(ValueError):
    """No checkout, no notebooks, or a notebook name that matches none: one line for the user."""


@dataclass
class NotebookResult:
    path: Path
    seconds: float
    error: str | None = None
    note: str | None = None


def notebook_sources(folder: Path | None = None) -> list[Path]:
    """The notebooks' sources (``NN_name.py``), in order."""
    folder = folder or notebooks_dir()
    if folder is None or not folder.is_dir():
        raise ReproduceError("no notebooks/ folder: run reproduce from inside the project checkout")
    return sorted(p for p in folder.glob("*.py") if NOTEBOOK_PATTERN.match(p.stem))


def select_notebooks(names: list[str]) -> list[Path]:
    """Sources for names like ``03``, ``03_repeatability``, ``03_repeatability.ipynb`` or a path; all if none."""
    sources = notebook_sources()
    if not sources:
        raise ReproduceError(f"{notebooks_dir()} holds no notebooks")
    if not names:
        return sources
    chosen = []
    for name in names:
        stem = Path(name).stem
        match = [p for p in sources if p.stem == stem or p.stem.split("_", 1)[0] == stem]
        if len(match) != 1:
            raise ReproduceError(f"no notebook named {name!r}; choose from {', '.join(p.stem for p in sources)}")
        chosen.append(match[0])
    return list(dict.fromkeys(chosen))


def notebook_titles(paths: list[Path]) -> list[tuple[Path, str]]:
    """Each notebook with its title (the first markdown heading of its source)."""
    out = []
    for path in paths:
        title = ""
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("# #"):
                title = re.sub(r"^\d\d\s*—\s*", "", line.lstrip("# ").strip())  # "02 — How ...": the name says 02
                break
        out.append((path, title))
    return out


# ---------------------------------------------------------------- the pair


def _inputs(nb: Any) -> list[tuple[str, str]]:
    return [(c.cell_type, c.source.strip()) for c in nb.cells]


def sync_pair(source: Path) -> tuple[Any, str | None]:
    """The notebook to run for a pair (the newer file wins when they differ), and a note if one was updated."""
    import jupytext
    import nbformat

    ipynb = source.with_suffix(".ipynb")
    from_py = _read(source, jupytext.read)
    if not ipynb.exists():
        return _with_cells(from_py, source), None
    from_ipynb = _read(ipynb, lambda p: nbformat.read(p, as_version=4))
    if _inputs(from_py) == _inputs(from_ipynb):
        return _with_cells(from_py, source), None
    if ipynb.stat().st_mtime > source.stat().st_mtime:
        _with_cells(from_ipynb, ipynb)  # an emptied notebook never overwrites its source
        jupytext.write(from_ipynb, source, fmt="py:percent", config=_jupytext_config(source.parent))
        return jupytext.read(source), f"{ipynb.name} was edited last: its cells were copied to {source.name}"
    return _with_cells(from_py, source), f"{source.name} was edited last: its cells replace those of {ipynb.name}"


def _read(path: Path, reader: Any) -> Any:
    try:
        return reader(path)
    except Exception as exc:  # nbformat and jupytext raise many kinds (not JSON, invalid schema, ...)
        raise ReproduceError(f"{path.name} cannot be read ({type(exc).__name__}: {_first_line(exc)})") from None


def _with_cells(nb: Any, path: Path) -> Any:
    """The notebook, unless it has no cell with any source: running it would wipe the saved outputs and
    its headlines, so it is an error and nothing is written."""
    if not any(cell.source.strip() for cell in nb.cells):
        raise ReproduceError(f"{path.name} has no cells; nothing was run or written (an emptied file?)")
    return nb


def _first_line(exc: Exception) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[0][:160] if lines else ""


def _jupytext_config(folder: Path) -> Any:
    from jupytext.config import find_jupytext_configuration_file, load_jupytext_configuration_file

    path = find_jupytext_configuration_file(str(folder))
    return load_jupytext_configuration_file(path) if path else None


def stable_outputs(nb: Any) -> Any:
    """The notebook without what changes between identical runs (widget views and their saved state) and without
    what jupytext leaves out of a paired ``.ipynb`` when JupyterLab saves it (the text file's
    ``text_representation``), so that opening and saving it in JupyterLab changes no byte."""
    nb.metadata.pop("widgets", None)
    nb.metadata.get("jupytext", {}).pop("text_representation", None)
    for i, cell in enumerate(nb.cells, 1):
        cell["id"] = f"cell-{i}"  # nbformat would draw random ids
        cell.metadata.pop("execution", None)
        for out in cell.get("outputs", []):
            data = out.get("data")
            if data and WIDGET_VIEW in data:
                del data[WIDGET_VIEW]
        if cell.cell_type == "code":
            cell.outputs = [
                o
                for o in cell.outputs
                if o.get("output_type") == "stream" or o.get("data") or o.get("output_type") == "error"
            ]
    return nb


# ---------------------------------------------------------------- executing


def execute_notebook(source: Path, timeout: int = 900, save: bool = True) -> NotebookResult:
    """Run one notebook top to bottom in a fresh kernel; save it (only if it ran cleanly) when ``save``."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    from traitlets.config import Config

    source = source.with_suffix(".py")
    try:
        nb, note = sync_pair(source)
    except ReproduceError as exc:  # named in the summary; the other notebooks still run
        return NotebookResult(source, 0.0, str(exc))
    committed = _committed(source.with_suffix(".ipynb"), nb)
    nb.metadata["kernelspec"] = kernelspec()
    nb.metadata["language_info"] = {"name": "python"}
    # record_timing=False: no per-cell timestamps, so a re-run changes only what the cells print
    # IPC (unix sockets) rather than TCP: no network port, and no "running over TCP without
    # encryption" warning from every kernel on the terminal, over the progress bar.
    sockets = tempfile.mkdtemp(prefix="eqbench-nb-kernel-")  # absolute: the kernel runs in notebooks/
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        record_timing=False,
        config=Config(KernelManager={"transport": "ipc", "ip": os.path.join(sockets, "kernel")}),
        resources={"metadata": {"path": str(source.parent)}},
    )
    env = _kernel_env()
    # The notebook records its headlines afresh: rows it no longer records (a renamed key) must not
    # linger. The old file is kept aside and put back if the notebook fails.
    headlines = (
        Path(env["EQBENCH_NB_FIGURES"]) / "headlines" / f"{source.stem}.json" if "EQBENCH_NB_FIGURES" in env else None
    )
    old_headlines = headlines.read_bytes() if headlines is not None and headlines.is_file() else None
    if old_headlines is not None and headlines is not None:
        headlines.unlink()
    start = time.perf_counter()
    error = None
    try:
        client.execute(env=env)
    except CellExecutionError as exc:
        error = _short_error(exc)
    except Exception as exc:  # a kernel that dies or never starts: report, keep going
        error = f"{type(exc).__name__}: {exc}"
    finally:
        shutil.rmtree(sockets, ignore_errors=True)
    seconds = time.perf_counter() - start
    if error is None and committed is not None:
        error = lost_outputs(committed, nb)
    if error is not None and headlines is not None and old_headlines is not None:
        headlines.write_bytes(old_headlines)
    if save and error is None:
        nbformat.write(stable_outputs(nb), source.with_suffix(".ipynb"))
    return NotebookResult(source, seconds, error, note)


#: The outputs a notebook's reader comes for, by MIME type: a run that draws fewer of them in a cell than the
#: committed notebook holds there skipped part of its work (upstream data not found), and is not saved.
RICH_OUTPUTS = {"image/png": "figure", "image/svg+xml": "figure", "text/html": "table"}


def _committed(ipynb: Path, to_run: Any) -> Any:
    """The committed notebook, when its cells are the ones about to run (else None: an edited notebook may
    rightly draw less)."""
    import nbformat

    if not ipynb.is_file():
        return None
    try:
        committed = nbformat.read(ipynb, as_version=4)
    except Exception:  # unreadable: sync_pair has already said so, or the source won
        return None
    return committed if _inputs(committed) == _inputs(to_run) else None


def _rich_counts(cell: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for out in cell.get("outputs", []):
        for mime in out.get("data") or {}:
            if mime in RICH_OUTPUTS:
                counts[RICH_OUTPUTS[mime]] = counts.get(RICH_OUTPUTS[mime], 0) + 1
    return counts


def _said(cell: Any) -> str:
    """The first line a cell showed as text or Markdown, to say why it drew less."""
    for out in cell.get("outputs", []):
        text = (out.get("data") or {}).get("text/markdown") or out.get("text") or ""
        if lines := [line for line in "".join(text).splitlines() if line.strip()]:
            return lines[0][:200]
    return ""


def lost_outputs(committed: Any, ran: Any) -> str | None:
    """None when every cell of the run drew at least the figures and tables it holds in the committed notebook;
    else which cell drew fewer, what it showed instead, and that the notebook is left as committed."""
    for number, (old, new) in enumerate(zip(committed.cells, ran.cells, strict=False), 1):
        before, after = _rich_counts(old), _rich_counts(new)
        short = {kind: n - after.get(kind, 0) for kind, n in before.items() if after.get(kind, 0) < n}
        if short:
            what = " and ".join(f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in short.items())
            said = _said(new)
            return (
                f"ran, but cell {number} drew {what} fewer than the committed notebook"
                + (f" (it said: {said})" if said else "")
                + "; not reproduced, left as committed"
            )
    return None


def _kernel_env() -> dict[str, str]:
    """The kernel's environment: ours, with figures pinned to the checkout and the floating-point code paths
    pinned (:func:`pinned_numerics`), so that the figures do not depend on the CPU."""
    env = dict(os.environ)
    root = checkout_root()
    if root is not None:
        env.setdefault("EQBENCH_NB_FIGURES", str(root / "figures"))
    features, dispatch = cpu_features()
    env.update(pinned_numerics(features, dispatch))
    return env


#: The BLAS kernels every x86-64 CPU with AVX2 and FMA can run (Intel from Haswell, AMD from Zen). OpenBLAS
#: otherwise picks the kernels of the CPU it finds, and e.g. its AVX-512 (SkylakeX) kernels round a dot product,
#: a least-squares fit or a correlation differently in the last bit.
OPENBLAS_BASELINE = "Haswell"


def cpu_features() -> tuple[dict[str, bool], list[str]]:
    """numpy's view of this CPU: which features it has, and numpy's dispatch targets (optimised code paths
    chosen at run time); empty where numpy does not say."""
    import importlib

    for name in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):  # numpy 2, numpy 1
        try:
            umath = importlib.import_module(name)
        except ImportError:
            continue
        return dict(getattr(umath, "__cpu_features__", {})), list(getattr(umath, "__cpu_dispatch__", []))
    return {}, []


def pinned_numerics(features: dict[str, bool], dispatch: list[str]) -> dict[str, str]:
    """Environment for a notebook's kernel that makes its floating point the same on every x86-64 CPU with AVX2.

    Why: a figure is drawn from floats, and matplotlib's rasteriser turns a change in the last bit of a plotted
    value (an intercept off by 1e-15) into anti-aliased pixels one level apart, so the PNG's bytes follow every
    bit. Those bits depend on the CPU in three places, which this pins:

    - OpenBLAS (numpy's and scipy's) picks its kernels for the CPU it finds (``DYNAMIC_ARCH``): on an AVX-512
      machine ``np.polyfit``, ``lstsq`` and ``corrcoef`` round differently than on an AVX2 one. Pinned to
      :data:`OPENBLAS_BASELINE` where the CPU has AVX2 and FMA (those kernels need them).
    - OpenBLAS splits a long dot product over its threads, one partial sum each, so the sum depends on the number
      of cores: one thread (notebooks already run side by side).
    - numpy picks its own code paths at run time too: its AVX-512 ``exp``, ``log``, ``power`` and ``arctan`` round
      differently than its AVX2 ones. Every dispatch target above AVX2 (x86-64-v3) is switched off.

    On a CPU without AVX2, or not x86, nothing but the thread count is pinned, and figures may differ from the
    committed ones in anti-aliased pixels (the numbers in the notebooks agree to the digits they print).
    """
    env = {"OPENBLAS_NUM_THREADS": "1"}
    if features.get("AVX2") and features.get("FMA3"):
        env["OPENBLAS_CORETYPE"] = OPENBLAS_BASELINE
        above_avx2 = [t for t in dispatch if t == "X86_V4" or t.startswith("AVX512")]
        if above_avx2:
            env["NPY_DISABLE_CPU_FEATURES"] = " ".join(above_avx2)
    return env


def _short_error(exc: Exception) -> str:
    """The last line of a cell's traceback, without the terminal colour codes IPython adds."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__


def default_jobs() -> int:
    """Notebooks run at once by default: one more than the cores, at most three. Each kernel keeps about a core busy
    but waits too (its start, its imports from disk); on two cores the 14 notebooks took 56.5 s idle with two at
    once and 56.7 s with three, and beside a process using one core 87.5 s with two and 79.2 s with three (the
    scheduler shares the cores by process)."""
    return min(os.cpu_count() or 1, 2) + 1


def reproduce(paths: list[Path] | None = None, timeout: int = 900, jobs: int | None = None) -> list[NotebookResult]:
    """Execute the notebooks (all by default), ``jobs`` at a time; write figures/SUMMARY.md if all ran.

    Each notebook runs in its own process and kernel and writes only its own outputs (its figures,
    its headline file), so running several at once changes no byte of what they write; SUMMARY.md is
    written once, after all. One line per notebook with its time, as each ends. On a terminal a
    progress bar stands under those lines; when the output goes to a file or a pipe there is no bar
    (its carriage returns would run into the lines). Results come back in the notebooks' order.
    """
    import multiprocessing
    import sys
    from concurrent.futures import ProcessPoolExecutor, as_completed

    from tqdm.auto import tqdm

    from ..report import write_summary

    paths = paths or notebook_sources()
    jobs = max(1, min(jobs or default_jobs(), len(paths)))
    results: dict[Path, NotebookResult] = {}
    data_said = False  # where the upstream files were looked for is said by the first notebook that missed one
    on_terminal = sys.stderr.isatty()
    # spawn: a fresh interpreter per worker, never a fork of one holding threads (tqdm's, the client's)
    with (
        tqdm(total=len(paths), desc="notebooks", unit="nb", disable=not on_terminal) as bar,
        ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool,
    ):
        futures = {pool.submit(execute_notebook, path, timeout): path for path in paths}
        for future in as_completed(futures):
            path = futures[future]
            try:
                r = future.result()
            except Exception as exc:  # the worker itself died: named, the others go on
                r = NotebookResult(path, 0.0, f"{type(exc).__name__}: {exc}")
            results[path] = r
            bar.update(1)
            if r.note:
                _say(bar, f"note   {r.note}", on_terminal)
            shown, data_said = said_once(r.error, data_said) if r.error else (None, data_said)
            _say(
                bar,
                f"{'FAILED' if r.error else 'ok':6} {path.stem} ({r.seconds:.1f} s)" + (f": {shown}" if shown else ""),
                on_terminal,
            )
    ordered = [results[p] for p in paths]
    if not any(r.error for r in ordered):
        write_summary()
    return ordered


def said_once(error: str, data_said: bool) -> tuple[str, bool]:
    """A notebook's error as its line shows it, and whether the data folders have now been said: an upstream file
    not found (:class:`~eqbench_nb.data.DataError`) names the folders it was looked for in, the same for every
    notebook, so only the first such line says them and the others name the file alone."""
    head, found, _ = error.partition(" was not found as ")
    if not found or "DataError" not in head:
        return error, data_said
    if not data_said:
        return error, True
    return f"{head} was not found (in the data folders named above)", True


def _say(bar: Any, line: str, on_terminal: bool) -> None:
    if on_terminal:
        bar.write(line)
    else:
        print(line, flush=True)


# ---------------------------------------------------------------- the command


def add(sub: Any) -> None:
    from .common import subparser
    from .options import positive_int

    p = subparser(
        sub,
        "reproduce",
        "execute every notebook and regenerate every figure",
        "Execute the project's notebooks in fresh kernels (outputs saved in place), write every "
        "figure under figures/ and figures/SUMMARY.md. Works from anywhere inside the checkout.",
        cmd_reproduce,
    )
    p.add_argument(
        "notebooks",
        nargs="*",
        metavar="NOTEBOOK",
        help="only these notebooks, by name (03_repeatability), number (03) or path; default all",
    )
    p.add_argument("--timeout", type=positive_int, default=900, help="seconds per cell")
    p.add_argument(
        "--jobs",
        type=positive_int,
        metavar="N",
        help="notebooks run at once (default: one more than the cores, at most 3)",
    )
    p.add_argument("--list", action="store_true", help="list the notebooks and what each asks, run nothing")
    p.add_argument(
        "--fresh",
        action="store_true",
        help="run the bundled model live in 01_quickstart instead of reading its committed run "
        "(about a minute more; the figures then differ from the committed ones)",
    )


def refuse_outputs_over_sources(paths: list[Path]) -> None:
    """:func:`~eqbench_nb.output_paths.refuse_output_over_inputs` for what ``reproduce`` writes (each notebook's
    ``.ipynb``, ``figures/SUMMARY.md``) against what it reads (every notebook's source): an ``.ipynb`` linked to its
    own ``.py`` would be written over the source it was run from."""
    from ..output_paths import refuse_output_over_inputs
    from ..report import figures_dir

    sources = notebook_sources(paths[0].parent) if paths else []
    for path in paths:
        refuse_output_over_inputs(path.with_suffix(".ipynb"), sources, f"reproduce {path.stem}: its notebook")
    refuse_output_over_inputs(figures_dir() / "SUMMARY.md", sources, "reproduce: figures/SUMMARY.md")


def ran_line(n: int, seconds: float, figures: Path | None = None) -> str:
    """The last line of a successful ``reproduce``: where the figures are, as an absolute path (two clones may
    share one installed package; see :func:`~eqbench_nb.paths.other_checkout_warning`)."""
    where = (figures or figures_dir()).resolve()
    return f"{n} notebook{'s' if n != 1 else ''} ran in {seconds:.0f} s; figures and SUMMARY.md are in {where}/"


def cmd_reproduce(args: Any) -> int:
    import sys

    from ..benchmarks import EXIT_USAGE

    try:
        paths = select_notebooks(args.notebooks)
    except ReproduceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if warning := other_checkout_warning():
        print(warning, file=sys.stderr)
    if args.list:
        for path, title in notebook_titles(paths):
            print(f"{path.stem:24} {title}")
        return 0
    try:
        refuse_outputs_over_sources(paths)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.fresh:
        os.environ[FRESH_ENV] = "1"  # the kernels inherit it
    started = time.perf_counter()
    results = reproduce(paths, timeout=args.timeout, jobs=args.jobs)
    failed = [r for r in results if r.error]
    total = time.perf_counter() - started
    if failed:
        names = ", ".join(r.path.stem for r in failed)
        print(
            f"error: {len(failed)} of {len(results)} notebooks failed or skipped a part ({names}); they were left as "
            f"committed and figures/SUMMARY.md was not rewritten",
            file=sys.stderr,
        )
        return 1
    print(ran_line(len(results), total))
    return 0
