"""TOOL-013: every ``inputSchema`` is a JSON Schema object whose root ``type`` is ``"object"``.

The specification's schema types ``Tool.inputSchema`` with ``type: "object"`` and its prose says the schema
MUST be a valid JSON Schema object, never null: tool arguments are a JSON object, so a client that builds
them from a schema without that root type (or from no schema at all) has nothing sound to build from.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import Finding, Target, tool_name
from ..judging import Problem, judge_each_tool

REASONS = {
    "schema_missing": "a tool has no inputSchema, or one that is not a JSON object",
    "root_type_not_object": "an inputSchema's root type is missing or is not \"object\"",
}


def _problems(tool: dict[str, Any]) -> list[Problem]:
    name, schema = tool_name(tool), tool.get("inputSchema")
    if not isinstance(schema, dict):
        return [("schema_missing", f"{name}.inputSchema: {'missing' if schema is None else type(schema).__name__}, not an object")]
    if schema.get("type") != "object":
        return [("root_type_not_object", f"{name}.inputSchema.type: {schema.get('type', 'missing')!r}, not \"object\"")]
    return []


@probe("input_schema_object", "every inputSchema is a JSON Schema object with root type \"object\"", over_http=True, reasons=REASONS,
       shares_session=True)
def input_schema_object(target: Target) -> Finding:
    """Every listed tool's inputSchema is an object whose root type is "object"."""
    return judge_each_tool(target, _problems, reasons=REASONS, kept="declare an object inputSchema with root type \"object\"",
                           broken="lack an object inputSchema with root type \"object\"")
