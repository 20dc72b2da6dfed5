"""The command line as the tests call it: inside the test process (:func:`cli`), or as a process of its own
(:func:`cli_process`) only where the process is what is tested (a signal, a kill and the resume after it, a file
size limit, the bundled model's server).

A new process costs about 1.5 CPU-s of imports before the command does anything; the suite started one 327 times.
Both helpers pass the test process's environment through, changed by ``env`` (a value of None unsets a variable),
so every command reads the data the tests found (``EQBENCH_NB_DATA`` or ``../shared/data``, tests/conftest.py).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import subprocess
import sys
import threading
import traceback
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: The warnings filters a fresh CPython 3 process starts with (no -W, no PYTHONWARNINGS): a command's warnings reach
#: its stderr as they would from its own process, not pytest's record of the test.
_PROCESS_WARNING_FILTERS: tuple[tuple[str, type[Warning], str], ...] = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, ""),
    ("ignore", PendingDeprecationWarning, ""),
    ("ignore", ImportWarning, ""),
    ("ignore", ResourceWarning, ""),
)


class _TimedOut(BaseException):
    """Raised in the command by the timer (a BaseException: no ``except Exception`` of the command swallows it)."""


def environment(env: Mapping[str, str | None] | None) -> dict[str, str]:
    """This process's environment with ``env``'s changes: a value of None unsets the variable."""
    changed = dict(os.environ)
    for name, value in (env or {}).items():
        if value is None:
            changed.pop(name, None)
        else:
            changed[name] = value
    return changed


def _set_environment(wanted: Mapping[str, str]) -> None:
    for name in [n for n in os.environ if n not in wanted]:
        del os.environ[name]
    for name, value in wanted.items():
        if os.environ.get(name) != value:
            os.environ[name] = value


@contextlib.contextmanager
def _process_state_restored() -> Iterator[None]:
    """Everything a command may change in the process it runs in, put back afterwards: the environment, the working
    folder, ``sys.argv`` and ``sys.stdin``, the SIGINT and SIGTERM handlers (``run`` and ``serve-local`` set them),
    the warnings filters, the root logger's handlers, the secrets :mod:`eqbench_nb.runner.redact` remembers (none
    while the command runs, as in a process of its own; ``main`` adds the key variables' values) and the matplotlib
    figures the command left open."""
    from eqbench_nb.runner import redact

    environ, cwd, argv, stdin = dict(os.environ), os.getcwd(), sys.argv[:], sys.stdin
    main_thread = threading.current_thread() is threading.main_thread()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)} if main_thread else {}
    with redact._lock:  # a fresh process remembers no secret: a command redacts only what it learns itself
        secrets = redact._remembered[:]
        redact._remembered.clear()
    root_logger = logging.getLogger()
    log_handlers = root_logger.handlers[:]
    figures = set(sys.modules["matplotlib.pyplot"].get_fignums()) if "matplotlib.pyplot" in sys.modules else None
    try:
        with warnings.catch_warnings():
            warnings.resetwarnings()
            for action, category, module in reversed(_PROCESS_WARNING_FILTERS):
                warnings.filterwarnings(action, category=category, module=module)  # type: ignore[arg-type]
            root_logger.handlers.clear()  # as in a process of its own: logging's last resort prints to stderr
            yield
    finally:
        root_logger.handlers[:] = log_handlers
        with redact._lock:
            redact._remembered[:] = secrets
        for sig, handler in handlers.items():
            if handler is not None:
                signal.signal(sig, handler)
        sys.argv[:], sys.stdin = argv, stdin
        os.chdir(cwd)
        _set_environment(environ)
        if "matplotlib.pyplot" in sys.modules:
            plt = sys.modules["matplotlib.pyplot"]
            for number in set(plt.get_fignums()) - (figures or set()):
                plt.close(number)


@contextlib.contextmanager
def _timer(seconds: float | None) -> Iterator[None]:
    """Raise :class:`_TimedOut` in this (the main) thread after ``seconds``; nothing elsewhere or without one."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise _TimedOut

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _as_read_from_a_pipe(raw: bytes, encoding: str) -> str:
    """What ``subprocess.run(..., text=True)`` returns for these bytes: decoded, universal newlines."""
    return raw.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")


