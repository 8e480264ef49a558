"""TOOL-010: tool objects carry only the fields the protocol defines.

Clients build their tool list from the fields of ``Tool`` and ``ToolAnnotations`` in the schema and drop
the rest, so an invented top-level ``idempotent`` or vendor key silently never reaches the model or the
user. The probe names each unknown field and where its information belongs instead.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import Finding, Target, tool_name
from ._common import HINTS
from ..judging import Problem, judge_each_tool

REASONS = {
    "unknown_tool_field": "a tool carries a top-level field that Tool does not define",
    "unknown_annotation_field": "a tool's annotations carry a field that ToolAnnotations does not define",
}
TOOL_FIELDS = frozenset({"name", "title", "description", "inputSchema", "outputSchema", "annotations", "icons",
                         "execution", "_meta"})
"""Tool in schema/2025-11-25/schema.ts (execution is 2025-11-25 only; 2026-07-28 dropped it)."""
ANNOTATION_FIELDS = frozenset({"title", *HINTS})
_WHERE_IT_GOES = {
    "idempotent": "annotations.idempotentHint", "idempotency": "annotations.idempotentHint",
    "readonly": "annotations.readOnlyHint", "read_only": "annotations.readOnlyHint",
    "destructive": "annotations.destructiveHint", "openworld": "annotations.openWorldHint",
    "input_schema": "inputSchema", "parameters": "inputSchema", "output_schema": "outputSchema",
}


def _problems(tool: dict[str, Any]) -> list[Problem]:
    name = tool_name(tool)
    problems: list[Problem] = []
    for key in sorted(set(tool) - TOOL_FIELDS):
        goes = _WHERE_IT_GOES.get(key.lower().replace("-", "_"), "_meta (under a reverse-DNS prefix)")
        problems.append(("unknown_tool_field",
                         f"{name}.{key}: not a Tool field in the protocol; clients drop it. Use {goes}"))
    ann = tool.get("annotations")
    if isinstance(ann, dict):
        for key in sorted(set(ann) - ANNOTATION_FIELDS):
            goes = _WHERE_IT_GOES.get(key.lower().replace("-", "_"), "_meta on the tool")
            problems.append(("unknown_annotation_field",
                             f"{name}.annotations.{key}: not a ToolAnnotations field; use {goes}"))
    return problems


@probe("tool_fields_known", "tool objects carry only fields the protocol defines", over_http=True, reasons=REASONS,
       shares_session=True)
def tool_fields_known(target: Target) -> Finding:
    """Tool objects and their annotations carry only the fields the protocol defines."""
    return judge_each_tool(target, _problems, reasons=REASONS,
                           kept="carry only fields the protocol defines",
                           broken="carry fields the protocol does not define")
