"""A ``server/discover`` sent before ``initialize`` is answered at once, and ``initialize`` still works.

A dual-era client opens with ``server/discover`` and falls back to ``initialize`` when it gets an error.
A handshake-era server that leaves the request unanswered makes that client wait out its discovery
timeout (10 s in the Python SDK) on every start; one that refuses it with ``-32022`` naming no handshake
revision makes it give up. The probe sends ``server/discover`` exactly as such a client does, then a ``ping``
to tell a silent server from a slow one, then the ``initialize`` a falling-back client sends.
"""

from __future__ import annotations

import time

from ..registry import probe
from ..support import (
    KNOWN_REVISIONS, compact, failed, Finding, modern_meta, passed, send_request, Target, WireTimeout,
)
from ._common import control_silence, init_params

MODERN_META = modern_meta()
"""The envelope a dual-era client puts on its first request."""


@probe("answer_server_discover", "server/discover is answered at once, and initialize still works",
       reasons={
           "discover_unanswered": "server/discover sent before initialize got no answer: a dual-era client waits out its timeout",
           "bad_discover_result": "server/discover returned a result that is not a DiscoverResult",
           "no_handshake_fallback": "server/discover was refused with -32022 listing no handshake revision to fall back to",
           "initialize_failed": "after refusing server/discover the server did not complete the initialize that followed",
       })
def answer_server_discover(target: Target) -> Finding:
    """Send server/discover first, as a dual-era client does: it must be answered at once, and initialize must still work."""
    session = target.start()
    started = time.monotonic()
    discover_id = send_request(session, "server/discover", {"_meta": MODERN_META})
    ping_id = send_request(session, "ping", {"_meta": MODERN_META})
    pinged = True
    try:
        session.wait_for_id(ping_id, timeout=target.timeout)
    except WireTimeout:
        pinged = False
    try:
        answer = session.wait_for_id(discover_id, timeout=0.5 if pinged else 0.1)
    except WireTimeout:
        why = ("a ping sent after it was answered" if pinged else f"nothing came back within {target.timeout:.0f} s")
        summary = (f"server/discover got no answer ({why}): a dual-era client waits out its discovery timeout "
                   "(10 s in the Python SDK) before it falls back to initialize")
        # neither answered: the fault of discovery only if a server that is sent a plain initialize answers it
        reason = "discover_unanswered" if pinged else control_silence(target) or "discover_unanswered"
        return failed(reason, summary, *session.transcript(limit=8))
    elapsed = time.monotonic() - started
    evidence = [f"<<< {compact(answer)}", f"answered {elapsed * 1000:.0f} ms after it was sent (server start-up included)"]
    if "result" in answer:
        result = answer["result"] if isinstance(answer["result"], dict) else {}
        versions = result.get("supportedVersions")
        if not (isinstance(versions, list) and versions and all(isinstance(v, str) for v in versions)
                and isinstance(result.get("capabilities"), dict)):
            return failed("bad_discover_result", "server/discover returned a result that is not a DiscoverResult "
                          "(supportedVersions and capabilities)", *evidence)
        return passed(f"the server answers server/discover as a modern server (supports {', '.join(versions)})", *evidence)
    error = answer.get("error")
    error = error if isinstance(error, dict) else {}
    if error.get("code") == -32022:
        supported = (error.get("data") or {}).get("supported") if isinstance(error.get("data"), dict) else None
        if isinstance(supported, list) and not any(v in KNOWN_REVISIONS for v in supported):
            return failed("no_handshake_fallback", "server/discover was refused with -32022 listing no handshake revision: "
                          "a dual-era client stops instead of falling back to initialize", *evidence)
    try:
        init = session.request("initialize", init_params(), timeout=target.timeout)
    except WireTimeout as exc:
        return failed("initialize_failed", f"after refusing server/discover the server did not answer initialize: {exc}",
                      *evidence)
    evidence.append(f"<<< {compact(init, 200)}")
    if "result" not in init:
        return failed("initialize_failed", "after refusing server/discover the server refused initialize too: no era works",
                      *evidence)
    return passed(f"server/discover refused at once with {error.get('code')}; initialize then succeeded", *evidence)
