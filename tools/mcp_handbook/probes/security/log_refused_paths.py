"""SEC-014: a refused path is logged on stderr as the caller sent it, escaped onto one line.

An operator investigating an escape attempt needs the raw argument, not where it resolved to; and a raw
argument written unescaped lets a newline in it start a forged log record. The probe sends two escape
attempts to a path-taking tool (a plain ``../`` one, and one whose newline is followed by a complete JSON
record) and reads stderr after the session: the first must appear exactly as sent, and the forged record
must not stand on a line of its own. Both name a file of the kind the tool opens (``probe.xlsx`` for a
workbook tool), so the refusal is about where the path leads, not about its type.
"""

from __future__ import annotations

import secrets

from ..registry import probe
from ..support import (
    PATH_PARAMS, Finding, Target, WireTimeout, call_tool, compact, failed, fill_arguments, not_applicable, passed,
    refused, session_with_tools, string_params,
)
from ._file_kinds import TEXT, kinds_taken


@probe("log_refused_paths", "a refused path is logged raw and escaped on stderr", calls_tools=True,
       shares_session=True, reasons={
    "attempt_not_logged": "no stderr line carries the refused path as the caller sent it",
    "log_line_forged": "a newline in a refused path started a new stderr line: the path was logged unescaped",
    "escape_not_refused": "an escape attempt was served, so there was no refusal to log (see SEC-001)",
})
def log_refused_paths(target: Target) -> Finding:
    """Send two escape attempts; stderr must carry the raw attempted path, escaped so it cannot forge a log line."""
    session, init, tools = session_with_tools(target)
    candidate = next(((t, p) for t in tools if target.may_call(t) for p in string_params(t, PATH_PARAMS)), None)
    if candidate is None:
        return not_applicable("no callable tool takes a path argument (path, file, filename, ...)")
    tool, param = candidate
    kind = kinds_taken(tool, param, init.get("instructions"))[0]  # a name of the kind it opens: refused for the place
    tag = secrets.token_hex(4)
    raw = f"../hb-refused-{tag}/probe{kind.suffix}"
    forged_event = f"hb_forged_{tag}"
    record = f'{{"level":"warning","event":"{forged_event}"}}'
    forging = f"../hb-refused-{tag}/next.txt\n{record}" if kind is TEXT else f"../hb-refused-{tag}/next\n{record}{kind.suffix}"
    evidence: list[str] = []
    for attempt in (raw, forging):
        try:
            response = call_tool(session, tool["name"], fill_arguments(tool, **{param: attempt}), timeout=target.timeout)
        except WireTimeout as exc:  # a hang on the call itself is not what this rule judges
            return failed("no_answer", f"{tool['name']} did not answer: {exc}", *evidence)
        evidence.append(f"{tool['name']}({param}={attempt!r}) -> {compact(response, 140)}")
        if not refused(response):
            return failed("escape_not_refused", f"{tool['name']} served {attempt!r}, a path outside the workspace "
                          "(see SEC-001)", *evidence)
    session.close(grace=1.0)
    stderr = [ln.text for ln in session.stderr_lines]
    logged = [line for line in stderr if raw in line]
    forged = [line for line in stderr if forged_event in line and f"hb-refused-{tag}" not in line]
    evidence += [f"err {line[:240]}" for line in stderr if f"hb-refused-{tag}" in line or forged_event in line][:4]
    if forged:
        return failed("log_line_forged", "a newline in the attempted path started a new stderr line: the raw path was "
                      "logged unescaped, so a caller can forge log records", *evidence)
    if not logged:
        return failed("attempt_not_logged", f"no stderr line carries the raw attempted path {raw!r}: the operator "
                      "cannot see the probe", *evidence)
    return passed("each refused path was logged on stderr as sent, escaped onto one line", *evidence)
