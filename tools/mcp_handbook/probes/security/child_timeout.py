"""SEC-006: a child that runs too long is killed when its deadline expires, and the call answers.

A server that waits on a child without a deadline hangs the call (and, single-threaded, every call) for as
long as the child does; one that answers at the deadline but leaves the child running accumulates
orphans. The probe makes a file-reading program block on a FIFO nobody writes to, with the smallest
timeout the tool allows: only the server's deadline can end that call, and afterwards no process with
the FIFO on its command line may remain.

A server whose tools take no timeout argument is checked through the PATH stand-ins of :mod:`._shims`: each
callable tool is called once with arguments it accepts, to see which program it starts by name (``git``, ``sh``);
then that program's stand-in is made to stall for :data:`STALL_FACTOR` times the probe's wait before it runs the
real program, and the same call is made again. A server with a deadline answers before the stall
ends and has killed the child; one without waits it out. A server that starts no child by name is N/A, and says so.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

from ..calls import ToolCalls
from ..registry import probe
from ..support import (
    call_tool, callable_tools, compact, failed, fill_arguments, Finding, handshake, not_applicable, passed,
    planted_fifo, properties, refused, schema_type, send_request, session_with_tools, show, Target, tool_name,
    tools_of, WireTimeout,
)
from ._common import how_to_allow, not_allowed, ordinary_arguments, prepare_root, program_tools, shown_text
from ._shims import PathShims, ShimRecord

_TIMEOUT_WORDS = ("timeout",)
_FILE_READERS = ("head", "cat", "wc", "grep", "tail")
"""Programs that open the file named in their arguments (and so block on a FIFO nobody writes to)."""


@probe("child_timeout", "a blocked child is killed when its timeout expires", calls_tools=True, long=True, reasons={
    "no_deadline": "no answer by the call's own timeout (plus 2s), or, for a tool with no timeout argument, not "
                   "before a stalled child had run its course: the child was waited on without a deadline",
    "child_survived_timeout": "the call answered at its deadline but the child kept running: it was abandoned, not "
                              "killed",
})
def child_timeout(target: Target) -> Finding:
    """Make a child block on a FIFO with the shortest timeout allowed; expect an answer by then and no survivor."""
    tools = tools_of(target)  # the audit's listing when it has one: the stall path starts servers of its own
    choice = None
    for tool, prog, args, choices in program_tools(target, tools):
        props = properties(tool)
        tparam = next((p for p in props if any(w in p.lower() for w in _TIMEOUT_WORDS)
                       and schema_type(props[p]) in ("integer", "number")), None)
        reader = next((r for r in _FILE_READERS if choices is None or r in choices), None)
        if tparam and reader and args:
            choice = (tool, prog, args, tparam, reader)
            break
    if choice is None:
        with PathShims(target.env.get("PATH", "")) as shims:
            return _stalled_child(target, tools, shims)
    tool, prog, args, tparam, reader = choice
    session, _, _ = session_with_tools(target)
    in_ms = tparam.lower().endswith("ms")
    minimum = properties(tool)[tparam].get("minimum")
    chosen = minimum if isinstance(minimum, (int, float)) and minimum > 0 else (1000 if in_ms else 1)
    seconds = chosen / 1000 if in_ms else chosen
    allowed = seconds + 2.0
    with planted_fifo(target.workspace) as fifo_name:
        argv = ["hb", fifo_name] if reader == "grep" else [fifo_name]
        arguments = fill_arguments(tool, {prog: reader, args: argv, tparam: chosen})
        evidence = [f"{tool['name']}({compact(arguments, 120)}): {reader} blocks opening a FIFO nobody writes to"]
        began = time.monotonic()
        try:
            response = call_tool(session, tool["name"], arguments, timeout=allowed)
        except WireTimeout:
            return failed("no_deadline", f"no answer {allowed:.1f}s after a call with a {seconds:g}s timeout: the child "
                          "was waited on without a deadline", *evidence)
        elapsed = time.monotonic() - began
        evidence.append(f"answered after {elapsed:.2f}s: {show(shown_text(response), target, 200)}")
        if refused(response) and elapsed < seconds * 0.8:
            return not_applicable(f"{tool['name']} refused the call at once, so no child blocked on the FIFO and "
                                  "the timeout was not exercised", *evidence)
        survivors: list[str] = []
        for _ in range(5):
            survivors = _processes_mentioning(fifo_name)
            if not survivors:
                break
            time.sleep(0.1)
    if survivors:
        return failed("child_survived_timeout", f"the call answered after {elapsed:.2f}s but the child is still running: "
                      "the timeout abandoned it instead of killing it", *evidence,
                      *[f"still running: {s}" for s in survivors])
    return passed(f"the {seconds:g}s timeout answered after {elapsed:.2f}s and the child was gone", *evidence)


def _processes_mentioning(needle: str) -> list[str]:
    """Processes whose command line contains ``needle`` (from /proc), as 'pid: cmdline' strings."""
    found: list[str] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read()
        except OSError:
            continue
        if needle.encode() in cmdline:
            shown = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()[:160]
            found.append(f"{entry}: {shown}")
    return found


# -- a tool with no timeout argument: its child is made to stall --------------------------------------------------

STALL_FACTOR = 3.0
"""The stalled child waits this many times the probe's wait: long enough that a server with a deadline near the
wait a client gives a call answers well before it ends, short enough to keep the audit bounded."""
MAX_STALL = 15.0
"""Seconds a stalled child waits at most, however long the probe's wait."""
STALL_GRACE = 3.0
"""Seconds past the stall the probe waits for the answer of a server that waited the stall out."""
MAX_SCOUTED = 12
"""Tools called once each to see which program they start."""


