"""Probes of the error contract: who gets an answer, which kind, and what it may say.

Every probe speaks to the server over its real pipe, discovers tools through
``tools/list`` and sends adversarial arguments only to tools ``Target.may_call``
allows. Where a server offers nothing to exercise (no tool that fails on
purpose, no tool with a side effect in the workspace) the probe says N/A and why.
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import time
from pathlib import Path
from typing import Any

from ...wire import Message, WireSession
from ..base import (
    Finding, Probe, Target, WireTimeout, compact, failed, list_tools, not_applicable, passed, refused,
)
from .framing import is_jsonrpc_message

SEP_1303 = "2025-11-25"
"""The first revision in which invalid tool arguments are tool execution errors."""
PATH_PARAMS = ("path", "file", "filename", "filepath", "file_path", "relative_path")
FAILING_TOOL = re.compile(r"(^|[_.-])(fail|failing|error|crash|raise|throw)", re.I)
SOURCE_PATH = re.compile(r"(?<![\w:/.])(?:/[^\s\"'<>:;]+)+\.(?:py|js|mjs|ts|go|rs|java|rb|php)\b|\b[A-Za-z]:\\[^\s\"']+")
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+|^\s+at \S+ \(", re.M)
REFERENCE = re.compile(r"\b(?:ref(?:erence)?|incident|error[ _-]?id|trace[ _-]?id)\b\W{0,3}(?=[A-Za-z-]*\d)([A-Za-z0-9-]{6,})",
                       re.I)
UNKNOWN_METHOD = "hb/no_such_method"
ACTION = re.compile(r"\bAction:\s*(\S+(?:\s+\S+){2,})")


# -- shared plumbing ----------------------------------------------------------------------------------

def _open(target: Target) -> tuple[WireSession, dict[str, Any]]:
    """Start a session and complete the handshake; return the initialize result."""
    session = target.start()
    response = session.initialize(timeout=target.timeout)
    return session, response.get("result") or {}


def _ask(session: WireSession, rid: Any, method: str, params: dict[str, Any] | None = None, *,
         timeout: float) -> dict[str, Any]:
    """Send one request with a chosen id and wait for the response carrying it."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        message["params"] = params
    session.send(message)
    return session.wait_for_id(rid, timeout=timeout)


def _call(session: WireSession, rid: Any, name: str, arguments: Any, *, timeout: float) -> dict[str, Any]:
    return _ask(session, rid, "tools/call", {"name": name, "arguments": arguments}, timeout=timeout)


def _between(session: WireSession, frame: bytes, *, timeout: float) -> list[Message]:
    """Send one raw frame, then a separator ping; return what the server wrote in between."""
    start = len(session.stdout)
    sep = f"hb-sep-{secrets.token_hex(4)}"
    session.send_raw(frame if frame.endswith(b"\n") else frame + b"\n", timeout=timeout)
    session.send({"jsonrpc": "2.0", "id": sep, "method": "ping"})
    session.wait_for_id(sep, timeout=timeout)
    seen = session.stdout[start:]
    return [m for m in seen if not (isinstance(m.value, dict) and m.value.get("id") == sep)]


def _responses(messages: list[Message]) -> list[dict[str, Any]]:
    return [m.value for m in messages
            if isinstance(m.value, dict) and "method" not in m.value and ("result" in m.value or "error" in m.value)]


def _error_code(response: dict[str, Any]) -> Any:
    error = response.get("error")
    return error.get("code") if isinstance(error, dict) else None


def _text(response: dict[str, Any]) -> str:
    """The text blocks of a tools/call result, joined."""
    content = (response.get("result") or {}).get("content") or []
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))


def _is_error_result(response: dict[str, Any]) -> bool:
    return isinstance(response.get("result"), dict) and response["result"].get("isError") is True


def _describe(response: dict[str, Any]) -> str:
    if "error" in response:
        return f"JSON-RPC error {_error_code(response)}: {compact(response['error'], 160)}"
    if _is_error_result(response):
        return f"isError result: {compact(_text(response), 160)}"
    return f"success result: {compact(response.get('result'), 160)}"


def _same_id(a: Any, b: Any) -> bool:
    """Equal ids of the same JSON type (0 is not "0", and 1 is not true)."""
    return type(a) is type(b) and a == b


