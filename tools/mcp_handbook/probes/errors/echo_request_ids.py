"""ERR-008: a response carries exactly the id its request carried, same value and same JSON type.

A client delivers a response to whoever waits under exactly that id: ``"7"`` for ``7``, ``null`` for ``0``
or a number of the server's own leave the waiting call hanging, or complete the wrong one. The probe sends
ids that careless code changes (``0``, ``""``, ``"0"``, ``-1``, +-(2^53 - 1), non-ASCII strings) through both the
result path (``ping``) and the error path (an unknown method, an unknown tool), then matches every answer.

Every id it sends is one a conforming peer can echo exactly: integers stay within +-(2^53 - 1), the range
RFC 8259 section 6 calls interoperable. A larger integer is not a fair test: a peer that parses JSON numbers
as IEEE 754 doubles (JavaScript's ``JSON.parse``) conforms to JSON and still cannot hold it.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from ..registry import probe
from ..support import Finding, Target, WireTimeout, compact, failed, handshake, passed, responses, trivial_method
from ._common import same_id

MAX_SAFE_INTEGER = 2**53 - 1
"""The largest integer every JSON parser holds exactly (RFC 8259 section 6: IEEE 754 doubles)."""
ECHO_IDS: tuple[tuple[Any, Any], ...] = (  # (id for a ping, id for an unknown method): results and errors
    ("", 0), ("0", "00"), (-1, -2), ("abc", "ABC"), (MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER),
    ("id with spaces/\u00fc", "id/\u00fc 2"),
)
"""Ids careless code changes; the integers stay within +-(2^53 - 1), so an exact echo is always possible."""


@probe("echo_request_ids", "response ids echo request ids verbatim, type included",
       over_http=True, reasons={
           "id_not_echoed": "no answer carries a request's id with its value and JSON type",
           "invented_id": "an answer carries an id no request used",
       }, shares_session=True)
def echo_request_ids(target: Target) -> Finding:
    """Success and error answers must carry the request's id exactly: same value, same JSON type."""
    session, _init = handshake(target)
    trivial = trivial_method(target)
    sent: list[tuple[Any, str, dict[str, Any]]] = []
    for ping_id, error_id in ECHO_IDS:
        sent.append((ping_id, trivial, {}))
        sent.append((error_id, "hb/no_such_method", {}))
    sent.append(("0x", "tools/call", {"name": f"hb_no_such_tool_{secrets.token_hex(3)}"}))
    start = len(session.stdout)
    end_id = f"hb-end-{secrets.token_hex(3)}"
    for rid, method, params in sent:
        session.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    session.send({"jsonrpc": "2.0", "id": end_id, "method": trivial})
    try:
        session.wait_for_id(end_id, timeout=target.timeout)
        silent = ""
    except WireTimeout as exc:  # judged below: a renumbered answer to the closing ping is an id problem too
        silent = f"the closing ping {end_id!r} got no answer carrying its id: {exc}"
    answers = [r for r in responses(session.stdout[start:]) if not same_id(r.get("id"), end_id)]
    remaining = list(answers)
    problems: list[tuple[str, str]] = []  # (reason, what happened)
    for rid, method, _params in sent:
        match = next((a for a in remaining if same_id(a.get("id"), rid)), None)
        if match is None:
            problems.append(("id_not_echoed",
                             f"{method} with id {json.dumps(rid)} ({type(rid).__name__}): no answer carries that id"))
        else:
            remaining.remove(match)
    for extra in remaining:
        problems.append(("invented_id",
                         f"an answer with id {json.dumps(extra.get('id'))}, which no request used: {compact(extra, 160)}"))
    evidence = [f"<<< {compact(a, 140)}" for a in answers]
    if problems:
        return failed(problems[0][0], f"{len(problems)} id(s) were not echoed verbatim",
                      *(text for _reason, text in problems), *([silent] if silent else []), *evidence)
    if silent:
        return failed("no_answer", f"the server stopped answering: {silent}", *session.transcript(limit=10))
    return passed(f"{len(sent)} ids (0, \"0\", -1, \"\", 2^53-1, ...) echoed with their type, on results and errors",
                  *evidence)
