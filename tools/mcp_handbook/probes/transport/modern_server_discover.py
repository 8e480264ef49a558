"""A server that serves 2026-07-28 requests also answers ``server/discover`` with a ``DiscoverResult``.

Discovery is how a client learns, in one request, which versions a server speaks and what it offers;
on stdio it is also how a dual-era client tells a modern server from a legacy one. A server that serves
modern requests but refuses ``server/discover`` is taken for a legacy server and spoken to in the wrong
era. The probe asks ``server/discover``, then sends ``tools/list`` in the 2026-07-28 envelope: a result
marked with ``resultType`` there shows the server speaks the revision, whatever discovery said. A server silent
on ``server/discover`` is asked the same ``tools/list``: silence is a refusal when that request is served. The
discovery result must list 2026-07-28 only when the server serves that revision; otherwise it does not apply.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import (
    MODERN_REVISION, Finding, ProbeAbort, Target, WireTimeout, compact, failed, not_applicable, passed, silence_reason,
)
from ._common import control_silence
from ._modern import NOT_MODERN, modern_request

SERVER_INFO = "io.modelcontextprotocol/serverInfo"


def _served_modern(answer: dict[str, Any]) -> bool:
    """Whether a 2026-07-28 request was served by that revision's rules (its result carries ``resultType``)."""
    result = answer.get("result")
    return isinstance(result, dict) and "resultType" in result


def _shape_problem(result: dict[str, Any], *, serves_modern: bool) -> str:
    """What a DiscoverResult lacks, in a sentence, or ``""``. 2026-07-28 must be listed only by a server that
    serves that revision (``serves_modern``)."""
    versions = result.get("supportedVersions")
    if not (isinstance(versions, list) and versions and all(isinstance(v, str) for v in versions)):
        return f"supportedVersions is {compact(versions, 80) if 'supportedVersions' in result else 'missing'}, not a list of versions"
    if not isinstance(result.get("capabilities"), dict):
        return f"capabilities is {compact(result.get('capabilities'), 80) if 'capabilities' in result else 'missing'}, not an object"
    if serves_modern and MODERN_REVISION not in versions:
        return f"supportedVersions {compact(versions, 120)} leaves out {MODERN_REVISION}, which the server serves"
    return ""


def _discover(session: Any, target: Target) -> dict[str, Any]:
    """Ask ``server/discover``; silence becomes ``{"silent": True}`` when the server is still there to ask again.
    A server that exited stops the probe with the generic reason: its silence says nothing about the rule."""
    try:
        return modern_request(session, "server/discover", timeout=target.timeout)
    except WireTimeout:
        reason = silence_reason(session)
        if reason != "no_answer":
            raise ProbeAbort(failed(reason, "the server exited on server/discover", *session.transcript(limit=6))) from None
        return {"silent": True}


@probe("modern_server_discover", "a server that serves 2026-07-28 requests answers server/discover with a DiscoverResult",
       over_http=True, reasons={
           "discover_refused": "the server serves 2026-07-28 requests but refused server/discover",
           "bad_discover_result": "server/discover returned a result without supportedVersions (listing 2026-07-28) and capabilities",
       }, shares_session=True)
def modern_server_discover(target: Target) -> Finding:
    """Ask server/discover, then tools/list in the 2026-07-28 envelope; judge discovery by what the server serves."""
    session = target.start()
    discovered = _discover(session, target)
    try:
        listed = modern_request(session, "tools/list", timeout=target.timeout)
    except WireTimeout:  # not served in that era, as far as this probe can tell
        listed = {"error": "no answer"}
    serves_modern = _served_modern(listed)
    asked = "no answer" if discovered.get("silent") else compact(discovered.get("result", discovered.get("error")), 260)
    evidence = [f"server/discover -> {asked}",
                f"tools/list in the 2026-07-28 envelope -> "
                f"{'a result with resultType' if serves_modern else compact(listed.get('error', 'a result without resultType'), 160)}"]
    result = discovered.get("result")
    if not isinstance(result, dict):
        if serves_modern:
            how = "left server/discover unanswered" if discovered.get("silent") else "refused server/discover"
            return failed("discover_refused", f"the server serves 2026-07-28 requests but {how}: a dual-era client "
                          "takes it for a legacy server", *evidence)
        if discovered.get("silent"):
            reason = control_silence(target)
            if reason:
                return failed(reason, "the server answered neither server/discover nor initialize", *evidence)
            return not_applicable(f"{NOT_MODERN} (server/discover got no answer; initialize did, and tools/list in "
                                  "its envelope got no 2026-07-28 result)", *evidence)
        return not_applicable(f"{NOT_MODERN} (server/discover was refused, and tools/list in its envelope got no 2026-07-28 result)",
                              *evidence)
    problem = _shape_problem(result, serves_modern=serves_modern)
    if problem:
        return failed("bad_discover_result", f"server/discover returned a result that is not a DiscoverResult: {problem}",
                      *evidence)
    versions = result["supportedVersions"]
    if MODERN_REVISION not in versions:  # a well-formed result for other revisions, and no 2026-07-28 served
        return not_applicable(f"{NOT_MODERN} (server/discover lists {compact(versions, 120)}, and tools/list in the "
                              "2026-07-28 envelope got no 2026-07-28 result)", *evidence)
    meta = result.get("_meta")
    meta = meta if isinstance(meta, dict) else {}
    evidence.append(f"serverInfo in _meta (SHOULD): {compact(meta.get(SERVER_INFO, 'absent'), 120)}")
    return passed(f"server/discover lists {', '.join(versions)} and "
                  f"{len(result['capabilities'])} capability key(s)", *evidence)
