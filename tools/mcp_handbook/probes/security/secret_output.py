"""SEC-009: the server's own secret never comes back, in any answer, notification, log line or child's output.

Secrets leak through paths nobody wrote on purpose: a diagnostics tool that dumps the environment, an
exception message returned to the model, a traceback on stderr, a child that inherited everything. The
server starts with a random canary in its environment; the probe runs an ordinary session that touches
those paths (every callable tool, a child printing its environment, an unknown tool and method) and then
looks for the canary on stdout (what the client receives) and on stderr (what the operator's logs keep).
"""

from __future__ import annotations

from ..registry import probe
from ..support import (
    compact, failed, fill_arguments, Finding, mask, passed, session_with_tools, show, Target, WireTimeout,
)
from ._common import env_call, pipeline


@probe("canary_never_leaks", "the server's secret appears in no output, log or child", calls_tools=True, reasons={
    "canary_in_output": "the server's secret appeared on stdout, in what the client receives",
    "canary_in_log": "the server's secret appeared on stderr, in what the operator's logs keep",
})
def canary_never_leaks(target: Target) -> Finding:
    """An ordinary session calling every callable tool: the server's secret must appear in no output, log or child."""
    session, init, tools = session_with_tools(target)
    if "logging" in (init.get("capabilities") or {}):
        try:
            session.request("logging/setLevel", {"level": "debug"}, timeout=target.timeout)
        except WireTimeout:
            pass
    calls = [(t["name"], fill_arguments(t)) for t in tools if target.may_call(t)][:20]
    child = env_call(target, tools)
    if child is not None:
        calls.append(child)
    calls.append(("hb_no_such_tool", {}))
    answers = pipeline(session, calls, timeout=target.timeout)
    try:
        session.request("hb/no_such_method", {}, timeout=target.timeout)
    except WireTimeout:
        pass
    session.close(grace=1.0)
    on_stdout = [f"stdout: {mask(msg.line.text, target)[:260]}" for msg in session.stdout if target.canary in msg.line.text]
    on_stderr = [f"stderr: {mask(ln.text, target)[:260]}" for ln in session.stderr_lines if target.canary in ln.text]
    evidence = [f"{name}({compact(args, 60)}) -> {show(resp, target, 120) if resp else 'no answer'}"
                for name, args, resp in answers]
    leaks = on_stdout + on_stderr
    if leaks:
        reason = "canary_in_output" if on_stdout else "canary_in_log"
        return failed(reason, f"the server's secret appeared {len(leaks)} time(s) in what it wrote "
                      f"({len(on_stdout)} on stdout, {len(on_stderr)} on stderr)", *leaks[:6], *evidence[:6])
    return passed(f"{len(calls)} call(s), {len(session.stdout)} stdout and {len(session.stderr_lines)} stderr line(s): "
                  "the secret appears nowhere", *evidence[:10])
