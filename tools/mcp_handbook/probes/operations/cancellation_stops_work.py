"""After ``notifications/cancelled`` for a call in flight, the server stops the work and sends no response for it.

A client cancels because the user gave up or its own timeout passed. Work that goes on spends the user's quota
and may still change things; a response (a result, or an error such as "request cancelled") answers a request
the client has closed (2025-11-25 basic/utilities/cancellation: the receiver SHOULD stop processing and not send
a response). From outside, the work is seen through its progress: the probe finds a tool whose call reports
progress and lasts a while, calls it again, cancels it at its first progress report, and listens.
"""

from __future__ import annotations

import time
from typing import Any

from ...wire import WireTimeout
from ..registry import probe
from ..support import Finding, Target, compact, failed, not_applicable, passed, session_with_tools
from ._inflight import collect, find_progress_call, is_progress, send_call

REASONS = {
    "answered_after_cancel": "the cancelled call was answered (with a result or an error) after notifications/cancelled",
    "work_continued": "progress for the cancelled call kept arriving after notifications/cancelled: the work went on",
}
CANCEL_TOKEN = "hb-cancel-1"
MIN_SECONDS = 0.4
"""A call shorter than this (uncancelled) may finish before a cancellation reaches it: not judged."""
GRACE = 0.2
"""Progress read this long after the cancellation was sent may have been written before the server read it."""
ALLOWED_LATE = 1
"""Progress reports allowed after the grace: the step that was under way when the cancellation arrived."""


def _kind(response: dict[str, Any]) -> str:
    """What a response was, without its text (which may say how far the work got: it varies run to run)."""
    error = response.get("error")
    if isinstance(error, dict):
        return f"an error {compact(error.get('code'), 20)} {compact(error.get('message'), 80)}"
    result = response.get("result")
    is_error = isinstance(result, dict) and result.get("isError") is True
    return "a result" + (" with isError true" if is_error else "")


@probe("cancellation_stops_work", "a cancelled call stops its work and gets no response", calls_tools=True,
       reasons=REASONS, server_options=("--progress-tool",))
def cancellation_stops_work(target: Target) -> Finding:
    """Time a call that reports progress; call it again, cancel it at its first report, and listen for as long
    as the whole call took plus half a second."""
    session, _init, tools = session_with_tools(target)
    evidence: list[str] = []
    first = find_progress_call(target, session, tools, evidence)
    if first is None:
        return not_applicable("not checked: no tool called reported progress, so no call could be seen to stop",
                              *evidence)
    if first.response is None or len(first.progress) < 2 or first.duration < MIN_SECONDS:
        return not_applicable(f"not checked: {first.tool} is not slow enough to cancel (it took "
                              f"{first.duration:.1f} s with {len(first.progress)} progress report(s))", *evidence)
    evidence.append(f"uncancelled: {len(first.progress)} progress report(s) before the answer")
    call = send_call(session, first.tool, first.arguments, CANCEL_TOKEN)
    started = session.wait_for(lambda v: (is_progress(v) and v["params"].get("progressToken") == CANCEL_TOKEN)
                               or (isinstance(v, dict) and v.get("id") == call.request_id), timeout=target.timeout)
    if started is None or not is_progress(started.value):
        return not_applicable(f"not checked: the second call of {first.tool} was answered or silent before "
                              "its first progress report", *evidence)
    session.notify("notifications/cancelled", {"requestId": call.request_id, "reason": "probe: the user gave up"})
    cancelled_at = time.monotonic() - session.started
    evidence.append(f">>> {call.shown()}; at its first progress report: notifications/cancelled "
                    f"{{requestId: {call.request_id}}}")
    collect(session, call, wait=min(first.duration + 0.5, target.timeout))
    problems: list[tuple[str, str]] = []
    if call.response is not None:
        problems.append(("answered_after_cancel", f"the cancelled call was answered: {_kind(call.response)}"))
    late = [m for _, m in call.progress if m.line.at > cancelled_at + GRACE]
    if len(late) > ALLOWED_LATE:  # how many depends on timing: the evidence names the last one only
        problems.append(("work_continued", f"progress reports kept arriving more than {GRACE:g} s after the "
                         f"cancellation, the last {compact(late[-1].value.get('params'), 120)}"))
    evidence.append("after the cancellation: " + ("progress went on" if len(late) > ALLOWED_LATE else "no further progress")
                    + (", a response" if call.response is not None else ", no response"))
    try:
        session.request("ping", timeout=target.timeout)
    except WireTimeout:
        evidence.append("ping after the cancellation: no answer")
        raise
    if problems:
        return failed(problems[0][0], f"{len(problems)} cancellation problem(s) in {first.tool}",
                      *[text for _, text in problems], *evidence)
    return passed(f"{first.tool}: after notifications/cancelled no response and no further progress", *evidence)
