"""JSON from a source the toolchain does not control (a server's stdout, an HTTP reply, a worksheet someone filled),
parsed so that no document can take the reader down.

Python's ``json`` recurses once per level of nesting: a line of 200,000 ``[`` raises :class:`RecursionError`, which
``except ValueError`` does not catch and which ends the thread it is raised in. :func:`loads` turns any document
nested deeper than :data:`MAX_DEPTH` into :class:`TooDeep`, a :class:`ValueError` that names the limit, so every
caller that already handles "not JSON" handles "too deep" too, and nothing that walks the value later (a probe, a
schema validator) meets a depth Python cannot follow.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 256
"""Deepest nesting of arrays and objects read (a top-level object is depth 1). Honest MCP messages stay far below it
(a tool schema is rarely ten deep); serde_json refuses past 128, Python's own parser near 1,000."""


class TooDeep(ValueError):
    """A JSON document nested more than :data:`MAX_DEPTH` deep."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"JSON nested more than {limit:,} levels deep")
        self.limit = limit


def _openers(data: str | bytes | bytearray) -> int:
    """How many ``[`` and ``{`` the text holds (in strings too): no document is deeper than this."""
    if isinstance(data, str):
        return data.count("[") + data.count("{")
    return data.count(b"[") + data.count(b"{")


def depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` (parsed JSON) nests arrays and objects more than ``limit`` deep; iterative, so any depth."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


def loads(data: str | bytes | bytearray, *, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` that raises :class:`TooDeep` (a ValueError) for a document nested more than ``max_depth`` deep,
    and ValueError for anything that is not JSON; never RecursionError."""
    try:
        value = json.loads(data)
    except RecursionError:
        raise TooDeep(max_depth) from None
    if _openers(data) > max_depth and depth_exceeds(value, max_depth):
        raise TooDeep(max_depth)
    return value
