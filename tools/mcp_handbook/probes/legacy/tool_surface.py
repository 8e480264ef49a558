"""Probes of the tool surface: what tools/list declares, and what tools/call returns.

Most of these are static checks on the ``tools/list`` output: the listing is
fetched once per target (cached by identity, so a caller that runs several of
these probes against one Target starts the server once for all of them). The
probes that call tools build arguments from each tool's own ``inputSchema``
and only call tools ``target.may_call`` allows.

Every finding names the tool and the JSON path of the offending field, e.g.
``append_note.inputSchema.properties.text``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from ..base import (
    Finding, Probe, Target, WireTimeout, call_tool, compact, failed, list_tools, not_applicable, passed,
)

# -- the tool listing, once per target ---------------------------------------------------------------------------

_LISTINGS: OrderedDict[int, tuple[Target, list[dict[str, Any]] | Finding]] = OrderedDict()
_LISTINGS_LOCK = threading.Lock()
_LISTINGS_KEPT = 4


def _listing(target: Target) -> list[dict[str, Any]] | Finding:
    """Every tool the target lists (all pages), or a FAIL finding when it could not be listed.

    Both outcomes are kept for the target: a server that did not answer once is
    not waited on again by the next static probe."""
    with _LISTINGS_LOCK:
        cached = _LISTINGS.get(id(target))
        if cached is not None and cached[0] is target:
            return cached[1]
    session = target.start()
    tools: list[dict[str, Any]] | Finding
    try:
        session.initialize(timeout=target.timeout)
        tools = list_tools(session, timeout=target.timeout)
    except WireTimeout as exc:
        tools = failed(f"tools/list could not be read: {exc}", *session.transcript(limit=8))
    finally:
        session.close(grace=0.5)
    with _LISTINGS_LOCK:
        _LISTINGS[id(target)] = (target, tools)  # holding the target keeps its id from being reused
        while len(_LISTINGS) > _LISTINGS_KEPT:
            _LISTINGS.popitem(last=False)
    return tools


def _known_silent(target: Target) -> Finding | None:
    """The cached FAIL when this target already failed to list its tools (calling probes skip it)."""
    with _LISTINGS_LOCK:
        cached = _LISTINGS.get(id(target))
    if cached is not None and cached[0] is target and isinstance(cached[1], Finding):
        return cached[1]
    return None


def _name(tool: dict[str, Any]) -> str:
    name = tool.get("name")
    return name if isinstance(name, str) else f"<tool without a string name: {compact(name, 40)}>"


ToolCheck = Callable[[dict[str, Any]], list[str]]


def _static(target: Target, check: ToolCheck, *, kept: str, broken: str) -> Finding:
    """Run ``check`` on every listed tool; each problem string names tool and field."""
    tools = _listing(target)
    if isinstance(tools, Finding):
        return tools
    if not tools:
        return not_applicable("the server lists no tools")
    found = [check(tool) for tool in tools]
    problems = [p for each in found for p in each]
    if problems:
        bad = sum(1 for each in found if each)
        return failed(f"{bad} of {len(tools)} tool(s) {broken}", *problems[:12])
    return passed(f"all {len(tools)} tool(s) {kept}", "checked: " + ", ".join(_name(t) for t in tools[:20]))


# -- JSON Schema walking -----------------------------------------------------------------------------------------

def _resolve(schema: Any, root: dict[str, Any], depth: int = 0) -> Any:
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


def _types(schema: dict[str, Any]) -> set[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    return set()


def _branches(schema: dict[str, Any]) -> list[Any]:
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return schema[key]
    return []


def _properties(schema: Any) -> dict[str, Any]:
    props = schema.get("properties") if isinstance(schema, dict) else None
    return props if isinstance(props, dict) else {}


def _walk_properties(schema: Any, root: dict[str, Any], where: str, depth: int = 0) -> Iterator[tuple[str, str, Any]]:
    """Yield ``(path, property name, resolved schema)`` for every property, nested ones and array items included."""
    if depth > 8:
        return
    for name, sub in _properties(schema).items():
        path = f"{where}.properties.{name}"
        resolved = _resolve(sub, root)
        yield path, name, resolved
        yield from _walk_children(resolved, root, path, depth)


def _walk_children(schema: Any, root: dict[str, Any], where: str, depth: int) -> Iterator[tuple[str, str, Any]]:
    if not isinstance(schema, dict):
        return
    yield from _walk_properties(schema, root, where, depth + 1)
    items = _resolve(schema.get("items"), root)
    if isinstance(items, dict) and (_properties(items) or "object" in _types(items)):
        yield from _walk_properties(items, root, f"{where}.items", depth + 1)
    for i, branch in enumerate(_branches(schema)):
        yield from _walk_properties(_resolve(branch, root), root, f"{where}.anyOf[{i}]", depth + 1)


def _input_schema(tool: dict[str, Any]) -> dict[str, Any]:
    schema = tool.get("inputSchema")
    return schema if isinstance(schema, dict) else {}


# -- TOOL-001: closed, typed input schemas -----------------------------------------------------------------------

def _typed(schema: Any, root: dict[str, Any]) -> bool:
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return False  # `true` / `{}`-like booleans accept anything
    if _types(schema) or "enum" in schema or "const" in schema:
        return True
    branches = _branches(schema)
    return bool(branches) and all(_typed(b, root) for b in branches)


def _closed(schema: dict[str, Any]) -> bool:
    return schema.get("additionalProperties") is False or schema.get("unevaluatedProperties") is False


def _object_problems(schema: dict[str, Any], root: dict[str, Any], where: str) -> list[str]:
    """A nested object must be closed with declared properties, or be a typed map."""
    extra = schema.get("additionalProperties")
    if _properties(schema):
        return [] if _closed(schema) else [f"{where}: object with properties but without additionalProperties: false"]
    if isinstance(extra, dict) and _typed(extra, root):
        return []  # a typed map: {"type": "object", "additionalProperties": {"type": "string"}}
    return [f"{where}: bare object (no properties, no typed additionalProperties): it accepts anything"]


def _schema_closed_problems(tool: dict[str, Any]) -> list[str]:
    name = _name(tool)
    schema = tool.get("inputSchema")
    where = f"{name}.inputSchema"
    if not isinstance(schema, dict):
        return [f"{where}: is {compact(schema, 60)}, not a JSON Schema object"]
    problems = []
    if schema.get("type") != "object":
        problems.append(f"{where}.type: is {compact(schema.get('type'), 40)}, must be \"object\"")
    if not _closed(schema):
        shown = compact(schema.get("additionalProperties", "(absent)"), 40)
        problems.append(f"{where}.additionalProperties: is {shown}, not false: unknown (hallucinated) keys are accepted")
    props = _properties(schema)
    required = schema.get("required") or []
    for key in required if isinstance(required, list) else []:
        if key not in props:
            problems.append(f"{where}.required: names {key!r}, which is not a declared property")
    for path, _prop, sub in _walk_properties(schema, schema, where):
        if not _typed(sub, schema):
            problems.append(f"{path}: has no type (nor enum/const): any value is accepted")
            continue
        kinds = _types(sub) if isinstance(sub, dict) else set()
        if "object" in kinds:
            problems.extend(_object_problems(sub, schema, path))
        if "array" in kinds:
            items = sub.get("items")
            if items is None or not _typed(items, schema):
                problems.append(f"{path}.items: missing or untyped: an array of anything")
            else:
                resolved = _resolve(items, schema)
                if isinstance(resolved, dict) and "object" in _types(resolved):
                    problems.extend(_object_problems(resolved, schema, f"{path}.items"))
    return problems


def input_schema_closed(target: Target) -> Finding:
    """Every inputSchema: root type object, additionalProperties false, every property typed, no bare objects."""
    return _static(target, _schema_closed_problems,
                   kept="declare a closed, typed inputSchema",
                   broken="declare an open or untyped inputSchema")


# -- TOOL-002: every property described --------------------------------------------------------------------------

_FILLER_WORDS = {"the", "a", "an", "of", "to", "for", "in", "on", "this", "that", "is", "be", "value", "parameter",
                 "param", "field", "input", "argument", "arg", "string", "integer", "number", "boolean", "array",
                 "object", "list", "optional", "required", "name"}
MIN_PROPERTY_DESCRIPTION_WORDS = 3


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower()) if w]


def _restates(description: str, *names: str) -> bool:
    """True when the description says nothing beyond the name(s) it describes."""
    named = {w for n in names for w in _words(n)} | {w.rstrip("s") for n in names for w in _words(n)}
    meaningful = [w for w in _words(description) if w not in _FILLER_WORDS]
    return all(w in named or w.rstrip("s") in named for w in meaningful)


def _description_problems(tool: dict[str, Any]) -> list[str]:
    schema = _input_schema(tool)
    problems = []
    for path, prop, sub in _walk_properties(schema, schema, f"{_name(tool)}.inputSchema"):
        text = sub.get("description") if isinstance(sub, dict) else None
        if not isinstance(text, str) or not text.strip():
            problems.append(f"{path}: no description: the model has to guess what to send")
        elif len(_words(text)) < MIN_PROPERTY_DESCRIPTION_WORDS or _restates(text, prop):
            problems.append(f"{path}.description: {text!r} only restates the name: say the format and give an example")
    return problems


def properties_described(target: Target) -> Finding:
    """Every input property has a description that says more than its name."""
    return _static(target, _description_problems,
                   kept="describe every input property",
                   broken="have input properties without a real description")


# -- TOOL-003: bounded inputs ------------------------------------------------------------------------------------

def _bound_problems_of(schema: Any, root: dict[str, Any], where: str, depth: int = 0) -> list[str]:
    schema = _resolve(schema, root)
    if not isinstance(schema, dict) or depth > 8:
        return [f"{where}: untyped, so nothing bounds it"] if not isinstance(schema, dict) else []
    if "enum" in schema or "const" in schema:
        return []
    branches = _branches(schema)
    if branches and not _types(schema):
        return [p for i, b in enumerate(branches) for p in _bound_problems_of(b, root, f"{where}.anyOf[{i}]", depth + 1)]
    kinds = _types(schema)
    if not kinds:
        return [f"{where}: untyped, so nothing bounds it"]
    problems = []
    if "string" in kinds and "maxLength" not in schema:
        problems.append(f"{where}: string without maxLength (or enum/const)")
    if kinds & {"integer", "number"}:
        if "maximum" not in schema and "exclusiveMaximum" not in schema:
            problems.append(f"{where}: {'/'.join(sorted(kinds & {'integer', 'number'}))} without maximum")
        if "minimum" not in schema and "exclusiveMinimum" not in schema:
            problems.append(f"{where}: {'/'.join(sorted(kinds & {'integer', 'number'}))} without minimum")
    if "array" in kinds:
        if "maxItems" not in schema:
            problems.append(f"{where}: array without maxItems")
        if "items" in schema:
            problems.extend(_bound_problems_of(schema["items"], root, f"{where}.items", depth + 1))
    if "object" in kinds:
        props = _properties(schema)
        for name, sub in props.items():
            problems.extend(_bound_problems_of(sub, root, f"{where}.properties.{name}", depth + 1))
        extra = schema.get("additionalProperties", True)
        if extra is not False and schema.get("unevaluatedProperties") is not False and "maxProperties" not in schema:
            kind = "map (additionalProperties schema)" if isinstance(extra, dict) else "object open to any keys"
            problems.append(f"{where}: {kind} without maxProperties")
        if isinstance(extra, dict):
            problems.extend(_bound_problems_of(extra, root, f"{where}.additionalProperties", depth + 1))
    return problems


def _bounds_problems(tool: dict[str, Any]) -> list[str]:
    schema = _input_schema(tool)
    where = f"{_name(tool)}.inputSchema"
    return [p for name, sub in _properties(schema).items()
            for p in _bound_problems_of(sub, schema, f"{where}.properties.{name}")]


def inputs_bounded(target: Target) -> Finding:
    """Strings have maxLength (or enum), numbers minimum and maximum, arrays maxItems, at every depth."""
    return _static(target, _bounds_problems,
                   kept="bound every string, number and array input",
                   broken="accept unbounded inputs")


# -- TOOL-005 / TOOL-006: tool names -----------------------------------------------------------------------------

SPEC_NAME_LENGTH = 128
"""The spec's SHOULD (2025-11-25 server/tools#tool-names): 1 to 128 characters of A-Z a-z 0-9 _ - ."""
PORTABLE_NAME_LENGTH = 64
"""This handbook's portability advice (the conformance check and model APIs stop at 64): reported, never failed."""
SNAKE_VERB_NOUN = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")


