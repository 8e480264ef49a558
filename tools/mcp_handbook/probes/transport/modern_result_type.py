"""Every result a 2026-07-28 server sends carries ``resultType``, a value the revision defines.

The revision adds the field so that a result can be something other than the final answer (``input_required``
asks the client for more); a client that meets a result without it cannot know which shape it holds, and a
client MUST treat a value it does not recognise as invalid (2026-07-28 ``basic/index``, *ResultType*). The
revision defines ``complete`` and ``input_required``; extensions may add values, but only extensions the server
advertises in ``capabilities.extensions``, so a value outside the two is judged only when the server advertises
none. The probe reads the results of ``server/discover``, every ``tools/list`` page and, where it may call a
tool, one ordinary ``tools/call`` and one refused one (an ``isError`` result is a result too).
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import Finding, Target, callable_tools, compact, failed, fill_arguments, passed
from ._modern import list_pages, modern_request, modern_session


DEFINED = ("complete", "input_required")
"""The ``ResultType`` values the 2026-07-28 revision defines (schema.ts ``ResultType``, basic/index *ResultType*)."""


def _extensions(discovered: Any) -> list[str]:
    """The extensions a DiscoverResult advertises (``capabilities.extensions``): they may define more values."""
    capabilities = discovered.get("capabilities") if isinstance(discovered, dict) else None
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    return sorted(str(name) for name in extensions) if isinstance(extensions, dict) else []


def _problem(what: str, result: Any, extensions: list[str]) -> tuple[str, str] | None:
    if not isinstance(result, dict):
        return None  # an error answer: resultType belongs to results only
    if "resultType" not in result:
        return "missing_result_type", f"{what} has no resultType"
    value = result["resultType"]
    if not isinstance(value, str) or not value:
        return "bad_result_type", f"{what} has resultType {compact(value, 40)}: it must be a non-empty string"
    if value not in DEFINED and not extensions:
        return "unknown_result_type", (f"{what} has resultType {compact(value, 40)}: 2026-07-28 defines "
                                       f"{' and '.join(DEFINED)}, the server advertises no extension that could add "
                                       "it, and a client must treat it as invalid")
    return None


@probe("modern_result_type", "every 2026-07-28 result carries a resultType the revision defines", over_http=True, reasons={
    "missing_result_type": "a 2026-07-28 result came without resultType",
    "bad_result_type": "a 2026-07-28 result had a resultType that is not a non-empty string",
    "unknown_result_type": "a 2026-07-28 result had a resultType the revision does not define (complete, "
                           "input_required), from a server that advertises no extension",
}, shares_session=True)
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
    extensions = _extensions(discovered)
    if extensions:
        evidence.append(f"values other than {', '.join(DEFINED)} not judged: the server advertises extension(s) "
                        f"{compact(extensions, 120)}, which may define them")
    problems = [found for what, result in results if (found := _problem(what, result, extensions))]
    if problems:
        reason, first = problems[0]
        return failed(reason, first, *[text for _, text in problems[1:]], *evidence)
    read = [result for _, result in results if isinstance(result, dict)]
    unjudged = sum(result.get("resultType") not in DEFINED for result in read)
    if unjudged:
        return passed(f"all {len(read)} result(s) read carry resultType; {unjudged} hold a value the revision does not "
                      "define, left unjudged since the server advertises extensions", *evidence)
    return passed(f"all {len(read)} result(s) read carry a resultType the revision defines", *evidence)
