"""Every line a stdio server writes to stdout is one JSON-RPC message.

The client parses stdout line by line as protocol: a banner, a log line or a pretty-printed message spread
over several lines cannot be parsed, and the request waiting for it never completes. The probe drives an
ordinary session with a few faults in it and then reads back every line the server wrote, at exit too.

The server is started with ``PYTHONUNBUFFERED=1``, as container images commonly run Python: a ``print()`` banner
that block buffering would hold until exit (and lose, when the server is stopped with a signal) then reaches
stdout where a host sees it. Only this probe sets it: no other probe's reading depends on when stray text is
flushed, and the audit's environment stays the minimal one (:func:`~mcp_handbook.audit.target.audit_env`).
"""

from __future__ import annotations

from ...wire import MAX_LINE_BYTES
from ..registry import probe
from ..support import (failed, Finding, is_jsonrpc_message, list_tools, not_applicable, passed, silence_reason, Target,
                       WireTimeout)

UNBUFFERED = {"PYTHONUNBUFFERED": "1"}
"""How a host that runs Python unbuffered starts the server: stray ``print()`` output is written at once."""


@probe("stdout_jsonrpc_only", "every stdout line is one JSON-RPC message",
       reasons={"non_jsonrpc_stdout": "the server wrote a stdout line that is not a single JSON-RPC message"})
def stdout_jsonrpc_only(target: Target) -> Finding:
    """Drive an ordinary session plus a few faults; every stdout line must be one JSON-RPC message."""
    session = target.start(extra_env=UNBUFFERED)
    problems: list[str] = []
    silent = ""
    try:
        session.initialize(timeout=target.timeout)
        session.request("ping", {"_meta": {"progressToken": "probe"}}, timeout=target.timeout)
        list_tools(session, timeout=target.timeout)
        session.request("probe/no_such_method", {}, timeout=target.timeout)
        session.send_raw(b'{"jsonrpc": "2.0", "id": "broken", \n')
        session.settle(target.timeout)  # its answer (if any) is read before the next frame is sent: one transcript
        session.request("ping", timeout=target.timeout)
    except WireTimeout as exc:
        silent = silence_reason(session)
        problems.append(f"session broke off: {exc}")
    code = session.close(grace=1.0)
    lines = session.stdout
    unread = [m for m in lines if m.line.size > MAX_LINE_BYTES]  # cut before it was parsed: neither kept nor broken
    bad = [m for m in lines if not is_jsonrpc_message(m.value) and m.line.size <= MAX_LINE_BYTES]
    if bad:
        shown = [f"<<< {m.line.text[:200]}" for m in bad[:5]]
        return failed(
            "non_jsonrpc_stdout",
            f"{len(bad)} of {len(lines)} stdout line(s) are not JSON-RPC messages; a client cannot parse them",
            *shown, *problems,
        )
    if unread:
        return not_applicable(f"not checked: {len(unread)} stdout line(s) were longer than the {MAX_LINE_BYTES:,} bytes "
                              f"the auditor reads as one message (the first: {unread[0].line.size:,} bytes)",
                              *session.transcript(limit=8))
    if silent:  # every line it wrote was a message: the silence says nothing about the framing
        return failed(silent, "the server stopped answering during an ordinary session", *problems, *session.transcript(limit=12))
    return passed(f"all {len(lines)} stdout lines are single JSON-RPC messages; exit code {code}", *session.transcript(limit=8))
