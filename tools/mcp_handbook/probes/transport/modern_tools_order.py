"""A 2026-07-28 server lists its tools in the same order every time the set has not changed.

Clients cache the list (``ttlMs``) and put it in the model's prompt; an order that moves between
requests defeats the client's cache checks and the model provider's prompt cache, and makes the
model's view of the tools change for no reason. The probe lists every page three times and compares.
"""

from __future__ import annotations

from ..registry import probe
from ..support import Finding, Target, compact, failed, not_applicable, passed
from ._modern import list_pages, modern_session, tool_names

LISTINGS = 3
"""How many complete listings the probe compares."""


@probe("modern_tools_order", "2026-07-28 tools/list returns the tools in the same order every time",
       over_http=True, reasons={"order_changed": "two tools/list requests, with no change to the tools, listed them in different orders"},
       shares_session=True)
def modern_tools_order(target: Target) -> Finding:
    """List every page three times: the names must come in the same order each time."""
    session, _discovered = modern_session(target)
    first = tool_names(list_pages(session, target, timeout=target.timeout))
    if len(first) < 2:
        return not_applicable(f"not checked: the server lists {len(first)} tool(s), so there is no order to compare")
    evidence = [f"listing 1: {compact(first, 240)}"]
    for n in range(2, LISTINGS + 1):
        names = tool_names(list_pages(session, target, timeout=target.timeout))
        evidence.append(f"listing {n}: {compact(names, 240)}")
        if names != first:
            if sorted(map(str, names)) != sorted(map(str, first)):
                return not_applicable(f"not checked: listing {n} holds different tools (the set changed)", *evidence)
            return failed("order_changed", f"listing {n} gave the same {len(first)} tools in a different order", *evidence)
    return passed(f"{LISTINGS} listings gave the same {len(first)} tools in the same order", *evidence)