def tool_names_valid(target: Target) -> Finding:
    """Every name is 1-128 characters of A-Z a-z 0-9 _ - . (the spec's SHOULD) and no two tools share one;
    names over the portable 64 are noted in the evidence, not failed."""
    tools = _listing(target)
    if isinstance(tools, Finding):
        return tools
    if not tools:
        return not_applicable("the server lists no tools")
    problems = []
    seen: dict[str, int] = {}
    for tool in tools:
        name = tool.get("name")
        if not isinstance(name, str):
            problems.append(f"{_name(tool)}: name is not a string")
            continue
        seen[name] = seen.get(name, 0) + 1
        if len(name) > SPEC_NAME_LENGTH or not name:
            problems.append(f"{name[:80]!r}: {len(name)} characters; the specification asks for 1 to {SPEC_NAME_LENGTH}")
        bad = sorted({c for c in name if not re.fullmatch(r"[A-Za-z0-9_.-]", c)})
        if bad:
            problems.append(f"{name[:80]!r}: characters outside A-Z a-z 0-9 _ - . : {', '.join(repr(c) for c in bad)}")
    problems += [f"{name!r}: listed {count} times; names must be unique" for name, count in seen.items() if count > 1]
    if problems:
        return failed(f"{len(problems)} tool-name problem(s) among {len(tools)} tool(s)", *problems[:12])
    long = [f"advice: {n[:80]!r} has {len(n)} characters, over the portable {PORTABLE_NAME_LENGTH}"
            for n in seen if len(n) > PORTABLE_NAME_LENGTH]
    return passed(f"all {len(tools)} tool names are 1-128 characters of A-Z a-z 0-9 _ - . and unique",
                  *long,
                  "names: " + ", ".join(sorted(seen)[:30]))


