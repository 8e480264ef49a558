"""TOOL-016: every ``$ref`` in a tool's schemas points inside the schema itself.

The 2026-07-28 revision (*Overview*, ``$ref`` resolution) forbids clients to fetch a ``$ref`` that resolves to a
network URI by default, and says a schema that fails to validate for want of such a reference should be rejected.
A tool whose ``inputSchema`` or ``outputSchema`` leans on ``https://example.com/schemas/x.json`` or on a relative
file name therefore cannot be checked by a conforming client, and a client that does fetch it makes a request to
wherever the server pointed it. The probe walks both schemas of every listed tool and names each ``$ref`` and
``$dynamicRef`` whose value does not start with ``#`` (a fragment of the same schema). An ``$id`` does not change the
verdict: a ``$ref`` that starts with ``#`` resolves within the schema resource it sits in.
"""

from __future__ import annotations

from typing import Any

from ..judging import Problem, judge_each_tool
from ..registry import probe
from ..support import Finding, Target, tool_name

REASONS = {
    "external_ref": "a tool's schema has a $ref that points outside the schema (a URL or another file)",
}
REF_KEYWORDS = ("$ref", "$dynamicRef")
MAX_DEPTH = 32
"""How deep the walk goes; deeper parts of a schema are not read (no legitimate tool schema is that deep)."""


NAME_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
"""Keywords whose value maps names to schemas: a property called ``default`` there is a schema, not data."""
DATA_KEYWORDS = ("const", "default", "examples", "enum")
"""Keywords whose value is data, not schema: a ``$ref`` inside one is not a reference."""


def outside_refs(value: Any, where: str, depth: int = 0, *, names: bool = False) -> list[tuple[str, str]]:
    """``(JSON path, reference)`` for every reference keyword in ``value`` whose target is not a fragment (``#...``).
    ``names``: ``value`` maps names to schemas (the value of ``properties``, ``$defs``, ...)."""
    if depth > MAX_DEPTH:
        return []
    found: list[tuple[str, str]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if names:
                found += outside_refs(item, f"{where}.{key}", depth + 1)
            elif key in REF_KEYWORDS and isinstance(item, str) and not item.startswith("#"):
                found.append((f"{where}.{key}", item))
            elif key not in DATA_KEYWORDS:
                found += outside_refs(item, f"{where}.{key}", depth + 1, names=key in NAME_MAPS)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += outside_refs(item, f"{where}[{i}]", depth + 1)
    return found


def _problems(tool: dict[str, Any]) -> list[Problem]:
    name = tool_name(tool)
    return [("external_ref", f"{where}: {ref[:160]!r} is outside the schema; copy the definition into $defs and "
                             f"point at it with \"#/$defs/...\"")
            for field in ("inputSchema", "outputSchema") for where, ref in outside_refs(tool.get(field), f"{name}.{field}")]


@probe("self_contained_schemas", "every $ref in a tool's schemas points inside the schema", reasons=REASONS,
       over_http=True, shares_session=True)
def self_contained_schemas(target: Target) -> Finding:
    """Both schemas of every listed tool: no $ref or $dynamicRef to a URL or another file."""
    return judge_each_tool(target, _problems, reasons=REASONS, kept="have schemas whose references all stay inside",
                           broken="have a $ref that points outside the schema")
