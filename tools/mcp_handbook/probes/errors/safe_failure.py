"""ERR-005: a tool that raises yields a safe isError result for the client and the detail on stderr.

An exception's text and traceback carry install paths, the workspace, library versions and whatever
values the failing frame held, secrets included; sent to the client they reach logs, screens and the
model. The operator still needs the detail: it belongs on stderr, without secrets, under a reference
the client's message can cite. The probe calls a tool that exists to fail and reads both sides.
"""

from __future__ import annotations

import json
import re

from ..registry import probe
from ..support import (
    Finding, Target, WireTimeout, callable_tools, failed, is_error_result, not_applicable, passed, session_with_tools,
    text_blocks,
)
from ._common import call, describe, failing_tool, leak_reason, leaks

REFERENCE = re.compile(r"\b(?:ref(?:erence)?|incident|error[ _-]?id|trace[ _-]?id)\b\W{0,3}(?=[A-Za-z-]*\d)([A-Za-z0-9-]{6,})",
                       re.I)
"""A reference the message cites for the operator to look up (``reference 3f9c2a1e``, ``ref: ...``)."""
FAILURE_WORDS = re.compile(r"error|fail|exception|traceback|crash", re.I)
"""A stderr line that says something failed (the session's own start and shutdown lines do not)."""


@probe("safe_tool_failure", "a crashing tool yields a safe isError result, detail on stderr", calls_tools=True,
       reasons={
           "failure_as_protocol_error": "the tool's failure became a JSON-RPC error, not an isError result",
           "failure_reported_as_success": "the tool's failure was reported as a success (isError is not true)",
           "failure_unanswered": "the call to the failing tool was never answered",
           "leaked_secret": "the failure result shows the client the secret from the server's environment",
           "leaked_internals": "the failure result shows the client a stack trace, the workspace path or a source path",
           "nothing_on_stderr": "no stderr line records the failure: the operator has no record of it",
           "secret_on_stderr": "the failure detail on stderr carries the secret from the server's environment",
           "reference_not_logged": "the message cites a reference that stderr never mentions",
       })
def safe_tool_failure(target: Target) -> Finding:
    """A tool that raises: a safe isError result for the client, the detail (without secrets) on stderr."""
    session, _init, listed = session_with_tools(target)
    tool = failing_tool(callable_tools(target, listed))
    if tool is None:
        return not_applicable("no callable tool fails on purpose (a tool named like fail_*, *_error, crash...)")
    session.settle()
    stderr_before = len(session.stderr_lines)  # the lines of the handshake are not the failure's
    try:
        response = call(session, "hb-crash", tool["name"], {}, timeout=target.timeout)
    except WireTimeout as exc:
        return failed("failure_unanswered", f"{tool['name']} got no answer: {exc}", *session.transcript(limit=10))
    session.close(grace=1.0)  # stderr is its own pipe, read on its own thread: only its end says every line is in
    after = [ln.text for ln in session.stderr_lines[stderr_before:]]
    ref = REFERENCE.search(text_blocks(response))
    about = [ln for ln in after if tool["name"] in ln or (ref and ref.group(1) in ln) or FAILURE_WORDS.search(ln)]
    logged = "\n".join(after)
    evidence = [f"{tool['name']}() -> {describe(response)}", *(f"err {ln[:200]}" for ln in (about or after)[:4])]
    if "error" in response:
        return failed("failure_as_protocol_error", "the tool's failure became a JSON-RPC error, not an isError result",
                      *evidence)
    if not is_error_result(response):
        return failed("failure_reported_as_success", "the tool's failure was reported as a success (isError is not true)",
                      *evidence)
    found = leaks(json.dumps(response, ensure_ascii=False), target)
    if found:
        return failed(leak_reason(found), f"the failure result shows the client {', '.join(found)}", *evidence)
    if not about:
        return failed("nothing_on_stderr", "no stderr line records the failure (none names the tool, the reference or "
                      "an error): the operator has no record of it", *evidence)
    if target.canary and target.canary in logged:
        return failed("secret_on_stderr", "the failure detail on stderr carries the secret from the server's environment",
                      *evidence)
    if ref and ref.group(1) not in logged:
        return failed("reference_not_logged", f"the message cites reference {ref.group(1)!r}, but stderr never mentions it",
                      *evidence)
    return passed("a safe isError result for the client; the detail went to stderr"
                  + (f" under reference {ref.group(1)}" if ref else ""), *evidence)
