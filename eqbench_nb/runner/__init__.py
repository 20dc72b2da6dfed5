"""The runner, generic over benchmarks: what every benchmark needs to ask a model its questions.

- ``settings``: :class:`Endpoint` (where requests go; paced, retried, priced) and :class:`RunSettings` (where results
  go): what every benchmark's run takes, checked in one place
- ``session``: a run's life: connect (the bundled model or an endpoint), then a :class:`RunPlan`'s jobs through the pool
  or the Batch API into the run file, stopped cleanly
- ``transport``: one chat completion with the runner's retry policy (faults never cost an attempt), a deadline per
  request, per-request failures (400/413/422, no content)
- ``http``: the cap on every response body, under the openai client
- ``endpoint``: base URL (credentials refused, query keys redacted), API key, reachability, the client, the model
- ``runfile``: the JSON Lines run file: lock, header, append + fsync, resume, torn tail, repair
- ``pool``: concurrency, progress, clean stops, and the loop that writes each record as it finishes
- ``loop``: running a coroutine from plain Python and from Jupyter; SIGTERM like Ctrl-C
- ``local_model``: the bundled SmolLM2-135M-Instruct behind llama.cpp's OpenAI-compatible server
- ``reasoning``: reasoning models: request bodies adapted to what the endpoint accepts, reasoning (``<think>`` blocks,
  reasoning fields) taken off before parsing
- ``ratelimit``: ``--concurrency`` as a ceiling, paced from x-ratelimit headers or 429s
- ``batch``: OpenAI's Batch API: rounds of batches, each paid step written ahead to the run file, resume by polling (or
  finding a batch by its metadata token), output read line by line
- ``headers``: the one reader of numbers in response headers (non-finite and absurd values refused)
- ``cost``: tokens (tiktoken where it loads offline, else an approximation) and prices

A benchmark supplies a :class:`~eqbench_nb.runner.session.RunPlan`: its run file's header and record format
(``key`` and ``to_json()``, and the function that reads a record back), its jobs, and a ``solve`` per job (a
coroutine returning one record, or an async generator yielding several, each written as it comes). It never names a
benchmark; see :mod:`eqbench_nb.eqbench.task`.
"""

from .errors import EndpointRefused, RunnerError, TransportGaveUp
from .settings import Endpoint, RunSettings
from .transport import RetryPolicy, Transport

__all__ = ["Endpoint", "EndpointRefused", "RetryPolicy", "RunSettings", "RunnerError", "Transport", "TransportGaveUp"]
