"""SEC-006: a child that runs too long is killed when its deadline expires, and the call answers.

A server that waits on a child without a deadline hangs the call (and, single-threaded, every call) for as
long as the child does; one that answers at the deadline but leaves the child running accumulates
orphans. The probe makes a file-reading program block on a FIFO nobody writes to, with the smallest
timeout the tool allows: only the server's deadline can end that call, and afterwards no process with
the FIFO on its command line may remain.
"""

from __future__ import annotations

import os
import time

from ..registry import probe
from ..support import (
    call_tool, compact, failed, fill_arguments, Finding, not_applicable, passed, planted_fifo, properties, refused,
    schema_type, session_with_tools, show, Target, WireTimeout,
)
from ._common import program_tools, shown_text

_TIMEOUT_WORDS = ("timeout",)
_FILE_READERS = ("head", "cat", "wc", "grep", "tail")
"""Programs that open the file named in their arguments (and so block on a FIFO nobody writes to)."""


@probe("child_timeout_enforced", "a blocked child is killed when its timeout expires", calls_tools=True, reasons={
    "no_deadline": "no answer by the call's own timeout (plus 2s): the child was waited on without a deadline",
    "child_survived_timeout": "the call answered at its timeout but the child kept running: it was abandoned, not killed",
})
def child_timeout_enforced(target: Target) -> Finding:
    """Make a child block on a FIFO with the shortest timeout allowed; expect an answer by then and no survivor."""
    session, _, tools = session_with_tools(target)
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
        return not_applicable("no callable tool runs a file-reading program (head, cat, wc, grep) with a timeout "
                              "parameter; review how the code bounds child processes")
    tool, prog, args, tparam, reader = choice
    in_ms = tparam.lower().endswith("ms")
    minimum = properties(tool)[tparam].get("minimum")
    chosen = minimum if isinstance(minimum, (int, float)) and minimum > 0 else (1000 if in_ms else 1)
    seconds = chosen / 1000 if in_ms else chosen
    allowed = seconds + 2.0
    with planted_fifo(target.workspace) as fifo_name:
        argv = ["hb", fifo_name] if reader == "grep" else [fifo_name]
        arguments = fill_arguments(tool, **{prog: reader, args: argv, tparam: chosen})
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
