"""The run viewer's contract: what every benchmark's item records share, the columns the viewer reads, and the
attempts as the runner stored them, read back defensively. It sits with its reader, the viewer, but on the runner's
floor (docs/architecture.md), since every benchmark's ``samples`` writes it.

An item is what a benchmark scores once (an EQ-Bench question in one iteration, say; a situation asked once, in
another benchmark). Each benchmark turns its run into a DataFrame with one row per item (its ``samples`` hook in
:mod:`eqbench_nb.benchmarks`); every such frame has :data:`COMMON_COLUMNS`, and in ``attrs`` the keys of
:data:`FRAME_ATTRS`, which is all a view needs to lay it out without knowing the benchmark. The attempts are
those :meth:`~eqbench_nb.runner.transport.Completion.attempt` wrote; a file from elsewhere may hold anything in
them, so a value of the wrong type is shown as absent, never trusted.
"""

from __future__ import annotations

import datetime as _dt
import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..runner.cost import Prices, Usage
from ..runner.header import requests_went_to

__all__ = [
    "COMMON_COLUMNS",
    "FRAME_ATTRS",
    "AttemptCosts",
    "FrameSchema",
    "RunView",
    "attempt_view",
    "endpoint_text",
    "finite_number",
    "shown",
    "text_or_none",
    "timestamp_text",
    "token_count_or_none",
    "usage_facts",
    "words",
]

#: Columns every benchmark's item frame has (the views filter, sort and search on them).
COMMON_COLUMNS = (
    "item_id",  # unique in the run, and the page's data-item-id
    "key",  # what pairs an item of one run with the same item of another
    "label",
    "text",  # the kept attempt's text (else the last attempt's), whole
    "messages",  # what the model was asked (None where it cannot be rebuilt)
    "prompt_source",  # where ``messages`` come from
    "attempts",  # one :func:`attempt_view` per attempt
    "n_attempts",
    "kept_attempt",  # 1 = the first attempt; missing when none was kept
    "parsed",  # the item counts in the benchmark's own score
    "decision",
    "reason",
    "groups",  # the groups the item is in, what the group filter offers (an EQ-Bench question's emotions, say)
    "miss",  # how far the item is from its mark, what the "at least" filter reads (``miss_label`` says in what)
    "prompt_tokens",
    "completion_tokens",
    "reasoning_tokens",
    "latency_s",
    "cost_usd",
    "transport_retries",
    "faults",
    "retried",  # asked again by the benchmark's protocol (not by the transport: that is has_fault)
    "has_fault",
    "events",
)
#: Keys of an item frame's ``attrs``: the benchmark's name; the table's columns as (column, heading, "num" or
#: "text"); the column two runs are compared on; what ``miss`` measures; the benchmark's own names of common columns
#: ((own name, common column) pairs, each a copy of the column). Optional: ``group_label``, what ``groups`` hold, for
#: the filter on them ("emotion" when not given; a "kind" of task, say).
FRAME_ATTRS = ("benchmark", "table_columns", "compare_column", "miss_label", "aliases")


@dataclass(frozen=True)
class FrameSchema:
    """A benchmark's item frame, declared once (its ``samples`` hook builds every frame through :meth:`frame`):
    its ``columns`` beyond :data:`COMMON_COLUMNS`, the viewer's ``table`` ((column, heading, ``"num"`` or
    ``"text"``) per column), the column two runs are compared on, what ``miss`` measures, (optional) what ``groups``
    holds, and (optional) ``aliases``: (own name, common column) pairs, a common column also under the benchmark's own
    word (EQ-Bench's ``largest_error``, which notebook 01 selects), filled by :meth:`frame`. A column the table or
    the comparison names that the frame does not declare is a ValueError when the schema is declared, at import, not
    a ``KeyError`` when a run is viewed."""

    benchmark: str
    columns: tuple[str, ...]
    table: tuple[tuple[str, str, str], ...]
    compare_column: str
    miss_label: str
    group_label: str | None = None
    aliases: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        declared = {*COMMON_COLUMNS, *self.columns}
        twice = sorted({c for c in (*COMMON_COLUMNS, *self.columns) if (*COMMON_COLUMNS, *self.columns).count(c) > 1})
        if twice:
            raise ValueError(f"{self.benchmark}'s item frame declares {', '.join(twice)} twice")
        own_words = [own for own, _ in self.aliases]
        clash = [own for own in own_words if own in declared]
        if clash:
            raise ValueError(f"{self.benchmark}'s item frame declares its alias {', '.join(clash)} as a column too")
        unknown = [common for _, common in self.aliases if common not in COMMON_COLUMNS]
        if unknown:
            raise ValueError(f"{self.benchmark}'s item frame aliases columns that are not common: {', '.join(unknown)}")
        named = [c for c, _, _ in self.table] + [self.compare_column]
        missing = [c for c in named if c not in declared and c not in own_words]
        if missing:
            raise ValueError(f"{self.benchmark}'s item frame names undeclared columns: {', '.join(missing)}")

    @property
    def all_columns(self) -> tuple[str, ...]:
        """The frame's columns: the common ones, the benchmark's own, then its own names of common columns."""
        return (*COMMON_COLUMNS, *self.columns, *(own for own, _ in self.aliases))

    def frame(self, rows: Sequence[Mapping[str, Any]]) -> Any:
        """The item frame of ``rows`` (one mapping per item, holding exactly the common and the benchmark's own
        columns; a column missing or not declared is a ValueError naming it), with its aliases and ``attrs``."""
        import pandas as pd  # the runner itself never needs pandas: only a run's item frame does

        columns = (*COMMON_COLUMNS, *self.columns)
        for row in rows:
            if len(row) != len(columns) or any(c not in row for c in columns):
                missing = [c for c in columns if c not in row] or ["none"]
                extra = [c for c in row if c not in columns] or ["none"]
                said = f"lacks {', '.join(missing)}; undeclared: {', '.join(extra)}"
                raise ValueError(f"{self.benchmark}'s item row {said}")
        frame = pd.DataFrame(list(rows), columns=list(columns)).astype({"kept_attempt": "Int64"})
        for own, common in self.aliases:
            frame[own] = frame[common]
        frame.attrs.update(benchmark=self.benchmark, table_columns=self.table, compare_column=self.compare_column,
                           miss_label=self.miss_label, aliases=self.aliases)  # fmt: skip
        if self.group_label is not None:
            frame.attrs["group_label"] = self.group_label
        return frame


