"""Reading a tool's JSON Schema: what it declares, how to walk it, which parameters carry code, and arguments
that validate against it, for every probe that reads or calls tools (any gate).

Local ``$ref`` is followed; a malformed schema never raises out of these helpers where a probe would have to
guess: :func:`schema_valid_arguments` returns None instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from .support import fill_arguments, fill_value


def resolve(schema: Any, root: dict[str, Any], depth: int = 0) -> Any:
    """Follow a local ``$ref`` (``#/$defs/x``, ``#/definitions/x``); anything else is returned as is."""
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and depth < 16:
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            return schema
        node: Any = root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                return schema
            node = node[part]
        extra = {k: v for k, v in schema.items() if k != "$ref"}  # siblings of $ref (2020-12) still apply
        schema = {**node, **extra} if isinstance(node, dict) else node
        depth += 1
    return schema


def types(schema: dict[str, Any]) -> set[str]:
    """Every type the schema names (``"type": "x"`` or ``"type": [...]``)."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    return set()


def branches(schema: dict[str, Any]) -> list[Any]:
    """The ``anyOf`` (else ``oneOf``) alternatives."""
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return schema[key]
    return []


def declared(schema: Any) -> dict[str, Any]:
    """The schema's ``properties`` as written (values not yet resolved)."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    return props if isinstance(props, dict) else {}


def input_schema(tool: dict[str, Any]) -> dict[str, Any]:
    schema = tool.get("inputSchema")
    return schema if isinstance(schema, dict) else {}


def annotations_of(tool: dict[str, Any]) -> dict[str, Any]:
    ann = tool.get("annotations")
    return ann if isinstance(ann, dict) else {}


def closed(schema: dict[str, Any]) -> bool:
    return schema.get("additionalProperties") is False or schema.get("unevaluatedProperties") is False


def walk_properties(schema: Any, root: dict[str, Any], where: str, depth: int = 0) -> Iterator[tuple[str, str, Any]]:
    """Yield ``(path, property name, resolved schema)`` for every property, nested ones and array items included."""
    if depth > 8:
        return
    for name, sub in declared(schema).items():
        path = f"{where}.properties.{name}"
        resolved = resolve(sub, root)
        yield path, name, resolved
        yield from _walk_children(resolved, root, path, depth)


def _walk_children(schema: Any, root: dict[str, Any], where: str, depth: int) -> Iterator[tuple[str, str, Any]]:
    if not isinstance(schema, dict):
        return
    yield from walk_properties(schema, root, where, depth + 1)
    items = resolve(schema.get("items"), root)
    if isinstance(items, dict) and (declared(items) or "object" in types(items)):
        yield from walk_properties(items, root, f"{where}.items", depth + 1)
    for i, branch in enumerate(branches(schema)):
        yield from walk_properties(resolve(branch, root), root, f"{where}.anyOf[{i}]", depth + 1)


# -- words ---------------------------------------------------------------------------------------------------

_FILLER_WORDS = {"the", "a", "an", "of", "to", "for", "in", "on", "this", "that", "is", "be", "value", "parameter",
                 "param", "field", "input", "argument", "arg", "string", "integer", "number", "boolean", "array",
                 "object", "list", "optional", "required", "name"}


def words(text: str) -> list[str]:
    """Lower-case words, camelCase and snake_case split."""
    return [w for w in re.split(r"[^a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower()) if w]


def restates(description: str, *names: str) -> bool:
    """True when the description says nothing beyond the name(s) it describes."""
    named = {w for n in names for w in words(n)} | {w.rstrip("s") for n in names for w in words(n)}
    meaningful = [w for w in words(description) if w not in _FILLER_WORDS]
    return all(w in named or w.rstrip("s") in named for w in meaningful)


# -- parameters that carry code ------------------------------------------------------------------------------

CODE_PARAMS = ("code", "script", "statement", "expression", "sql", "command", "cmd")
"""Parameter names that carry code, a query language or a command line whatever the tool says of them."""
QUERY_LANGUAGE = re.compile(
    r"\b(?:sql|sqlite|postgres(?:ql)?|mysql|mariadb|cypher|sparql|graphql)\b|\bquery language\b"
    r"|\bexecut(?:e|es|ing)\s+(?:(?!search)[\w,-]+\s+){0,5}?(?:quer(?:y|ies)|statements?)\b", re.I)
"""What a tool's name or description says when its ``query`` is written in a query language, not searched for:
SQL or a named query language, or executing a query or statement ("Execute a SELECT query on the database",
not "Executes search queries")."""


def code_params(tool: dict[str, Any]) -> list[str]:
    """The tool's free-form string parameters that carry code: those named in :data:`CODE_PARAMS`, and ``query``
    when the tool's name or description, or the parameter's own, says it is SQL or another query language. A
    ``query`` is most often a search text, so the name alone never makes it code."""
    schema = input_schema(tool)
    found = []
    for name, sub in declared(schema).items():
        sub = resolve(sub, schema)
        if not isinstance(sub, dict) or "string" not in types(sub) or "enum" in sub or "const" in sub:
            continue
        if name.lower() in CODE_PARAMS:
            found.append(name)
        elif name.lower() == "query":
            said = " ".join(str(x) for x in (tool.get("name"), tool.get("title"), tool.get("description"),
                                             sub.get("description")) if isinstance(x, str))
            if QUERY_LANGUAGE.search(said.replace("_", " ")):
                found.append(name)
    return found


# -- schema-valid arguments (for the probes that call tools) ---------------------------------------------------

_EXAMPLE_IN_TEXT = re.compile(r"""\be\.\s?g\.,?\s*(?:\(?\s*)["'\u201c`]([^"'\u201d`\n]{1,200})["'\u201d`]""", re.I)


def _described_example(schema: dict[str, Any]) -> str | None:
    """The first quoted example in a string property's description ("e.g. \"docs/intro.md\"") that fits its length."""
    text = schema.get("description")
    match = _EXAMPLE_IN_TEXT.search(text) if isinstance(text, str) else None
    if match is None:
        return None
    value = match.group(1)
    if len(value) > int(schema.get("maxLength", 10**6)) or len(value) < int(schema.get("minLength", 0)):
        return None
    return value


def string_example(schema: dict[str, Any]) -> str | None:
    """The value a string property's own schema holds up as typical: its first ``examples`` entry, its ``default``,
    or a quoted ``e.g.`` example in its description (None when it names none)."""
    for value in ((schema.get("examples") or [None])[0] if isinstance(schema.get("examples"), list) else None,
                  schema.get("default"), _described_example(schema)):
        if isinstance(value, str) and value:
            return value
    return None


_UNSET = object()


def _suggested(schema: Any, root: dict[str, Any], depth: int = 0) -> Any:
    """What the schema itself suggests sending where :func:`~.support.fill_value` cannot see it: the first of
    its ``examples``, a quoted ``e.g.`` example in a string's description, what the target of a local ``$ref``
    or the first ``anyOf``/``oneOf`` branch asks for; ``_UNSET`` leaves the value to ``fill_value``."""
    resolved = resolve(schema, root)
    if not isinstance(resolved, dict) or depth > 6:
        return _UNSET
    settled = "const" in resolved or "default" in resolved
    if not settled and isinstance(resolved.get("examples"), list) and resolved["examples"]:
        return resolved["examples"][0]
    if not settled and not resolved.get("enum"):
        alternatives = branches(resolved)
        if alternatives and not types(resolved):
            value = _suggested(alternatives[0], root, depth + 1)
            first = resolve(alternatives[0], root)
            return value if value is not _UNSET else fill_value(first if isinstance(first, dict) else {})
        if "string" in types(resolved):
            example = _described_example(resolved)
            if example is not None:
                return example
    return fill_value(resolved) if resolved is not schema else _UNSET


def valid_against(schema: dict[str, Any], value: Any) -> bool:
    """``value`` validates against ``schema`` (its ``$schema`` dialect, else 2020-12); False for an unusable schema."""
    try:
        from jsonschema import validators

        cls = validators.validator_for(schema, default=validators.Draft202012Validator)
        return cls(schema).is_valid(value)
    except Exception:  # an invalid schema: the arguments cannot be shown valid
        return False


def schema_valid_arguments(tool: dict[str, Any], /, **overrides: Any) -> dict[str, Any] | None:
    """Arguments for an ordinary call of ``tool`` that validate against its ``inputSchema`` (``overrides`` set
    the properties it declares), or None when none can be built.

    The values are :func:`~.support.fill_arguments`'s, except where the schema itself suggests one
    (see :func:`_suggested`): a tool that asks for an existing file by example is called with that example."""
    schema = input_schema(tool)
    props = declared(schema)
    wanted = {name: value for name, value in overrides.items() if name in props}
    try:
        hints = {}
        for name in schema.get("required") or ():
            if isinstance(name, str) and name not in wanted:
                value = _suggested(props.get(name, {}), schema)
                if value is not _UNSET:
                    hints[name] = value
        args = {**fill_arguments(tool), **hints, **wanted}  # not as keywords: a property may be called "skip"
    except (TypeError, ValueError, OverflowError, AttributeError):  # a malformed schema (e.g. "maxLength": "ten")
        return None
    return args if valid_against(schema, args) else None


