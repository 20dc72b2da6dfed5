"""Shared settings of the fuzz suites (tests/test_fuzz_*.py): a modest example count in CI, a larger one
from ``EQBENCH_NB_FUZZ_EXAMPLES`` (benchmarks/fuzz_soak.py sets it)."""

from __future__ import annotations

import os
from urllib.parse import quote, quote_plus

from hypothesis import HealthCheck, settings

EXAMPLES = int(os.environ.get("EQBENCH_NB_FUZZ_EXAMPLES") or 0)


def fuzz_settings(ci_examples: int) -> settings:
    return settings(
        max_examples=EXAMPLES or ci_examples,
        deadline=None,
        derandomize=not EXAMPLES,  # CI: the same examples every run; a soak: new ones each time
        database=None,
        suppress_health_check=list(HealthCheck),
    )


def encodings(secret: str) -> set[str]:
    """The forms a server may echo a secret in."""
    return {
        secret,
        quote(secret),
        quote(secret, safe=""),
        quote_plus(secret),
        secret.replace(" ", "+"),
        secret.replace("/", "\\/"),
    }


def leaks(text: str, secret: str) -> list[str]:
    """Every run of 8 characters of ``secret`` (in any of its encodings) found in ``text``."""
    return sorted({f[i : i + 8] for f in encodings(secret) for i in range(len(f) - 7) if f[i : i + 8] in text})
