"""Running a coroutine to completion from plain Python and from Jupyter, where a loop already runs."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


def run_coroutine(make: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to completion, also from inside a running event loop (Jupyter).

    There the coroutine runs on its own loop in a worker thread; Ctrl-C (the kernel's interrupt)
    in the waiting thread cancels it cleanly.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())  # type: ignore[arg-type]
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
