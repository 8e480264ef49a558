"""The capabilities the server advertises are the features it serves: each one works, none is missing.

Clients decide what to ask for from the capabilities object: a feature advertised but not built makes
them call methods that fail, and one served but not advertised is never used (or used against the
contract). The probe exercises every capability the 2025-11-25 schema defines, advertised or not.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import (
    GENERIC_REASONS, compact, error_code, failed, Finding, handshake, not_applicable, passed, silence_reason, Target,
    trivial_method, WireTimeout,
)

SPEC_CAPABILITIES = frozenset({"experimental", "logging", "completions", "prompts", "resources", "tools", "tasks"})
EXERCISES: dict[str, tuple[str, dict[str, Any], str | None]] = {
    "tools": ("tools/list", {}, "tools"),
    "prompts": ("prompts/list", {}, "prompts"),
    "resources": ("resources/list", {}, "resources"),
    "logging": ("logging/setLevel", {"level": "warning"}, None),
    "completions": ("completion/complete", {"ref": {"type": "ref/prompt", "name": "hb-probe"},
                                            "argument": {"name": "x", "value": ""}}, "completion"),
}
"""capability -> (the method that exercises it, its params, the list its result must hold)."""


@probe("advertise_capabilities", "advertised capabilities work and used features are advertised",
       over_http=True, reasons={
           "no_capabilities": "the initialize result has no capabilities object",
           "capability_not_object": "a capability's value is not an object",
           "advertised_not_served": "an advertised capability's method fails, never answers or returns no list",
           "served_not_advertised": "the server serves tools, prompts, resources or log messages without advertising them",
       })
def advertise_capabilities(target: Target) -> Finding:
    """Advertised capabilities are objects and work; what the server serves is advertised."""
    session, init = handshake(target)
    caps = init.get("capabilities")
    if not isinstance(caps, dict):
        return failed("no_capabilities", "the initialize result has no capabilities object", f"<<< {compact(init)}")
    evidence = [f"capabilities: {compact(caps, 240)}"]
    unsent: list[str] = []  # advertised features it may not exercise (--no-tool-calls): until they are, no PASS
    problems = [("capability_not_object", f"capability {k!r} is {compact(v, 80)}, not an object")
                for k, v in caps.items() if not isinstance(v, dict)]
    unknown = sorted(set(caps) - SPEC_CAPABILITIES)
    if unknown:
        evidence.append(f"not defined by 2025-11-25 (non-standard features belong under experimental): {', '.join(unknown)}")
    for key, (method, params, field) in EXERCISES.items():
        advertised = key in caps
        if key == "logging" and target.modern:  # 2026-07-28 removed logging/setLevel: a level rides on each request
            continue
        if not target.may_request(method):  # --no-tool-calls: completion/complete runs the server's own code
            evidence.append(f"{key}: {method} not sent (--no-tool-calls)")
            unsent += [f"{key} ({method})"] if advertised else []
            continue
        try:
            response = session.request(method, params, timeout=target.timeout)
        except WireTimeout as exc:  # silence on an advertised feature is the fault; on another it says nothing here
            problems.append(("advertised_not_served" if advertised else silence_reason(session),
                             f"no answer while exercising capabilities ({method}): {exc}"))
            break
        evidence.append(f"{'advertised' if advertised else 'not advertised'} {key}: {method} -> {compact(response, 140)}")
        result = response.get("result")
        if advertised:
            if error_code(response) == -32601 or (key != "completions" and not isinstance(result, dict)):
                problems.append(("advertised_not_served",
                                 f"{key} is advertised but {method} fails: {compact(response.get('error'), 120)}"))
            elif field and key != "completions" and isinstance(result, dict) and not isinstance(result.get(field), list):
                problems.append(("advertised_not_served", f"{key} is advertised but {method} returned no {field} list"))
        elif key == "tools" and isinstance(result, dict) and result.get("tools"):
            problems.append(("served_not_advertised",
                             f"the server serves {len(result['tools'])} tool(s) but does not advertise the tools capability"))
        elif key in ("prompts", "resources") and isinstance(result, dict) and result.get(field):
            problems.append(("served_not_advertised", f"the server serves {key} but does not advertise the {key} capability"))
    problems += _subscription(session, caps, target, evidence, unsent)
    evidence += _after_malformed_line(session, target)
    logs = [m for m in session.stdout if isinstance(m.value, dict) and m.value.get("method") == "notifications/message"]
    if logs and "logging" not in caps:
        problems.append(("served_not_advertised",
                         f"the server sent {len(logs)} notifications/message without advertising the logging "
                         f"capability: {compact(logs[0].value, 200)}"))
    if problems:
        reason = next((r for r, _ in problems if r not in GENERIC_REASONS), problems[0][0])
        return failed(reason, f"{len(problems)} capability problem(s)", *[text for _, text in problems], *evidence)
    if unsent:  # GitHub's Go server advertises resources.subscribe and answers it -32601: only a request shows it
        return not_applicable(f"not checked: advertised {', '.join(unsent)} not exercised under --no-tool-calls; the "
                              "rest holds", *evidence)
    return passed(f"{len(caps)} capability(ies) advertised, each an object that works; nothing served unadvertised", *evidence)


MALFORMED_LINE = b'{"jsonrpc": "2.0", "id": "hb-capabilities", "method": "pi\n'
"""A line cut short: an SDK that reports it as a log notification (the Python SDK's "Internal Server Error") sends
one whether or not it advertised logging, and an ordinary session never shows it."""


def _after_malformed_line(session: Any, target: Target) -> list[str]:
    """Send one malformed line on stdio, then a request to know the server read it: a server whose log messages go
    out only when something fails shows them here. Over HTTP a malformed body is the transport's to answer."""
    if target.transport != "stdio":
        return []
    if not session.send_raw(MALFORMED_LINE):
        return ["a malformed line could not be written (stdin closed)"]
    try:
        answer = session.request(trivial_method(target), {}, timeout=target.timeout)
    except WireTimeout as exc:
        return [f"after a malformed line, {trivial_method(target)} got no answer: {exc}"]
    session.settle(min(1.0, target.timeout))
    return [f"sent a malformed line, then {trivial_method(target)} -> {compact(answer, 80)}"]


def _subscription(session: Any, caps: dict[str, Any], target: Target, evidence: list[str],
                  unsent: list[str]) -> list[tuple[str, str]]:
    """``resources.subscribe: true`` promises ``resources/subscribe`` and ``resources/unsubscribe``: a -32601 for either
    is a feature advertised but not built (GitHub's Go server 0.12.1). Any other answer (an unknown URI refused) shows
    the method is there. The URI is one the server lists when it lists any."""
    resources = caps.get("resources")
    if not isinstance(resources, dict) or resources.get("subscribe") is not True:
        return []
    uri = _a_listed_uri(session, target) or "hb-probe://no-such-resource"
    found: list[tuple[str, str]] = []
    for method in ("resources/subscribe", "resources/unsubscribe"):
        if not target.may_request(method):
            evidence.append(f"resources.subscribe: {method} not sent (--no-tool-calls)")
            unsent.append(f"resources.subscribe ({method})")
            return found
        try:
            response = session.request(method, {"uri": uri}, timeout=target.timeout)
        except WireTimeout as exc:
            return [*found, ("advertised_not_served", f"resources.subscribe is advertised but {method} got no answer: {exc}")]
        evidence.append(f"advertised resources.subscribe: {method} -> {compact(response, 140)}")
        if error_code(response) == -32601:
            found.append(("advertised_not_served",
                          f"resources.subscribe is advertised but {method} is not a method here: {compact(response.get('error'), 120)}"))
    return found


def _a_listed_uri(session: Any, target: Target) -> str:
    try:
        listed = session.request("resources/list", {}, timeout=target.timeout).get("result") or {}
    except WireTimeout:
        return ""
    items = listed.get("resources") if isinstance(listed, dict) else None
    first = items[0] if isinstance(items, list) and items and isinstance(items[0], dict) else {}
    uri = first.get("uri")
    return uri if isinstance(uri, str) else ""
