"""A panel of judges for EQ-Bench 3, as small pure functions apart from the runner and the command line.

A run (rubric judgements) or a judgements file (pairwise judgements) may be judged by several judges. Each judge has
an **id** (its model name unless a ``--judges`` file gives one), and every judgement record names the id of the
judge that made it. The header lists the panel, one entry per judge (:func:`panel_entry`: id, model, endpoint,
the *name* of its key variable, never the key, and its token limit); a file written before panels (one judge, named
by the header's ``judge_model`` or ``judge``) reads as a panel of that one judge (:func:`panel_of`).

The panel only grows: running the same command with one more judge adds it (:func:`merge_panel`) and asks only what
it lacks (:func:`lacking`); a judge already in the panel keeps its entry, and an id that would name another model or
token limit is refused before anything is asked.

Judges are given on the command line in step (:func:`in_step`: each judge option repeated once per judge, or once
for all) or in a small JSON file (:func:`read_judges_file`, every field checked before the first request).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..analysis.judges import PANEL
from ..runner.errors import RunnerError
from ..runner.reasoning import REASONING_EFFORTS
from ..runner.redact import refuse_key_as_name
from ..runner.settings import Endpoint

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PANEL", "JudgeSpec"]

#: The judge options a panel takes per judge, as (the option's dest without its ``judge_`` prefix, its flag).
IN_STEP_OPTIONS = (
    ("model", "--judge-model"),
    ("base_url", "--judge-base-url"),
    ("api_key_env", "--judge-api-key-env"),
    ("timeout", "--judge-timeout"),
    ("concurrency", "--judge-concurrency"),
    ("retry_budget", "--judge-retry-budget"),
    ("max_tokens", "--judge-max-tokens"),
    ("reasoning_effort", "--judge-reasoning-effort"),
    ("price_in", "--judge-price-in"),
    ("price_out", "--judge-price-out"),
)
#: The most judges one panel may hold (a guard against a runaway file, not a statistical limit).
MAX_JUDGES = 32
#: The largest ``--judges`` file read.
MAX_FILE_BYTES = 1 << 20
MAX_ID_CHARS = 100
#: Names a judge id may not take: the panel's row and the viewer's first column.
RESERVED_IDS = (PANEL, "measure")
_KEY_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
#: A ``--judges`` entry's fields and what each must be.
FILE_FIELDS: dict[str, str] = {
    "id": "a name for the judge (default: its model)",
    "model": "the judge's model name",
    "base_url": "its endpoint, http(s)://...",
    "api_key_env": "the NAME of the environment variable holding its key",
    "timeout_s": "seconds per request, positive",
    "concurrency": "requests in flight, a whole number from 1",
    "retry_budget_s": "seconds of retries, 0 or more",
    "max_tokens": "its token limit, a whole number from 1",
    "reasoning_effort": f"one of {', '.join(REASONING_EFFORTS)}",
    "price_in": "dollars per million prompt tokens, 0 or more",
    "price_out": "dollars per million completion tokens, 0 or more",
    "adaptive": "true or false",
    "batch": "true or false: its judgements go through the Batch API at half the price (--judge-batch for all)",
}


@dataclass(frozen=True)
class JudgeSpec:
    """One judge as given: its id (None: its model name, known once connected) and its endpoint."""

    id: str | None
    endpoint: Endpoint


# ---------------------------------------------------------------- the command line


def in_step(given: Mapping[str, Sequence[Any] | None]) -> list[dict[str, Any]]:
    """The judges the repeated judge options describe: each option (by the names of :data:`IN_STEP_OPTIONS`) given
    as many times as there are judges, or once for all, or not at all; one dict per judge. A ValueError in one line
    when an option is given another number of times (it would pair a judge with another's setting)."""
    flags = dict(IN_STEP_OPTIONS)
    counts = {name: len(values) for name, values in given.items() if values}
    n = max(counts.values(), default=1)
    wrong = [f"{flags.get(name, name)} {c} times" for name, c in counts.items() if c not in (1, n)]
    if wrong:
        raise ValueError(
            f"{n} judges, but {', '.join(wrong)}: give each judge option once per judge, in the order of the "
            "judges, or once for all"
        )
    if n > MAX_JUDGES:
        raise ValueError(f"{n} judges: a panel holds at most {MAX_JUDGES}")
    return [
        {name: (values[i] if len(values) == n else values[0]) if values else None for name, values in given.items()}
        for i in range(n)
    ]


def read_judges_file(path: str | Path) -> list[JudgeSpec]:
    """The judges a ``--judges`` file names: a JSON object ``{"judges": [{...}, ...]}`` (or the list alone), each
    entry with the fields of :data:`FILE_FIELDS`. Every field is checked here, before any request: a RunnerError
    in one line names the file, the entry and the field. A key itself is refused (the file names its variable)."""
    where = str(path)
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise RunnerError(f"--judges {where}: cannot read it ({exc.strerror or type(exc).__name__})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise RunnerError(f"--judges {where}: larger than {MAX_FILE_BYTES // 1024} KiB; a panel file is small")
    try:
        obj = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise RunnerError(f"--judges {where}: not JSON ({type(exc).__name__})") from None
    entries = obj.get("judges") if isinstance(obj, dict) and set(obj) == {"judges"} else obj
    if not isinstance(entries, list) or not entries:
        raise RunnerError(f'--judges {where}: expected {{"judges": [{{"model": ..., "base_url": ...}}, ...]}}')
    if len(entries) > MAX_JUDGES:
        raise RunnerError(f"--judges {where}: {len(entries)} judges; a panel holds at most {MAX_JUDGES}")
    specs = [_spec(entry, f"--judges {where}: judge {i + 1}") for i, entry in enumerate(entries)]
    refuse_duplicate_ids(s.id or str(s.endpoint.model) for s in specs if s.id or s.endpoint.model)
    return specs


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _spec(entry: Any, where: str) -> JudgeSpec:
    if not isinstance(entry, dict):
        raise RunnerError(f"{where} is not an object")
    if "api_key" in entry:
        raise RunnerError(f"{where}: a key is never written in a file; name its environment variable (api_key_env)")
    unknown = sorted(str(k)[:40] for k in entry if k not in FILE_FIELDS)
    if unknown:
        raise RunnerError(f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; known: {', '.join(FILE_FIELDS)}")
    get = entry.get
    judge_id = _text(get("id"), f"{where} id", MAX_ID_CHARS)
    model = _text(get("model"), f"{where} model", 1000)
    base_url = _text(get("base_url"), f"{where} base_url", 2000)
    if base_url is not None and not re.match(r"https?://", base_url):
        raise RunnerError(f"{where} base_url must start with http:// or https://")
    key_env = get("api_key_env")
    if isinstance(key_env, str):
        refuse_key_as_name(key_env, f"{where} api_key_env")
    if key_env is not None and not (isinstance(key_env, str) and _KEY_VAR.fullmatch(key_env)):
        raise RunnerError(f"{where} api_key_env must be the name of an environment variable (letters, digits, _)")
    effort = get("reasoning_effort")
    if effort is not None and effort not in REASONING_EFFORTS:
        raise RunnerError(f"{where} reasoning_effort must be one of {', '.join(REASONING_EFFORTS)}")
    adaptive = get("adaptive", True)
    if not isinstance(adaptive, bool):
        raise RunnerError(f"{where} adaptive must be true or false")
    batch = get("batch", False)
    if not isinstance(batch, bool):
        raise RunnerError(f"{where} batch must be true or false")
    endpoint = Endpoint(
        base_url=base_url,
        model=model,
        api_key_env=key_env,
        timeout_s=_number(get("timeout_s"), f"{where} timeout_s", positive=True),
        concurrency=_whole(get("concurrency"), f"{where} concurrency"),
        adaptive=adaptive,
        retry_budget_s=_number(get("retry_budget_s"), f"{where} retry_budget_s"),
        max_tokens=_whole(get("max_tokens"), f"{where} max_tokens"),
        reasoning_effort=effort,
        price_in=_number(get("price_in"), f"{where} price_in"),
        price_out=_number(get("price_out"), f"{where} price_out"),
        batch=batch,
    )
    return JudgeSpec(judge_id, endpoint)


def _text(value: Any, what: str, limit: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > limit or not value.isprintable():
        raise RunnerError(f"{what} must be printable text of 1 to {limit} characters")
    return value


def _number(value: Any, what: str, positive: bool = False) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise RunnerError(f"{what} must be a finite number")
    if value < 0 or (positive and value == 0):
        raise RunnerError(f"{what} must be {'positive' if positive else '0 or more'}")
    return float(value)


def _whole(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RunnerError(f"{what} must be a whole number from 1")
    return value


def refuse_duplicate_ids(ids: Iterable[str]) -> None:
    """A RunnerError naming an id given twice (two judges of one model need ids of their own: a ``--judges`` file)."""
    seen: set[str] = set()
    for judge_id in ids:
        if judge_id in RESERVED_IDS:
            raise RunnerError(f"{judge_id!r} names the panel's own column; give the judge another id (--judges file)")
        if judge_id in seen:
            raise RunnerError(
                f"judge {judge_id!r} is named twice; to ask one model at two endpoints, give each an id in a "
                "--judges file"
            )
        seen.add(judge_id)


# ---------------------------------------------------------------- the panel in a header


def panel_entry(
    judge_id: str,
    model: str,
    endpoint_shown: str | None,
    endpoint: Endpoint,
    max_tokens: int,
    local: bool = False,
    keyed: bool = True,
) -> dict:
    """A judge's entry in the header: what identifies its judgements (id, model, token limit) and where it was
    asked (the endpoint as shown, whether it is the bundled model, the NAME of its key variable for redaction, None
    when no key was sent: the bundled model, a loopback server with no key set (``keyed`` false); never the key), and
    ``batch`` where it joined with the Batch API (``--judge-batch``; each attempt it answered so says ``batch``)."""
    return {
        "id": judge_id,
        "model": model,
        "endpoint": endpoint_shown,
        "local": local,
        "api_key_env": (endpoint.api_key_env or "OPENAI_API_KEY") if keyed and not local else None,
        "max_tokens": max_tokens,
    } | ({"batch": True} if endpoint.batch else {})  # joined through the Batch API (each attempt says so too)


def panel_of(header: Mapping[str, Any], legacy_key: str = "judge_model") -> list[dict[str, Any]]:
    """The panel a header lists (``judges``); a header written before panels names one judge (``legacy_key``:
    ``judge_model`` in a run, ``judge`` in a judgements file) and reads as a panel of it; no judge: []. A header whose
    legacy field names another model than its panel's first was edited: the legacy field is believed, as before
    panels (a judgements file's records by another judge are then another file's)."""
    judges = header.get("judges")
    model = header.get(legacy_key)
    if (
        isinstance(judges, list)
        and judges
        and all(isinstance(j, dict) and isinstance(j.get("id"), str) for j in judges)
        and model in (None, judges[0].get("model"))  # the legacy field names the first judge; else it was edited
    ):
        return [dict(j) for j in judges]
    if not isinstance(model, str) or not model:
        return []
    sampling = header.get("sampling")
    max_tokens = sampling.get("judge_max_tokens") if isinstance(sampling, dict) else None
    endpoint = header.get("judge_endpoint")
    return [{"id": model, "model": model, "endpoint": endpoint if isinstance(endpoint, str) else None,
             "api_key_env": None, "max_tokens": max_tokens}]  # fmt: skip


def merge_panel(old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The panel after this command: the old one's entries as they were, then each new judge not in it. A judge id
    already in the panel with another model or token limit is refused (its judgements would be another judge's)."""
    out = [dict(e) for e in old]
    known = {e["id"]: e for e in out}
    for entry in new:
        was = known.get(entry["id"])
        if was is None:
            out.append(dict(entry))
            known[entry["id"]] = out[-1]
            continue
        for name in ("model", "max_tokens"):
            if was.get(name) is not None and was.get(name) != entry.get(name):
                raise RunnerError(
                    f"judge {entry['id']!r} judged this run as {name.replace('_', ' ')} {was.get(name)!r}, not "
                    f"{entry.get(name)!r}; give this judge another id (a --judges file) or use another --run-id"
                )
    if len(out) > MAX_JUDGES:
        raise RunnerError(f"the panel would hold {len(out)} judges; at most {MAX_JUDGES}")
    return out


def label_of(panel: Sequence[Mapping[str, Any]], judge_id: str) -> str:
    """How the runner names a judge's endpoint (messages, the header's deviations field): ``judge`` for the
    panel's first (as before panels: ``judge_deviations``), ``judge 2``, ``judge 3``, ... for the rest (stable:
    the panel only grows at its end)."""
    at = next(i for i, e in enumerate(panel) if e["id"] == judge_id)
    return "judge" if at == 0 else f"judge {at + 1}"


def lacking(asked: Sequence[str], judged: Iterable[str]) -> list[str]:
    """The judges of ``asked`` (in order) with no judgement among ``judged`` (the ids that judged an item)."""
    have = set(judged)
    return [j for j in asked if j not in have]


# ---------------------------------------------------------------- tables

#: ``score --by-judge``'s columns: the interval columns named as in ``score``'s other tables.
BY_JUDGE_COLUMNS = ("judge", "rubric", "low", "high", "tasks", "out_of_range", "left_out")


def with_judge_column(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Tables of standings, one per judge (and the pooled panel's under :data:`PANEL`), as one table with the
    ``judge`` column first."""
    import pandas as pd

    parts = [t.assign(judge=judge) for judge, t in tables.items()]
    out = pd.concat(parts, ignore_index=True)
    return out[["judge", *[c for c in out.columns if c != "judge"]]]
