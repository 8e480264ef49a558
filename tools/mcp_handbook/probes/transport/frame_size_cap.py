"""A frame longer than the server's cap is refused at the read layer, and serving goes on.

Newline-delimited framing has no length prefix, so a reader that waits for the newline holds an endless
line in memory. The probe sends one line far past any sensible cap (a padded ``ping``): it must get
``-32600`` with ``id: null`` (an echoed id shows the frame was parsed, so the cap was not where bytes are
read), and the next request must still be answered.

A probe can only see the sizes it sends: a line read whole shows there is no cap *at or below its size*,
never that there is none. When the first line is read whole, one larger line tells a cap between the two
sizes from no cap at or below the larger, and the finding says which it saw.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import Finding, Target, WireSession, WireTimeout, compact, error_code, failed, handshake, passed

OVERSIZE_BYTES = 4 * 1024 * 1024
"""An over-cap line: four times the handbook's recommended 1 MiB cap."""
LARGER_BYTES = 16 * 1024 * 1024
"""The line sent when the first was read whole, to bound where a cap above it lies (if there is one)."""


def _padded_ping(rid: int, size: int) -> bytes:
    """A ``ping`` line of exactly ``size`` bytes (its newline not counted), padded in ``params._meta``."""
    head = f'{{"jsonrpc":"2.0","id":{rid},"method":"ping","params":{{"_meta":{{"pad":"'.encode()
    return head + b"x" * (size - len(head) - 4) + b'"}}}\n'


def _send_big(session: WireSession, target: Target, size: int) -> tuple[str, dict[str, Any] | None, str]:
    """Send one padded line of ``size`` bytes: ("unread" | "unanswered" | "answered", the answer, its row)."""
    rid = session.new_id()
    if not session.send_raw(_padded_ping(rid, size), timeout=target.timeout * 2):
        return "unread", None, f"the {size:,}-byte line was not read to its end: {_gone(session)}"

    def answer_to_big(value: Any) -> bool:
        return isinstance(value, dict) and ("error" in value or value.get("id") == rid)

    first = session.wait_for(answer_to_big, timeout=target.timeout * 2)
    if first is None:
        return "unanswered", None, f"the {size:,}-byte line got no answer: {_gone(session)}"
    return "answered", first.value, f"<<< {first.line.text[:200]}"


def _gone(session: WireSession) -> str:
    """Whether the server exited (and how) or is still running without reading or answering."""
    code = session.wait_exit(0.5)
    return f"the server exited with code {code}" if code is not None else "the server is still running"


def _read_whole(session: WireSession, target: Target, evidence: list[str]) -> Finding:
    """The first line was read whole and answered: say exactly what that shows, after one larger line."""
    seen = f"a {OVERSIZE_BYTES:,}-byte line was read whole and answered"
    outcome, value, row = _send_big(session, target, LARGER_BYTES)
    evidence += [f">>> one {LARGER_BYTES:,}-byte line (a larger padded ping)", row,
                 f"largest line sent: {LARGER_BYTES:,} bytes (the probe sends none larger)"]
    if outcome == "answered" and value is not None and "result" in value:
        summary = (f"lines of {OVERSIZE_BYTES:,} and {LARGER_BYTES:,} bytes were both read whole and answered: "
                   f"no cap at or below {LARGER_BYTES:,} bytes (a higher one cannot be seen)")
    elif outcome == "answered" and value is not None:
        summary = (f"{seen}, a {LARGER_BYTES:,}-byte line was refused (error {error_code(value)}): the server caps "
                   f"frames somewhere above {OVERSIZE_BYTES:,} and at or below {LARGER_BYTES:,} bytes")
    else:
        summary = f"{seen}: no cap at or below {OVERSIZE_BYTES:,} bytes; then {row}"
    return failed("oversize_processed", summary, *evidence)


@probe("frame_size_cap", "an over-cap frame is refused with -32600 and serving continues",
       reasons={
           "stopped_reading": "the server stopped reading stdin partway through the over-cap frame",
           "oversize_unanswered": "the over-cap frame was never answered",
           "oversize_processed": "the over-cap frame was read whole and answered as a normal request: no cap at or "
                                 "below its size",
           "wrong_error_code": "the over-cap frame was refused with an error code other than -32600",
           "oversize_parsed": "the error echoed the frame's id: the frame was parsed, not capped at the read layer",
           "stopped_serving": "the request after the over-cap frame was not answered normally",
       })
def frame_size_cap(target: Target) -> Finding:
    """Send one over-cap frame: expect -32600 (id null) without it being processed, then keep serving."""
    session, _init = handshake(target)
    outcome, value, row = _send_big(session, target, OVERSIZE_BYTES)
    evidence = [f">>> one {OVERSIZE_BYTES:,}-byte line (a ping padded past the cap)"]
    if outcome == "unread":
        return failed("stopped_reading", row, *evidence, *session.transcript(limit=8))
    if outcome == "unanswered" or value is None:
        return failed("oversize_unanswered", "no answer to the over-cap frame", *evidence, *session.transcript(limit=6))
    evidence.append(row)
    if "result" in value:
        return _read_whole(session, target, evidence)
    if error_code(value) != -32600:
        return failed("wrong_error_code",
                      f"the over-cap frame got error code {error_code(value)}, not -32600 (Invalid Request)", *evidence)
    if value.get("id") is not None:
        return failed("oversize_parsed",
                      "the over-cap frame was parsed (its id was echoed): the cap is not enforced at the read layer", *evidence)
    try:
        after = session.request("ping", timeout=target.timeout)
    except WireTimeout as exc:
        return failed("stopped_serving", f"the server stopped serving after the over-cap frame: {exc}", *evidence)
    evidence.append(f"<<< {compact(after)}")
    if "result" not in after:
        return failed("stopped_serving", "the next ping after the over-cap frame was not answered normally", *evidence)
    return passed(f"a {OVERSIZE_BYTES:,}-byte line got -32600 with id null and the next request was served", *evidence)
