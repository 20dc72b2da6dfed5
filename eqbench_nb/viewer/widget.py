"""The viewer inside JupyterLab: ``eqbench_nb.view(run)`` shows the page's own viewer inline in a notebook.

The widget is an `anywidget <https://anywidget.dev>`_ whose ES module is the page's script, ``viewer.js``,
as it is (its default export renders into the widget's element), with the page's styles; the data is the
same payload (:func:`eqbench_nb.viewer.payload.viewer_payload`), sent as JSON text. So the notebook and the
page draw one run with one render function. The widget's text form (what a notebook saved without widget
state shows, and what ``eqbench-nb reproduce`` keeps) names the run and its items, and nothing that changes
from one identical run to the next.
"""

from __future__ import annotations

import json
from typing import Any

import anywidget
import traitlets

from ..runner.cost import Prices
from .page import viewer_script, viewer_style
from .payload import viewer_payload

__all__ = ["Viewer", "view"]


class Viewer(anywidget.AnyWidget):
    """One run, or two side by side, drawn by the viewer script in a notebook."""

    _esm = viewer_script()
    _css = viewer_style()
    payload = traitlets.Unicode("").tag(sync=True)

    def __init__(self, payload: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(payload=json.dumps(payload, ensure_ascii=False, allow_nan=False), **kwargs)
        self._title = " vs ".join(run["summary"]["title"] for run in payload["runs"])
        self._items = [len(run["items"]) for run in payload["runs"]]

    def __repr__(self) -> str:
        # anywidget's repr holds the object's address: a saved notebook would change on every run
        items = " and ".join(f"{n:,}" for n in self._items)
        return (
            f"eqbench_nb viewer: {self._title} ({items} items); shown in JupyterLab, or as a page with "
            "`eqbench-nb view`"
        )


def view(
    *runs: Any,
    price_in: float | None = None,
    price_out: float | None = None,
    judge_price_in: float | None = None,
    judge_price_out: float | None = None,
) -> Viewer:
    """The viewer for one run, or two side by side (a run file's path, a run read from one, or what
    ``run_benchmark`` and the like returned); ``price_in`` / ``price_out`` in dollars per million tokens give
    costs, ``judge_price_in`` / ``judge_price_out`` those of a run's judge (its second endpoint)."""
    return Viewer(viewer_payload(runs, Prices.given(price_in, price_out, judge_price_in, judge_price_out)))
