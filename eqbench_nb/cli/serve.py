"""``eqbench-nb serve-local``: the bundled model behind llama.cpp's OpenAI-compatible server, for other tools."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..benchmarks import EXIT_USAGE
from .common import port, subparser
from .options import positive_int


def add(sub: Any) -> None:
    p = subparser(
        sub,
        "serve-local",
        "serve the bundled model on 127.0.0.1 until Ctrl-C",
        "Serve the bundled SmolLM2-135M-Instruct through llama.cpp's OpenAI-compatible server on "
        "127.0.0.1, for other tools; prints the base URL.",
        cmd_serve_local,
    )
    p.add_argument("--port", type=port, default=0, help="port (0: a free one)")
    p.add_argument("--parallel", type=positive_int, default=1, metavar="N", help="server slots")


def cmd_serve_local(args: argparse.Namespace) -> int:
    import signal
    import time

    from ..runner.local_model import MODEL_NAME, LocalModelError, LocalServer

    try:
        server = LocalServer(n_parallel=args.parallel, port=args.port)
        base_url = server.start()
    except LocalModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    # Ctrl-C (and SIGTERM) must stop the server even when this process was started with SIGINT
    # ignored, as background jobs of a non-interactive shell are; Python then installs no handler.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    print(f"serving {MODEL_NAME} at {base_url} (model name {MODEL_NAME!r}); Ctrl-C stops it", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        server.stop()
    return 0
