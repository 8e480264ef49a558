"""What the 2026-07-28 probes share: the per-request envelope, and meeting a server in that era.

A 2026-07-28 server has no handshake: every request carries its protocol version and client
capabilities in ``params._meta``. These probes open with ``server/discover``, as a client of that
revision may. A server that refuses it (or answers only ``initialize``) does not speak 2026-07-28:
the rule does not apply to it, and the probe says so instead of failing.
"""

from __future__ import annotations

from typing import Any

from ...wire import WireSession
from ..support import (
    MODERN_REVISION, ProbeAbort, Target, WireTimeout, compact, failed, modern_meta, not_applicable, silence_reason,
)
from ._common import control_silence

NOT_MODERN = "does not apply: the server does not speak 2026-07-28"
"""The N/A a legacy-only server gets from every 2026-07-28 probe (never a FAIL)."""
MAX_PAGES = 20
"""The most ``tools/list`` pages a probe follows."""


def modern_request(session: WireSession, method: str, params: dict[str, Any] | None = None, *,
                   timeout: float, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """Send one request in the 2026-07-28 envelope (``meta`` replaces the usual one) and wait for its answer."""
    return session.request(method, {**(params or {}), "_meta": modern_meta() if meta is None else meta},
                           timeout=timeout)


def ask_discover(session: WireSession, target: Target) -> dict[str, Any]:
    """Send ``server/discover`` in the 2026-07-28 envelope and return the answer. A server silent there that
    answers a plain ``initialize`` is a legacy server (N/A, :data:`NOT_MODERN`); one that answers neither gets
    the generic reason. Either way the probe stops (ProbeAbort)."""
    try:
        return modern_request(session, "server/discover", timeout=target.timeout)
    except WireTimeout:
        reason = silence_reason(session)
        if reason == "no_answer" and control_silence(target) == "":
            raise ProbeAbort(not_applicable(f"{NOT_MODERN} (server/discover got no answer; initialize did)")) from None
        raise ProbeAbort(failed(reason, "the server answered neither server/discover nor initialize",
                                *session.transcript(limit=6))) from None


def modern_session(target: Target) -> tuple[WireSession, dict[str, Any]]:
    """Start the server and send ``server/discover``; return the session and the ``DiscoverResult``.

    Raises ProbeAbort with N/A (:data:`NOT_MODERN`) when the server does not speak 2026-07-28: it refuses
    ``server/discover``, its result does not list 2026-07-28, or it is silent there but answers ``initialize``.
    A server that answers neither gets the generic reason: its silence says nothing about the rule.
    """
    session = target.start()
    session.request_meta = modern_meta()  # a session of this era: every request it sends is of this era
    answer = ask_discover(session, target)
    result = answer.get("result")
    if not isinstance(result, dict):
        raise ProbeAbort(not_applicable(f"{NOT_MODERN} (server/discover was refused: "
                                        f"{compact(answer.get('error'), 160)})"))
    versions = result.get("supportedVersions")
    if not (isinstance(versions, list) and MODERN_REVISION in versions):
        raise ProbeAbort(not_applicable(f"{NOT_MODERN} (server/discover lists {compact(versions, 120)})"))
    return session, result


def list_pages(session: WireSession, target: Target, *, timeout: float) -> list[dict[str, Any]]:
    """Every page of a 2026-07-28 ``tools/list`` (each page's result, following ``nextCursor``, bounded).
    An error answer aborts the probe with the generic ``probe_error``: the listing is what the probe needs."""
    pages: list[dict[str, Any]] = []
    cursor: Any = None
    for _ in range(MAX_PAGES):
        answer = modern_request(session, "tools/list", {} if cursor is None else {"cursor": cursor}, timeout=timeout)
        result = answer.get("result")
        if not isinstance(result, dict):
            raise ProbeAbort(failed("probe_error", f"a 2026-07-28 tools/list was refused: {compact(answer.get('error'), 160)}",
                                    *session.transcript(limit=6)))
        pages.append(result)
        cursor = result.get("nextCursor")
        if not cursor:
            break
    return pages


def tool_names(pages: list[dict[str, Any]]) -> list[Any]:
    """The tool names of a listing, in the order served."""
    return [t.get("name") for page in pages for t in page.get("tools") or [] if isinstance(t, dict)]
