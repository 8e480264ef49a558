"""ERR-001: every request gets exactly one answer, and no notification gets any.

A client waits on each request id until its answer comes; a request left unanswered hangs it, a second
answer or an answer to a notification confuses its bookkeeping. The classic bugs are deciding
request-ness by the id's truthiness (``0`` and ``""`` are ids) and building error responses without
asking whether anyone waits. The probe sends one burst of requests (falsy ids included) interleaved
with notifications, closes it with a ping, and counts what each id got.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from ..registry import probe
from ..support import (
    Finding, Target, WireTimeout, callable_tools, compact, failed, passed, responses, session_with_tools, trivial_method,
)
from ._common import bad_cases, describe, same_id


@probe("one_answer_per_request", "each request answered once, notifications never", calls_tools=True,
       over_http=True, reasons={
           "unanswered_request": "a request (the closing ping included) got no answer",
           "answered_twice": "a request got more than one answer",
           "ping_answered_with_error": "a ping got an error instead of its result: the request (id 0, \"\" or -1) "
                                       "was not handled as one",
           "answered_notification": "an answer carries an id no request used: a notification was answered, "
                                    "or the id was invented",
       })
def one_answer_per_request(target: Target) -> Finding:
    """Mix requests (falsy ids included) with notifications; count the answers each id got."""
    session, _init, listed = session_with_tools(target)
    tools = callable_tools(target, listed)
    trivial = trivial_method(target)
    requests: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 0, "method": trivial},
        {"jsonrpc": "2.0", "id": "", "method": trivial},
        {"jsonrpc": "2.0", "id": -1, "method": trivial,
         "params": {"_meta": {**(session.request_meta or {}), "progressToken": "hb"}}},
        {"jsonrpc": "2.0", "id": "hb-unknown", "method": "hb/no_such_method"},
        {"jsonrpc": "2.0", "id": "hb-list", "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "hb-no-tool", "method": "tools/call",
         "params": {"name": f"hb_no_such_tool_{secrets.token_hex(3)}", "arguments": {}}},
    ]
    bad = next(((t, c) for t in tools for c in bad_cases(t)), None)
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
    problems: list[tuple[str, str]] = []  # (reason, what happened)
    tail: list[str] = []
    session.send({"jsonrpc": "2.0", "id": end_id, "method": trivial})
    try:
        session.wait_for_id(end_id, timeout=target.timeout)
    except WireTimeout as exc:
        problems.append(("unanswered_request", f"the closing ping id {end_id!r}: {exc}"))
        tail = session.transcript(limit=10)
    else:
        for request in requests:  # a slow answer still counts; it must come once
            if not any(same_id(r.get("id"), request["id"]) for r in responses(session.stdout[start:])):
                session.wait_for(lambda v, rid=request["id"]: isinstance(v, dict) and same_id(v.get("id"), rid),
                                 timeout=min(1.0, target.timeout))
        time.sleep(0.15)  # room for a late duplicate or a late answer to a notification
    answers = [r for r in responses(session.stdout[start:]) if not same_id(r.get("id"), end_id)]
    for request in requests:
        got = [r for r in answers if same_id(r.get("id"), request["id"])]
        label = f"{request['method']} id {request['id']!r}"
        if not got:
            problems.append(("unanswered_request", f"{label}: no answer"))
        elif len(got) > 1:
            problems.append(("answered_twice", f"{label}: {len(got)} answers"))
        elif request["method"] == trivial and "result" not in got[0]:
            problems.append(("ping_answered_with_error",
                             f"{label}: answered with an error, not handled as a request: {describe(got[0])}"))
    sent_ids = [r["id"] for r in requests]
    for stray in answers:
        if not any(same_id(stray.get("id"), i) for i in sent_ids):
            problems.append(("answered_notification",
                             f"an answer to no request (a notification answered, or an invented id): {compact(stray, 200)}"))
    shown = [f"<<< {compact(a, 160)}" for a in answers]
    if problems:
        return failed(problems[0][0], f"{len(problems)} request/notification(s) mishandled",
                      *(text for _reason, text in problems), *evidence, *shown, *tail)
    return passed(f"{len(requests)} requests got one answer each; {len(notifications)} notifications got none",
                  *evidence, *shown)
