"""ERR-006 and ERR-010: the JSON-RPC errors a server sends for protocol faults.

Both probes provoke the same faults, every one a client can cause without special knowledge of the
server: an unknown method, an unknown tool, a ``tools/call`` without a name or with non-object
arguments, a cursor the server never issued, an unknown log level (when ``logging`` is advertised), a
truncated JSON line and invalid UTF-8. ERR-006 judges the code each gets (clients branch on it);
ERR-010 judges what the error's message and data show the client (never a trace, a path or a secret).
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from ..registry import probe
from ..support import (
    Finding, Target, WireSession, WireTimeout, ask, callable_tools, compact, error_code, failed, is_error_result,
    not_applicable, passed, session_with_tools,
)
from ._common import answers_between, describe, leak_reason, leaks, validator_dump

UNKNOWN_METHOD = "hb/no_such_method"
UNKNOWN_TOOL = "tools/call of an unknown tool"
FOREIGN_CURSOR = "tools/list with a cursor the server never issued"
FRAMING_FAULTS = ("malformed JSON", "invalid UTF-8")
"""Cases ERR-007 judges in depth: their silence is its finding, not counted here again (a wrong code still is)."""
"""The label of the case whose success answer is worse than any other wrong answer: a tool that does not exist "ran"."""


def _provoke(session: WireSession, target: Target, init: dict[str, Any],
             tools: list[dict[str, Any]]) -> list[tuple[str, Any, dict[str, Any] | None]]:
    """Protocol faults with the code each should get: (label, expected code, response or None when unanswered)."""
    real = tools[0]["name"] if tools else None
    cases: list[tuple[str, Any, str, dict[str, Any]]] = [
        (f"unknown method {UNKNOWN_METHOD}", -32601, UNKNOWN_METHOD, {}),
        (UNKNOWN_TOOL, -32602, "tools/call", {"name": f"hb_no_such_tool_{secrets.token_hex(3)}"}),
        ("tools/call without a name", -32602, "tools/call", {"arguments": {}}),
        (FOREIGN_CURSOR, -32602, "tools/list", {"cursor": "hb-not-a-cursor"}),
    ]
    if real is not None:
        cases.append(("tools/call with arguments that are not an object", -32602, "tools/call",
                      {"name": real, "arguments": "not-an-object"}))
    if "logging" in (init.get("capabilities") or {}) and not target.modern:  # 2026-07-28 removed logging/setLevel
        cases.append(("logging/setLevel with an unknown level", -32602, "logging/setLevel", {"level": "hb-loud"}))
    out: list[tuple[str, Any, dict[str, Any] | None]] = []
    for n, (label, code, method, params) in enumerate(cases):
        try:
            out.append((label, code, ask(session, f"hb-proto-{n}", method, params, timeout=target.timeout)))
        except WireTimeout:
            out.append((label, code, None))
    for label, frame in (("malformed JSON", b'{"jsonrpc": "2.0", "id": "hb-cut", "method": '),
                         ("invalid UTF-8", b"\xff\xfe{\"jsonrpc\":\"2.0\"}")):
        try:
            seen = answers_between(session, frame, timeout=target.timeout)
        except WireTimeout:
            seen = []
        out.append((label, -32700, seen[0] if seen else None))
    return out


PROTOCOL_FAULTS = "protocol_faults"
"""The key under which :func:`provoked` keeps the faults' answers on the target (:attr:`Target.kept`)."""


def provoked(session: WireSession, target: Target, init: dict[str, Any],
             tools: list[dict[str, Any]]) -> list[tuple[str, Any, dict[str, Any] | None]]:
    """:func:`_provoke`, once per target: both probes ask the same faults of a fresh server of the same command, so
    the second one run on the same target (an audit runs clean_protocol_errors right after protocol_error_codes, on
    its target) judges the answers the first one got instead of starting a server to get them again."""
    if PROTOCOL_FAULTS not in target.kept:
        target.kept[PROTOCOL_FAULTS] = _provoke(session, target, init, tools)
    return list(target.kept[PROTOCOL_FAULTS])


def _pages(session: WireSession) -> bool:
    """Whether any ``tools/list`` answer so far handed out a cursor: a server that never does may ignore a foreign one."""
    return any(isinstance(m.value, dict) and isinstance(m.value.get("result"), dict) and m.value["result"].get("nextCursor")
               for m in session.stdout)


def _tolerated(label: str, response: dict[str, Any], pages: bool) -> str | None:
    """Why an answer that is not the standard code is a deviation the rule's *When to deviate* keeps, or None:
    an unknown tool answered with an isError result (the model reads it and can list the tools), a foreign cursor
    ignored by a server that never pages (the full list once, no cursor to loop on)."""
    if label == UNKNOWN_TOOL and is_error_result(response):
        return "an isError result for an unknown tool (When to deviate: an SDK's default the model can act on)"
    result = response.get("result")
    if label == FOREIGN_CURSOR and not pages and isinstance(result, dict) and not result.get("nextCursor"):
        return "the whole list again, from a server that never pages (When to deviate: it cannot loop a client)"
    return None


@probe("protocol_error_codes", "protocol faults get -32601 / -32602 / -32700", calls_tools=True,
       over_http=True, reasons={
           "wrong_error_code": "a protocol fault got a JSON-RPC error with another code than the standard one",
           "unknown_tool_succeeded": "a tools/call of a tool the server never listed got a success result: the client "
                                     "is told that a tool which does not exist ran",
           "fault_as_result": "a protocol fault got a result (an isError result included) instead of a JSON-RPC error",
           "method_not_named": "the -32601 error names the unknown method neither in its message nor in its data",
           "fault_unanswered": "a protocol fault got no answer at all",
       })