def _style_problems(tool: dict[str, Any]) -> list[str]:
    name = tool.get("name")
    if not isinstance(name, str):
        return [f"{_name(tool)}: name is not a string"]
    if SNAKE_VERB_NOUN.fullmatch(name):
        return []
    if re.fullmatch(r"[a-z][a-z0-9]*", name):
        return [f"{name}: a single word; name the action and its object, e.g. search_{name} or {name}_file"]
    return [f"{name}: not snake_case verb_noun (lower-case words joined by '_', e.g. append_note)"]


def tool_names_snake_case(target: Target) -> Finding:
    """House style: every name is snake_case with at least two words (verb_noun)."""
    return _static(target, _style_problems,
                   kept="are named in snake_case verb_noun",
                   broken="are not named in snake_case verb_noun")


# -- TOOL-007: descriptions that work as prompts -----------------------------------------------------------------

MIN_TOOL_DESCRIPTION_CHARS = 80
MIN_TOOL_DESCRIPTION_SENTENCES = 2


def _sentences(text: str) -> int:
    return len([s for s in re.split(r"(?<=[.!?;])\s+", text.strip()) if len(_words(s)) >= 2])


def _tool_description_problems(tool: dict[str, Any]) -> list[str]:
    name = _name(tool)
    text = tool.get("description")
    if not isinstance(text, str) or not text.strip():
        return [f"{name}.description: missing: the model picks tools by reading it"]
    title = tool.get("title") if isinstance(tool.get("title"), str) else ""
    if _restates(text, name, title):
        return [f"{name}.description: {text[:80]!r} restates the name"]
    problems = []
    if len(text.strip()) < MIN_TOOL_DESCRIPTION_CHARS:
        problems.append(f"{name}.description: {len(text.strip())} characters ({text[:80]!r}); "
                        f"under {MIN_TOOL_DESCRIPTION_CHARS} cannot say what, when, when not and side effects")
    elif _sentences(text) < MIN_TOOL_DESCRIPTION_SENTENCES:
        problems.append(f"{name}.description: one sentence; say when to call it, when not, and its side effects")
    return problems


