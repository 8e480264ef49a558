"""SIGTERM and SIGINT end the server in order: in-flight calls finish, a shutdown line is logged, exit 0.

Hosts stop servers with a signal. A server that dies on the default action drops the responses still
being computed, and one that does not handle SIGINT prints a ``KeyboardInterrupt`` traceback and exits
non-zero, which hosts report as a crash. The probe starts two servers: the first gets SIGTERM while a
slow call is in flight (when it has a tool that can be kept busy), the second SIGINT while idle.
"""

from __future__ import annotations

import re
import signal
import time
from typing import Any

from ..registry import probe
from ..support import (
    Finding, Target, WireSession, WireTimeout, compact, failed, fill_arguments, is_error_result, opened, passed, properties,
    schema_type, session_with_tools,
)
from ._common import read_only_first

SLOW_SECONDS = 0.5
"""How long the in-flight call runs."""
EXIT_GRACE = 5.0
"""Seconds a server gets to exit after its signal (after its in-flight call), at most: a host waits about this long
before it escalates to SIGKILL. Both servers' graces run at once, so a server that never exits costs one grace."""
DELAY_PARAMS = ("seconds", "delay", "delay_seconds", "duration")
"""Numeric parameters that set how long a read-only tool takes."""
SHUTDOWN_LINE = re.compile(r"shut\s*down|shutting down", re.I)

REASONS = {
    "inflight_dropped": "the call in flight when SIGTERM arrived was never answered",
    "inflight_failed": "the call in flight when SIGTERM arrived was answered with an error instead of finishing",
    "no_exit": "the server was still running after the signal",
    "nonzero_exit": "the server exited with a non-zero status (or was ended by the signal itself)",
    "traceback_on_stderr": "the server wrote a traceback to stderr instead of stopping in order",
    "no_shutdown_log": "the server wrote no shutdown line to stderr after the signal",
}


def _slow_call(target: Target, tools: list[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """A callable tool that can be kept in flight for SLOW_SECONDS, with its arguments."""
    for tool in read_only_first(target, tools):
        kinds = {k: schema_type(v) for k, v in properties(tool).items()}
        delay = next((k for k in DELAY_PARAMS if kinds.get(k) == "number"), None)
        annotations = tool.get("annotations")
        read_only = isinstance(annotations, dict) and annotations.get("readOnlyHint") is True
        if tool["name"] == "slow_echo" or (delay and read_only):
            return tool["name"], fill_arguments(tool, {delay or "seconds": SLOW_SECONDS})
    return None


def _stderr_after(session: WireSession, at: float) -> list[str]:
    return [ln.text for ln in session.stderr_lines if ln.at >= at]


def _judge_exit(name: str, session: WireSession, code: int | None, since: float) -> list[tuple[str, str]]:
    problems = []
    after = _stderr_after(session, since)
    if code is None:
        problems.append(("no_exit", f"{name}: the server was still running "
                         f"{time.monotonic() - session.started - since:.1f} s after the signal"))
    elif code != 0:
        problems.append(("nonzero_exit", f"{name}: the server exited with status {code}"
                         + (" (ended by the signal, not by an orderly exit)" if code < 0 else "")))
    if any("Traceback" in ln for ln in after):
        problems.append(("traceback_on_stderr", f"{name}: a traceback on stderr instead of an orderly stop"))
    if code is not None and not any(SHUTDOWN_LINE.search(ln) for ln in after):
        problems.append(("no_shutdown_log", f"{name}: no shutdown line on stderr"))
    return problems


@probe("graceful_signal_shutdown", "SIGTERM and SIGINT finish in-flight calls, log and exit 0", reasons=REASONS, long=True)
def graceful_signal_shutdown(target: Target) -> Finding:
    """SIGTERM with a call in flight (when a slow tool exists) and SIGINT when idle: finish, log, exit 0."""
    second = target.start()  # started now, its start-up overlaps the first server's
    term, _init, tools = session_with_tools(target, lazy=False)
    intr, _init = opened(second, target)
    evidence: list[str] = []
    problems: list[tuple[str, str]] = []
    slow = _slow_call(target, tools)
    intr.request("ping", timeout=target.timeout)
    slow_id = None
    if slow is not None:
        slow_id = term.new_id()
        term.send({"jsonrpc": "2.0", "id": slow_id, "method": "tools/call", "params": {"name": slow[0], "arguments": slow[1]}})
        term.request("ping", timeout=target.timeout)  # the slow call has been read and started
        evidence.append(f">>> tools/call {slow[0]} {compact(slow[1])} (in flight), then SIGTERM")
    else:
        evidence.append("no slow tool to keep a call in flight: SIGTERM while idle")
    for s in (term, intr):
        s.settle(0.3)  # what it wrote before the signal is read before the mark (short: the slow call stays in flight)
    marks = {}
    for name, s, signum in (("SIGTERM", term, signal.SIGTERM), ("SIGINT", intr, signal.SIGINT)):
        marks[name] = time.monotonic() - s.started
        s.signal(signum)
    if slow is not None:
        try:
            answer = term.wait_for_id(slow_id, timeout=SLOW_SECONDS + target.timeout)
            evidence.append(f"<<< {compact(answer, 200)}")
            if "result" not in answer or is_error_result(answer):
                problems.append(("inflight_failed",
                                 f"SIGTERM: the in-flight {slow[0]} call was answered with an error instead of finishing"))
        except WireTimeout as exc:
            problems.append(("inflight_dropped", f"SIGTERM: the in-flight {slow[0]} call was dropped ({exc})"))
    grace_ends = time.monotonic() + min(target.timeout, EXIT_GRACE) + SLOW_SECONDS
    for name, s in (("SIGTERM", term), ("SIGINT", intr)):
        code = s.wait_exit(max(0.1, grace_ends - time.monotonic()))
        s.wait_eof(1.0)  # its last stderr lines may still be in the pipe after it exits
        evidence.append(f"{name}: exit status {code}; stderr after the signal: "
                        f"{compact(' | '.join(_stderr_after(s, marks[name])), 200) or '(nothing)'}")
        problems += _judge_exit(name, s, code, marks[name])
    if problems:
        return failed(problems[0][0], f"{len(problems)} shutdown problem(s)", *[text for _, text in problems], *evidence)
    what = "the in-flight call finished" if slow is not None else "idle"
    return passed(f"SIGTERM ({what}) and SIGINT each led to a logged, orderly exit with status 0", *evidence)
