"""Reading the JSON object out of a judge's reply, as each scoring version's upstream code reads it.

``8c3a125`` (``utils/utils.py`` ``robust_json_loads`` and its callers in ``core/conversation.py`` and
``core/pairwise_judging.py``): the text from the first ``{`` to the last ``}`` is decoded; if that fails, once
more with every line break inside a string replaced by ``\\n``. The pairwise judge falls back to a fenced
```` ```json {...} ``` ```` block and then to the whole text only when the reply has no ``{...}`` span at all; a
span that does not decode is a judge error ("API call failed: <the decoder's message>", since upstream's handler
for the request catches it), as in the 90 errors of the first canonical file.

``3c21bcc`` (the same functions at HEAD): with more than one ```` ```json ```` fence only the text after the last
is kept; lines starting with a fence are dropped; the first balanced ``{...}`` (braces inside strings ignored) is
decoded; if that fails, line breaks inside strings are escaped and a ``"`` inside a string that is not followed
(after spaces) by ``,`` ``}`` ``]`` or ``:`` is escaped, and it is decoded once more.

Both raise :class:`JudgeJSONError` (a ValueError) where upstream raised; nothing here is lenient beyond upstream.
"""

from __future__ import annotations

import json
import re
from typing import Any


class JudgeJSONError(ValueError):
    """The reply holds no object that decodes (the message is the decoder's, as upstream recorded it)."""


def _decode(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JudgeJSONError(str(exc)) from None
    except (ValueError, RecursionError) as exc:  # a number of over 4,300 digits, nesting too deep
        raise JudgeJSONError(f"{type(exc).__name__}: {exc}") from None


def _escape_line_breaks(text: str) -> str:
    """Line breaks inside JSON strings written as ``\\n`` (8c3a125: ``\\n`` and ``\\r``; HEAD the same)."""
    out: list[str] = []
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            elif ch in "\n\r":
                ch = "\\n"
        elif ch == '"':
            in_string = True
        out.append(ch)
    return "".join(out)


def loads_8c3a125(text: str) -> Any:
    """``robust_json_loads`` at 8c3a125: decode, else decode with line breaks in strings escaped."""
    try:
        return _decode(text)
    except JudgeJSONError:
        return _decode(_escape_line_breaks(text))


def _first_balanced_object(text: str) -> str | None:
    in_string = escaped = False
    depth, start = 0, None
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and start is not None:
                return text[start : i + 1]
    return None


def _escape_inner_quotes(text: str) -> str:
    out: list[str] = []
    in_string = escaped = False
    n = len(text)
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                j = i + 1
                while j < n and text[j].isspace():
                    j += 1
                if j < n and text[j] not in ",}]:":
                    out.append("\\")
                else:
                    in_string = False
        elif ch == '"':
            in_string = True
        out.append(ch)
    return "".join(out)


def loads_3c21bcc(raw: str) -> Any:
    """``robust_json_loads`` at HEAD (module docstring)."""
    if raw.count("```json") > 1:
        raw = raw[raw.rfind("```json") + len("```json") :]
    cleaned = "\n".join(line for line in raw.splitlines() if not line.lstrip().startswith("```")).strip()
    found = _first_balanced_object(cleaned)
    if found is None:
        raise JudgeJSONError("No balanced JSON object found: line 1 column 1 (char 0)")
    try:
        return _decode(found)
    except JudgeJSONError:
        return _decode(_escape_inner_quotes(_escape_line_breaks(found)))


_FENCED = re.compile(r"```json\s*(\{.*?\})\s*```", re.DOTALL)


def pairwise_object(text: str, version: str) -> dict[str, Any]:
    """The pairwise judge's verdict object as ``do_pairwise_judge`` at ``version`` obtains it; raises
    :class:`JudgeJSONError` with upstream's error text where upstream recorded an error."""
    if version == "8c3a125":
        start, end = text.find("{"), text.rfind("}")
        if start != -1 and end != -1 and end > start:
            result = loads_8c3a125(text[start : end + 1])  # raises: no fallback once a span is there
            if isinstance(result, dict):
                return result
        fenced = _FENCED.search(text)
        if fenced:
            result = loads_8c3a125(fenced.group(1))
            if isinstance(result, dict):
                return result
        result = loads_8c3a125(text)
        if isinstance(result, dict):
            return result
        raise JudgeJSONError("No valid JSON block found")
    result = loads_3c21bcc(text)
    if isinstance(result, dict) and result:
        return result
    raise JudgeJSONError("No valid JSON block found")


def rubric_object(text: str, version: str) -> dict[str, Any]:
    """The rubric judge's object as ``_parse_rubric_scores`` at ``version`` obtains it (raises where it gave None)."""
    if version == "8c3a125":
        start, end = text.find("{"), text.rfind("}")
        if start == -1 or end == -1 or start > end:
            raise JudgeJSONError("No valid JSON object found")
        result = loads_8c3a125(text[start : end + 1].strip())
    else:
        result = loads_3c21bcc(text)
    if not isinstance(result, dict):
        raise JudgeJSONError("the JSON is not an object")
    if not result and version != "8c3a125":
        raise JudgeJSONError("the JSON object is empty")
    return result
