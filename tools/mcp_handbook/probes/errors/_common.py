"""What the error-contract probes share: invalid arguments built from a tool's schema, the tool that fails
on purpose, what must never show in a client-visible text, workspace snapshots, raw frames and ids."""

from __future__ import annotations

import json
import os
import re
import secrets
from pathlib import Path
from typing import Any

from ..schemas import code_params, declared, input_schema, resolve, schema_valid_arguments, string_example, valid_against
from ..support import (
    Message, Target, WireSession, ask, compact, error_code, fill_arguments, fill_value, is_error_result, properties, responses,
    schema_type, text_blocks,
)

SEP_1303 = "2025-11-25"
"""The first revision in which invalid tool arguments are tool execution errors."""
FAILING_TOOL = re.compile(r"(^|[_.-])(fail|failing|error|crash|raise|throw)", re.I)
"""A tool named to fail on purpose (``fail_always``, ``raise_error``, ``crash``...)."""
SOURCE_PATH = re.compile(r"(?<![\w:/.])(?:/[^\s\"'<>:;]+)+\.(?:py|js|mjs|ts|go|rs|java|rb|php)\b|\b[A-Za-z]:\\[^\s\"']+")
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+|^\s+at \S+ \(", re.M)
SECRET = "the secret from the server's environment"
"""The leak :func:`leaks` names first when the canary came back."""
WRONG_TYPE = {"string": 12345, "integer": "twelve", "number": "twelve", "boolean": "yes", "array": "x", "object": "x"}
"""A value of another JSON type for each declared type."""
PYDANTIC_DUMP = re.compile(r"\b\d+ validation errors? for \w+|\[type=[\w.]+(?:, input_value=|\])|errors\.pydantic\.dev/")
"""``str()`` of a pydantic ValidationError: its header, its ``[type=..., input_value=...]`` tags, its help link."""
JSONSCHEMA_DUMP = re.compile(r"Failed validating '\w+' in (?:meta)?schema")
"""``str()`` of a Python jsonschema ValidationError (the schema and the instance follow it)."""
FAILURE_TEXT = re.compile(
    r"\A\s*(?:(?:(?!no\s)\w+\s)?\w*(?:error|exception)\b\s*[:!\-\[]|(?:error|failure)\s+(?:to|while|when|in|during|reading|opening|"
    r"executing|calling|running|processing)\b|failed\b|invalid\b|cannot\b|can't\b|could\s+not\b|unable\s+to\b|"
    r"no\s+such\s+file\b|permission\s+denied\b|access\s+denied\b)"
    r"|Traceback \(most recent call last\)|\bENOENT\b", re.I)
"""A tool result's text that plainly reports a failure: it *opens* with one (``Error: ...``, ``ValueError: ...``,
``Database error: ...``,
``Error executing tool ...``, ``Failed to ...``, ``Invalid path ...``, ``Cannot ...``, ``Could not ...``), or
carries a Python traceback or Node's ``ENOENT``. Only the opening counts for words, so a tool whose ordinary output
mentions an error further on ("3 lines, 1 error") is not read as failing."""
ZOD_ISSUES = re.compile(r"\[\s*\{")
"""Where a zod issue array (``ZodError.message``: the issues as JSON) may start."""


# -- ids and answers -----------------------------------------------------------------------------------------

def same_id(a: Any, b: Any) -> bool:
    """Equal ids of the same JSON type (0 is not "0", and 1 is not true)."""
    return type(a) is type(b) and a == b


def describe(response: dict[str, Any]) -> str:
    """One line saying what kind of answer a response is."""
    if "error" in response:
        return f"JSON-RPC error {error_code(response)}: {compact(response['error'], 160)}"
    if is_error_result(response):
        return f"isError result: {compact(text_blocks(response), 160)}"
    return f"success result: {compact(response.get('result'), 160)}"


def reported_failure(response: dict[str, Any]) -> str | None:
    """The text of a result *not* flagged ``isError`` that plainly reports a failure (:data:`FAILURE_TEXT`), cut to
    a line of evidence; None for an isError result, an error, or text that reads as ordinary output."""
    if "result" not in response or is_error_result(response):
        return None
    text = text_blocks(response)
    return compact(text, 160) if FAILURE_TEXT.search(text) else None


def call(session: WireSession, rid: Any, name: str, arguments: Any, *, timeout: float) -> dict[str, Any]:
    """``tools/call`` under a chosen id."""
    return ask(session, rid, "tools/call", {"name": name, "arguments": arguments}, timeout=timeout)


def between(session: WireSession, frame: bytes, *, timeout: float) -> list[Message]:
    """Send one raw frame, then a separator ping; return what the server wrote in between.

    Raises :class:`~mcp_handbook.wire.WireTimeout` when the ping is not answered (the server stopped serving)."""
    start = len(session.stdout)
    sep = f"hb-sep-{secrets.token_hex(4)}"
    session.send_raw(frame if frame.endswith(b"\n") else frame + b"\n", timeout=timeout)
    session.send({"jsonrpc": "2.0", "id": sep, "method": "ping"})
    session.wait_for_id(sep, timeout=timeout)
    seen = session.stdout[start:]
    return [m for m in seen if not (isinstance(m.value, dict) and m.value.get("id") == sep)]


def answers_between(session: WireSession, frame: bytes, *, timeout: float) -> list[dict[str, Any]]:
    """The responses the server wrote to one raw frame (see :func:`between`)."""
    return responses(between(session, frame, timeout=timeout))


# -- tools and invalid arguments -----------------------------------------------------------------------------

def required(tool: dict[str, Any]) -> list[str]:
    names = (tool.get("inputSchema") or {}).get("required") or []
    return [n for n in names if isinstance(n, str)]


def bad_cases(tool: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """(label, arguments, offending field) for arguments the tool's inputSchema rejects: a missing required
    field, a field of the wrong type, an undeclared field, a string over maxLength, a number over maximum."""
    props, needed = properties(tool), required(tool)
    cases: list[tuple[str, dict[str, Any], str]] = []
    if needed:
        name = needed[0]
        cases.append((f"missing required '{name}'", fill_arguments(tool, skip=name), name))
    typed = [(n, s) for n, s in props.items() if schema_type(s) in WRONG_TYPE and "enum" not in s]
    typed.sort(key=lambda item: item[0] not in needed)  # required fields first
    if typed:
        name, schema = typed[0]
        cases.append((f"'{name}' of the wrong type", {**fill_arguments(tool), name: WRONG_TYPE[schema_type(schema)]}, name))
    if (tool.get("inputSchema") or {}).get("additionalProperties") is False:
        cases.append(("an undeclared field", {**fill_arguments(tool), "hb_unexpected_field": "x"}, "hb_unexpected_field"))
    for name, schema in props.items():
        if schema_type(schema) == "string" and isinstance(schema.get("maxLength"), int) and schema["maxLength"] < 100_000:
            too_long = "x" * (schema["maxLength"] + 1)
            cases.append((f"'{name}' longer than maxLength {schema['maxLength']}", {**fill_arguments(tool), name: too_long}, name))
            break
    for name, schema in props.items():
        if schema_type(schema) in ("integer", "number") and isinstance(schema.get("maximum"), (int, float)):
            over = int(schema["maximum"]) + 1
            cases.append((f"'{name}' above maximum {schema['maximum']}", {**fill_arguments(tool), name: over}, name))
            break
    return cases


def _confusions(kind: str, valid: Any) -> list[tuple[str, Any]]:
    """(what, value) of another JSON type that a lax validator turns into ``valid``'s type (pydantic's lax mode
    parses "1" and true as the integer 1, "true" and 1 as true; a JavaScript ``Number()`` or ``!!`` does alike)."""
    if kind in ("integer", "number") and isinstance(valid, (int, float)) and not isinstance(valid, bool):
        return [(f"the string {str(valid)!r}", str(valid)), ("the boolean true", True)]
    if kind == "boolean":
        return [("the string 'true'", "true"), ("the number 1", 1)]
    if kind == "string":
        return [("the number 1", 1)]
    return []


def coercion_cases(tool: dict[str, Any], base: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """(label, arguments, offending field) for type confusions a lax validator lets through: a numeric string or a
    boolean for an integer or number, a string or a number for a boolean, a number for a string. The other
    arguments are ``base``, a call the tool answered with an ordinary result, so a success can only mean its
    handler ran on the confused value; a case is kept only when the schema refuses it (so ``anyOf`` [integer,
    string] is left alone)."""
    schema = input_schema(tool)
    cases: list[tuple[str, dict[str, Any], str]] = []
    for name, sub in declared(schema).items():
        sub = resolve(sub, schema)
        if not isinstance(sub, dict) or {"enum", "const"} & sub.keys():
            continue
        kind = schema_type(sub)
        valid = base.get(name, fill_value(sub))
        for what, value in _confusions(kind, valid):
            args = {**base, name: value}
            if not valid_against(schema, args):
                cases.append((f"'{name}' given {what} where the schema says {kind}", args, name))
    return cases


def failing_tool(tools: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A tool that exists to fail (by its name) and needs no arguments."""
    return next((t for t in tools if FAILING_TOOL.search(t["name"]) and not required(t)), None)


# -- what the client must never see -------------------------------------------------------------------------

def leaks(text: str, target: Target) -> list[str]:
    """What in a client-visible text should never have been there (the secret first, when it is there)."""
    found = []
    if target.canary and target.canary in text:
        found.append(SECRET)
    if TRACEBACK.search(text):
        found.append("a stack trace")
    workspace = {str(target.workspace), str(target.workspace.resolve())}
    if any(w in text for w in workspace):
        found.append("the server's absolute workspace path")
    match = SOURCE_PATH.search(text)
    if match:
        found.append(f"an internal source path ({match.group(0)[:80]})")
    return found


def validator_dump(text: str) -> str:
    """The validation library whose raw error text ``text`` carries ("" when none): pydantic's ValidationError
    (``1 validation error for XArguments``, ``[type=missing, input_value={}, ...]``, ``errors.pydantic.dev``),
    jsonschema's (``Failed validating 'type' in schema``) or zod's issue array (a JSON list of objects with
    ``code``, ``path`` and ``message``). A message written for the model, naming the field, matches none."""
    if PYDANTIC_DUMP.search(text):
        return "pydantic"
    if JSONSCHEMA_DUMP.search(text):
        return "jsonschema"
    decoder = json.JSONDecoder()
    for n, start in enumerate(ZOD_ISSUES.finditer(text)):
        if n >= 20:
            break
        try:
            value, _end = decoder.raw_decode(text, start.start())
        except ValueError:
            continue
        if isinstance(value, list) and value and all(
                isinstance(i, dict) and {"code", "path", "message"} <= i.keys() and isinstance(i["path"], list)
                for i in value):
            return "zod"
    return ""


def leak_reason(found: list[str]) -> str:
    """``leaked_secret`` when the canary is among ``found``, else ``leaked_internals``."""
    return "leaked_secret" if SECRET in found else "leaked_internals"


# -- the workspace ------------------------------------------------------------------------------------------

def snapshot(root: Path, limit: int = 5000) -> dict[str, tuple[int, int]]:
    """Every file under the workspace with its size and modification time (bounded)."""
    seen: dict[str, tuple[int, int]] = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            seen[os.path.relpath(path, root)] = (st.st_size, st.st_mtime_ns)
            if len(seen) >= limit:
                return seen
    return seen


def changed(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def quiet_workspace(session: WireSession, target: Target) -> bool:
    """False when the workspace changes on a mere ping (a log file in it): then changes prove nothing."""
    before = snapshot(target.workspace)
    ask(session, f"hb-quiet-{secrets.token_hex(3)}", "ping", timeout=target.timeout)
    return snapshot(target.workspace) == before


# -- raw exception text in what the client is shown ---------------------------------------------------------

ERRNO = re.compile(r"\[(?:Errno|WinError) -?\d+\]")
"""``str()`` of a Python ``OSError`` (``[Errno 21] Is a directory: '...'``)."""
EXCEPTION_CLASS = re.compile(r"(?<![\w.])(?:[a-z_]\w*\.)*[A-Z]\w*?(?:Error|Exception)(?=: |\(['\"])")
"""An exception's class name heading its text, as ``traceback`` or ``String(err)`` print it (``ValueError: ...``,
``duckdb.duckdb.ParserException: ...``, ``TypeError: ...``, ``KeyError('x')``); a bare ``Error:`` is an author's
habit, not a class, and does not count."""
RUNTIME_MESSAGE = re.compile(
    r"'\w+' object (?:has no attribute|is not (?:subscriptable|callable|iterable))|"
    r"Cannot read propert(?:y|ies) of (?:undefined|null)|\bis not a function\b|list index out of range|"
    r"invalid literal for int\(\) with base|unsupported operand type\(s\)|maximum recursion depth exceeded|"
    r"Unexpected token .{1,20} in JSON at position")
"""Messages only a language runtime writes (Python's ``AttributeError``/``TypeError``/``IndexError``, JavaScript's
``TypeError``): no author writes "'NoneType' object has no attribute 'fetchall'" for the model."""
VALIDATOR_RAW = re.compile(r"\binput_value=|For further information visit https?://errors\.pydantic\.dev")
"""pydantic's ``ValidationError`` text raised *inside* a handler (the arguments already passed the schema)."""
ABSOLUTE_PATH = re.compile(r"(?<![\w:/.~%@-])/(?:[\w.@+~-]+/)+[\w.@+~-]*")
"""A POSIX absolute path of two segments or more (``/usr/lib/x``); a URL's path (after ``host``) is not one."""


def exception_text(text: str) -> str:
    """What in ``text`` is an exception's raw text rather than a message written for the model ("" when nothing):
    a traceback, an OSError's ``[Errno N]``, an exception class heading the text, a runtime's own message, or a
    pydantic dump raised inside the handler."""
    for pattern, what in ((TRACEBACK, "a stack trace"), (ERRNO, "an OSError's [Errno N] text"),
                          (EXCEPTION_CLASS, "an exception class name"), (RUNTIME_MESSAGE, "a language runtime's message"),
                          (VALIDATOR_RAW, "pydantic's raw ValidationError")):
        match = pattern.search(text)
        if match:
            return f"{what} ({compact(match.group(0), 60)})"
    return ""


def unsent_paths(text: str, sent: list[str], target: Target) -> list[str]:
    """Absolute paths of this machine in ``text`` that the caller did not send and did not configure: not in any
    string of the request, not under the workspace or the served root, not under a path in the server's own command
    line. Only paths that exist here, or lie in a folder that does (:func:`_of_this_machine`), count, so ``/api/v1/items``
    in a message is no path."""
    known = [str(target.workspace), str(target.workspace.resolve())]
    if target.root is not None:
        known += [str(target.root), str(target.root.resolve())]
    known += [a for a in target.argv[1:] if a.startswith("/")]
    found: list[str] = []
    for match in ABSOLUTE_PATH.finditer(text):
        path = match.group(0).rstrip(".,;:")
        if any(path in s for s in sent) or any(path == k or path.startswith(k.rstrip("/") + "/") for k in known):
            continue
        if _of_this_machine(path):
            found.append(path)
    return found


def _of_this_machine(path: str) -> bool:
    """The path, or a folder above it at least two levels deep (``/usr/lib``, not ``/usr``), exists here."""
    here = Path(path)
    while len(here.parts) >= 3:
        if here.exists():
            return True
        here = here.parent
    return False


def client_text(response: dict[str, Any]) -> str:
    """What the client is shown: a result's text blocks, or the JSON-RPC error's message and data (decoded, so a JSON
    dump inside the message reads as JSON)."""
    error = response.get("error")
    if not isinstance(error, dict):
        return text_blocks(response)
    parts = (error.get("message"), error.get("data"))
    return "\n".join(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in parts if v is not None)


# -- plausible but wrong values (ERR-005's calls) -------------------------------------------------------------

MALFORMED_SQL = "SELECT * FROM WHERE"
"""A statement every SQL dialect refuses at parse time, for a parameter that carries SQL."""
NOT_PROVOKED = ("url", "uri", "link", "href", "endpoint")
"""Parameters never given a wrong value: a prefix of a URL would be fetched."""
PROVOKED_PER_TOOL = 6


def plausible_wrong_values(schema: dict[str, Any], *, code: bool) -> list[tuple[str, str]]:
    """(label, value) for one string property: values of the right type that a model could plausibly send and
    a handler may not expect. An empty string; for a parameter that carries SQL, a statement that does not parse;
    else from the example the schema gives (``America/New_York``), its folder (``America``: a directory where a
    file is read) and its first half (a prefix of a valid key)."""
    values = [("an empty string", "")]
    if code:
        return [*values, ("SQL that does not parse", MALFORMED_SQL)]
    example = string_example(schema)
    if example is None or "://" in example:
        return values
    folder = example.strip("/").rpartition("/")[0]
    if folder:
        values.append((f"the folder of its example {example!r}", folder))
    half = example[: len(example) // 2]
    if len(example) >= 4 and half not in (folder, ""):
        values.append((f"the first half of its example {example!r}", half))
    return values


def provoking_calls(tool: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """(label, arguments, value sent) for calls that keep to the tool's schema but give one string parameter a
    plausible wrong value (:func:`plausible_wrong_values`), the other arguments ordinary. Parameters with an
    ``enum``, a ``const``, a ``format`` or a URL's name are left alone, and a call the schema would refuse is
    dropped: what is judged is the handler's failure, not the validator's."""
    schema = input_schema(tool)
    base = schema_valid_arguments(tool)
    if base is None:
        return []
    code = set(code_params(tool))
    needed = [n for n in schema.get("required") or () if isinstance(n, str)]
    names = sorted(declared(schema), key=lambda n: n not in needed)
    calls: list[tuple[str, dict[str, Any], str]] = []
    for name in names:
        sub = resolve(declared(schema)[name], schema)
        if (not isinstance(sub, dict) or sub.get("type") != "string" or {"enum", "const", "format"} & sub.keys()
                or name.lower() in NOT_PROVOKED):
            continue
        for label, value in plausible_wrong_values(sub, code=name in code):
            args = {**base, name: value}
            if args != base and valid_against(schema, args):
                calls.append((f"{tool['name']}({name}={value!r}: {label})", args, value))
    return calls[:PROVOKED_PER_TOOL]