@dataclass(frozen=True)
class RunView:
    """What the viewer shows above a run's items (a benchmark's ``summary`` hook): its title, its facts ((label,
    text) rows), its scores table (``caption``, ``columns``, ``rows``) and the reader's warnings."""

    title: str
    facts: list[list[str]]
    scores: Mapping[str, Any]
    warnings: list[str]

    def as_json(self) -> dict[str, Any]:
        return {"title": self.title, "facts": self.facts, "scores": dict(self.scores), "warnings": self.warnings}


# ---------------------------------------------------------------- what a file holds, typed


def finite_number(value: Any) -> float | None:
    """A finite number from a file, else None (a string, a bool, an object, NaN, an integer too large)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


#: A token count above this is not a count (and would overflow a cost): shown as absent.
MAX_TOKENS_SHOWN = 10**12


def token_count_or_none(value: Any) -> int | None:
    """A token count from a file: a whole number from 0 to :data:`MAX_TOKENS_SHOWN`, else None."""
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKENS_SHOWN
    return value if ok else None


def text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def words(value: Any) -> list[str]:
    """A list of words from a file (fault kinds, parameters adapted); anything else in it is named by its type."""
    return [v if isinstance(v, str) else f"(a {type(v).__name__})" for v in value] if isinstance(value, list) else []


def attempt_view(raw: dict[str, Any], n: int, decision: str, reason: str, kept: bool) -> dict[str, Any]:
    """One attempt as the views show it: the decision about it and why, whether it was kept, the text as parsed
    with the raw text and the reasoning apart, its settings, what the transport saw."""
    return {
        "attempt": n,
        "decision": decision,
        "reason": reason,
        "kept": kept,
        "text": text_or_none(raw.get("text")),
        "raw_text": text_or_none(raw.get("raw_text")),
        "reasoning": text_or_none(raw.get("reasoning")),
        "temperature": finite_number(raw.get("temperature")),
        "latency_s": finite_number(raw.get("latency_s")),
        "prompt_tokens": token_count_or_none(raw.get("prompt_tokens")),
        "completion_tokens": token_count_or_none(raw.get("completion_tokens")),
        "reasoning_tokens": token_count_or_none(raw.get("reasoning_tokens")),
        "finish_reason": text_or_none(raw.get("finish_reason")),
        "transport_retries": token_count_or_none(raw.get("transport_retries")),
        "transport_faults": ", ".join(words(raw.get("transport_faults"))),
        "error": text_or_none(raw.get("error")),
        "adapted": ", ".join(words(raw.get("adapted"))),
        # answered through the Batch API (billed at half; the detail says "batch true"): only where it was
        **({"batch": True} if raw.get("batch") is True else {}),
    }


@dataclass(frozen=True)
class AttemptCosts:
    """What an item's attempts cost, summed: usage as billed, latency, transport retries and faults, errors."""

    usage: Usage
    latency_s: float | None
    retries: int
    faults: list[str]
    errors: list[str]

    @classmethod
    def of(cls, attempts: list[dict[str, Any]]) -> AttemptCosts:
        latencies = [x for a in attempts if (x := finite_number(a.get("latency_s"))) is not None]
        counted = [{k: token_count_or_none(a.get(k)) for k in ("prompt_tokens", "completion_tokens",
                    "reasoning_tokens")} | {"text": a.get("text"), "batch": a.get("batch") is True}
                   for a in attempts]  # fmt: skip
        return cls(
            Usage.of(counted),
            float(sum(latencies)) if latencies else None,
            sum(token_count_or_none(a.get("transport_retries")) or 0 for a in attempts),
            [f for a in attempts for f in words(a.get("transport_faults"))],
            [e for a in attempts if (e := text_or_none(a.get("error")))],
        )

    def columns(self, prices: Prices) -> dict[str, Any]:
        """The item frame's cost columns."""
        u = self.usage
        return {
            "prompt_tokens": u.prompt,
            "completion_tokens": u.completion,
            "reasoning_tokens": u.reasoning,
            "latency_s": self.latency_s,
            "cost_usd": prices.cost_of(u) if prices.known else None,  # what went by batch at half
            "transport_retries": self.retries,
            "faults": self.faults,
            "has_fault": bool(self.retries or self.faults or self.errors),
        }


