"""End of file on stdin ends the server promptly, with status 0.

MCP has no shutdown method over stdio: closing the server's stdin is the client's request to stop. A
server that keeps running after EOF (a read loop that treats EOF as "nothing yet", a non-daemon thread)
forces the client to escalate to SIGTERM and SIGKILL, and a non-zero exit is reported as a crash.
"""

from __future__ import annotations

import time

from ..registry import probe
from ..support import Finding, Target, failed, handshake, passed

EXIT_PROMPTLY = 1.5
"""Seconds a server may take to exit once stdin is closed and nothing is in flight (at least;
a target with a longer timeout, such as a slow-starting server under audit, gets 30% of it)."""


@probe("exit_on_stdin_eof", "the server exits promptly with status 0 when stdin closes",
       reasons={
           "no_exit_on_eof": "the server was still running well after its stdin was closed",
           "nonzero_exit": "the server exited with a non-zero status on stdin EOF",
       })
def exit_on_stdin_eof(target: Target) -> Finding:
    """Close stdin after an ordinary exchange: the server must exit promptly, with status 0."""
    session, _init = handshake(target)
    session.request("ping", timeout=target.timeout)
    closed_at = time.monotonic()
    try:
        if session.proc.stdin is not None:
            session.proc.stdin.close()
    except OSError:
        pass
    limit = max(EXIT_PROMPTLY, 0.3 * target.timeout)
    code = session.wait_exit(limit)
    waited = time.monotonic() - closed_at
    evidence = [">>> (stdin closed)", f"exit status {code} after {waited:.2f} s"]
    if code is None:
        return failed("no_exit_on_eof", f"the server was still running {limit:.1f} s after stdin was closed: the client "
                      "must now escalate to SIGTERM and SIGKILL", *evidence, *session.transcript(limit=6))
    if code != 0:
        return failed("nonzero_exit", f"the server exited with status {code} on stdin EOF; a host reports that as a crash",
                      *evidence)
    return passed(f"exited with status 0 in {waited:.2f} s after stdin EOF", *evidence)
