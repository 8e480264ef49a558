"""``tools/list`` is the same on every listing, and a cursor the server never issued is refused with -32602.

A client pages through ``tools/list`` with the opaque cursors the server hands out. If two listings differ
in order, or a tool appears on two pages, the client's view of the tool set is wrong; if a cursor it did
not issue silently restarts (or skips) the listing, a client with a stale or damaged cursor never learns
that it missed tools. The probe lists every page twice, then sends cursors the server never issued. A server
that hands out no ``nextCursor`` in either listing does not page: the rule does not apply to it (N/A).
"""

from __future__ import annotations

from ..registry import probe
from ..support import (
    compact, error_code, failed, Finding, handshake, not_applicable, passed, silence_reason, Target, WireSession,
    WireTimeout,
)


class _BadListing(Exception):
    """A page of tools/list that a paging client cannot use; ``reason`` says how."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _listing(session: WireSession, timeout: float) -> tuple[list[str | None], list[str]]:
    """Every tool name (None for a tool that has none), following cursors (bounded), and the cursors issued on the way."""
    names: list[str | None] = []
    cursors: list[str] = []
    cursor = None
    for _ in range(50):
        response = session.request("tools/list", {"cursor": cursor} if cursor else {}, timeout=timeout)
        result = response.get("result")
        if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
            raise _BadListing("listing_failed", f"tools/list failed: {compact(response, 160)}")
        names += [t.get("name") for t in result["tools"] if isinstance(t, dict)]
        cursor = result.get("nextCursor")
        if not cursor:
            break
        if not isinstance(cursor, str):
            raise _BadListing("cursor_not_string", f"nextCursor is {compact(cursor, 60)}, not a string")
        cursors.append(cursor)
    return names, cursors


@probe("tools_list_paging", "tools/list is deterministic and refuses invalid cursors with -32602",
       over_http=True, reasons={
           "listing_failed": "a page of tools/list (the first, or one the server's own cursor asked for) was refused or malformed",
           "cursor_not_string": "the server issued a nextCursor that is not a string",
           "duplicate_names": "a tool name is listed more than once across pages",
           "unstable_listing": "two listings differ in content or order",
           "invalid_cursor_accepted": "a cursor the server never issued was accepted and tools were served",
           "invalid_cursor_wrong_code": "a cursor the server never issued was refused with an error other than -32602",
           "invalid_cursor_unanswered": "a cursor the server never issued was never answered",
       })
def tools_list_paging(target: Target) -> Finding:
    """tools/list twice gives the same order; an invalid cursor is -32602, never a silent restart."""
    session, _init = handshake(target)
    problems: list[tuple[str, str]] = []
    evidence: list[str] = []
    try:
        first, cursors = _listing(session, target.timeout)
        second, later_cursors = _listing(session, target.timeout)
    except _BadListing as exc:
        return failed(exc.reason, f"tools/list could not be read: {exc}", *session.transcript(limit=8))
    except WireTimeout as exc:
        return failed(silence_reason(session), f"tools/list could not be read: {exc}", *session.transcript(limit=8))
    evidence.append(f"{len(first)} tool(s) in {len(cursors) + 1} page(s): {compact(first, 200)}")
    if not cursors and not later_cursors:  # it does not page: what it does with a cursor loses the client nothing
        return not_applicable(f"does not apply: the rule is for servers that page tools/list; two listings returned "
                              f"all {len(first)} tool(s) on one page and handed out no nextCursor", *evidence)
    duplicates = sorted({str(n) for n in first if first.count(n) > 1})
    if duplicates:
        problems.append(("duplicate_names", f"tool name(s) listed more than once across pages: {', '.join(duplicates)}"))
    if first != second:
        problems.append(("unstable_listing", f"two listings differ in order or content: {compact(second, 200)}"))
    real = (cursors or later_cursors)[0]
    bogus = ["hb-probe-not-a-cursor", real[:-1] + ("A" if real[-1] != "A" else "B")]
    for cursor in bogus:
        try:
            response = session.request("tools/list", {"cursor": cursor}, timeout=target.timeout)
        except WireTimeout as exc:
            problems.append(("invalid_cursor_unanswered", f"tools/list(cursor={cursor!r}): no answer ({exc})"))
            continue
        evidence.append(f"tools/list(cursor={cursor!r}) -> {compact(response, 160)}")
        if "result" in response:
            result = response["result"] if isinstance(response["result"], dict) else {}
            got = [t.get("name") for t in result.get("tools") or [] if isinstance(t, dict)]
            problems.append(("invalid_cursor_accepted", f"the invalid cursor {cursor!r} was accepted and {len(got)} tool(s) "
                             "served (a paging client restarts or skips silently)"))
        elif error_code(response) != -32602:
            problems.append(("invalid_cursor_wrong_code", f"the invalid cursor {cursor!r} got error {error_code(response)}, "
                             "not -32602 (Invalid params)"))
    if problems:
        return failed(problems[0][0], f"{len(problems)} tools/list problem(s)", *[text for _, text in problems], *evidence)
    return passed("tools/list is stable across calls and invalid cursors are refused with -32602", *evidence)
