"""ERR-002: a tool's failure comes back as a result the model can read, not as a JSON-RPC error.

Hosts show the model a tool's result, ``isError`` and all, but often only "tool call failed" for a
protocol error: a failure sent as an error is a failure the model cannot reason about. The probe makes
the failing calls it can find without special knowledge: a tool that exists to fail, a tool never listed, SQL
that does not parse to a tool that takes SQL, each tool with a path argument pointed at a missing file, and
(2025-11-25 on, SEP-1303) a call missing a required field. A refusal
sent as a success (``isError`` false or absent) whose text plainly says it failed ("Error: ...", "Failed to ...", a
traceback: :data:`~._common.FAILURE_TEXT`) fails too, whichever call it answered: the host shows the model a
success. A missing file answered with ordinary output is left alone (a listing may simply be empty).
"""

from __future__ import annotations

import secrets
from typing import Any

from ..registry import probe
from ..support import (
    PATH_PARAMS, Finding, Target, WireTimeout, callable_tools, failed, fill_arguments, is_error_result, not_applicable,
    passed, session_with_tools, string_params,
)
from ..schemas import code_params, schema_valid_arguments
from ._common import MALFORMED_SQL, SEP_1303, bad_cases, call, describe, failing_tool, reported_failure

MAX_CASES = 10
UNKNOWN_TOOL = "hb_no_such_tool"
"""A JSON-RPC error (-32602) is the answer the specification gives an unknown tool; an isError result is read too;
a success whose text says it failed ("Error: Unknown tool") is not."""


@probe("tool_failures_are_results", "tool failures come back as isError results", calls_tools=True,
       over_http=True, reasons={
           "failure_as_protocol_error": "a tool's failure (deliberate, a missing file, invalid arguments) came back "
                                        "as a JSON-RPC error, not as a result",
           "failure_reported_as_success": "a deliberate failure or an invalid call came back without isError: true, or a "
                                          "refusal whose text plainly says it failed was sent as a success",
           "failure_unanswered": "a failing tool call got no answer at all",
       }, shares_session=True)
def tool_failures_are_results(target: Target) -> Finding:
    """A failing tool, a missing file and (2025-11-25) bad arguments must come back as results, not errors."""
    session, init, listed = session_with_tools(target)
    tools = callable_tools(target, listed)
    version = str(init.get("protocolVersion", ""))
    cases: list[tuple[str, str, Any, bool]] = []  # (label, tool, arguments, must be isError)
    failing = failing_tool(tools)
    if failing is not None:
        cases.append((f"{failing['name']} (fails on purpose)", failing["name"], {}, True))
    missing = f"hb-missing-{secrets.token_hex(3)}/none.txt"
    for tool in tools:
        param = next(iter(string_params(tool, PATH_PARAMS)), None)
        if param is not None and tool is not failing:
            args = {**fill_arguments(tool), param: missing}
            cases.append((f"{tool['name']}({param}={missing!r}) (a missing file)", tool["name"], args, False))
    if version >= SEP_1303:
        bad = next(((t, c) for t in tools for c in bad_cases(t) if c[0].startswith("missing")), None)
        if bad is not None:
            cases.insert(1 if failing is not None else 0,
                         (f"{bad[0]['name']} with {bad[1][0]} (invalid arguments)", bad[0]["name"], bad[1][1], True))
    sql = [(t, p) for t in tools for p in code_params(t) if schema_valid_arguments(t, **{p: MALFORMED_SQL}) is not None]
    if sql:
        tool, param = sql[0]
        cases.insert(0, (f"{tool['name']}({param}={MALFORMED_SQL!r}) (SQL that does not parse)", tool["name"],
                         schema_valid_arguments(tool, **{param: MALFORMED_SQL}), False))
    if tools:
        cases.insert(0, (f"{UNKNOWN_TOOL} (a tool never listed)", UNKNOWN_TOOL, {"hb_probe": "x"}, False))
    if not cases:
        return not_applicable("no callable tool fails on purpose, takes a path, or has required arguments")
    evidence: list[str] = []
    problems: list[tuple[str, str]] = []  # (reason, what happened)
    unknown_refused = False
    for n, (label, name, args, must_flag) in enumerate(cases[:MAX_CASES]):
        try:
            response = call(session, f"hb-fail-{n}", name, args, timeout=target.timeout)
        except WireTimeout as exc:
            problems.append(("failure_unanswered", f"{label}: no answer ({exc})"))
            continue
        evidence.append(f"{label} -> {describe(response)}")
        if "error" in response and name == UNKNOWN_TOOL:
            unknown_refused = True
            continue
        if "error" in response:
            problems.append(("failure_as_protocol_error",
                             f"{label}: a JSON-RPC error where the model needs a tool result: {describe(response)}"))
        elif (said := reported_failure(response)) is not None:
            problems.append(("failure_reported_as_success", f"{label}: a refusal sent as a success (isError is not "
                                                            f"true) whose text says it failed: {said}"))
        elif must_flag and not is_error_result(response):
            problems.append(("failure_reported_as_success", f"{label}: a failure reported as success (isError is not true)"))
    if problems:
        return failed(problems[0][0], f"{len(problems)} tool failure(s) were not reported as isError results",
                      *(text for _reason, text in problems), *evidence)
    judged = len(evidence) - unknown_refused
    if not judged:
        return not_applicable("no callable tool fails on purpose, takes SQL or a path, or has required arguments (a "
                              "tool never listed got the JSON-RPC error the specification gives it)", *evidence)
    return passed(f"{judged} tool failure(s) came back as results the model can read", *evidence)
