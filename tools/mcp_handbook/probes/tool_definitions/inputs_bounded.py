"""TOOL-003: every string, number, array and open object in an ``inputSchema`` is bounded.

A bound the model can read keeps it from sending a megabyte string, a count of a billion or ten thousand
paths, and lets the server refuse such a call before any work starts. The probe walks every property of
every listed ``inputSchema`` at every depth (array items, map values and ``anyOf`` branches included,
local ``$ref``s followed) and names each unbounded one.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import Finding, Target, tool_name
from ..judging import Problem, judge_each_tool
from ..schemas import branches, declared, input_schema, resolve, types

REASONS = {
    "string_unbounded": "a string input has no maxLength (nor enum/const)",
    "number_unbounded": "a number or integer input lacks a minimum or a maximum",
    "array_unbounded": "an array input has no maxItems",
    "object_unbounded": "an object open to any keys, or a map, has no maxProperties",
    "input_untyped": "an input has no type, so nothing bounds it",
}


def _bound_problems_of(schema: Any, root: dict[str, Any], where: str, depth: int = 0) -> list[Problem]:
    schema = resolve(schema, root)
    if not isinstance(schema, dict) or depth > 8:
        return [("input_untyped", f"{where}: untyped, so nothing bounds it")] if not isinstance(schema, dict) else []
    if "enum" in schema or "const" in schema:
        return []
    alternatives = branches(schema)
    kinds = types(schema)
    if alternatives and not kinds:
        return [p for i, b in enumerate(alternatives)
                for p in _bound_problems_of(b, root, f"{where}.anyOf[{i}]", depth + 1)]
    if not kinds:
        return [("input_untyped", f"{where}: untyped, so nothing bounds it")]
    problems: list[Problem] = []
    if "string" in kinds and "maxLength" not in schema:
        problems.append(("string_unbounded", f"{where}: string without maxLength (or enum/const)"))
    numeric = "/".join(sorted(kinds & {"integer", "number"}))
    if numeric:
        if "maximum" not in schema and "exclusiveMaximum" not in schema:
            problems.append(("number_unbounded", f"{where}: {numeric} without maximum"))
        if "minimum" not in schema and "exclusiveMinimum" not in schema:
            problems.append(("number_unbounded", f"{where}: {numeric} without minimum"))
    if "array" in kinds:
        if "maxItems" not in schema:
            problems.append(("array_unbounded", f"{where}: array without maxItems"))
        if "items" in schema:
            problems.extend(_bound_problems_of(schema["items"], root, f"{where}.items", depth + 1))
    if "object" in kinds:
        for name, sub in declared(schema).items():
            problems.extend(_bound_problems_of(sub, root, f"{where}.properties.{name}", depth + 1))
        extra = schema.get("additionalProperties", True)
        if extra is not False and schema.get("unevaluatedProperties") is not False and "maxProperties" not in schema:
            kind = "map (additionalProperties schema)" if isinstance(extra, dict) else "object open to any keys"
            problems.append(("object_unbounded", f"{where}: {kind} without maxProperties"))
        if isinstance(extra, dict):
            problems.extend(_bound_problems_of(extra, root, f"{where}.additionalProperties", depth + 1))
    return problems


def _problems(tool: dict[str, Any]) -> list[Problem]:
    schema = input_schema(tool)
    where = f"{tool_name(tool)}.inputSchema"
    return [p for name, sub in declared(schema).items()
            for p in _bound_problems_of(sub, schema, f"{where}.properties.{name}")]


@probe("inputs_bounded", "strings, numbers and arrays in every inputSchema are bounded", over_http=True, reasons=REASONS,
       shares_session=True)
def inputs_bounded(target: Target) -> Finding:
    """Strings have maxLength (or enum), numbers minimum and maximum, arrays maxItems, at every depth."""
    return judge_each_tool(target, _problems, reasons=REASONS,
                           kept="bound every string, number and array input",
                           broken="accept unbounded inputs")
