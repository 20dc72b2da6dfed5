"""The viewer's data: one or two runs' headers and item records as one JSON-ready object, redacted.

The page and the notebook widget hand this same object to the same script (``viewer.js``). It is laid out
by column, not by record, so that a 1,710-item run stays small: the field names of the detail's facts,
tables and attempts are given once per run and each item holds only their values; a prompt shared by the
iterations of a question is held once, and so is an answer: an attempt whose text is the item's own holds null
there, and the item lists it in ``text_at`` (a 5 MB answer makes a 5 MB page, not 10). Nothing here knows a
benchmark: each run's benchmark (found through :mod:`eqbench_nb.registry`) gives its item frame, whose ``attrs``
(:data:`eqbench_nb.viewer.contract.FRAME_ATTRS`) say which columns the table shows and which value two runs are
compared on, its header, and the sentence comparing two runs.

Every string passes :func:`eqbench_nb.runner.redact.clean_json`: every key this process knows of, and the value of
every key variable of the redaction set (:func:`eqbench_nb.runner.redact.key_values`: the standard ones and those
any endpoint of the run names), is taken out in any of its encodings, and lone surrogates
(which no UTF-8 file can hold) are replaced.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..runner.cost import Prices
from ..runner.redact import clean_json, key_values
from .samples import load_run

__all__ = ["MAX_RUNS", "ViewerError", "viewer_payload"]


class ViewerError(ValueError):
    """Runs the viewer cannot show together (too many, or of two benchmarks): one line for the user."""


#: The viewer shows one run, or two side by side with the per-item difference.
MAX_RUNS = 2
#: Columns the detail shows in its own way (the title, the prompt, the attempts) or not at all (and a benchmark's
#: own names of common columns, which the attrs' ``aliases`` list: the common column is shown once, by that name).
_NOT_FACTS = {"item_id", "key", "label", "text", "messages", "prompt_source", "attempts", "groups"}
#: Table columns the script reads from the item's own field (each is held once per item).
_OWN_FIELDS = {"label": "label", "text": "text"}
#: Columns the filters read, by the short name the script knows them by.
_FLAGS = {"parsed": "parsed", "retried": "retried", "has_fault": "fault"}


def viewer_payload(runs: Sequence[Any], prices: Prices | None = None) -> dict[str, Any]:
    """The object the viewer script draws, ``{"runs": [...], "comparison": text or None}``, for one run or two
    (run files, runs read from them, or run results); ``prices`` (:meth:`~eqbench_nb.runner.cost.Prices.given`)
    give costs, its ``judge`` those of a run's judge (its second endpoint)."""
    if not 1 <= len(runs) <= MAX_RUNS:
        raise ViewerError(
            f"the viewer shows one run, or two side by side with the difference per item; got {len(runs)} "
            "(view them two at a time)"
        )
    loaded = [load_run(r) for r in runs]
    titles = list(dict.fromkeys(b.title for b, _ in loaded))
    if len(titles) > 1:
        raise ViewerError(f"two runs of different benchmarks ({' and '.join(titles)}) cannot be set side by side")
    out = []
    layouts = []
    for benchmark, run in loaded:
        assert benchmark.samples is not None and benchmark.summary is not None
        priced = (prices or Prices()).of_run(run.header)
        items = benchmark.samples(run, priced)
        layouts.append(items.attrs["table_columns"])
        out.append(_run_payload(items, benchmark.summary(run, items, priced).as_json()))
    if len(set(map(tuple, layouts))) > 1:  # one benchmark's files of two kinds (its runs and its judgements)
        kinds = " and ".join(run["summary"]["title"] for run in out)
        raise ViewerError(f"{kinds} hold items of two kinds, which cannot be set side by side: view them one at a time")
    benchmark = loaded[0][0]
    comparison = None
    if len(loaded) == 2 and benchmark.comparison is not None:
        comparison = benchmark.comparison(loaded[0][1], loaded[1][1])
    secrets = key_values(*(run.header for _, run in loaded))  # the one redaction set (redact module docstring)
    return clean_json({"runs": out, "comparison": comparison}, secrets)


