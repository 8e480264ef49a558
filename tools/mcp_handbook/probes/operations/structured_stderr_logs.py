"""Every stderr line is one JSON event with an ISO 8601 timestamp (``ts``), a syslog ``level`` and an ``event``.

The level is compared as written: ``WARNING`` is Python's name, not the protocol's ``warning``.

stderr is where a stdio server's operator looks, and hosts collect it line by line: free text cannot be
filtered or alerted on, and a record spread over several lines (a pretty-printed object, a raw
traceback) is cut into fragments by every collector. The probe runs an ordinary session with two
mistakes in it, closes stdin, and reads back everything the server wrote to stderr. Under ``--no-tool-calls`` the
second mistake (a call to a tool nobody has) is not sent, and what the server wrote anyway is judged: one free-text
line is enough to fail; only silence is then N/A.
"""

from __future__ import annotations

from datetime import datetime

from ...bounded_json import loads as bounded_loads
from ..registry import probe
from ..support import Finding, Target, failed, not_applicable, passed, session_with_tools
from ._common import LEVEL_RANK


def _log_line_problem(text: str) -> tuple[str, str] | None:
    """(reason, what is wrong) for a stderr line that is not a structured event; None when it is one."""
    try:
        record = bounded_loads(text)  # a line nested too deep is not an event either (TooDeep is a ValueError)
    except ValueError:
        return "not_json", "not JSON"
    if not isinstance(record, dict):
        return "not_json", "JSON but not an object"
    missing = [k for k in ("ts", "level", "event") if not isinstance(record.get(k), str) or not record.get(k)]
    if missing:
        return "missing_fields", f"no {', '.join(missing)}"
    try:
        when = datetime.fromisoformat(record["ts"].replace("Z", "+00:00"))
    except ValueError:
        return "bad_timestamp", f"ts {record['ts']!r} is not ISO 8601"
    if when.tzinfo is None:
        return "bad_timestamp", f"ts {record['ts']!r} has no time zone"
    if record["level"] not in LEVEL_RANK:  # the protocol's names, as written (OPS-009 judges them the same way)
        return "bad_level", f"level {record['level']!r} is not a syslog level name as the protocol writes it (lower case)"
    return None


@probe("structured_stderr_logs", "every stderr line is a one-line JSON event with ts, level, event",
       reasons={
           "not_json": "a stderr line is not a JSON object (free text, or one line of a record spread over several)",
           "missing_fields": "a stderr line is a JSON object without a non-empty string ts, level or event",
           "bad_timestamp": "a stderr line's ts is not an ISO 8601 time with a time zone",
           "bad_level": "a stderr line's level is not a syslog level name in the protocol's lower case",
       })
def structured_stderr_logs(target: Target) -> Finding:
    """An ordinary session, then EOF: every stderr line is one JSON object with ts, level and event."""
    session, _init, _tools = session_with_tools(target)
    session.request("hb_probe/no_such_method", {}, timeout=target.timeout)
    calls = target.may_request("tools/call")
    if calls:
        session.request("tools/call", {"name": "hb_probe_no_such_tool", "arguments": {}}, timeout=target.timeout)
    session.close(grace=1.0)
    lines = [ln.text for ln in session.stderr_lines if ln.text.strip()]
    if not lines:
        return not_applicable("the server wrote nothing to stderr during a whole session"
                              + ("" if calls else " (no tool call was made: --no-tool-calls)"))
    bad = [(text, problem) for text in lines if (problem := _log_line_problem(text))]
    if bad:
        return failed(bad[0][1][0],
                      f"{len(bad)} of {len(lines)} stderr line(s) are not one-line JSON events with ts, level and event",
                      *[f"err {t[:160]}  <- {p[1]}" for t, p in bad[:6]])
    return passed(f"all {len(lines)} stderr lines are JSON events with ts, level and event",
                  *[f"err {t[:160]}" for t in lines[:4]])