def endpoint_row(label: str, model: str, attempts: Sequence[dict[str, Any]], prices: Prices) -> dict[str, Any]:
    """One endpoint's requests of an item, summed (an item's ``endpoints`` column, one row per endpoint it asked):
    its label, model, number of requests, usage, latency, transport retries and faults, and cost at ``prices``."""
    costs = AttemptCosts.of(list(attempts)).columns(prices)
    return {
        "endpoint": label,
        "model": model,
        "requests": len(attempts),
        **{k: costs[k] for k in ("prompt_tokens", "completion_tokens", "reasoning_tokens", "latency_s")},
        "transport_retries": costs["transport_retries"],
        "faults": costs["faults"],
        "cost_usd": costs["cost_usd"],
    }


def endpoint_items(items: Any, endpoint: str) -> Any:
    """A run's item frame (a DataFrame with an ``endpoints`` column of :func:`endpoint_row` rows) as one endpoint's
    (its label, e.g. the subject's or the judge's): its attempts, transport faults and retries, the columns
    :func:`usage_facts` reads."""
    import pandas as pd  # the runner itself never needs pandas: only a run's item frame does

    mine = [next((e for e in rows if e["endpoint"] == endpoint), None) for rows in items["endpoints"]]
    return pd.DataFrame(
        {
            "attempts": [[a for a in attempts if a["endpoint"] == endpoint] for attempts in items["attempts"]],
            "faults": [e["faults"] if e else [] for e in mine],
            "transport_retries": [e["transport_retries"] if e else 0 for e in mine],
        },
        index=items.index,
    )


# ---------------------------------------------------------------- a run's header, in words


def timestamp_text(value: object) -> str | None:
    """A header's time as ISO text: seconds since 1970 converted where they name a date (years 1-9999), a
    text kept as it is; a number no date has (1e20, -1e20, infinity, NaN) is shown as written, marked."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return _dt.datetime.fromtimestamp(value, _dt.UTC).isoformat(timespec="seconds")
        except (OverflowError, OSError, ValueError):  # out of datetime's range, or not a number at all
            written = f"{value:g}" if isinstance(value, float) else str(value)
            return f"not a date ({written if len(written) <= 24 else written[:20] + '…'})"
    return str(value) if value else None


def shown(value: Any, digits: int = 2) -> str:
    """A header value as text: "—" for none, yes/no, numbers with thousands separators, lists joined."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list):
        return ", ".join(f"{v:g}" if isinstance(v, float) else shown(v) for v in value)
    return str(value)


def endpoint_text(header: Mapping[str, Any], role: str = "") -> str:
    """Where a run's requests went (``role`` ``"judge_"``: its judge's), as text (:func:`~eqbench_nb.runner.header.
    requests_went_to`: the bundled model by name, never the temporary 127.0.0.1 address it was served on)."""
    return shown(requests_went_to(header, role))


def usage_facts(items: Any, prices: Prices, options: str = "--price-in, --price-out") -> list[list[str]]:
    """Header lines over every attempt of an item frame: tokens (as the endpoint billed them), cost, requests,
    transport retries by kind, requests that failed on their own, latency; ``options`` are those that give the
    prices, named when none were given."""
    attempts = [a for item in items["attempts"] for a in item]
    usage = Usage.of(attempts)
    faults = Counter(f for fs in items["faults"] for f in fs)
    latencies = [a["latency_s"] for a in attempts if a["latency_s"] is not None]
    failed = sum(1 for a in attempts if a["text"] is None and a["error"])
    retried = ", ".join(f"{k} x{v}" for k, v in faults.most_common()) or "none"
    retries = int(items["transport_retries"].sum())
    facts = [
        ["tokens", usage.describe()],  # the cost has its own row
        ["cost", f"${prices.cost_of(usage):,.4f} {prices.describe(usage)}" if prices.known else
         f"no prices given ({options}: dollars per million tokens)"],
        ["requests", f"{len(attempts):,} answered; transport retries {retries:,} ({retried}); {failed} failed on "
         "their own (400/413/422, no content)"],
    ]  # fmt: skip
    if latencies:
        facts.append(
            ["latency", f"median {statistics.median(latencies):.2f} s per request, {sum(latencies):,.0f} s in all"]
        )
    return facts
