"""Running a coroutine to completion from plain Python and from Jupyter, where a loop already runs."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


class Terminated(KeyboardInterrupt):
    """SIGTERM stopped the run, as cleanly as Ctrl-C (a KeyboardInterrupt, so every handler of one sees it)."""


def run_coroutine(make: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to completion, also from inside a running event loop (Jupyter).

    Ctrl-C cancels the coroutine (which may clean up) and then raises KeyboardInterrupt; in the
    main thread SIGTERM does the same and raises :class:`Terminated` (unless the program has its
    own SIGTERM handler). Inside a running loop the coroutine runs on its own loop in a worker
    thread; Ctrl-C (the kernel's interrupt) in the waiting thread cancels it cleanly.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_here(make)
    box: dict[str, Any] = {}
    ready = threading.Event()

    def target() -> None:
        loop = asyncio.new_event_loop()
        box["loop"], box["task"] = loop, loop.create_task(make())  # type: ignore[arg-type]
        ready.set()
        try:
            box["result"] = loop.run_until_complete(box["task"])
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc
        finally:
            loop.close()

    thread = threading.Thread(target=target, name="eqbench-runner", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.1)
    except KeyboardInterrupt:
        ready.wait()
        box["loop"].call_soon_threadsafe(box["task"].cancel)
        thread.join()
        raise
    if "error" in box:
        raise box["error"]
    return box["result"]


def _run_here(make: Callable[[], Awaitable[T]]) -> T:
    """asyncio.run, with SIGTERM handled like asyncio handles SIGINT: cancel the main task, let it clean up."""
    with asyncio.Runner() as runner:
        if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) not in (
            signal.SIG_DFL,
            None,
        ):
            return runner.run(make())  # type: ignore[arg-type]
        loop = runner.get_loop()
        box: dict[str, Any] = {}

        def on_sigterm(signum: int, frame: Any) -> None:
            box["terminated"] = True
            task = box.get("task")
            if task is not None and not task.done():
                loop.call_soon_threadsafe(task.cancel)  # a second SIGTERM cancels the clean-up's wait too

        async def main() -> T:
            box["task"] = asyncio.current_task()
            if box.get("terminated"):  # SIGTERM came before there was a task to cancel
                raise asyncio.CancelledError
            return await make()

        previous = signal.signal(signal.SIGTERM, on_sigterm)
        try:
            return runner.run(main())
        except asyncio.CancelledError:
            if box.get("terminated"):
                raise Terminated() from None
            raise
        finally:
            signal.signal(signal.SIGTERM, previous)
