"""ERR-007: a line that cannot be parsed gets -32700, a message that is not a request gets -32600, both
with a null id when none could be read, and the next line is served normally.

A client with a serialiser bug, a truncated write or a proxy that mangles bytes learns what happened
only from this error: silence makes it wait, a dead server loses every request in flight, and an
invented id fails whichever of its own requests carries that id. The probe sends the classic malformed
lines (each judged on its code and id), then the hostile frames a fuzz test throws at a reader (deep
nesting, ``NaN``, a byte-order mark, CRLF, ids that are huge, boolean, objects or overflow a double;
each judged on one answer whose id is its own or null), each followed by a ``ping`` that must be answered.

The batch is judged only in a session of 2025-06-18 or later, which removed batching: 2025-03-26 requires a
server to receive batches, and 2024-11-05 defers to JSON-RPC 2.0, which allows them. A single -32600 for a batch
is this handbook's reading of the removal (JSON-RPC 2.0's answer to an array it does not accept as a batch).
"""

from __future__ import annotations

import re
from typing import Any

from ..registry import probe
from ..support import Finding, Target, WireTimeout, compact, error_code, failed, handshake, passed
from ._common import answers_between, describe, same_id

NULL = object()
"""A hostile frame's id when it carries none the server could read."""

BATCH = "a batch (removed in 2025-06-18)"
MALFORMED: tuple[tuple[str, bytes, int, Any], ...] = (  # label, frame, code, acceptable id besides null
    ("truncated JSON", b'{"jsonrpc": "2.0", "id": 41, "method": "pi', -32700, None),
    ("invalid UTF-8", b'\xff\xfe\xfd', -32700, None),
    (BATCH, b'[{"jsonrpc": "2.0", "id": 42, "method": "ping"}]', -32600, None),
    ("an empty array", b'[]', -32600, None),
    ("a bare number", b'42', -32600, None),
    ("a bare string", b'"ping"', -32600, None),
    ("an object without method", b'{"jsonrpc": "2.0", "id": "hb-nomethod"}', -32600, "hb-nomethod"),
    ("jsonrpc 1.0", b'{"jsonrpc": "1.0", "id": "hb-v1", "method": "ping"}', -32600, "hb-v1"),
)
"""Lines with a known right answer: exactly one error with this code."""
BATCHLESS = "2025-06-18"
"""The first revision without JSON-RPC batches: before it, a batch is served, not refused."""
_REVISION = re.compile(r"\d{4}-\d{2}-\d{2}")


def batches_allowed(version: Any) -> bool:
    """Whether the negotiated revision allows batches: 2025-03-26 (which requires receiving them) and 2024-11-05
    (which defers to JSON-RPC 2.0)."""
    return isinstance(version, str) and bool(_REVISION.fullmatch(version)) and version < BATCHLESS


