"""ERR-009: a server that de-duplicates re-delivered calls keys them by the client's request id.

A message can arrive twice (a client library resending after a broken pipe, a proxy re-delivering), and
for a non-idempotent tool the second delivery is a second note or a second invoice. Keyed by the client's
id, type included, the re-delivery runs once; keyed by a server-side counter it never matches, and keyed
by arguments a new request is wrongly swallowed. The probe calls a non-idempotent tool with a visible
effect in the workspace, re-sends the same request under the same id, then under a new one.
"""

from __future__ import annotations

import secrets

from ..registry import probe
from ..support import (
    Finding, Target, WireTimeout, callable_tools, failed, fill_arguments, not_applicable, passed, session_with_tools,
)
from ._common import FAILING_TOOL, call, changed, describe, quiet_workspace, snapshot

MAX_TOOLS = 3
"""Non-idempotent tools tried at most, until one shows an effect."""


@probe("dedup_by_request_id", "a re-delivered non-idempotent call runs once", calls_tools=True,
       reasons={
           "ran_twice": "a re-delivered request (same id, same arguments) ran the tool a second time",
           "new_id_not_run": "a new request id with the same arguments was treated as a duplicate and did not run",
       })
def dedup_by_request_id(target: Target) -> Finding:
    """A re-delivered non-idempotent call (same id) must not run twice; a new id must run again."""
    session, _init, listed = session_with_tools(target)
    tools = [t for t in callable_tools(target, listed)
             if (t.get("annotations") or {}).get("readOnlyHint") is not True
             and (t.get("annotations") or {}).get("idempotentHint") is not True
             and not FAILING_TOOL.search(t["name"])]
    if not tools:
        return not_applicable("no callable tool is marked non-idempotent with a side effect")
    if not quiet_workspace(session, target):
        return not_applicable("the workspace changes on a mere ping, so a tool's effect cannot be told apart")
    evidence: list[str] = []
    for tool in tools[:MAX_TOOLS]:
        args = {n: (f"hb dedup {secrets.token_hex(2)}" if isinstance(v, str) else v)
                for n, v in fill_arguments(tool).items()}
        first_id = f"hb-dedup-{secrets.token_hex(3)}"
        s0 = snapshot(target.workspace)
        try:
            first = call(session, first_id, tool["name"], args, timeout=target.timeout)
            s1 = snapshot(target.workspace)
            if not changed(s0, s1):
                evidence.append(f"{tool['name']}: no visible effect in the workspace ({describe(first)})")
                continue
            again = call(session, first_id, tool["name"], args, timeout=target.timeout)
            s2 = snapshot(target.workspace)
            fresh = call(session, first_id + "-new", tool["name"], args, timeout=target.timeout)
            s3 = snapshot(target.workspace)
        except WireTimeout as exc:  # silence is ERR-001's to count, not a keying fault
            return failed("no_answer", f"{tool['name']}: no answer ({exc})", *evidence)
        evidence += [f"{tool['name']} id {first_id!r} -> {describe(first)}",
                     f"same id again -> {describe(again)}", f"new id -> {describe(fresh)}"]
        if changed(s1, s2):
            return failed("ran_twice", f"{tool['name']} ran twice for one request id: {', '.join(changed(s1, s2))} changed again",
                          *evidence)
        if not changed(s2, s3):
            return failed("new_id_not_run",
                          f"{tool['name']} with a new request id did not run: the server treated it as a duplicate", *evidence)
        return passed(f"{tool['name']}: the re-delivered id ran once; a new id ran again", *evidence)
    return not_applicable("no callable non-idempotent tool has an effect the probe can see in the workspace", *evidence)
