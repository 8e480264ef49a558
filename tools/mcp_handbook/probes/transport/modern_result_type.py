"""Every result a 2026-07-28 server sends carries ``resultType``, a string that says how to read the result.

The revision adds the field so that a result can be something other than the final answer (``input_required``
asks the client for more); a client that meets a result without it cannot know which shape it holds. The probe
reads the results of ``server/discover``, every ``tools/list`` page and, where it may call a tool, one ordinary
``tools/call`` and one refused one (an ``isError`` result is a result too).
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import Finding, Target, callable_tools, compact, failed, fill_arguments, passed
from ._modern import list_pages, modern_request, modern_session


def _problem(what: str, result: Any) -> tuple[str, str] | None:
    if not isinstance(result, dict):
        return None  # an error answer: resultType belongs to results only
    if "resultType" not in result:
        return "missing_result_type", f"{what} has no resultType"
    if not isinstance(result["resultType"], str) or not result["resultType"]:
        return "bad_result_type", f"{what} has resultType {compact(result['resultType'], 40)}: it must be a non-empty string"
    return None


@probe("modern_result_type", "every 2026-07-28 result carries resultType", over_http=True, reasons={
    "missing_result_type": "a 2026-07-28 result came without resultType",
    "bad_result_type": "a 2026-07-28 result had a resultType that is not a non-empty string",
})
def modern_result_type(target: Target) -> Finding:
    """Read resultType on server/discover, every tools/list page and, when a tool may be called, two tools/call results."""
    session, discovered = modern_session(target)
    pages = list_pages(session, target, timeout=target.timeout)
    results: list[tuple[str, Any]] = [("the server/discover result", discovered),
                                      *((f"tools/list page {n}", page) for n, page in enumerate(pages, 1))]
    tools = callable_tools(target, [t for page in pages for t in page.get("tools") or [] if isinstance(t, dict)])
    if tools:
        name = tools[0]["name"]
        ordinary = modern_request(session, "tools/call", {"name": name, "arguments": fill_arguments(tools[0])},
                                  timeout=target.timeout)
        results.append((f"tools/call {name}", ordinary.get("result")))
        refused = modern_request(session, "tools/call", {"name": name, "arguments": {"hb_not_a_parameter": 1}},
                                 timeout=target.timeout)
        results.append((f"tools/call {name} with an unknown argument", refused.get("result")))
    evidence = [f"{what}: resultType {compact(result.get('resultType', '(absent)'), 40)}"
                for what, result in results if isinstance(result, dict)]
    problems = [found for what, result in results if (found := _problem(what, result))]
    if problems:
        reason, first = problems[0]
        return failed(reason, first, *[text for _, text in problems[1:]], *evidence)
    return passed(f"all {len(evidence)} result(s) read carry resultType", *evidence)
