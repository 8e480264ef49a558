"""What the tool-definitions probes share: judging every listed tool, walking JSON Schemas, and building
schema-valid arguments for the probes that call tools.

The static probes read ``tools/list`` once per target (:func:`~..support.tools_of` keeps the listing on
the target, so several of them against one target start the server once) and judge each tool with a
check that returns :data:`Problem` pairs: the reason code first, then the text naming the tool and the
JSON path of the offending field, e.g. ``append_note.inputSchema.properties.text``.

The agent-ux probes use these helpers too (``no_catch_all_tools``, ``error_next_step``,
``list_results_capped``), which is why they are not private to one module; so do the security probes that
call tools, through :class:`ToolCalls`, which keeps a tool that is slow by design from deciding a verdict on
a rule that is not about latency.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..support import (
    Finding, Target, WireSession, WireTimeout, failed, fill_arguments, fill_value, handshake, not_applicable, passed,
    silence_reason, tool_name, tools_of,
)

Problem = tuple[str, str]
"""``(reason code, what is wrong where)`` for one defect of one tool."""
ToolCheck = Callable[[dict[str, Any]], list[Problem]]

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
"""The behaviour hints of ToolAnnotations."""


def main_reason(problems: list[Problem], reasons: Mapping[str, str]) -> str:
    """The reason a FAIL is reported with: of those found, the first in the vocabulary's order."""
    found = {reason for reason, _ in problems}
    return next((code for code in reasons if code in found), problems[0][0])


def judge_each_tool(target: Target, check: ToolCheck, *, reasons: Mapping[str, str], kept: str, broken: str) -> Finding:
    """Run ``check`` on every listed tool: FAIL with the main reason of the problems found, else PASS."""
    tools = tools_of(target)
    if not tools:
        return not_applicable("the server lists no tools")
    found = [check(tool) for tool in tools]
    problems = [p for each in found for p in each]
    if problems:
        bad = sum(1 for each in found if each)
        return failed(main_reason(problems, reasons), f"{bad} of {len(tools)} tool(s) {broken}",
                      *(text for _, text in problems[:12]))
    return passed(f"all {len(tools)} tool(s) {kept}", "checked: " + ", ".join(tool_name(t) for t in tools[:20]))


# -- JSON Schema walking ---------------------------------------------------------------------------------------

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


_UNSET = object()


def _suggested(schema: Any, root: dict[str, Any], depth: int = 0) -> Any:
    """What the schema itself suggests sending where :func:`~..support.fill_value` cannot see it: the first of
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

    The values are :func:`~..support.fill_arguments`'s, except where the schema itself suggests one
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


# -- calling tools without letting a slow one decide the verdict -----------------------------------------------

MAX_UNANSWERED = 2
"""Tools that may leave a call unanswered before a probe stops calling: each costs a full wait and a fresh server."""


class ToolCalls:
    """Tools called on one session, where a call that is not answered within the wait sets its tool aside.

    A tool may be slow by design (it documents a long operation) or stuck; either way its silence is not what
    a rule about listings, errors or evaluation judges. Its tool is recorded as not checked, the session that
    still works on the call is closed, and a fresh one (started on demand) serves the next tool, so a server
    that answers one request at a time does not hold the others behind it. After :data:`MAX_UNANSWERED` such
    tools, no further call is made. Nothing here raises on a silent call; the caller reads :attr:`notes`."""

    def __init__(self, target: Target, *, wait: float, extra_env: dict[str, str] | None = None,
                 session: WireSession | None = None) -> None:
        self.target = target
        self.wait = wait
        self.extra_env = extra_env
        self.session = session
        self.unanswered: dict[str, str] = {}
        """Tool name -> why it was not checked."""
        self.skipped: set[str] = set()
        """Tools not called at all because too many others did not answer."""

    def open(self) -> WireSession:
        """The current session, started (handshake and all) when there is none."""
        if self.session is None:
            self.session, _ = handshake(self.target, extra_env=self.extra_env)
        return self.session

    def may_try(self, name: str) -> bool:
        """False for a tool that already went unanswered, and for every tool once too many did."""
        if name in self.unanswered:
            return False
        if len(self.unanswered) >= MAX_UNANSWERED:
            self.skipped.add(name)
            return False
        return True

    def call(self, name: str, arguments: Any, *, wait: float | None = None) -> dict[str, Any] | None:
        """The response to one ``tools/call``; None when the tool is set aside (now or before)."""
        answers = self.calls(name, [arguments], wait=wait)
        return answers[0] if answers else None

    def calls(self, name: str, arguments: list[Any], *, wait: float | None = None) -> list[dict[str, Any] | None]:
        """Send every call of one tool at once, then collect the answers before one deadline (None for no answer).
        A tool with any call unanswered is set aside; an empty list means it was not called."""
        if not arguments or not self.may_try(name):
            return []
        session = self.open()
        wait = self.wait if wait is None else wait
        sent = []
        for args in arguments:
            rid = session.new_id()
            session.send({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": name, "arguments": args}})
            sent.append(rid)
        deadline = time.monotonic() + wait
        answers: list[dict[str, Any] | None] = []
        for rid in sent:
            try:
                answers.append(session.wait_for_id(rid, timeout=max(deadline - time.monotonic(), 0.05)))
            except WireTimeout:
                answers.append(None)
        if any(a is None for a in answers):
            self._set_aside(name, wait)
        return answers

    def _set_aside(self, name: str, wait: float) -> None:
        session, self.session = self.session, None
        assert session is not None
        if silence_reason(session) == "server_exited":
            self.unanswered[name] = f"not checked: {name}: the server exited during the call"
        elif session.stdout_flooded:
            self.unanswered[name] = f"not checked: {name}: the server flooded stdout during the call"
        elif any(m.value is None for m in session.stdout):
            self.unanswered[name] = f"not checked: {name}: the server wrote a line that is not JSON to stdout"
        else:
            self.unanswered[name] = f"not checked: {name} did not answer within {wait:g} s (slow by design?)"
        session.close(grace=0.2)  # it may still be working on the call; the next tool gets a fresh server

    @property
    def notes(self) -> list[str]:
        """One ``not checked: ...`` line per tool set aside, and one for the tools never called."""
        rows = list(self.unanswered.values())
        if self.skipped:
            rows.append(f"not checked: {', '.join(sorted(self.skipped)[:10])}: not called after "
                        f"{len(self.unanswered)} tools did not answer")
        return rows

    def not_checked(self, rest: str, *evidence: str) -> Finding:
        """N/A for a probe that judged no tool because some went unanswered: why each went unjudged, then ``rest``
        (what the others showed)."""
        return not_applicable("; ".join([*self.notes, rest]), *self.notes, *evidence)
