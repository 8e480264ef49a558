"""ERR-003 and ERR-004: arguments the tool's inputSchema forbids.

ERR-004: invalid arguments are refused before any handler runs, so a handler never acts on input its
schema rules out (a mutating tool would write first and fail later). ERR-003: since 2025-11-25
(SEP-1303) the refusal is an ``isError`` result naming the field, which the model can read and correct;
a JSON-RPC error often reaches the model only as "tool call failed". Both probes build their invalid
calls from each tool's own schema (:func:`._common.bad_cases`).
"""

from __future__ import annotations

import json
from typing import Any

from ..registry import probe
from ..support import (
    PATH_PARAMS, Finding, Target, WireTimeout, callable_tools, compact, error_code, failed, is_error_result, listed,
    not_applicable, passed, refused, session_with_tools, show, string_params, text_blocks, tool_name,
)
from ..schemas import annotations_of, schema_valid_arguments
from ._common import (
    SEP_1303, bad_cases, call, changed, coercion_cases, describe, quiet_workspace, reported_failure, snapshot,
    validator_dump,
)

MAX_INVALID_CALLS = 30
"""Invalid calls the ERR-004 probe makes at most from :func:`._common.bad_cases` (up to five per tool)."""
MAX_COERCION_CALLS = 16
"""Type confusions the ERR-004 probe sends at most (up to four per tool): :func:`._common.coercion_cases`."""


def _client_text(response: dict[str, Any]) -> str:
    """What the client is shown: the isError result's text, or the JSON-RPC error's message and data (decoded,
    so a JSON dump inside the message reads as JSON)."""
    error = response.get("error")
    if not isinstance(error, dict):
        return text_blocks(response)
    parts = (error.get("message"), error.get("data"))
    return "\n".join(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in parts if v is not None)


@probe("invalid_arguments_feedback", "invalid arguments get an isError result naming the field", calls_tools=True,
       over_http=True, reasons={
           "invalid_args_as_protocol_error": "invalid arguments got a JSON-RPC error where (since 2025-11-25) an isError "
                                             "result the model can read was due",
           "invalid_args_accepted": "a call with invalid arguments was answered as a success",
           "field_not_named": "the isError text does not name the offending field",
           "raw_validator_dump": "the client was sent a validation library's raw error text (pydantic's ValidationError, "
                                 "zod's issue array, jsonschema's report), not a message written for the model",
           "invalid_args_unanswered": "a call with invalid arguments got no answer",
       }, shares_session=True)
def invalid_arguments_feedback(target: Target) -> Finding:
    """Missing and mistyped arguments: an isError result that names the field (2025-11-25, SEP-1303)."""
    session, init, offered = session_with_tools(target)
    version = str(init.get("protocolVersion", ""))
    if version < SEP_1303:
        return not_applicable(f"the server negotiated {version or 'no version'}; before {SEP_1303} invalid "
                              "arguments were a JSON-RPC -32602 error")
    tools = callable_tools(target, offered)
    picked: list[tuple[str, dict[str, Any], str, str]] = []  # (tool, arguments, offending field, label)
    for kind in ("missing", "'"):
        hit = next(((t["name"], c) for t in tools for c in bad_cases(t) if c[0].startswith(kind)), None)
        if hit is not None:
            picked.append((hit[0], hit[1][1], hit[1][2], hit[1][0]))
    if not picked:
        return not_applicable("no callable tool declares required or typed arguments")
    evidence: list[str] = []
    problems: list[tuple[str, str]] = []  # (reason, what happened)
    dumps: list[str] = []  # the validation libraries whose raw text came back
    bad_calls = 0
    for n, (name, args, field, label) in enumerate(picked):
        try:
            response = call(session, f"hb-args-{n}", name, args, timeout=target.timeout)
        except WireTimeout as exc:
            return failed("invalid_args_unanswered", f"{name} with {label}: no answer ({exc})",
                          *(text for _reason, text in problems), *evidence)
        evidence.append(f"{name} with {label} -> {describe(response)}")
        shown = _client_text(response)
        dump = validator_dump(shown)
        before = len(problems)
        if "error" in response:
            problems.append(("invalid_args_as_protocol_error",
                             f"{name} with {label}: a JSON-RPC error ({error_code(response)}); since {SEP_1303} "
                             "invalid arguments are an isError result the model can read and correct"))
        elif not is_error_result(response):
            problems.append(("invalid_args_accepted", f"{name} with {label}: accepted as a success"))
        if dump and refused(response):
            dumps.append(dump)
            problems.append(("raw_validator_dump",
                             f"{name} with {label}: the client gets {dump}'s raw validation error, not a message "
                             f"written for the model: {show(shown, target, 240)}"))
        elif is_error_result(response) and field not in shown:
            problems.append(("field_not_named", f"{name} with {label}: the message does not name the field {field!r}"))
        bad_calls += len(problems) > before
    if problems:
        summary = f"{bad_calls} invalid-argument call(s) got no actionable isError result"
        if problems[0][0] == "raw_validator_dump":
            summary = f"invalid arguments got {dumps[0]}'s raw validation error text; {summary}"
        return failed(problems[0][0], summary, *(text for _reason, text in problems), *evidence)
    return passed("invalid arguments came back as isError results naming the field", *evidence)