def descriptions_are_prompts(target: Target) -> Finding:
    """Heuristic: every tool has a description of 2+ sentences and 80+ characters that is not its name."""
    return _static(target, _tool_description_problems,
                   kept="have a description of two or more sentences beyond the name",
                   broken="have a missing, one-line or name-restating description")


# -- TOOL-008: top-level title -----------------------------------------------------------------------------------

def _title_problems(tool: dict[str, Any]) -> list[str]:
    name = _name(tool)
    title = tool.get("title")
    if not isinstance(title, str) or not title.strip():
        nested = (tool.get("annotations") or {}).get("title") if isinstance(tool.get("annotations"), dict) else None
        hint = " (annotations.title is set: also put it at the top level)" if nested else ""
        return [f"{name}.title: missing{hint}"]
    if title.strip() == name or re.fullmatch(r"[a-z0-9_.-]+", title.strip()):
        return [f"{name}.title: {title!r} is an identifier, not a human-readable title"]
    return []


def tool_titles(target: Target) -> Finding:
    """Every tool has a human-readable top-level title that is not its name."""
    return _static(target, _title_problems,
                   kept="have a human-readable top-level title",
                   broken="lack a human-readable top-level title")


# -- TOOL-009: annotations set explicitly ------------------------------------------------------------------------

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
SPEC_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}


def _annotation_problems(tool: dict[str, Any]) -> list[str]:
    name = _name(tool)
    ann = tool.get("annotations")
    if not isinstance(ann, dict):
        return [f"{name}.annotations: missing: clients assume the defaults, a destructive, non-idempotent, "
                "open-world tool"]
    problems = []
    for hint in HINTS:
        if hint in ann and not isinstance(ann[hint], bool):
            problems.append(f"{name}.annotations.{hint}: {compact(ann[hint], 30)} is not a boolean")
    needed = ["readOnlyHint", "openWorldHint"]
    if ann.get("readOnlyHint") is not True:
        needed += ["destructiveHint", "idempotentHint"]  # meaningful only when the tool may write
    for hint in needed:
        if hint not in ann:
            problems.append(f"{name}.annotations.{hint}: not set, so clients read the default "
                            f"{json.dumps(SPEC_DEFAULTS[hint])}")
    if ann.get("readOnlyHint") is True and ann.get("destructiveHint") is True:
        problems.append(f"{name}.annotations: readOnlyHint and destructiveHint are both true, which contradict")
    return problems


def annotations_explicit(target: Target) -> Finding:
    """readOnlyHint and openWorldHint always, destructiveHint and idempotentHint on every tool that may write."""
    return _static(target, _annotation_problems,
                   kept="set their behaviour hints explicitly",
                   broken="leave behaviour hints to the spec defaults")


