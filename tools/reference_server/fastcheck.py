"""A compiled fast-accept predicate for simple JSON Schemas.

Why: ``jsonschema`` costs ~50 us per call for a two-field schema and ~0.1 s to
import, which dominates a lean stdio loop. For schemas built only from the
keywords below, :func:`compile_schema` returns a predicate that answers True
only when the instance is certainly valid; anything else (False, or a schema
with other keywords, for which it returns None) falls back to jsonschema,
which stays the authority and writes the error messages.

The predicate is one generated Python function (straight-line checks, no
closures calling closures): about 0.5 us for a one-field schema, where a
chain of small lambdas took 2 us. ``tests/reference_server/test_seams.py``
checks with hypothesis that it never accepts what jsonschema rejects.
"""
from __future__ import annotations

import math
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any
_ANNOTATIONS = frozenset({"description", "title", "examples", "default", "format", "$comment",
                          "deprecated", "readOnly", "writeOnly", "$schema"})
_SUPPORTED = _ANNOTATIONS | {"type", "properties", "required", "additionalProperties", "enum", "maxLength",
                             "minLength", "minimum", "maximum", "maxItems", "minItems", "items", "pattern"}

_TYPE_TESTS = {  # a Python expression that is true when {v} has the JSON type (bool is not a number)
    "string": "type({v}) is str",
    "integer": "(type({v}) is int or (type({v}) is float and {v}.is_integer()))",
    "number": "(type({v}) is int or type({v}) is float)",
    "boolean": "type({v}) is bool",
    "object": "type({v}) is dict",
    "array": "type({v}) is list",
    "null": "{v} is None",
}


class _Unsupported(Exception):
    """The schema uses something the generator does not translate: use jsonschema alone."""


class _Writer:
    """Emits the body of the predicate: each check returns False when it fails."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.constants: dict[str, Any] = {}
        self._names = 0

    def name(self, prefix: str) -> str:
        self._names += 1
        return f"{prefix}{self._names}"

    def constant(self, value: Any) -> str:
        name = self.name("c")
        self.constants[name] = value
        return name

    def fail_if(self, condition: str, depth: int) -> None:
        self.lines.append(f"{'    ' * depth}if {condition}: return False")

    def schema(self, schema: Any, v: str, depth: int) -> None:
        """Checks that ``v`` satisfies ``schema``."""
        if schema is True or schema == {}:
            return
        if not isinstance(schema, dict) or not set(schema) <= _SUPPORTED:
            raise _Unsupported
        kind = schema.get("type")
        if kind is not None:
            if not isinstance(kind, str) or kind not in _TYPE_TESTS:
                raise _Unsupported
            self.fail_if("not " + _TYPE_TESTS[kind].format(v=v), depth)
        if "enum" in schema:
            allowed = schema["enum"]
            if not isinstance(allowed, list) or not all(isinstance(a, str) for a in allowed):
                raise _Unsupported  # 1 == 1.0 == True subtleties: leave to jsonschema
            self.fail_if(f"type({v}) is not str or {v} not in {self.constant(frozenset(allowed))}", depth)
        def when(applies: str) -> str:  # the keyword applies to one JSON type only; no test once "type" said so
            return "" if kind == applies else _TYPE_TESTS[applies].format(v=v) + " and "

        for key, op, applies in (("maxLength", ">", "string"), ("minLength", "<", "string"),
                                 ("maxItems", ">", "array"), ("minItems", "<", "array")):
            if key in schema:
                bound = schema[key]
                if type(bound) is not int:
                    raise _Unsupported
                self.fail_if(f"{when(applies)}len({v}) {op} {bound}", depth)
        for key, op in (("maximum", ">"), ("minimum", "<")):
            if key in schema:
                bound = schema[key]
                if type(bound) not in (int, float) or not math.isfinite(bound):
                    raise _Unsupported
                self.fail_if(f"{when('number')}{v} {op} {bound!r}", depth)
        if "pattern" in schema:
            if not isinstance(schema["pattern"], str):
                raise _Unsupported
            rx = self.constant(re.compile(schema["pattern"]).search)
            self.fail_if(f"{when('string')}{rx}({v}) is None", depth)
        if "items" in schema:
            item = self.name("i")
            pad = "    " * depth
            self.lines.append(f"{pad}if type({v}) is list:")
            self.lines.append(f"{pad}    for {item} in {v}:")
            before = len(self.lines)
            self.schema(schema["items"], item, depth + 2)
            if len(self.lines) == before:
                self.lines.append(f"{pad}        pass")
        self.object(schema, v, depth, known_object=kind == "object")

    def object(self, schema: dict[str, Any], v: str, depth: int, *, known_object: bool) -> None:
        props = schema.get("properties", {})
        required = schema.get("required", [])
        closed = schema.get("additionalProperties", True)
        if not isinstance(props, dict) or not isinstance(required, list) or closed not in (True, False):
            raise _Unsupported
        if not (props or required or closed is False):
            return
        if not known_object:
            self.lines.append(f"{'    ' * depth}if type({v}) is dict:")
            depth += 1
        if required:
            self.fail_if(f"not {self.constant(frozenset(required))}.issubset({v})", depth)
        if closed is False:
            self.fail_if(f"not {self.constant(frozenset(props))}.issuperset({v})", depth)
        for prop, sub in props.items():
            value = self.name("p")
            self.lines.append(f"{'    ' * depth}{value} = {v}.get({prop!r}, _MISSING)")
            self.lines.append(f"{'    ' * depth}if {value} is not _MISSING:")
            before = len(self.lines)
            self.schema(sub, value, depth + 1)
            if len(self.lines) == before:
                self.lines.append(f"{'    ' * (depth + 1)}pass")
        self.lines.append(f"{'    ' * depth}pass")


def compile_schema(schema: Any) -> Callable[[Any], bool] | None:
    """Return a sound fast-accept predicate, or None if the schema uses unsupported keywords."""
    writer = _Writer()
    try:
        writer.schema(schema, "v", 1)
    except (_Unsupported, re.error, TypeError):
        return None
    source = "\n".join(["def fast_accept(v):", *writer.lines, "    return True"])
    namespace: dict[str, Any] = {"_MISSING": object(), **writer.constants}
    exec(compile(source, "<fastcheck>", "exec"), namespace)  # noqa: S102 - source built above from the schema's keywords
    predicate = namespace["fast_accept"]
    predicate.source = source  # for tests and for reading when debugging
    return predicate
