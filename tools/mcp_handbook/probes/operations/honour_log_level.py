"""After ``logging/setLevel``, only ``notifications/message`` at or above the level arrive; an unknown level is -32602.

A client lowers the noise by raising the level; a server that ignores it (or compares level names as
strings, so that ``warning`` sorts above ``error``) floods the client's context with records it asked
not to see. The probe provokes activity that servers usually log at level ``debug`` and again at
``error``, and compares what arrives.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import (
    Finding, Target, WireSession, WireTimeout, compact, error_code, failed, not_applicable, passed, session_with_tools,
)
from ..schemas import input_schema
from ._common import LEVEL_RANK, read_only_first


class _LevelNotServed(Exception):
    """logging/setLevel with a valid level was refused or not answered."""


def _log_notes(session: WireSession, after: int) -> list[dict[str, Any]]:
    return [m.value["params"] for m in session.stdout[after:]
            if isinstance(m.value, dict) and m.value.get("method") == "notifications/message"
            and isinstance(m.value.get("params"), dict)]


def _set_level(session: WireSession, level: str, timeout: float) -> dict[str, Any]:
    try:
        return session.request("logging/setLevel", {"level": level}, timeout=timeout)
    except WireTimeout as exc:
        raise _LevelNotServed(f"logging/setLevel {level!r} got no answer: {exc}") from None


@probe("honour_log_level", "notifications/message respect logging/setLevel", calls_tools=True,
       over_http=True, reasons={
           "set_level_refused": "logging/setLevel with a valid level was refused or never answered",
           "below_level_sent": "a notifications/message below the level set arrived after logging/setLevel",
           "bad_level_name": "a notifications/message carries a level that is not a syslog level name",
           "unknown_level_accepted": "logging/setLevel accepted (or never answered) the unknown level 'verbose' instead of -32602",
           "unknown_level_wrong_code": "logging/setLevel refused the unknown level 'verbose' with another error code than -32602",
       })
def honour_log_level(target: Target) -> Finding:
    """logging/setLevel debug, then error: after error, no notifications/message below error arrive."""
    session, init, listed = session_with_tools(target)
    if "logging" not in (init.get("capabilities") or {}):
        return not_applicable("the server does not declare the logging capability")
    tools = read_only_first(target, listed)
    # Activity servers usually log: a cancellation of an unknown request, read-only tools that need no
    # arguments called with none (failing that, calls with an unknown argument, refused by validation).
    schemas = {t["name"]: input_schema(t) for t in tools}
    bare: list[tuple[str, dict[str, Any]]] = [(t["name"], {}) for t in tools if not schemas[t["name"]].get("required")]
    calls = bare[:2] or [(t["name"], {"hb_probe_unknown_argument": True}) for t in tools[:2]]
    evidence: list[str] = ["activity at each level: notifications/cancelled for an unknown request, "
                           f"{', '.join(f'{n}({compact(a)})' for n, a in calls) or '(no callable tool)'}, "
                           "a call to a tool that does not exist"]

    def activity(level: str) -> list[dict[str, Any]]:
        mark = len(session.stdout)
        response = _set_level(session, level, target.timeout)
        evidence.append(f"logging/setLevel {level} -> {compact(response, 120)}")
        if "result" not in response:
            raise _LevelNotServed(f"logging/setLevel {level!r} was refused: {compact(response.get('error'), 160)}")
        session.notify("notifications/cancelled", {"requestId": "hb-probe-no-such-request", "reason": "probe"})
        for tool, arguments in calls:
            session.request("tools/call", {"name": tool, "arguments": arguments}, timeout=target.timeout)
        session.request("tools/call", {"name": "hb_probe_no_such_tool", "arguments": {}}, timeout=target.timeout)
        session.request("ping", timeout=target.timeout)
        session.wait_for(lambda _v: False, timeout=0.1)
        return _log_notes(session, mark)

    try:
        loud = activity("debug")
        if not loud:
            return not_applicable("no notifications/message arrived at level debug: nothing to filter", *evidence)
        evidence.append(f"at debug: {len(loud)} notification(s), levels {sorted({str(n.get('level')) for n in loud})}")
        quiet = activity("error")
        evidence.append(f"at error: {len(quiet)} notification(s), levels {sorted({str(n.get('level')) for n in quiet})}")
    except _LevelNotServed as exc:
        return failed("set_level_refused", str(exc), *evidence)
    try:
        bad_level = session.request("logging/setLevel", {"level": "verbose"}, timeout=target.timeout)
        evidence.append(f"logging/setLevel verbose -> {compact(bad_level, 140)}")
    except WireTimeout as exc:
        bad_level = {}
        evidence.append(f"logging/setLevel verbose -> no answer ({exc})")
    problems: list[tuple[str, str]] = []
    below = [n for n in quiet if LEVEL_RANK.get(str(n.get("level")), 99) < LEVEL_RANK["error"]]
    if below:
        problems.append(("below_level_sent", f"{len(below)} notification(s) below error arrived after logging/setLevel "
                         f"error: {compact(below[0], 200)}"))
    problems += [("bad_level_name", f"a notification with level {n.get('level')!r} is not a syslog level")
                 for n in loud + quiet if n.get("level") not in LEVEL_RANK][:3]
    if "result" in bad_level:
        problems.append(("unknown_level_accepted", "logging/setLevel accepted the unknown level 'verbose' (expected -32602)"))
    elif "error" not in bad_level:
        problems.append(("unknown_level_accepted", "logging/setLevel with the unknown level 'verbose' got no answer"))
    elif error_code(bad_level) != -32602:
        problems.append(("unknown_level_wrong_code", f"logging/setLevel refused the unknown level 'verbose' with "
                         f"{compact(error_code(bad_level), 40)}, not -32602 (Invalid params, the specification's SHOULD)"))
    if problems:
        return failed(problems[0][0], f"{len(problems)} logging/setLevel problem(s)", *[text for _, text in problems],
                      *evidence)
    return passed("notifications/message follow the level set by logging/setLevel", *evidence)
