"""A server that serves 2026-07-28 requests also answers ``server/discover`` with a ``DiscoverResult``.

Discovery is how a client learns, in one request, which versions a server speaks and what it offers;
on stdio it is also how a dual-era client tells a modern server from a legacy one. A server that serves
modern requests but refuses ``server/discover`` is taken for a legacy server and spoken to in the wrong
era. The probe asks ``server/discover``, then sends ``tools/list`` in the 2026-07-28 envelope: a result
marked with ``resultType`` there shows the server speaks the revision, whatever discovery said.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import MODERN_REVISION, Finding, Target, WireTimeout, compact, failed, not_applicable, passed
from ._modern import NOT_MODERN, ask_discover, modern_request

SERVER_INFO = "io.modelcontextprotocol/serverInfo"


def _served_modern(answer: dict[str, Any]) -> bool:
    """Whether a 2026-07-28 request was served by that revision's rules (its result carries ``resultType``)."""
    result = answer.get("result")
    return isinstance(result, dict) and "resultType" in result


def _shape_problem(result: dict[str, Any]) -> str:
    """What a DiscoverResult lacks, in a sentence, or ``""``."""
    versions = result.get("supportedVersions")
    if not (isinstance(versions, list) and versions and all(isinstance(v, str) for v in versions)):
        return f"supportedVersions is {compact(versions, 80) if 'supportedVersions' in result else 'missing'}, not a list of versions"
    if not isinstance(result.get("capabilities"), dict):
        return f"capabilities is {compact(result.get('capabilities'), 80) if 'capabilities' in result else 'missing'}, not an object"
    if MODERN_REVISION not in versions:
        return f"supportedVersions {compact(versions, 120)} leaves out {MODERN_REVISION}, which the server serves"
    return ""


@probe("modern_discover", "a server that serves 2026-07-28 requests answers server/discover with a DiscoverResult",
       over_http=True, reasons={
           "discover_refused": "the server serves 2026-07-28 requests but refused server/discover",
           "bad_discover_result": "server/discover returned a result without supportedVersions (listing 2026-07-28) and capabilities",
       })
def modern_discover(target: Target) -> Finding:
    """Ask server/discover, then tools/list in the 2026-07-28 envelope; judge discovery by what the server serves."""
    session = target.start()
    discovered = ask_discover(session, target)
    try:
        listed = modern_request(session, "tools/list", timeout=target.timeout)
    except WireTimeout:  # not served in that era, as far as this probe can tell
        listed = {"error": "no answer"}
    evidence = [f"server/discover -> {compact(discovered.get('result', discovered.get('error')), 260)}",
                f"tools/list in the 2026-07-28 envelope -> "
                f"{'a result with resultType' if _served_modern(listed) else compact(listed.get('error', 'a result without resultType'), 160)}"]
    result = discovered.get("result")
    if not isinstance(result, dict):
        if _served_modern(listed):
            return failed("discover_refused", "the server serves 2026-07-28 requests but refused server/discover: a "
                          "dual-era client takes it for a legacy server", *evidence)
        return not_applicable(f"{NOT_MODERN} (server/discover was refused, and tools/list in its envelope got no 2026-07-28 result)",
                              *evidence)
    problem = _shape_problem(result)
    if problem:
        return failed("bad_discover_result", f"server/discover returned a result that is not a DiscoverResult: {problem}",
                      *evidence)
    meta = result.get("_meta") if isinstance(result.get("_meta"), dict) else {}
    evidence.append(f"serverInfo in _meta (SHOULD): {compact(meta.get(SERVER_INFO, 'absent'), 120)}")
    return passed(f"server/discover lists {', '.join(result['supportedVersions'])} and "
                  f"{len(result['capabilities'])} capability key(s)", *evidence)
