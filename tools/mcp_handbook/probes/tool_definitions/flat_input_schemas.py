"""TOOL-012: arguments nest objects at most one level deep.

The handbook's advice, from practice: models fill flat argument lists reliably, and each level of nesting
adds places to put a value in the wrong object, forget a required key or invent a wrapper. The probe
measures, for every top-level property of every listed ``inputSchema``, how many levels of objects it can
hold (array items count as their element; map values, ``anyOf`` branches and local ``$ref``s are followed).
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import Finding, Target, tool_name
from ..judging import Problem, judge_each_tool
from ..schemas import branches, declared, input_schema, resolve, types

REASONS = {
    "objects_nested_deep": "an argument nests objects two or more levels deep",
}
MAX_OBJECT_NESTING = 1


def _nesting(schema: Any, root: dict[str, Any], seen: int = 0) -> int:
    """Levels of objects below the root an argument can hold (array items count as their element)."""
    schema = resolve(schema, root)
    if not isinstance(schema, dict) or seen > 8:
        return 0
    deepest = 0
    for sub in [*declared(schema).values(), *branches(schema)]:
        deepest = max(deepest, _nesting(sub, root, seen + 1))
    items = schema.get("items")
    if isinstance(items, dict):
        deepest = max(deepest, _nesting(items, root, seen + 1))
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        deepest = max(deepest, _nesting(extra, root, seen + 1))
    is_object = "object" in types(schema) or bool(declared(schema))
    return deepest + (1 if is_object and seen else 0)


def _problems(tool: dict[str, Any]) -> list[Problem]:
    schema = input_schema(tool)
    where = f"{tool_name(tool)}.inputSchema"
    problems: list[Problem] = []
    for name, sub in declared(schema).items():
        depth = _nesting(sub, schema, 1)
        if depth > MAX_OBJECT_NESTING:
            problems.append(("objects_nested_deep", f"{where}.properties.{name}: objects nested {depth} levels deep; "
                                                    f"flatten to at most {MAX_OBJECT_NESTING}"))
    return problems


@probe("flat_input_schemas", "arguments nest objects at most one level deep", over_http=True, reasons=REASONS,
       shares_session=True)
def flat_input_schemas(target: Target) -> Finding:
    """No argument nests objects more than one level deep."""
    return judge_each_tool(target, _problems, reasons=REASONS,
                           kept="take flat arguments (objects nested at most one level)",
                           broken="nest objects two or more levels deep in their arguments")
