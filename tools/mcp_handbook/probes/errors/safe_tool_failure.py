"""ERR-005: a tool that raises yields a safe isError result for the client and the detail on stderr.

An exception's text and traceback carry install paths, the workspace, library versions and whatever
values the failing frame held, secrets included; sent to the client they reach logs, screens and the
model. The operator still needs the detail: it belongs on stderr, without secrets, under a reference
the client's message can cite. The probe calls a tool that exists to fail and reads both sides.
"""

from __future__ import annotations

import json
import re

from ..calls import ToolCalls
from ..registry import probe
from ..support import (
    Finding, Target, WireSession, WireTimeout, callable_tools, compact, failed, is_error_result, not_applicable, passed,
    refused, session_with_tools, text_blocks,
)
from ._common import (
    call, client_text, describe, exception_text, failing_tool, leak_reason, leaks, provoking_calls,
    reported_failure, unsent_paths,
)

MAX_PROVOKED = 24
"""Calls with plausible wrong values the probe makes at most (:data:`._common.PROVOKED_PER_TOOL` per tool)."""

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
           "leaked_internals": "a failure shows the client a stack trace, the workspace path, a source path or an "
                               "absolute path of the machine the caller neither sent nor configured",
           "leaked_exception_text": "a failure shows the client an exception's raw text (an OSError's [Errno N], an "
                                    "exception class name, a language runtime's own message, pydantic's dump)",
           "nothing_on_stderr": "no stderr line records the failure: the operator has no record of it",
           "secret_on_stderr": "the failure detail on stderr carries the secret from the server's environment",
           "reference_not_logged": "the message cites a reference that stderr never mentions",
       })
def safe_tool_failure(target: Target) -> Finding:
    """A tool that raises: a safe isError result for the client, the detail (without secrets) on stderr; and no
    failure provoked by a plausible wrong value shows the client exception text or a path it did not send."""
    session, _init, listed = session_with_tools(target)
    tools = callable_tools(target, listed)
    tool = failing_tool(tools)
    deliberate = _deliberate_failure(target, session, tool) if tool is not None else None
    if deliberate is not None and deliberate.status == "FAIL":
        return deliberate
    session.close(grace=0.5)
    provoked = _provoked_failures(target, [t for t in tools if t is not tool])
    if provoked.status == "FAIL":
        return provoked
    if deliberate is not None:
        return passed(f"{deliberate.summary}; {provoked.summary}", *deliberate.evidence, *provoked.evidence)
    return not_applicable(f"not checked: no callable tool fails on purpose (a tool named like fail_*, *_error, "
                          f"crash...), so no unexpected exception was seen; {provoked.summary}", *provoked.evidence)


def _deliberate_failure(target: Target, session: WireSession, tool: dict) -> Finding:
    """Call the tool that fails on purpose and read both sides: the result, and the stderr lines after the call."""
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
    raw = exception_text(client_text(response))
    if raw:
        return failed("leaked_exception_text", f"the failure result shows the client {raw}", *evidence)
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


def _provoked_failures(target: Target, tools: list[dict]) -> Finding:
    """Call each tool with plausible wrong values; FAIL on the first failure that shows the client exception text
    or an unsent path, else a PASS-shaped finding whose summary says what was tried (the caller decides the verdict)."""
    planned = [(t["name"], c) for t in tools for c in provoking_calls(t)][:MAX_PROVOKED]
    if not planned:
        return passed("no callable tool takes a string a plausible wrong value could be given")
    calls = ToolCalls(target, wait=target.timeout)
    by_tool: dict[str, list] = {}
    for name, case in planned:
        by_tool.setdefault(name, []).append(case)
    evidence: list[str] = []
    problems: list[tuple[str, str]] = []
    failures = 0
    for name, cases in by_tool.items():
        answers = calls.calls(name, [args for _label, args, _value in cases])
        for (label, args, _value), response in zip(cases, answers):
            if response is None:
                continue
            failing = refused(response) or reported_failure(response) is not None
            failures += failing
            shown = client_text(response)
            evidence.append(f"{label} -> {describe(response)}")
            if not failing:
                continue
            sent = [v for v in args.values() if isinstance(v, str)]
            paths = unsent_paths(shown, sent, target)
            raw = exception_text(shown)
            if target.canary and target.canary in shown:
                problems.append(("leaked_secret", f"{label}: the failure shows the client the secret from the server's "
                                                  "environment"))
            elif paths:
                problems.append(("leaked_internals", f"{label}: the failure shows the client {paths[0]!r}, an absolute "
                                                     f"path the caller did not send: {compact(shown, 240)}"))
            elif raw:
                problems.append(("leaked_internals" if raw.startswith("a stack trace") else "leaked_exception_text",
                                 f"{label}: the failure shows the client {raw}: {compact(shown, 240)}"))
    if problems:
        reason = next((r for r in ("leaked_secret", "leaked_internals") if any(p[0] == r for p in problems)),
                      problems[0][0])
        return failed(reason, f"{len(problems)} failure(s) provoked by plausible wrong values show the client an "
                      "exception's text or a path it did not send", *(text for _r, text in problems[:6]),
                      *evidence[:10], *calls.notes)
    return passed(f"{len(evidence)} call(s) with plausible wrong values, {failures} of them failing, showed no "
                  "exception text or unsent path", *evidence[:10], *calls.notes)