HOSTILE: tuple[tuple[str, bytes, Any], ...] = (  # label, frame, the id it carries (NULL: none readable)
    ("truncated JSON", b'{"jsonrpc":"2.0","id":1,"method":', NULL),
    ("invalid UTF-8", b"\xc3\x28\xa0\xa1", NULL),
    ("deep nesting", b"[" * 20000 + b"]" * 20000, NULL),
    ("NaN literal", b'{"jsonrpc":"2.0","id":"hb-nan","method":"ping","params":{"x":NaN}}', "hb-nan"),
    ("a byte-order mark", b'\xef\xbb\xbf{"jsonrpc":"2.0","id":"hb-bom","method":"ping"}', "hb-bom"),
    ("CRLF line ending", b'{"jsonrpc":"2.0","id":"hb-crlf","method":"ping"}\r', "hb-crlf"),
    ("NUL in an id", b'{"jsonrpc":"2.0","id":"hb-\\u0000","method":"ping"}', "hb-\x00"),
    ("a lone surrogate in an id", b'{"jsonrpc":"2.0","id":"hb-\\ud800","method":"ping"}', "hb-\ud800"),
    ("a 30-digit integer id", b'{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}',
     123456789012345678901234567890),
    ("an id that overflows a double", b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}', float("inf")),
    ("a boolean id", b'{"jsonrpc":"2.0","id":true,"method":"ping"}', True),
    ("an object id", b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', {"a": 1}),
    ("a null method", b'{"jsonrpc":"2.0","id":"hb-m","method":null}', "hb-m"),
    ("params that are a string", b'{"jsonrpc":"2.0","id":"hb-p","method":"tools/list","params":"x"}', "hb-p"),
)
"""Frames a reader must survive, where more than one answer can be right (a result or an error): exactly one
answer, whose id is the frame's own or null."""


@probe("malformed_message_errors", "bad JSON -32700, non-requests -32600, id null",
       reasons={
           "malformed_unanswered": "a malformed or hostile line got no answer",
           "answered_twice": "one malformed or hostile line got more than one answer",
           "wrong_error_code": "a line that is not JSON got no -32700, or JSON that is not a request no -32600",
           "invented_id": "the answer carries an id the server could not have read from the line (it must be null)",
           "stopped_serving": "the ping after a malformed or hostile line was not answered: the server died or hung",
       })
def malformed_message_errors(target: Target) -> Finding:
    """Bad JSON -32700 and non-request JSON -32600, each answered once with a null id; hostile frames answered
    once with their own id or null; serving goes on after each."""
    session, init = handshake(target)
    evidence: list[str] = []
    problems: list[tuple[str, str]] = []  # (reason, what happened)
    version = init.get("protocolVersion")
    for label, frame, code, echo in MALFORMED:
        if label == BATCH and batches_allowed(version):
            evidence.append(f"--- {label}: not sent; the session negotiated {version}, in which a batch is served")
            continue
        try:
            answers = answers_between(session, frame, timeout=target.timeout)
        except WireTimeout as exc:
            return failed("stopped_serving", f"after {label} the server stopped answering: {exc}",
                          *(text for _reason, text in problems), *evidence, *session.transcript(limit=8))
        evidence.append(f">>> {label}: {frame[:60]!r}")
        evidence.extend(f"<<< {compact(a, 200)}" for a in answers)
        if len(answers) != 1:
            problems.append(("malformed_unanswered" if not answers else "answered_twice",
                             f"{label}: {len(answers)} answers, expected exactly one error"))
            continue
        answer = answers[0]
        if error_code(answer) != code:
            problems.append(("wrong_error_code", f"{label}: expected error {code}, got {describe(answer)}"))
        rid = answer.get("id")
        if rid is not None and not (echo is not None and same_id(rid, echo)):
            problems.append(("invented_id",
                             f"{label}: the error carries id {rid!r}; an id the server could not read must be null"))
    for label, frame, own in HOSTILE:
        try:
            answers = answers_between(session, frame, timeout=target.timeout)
        except WireTimeout as exc:
            return failed("stopped_serving", f"after {label} the server stopped answering: {exc}",
                          *(text for _reason, text in problems), *evidence, *session.transcript(limit=8))
        shown = "; ".join(compact(a, 120) for a in answers) or "nothing"
        evidence.append(f">>> {label} -> {shown}")
        if len(answers) != 1:
            problems.append(("malformed_unanswered" if not answers else "answered_twice",
                             f"{label}: {len(answers)} answers, expected exactly one ({shown})"))
            continue
        got = answers[0].get("id")
        if got is not None and not (own is not NULL and (same_id(got, own) or got == own)):
            problems.append(("invented_id", f"{label}: answered with id {got!r}, which is neither the frame's id nor null"))
    if problems:
        return failed(problems[0][0], f"{len(problems)} malformed or hostile line(s) mishandled",
                      *(text for _reason, text in problems), *evidence)
    return passed(f"{len(MALFORMED)} malformed messages each got one error with the right code and id, "
                  f"{len(HOSTILE)} hostile frames one answer each; serving went on", *evidence)
