"""Probes of the stdio framing: what the server writes to stdout, and how it reads stdin."""

from __future__ import annotations

from typing import Any

from ..base import Finding, Probe, Target, WireTimeout, compact, failed, list_tools, passed

OVERSIZE_BYTES = 4 * 1024 * 1024
"""An over-cap frame: four times the handbook's recommended 1 MiB cap."""


def is_jsonrpc_message(value: Any) -> bool:
    """A JSON-RPC 2.0 request, notification or response object (one per line)."""
    if not isinstance(value, dict) or value.get("jsonrpc") != "2.0":
        return False
    if "method" in value:
        return isinstance(value["method"], str)
    return "id" in value and (("result" in value) != ("error" in value))


def stdout_jsonrpc_only(target: Target) -> Finding:
    """Drive an ordinary session plus a few faults; every stdout line must be one JSON-RPC message."""
    session = target.start()
    problems: list[str] = []
    try:
        session.initialize(timeout=target.timeout)
        session.request("ping", {"_meta": {"progressToken": "probe"}}, timeout=target.timeout)
        list_tools(session, timeout=target.timeout)
        session.request("probe/no_such_method", {}, timeout=target.timeout)
        session.send_raw(b'{"jsonrpc": "2.0", "id": "broken", \n')
        session.request("ping", timeout=target.timeout)
    except WireTimeout as exc:
        problems.append(f"session broke off: {exc}")
    code = session.close(grace=1.0)
    lines = session.stdout
    bad = [m for m in lines if not is_jsonrpc_message(m.value)]
    if bad:
        shown = [f"<<< {m.line.text[:200]}" for m in bad[:5]]
        return failed(
            f"{len(bad)} of {len(lines)} stdout line(s) are not JSON-RPC messages; a client cannot parse them",
            *shown, *problems,
        )
    if problems:
        return failed("the server stopped answering during an ordinary session", *problems, *session.transcript(limit=12))
    return passed(f"all {len(lines)} stdout lines are single JSON-RPC messages; exit code {code}", *session.transcript(limit=8))


def frame_size_cap(target: Target) -> Finding:
    """Send one over-cap frame: expect -32600 (id null) without it being processed, then keep serving."""
    session = target.start()
    session.initialize(timeout=target.timeout)
    rid = session.new_id()
    head = f'{{"jsonrpc":"2.0","id":{rid},"method":"ping","params":{{"_meta":{{"pad":"'.encode()
    frame = head + b"x" * (OVERSIZE_BYTES - len(head) - 4) + b'"}}}\n'
    if not session.send_raw(frame, timeout=target.timeout * 2):
        return failed(f"the server stopped reading stdin during a {len(frame)}-byte frame", *session.transcript(limit=8))

    def answer_to_big(value: Any) -> bool:
        return isinstance(value, dict) and ("error" in value or value.get("id") == rid)

    first = session.wait_for(answer_to_big, timeout=target.timeout * 2)
    evidence = [f">>> one {len(frame):,}-byte line (a ping padded past the cap)"]
    if first is None:
        return failed("no answer to the over-cap frame", *evidence, *session.transcript(limit=6))
    evidence.append(f"<<< {first.line.text[:200]}")
    value = first.value
    if "result" in value:
        return failed("the over-cap frame was read whole and processed as a normal request", *evidence)
    error = value.get("error") or {}
    if error.get("code") != -32600:
        return failed(f"the over-cap frame got error code {error.get('code')}, not -32600 (Invalid Request)", *evidence)
    if value.get("id") is not None:
        return failed("the over-cap frame was parsed (its id was echoed): the cap is not enforced at the read layer", *evidence)
    try:
        after = session.request("ping", timeout=target.timeout)
    except WireTimeout as exc:
        return failed(f"the server stopped serving after the over-cap frame: {exc}", *evidence)
    evidence.append(f"<<< {compact(after)}")
    if "result" not in after:
        return failed("the next ping after the over-cap frame was not answered normally", *evidence)
    return passed("the over-cap frame got -32600 with id null and the next request was served", *evidence)


PROBES = (
    Probe("stdout_jsonrpc_only", stdout_jsonrpc_only, "every stdout line is one JSON-RPC message"),
    Probe("frame_size_cap", frame_size_cap, "an over-cap frame is refused with -32600 and serving continues"),
)