def _fill(schema: dict[str, Any]) -> Any:
    """A plausible valid value for one property schema (bounds respected where declared)."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        low = low if isinstance(low, (int, float)) else 0
        return math.floor(low) + 1 if "minimum" not in schema and "exclusiveMinimum" in schema else math.ceil(low)
    if kind == "string":
        return "x" * max(1, int(schema.get("minLength", 1)))
    return {"boolean": False, "array": [], "object": {}, "null": None}.get(kind, "x")


def _props(tool: dict[str, Any]) -> dict[str, dict[str, Any]]:
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    return {k: v for k, v in props.items() if isinstance(v, dict)}


def _required(tool: dict[str, Any]) -> list[str]:
    required = (tool.get("inputSchema") or {}).get("required") or []
    return [r for r in required if isinstance(r, str)]


def _valid_arguments(tool: dict[str, Any], *, skip: str | None = None) -> dict[str, Any]:
    """Required fields, plus numeric fields that have a lower bound (so no call waits on a default)."""
    props = _props(tool)
    names = [n for n in _required(tool) if n != skip]
    names += [n for n, s in props.items() if n not in names and n != skip and s.get("type") in ("integer", "number")
              and "minimum" in s]
    return {n: _fill(props.get(n, {})) for n in names}


WRONG_TYPE = {"string": 12345, "integer": "twelve", "number": "twelve", "boolean": "yes", "array": "x", "object": "x"}


def _bad_cases(tool: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """(label, arguments, offending field) for arguments the tool's inputSchema rejects."""
    props, required = _props(tool), _required(tool)
    cases: list[tuple[str, dict[str, Any], str]] = []
    if required:
        name = required[0]
        cases.append((f"missing required '{name}'", _valid_arguments(tool, skip=name), name))
    typed = [(n, s) for n, s in props.items() if isinstance(s.get("type"), str) and s["type"] in WRONG_TYPE
             and "enum" not in s]
    typed.sort(key=lambda item: item[0] not in required)  # required fields first
    if typed:
        name, schema = typed[0]
        args = _valid_arguments(tool)
        args[name] = WRONG_TYPE[schema["type"]]
        cases.append((f"'{name}' of the wrong type", args, name))
    if (tool.get("inputSchema") or {}).get("additionalProperties") is False:
        args = _valid_arguments(tool)
        args["hb_unexpected_field"] = "x"
        cases.append(("an undeclared field", args, "hb_unexpected_field"))
    for name, schema in props.items():
        if schema.get("type") == "string" and isinstance(schema.get("maxLength"), int) and schema["maxLength"] < 100_000:
            args = _valid_arguments(tool)
            args[name] = "x" * (schema["maxLength"] + 1)
            cases.append((f"'{name}' longer than maxLength {schema['maxLength']}", args, name))
            break
    for name, schema in props.items():
        if schema.get("type") in ("integer", "number") and isinstance(schema.get("maximum"), (int, float)):
            args = _valid_arguments(tool)
            args[name] = int(schema["maximum"]) + 1
            cases.append((f"'{name}' above maximum {schema['maximum']}", args, name))
            break
    return cases


def _callable_tools(session: WireSession, target: Target) -> list[dict[str, Any]]:
    return [t for t in list_tools(session, timeout=target.timeout)
            if isinstance(t.get("name"), str) and target.may_call(t)]


