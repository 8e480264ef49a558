"""TOOL-015: no ``anyOf``, ``oneOf`` or ``allOf`` at the root of an ``inputSchema``.

Hosts hand a tool's ``inputSchema`` to a model provider's tool API, and not every API takes every JSON Schema. The
Anthropic Messages API refuses a tool whose ``input_schema`` has ``oneOf``, ``allOf`` or ``anyOf`` at the top level
(400 ``input_schema does not support oneOf, allOf, or anyOf at the top level``), and it refuses the whole request,
so one such tool makes every tool of every connected server unusable in that host. The probe reads each listed
tool's ``inputSchema`` root and names each of the three keywords it holds. Nested combinators (inside a property)
are not judged: the refusal quoted above is about the root only, and that is all this rule claims.
"""

from __future__ import annotations

from typing import Any

from ..judging import Problem, judge_each_tool
from ..registry import probe
from ..schemas import input_schema
from ..support import Finding, Target, compact, tool_name

REASONS = {
    "root_combinator": "an inputSchema has anyOf, oneOf or allOf at its root, which some model APIs refuse",
}
ROOT_COMBINATORS = ("anyOf", "oneOf", "allOf")


def _problems(tool: dict[str, Any]) -> list[Problem]:
    schema = input_schema(tool)
    return [("root_combinator", f"{tool_name(tool)}.inputSchema.{key}: {compact(schema[key], 120)} at the root; "
                                "express the constraint inside the properties, or check it in the handler")
            for key in ROOT_COMBINATORS if key in schema]


@probe("portable_input_schemas", "no anyOf, oneOf or allOf at the root of an inputSchema", reasons=REASONS,
       over_http=True, shares_session=True)
def portable_input_schemas(target: Target) -> Finding:
    """Every listed tool's inputSchema root: none of anyOf, oneOf, allOf."""
    return judge_each_tool(target, _problems, reasons=REASONS, kept="have no combinator at the root of inputSchema",
                           broken="have anyOf, oneOf or allOf at the root of inputSchema")
