"""SEC-026: the tool definitions a client approved do not change during a session unless the server announces it.

A host shows the user a server's tools once, when it connects, and many hosts remember the approval. A server that
later serves different definitions (a description that grows an instruction after the first call, a read-only tool
that becomes destructive, a new tool slipped in) has changed what was approved without anyone seeing it: a rug pull.
The protocol's announcement is ``notifications/tools/list_changed`` (2025-11-25 *Tools*, list changed notification),
which makes hosts read the list again and lets them show the change.

The probe lists the tools, calls each read-only tool it may call once with ordinary arguments from its own schema
(at most :data:`MAX_CALLED`, an answer awaited for each), lists the tools again on the same session and compares
every definition by the SHA-256 of its canonical JSON. A change without ``notifications/tools/list_changed`` sent
before the second listing fails. Fair to third-party servers: only tools annotated ``readOnlyHint: true`` (or named
by the auditor) are called; a change that comes only after many calls, after some time, or in another session is not
seen, so a PASS says only that these calls changed nothing unannounced.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..calls import ToolCalls
from ..judging import main_reason
from ..registry import probe
from ..schemas import annotations_of, schema_valid_arguments
from ..support import (
    Finding, ProbeAbort, Target, WireTimeout, callable_tools, compact, failed, list_tools, not_applicable, passed,
    session_with_tools, tool_name,
)

REASONS = {
    "definition_changed_silently": "a tool's definition changed during the session without notifications/tools/"
                                   "list_changed",
    "tool_set_changed_silently": "tools appeared or disappeared during the session without notifications/tools/"
                                 "list_changed",
}
MAX_CALLED = 8
"""Read-only tools called between the two listings, at most."""
LIST_CHANGED = "notifications/tools/list_changed"


def fingerprint(tool: dict[str, Any]) -> str:
    """The SHA-256 of the tool's canonical JSON (sorted keys, no spaces): equal exactly when the definitions are."""
    canonical = json.dumps(tool, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def by_name(tools: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {tool_name(t): t for t in tools}


def _from_difference(before: Any, after: Any) -> tuple[str, str]:
    """Both values as compact JSON, each cut to start a little before the first character where they differ."""
    old, new = compact(before, 10**6), compact(after, 10**6)
    same = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    start = max(same - 30, 0)
    mark = "…" if start else ""
    return compact(mark + old[start:], 100), compact(mark + new[start:], 100)


def changed_fields(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The top-level fields whose values differ, each shown old -> new from near where they start to differ."""
    keys = sorted(set(before) | set(after))
    return [f"{key}: %s -> %s" % _from_difference(before.get(key), after.get(key))
            for key in keys if before.get(key) != after.get(key)]


def differences(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """``(reason, what changed)`` between two listings of one session."""
    old, new = by_name(first), by_name(second)
    found: list[tuple[str, str]] = []
    added, removed = sorted(set(new) - set(old)), sorted(set(old) - set(new))
    if added or removed:
        found.append(("tool_set_changed_silently", f"added {added or 'none'}, removed {removed or 'none'}"))
    for name in sorted(set(old) & set(new)):
        if fingerprint(old[name]) != fingerprint(new[name]):
            found.append(("definition_changed_silently",
                          f"{name}: sha256 {fingerprint(old[name])[:12]} -> {fingerprint(new[name])[:12]}; "
                          + "; ".join(changed_fields(old[name], new[name])[:3])))
    return found


@probe("announce_definition_changes", "tool definitions do not change during a session without list_changed",
       reasons=REASONS, calls_tools=True, shares_session=True)
def announce_definition_changes(target: Target) -> Finding:
    """List, call the read-only tools once, list again: every difference must follow a list_changed notification."""
    session, init, first = session_with_tools(target, lazy=False)
    listed_at = len(session.stdout)  # an announcement counts only between the two listings, not one sent at start-up
    chosen = [t for t in callable_tools(target, first) if annotations_of(t).get("readOnlyHint") is True][:MAX_CALLED]
    if not chosen:
        return not_applicable("no tool annotated readOnlyHint: true may be called, so nothing happened between listings")
    calls = ToolCalls(target, wait=target.timeout * 2, session=session)
    called = []
    for tool in chosen:
        args = schema_valid_arguments(tool)
        if args is not None and calls.call(tool_name(tool), args) is not None:
            called.append(tool_name(tool))
        if calls.session is not session:
            return calls.not_checked("the session that listed the tools was closed, so no second listing on it")
    if not called:
        return calls.not_checked("no read-only tool could be called with arguments valid for its schema")
    try:
        second = list_tools(session, timeout=target.timeout)
    except WireTimeout as exc:
        raise ProbeAbort(failed("no_answer", f"the second tools/list was not answered: {exc}",
                                *session.transcript(limit=8))) from None
    announced = any(isinstance(m.value, dict) and m.value.get("method") == LIST_CHANGED for m in session.stdout[listed_at:])
    declared = ((init.get("capabilities") or {}).get("tools") or {}).get("listChanged") is True
    found = differences(first, second)
    called_row = f"called between the listings: {', '.join(called)}"
    if found and not announced:
        return failed(main_reason(found, REASONS), f"{len(found)} change(s) to the tool list during the session, none announced with "
                      f"{LIST_CHANGED} (capabilities.tools.listChanged: {declared})",
                      called_row, *(text for _, text in found[:6]))
    if found:
        return passed(f"{len(found)} change(s) to the tool list, announced with {LIST_CHANGED}", called_row,
                      *(text for _, text in found[:6]))
    return passed(f"all {len(second)} tool definition(s) identical (SHA-256) before and after {len(called)} call(s)",
                  called_row)
