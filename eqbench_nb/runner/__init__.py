"""The runner, generic over benchmarks: what every benchmark needs to ask a model its questions.

==================  ===================================================================
``transport``       one chat completion with the runner's retry policy (faults never cost an attempt)
``endpoint``        base URL (credentials stripped), API key, reachability, the client, the model
``runfile``         the JSON Lines run file: header, append + fsync, resume, torn tail
``pool``            concurrency, progress, and the loop that writes each record as it finishes
``loop``            running a coroutine from plain Python and from Jupyter
``local_model``     the bundled SmolLM2-135M-Instruct behind llama.cpp's OpenAI-compatible server
==================  ===================================================================

A benchmark supplies its items, a ``solve`` coroutine that asks one item and returns a record
(``key`` and ``to_json()``), and the function that reads a record back; see
:mod:`eqbench_nb.eqbench.task`.
"""

from .errors import EndpointRefused, RunnerError, TransportGaveUp
from .transport import RetryPolicy, Transport

__all__ = ["EndpointRefused", "RetryPolicy", "RunnerError", "Transport", "TransportGaveUp"]