def _answered_call(session, target: Target, tool: dict[str, Any]) -> dict[str, Any] | None:
    """Valid arguments the tool answers with an ordinary result (not refused, no text that reports a failure):
    those its schema suggests, else with each path parameter set to the served folder ("."), as a git server wants
    its repository; None when neither is answered so (then a refusal of a confused value proves nothing)."""
    first = schema_valid_arguments(tool)
    if first is None:
        return None
    paths = {p: "." for p in string_params(tool, PATH_PARAMS)}
    for n, args in enumerate([first, {**first, **paths}] if paths else [first]):
        try:
            response = call(session, f"hb-ordinary-{tool_name(tool)}-{n}", tool_name(tool), args, timeout=target.timeout)
        except WireTimeout:
            return None
        if not refused(response) and reported_failure(response) is None:
            return args
    return None


@probe("validate_before_handler", "arguments the schema forbids never reach a handler", calls_tools=True,
       reasons={
           "invalid_call_changed_workspace": "a call with arguments the schema forbids changed the workspace: "
                                             "its handler ran",
           "invalid_call_accepted": "a call with arguments the schema forbids got a success result: its handler ran",
           "invalid_call_unanswered": "a call with arguments the schema forbids got no answer (its handler is "
                                      "running on them, or the server hung)",
       }, shares_session=True)
def validate_before_handler(target: Target) -> Finding:
    """Send arguments the inputSchema forbids: each call refused, nothing in the workspace changed."""
    session, _init, offered = session_with_tools(target)
    tools = callable_tools(target, offered)
    calls = [(t["name"], c) for t in tools for c in bad_cases(t)[:5]][:MAX_INVALID_CALLS]
    mild = [t for t in tools if annotations_of(t).get("readOnlyHint") is not False]  # an accepted confusion runs it
    confusions = [(t["name"], c) for t in mild if (base := _answered_call(session, target, t)) is not None
                  for c in coercion_cases(t, base)[:4]]
    calls += confusions[:MAX_COERCION_CALLS]
    if not calls:
        return not_applicable("no callable tool declares constraints that arguments can break")
    quiet = quiet_workspace(session, target)
    before = snapshot(target.workspace)
    evidence = [] if quiet else ["the workspace changes on a mere ping, so side effects were not compared"]
    problems: list[tuple[str, str]] = []  # (reason, what happened)
    for n, (name, (label, args, _field)) in enumerate(calls):
        try:
            response = call(session, f"hb-val-{n}", name, args, timeout=target.timeout)
        except WireTimeout as exc:
            problems.append(("invalid_call_unanswered", f"{name} with {label}: no answer ({exc})"))
            continue
        row = f"{name} with {label} -> {describe(response)}"
        evidence.append(row)
        if not refused(response):
            problems.append(("invalid_call_accepted", f"the handler ran on invalid input: {name} with {label} "
                             f"({compact(args, 120)}) -> {describe(response)}"))
    touched = changed(before, snapshot(target.workspace)) if quiet else []
    if touched:
        problems.insert(0, ("invalid_call_changed_workspace", f"invalid calls changed the workspace: {', '.join(touched[:5])}"))
    if problems:
        coerced = sum(1 for _r, text in problems if any(f"{n} with {c[0]} (" in text for n, c in confusions))
        kinds = f" ({coerced} of them type confusions a lax validator coerced)" if coerced else ""
        return failed(problems[0][0], f"{len(problems)} invalid call(s) reached a handler{kinds}",
                      *listed(text for _reason, text in problems), *listed(evidence))
    unchanged = "; the workspace is unchanged" if quiet else ""
    return passed(f"{len(calls)} invalid calls refused before any handler ran{unchanged}", *listed(evidence))
