"""The runner's exceptions. Each message is one line meant for the user, never a traceback."""

from __future__ import annotations


class RunnerError(ValueError):
    """A user mistake or an endpoint that refuses us: reported as one line, never a traceback."""


class EndpointRefused(RunnerError):
    """401/403/404 or another non-retryable rejection: retrying cannot help, so the run stops."""


class TransportGaveUp(Exception):
    """A request still failed after the retry limit; its question is left for the next resume. ``last_fault`` is
    what it last met, ``endpoint`` where it was sent (a judge's, in a run with two endpoints): the run's stop line
    names them."""

    def __init__(self, message: str, last_fault: str = "", endpoint: str = ""):
        super().__init__(message)
        self.last_fault, self.endpoint = last_fault, endpoint


class Unfinished(RunnerError):
    """The run stopped with questions left for the next resume (an endpoint that keeps failing): exit 3."""
