"""Progress reports carry the caller's own token, only grow, and stop when the call is answered.

A client matches each ``notifications/progress`` to its request by the ``progressToken`` it chose; a changed
token (the integer 7301 sent back as the string "7301") matches nothing, a value that falls or repeats makes a
progress bar jump back, and a report after the response refers to a request the client has closed
(2025-11-25 basic/utilities/progress: MUST for each). The probe finds a tool that reports progress and judges
every report of one call.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import Finding, Target, compact, failed, not_applicable, passed, session_with_tools
from ._inflight import find_progress_call

REASONS = {
    "wrong_token": "a progress notification carried a token other than the one the call sent (or of another type)",
    "progress_not_increasing": "a progress value was not a number greater than the one before it",
    "progress_after_response": "a progress notification for the call arrived after its response",
}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@probe("progress_notifications", "progress notifications carry the caller's token, grow, and stop at the answer",
       calls_tools=True, reasons=REASONS, server_options=("--progress-tool",))
def progress_notifications(target: Target) -> Finding:
    """Call tools with an integer progressToken until one reports progress, then judge every report of that call."""
    session, _init, tools = session_with_tools(target)
    evidence: list[str] = []
    call = find_progress_call(target, session, tools, evidence)
    if call is None:
        return not_applicable("not checked: no tool called reported progress", *evidence)
    notes = call.progress
    answer_at = call.response_index
    evidence += [f"<<< {compact(m.value.get('params'), 160)}" for _, m in notes[:6]]
    if call.response is not None:
        evidence.append(f"<<< response {compact(call.response, 120)}")
    problems: list[tuple[str, str]] = []
    for _, message in notes:
        token = message.value["params"].get("progressToken")
        if type(token) is not type(call.token) or token != call.token:
            problems.append(("wrong_token", f"a progress notification carried the token {token!r}; "
                             f"the call sent {call.token!r}"))
            break
    previous: Any = None
    for _, message in notes:
        value = message.value["params"].get("progress")
        if not _is_number(value) or (previous is not None and value <= previous):
            problems.append(("progress_not_increasing", f"progress went from {previous!r} to {value!r}: each value "
                             "must be a number greater than the one before"))
            break
        previous = value
    late = [m for i, m in notes if answer_at is not None and i > answer_at]
    if late:
        problems.append(("progress_after_response", f"{len(late)} progress notification(s) arrived after the "
                         f"response, the first {compact(late[0].value.get('params'), 120)}"))
    if problems:
        return failed(problems[0][0], f"{len(problems)} progress problem(s) in {call.tool}",
                      *[text for _, text in problems], *evidence)
    return passed(f"{call.tool}: {len(notes)} progress notification(s) with the caller's token, each value "
                  "greater than the last, none after the response", *evidence)
