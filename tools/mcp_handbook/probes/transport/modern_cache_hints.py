"""A 2026-07-28 server puts caching hints on the results of ``server/discover`` and every ``tools/list`` page.

``ttlMs`` (an integer, at least 0) says how long a client may treat the result as fresh, ``cacheScope``
(``public`` or ``private``) who may share a cached copy. Without them a client re-fetches every time or
guesses; a gateway cannot tell whether a list may be shared between users.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import Finding, Target, compact, failed, passed
from ._modern import list_pages, modern_session

SCOPES = ("public", "private")


def _problem(what: str, result: dict[str, Any]) -> tuple[str, str] | None:
    """What is wrong with one result's hints, as (reason, sentence), or None."""
    if "ttlMs" not in result or "cacheScope" not in result:
        absent = [key for key in ("ttlMs", "cacheScope") if key not in result]
        return "missing_cache_hints", f"{what} has no {' and no '.join(absent)}"
    ttl, scope = result["ttlMs"], result["cacheScope"]
    if type(ttl) is not int or ttl < 0:
        return "bad_cache_hints", f"{what} has ttlMs {compact(ttl, 40)}: it must be an integer of at least 0"
    if scope not in SCOPES:
        return "bad_cache_hints", f"{what} has cacheScope {compact(scope, 40)}: it must be \"public\" or \"private\""
    return None


def _hints(result: dict[str, Any]) -> str:
    return compact({key: result[key] for key in ("ttlMs", "cacheScope") if key in result}, 120)


@probe("modern_cache_hints", "2026-07-28 server/discover and tools/list results carry ttlMs and cacheScope",
       over_http=True, reasons={
           "missing_cache_hints": "a cacheable result came without ttlMs or cacheScope",
           "bad_cache_hints": "a cacheable result had a ttlMs that is not an integer of at least 0, or an unknown cacheScope",
       }, shares_session=True)
def modern_cache_hints(target: Target) -> Finding:
    """Read the hints on server/discover and on every tools/list page."""
    session, discovered = modern_session(target)
    pages = list_pages(session, target, timeout=target.timeout)
    results = [("the server/discover result", discovered),
               *((f"tools/list page {n}", page) for n, page in enumerate(pages, 1))]
    evidence = [f"{what}: {_hints(result)}" for what, result in results]
    problems = [found for what, result in results if (found := _problem(what, result))]
    if problems:
        reason, first = problems[0]
        return failed(reason, first, *[text for _, text in problems[1:]], *evidence)
    return passed(f"server/discover and {len(pages)} tools/list page(s) carry ttlMs and cacheScope", *evidence)
