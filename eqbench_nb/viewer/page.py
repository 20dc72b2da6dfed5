"""The viewer as one self-contained HTML page: script, styles and data inline, nothing fetched, opens from file://.

The page is the viewer script (``viewer.js``, the same module the notebook widget runs) and its styles
(``viewer.css``) inlined, and the data (:func:`eqbench_nb.viewer.payload.viewer_payload`) as JSON in a
``<script type="application/json">`` element, where ``<``, ``>``, ``&``, U+2028 and U+2029 are written as
``\\u`` escapes, so no text a model wrote can end the element or start markup. The script reads that element
and builds the page with text nodes only. A Content-Security-Policy allows exactly the page's own script and
style (by their sha256) and nothing else: no network, no other script, even one that got in somehow.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..runner.cost import Prices
from .payload import viewer_payload

__all__ = ["embed_json", "page_html", "viewer_script", "viewer_style", "write_page"]

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "viewer.js"
STYLE = HERE / "viewer.css"
#: What the page appends to the viewer module to draw itself.
BOOT = "\nrenderPage();\n"
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def viewer_script() -> str:
    """The viewer module: the page inlines it, the widget runs it as its ESM."""
    return SCRIPT.read_text(encoding="utf-8")


def viewer_style() -> str:
    return STYLE.read_text(encoding="utf-8")


def embed_json(value: Any) -> str:
    """JSON that can sit inside a ``<script>`` element of an HTML page: no ``<``, ``>`` or ``&`` (so no
    ``</script>`` or ``<!--``), and no U+2028 / U+2029 (line ends to older JavaScript), all as ``\\u`` escapes,
    which JSON.parse reads back as the same characters."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    for char, escape in _JSON_ESCAPES.items():  # one pass of str.replace each: a 60 MB page in milliseconds
        text = text.replace(char, escape)
    return text


def _inline(text: str, tag: str) -> str:
    """The text, checked to hold nothing that would end its element early or change how it is read."""
    for mark in (f"</{tag}", "<!--", "<script"):
        if mark in text.lower():
            raise ValueError(f"the viewer's {tag} holds {mark}, which an HTML page cannot inline")
    return text


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def page_html(payload: dict[str, Any]) -> str:
    """The page for a payload of :func:`~eqbench_nb.viewer.payload.viewer_payload`."""
    script = _inline(viewer_script() + BOOT, "script")
    style = _inline(viewer_style(), "style")
    policy = f"default-src 'none'; script-src '{_sha256(script)}'; style-src '{_sha256(style)}'; img-src data:"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>eqbench_nb viewer</title>\n"
        f"<style>{style}</style>\n</head>\n<body>\n"
        '<div id="eqv-root"><noscript>This page draws the run with JavaScript: allow it for this file.'
        "</noscript></div>\n"
        f'<script type="application/json" id="eqv-data">{embed_json(payload)}</script>\n'
        f'<script type="module">{script}</script>\n'
        "</body>\n</html>\n"
    )


def write_page(runs: Sequence[Any], out: str | os.PathLike, prices: Prices | None = None) -> Path:
    """Write the page for one run, or two side by side, to ``out`` (replaced whole, never half-written); ``prices``
    as :func:`~eqbench_nb.viewer.payload.viewer_payload` takes them."""
    html = page_html(viewer_payload(runs, prices))
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=target.parent, delete=False, suffix=".tmp") as tmp:
        tmp.write(html)
    os.chmod(tmp.name, 0o644)  # a page to open and share, not a secret (the temporary file was made 0600)
    os.replace(tmp.name, target)
    return target
