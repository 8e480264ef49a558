"""Arguments a probe sends, built from a tool's own input schema: an ordinary call's harmless values, and the
parameter names that say a tool takes a path, a program or a delay."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .target import Target

PATH_PARAMS = ("path", "file", "filename", "filepath", "file_path", "relative_path", "repo_path", "dir", "directory", "folder",
               "root", "destination", "target_path", "source_path")
"""Parameter names that take a file-system path."""
PROGRAM_PARAMS = ("program", "command", "cmd", "executable", "binary")
ARGS_PARAMS = ("args", "arguments", "argv")
DELAY_WORDS = ("second", "delay", "sleep", "wait", "duration")
"""Words in a numeric parameter's name that make it a delay: filled at its minimum."""


def properties(tool: dict[str, Any]) -> dict[str, dict[str, Any]]:
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    return {k: v for k, v in props.items() if isinstance(v, dict)} if isinstance(props, dict) else {}


def schema_type(schema: dict[str, Any]) -> Any:
    """The schema's type; for a list such as ``["null", "string"]``, the first that is not null."""
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    return kind


def fill_value(schema: dict[str, Any]) -> Any:
    """A harmless valid value for one property schema: its default, enum or const, else the smallest allowed."""
    if "default" in schema:
        return schema["default"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema_type(schema)
    if kind in ("integer", "number"):
        if "minimum" in schema and isinstance(schema["minimum"], (int, float)):
            return math.ceil(schema["minimum"]) if kind == "integer" else schema["minimum"]
        low = schema.get("exclusiveMinimum")
        return math.floor(low) + 1 if isinstance(low, (int, float)) else 1
    if kind == "string":
        return _fill_string(schema)
    if kind == "array":
        return [fill_value(schema.get("items") or {}) for _ in range(int(schema.get("minItems", 0)))]
    if kind == "object":
        props = schema.get("properties")
        props = props if isinstance(props, dict) else {}
        return {name: fill_value(props.get(name) or {}) for name in schema.get("required") or () if isinstance(name, str)}
    return {"boolean": False, "null": None}.get(kind, "x")


STRING_CANDIDATES = ("x", "a", "1", "1.0.0", "2026-01-01", "example", "A", "a-1", "x.txt")
"""Ordinary strings tried, in order, against a ``pattern`` (the first that matches and fits the length wins)."""


def _fill_string(schema: dict[str, Any]) -> str:
    low, high = int(schema.get("minLength", 1) or 0), schema.get("maxLength")
    pattern = schema.get("pattern")
    for candidate in STRING_CANDIDATES:
        text = candidate * max(1, -(-low // len(candidate)))
        if isinstance(high, int) and len(text) > high:
            continue
        try:
            if not isinstance(pattern, str) or re.search(pattern, text):
                return text
        except re.error:
            return text
    return "x" * max(1, low)


def fill_arguments(tool: dict[str, Any], named: dict[str, Any] | None = None, /, *, skip: str | None = None,
                   **overrides: Any) -> dict[str, Any]:
    """Arguments for an ordinary call: required fields filled, delays at their minimum, then ``overrides``. Overrides
    whose names are computed come as ``named``: a parameter may be called ``skip``."""
    overrides = {**(named or {}), **overrides}
    schema = tool.get("inputSchema") or {}
    props = properties(tool)
    required = [n for n in schema.get("required") or () if isinstance(n, str)]
    args = {name: fill_value(props.get(name) or {}) for name in required if name not in overrides and name != skip}
    for name, prop in props.items():
        if name not in overrides and name != skip and schema_type(prop) in ("integer", "number") and any(
                w in name.lower() for w in DELAY_WORDS):
            args[name] = prop.get("minimum", 0)
    args.update(overrides)
    return args


def string_params(tool: dict[str, Any], names: Iterable[str]) -> list[str]:
    """The tool's string parameters whose names are in ``names``."""
    wanted = set(names)
    return [k for k, v in properties(tool).items() if k in wanted and schema_type(v) == "string"]


def callable_tools(target: Target, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools the target allows the probe to call with arguments of its choosing."""
    return [t for t in tools if isinstance(t.get("name"), str) and target.may_call(t)]