def _stalled_child(target: Target, tools: list[dict[str, Any]], shims: PathShims) -> Finding:
    """Find a tool that starts a program by name, make that program stall, and time the same call again."""
    root = prepare_root(target)
    extra_env = {"PATH": shims.path}
    shims.add_mentioned(tools)
    scouted = _scout(target, tools, shims, root, extra_env)
    blocked = not_allowed(target, tools)
    if scouted is None:
        return not_applicable(
            "not checked: no tool takes a timeout argument, and no callable tool started a program by name when "
            "called once (a child started by absolute path is not seen): review how the code bounds child processes"
            + (f"; not called: {how_to_allow(blocked)}" if blocked else ""),
            f"stand-ins first on the server's PATH for: {', '.join(shims.names) or '(none found on its PATH)'}")
    tool, arguments, programs, session = scouted
    program = " or ".join(programs)
    if session is None:  # the scouting session was set aside; a fresh one, met before the stall (a server may run
        session, _ = handshake(target, extra_env=extra_env)  # the program while it starts)
    stall = round(min(MAX_STALL, STALL_FACTOR * target.timeout), 1)
    for name in programs:
        shims.stall(name, stall)
    mark = shims.mark()
    call = f"{tool}({compact(arguments, 100)})"
    evidence = [f"{call} starts {', '.join(programs)}; their stand-ins were made to stall {stall:g} s before running "
                "the real programs"]
    began = time.monotonic()
    rid = send_request(session, "tools/call", {"name": tool, "arguments": arguments})
    try:
        response: dict[str, Any] | None = session.wait_for_id(rid, timeout=stall + STALL_GRACE)
    except WireTimeout:
        response = None
    elapsed = time.monotonic() - began
    stalled = [r for r in shims.since(mark) if r.argv and r.argv[0] in programs]
    alive = [r for r in stalled if shims.stalled(r.pid)]
    shims.unstall()
    _stop(shims, stalled)
    return _judge_stall(target, call, program, stall, elapsed, response, stalled, alive, evidence)


def _scout(target: Target, tools: list[dict[str, Any]], shims: PathShims, root: Any, extra_env: dict[str, str]
           ) -> tuple[str, dict[str, Any], list[str], Any] | None:
    """The first callable tool that starts a program by name when called once with arguments it accepts:
    ``(tool, arguments, the programs it started, the session it was called on)``; the same session makes the
    stalled call, which saves a server start."""
    calls = ToolCalls(target, wait=target.timeout, extra_env=extra_env)
    for tool in callable_tools(target, tools)[:MAX_SCOUTED]:
        name, arguments = tool_name(tool), ordinary_arguments(target, tool, root)
        if arguments is None or not calls.may_try(name):
            continue
        calls.open()  # started before the mark: a launcher (``#!/usr/bin/env node``) is not the tool's child
        mark = shims.mark()
        if calls.call(name, arguments) is None:
            continue
        started = list(dict.fromkeys(r.argv[0] for r in shims.since(mark) if r.argv))
        if started:
            return name, arguments, started, calls.session
    return None


def _stop(shims: PathShims, stalled: list[ShimRecord]) -> None:
    """Kill every stand-in of this probe still stalling (lifting the stall already ends the wait; this is the
    belt to that): a pid is killed only while its command line still names the probe's own stand-in folder."""
    for record in stalled:
        if shims.stalled(record.pid):
            try:
                os.kill(record.pid, signal.SIGKILL)
            except OSError:
                pass


def _judge_stall(target: Target, call: str, program: str, stall: float, elapsed: float,
                 response: dict[str, Any] | None, stalled: list[ShimRecord], alive: list[ShimRecord],
                 evidence: list[str]) -> Finding:
    if not stalled:
        return not_applicable(f"not checked: {call} did not start {program} again when called a second time, so no "
                              "child was stalled", *evidence)
    program = stalled[0].argv[0]
    pids = ", ".join(str(r.pid) for r in stalled[:4])
    evidence.append(f"stalled {program} child(ren): pid {pids} (`{show(' '.join(stalled[0].argv), target, 100)}`)")
    if response is None:
        return failed("no_deadline", f"{call} did not answer within {stall + STALL_GRACE:g} s while its {program} "
                      f"child stalled {stall:g} s: the child was waited on without a deadline", *evidence)
    evidence.append(f"answered after {elapsed:.2f} s: {show(shown_text(response), target, 160)}")
    if elapsed >= stall:
        return failed("no_deadline", f"{call} answered only after {elapsed:.1f} s, once its {program} child's "
                      f"{stall:g} s stall had run out: the child was waited on without a deadline", *evidence)
    if alive:
        return failed("child_survived_timeout", f"{call} answered after {elapsed:.1f} s while its {program} child "
                      f"(pid {alive[0].pid}) was still running: it was abandoned, not killed", *evidence)
    return passed(f"{call} answered after {elapsed:.1f} s, before its {program} child's {stall:g} s stall ran out, "
                  "and the child was gone: its wait has a deadline", *evidence)