def protocol_error_codes(target: Target) -> Finding:
    """Unknown method -32601; unknown tool, missing name, bad cursor, bad params -32602; bad JSON -32700.

    The summary and the evidence rest on what fails the rule: deviations its *When to deviate* keeps are named as
    such and not counted, and silence on a framing fault is ERR-007's finding, named but not counted again."""
    session, init, listed = session_with_tools(target)
    pages = _pages(session)
    evidence: list[str] = []
    problems: list[tuple[str, str]] = []  # (reason, what happened)
    notes: list[str] = []  # seen, not counted: tolerated deviations, ERR-007's silence
    for label, code, response in provoked(session, target, init, callable_tools(target, listed)):
        if response is None:
            if label in FRAMING_FAULTS:
                notes.append(f"{label}: no answer (ERR-007 judges this; not counted here)")
            else:
                problems.append(("fault_unanswered", f"{label}: no answer"))
            continue
        evidence.append(f"{label} -> {describe(response)}")
        if (why := _tolerated(label, response, pages)) is not None:
            notes.append(f"{label}: tolerated, {why}")
            continue
        got = error_code(response)
        if label == UNKNOWN_TOOL and "error" not in response and not is_error_result(response):
            # first, whatever else is wrong: the isError answer is a deviation the rule tolerates, this never is
            problems.insert(0, ("unknown_tool_succeeded",
                                f"{label}: a tool the server never listed was answered with a success result, as if "
                                f"it had run: {describe(response)}"))
        elif "error" not in response:
            problems.append(("fault_as_result", f"{label}: expected JSON-RPC error {code}, got {describe(response)}"))
        elif got != code:
            problems.append(("wrong_error_code", f"{label}: expected JSON-RPC error {code}, got code {got}"))
        elif code == -32601 and UNKNOWN_METHOD not in json.dumps(response["error"]):
            problems.append(("method_not_named",
                             f"{label}: -32601 without naming the method, in message or data: {describe(response)}"))
    if problems:
        summary = f"{len(problems)} protocol fault(s) got the wrong answer"
        if problems[0][0] == "unknown_tool_succeeded":
            summary = f"a tools/call of a tool the server never listed got a success result; {summary}"
        return failed(problems[0][0], summary, *(text for _reason, text in problems), *notes)
    standard = len(evidence) - sum(1 for n in notes if ": tolerated, " in n)
    return passed(f"{standard} protocol fault(s) got the standard codes"
                  + (f"; not counted: {len(notes)} (see below)" if notes else ""), *notes, *evidence)


def _raw_dump(error: Any) -> str:
    """The validation library whose raw report an error's message or data is ("" when none): each is read as the
    text the client gets (a message string as it is, structured data as JSON), so a zod issue list inside a
    message string is found."""
    if not isinstance(error, dict):
        return ""
    parts = [error.get("message"), error.get("data")]
    texts = [p if isinstance(p, str) else json.dumps(p, ensure_ascii=False) for p in parts if p is not None]
    return next((lib for lib in map(validator_dump, texts) if lib), "")


@probe("clean_protocol_errors", "JSON-RPC errors carry no trace, path or secret", calls_tools=True,
       over_http=True, reasons={
           "leaked_secret": "a JSON-RPC error's message or data carries the secret from the server's environment",
           "leaked_internals": "a JSON-RPC error's message or data carries a stack trace, the workspace path or a "
                               "source path",
           "raw_exception_text": "a JSON-RPC error's message or data is a library's raw exception text: a validation "
                                 "library's report (zod's issue list, pydantic's ValidationError, jsonschema's "
                                 "'Failed validating')",
       })
def clean_protocol_errors(target: Target) -> Finding:
    """No stack trace, source path, workspace path, secret or validator's raw report in any JSON-RPC error.

    A validator's raw report is an exception's raw text the rule forbids: the TypeScript SDK's zod issue list
    sent as the message names internal paths and types and quotes what was received."""
    session, init, listed = session_with_tools(target)
    evidence: list[str] = []
    problems: list[tuple[str, str]] = []  # (reason, what happened)
    for label, _code, response in provoked(session, target, init, callable_tools(target, listed)):
        if response is None or "error" not in response:
            continue
        evidence.append(f"{label} -> {compact(response['error'], 200)}")
        found = leaks(json.dumps(response["error"], ensure_ascii=False), target)
        if found:
            problems.append((leak_reason(found),
                             f"{label}: the error shows the client {', '.join(found)}: {compact(response['error'], 300)}"))
        elif dump := _raw_dump(response["error"]):
            problems.append(("raw_exception_text", f"{label}: the error is {dump}'s raw report, an exception's text "
                                                   f"sent as it was raised: {compact(response['error'], 300)}"))
    if not evidence:
        return not_applicable("no protocol error could be provoked")
    if problems:
        reason = "leaked_secret" if any(r == "leaked_secret" for r, _text in problems) else problems[0][0]
        return failed(reason, f"{len(problems)} JSON-RPC error(s) carry internals or a raw exception text",
                      *(text for _reason, text in problems))
    return passed(f"{len(evidence)} JSON-RPC errors carry no stack trace, path, secret or validator's raw report",
                  *evidence)