# -- TOOL-010: only fields the protocol defines ------------------------------------------------------------------

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


def _field_problems(tool: dict[str, Any]) -> list[str]:
    name = _name(tool)
    problems = []
    for key in sorted(set(tool) - TOOL_FIELDS):
        goes = _WHERE_IT_GOES.get(key.lower().replace("-", "_"), "_meta (under a reverse-DNS prefix)")
        problems.append(f"{name}.{key}: not a Tool field in the protocol; clients drop it. Use {goes}")
    ann = tool.get("annotations")
    if isinstance(ann, dict):
        for key in sorted(set(ann) - ANNOTATION_FIELDS):
            goes = _WHERE_IT_GOES.get(key.lower().replace("-", "_"), "_meta on the tool")
            problems.append(f"{name}.annotations.{key}: not a ToolAnnotations field; use {goes}")
    return problems


def tool_fields_known(target: Target) -> Finding:
    """Tool objects and their annotations carry only the fields the protocol defines."""
    return _static(target, _field_problems,
                   kept="carry only fields the protocol defines",
                   broken="carry fields the protocol does not define")


# -- TOOL-012: flat input schemas --------------------------------------------------------------------------------

MAX_OBJECT_NESTING = 1


def _nesting(schema: Any, root: dict[str, Any], seen: int = 0) -> int:
    """Levels of objects below the root an argument can hold (array items count as their element)."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict) or seen > 8:
        return 0
    deepest = 0
    for sub in [*_properties(schema).values(), *_branches(schema)]:
        deepest = max(deepest, _nesting(sub, root, seen + 1))
    items = schema.get("items")
    if isinstance(items, dict):
        deepest = max(deepest, _nesting(items, root, seen + 1))
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        deepest = max(deepest, _nesting(extra, root, seen + 1))
    is_object = "object" in _types(schema) or bool(_properties(schema))
    return deepest + (1 if is_object and seen else 0)


def _flat_problems(tool: dict[str, Any]) -> list[str]:
    schema = _input_schema(tool)
    where = f"{_name(tool)}.inputSchema"
    problems = []
    for name, sub in _properties(schema).items():
        depth = _nesting(sub, schema, 1)
        if depth > MAX_OBJECT_NESTING:
            problems.append(f"{where}.properties.{name}: objects nested {depth} levels deep; "
                            f"flatten to at most {MAX_OBJECT_NESTING}")
    return problems


def flat_input_schemas(target: Target) -> Finding:
    """No argument nests objects more than one level deep."""
    return _static(target, _flat_problems,
                   kept="take flat arguments (objects nested at most one level)",
                   broken="nest objects two or more levels deep in their arguments")


# -- UX-002: no catch-all tools ----------------------------------------------------------------------------------

SELECTOR_PARAMS = frozenset({"command", "cmd", "action", "mode", "operation", "op", "method", "verb", "sql",
                             "query_language", "script", "code", "expression", "shell", "statement"})


def _catch_all_problems(tool: dict[str, Any]) -> list[str]:
    ann = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
    if ann.get("readOnlyHint") is True:
        return []
    schema = _input_schema(tool)
    problems = []
    for name, sub in _properties(schema).items():
        sub = _resolve(sub, schema)
        if name.lower() not in SELECTOR_PARAMS or not isinstance(sub, dict):
            continue
        if "string" in _types(sub) and "enum" not in sub and "const" not in sub:
            problems.append(f"{_name(tool)}.inputSchema.properties.{name}: free-form {name!r} string on a tool "
                            "that may modify state: one tool doing whatever the string says")
    return problems


def no_catch_all_tools(target: Target) -> Finding:
    """Heuristic: no tool that may write takes a free-form command/action/mode/sql/script string."""
    return _static(target, _catch_all_problems,
                   kept="are single-purpose (no free-form command/action/mode string on a tool that may write)",
                   broken="are catch-alls driven by a free-form command/action/mode string")


# -- arguments built from a schema (for the probes that call tools) ---------------------------------------------

_EXAMPLE_IN_TEXT = re.compile(r"""\be\.\s?g\.,?\s*(?:\(?\s*)["'\u201c`]([^"'\u201d`\n]{1,200})["'\u201d`]""", re.I)


def _described_example(schema: dict[str, Any]) -> str | None:
    """The first quoted example in a string property's description ("e.g. \"docs/intro.md\"")."""
    text = schema.get("description")
    match = _EXAMPLE_IN_TEXT.search(text) if isinstance(text, str) else None
    if match is None:
        return None
    value = match.group(1)
    if len(value) > int(schema.get("maxLength", 10**6)) or len(value) < int(schema.get("minLength", 0)):
        return None
    return value


def _sample(schema: Any, root: dict[str, Any], depth: int = 0) -> Any:
    """A value meant to satisfy ``schema``: its default, an example, its first enum value or a minimal value."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict) or depth > 6:
        return "x"
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    branches = _branches(schema)
    if branches:
        return _sample(branches[0], root, depth + 1)
    kinds = _types(schema) - {"null"} or {"string"}
    kind = sorted(kinds)[0] if len(kinds) > 1 else next(iter(kinds))
    if kind == "string":
        example = _described_example(schema)
        if example is not None:
            return example
        low, high = int(schema.get("minLength", 1)), int(schema.get("maxLength", 8))
        return "a" * max(1, min(max(low, 1), high))
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema["exclusiveMinimum"] + 1 if "exclusiveMinimum" in schema else None)
        high = schema.get("maximum", schema["exclusiveMaximum"] - 1 if "exclusiveMaximum" in schema else None)
        value = 1
        if isinstance(low, (int, float)) and value < low:
            value = low
        if isinstance(high, (int, float)) and value > high:
            value = high
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return False
    if kind == "array":
        count = int(schema.get("minItems", 0))
        return [_sample(schema.get("items", {}), root, depth + 1) for _ in range(count)]
    if kind == "object":
        return _sample_object(schema, root, depth + 1)
    return None


def _sample_object(schema: dict[str, Any], root: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    props = _properties(schema)
    return {name: _sample(props.get(name, {}), root, depth) for name in schema.get("required") or () if isinstance(name, str)}


def _valid(schema: dict[str, Any], value: Any) -> bool:
    try:
        from jsonschema import validators

        cls = validators.validator_for(schema, default=validators.Draft202012Validator)
        return cls(schema).is_valid(value)
    except Exception:  # an invalid schema: the arguments cannot be shown valid
        return False


def _arguments(tool: dict[str, Any], **overrides: Any) -> dict[str, Any] | None:
    """Schema-valid arguments for ``tool`` (with ``overrides`` for the named properties), or None."""
    schema = _input_schema(tool)
    try:
        args = _sample_object(schema, schema)
    except (TypeError, ValueError, OverflowError):  # a malformed schema (e.g. "maxLength": "ten")
        return None
    props = _properties(schema)
    for name, value in overrides.items():
        if name in props:
            args[name] = value
    return args if _valid(schema, args) else None


def _annotations(tool: dict[str, Any]) -> dict[str, Any]:
    ann = tool.get("annotations")
    return ann if isinstance(ann, dict) else {}


def _callable(target: Target, tool: dict[str, Any]) -> bool:
    """``target.may_call``, with malformed annotations read as "not read-only"."""
    return target.may_call({**tool, "annotations": _annotations(tool)})


def _is_error(response: dict[str, Any]) -> bool:
    return "error" in response or bool((response.get("result") or {}).get("isError"))


def _texts(result: dict[str, Any]) -> list[str]:
    return [c["text"] for c in result.get("content") or [] if isinstance(c, dict) and c.get("type") == "text"
            and isinstance(c.get("text"), str)]


# -- TOOL-011: outputSchema kept by structuredContent ------------------------------------------------------------

def structured_output(target: Target) -> Finding:
    """Call every callable tool that declares outputSchema; a successful result must carry conforming
    structuredContent and the same JSON in a text block."""
    silent = _known_silent(target)
    if silent is not None:
        return silent
    session = target.start()
    try:
        session.initialize(timeout=target.timeout)
        tools = list_tools(session, timeout=target.timeout)
    except WireTimeout as exc:
        return failed(f"tools/list could not be read: {exc}", *session.transcript(limit=8))
    declaring = [t for t in tools if isinstance(t.get("outputSchema"), dict)]
    if not declaring:
        return not_applicable("no tool declares an outputSchema")
    evidence: list[str] = []
    problems: list[str] = []
    checked = 0
    for tool in declaring:
        name = _name(tool)
        if not _callable(target, tool):
            evidence.append(f"{name}: not called (not read-only and not allowed)")
            continue
        args = _arguments(tool)
        if args is None:
            evidence.append(f"{name}: could not build schema-valid arguments; not called")
            continue
        try:
            response = call_tool(session, name, args, timeout=target.timeout)
        except WireTimeout as exc:
            problems.append(f"{name}({compact(args, 80)}): no answer ({exc}); no further calls made")
            break  # a server that stopped answering is not waited on again
        shown = f"{name}({compact(args, 80)}) -> {compact(response.get('result', response), 200)}"
        if _is_error(response):
            evidence.append(f"{shown} [an error result: nothing to check]")
            continue
        checked += 1
        result = response.get("result") or {}
        if "structuredContent" not in result:
            problems.append(f"{name}: declares outputSchema but the successful result has no structuredContent; {shown}")
            continue
        structured = result["structuredContent"]
        schema = tool["outputSchema"]
        try:
            from jsonschema import validators

            cls = validators.validator_for(schema, default=validators.Draft202012Validator)
            errors = sorted(cls(schema).iter_errors(structured), key=lambda e: list(map(str, e.absolute_path)))
        except Exception as exc:
            problems.append(f"{name}.outputSchema: not a usable JSON Schema ({type(exc).__name__}: {exc})")
            continue
        if errors:
            where = "/" + "/".join(map(str, errors[0].absolute_path))
            problems.append(f"{name}: structuredContent does not conform to outputSchema at {where}: "
                            f"{errors[0].message[:160]}; {shown}")
            continue
        mirrored = False
        for text in _texts(result):
            try:
                mirrored = mirrored or json.loads(text) == structured
            except ValueError:
                pass
        if not mirrored:
            problems.append(f"{name}: no text block carries the structuredContent as JSON, so clients that "
                            f"ignore structuredContent see something else; {shown}")
            continue
        evidence.append(f"{shown} [conforms; mirrored as text]")
    if problems:
        return failed(f"{len(problems)} tool(s) with an outputSchema broke its contract", *problems[:8], *evidence[:4])
    if not checked:
        return not_applicable("no tool with an outputSchema could be called successfully with schema-valid arguments",
                              *evidence[:8])
    return passed(f"{checked} tool(s) with an outputSchema returned conforming structuredContent mirrored as text",
                  *evidence[:8])


# -- UX-005: every tool error says what to do next ---------------------------------------------------------------

PATH_PARAMS = ("path", "file", "filename", "filepath", "file_path", "relative_path", "directory", "dir", "folder")
NEXT_STEP = re.compile(r"\baction\s*:", re.I)


def error_next_step(target: Target) -> Finding:
    """Provoke tool errors (missing or unexpected arguments, a path that does not exist); every isError
    result must carry an ``Action:`` line saying what to do next."""
    silent = _known_silent(target)
    if silent is not None:
        return silent
    session = target.start()
    try:
        session.initialize(timeout=target.timeout)
        tools = [t for t in list_tools(session, timeout=target.timeout) if _callable(target, t)]
    except WireTimeout as exc:
        return failed(f"tools/list could not be read: {exc}", *session.transcript(limit=8))
    if not tools:
        return not_applicable("no tool may be called")
    missing = f"hb-missing-{secrets.token_hex(4)}/nothing-here.txt"
    attempts: list[tuple[dict[str, Any], str, dict[str, Any]]] = []
    for tool in tools:
        schema = _input_schema(tool)
        props = _properties(schema)
        if schema.get("required"):
            attempts.append((tool, "missing required arguments", {}))
        elif _closed(schema):
            attempts.append((tool, "an unexpected argument", {"hb_unexpected": 1}))
        for param in PATH_PARAMS:
            if isinstance(props.get(param), dict) and "string" in _types(_resolve(props[param], schema)):
                args = _arguments(tool, **{param: missing})
                if args is not None:
                    attempts.append((tool, f"{param} that does not exist", args))
                break
        if not schema.get("required") and _annotations(tool).get("readOnlyHint") is True:
            attempts.append((tool, "no arguments", {}))
    errors_seen = 0
    evidence: list[str] = []
    problems: list[str] = []
    for tool, why, args in attempts[:40]:
        name = _name(tool)
        try:
            response = call_tool(session, name, args, timeout=target.timeout)
        except WireTimeout as exc:
            problems.append(f"{name} with {why}: no answer ({exc}); no further calls made")
            break
        result = response.get("result")
        if not isinstance(result, dict) or not result.get("isError"):
            continue  # a success, or a JSON-RPC error (the error contract's rules judge those)
        errors_seen += 1
        text = " ".join(_texts(result))
        shown = f"{name}({compact(args, 70)}) [{why}] -> {text[:180]!r}"
        if NEXT_STEP.search(text):
            evidence.append(shown)
        else:
            problems.append(f"{shown}: no 'Action:' line")
    silent = [p for p in problems if "no further calls made" in p]
    if silent:
        return failed("a tools/call got no answer, so its error could not be read", *problems[:8], *evidence[:4])
    if problems:
        return failed(f"{len(problems)} of {errors_seen} tool error(s) do not say what to do next", *problems[:8],
                      *evidence[:4])
    if not errors_seen:
        return not_applicable("no tool call returned an isError result to read", f"{len(attempts)} call(s) tried")
    return passed(f"all {errors_seen} tool error(s) provoked carry an 'Action:' line", *evidence[:8])


# -- UX-007: list results are capped and say so ------------------------------------------------------------------

MANY_FILES = 1200
MAX_RESULT_BYTES = 512 * 1024
QUERY_PARAMS = ("query", "pattern", "search", "q", "term", "keyword", "needle", "glob")
TRUNCATION_SIGNS = re.compile(
    r"truncated\"?\s*[:=]\s*true|has_?more\"?\s*[:=]\s*true|next_?cursor|\bcursor\b|\[truncated|truncated (after|at|to)"
    r"|\btruncated:|\bmore\s*(:|entries|results|items|matches|files|remain)|\bnext page\b|\boffset\s*=\s*\d+"
    r"|\bof \d+\b|\bremaining\b", re.I)


def list_results_capped(target: Target) -> Finding:
    """Put 1,200 files in the workspace; every tool call that lists them must return a bounded page
    and say that more exist."""
    silent = _known_silent(target)
    if silent is not None:
        return silent
    folder = target.workspace / "hb_many"
    folder.mkdir(exist_ok=True)
    first = folder / "hb-item-0000.txt"
    first.write_text("hb-needle line\n")
    for i in range(1, MANY_FILES):
        item = folder / f"hb-item-{i:04d}.txt"
        try:
            os.link(first, item)  # hard links: 1,200 files in milliseconds, each a real file with the line
        except FileExistsError:
            pass
        except OSError:
            item.write_text("hb-needle line\n")
    session = target.start()
    try:
        session.initialize(timeout=target.timeout)
        tools = [t for t in list_tools(session, timeout=target.timeout) if _callable(target, t)]
    except WireTimeout as exc:
        return failed(f"tools/list could not be read: {exc}", *session.transcript(limit=8))
    evidence: list[str] = []
    problems: list[str] = []
    listings = 0
    for tool in tools:
        if _annotations(tool).get("readOnlyHint") is False:
            continue  # it says it writes: not a listing, and not to be called with made-up arguments here
        schema = _input_schema(tool)
        props = _properties(schema)
        overrides = {p: "hb_many" for p in PATH_PARAMS if p in props}
        overrides.update({p: "hb-needle" for p in QUERY_PARAMS if p in props})
        if not overrides and schema.get("required"):
            continue
        args = _arguments(tool, **overrides)
        if args is None:
            continue
        name = _name(tool)
        try:
            response = call_tool(session, name, args, timeout=target.timeout * 2)
        except WireTimeout as exc:
            problems.append(f"{name}({compact(args, 80)}): no answer ({exc}); no further calls made")
            break
        if _is_error(response):
            continue
        text = json.dumps(response.get("result"), ensure_ascii=False)
        count = len(set(re.findall(r"hb-item-\d{4}", text)))
        if count < 2:
            continue
        listings += 1
        shown = f"{name}({compact(args, 80)}) -> {len(text.encode()):,} bytes, {count} of {MANY_FILES} files"
        if count >= MANY_FILES:
            problems.append(f"{shown}: every entry in one response; no cap")
        elif len(text.encode()) > MAX_RESULT_BYTES:
            problems.append(f"{shown}: over {MAX_RESULT_BYTES // 1024} KiB in one response")
        else:
            sign = TRUNCATION_SIGNS.search(text)
            if sign is None:
                problems.append(f"{shown}: capped, but nothing says more exist (no truncated flag, cursor or 'more')")
            else:
                evidence.append(f"{shown}; says so: {sign.group(0)!r}")
    if problems:
        return failed(f"{len(problems)} listing call(s) are unbounded or silently cut", *problems[:8], *evidence[:4])
    if not listings:
        return not_applicable(f"no callable tool listed the {MANY_FILES} files put in hb_many/")
    return passed(f"{listings} listing call(s) returned a bounded page and said more exist", *evidence[:8])


PROBES = (
    Probe("input_schema_closed", input_schema_closed,
          "every inputSchema is type object, closed with additionalProperties false, and fully typed"),
    Probe("properties_described", properties_described, "every input property has a description beyond its name"),
    Probe("inputs_bounded", inputs_bounded, "strings, numbers and arrays in every inputSchema are bounded"),
    Probe("tool_names_valid", tool_names_valid, "tool names are 1-64 characters of A-Z a-z 0-9 _ - . and unique"),
    Probe("tool_names_snake_case", tool_names_snake_case, "tool names are snake_case verb_noun (house style)"),
    Probe("descriptions_are_prompts", descriptions_are_prompts,
          "tool descriptions run to two or more sentences and do not restate the name (heuristic)"),
    Probe("tool_titles", tool_titles, "every tool has a human-readable top-level title"),
    Probe("annotations_explicit", annotations_explicit, "behaviour hints are set explicitly, not left to defaults"),
    Probe("tool_fields_known", tool_fields_known, "tool objects carry only fields the protocol defines"),
    Probe("structured_output", structured_output,
          "tools with an outputSchema return conforming structuredContent, mirrored as text", calls_tools=True),
    Probe("flat_input_schemas", flat_input_schemas, "arguments nest objects at most one level deep"),
    Probe("no_catch_all_tools", no_catch_all_tools,
          "no tool that may write takes a free-form command/action/mode string (heuristic)"),
    Probe("error_next_step", error_next_step, "every isError result carries an 'Action:' next step", calls_tools=True),
    Probe("list_results_capped", list_results_capped,
          "listing 1,200 files returns a bounded page that says more exist", calls_tools=True),
)