def cli(
    *args: object,
    env: Mapping[str, str | None] | None = None,
    cwd: str | os.PathLike[str] = ROOT,
    timeout: float | None = 300,
) -> subprocess.CompletedProcess[str]:
    """``eqbench-nb ARGS`` run by :func:`eqbench_nb.cli.main` in this process as its own process would run it.

    The environment is this process's with ``env``'s changes, the working folder ``cwd`` (default: the checkout);
    stdout and stderr are captured in the encoding and error handling this interpreter's own streams use and read
    back as ``subprocess.run(..., text=True)`` reads a pipe; an exception ``main`` lets through is printed as Python
    prints it (a traceback) with exit status 1, a ``SystemExit`` (argparse) gives its status. Whatever the command
    changes in this process is put back (:func:`_process_state_restored`). A command still running after
    ``timeout`` seconds raises :class:`subprocess.TimeoutExpired`, as ``subprocess.run`` does.
    """
    from eqbench_nb.cli import main

    argv = [str(a) for a in args]
    out, err = io.BytesIO(), io.BytesIO()
    encoding = getattr(sys.__stdout__, "encoding", None) or "utf-8"
    stdout = io.TextIOWrapper(out, encoding, getattr(sys.__stdout__, "errors", None) or "strict", write_through=True)
    stderr = io.TextIOWrapper(err, encoding, "backslashreplace", write_through=True)
    timed_out = False
    with _process_state_restored():
        _set_environment(environment(env))
        os.chdir(cwd)
        sys.argv[:] = ["eqbench-nb", *argv]
        sys.stdin = io.TextIOWrapper(io.BytesIO(), encoding)
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                with _timer(timeout):
                    code = main(argv)
            except _TimedOut:
                timed_out = True
            except SystemExit as exc:  # argparse's usage errors and --help
                if exc.code is None or isinstance(exc.code, int):
                    code = exc.code or 0
                else:
                    print(exc.code, file=sys.stderr)
                    code = 1
            except BaseException:  # what a process of its own would print before it ended with status 1
                traceback.print_exc()
                code = 1
            finally:
                stdout.flush()
                stderr.flush()
    printed, said = (_as_read_from_a_pipe(b.getvalue(), encoding) for b in (out, err))
    if timed_out:
        raise subprocess.TimeoutExpired(["eqbench-nb", *argv], timeout or 0, printed, said)
    return subprocess.CompletedProcess(["eqbench-nb", *argv], code, printed, said)


def cli_process(
    *args: object,
    env: Mapping[str, str | None] | None = None,
    cwd: str | os.PathLike[str] = ROOT,
    timeout: float | None = 300,
    wait: bool = True,
    **popen: Any,
) -> Any:
    """``python -m eqbench_nb ARGS`` as a process of its own, this checkout's package first on its path, with
    this process's environment changed by ``env``. ``wait``: the :class:`subprocess.CompletedProcess` of
    ``subprocess.run`` (stdout and stderr captured as text); else the running :class:`subprocess.Popen`, its stdout
    and stderr pipes of text unless ``popen`` (``stdout``, ``stderr``, ``preexec_fn``, ...) says otherwise."""
    command = [sys.executable, "-m", "eqbench_nb", *map(str, args)]
    full = environment({"PYTHONPATH": str(ROOT), **(env or {})})
    if wait:
        return subprocess.run(command, env=full, cwd=cwd, capture_output=True, text=True, timeout=timeout, **popen)
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True} | popen
    return subprocess.Popen(command, env=full, cwd=cwd, **streams)
