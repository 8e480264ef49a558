"""TOOL-001: every ``inputSchema`` is closed and fully typed.

The schema is the only description of the arguments the model sees and the only thing the server can
validate against: an open root accepts invented keys the handler ignores, and an untyped property or a
bare object accepts anything. The probe reads the listing and, for each tool, checks the root type,
``additionalProperties``/``unevaluatedProperties``, ``required``, and every property at every depth
(local ``$ref``s followed).
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import Finding, Target, compact, tool_name
from ..judging import Problem, judge_each_tool
from ..schemas import branches, closed, declared, resolve, types, walk_properties

REASONS = {
    "schema_not_object": "an inputSchema is not a JSON Schema object, or its root type is not \"object\"",
    "schema_open": "an inputSchema's root is not closed (additionalProperties or unevaluatedProperties false)",
    "required_undeclared": "`required` names a property the schema does not declare",
    "property_untyped": "a property has no type, enum or const, so any value is accepted",
    "bare_object": "an object property has neither declared properties nor a typed additionalProperties",
    "nested_object_open": "a nested object declares properties but is not closed",
    "array_untyped": "an array property has missing or untyped items",
}


def _typed(schema: Any, root: dict[str, Any]) -> bool:
    schema = resolve(schema, root)
    if not isinstance(schema, dict):
        return False  # `true` / `{}`-like booleans accept anything
    if types(schema) or "enum" in schema or "const" in schema:
        return True
    alternatives = branches(schema)
    return bool(alternatives) and all(_typed(b, root) for b in alternatives)


def _object_problems(schema: dict[str, Any], root: dict[str, Any], where: str) -> list[Problem]:
    """A nested object must be closed with declared properties, or be a typed map."""
    extra = schema.get("additionalProperties")
    if declared(schema):
        return [] if closed(schema) else [
            ("nested_object_open", f"{where}: object with properties but without additionalProperties: false")]
    if isinstance(extra, dict) and _typed(extra, root):
        return []  # a typed map: {"type": "object", "additionalProperties": {"type": "string"}}
    return [("bare_object",
             f"{where}: bare object (no properties, no typed additionalProperties): it accepts anything")]


def _problems(tool: dict[str, Any]) -> list[Problem]:
    schema = tool.get("inputSchema")
    where = f"{tool_name(tool)}.inputSchema"
    if not isinstance(schema, dict):
        return [("schema_not_object", f"{where}: is {compact(schema, 60)}, not a JSON Schema object")]
    problems: list[Problem] = []
    if schema.get("type") != "object":
        problems.append(("schema_not_object",
                         f"{where}.type: is {compact(schema.get('type'), 40)}, must be \"object\""))
    if not closed(schema):
        shown = compact(schema.get("additionalProperties", "(absent)"), 40)
        problems.append(("schema_open", f"{where}.additionalProperties: is {shown}, not false: unknown (hallucinated) "
                                        "keys are accepted"))
    props = declared(schema)
    required = schema.get("required") or []
    for key in required if isinstance(required, list) else []:
        if key not in props:
            problems.append(("required_undeclared",
                             f"{where}.required: names {key!r}, which is not a declared property"))
    for path, _prop, sub in walk_properties(schema, schema, where):
        if not _typed(sub, schema):
            problems.append(("property_untyped", f"{path}: has no type (nor enum/const): any value is accepted"))
            continue
        kinds = types(sub) if isinstance(sub, dict) else set()
        if "object" in kinds:
            problems.extend(_object_problems(sub, schema, path))
        if "array" in kinds:
            items = sub.get("items")
            if items is None or not _typed(items, schema):
                problems.append(("array_untyped", f"{path}.items: missing or untyped: an array of anything"))
            else:
                resolved = resolve(items, schema)
                if isinstance(resolved, dict) and "object" in types(resolved):
                    problems.extend(_object_problems(resolved, schema, f"{path}.items"))
    return problems


@probe("input_schema_closed",
       "every inputSchema is type object, closed with additionalProperties false, and fully typed", over_http=True, reasons=REASONS,
       shares_session=True)
def input_schema_closed(target: Target) -> Finding:
    """Every inputSchema: root type object, additionalProperties false, every property typed, no bare objects."""
    return judge_each_tool(target, _problems, reasons=REASONS,
                           kept="declare a closed, typed inputSchema",
                           broken="declare an open or untyped inputSchema")
