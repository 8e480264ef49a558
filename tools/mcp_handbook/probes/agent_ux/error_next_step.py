"""UX-005: every tool error says what to do next.

An ``isError`` result is read by the model, which decides from it whether to fix its arguments, call
another tool, retry or stop; a bare "not found" leaves it to guess, and it usually retries the same call.
The probe provokes tool errors on every callable tool (required arguments left out, an unexpected
argument, a path that does not exist, no arguments at all) and requires an ``Action:`` line in each
``isError`` result. JSON-RPC error responses are left to the error-contract rules. A tool that does not
answer within the wait (slow by design, or stuck) is not checked; the other tools are judged.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from ..registry import probe
from ..support import (
    PATH_PARAMS, callable_tools, compact, failed, listed, Finding, not_applicable, passed, Target, text_blocks, tool_name,
    tools_of,
)
from ..calls import ToolCalls
from ..schemas import annotations_of, closed, declared, input_schema, resolve, schema_valid_arguments, types

REASONS = {
    "no_next_step": "an isError result carries no 'Action:' line saying what to do next",
}
NEXT_STEP = re.compile(r"\baction\s*:", re.I)
MAX_CALLS = 40


def _attempts(tools: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str, dict[str, Any]]]:
    """``(tool, what is wrong with the call, arguments)`` for every call meant to provoke a tool error."""
    missing = f"hb-missing-{secrets.token_hex(4)}/nothing-here.txt"
    attempts: list[tuple[dict[str, Any], str, dict[str, Any]]] = []
    for tool in tools:
        schema = input_schema(tool)
        props = declared(schema)
        if schema.get("required"):
            attempts.append((tool, "missing required arguments", {}))
        elif closed(schema):
            attempts.append((tool, "an unexpected argument", {"hb_unexpected": 1}))
        for param in PATH_PARAMS:
            if isinstance(props.get(param), dict) and "string" in types(resolve(props[param], schema)):
                args = schema_valid_arguments(tool, **{param: missing})
                if args is not None:
                    attempts.append((tool, f"{param} that does not exist", args))
                break
        if not schema.get("required") and annotations_of(tool).get("readOnlyHint") is True:
            attempts.append((tool, "no arguments", {}))
    return attempts


@probe("error_next_step", "every isError result carries an 'Action:' next step", over_http=True, reasons=REASONS,
       calls_tools=True, shares_session=True)
def error_next_step(target: Target) -> Finding:
    """Provoke tool errors (missing or unexpected arguments, a path that does not exist); every isError
    result must carry an ``Action:`` line saying what to do next."""
    tools = callable_tools(target, tools_of(target))
    if not tools:
        return not_applicable("no tool may be called")
    attempts = _attempts(tools)
    calls = ToolCalls(target, wait=target.timeout)
    errors_seen = 0
    evidence: list[str] = []
    problems: list[str] = []
    for tool, why, args in attempts[:MAX_CALLS]:
        name = tool_name(tool)
        response = calls.call(name, args)
        result = response.get("result") if response is not None else None
        if response is None or not isinstance(result, dict) or not result.get("isError"):
            continue  # not answered in time (noted), a success, or a JSON-RPC error (the error contract's rules)
        errors_seen += 1
        text = text_blocks(response)
        shown = f"{name}({compact(args, 70)}) [{why}] -> {text[:180]!r}"
        if NEXT_STEP.search(text):
            evidence.append(shown)
        else:
            problems.append(f"{shown}: no 'Action:' line")
    if problems:
        return failed("no_next_step", f"{len(problems)} of {errors_seen} tool error(s) do not say what to do next",
                      *listed(problems), *calls.notes, *evidence[:4])
    if not errors_seen:
        if calls.notes:  # the tools that did not answer may be the ones whose errors lack a next step
            return calls.not_checked("no other call returned an isError result to read")
        return not_applicable("no tool call returned an isError result to read", f"{len(attempts)} call(s) tried")
    return passed(f"all {errors_seen} tool error(s) provoked carry an 'Action:' line"
                  + (f"; {len(calls.unanswered)} tool(s) not checked (no answer)" if calls.unanswered else ""),
                  *evidence[:8], *calls.notes)
