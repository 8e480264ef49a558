"""ERR-014: reading a resource that does not exist is the specified JSON-RPC error, never a result.

2026-07-28 requires -32602 for a resource that does not exist and forbids answering with an empty ``contents``
(an empty array could mean an empty resource); 2025-11-25 recommends -32002, and since the official SDK and
2026-07-28 moved to -32602, a handshake-era answer of either is accepted. A crash (-32603) or a result is
neither. The probe derives a missing URI from one the server lists (a sibling name no file has) and reads it
in the handshake era and, when the server speaks it, in 2026-07-28; a server met in 2026-07-28 only (the
auditor's choice for one that does not answer ``initialize``) is read in that era only. It needs nothing but
the server's answers, so it runs over Streamable HTTP too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..registry import probe
from ..support import (
    MODERN_REVISION, Finding, Target, WireSession, WireTimeout, compact, error_code, failed, handshake, modern_meta,
    no_server_action, not_applicable, passed,
)

NOT_FOUND_LEGACY = -32002
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


def _missing_uri(session: WireSession, target: Target) -> str | None:
    """A URI beside a listed one, with a name no resource has (a ``file:`` resource preferred)."""
    answer = session.request("resources/list", {}, timeout=target.timeout)
    result = answer.get("result")
    listed = [uri for r in (result.get("resources") or [] if isinstance(result, dict) else [])
              if isinstance(r, dict) and isinstance(uri := r.get("uri"), str) and uri]
    if not listed:
        return None
    uri = next((u for u in listed if u.startswith("file:")), listed[0])
    head, slash, _tail = uri.rpartition("/")
    name = "hb-missing-resource.txt"
    return f"{head}/{name}" if slash and "://" in head + slash else f"{uri}-{name}"


def _speaks_modern(session: WireSession, target: Target) -> bool:
    try:
        answer = session.request("server/discover", {"_meta": modern_meta()}, timeout=target.timeout)
    except WireTimeout:
        return False
    result = answer.get("result")
    versions = result.get("supportedVersions") if isinstance(result, dict) else None
    return isinstance(versions, list) and MODERN_REVISION in versions


def _judge(era: str, answer: dict[str, Any], allowed: tuple[int, ...]) -> tuple[str, str] | None:
    """(reason, summary) when ``answer`` is not the not-found error ``allowed`` for ``era``; None when it is."""
    if "result" in answer:
        return "not_found_served", f"{era}: a resource that does not exist was answered with a result"
    code = error_code(answer)
    if code == INTERNAL_ERROR:
        return "internal_error_for_missing", f"{era}: a missing resource was answered -32603 Internal error"
    if code not in allowed:
        return "wrong_not_found_code", f"{era}: a missing resource got {code}, not {' or '.join(map(str, allowed))}"
    return None


@contextlib.contextmanager
def _listed_file(root: Path | None) -> Iterator[None]:
    """A file in the served root (when it is known) for the block, so the listing names at least one resource."""
    planted = root / "hb-listed.txt" if root is not None else None
    if planted is not None and not planted.exists():
        planted.write_text("hb-listed\n")
    else:
        planted = None
    try:
        yield
    finally:
        if planted is not None:
            planted.unlink(missing_ok=True)


@probe("resource_not_found_code", "a resource that does not exist gets the specified error", over_http=True, reasons={
    "not_found_served": "resources/read of a resource that does not exist returned a result (empty contents or not)",
    "wrong_not_found_code": "the error code is not the revision's: -32602 in 2026-07-28; -32002 (or -32602) before",
    "internal_error_for_missing": "a missing resource was answered -32603 Internal error, as if the server broke",
}, shares_session=True)
def resource_not_found_code(target: Target) -> Finding:
    """Read a URI that names nothing, in each era the server speaks; judge the error code."""
    session, init = handshake(target)
    capabilities = init.get("capabilities")
    if not (isinstance(capabilities, dict) and isinstance(capabilities.get("resources"), dict)):
        return not_applicable("does not apply: the server does not declare the resources capability")
    if not target.may_request("resources/read"):
        return not_applicable(no_server_action("resources/read"))
    with _listed_file(target.root):
        return _read_missing(session, target)


def _read_once(session: WireSession, target: Target, era: str, params: dict[str, Any], allowed: tuple[int, ...],
               evidence: list[str]) -> tuple[str, str] | None:
    """Read the missing URI once in ``era``, note the answer in ``evidence``, and :func:`_judge` it."""
    answer = session.request("resources/read", params, timeout=target.timeout)
    evidence.append(f"{era}: resources/read {params['uri']} -> {compact(answer, 200)}")
    return _judge(era, answer, allowed)


def _read_missing(session: WireSession, target: Target) -> Finding:
    uri = _missing_uri(session, target)
    if uri is None:
        return not_applicable("not checked: resources/list lists no resource to derive a missing URI from")
    evidence: list[str] = []
    if target.modern:  # the session already puts the 2026-07-28 envelope on every request: no handshake-era read
        problem = _read_once(session, target, "2026-07-28", {"uri": uri}, (INVALID_PARAMS,), evidence)
    else:
        problem = _read_once(session, target, "handshake era", {"uri": uri}, (NOT_FOUND_LEGACY, INVALID_PARAMS), evidence)
        if problem is None and _speaks_modern(session, target):
            problem = _read_once(session, target, "2026-07-28", {"uri": uri, "_meta": modern_meta()}, (INVALID_PARAMS,),
                                 evidence)
    if problem is not None:
        return failed(problem[0], problem[1], *evidence)
    return passed("a resource that does not exist gets the revision's not-found error", *evidence)