def _run_payload(items: pd.DataFrame, summary: dict[str, Any]) -> dict[str, Any]:
    attrs = items.attrs
    table = list(attrs["table_columns"])
    own_word = {common: own for own, common in attrs["aliases"]}  # a common column shown once, by the benchmark's word
    not_facts = _NOT_FACTS | set(own_word.values())
    tables = [c for c in items.columns if c not in not_facts and _holds_records(items[c])]
    facts = [c for c in items.columns if c not in not_facts and c not in tables]
    table_fields = {c: _record_fields(items[c]) for c in tables}
    attempt_fields = _record_fields(items["attempts"])
    prompts: dict[str, int] = {}
    sources: dict[str, int] = {}
    rows = []
    for row in items.to_dict("records"):
        text = _value(row["text"])
        attempts = [[_value(a.get(f)) for f in attempt_fields] for a in row["attempts"]]
        rows.append(
            {
                "id": row["item_id"],
                "key": row["key"],
                "label": row["label"],
                "text": text,
                "prompt": _index(prompts, row["messages"]),
                "source": _index(sources, row["prompt_source"]),
                **{short: bool(row[column]) for column, short in _FLAGS.items()},
                "n": int(row["n_attempts"]),
                "emotions": list(row["groups"]),  # the script's names of the group filter's values and the miss
                "error": _value(row["miss"]),
                "compare": _value(row[attrs["compare_column"]]),
                "cells": [None if c in _OWN_FIELDS else _value(row[c]) for c, _, _ in table],
                "facts": [_value(row[c]) for c in facts],
                "tables": [[[_value(r.get(f)) for f in table_fields[c]] for r in row[c]] for c in tables],
                "attempts": attempts,
                "text_at": _hold_item_text_once(attempts, attempt_fields, text),
            }
        )
    return {
        "benchmark": attrs["benchmark"],
        "summary": summary,
        "table": [{"label": label, "kind": kind, "field": _OWN_FIELDS.get(column)} for column, label, kind in table],
        "compare_label": {c: label for c, label, _ in table}.get(attrs["compare_column"], attrs["compare_column"]),
        "error_label": attrs["miss_label"],
        "group_label": attrs.get("group_label", "emotion"),
        "facts": [_heading(own_word.get(c, c)) for c in facts],
        "tables": [{"title": _heading(c), "columns": [_heading(f) for f in table_fields[c]]} for c in tables],
        "attempt_fields": attempt_fields,
        "prompts": [_json_of(k) for k in prompts],
        "sources": list(sources),
        "items": rows,
    }


def _hold_item_text_once(attempts: list[list[Any]], fields: list[str], text: Any) -> list[int]:
    """The attempts whose text is the item's ``text``, in order; each of them then holds null for its text, which
    the script reads from the item (``viewer.js``, ``attemptText``)."""
    if text is None or "text" not in fields:
        return []
    k = fields.index("text")
    same = [i for i, attempt in enumerate(attempts) if attempt[k] == text]
    for i in same:
        attempts[i][k] = None
    return same


def _holds_records(column: pd.Series) -> bool:
    """A column whose values are lists of records (a table per item in the detail)."""
    return any(isinstance(v, list) and v and isinstance(v[0], dict) for v in column)


def _record_fields(column: pd.Series) -> list[str]:
    """The fields of a column of record lists, in order of first appearance."""
    fields: dict[str, None] = {}
    for records in column:
        for r in records if isinstance(records, list) else []:
            fields.update(dict.fromkeys(r))
    return list(fields)


def _heading(name: str) -> str:
    return name.replace("_", " ")


def _index(table: dict[str, int], value: Any) -> int:
    """The position of ``value`` in a table of distinct values (-1 for none), adding it when new."""
    if value is None:
        return -1
    key = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return table.setdefault(key, len(table))


def _json_of(key: str) -> Any:
    try:
        return json.loads(key)
    except ValueError:
        return key


def _value(value: Any) -> Any:
    """A cell for the script: numbers rounded to 4 decimals, anything not finite or missing as null, lists of
    words joined, the rest as text."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return round(value, 4) if math.isfinite(value) else None
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if hasattr(value, "item"):  # a NumPy scalar
        return _value(value.item())
    return str(value)
