"""The one reading of a selection option (``--scenarios 1,2,401``, ``--emotions Anger,Fear``): what was named, or
all when the option was not given at all.

An option that was given but names nothing (``--scenarios ""`` from an unset shell variable, ``--scenarios ,,``)
is refused before anything is asked: read as "all" it would pay for every scenario, read as "none" it would run
nothing and exit 0, and neither is what was meant.
"""

from __future__ import annotations

from .errors import RunnerError

__all__ = ["named"]


def named(spec: str | None, option: str) -> list[str] | None:
    """The comma-separated names of ``spec`` (trimmed, in order, each once); None when the option was not given
    (all); :class:`~eqbench_nb.runner.errors.RunnerError` when it was given and names nothing."""
    if spec is None:
        return None
    names = list(dict.fromkeys(part.strip() for part in str(spec).split(",") if part.strip()))
    if not names:
        raise RunnerError(
            f"{option} {spec!r} names nothing (an unset shell variable?): name at least one, or leave {option} out "
            "for all"
        )
    return names