def _failing_tool(tools: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A tool that exists to fail (by its name) and needs no arguments."""
    return next((t for t in tools if FAILING_TOOL.search(t["name"]) and not _required(t)), None)


def _leaks(text: str, target: Target) -> list[str]:
    """What in a client-visible text should never have been there."""
    found = []
    if target.canary and target.canary in text:
        found.append("the secret from the server's environment")
    if TRACEBACK.search(text):
        found.append("a stack trace")
    workspace = {str(target.workspace), str(target.workspace.resolve())}
    if any(w in text for w in workspace):
        found.append("the server's absolute workspace path")
    match = SOURCE_PATH.search(text)
    if match:
        found.append(f"an internal source path ({match.group(0)[:80]})")
    return found


def _snapshot(root: Path, limit: int = 5000) -> dict[str, tuple[int, int]]:
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


def _changed(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def _quiet_workspace(session: WireSession, target: Target) -> bool:
    """False when the workspace changes on a mere ping (a log file in it): then changes prove nothing."""
    before = _snapshot(target.workspace)
    _ask(session, f"hb-quiet-{secrets.token_hex(3)}", "ping", timeout=target.timeout)
    return _snapshot(target.workspace) == before


# -- ERR: one answer per request ------------------------------------------------------------------------

def one_answer_per_request(target: Target) -> Finding:
    """Mix requests (falsy ids included) with notifications; count the answers each id got."""
    session, _init = _open(target)
    tools = _callable_tools(session, target)
    requests: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 0, "method": "ping"},
        {"jsonrpc": "2.0", "id": "", "method": "ping"},
        {"jsonrpc": "2.0", "id": -1, "method": "ping", "params": {"_meta": {"progressToken": "hb"}}},
        {"jsonrpc": "2.0", "id": "hb-unknown", "method": "hb/no_such_method"},
        {"jsonrpc": "2.0", "id": "hb-list", "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "hb-no-tool", "method": "tools/call",
         "params": {"name": f"hb_no_such_tool_{secrets.token_hex(3)}", "arguments": {}}},
    ]
    bad = next(((t, c) for t in tools for c in _bad_cases(t)), None)
    if bad is not None:
        requests.append({"jsonrpc": "2.0", "id": "hb-bad-args", "method": "tools/call",
                         "params": {"name": bad[0]["name"], "arguments": bad[1][1]}})
    notifications: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/hb_unknown", "params": {}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "hb-never-sent"}},
        {"jsonrpc": "2.0", "method": "ping"},
        {"jsonrpc": "2.0", "method": "hb/no_such_method"},
    ]
    start = len(session.stdout)
    for request, note in zip(requests, notifications + [None] * len(requests)):
        session.send(request)
        if note is not None:
            session.send(note)
    end_id = f"hb-end-{secrets.token_hex(3)}"
    evidence = [f">>> {compact(m, 120)}" for m in [*requests, *notifications]]
    try:
        session.send({"jsonrpc": "2.0", "id": end_id, "method": "ping"})
        session.wait_for_id(end_id, timeout=target.timeout)
        for request in requests:  # a slow answer still counts; it must come once
            if not any(_same_id(r.get("id"), request["id"]) for r in _responses(session.stdout[start:])):
                session.wait_for(lambda v, rid=request["id"]: isinstance(v, dict) and _same_id(v.get("id"), rid),
                                 timeout=min(1.0, target.timeout))
        time.sleep(0.15)  # room for a late duplicate or a late answer to a notification
    except WireTimeout as exc:
        return failed(f"the server stopped answering: {exc}", *evidence, *session.transcript(limit=10))
    answers = [r for r in _responses(session.stdout[start:]) if not _same_id(r.get("id"), end_id)]
    problems: list[str] = []
    for request in requests:
        got = [r for r in answers if _same_id(r.get("id"), request["id"])]
        label = f"{request['method']} id {request['id']!r}"
        if not got:
            problems.append(f"{label}: no answer")
        elif len(got) > 1:
            problems.append(f"{label}: {len(got)} answers")
        elif request["method"] == "ping" and "result" not in got[0]:
            problems.append(f"{label}: answered with an error, not handled as a request: {_describe(got[0])}")
    sent_ids = [r["id"] for r in requests]
    for stray in answers:
        if not any(_same_id(stray.get("id"), i) for i in sent_ids):
            problems.append(f"an answer to no request (a notification answered, or an invented id): {compact(stray, 200)}")
    shown = [f"<<< {compact(a, 160)}" for a in answers]
    if problems:
        return failed(f"{len(problems)} request/notification(s) mishandled", *problems, *evidence, *shown)
    return passed(f"{len(requests)} requests got one answer each; {len(notifications)} notifications got none",
                  *evidence, *shown)


# -- ERR: tool failures are results ---------------------------------------------------------------------

def tool_failures_are_results(target: Target) -> Finding:
    """A failing tool, a missing file and (2025-11-25) bad arguments must come back as results, not errors."""
    session, init = _open(target)
    tools = _callable_tools(session, target)
    version = str(init.get("protocolVersion", ""))
    cases: list[tuple[str, str, Any, bool]] = []  # (label, tool, arguments, must be isError)
    failing = _failing_tool(tools)
    if failing is not None:
        cases.append((f"{failing['name']} (fails on purpose)", failing["name"], {}, True))
    missing = f"hb-missing-{secrets.token_hex(3)}/none.txt"
    for tool in tools:
        param = next((p for p in _props(tool) if p in PATH_PARAMS and _props(tool)[p].get("type") == "string"), None)
        if param is not None and tool is not failing:
            args = _valid_arguments(tool)
            args[param] = missing
            cases.append((f"{tool['name']}({param}={missing!r}) (a missing file)", tool["name"], args, False))
    if version >= SEP_1303:
        bad = next(((t, c) for t in tools for c in _bad_cases(t) if c[0].startswith("missing")), None)
        if bad is not None:
            cases.append((f"{bad[0]['name']} with {bad[1][0]} (invalid arguments)", bad[0]["name"], bad[1][1], True))
    if not cases:
        return not_applicable("no callable tool fails on purpose, takes a path, or has required arguments")
    evidence, problems = [], []
    for n, (label, name, args, must_flag) in enumerate(cases[:6]):
        try:
            response = _call(session, f"hb-fail-{n}", name, args, timeout=target.timeout)
        except WireTimeout as exc:
            problems.append(f"{label}: no answer ({exc})")
            continue
        evidence.append(f"{label} -> {_describe(response)}")
        if "error" in response:
            problems.append(f"{label}: a JSON-RPC error where the model needs a tool result: {_describe(response)}")
        elif must_flag and not _is_error_result(response):
            problems.append(f"{label}: a failure reported as success (isError is not true)")
    if problems:
        return failed(f"{len(problems)} tool failure(s) were not reported as isError results", *problems, *evidence)
    return passed(f"{len(evidence)} tool failure(s) came back as results the model can read", *evidence)


# -- ERR: invalid arguments feedback ----------------------------------------------------------------------

def invalid_arguments_feedback(target: Target) -> Finding:
    """Missing and mistyped arguments: an isError result that names the field (2025-11-25, SEP-1303)."""
    session, init = _open(target)
    version = str(init.get("protocolVersion", ""))
    if version < SEP_1303:
        return not_applicable(f"the server negotiated {version or 'no version'}; before {SEP_1303} invalid "
                              "arguments were a JSON-RPC -32602 error")
    tools = _callable_tools(session, target)
    picked: list[tuple[str, dict[str, Any], str, str]] = []
    for kind in ("missing", "'"):
        hit = next(((t["name"], c) for t in tools for c in _bad_cases(t) if c[0].startswith(kind)), None)
        if hit is not None:
            picked.append((hit[0], hit[1][1], hit[1][2], hit[1][0]))
    if not picked:
        return not_applicable("no callable tool declares required or typed arguments")
    evidence, problems = [], []
    for n, (name, args, field, label) in enumerate(picked):
        try:
            response = _call(session, f"hb-args-{n}", name, args, timeout=target.timeout)
        except WireTimeout as exc:
            return failed(f"{name} with {label}: no answer ({exc})", *evidence)
        evidence.append(f"{name} with {label} -> {_describe(response)}")
        if "error" in response:
            problems.append(f"{name} with {label}: a JSON-RPC error ({_error_code(response)}); since {SEP_1303} "
                            "invalid arguments are an isError result the model can read and correct")
        elif not _is_error_result(response):
            problems.append(f"{name} with {label}: accepted as a success")
        elif field not in _text(response):
            problems.append(f"{name} with {label}: the message does not name the field {field!r}")
    if problems:
        return failed(f"{len(problems)} invalid-argument call(s) got no actionable isError result", *problems, *evidence)
    return passed("invalid arguments came back as isError results naming the field", *evidence)


# -- ERR: validation before the handler ---------------------------------------------------------------------

def validation_before_handler(target: Target) -> Finding:
    """Send arguments the inputSchema forbids: each call refused, nothing in the workspace changed."""
    session, _init = _open(target)
    tools = _callable_tools(session, target)
    calls = [(t["name"], c) for t in tools for c in _bad_cases(t)[:5]][:30]
    if not calls:
        return not_applicable("no callable tool declares constraints that arguments can break")
    quiet = _quiet_workspace(session, target)
    before = _snapshot(target.workspace)
    evidence = [] if quiet else ["the workspace changes on a mere ping, so side effects were not compared"]
    problems: list[str] = []
    for n, (name, (label, args, _field)) in enumerate(calls):
        try:
            response = _call(session, f"hb-val-{n}", name, args, timeout=target.timeout)
        except WireTimeout as exc:
            problems.append(f"{name} with {label}: no answer ({exc})")
            continue
        row = f"{name} with {label} -> {_describe(response)}"
        evidence.append(row)
        if not refused(response):
            problems.append(f"the handler ran on invalid input: {row}")
    changed = _changed(before, _snapshot(target.workspace)) if quiet else []
    if changed:
        problems.insert(0, f"invalid calls changed the workspace: {', '.join(changed[:5])}")
    if problems:
        return failed(f"{len(problems)} invalid call(s) reached a handler", *problems, *evidence[:12])
    unchanged = "; the workspace is unchanged" if quiet else ""
    return passed(f"{len(calls)} invalid calls refused before any handler ran{unchanged}", *evidence[:12])


# -- ERR: safe failure of a tool -------------------------------------------------------------------------------

def safe_tool_failure(target: Target) -> Finding:
    """A tool that raises: a safe isError result for the client, the detail (without secrets) on stderr."""
    session, _init = _open(target)
    tools = _callable_tools(session, target)
    tool = _failing_tool(tools)
    if tool is None:
        return not_applicable("no callable tool fails on purpose (a tool named like fail_*, *_error, crash...)")
    stderr_before = len(session.stderr_lines)
    try:
        response = _call(session, "hb-crash", tool["name"], {}, timeout=target.timeout)
    except WireTimeout as exc:
        return failed(f"{tool['name']} got no answer: {exc}", *session.transcript(limit=10))
    deadline = time.monotonic() + 1.0
    while len(session.stderr_lines) == stderr_before and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.05)
    logged = "\n".join(ln.text for ln in session.stderr_lines[stderr_before:])
    evidence = [f"{tool['name']}() -> {_describe(response)}", *(f"err {ln[:200]}" for ln in logged.splitlines()[:4])]
    if "error" in response:
        return failed("the tool's failure became a JSON-RPC error, not an isError result", *evidence)
    if not _is_error_result(response):
        return failed("the tool's failure was reported as a success (isError is not true)", *evidence)
    leaks = _leaks(json.dumps(response, ensure_ascii=False), target)
    if leaks:
        return failed(f"the failure result shows the client {', '.join(leaks)}", *evidence)
    if not logged.strip():
        return failed("nothing reached stderr: the operator has no record of the failure", *evidence)
    if target.canary and target.canary in logged:
        return failed("the failure detail on stderr carries the secret from the server's environment", *evidence)
    ref = REFERENCE.search(_text(response))
    if ref and ref.group(1) not in logged:
        return failed(f"the message cites reference {ref.group(1)!r}, but stderr never mentions it", *evidence)
    return passed("a safe isError result for the client; the detail went to stderr"
                  + (f" under reference {ref.group(1)}" if ref else ""), *evidence)


# -- ERR: protocol error codes and clean protocol errors -------------------------------------------------------

def _provoke(session: WireSession, target: Target, init: dict[str, Any]) -> list[tuple[str, Any, dict[str, Any] | None]]:
    """Protocol faults with the code each should get: (label, expected code, response or None)."""
    tools = _callable_tools(session, target)
    real = tools[0]["name"] if tools else None
    cases: list[tuple[str, Any, str, dict[str, Any]]] = [
        (f"unknown method {UNKNOWN_METHOD}", -32601, UNKNOWN_METHOD, {}),
        ("tools/call of an unknown tool", -32602, "tools/call", {"name": f"hb_no_such_tool_{secrets.token_hex(3)}"}),
        ("tools/call without a name", -32602, "tools/call", {"arguments": {}}),
        ("tools/list with a cursor the server never issued", -32602, "tools/list", {"cursor": "hb-not-a-cursor"}),
    ]
    if real is not None:
        cases.append(("tools/call with arguments that are not an object", -32602, "tools/call",
                      {"name": real, "arguments": "not-an-object"}))
    if "logging" in (init.get("capabilities") or {}):
        cases.append(("logging/setLevel with an unknown level", -32602, "logging/setLevel", {"level": "hb-loud"}))
    out: list[tuple[str, Any, dict[str, Any] | None]] = []
    for n, (label, code, method, params) in enumerate(cases):
        try:
            out.append((label, code, _ask(session, f"hb-proto-{n}", method, params, timeout=target.timeout)))
        except WireTimeout:
            out.append((label, code, None))
    for label, frame in (("malformed JSON", b'{"jsonrpc": "2.0", "id": "hb-cut", "method": '),
                         ("invalid UTF-8", b"\xff\xfe{\"jsonrpc\":\"2.0\"}")):
        try:
            seen = _responses(_between(session, frame, timeout=target.timeout))
        except WireTimeout:
            seen = []
        out.append((label, -32700, seen[0] if seen else None))
    return out


def protocol_error_codes(target: Target) -> Finding:
    """Unknown method -32601; unknown tool, missing name, bad cursor, bad params -32602; bad JSON -32700."""
    session, init = _open(target)
    evidence, problems = [], []
    for label, code, response in _provoke(session, target, init):
        if response is None:
            problems.append(f"{label}: no answer")
            continue
        evidence.append(f"{label} -> {_describe(response)}")
        got = _error_code(response)
        if got != code:
            what = _describe(response) if got is None else f"code {got}"
            problems.append(f"{label}: expected JSON-RPC error {code}, got {what}")
        elif code == -32601 and UNKNOWN_METHOD not in json.dumps(response["error"]):
            problems.append(f"{label}: -32601 without naming the method, in message or data: {_describe(response)}")
    if problems:
        return failed(f"{len(problems)} protocol fault(s) got the wrong answer", *problems, *evidence)
    return passed(f"{len(evidence)} protocol faults got the standard codes", *evidence)


def clean_protocol_errors(target: Target) -> Finding:
    """No stack trace, source path, workspace path or secret in any JSON-RPC error message or data."""
    session, init = _open(target)
    evidence, problems = [], []
    for label, _code, response in _provoke(session, target, init):
        if response is None or "error" not in response:
            continue
        evidence.append(f"{label} -> {compact(response['error'], 200)}")
        leaks = _leaks(json.dumps(response["error"], ensure_ascii=False), target)
        if leaks:
            problems.append(f"{label}: the error shows the client {', '.join(leaks)}: {compact(response['error'], 300)}")
    if not evidence:
        return not_applicable("no protocol error could be provoked")
    if problems:
        return failed(f"{len(problems)} JSON-RPC error(s) carry internals", *problems)
    return passed(f"{len(evidence)} JSON-RPC errors carry no stack trace, path or secret", *evidence)


# -- ERR: malformed messages --------------------------------------------------------------------------------------

def malformed_message_errors(target: Target) -> Finding:
    """Bad JSON -32700 and non-request JSON -32600, each answered once with a null id; serving goes on."""
    session, _init = _open(target)
    frames: list[tuple[str, bytes, int, Any]] = [  # label, frame, code, acceptable id besides null
        ("truncated JSON", b'{"jsonrpc": "2.0", "id": 41, "method": "pi', -32700, None),
        ("invalid UTF-8", b'\xff\xfe\xfd', -32700, None),
        ("a batch (removed in 2025-06-18)", b'[{"jsonrpc": "2.0", "id": 42, "method": "ping"}]', -32600, None),
        ("an empty array", b'[]', -32600, None),
        ("a bare number", b'42', -32600, None),
        ("a bare string", b'"ping"', -32600, None),
        ("an object without method", b'{"jsonrpc": "2.0", "id": "hb-nomethod"}', -32600, "hb-nomethod"),
        ("jsonrpc 1.0", b'{"jsonrpc": "1.0", "id": "hb-v1", "method": "ping"}', -32600, "hb-v1"),
    ]
    evidence, problems = [], []
    for label, frame, code, echo in frames:
        try:
            seen = _between(session, frame, timeout=target.timeout)
        except WireTimeout as exc:
            return failed(f"after {label} the server stopped answering: {exc}", *evidence, *session.transcript(limit=8))
        answers = _responses(seen)
        evidence.append(f">>> {label}: {frame[:60]!r}")
        evidence.extend(f"<<< {compact(a, 200)}" for a in answers)
        if len(answers) != 1:
            problems.append(f"{label}: {len(answers)} answers, expected exactly one error")
            continue
        answer = answers[0]
        if _error_code(answer) != code:
            problems.append(f"{label}: expected error {code}, got {_describe(answer)}")
        rid = answer.get("id")
        if rid is not None and not (echo is not None and _same_id(rid, echo)):
            problems.append(f"{label}: the error carries id {rid!r}; an id the server could not read must be null")
    if problems:
        return failed(f"{len(problems)} malformed message(s) mishandled", *problems, *evidence)
    return passed(f"{len(frames)} malformed messages each got one error with the right code and id; serving went on",
                  *evidence)


# -- ERR: ids echoed verbatim ----------------------------------------------------------------------------------------

ECHO_IDS: tuple[tuple[Any, Any], ...] = (  # (id for a ping, id for an unknown method): results and errors
    ("", 0), ("0", "00"), (-1, -2), ("abc", "ABC"), (9007199254740993, 9007199254740995),
    ("id with spaces/\u00fc", "id/\u00fc 2"),
)


def id_echo(target: Target) -> Finding:
    """Success and error answers must carry the request's id exactly: same value, same JSON type."""
    session, _init = _open(target)
    sent: list[tuple[Any, str, dict[str, Any]]] = []
    for ping_id, error_id in ECHO_IDS:
        sent.append((ping_id, "ping", {}))
        sent.append((error_id, "hb/no_such_method", {}))
    sent.append(("0x", "tools/call", {"name": f"hb_no_such_tool_{secrets.token_hex(3)}"}))
    start = len(session.stdout)
    end_id = f"hb-end-{secrets.token_hex(3)}"
    for rid, method, params in sent:
        session.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    session.send({"jsonrpc": "2.0", "id": end_id, "method": "ping"})
    try:
        session.wait_for_id(end_id, timeout=target.timeout)
    except WireTimeout as exc:
        return failed(f"the server stopped answering: {exc}", *session.transcript(limit=10))
    answers = [r for r in _responses(session.stdout[start:]) if not _same_id(r.get("id"), end_id)]
    remaining = list(answers)
    problems = []
    for rid, method, _params in sent:
        match = next((a for a in remaining if _same_id(a.get("id"), rid)), None)
        if match is None:
            problems.append(f"{method} with id {json.dumps(rid)} ({type(rid).__name__}): no answer carries that id")
        else:
            remaining.remove(match)
    for extra in remaining:
        problems.append(f"an answer with id {json.dumps(extra.get('id'))}, which no request used: {compact(extra, 160)}")
    evidence = [f"<<< {compact(a, 140)}" for a in answers]
    if problems:
        return failed(f"{len(problems)} id(s) were not echoed verbatim", *problems, *evidence)
    return passed(f"{len(sent)} ids (0, \"0\", -1, \"\", 2^53+1, ...) echoed with their type, on results and errors",
                  *evidence)


# -- ERR: de-duplication keyed by the client's id -------------------------------------------------------------------

def dedup_by_request_id(target: Target) -> Finding:
    """A re-delivered non-idempotent call (same id) must not run twice; a new id must run again."""
    session, _init = _open(target)
    tools = [t for t in _callable_tools(session, target)
             if (t.get("annotations") or {}).get("readOnlyHint") is not True
             and (t.get("annotations") or {}).get("idempotentHint") is not True
             and not FAILING_TOOL.search(t["name"])]
    if not tools:
        return not_applicable("no callable tool is marked non-idempotent with a side effect")
    if not _quiet_workspace(session, target):
        return not_applicable("the workspace changes on a mere ping, so a tool's effect cannot be told apart")
    evidence = []
    for tool in tools[:3]:
        args = {n: (f"hb dedup {secrets.token_hex(2)}" if isinstance(v, str) else v)
                for n, v in _valid_arguments(tool).items()}
        first_id = f"hb-dedup-{secrets.token_hex(3)}"
        s0 = _snapshot(target.workspace)
        try:
            first = _call(session, first_id, tool["name"], args, timeout=target.timeout)
            s1 = _snapshot(target.workspace)
            if not _changed(s0, s1):
                evidence.append(f"{tool['name']}: no visible effect in the workspace ({_describe(first)})")
                continue
            again = _call(session, first_id, tool["name"], args, timeout=target.timeout)
            s2 = _snapshot(target.workspace)
            fresh = _call(session, first_id + "-new", tool["name"], args, timeout=target.timeout)
            s3 = _snapshot(target.workspace)
        except WireTimeout as exc:
            return failed(f"{tool['name']}: no answer ({exc})", *evidence)
        evidence += [f"{tool['name']} id {first_id!r} -> {_describe(first)}",
                     f"same id again -> {_describe(again)}", f"new id -> {_describe(fresh)}"]
        if _changed(s1, s2):
            return failed(f"{tool['name']} ran twice for one request id: {', '.join(_changed(s1, s2))} changed again",
                          *evidence)
        if not _changed(s2, s3):
            return failed(f"{tool['name']} with a new request id did not run: the server treated it as a duplicate",
                          *evidence)
        return passed(f"{tool['name']}: the re-delivered id ran once; a new id ran again", *evidence)
    return not_applicable("no callable non-idempotent tool has an effect the probe can see in the workspace", *evidence)


# -- ERR: Action hints -----------------------------------------------------------------------------------------------

def action_hints(target: Target) -> Finding:
    """Every isError text the probe can provoke carries an `Action:` hint of a few words."""
    session, _init = _open(target)
    tools = _callable_tools(session, target)
    cases: list[tuple[str, str, dict[str, Any]]] = []
    bad = next(((t, c) for t in tools for c in _bad_cases(t) if c[0].startswith("missing")), None)
    if bad is not None:
        cases.append((f"{bad[0]['name']} with {bad[1][0]}", bad[0]["name"], bad[1][1]))
    failing = _failing_tool(tools)
    if failing is not None:
        cases.append((f"{failing['name']}()", failing["name"], {}))
    path_tool = next(((t, p) for t in tools for p in _props(t) if p in PATH_PARAMS and t is not failing), None)
    if path_tool is not None:
        args = _valid_arguments(path_tool[0])
        args[path_tool[1]] = f"hb-missing-{secrets.token_hex(3)}.txt"
        cases.append((f"{path_tool[0]['name']} on a missing file", path_tool[0]["name"], args))
    evidence, problems, texts = [], [], 0
    for n, (label, name, args) in enumerate(cases):
        try:
            response = _call(session, f"hb-act-{n}", name, args, timeout=target.timeout)
        except WireTimeout as exc:
            problems.append(f"{label}: no answer ({exc})")
            continue
        if not _is_error_result(response):
            evidence.append(f"{label} -> not an isError result, skipped: {_describe(response)}")
            continue
        texts += 1
        text = _text(response)
        evidence.append(f"{label} -> {compact(text, 200)}")
        if not ACTION.search(text):
            problems.append(f"{label}: no 'Action:' hint saying what to do next: {compact(text, 160)}")
    if not texts and not problems:
        return not_applicable("no isError result could be provoked", *evidence)
    if problems:
        return failed(f"{len(problems)} tool error(s) leave the model without a next step", *problems, *evidence)
    return passed(f"{texts} tool error(s) each end with an Action: hint", *evidence)


# -- TEST: bounded fuzz -----------------------------------------------------------------------------------------------

FUZZ_STRINGS: tuple[str, ...] = (
    "", "../../../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "; rm -rf / #", "$(id) `id` | cat", "a\x00b",
    "\ud800", "e\u0301 \u00e9 \ufb01", "\u202egnp.exe", "\U0001f600" * 50, "%s%n{0}{{7*7}}",
)
FUZZ_OTHER: tuple[Any, ...] = (None, 12345, -1, 2**64, 1e308, [], {}, True, "1")
NULL = object()

FUZZ_FRAMES: tuple[tuple[str, bytes, Any], ...] = (  # label, frame, the id it carries (NULL: none readable)
    ("truncated JSON", b'{"jsonrpc":"2.0","id":1,"method":', NULL),
    ("invalid UTF-8", b"\xc3\x28\xa0\xa1", NULL),
    ("deep nesting", b"[" * 20000 + b"]" * 20000, NULL),
    ("NaN literal", b'{"jsonrpc":"2.0","id":"hb-nan","method":"ping","params":{"x":NaN}}', "hb-nan"),
    ("a byte-order mark", b'\xef\xbb\xbf{"jsonrpc":"2.0","id":"hb-bom","method":"ping"}', "hb-bom"),
    ("CRLF line ending", b'{"jsonrpc":"2.0","id":"hb-crlf","method":"ping"}\r', "hb-crlf"),
    ("NUL in an id", b'{"jsonrpc":"2.0","id":"hb-\\u0000","method":"ping"}', "hb-\x00"),
    ("a lone surrogate in an id", b'{"jsonrpc":"2.0","id":"hb-\\ud800","method":"ping"}', "hb-\ud800"),
    ("a 30-digit integer id", b'{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}',
     123456789012345678901234567890),
    ("an id that overflows a double", b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}', float("inf")),
    ("a boolean id", b'{"jsonrpc":"2.0","id":true,"method":"ping"}', True),
    ("an object id", b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', {"a": 1}),
    ("a null method", b'{"jsonrpc":"2.0","id":"hb-m","method":null}', "hb-m"),
    ("params that are a string", b'{"jsonrpc":"2.0","id":"hb-p","method":"tools/list","params":"x"}', "hb-p"),
)


def _fuzz_values(schema: dict[str, Any]) -> list[Any]:
    values: list[Any] = []
    if schema.get("type") == "string":
        values += list(FUZZ_STRINGS)
        if isinstance(schema.get("maxLength"), int) and schema["maxLength"] < 100_000:
            values.append("x" * (schema["maxLength"] + 1))
        else:
            values.append("x" * 20000)
    return values + list(FUZZ_OTHER)


def bounded_fuzz(target: Target) -> Finding:
    """Adversarial frames and arguments: every request answered once, stdout stays JSON-RPC, serving goes on."""
    session, _init = _open(target)
    problems: list[str] = []
    evidence: list[str] = []
    for label, frame, rid in FUZZ_FRAMES:
        try:
            answers = _responses(_between(session, frame, timeout=target.timeout))
        except WireTimeout as exc:
            return failed(f"after {label} the server stopped answering: {exc}", *problems, *session.transcript(limit=8))
        shown = "; ".join(compact(a, 120) for a in answers) or "nothing"
        evidence.append(f"{label} -> {shown}")
        if len(answers) != 1:
            problems.append(f"{label}: {len(answers)} answers, expected exactly one ({shown})")
            continue
        got = answers[0].get("id")
        if got is not None and not (rid is not NULL and (_same_id(got, rid) or got == rid)):
            problems.append(f"{label}: answered with id {got!r}, which is neither the request's id nor null")
    tools = [t for t in _callable_tools(session, target) if any(p for p in _props(t))]
    calls: list[tuple[str, str, Any]] = []
    for tool in tools[:5]:
        for param in list(_props(tool))[:2]:
            for value in _fuzz_values(_props(tool)[param]):
                args = _valid_arguments(tool)
                args[param] = value
                calls.append((tool["name"], param, args))
    start = len(session.stdout)
    ids: list[str] = []
    deadline = time.monotonic() + min(max(target.timeout, 3.0), 8.0)
    calls = calls[:120]
    for first in range(0, len(calls), 20):  # in chunks: the pipe is drained before each write
        chunk = list(range(first, min(first + 20, len(calls))))
        blob = b"".join(json.dumps({"jsonrpc": "2.0", "id": f"hb-fuzz-{n}", "method": "tools/call",
                                    "params": {"name": calls[n][0], "arguments": calls[n][2]}}).encode() + b"\n"
                        for n in chunk)
        if not session.send_raw(blob, timeout=max(0.5, deadline - time.monotonic())):
            problems.append(f"the server stopped reading stdin during the fuzz (after {first} calls)")
            break
        for n in chunk:
            ids.append(f"hb-fuzz-{n}")
            try:
                session.wait_for_id(f"hb-fuzz-{n}", timeout=max(0.05, deadline - time.monotonic()))
            except WireTimeout as exc:
                value = compact(calls[n][2].get(calls[n][1]), 60)
                problems.append(f"{calls[n][0]}({calls[n][1]}={value}): {exc}")
        if len(problems) > 8 or time.monotonic() > deadline:
            break
    try:
        _ask(session, "hb-fuzz-end", "ping", timeout=target.timeout)
    except WireTimeout as exc:
        problems.append(f"the server stopped serving after the fuzz: {exc}")
    time.sleep(0.1)
    answers = _responses(session.stdout[start:])
    for rid in ids:
        count = sum(1 for a in answers if a.get("id") == rid)
        if count > 1:
            problems.append(f"{rid}: {count} answers")
    junk = [m for m in session.stdout if not is_jsonrpc_message(m.value)]
    if junk:
        problems.append(f"{len(junk)} stdout line(s) are not JSON-RPC messages: {junk[0].line.text[:120]}")
    evidence.append(f"{len(ids)} fuzzed tools/call requests to {len(tools[:5])} tool(s)")
    if problems:
        return failed(f"{len(problems)} problem(s) under a bounded fuzz", *problems[:12], *evidence)
    return passed(f"{len(FUZZ_FRAMES)} hostile frames and {len(ids)} fuzzed calls each got one answer; stdout stayed "
                  "JSON-RPC and serving went on", *evidence)


PROBES = (
    Probe("one_answer_per_request", one_answer_per_request, "each request answered once, notifications never",
          calls_tools=True),
    Probe("tool_failures_are_results", tool_failures_are_results, "tool failures come back as isError results",
          calls_tools=True),
    Probe("invalid_arguments_feedback", invalid_arguments_feedback,
          "invalid arguments get an isError result naming the field", calls_tools=True),
    Probe("validation_before_handler", validation_before_handler,
          "arguments the schema forbids never reach a handler", calls_tools=True),
    Probe("safe_tool_failure", safe_tool_failure, "a crashing tool yields a safe isError result, detail on stderr",
          calls_tools=True),
    Probe("protocol_error_codes", protocol_error_codes, "protocol faults get -32601 / -32602 / -32700",
          calls_tools=True),
    Probe("clean_protocol_errors", clean_protocol_errors, "JSON-RPC errors carry no trace, path or secret",
          calls_tools=True),
    Probe("malformed_message_errors", malformed_message_errors, "bad JSON -32700, non-requests -32600, id null"),
    Probe("id_echo", id_echo, "response ids echo request ids verbatim, type included"),
    Probe("dedup_by_request_id", dedup_by_request_id, "a re-delivered non-idempotent call runs once",
          calls_tools=True),
    Probe("action_hints", action_hints, "tool errors end with an Action: hint", calls_tools=True),
    Probe("bounded_fuzz", bounded_fuzz, "hostile frames and arguments: one answer each, serving goes on",
          calls_tools=True),
)
