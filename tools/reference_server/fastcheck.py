"""A compiled fast-accept predicate for simple JSON Schemas.

Why: ``jsonschema`` costs ~50 us per call for a two-field schema and ~0.1 s to
import, which dominates a lean stdio loop. For schemas built only from the
keywords below, :func:`compile_schema` returns a predicate that answers True
only when the instance is certainly valid; anything else (False, or a schema
with other keywords, for which it returns None) falls back to jsonschema,
which stays the authority and writes the error messages.
"""
from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any
_ANNOTATIONS = frozenset({"description", "title", "examples", "default", "format", "$comment",
                          "deprecated", "readOnly", "writeOnly", "$schema"})
_SUPPORTED = _ANNOTATIONS | {"type", "properties", "required", "additionalProperties", "enum", "maxLength",
                             "minLength", "minimum", "maximum", "maxItems", "minItems", "items", "pattern"}


_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: type(v) is str,
    "integer": lambda v: type(v) is int or (type(v) is float and v.is_integer()),
    "number": lambda v: type(v) is int or type(v) is float,
    "boolean": lambda v: type(v) is bool,
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
    "null": lambda v: v is None,
}


def _all_of(checks: list[Callable[[Any], bool]]) -> Callable[[Any], bool]:
    if not checks:
        return lambda _value: True
    if len(checks) == 1:
        return checks[0]

    def run(value: Any) -> bool:
        for check in checks:
            if not check(value):
                return False
        return True

    return run


def compile_schema(schema: Any) -> Callable[[Any], bool] | None:
    """Return a sound fast-accept predicate, or None if the schema uses unsupported keywords."""
    if schema is True:
        return lambda _value: True
    if not isinstance(schema, dict) or not set(schema) <= _SUPPORTED:
        return None
    checks: list[Callable[[Any], bool]] = []
    if "type" in schema:
        if not isinstance(schema["type"], str) or schema["type"] not in _TYPE_CHECKS:
            return None
        checks.append(_TYPE_CHECKS[schema["type"]])
    if "enum" in schema:
        allowed = schema["enum"]
        if not all(isinstance(a, str) for a in allowed):
            return None  # 1 == 1.0 == True subtleties: leave to jsonschema
        checks.append(lambda v: type(v) is str and v in allowed)
    for key, test in (("maxLength", lambda v, n: type(v) is not str or len(v) <= n),
                      ("minLength", lambda v, n: type(v) is not str or len(v) >= n),
                      ("maxItems", lambda v, n: type(v) is not list or len(v) <= n),
                      ("minItems", lambda v, n: type(v) is not list or len(v) >= n)):
        if key in schema:
            checks.append(lambda v, n=schema[key], t=test: t(v, n))
    for key, test in (("maximum", lambda v, n: v <= n), ("minimum", lambda v, n: v >= n)):
        if key in schema:
            checks.append(lambda v, n=schema[key], t=test: type(v) not in (int, float) or t(v, n))
    if "pattern" in schema:
        rx = re.compile(schema["pattern"])
        checks.append(lambda v: type(v) is not str or rx.search(v) is not None)
    if "items" in schema:
        item = compile_schema(schema["items"])
        if item is None:
            return None
        checks.append(lambda v: type(v) is not list or all(item(x) for x in v))
    props = schema.get("properties", {})
    compiled = {name: compile_schema(sub) for name, sub in props.items()}
    if any(c is None for c in compiled.values()):
        return None
    required = tuple(schema.get("required", ()))
    closed = schema.get("additionalProperties", True)
    if closed not in (True, False):
        return None

    def check_object(v: Any) -> bool:
        if type(v) is not dict:
            return True
        for name in required:
            if name not in v:
                return False
        for name, value in v.items():
            sub = compiled.get(name)
            if sub is None:
                if closed is False:
                    return False
            elif not sub(value):
                return False
        return True

    if props or required or closed is False:
        checks.append(check_object)
    return _all_of(checks)
