"""A frame longer than the server's cap is refused at the read layer, and serving goes on.

Newline-delimited framing has no length prefix, so a reader that waits for the newline holds an endless
line in memory. The probe sends one line far past any sensible cap (a padded ``ping``): it must get
``-32600`` with ``id: null`` (an echoed id shows the frame was parsed, so the cap was not where bytes are
read), and the next request must still be answered.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import Finding, Target, WireTimeout, compact, error_code, failed, handshake, passed

OVERSIZE_BYTES = 4 * 1024 * 1024
"""An over-cap frame: four times the handbook's recommended 1 MiB cap."""


@probe("frame_size_cap", "an over-cap frame is refused with -32600 and serving continues",
       reasons={
           "stopped_reading": "the server stopped reading stdin partway through the over-cap frame",
           "oversize_unanswered": "the over-cap frame was never answered",
           "oversize_processed": "the over-cap frame was read whole and answered as a normal request",
           "wrong_error_code": "the over-cap frame was refused with an error code other than -32600",
           "oversize_parsed": "the error echoed the frame's id: the frame was parsed, not capped at the read layer",
           "stopped_serving": "the request after the over-cap frame was not answered normally",
       })
def frame_size_cap(target: Target) -> Finding:
    """Send one over-cap frame: expect -32600 (id null) without it being processed, then keep serving."""
    session, _init = handshake(target)
    rid = session.new_id()
    head = f'{{"jsonrpc":"2.0","id":{rid},"method":"ping","params":{{"_meta":{{"pad":"'.encode()
    frame = head + b"x" * (OVERSIZE_BYTES - len(head) - 4) + b'"}}}\n'
    if not session.send_raw(frame, timeout=target.timeout * 2):
        return failed("stopped_reading", f"the server stopped reading stdin during a {len(frame)}-byte frame",
                      *session.transcript(limit=8))

    def answer_to_big(value: Any) -> bool:
        return isinstance(value, dict) and ("error" in value or value.get("id") == rid)

    first = session.wait_for(answer_to_big, timeout=target.timeout * 2)
    evidence = [f">>> one {len(frame):,}-byte line (a ping padded past the cap)"]
    if first is None:
        return failed("oversize_unanswered", "no answer to the over-cap frame", *evidence, *session.transcript(limit=6))
    evidence.append(f"<<< {first.line.text[:200]}")
    value = first.value
    if "result" in value:
        return failed("oversize_processed", "the over-cap frame was read whole and processed as a normal request", *evidence)
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
    return passed("the over-cap frame got -32600 with id null and the next request was served", *evidence)
