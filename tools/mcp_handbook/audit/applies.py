"""Does a rule's condition hold for the audited server? A table of plain functions, one per condition key.

Each answers from what the preflight saw: ``True`` (it holds), ``False`` (it
does not: the rule is N/A, *does not apply*, and its probe is not run) or
``None`` (the auditor cannot tell from outside, so the probe runs; if the
probe then says N/A, that is *not checked*, never *safe*).
"""

from __future__ import annotations

from collections.abc import Callable

from ..fields import CONDITIONS
from ..model import Rule
from .preflight import ServerFacts

Answer = tuple[bool | None, str]
"""Whether the condition holds, and what was seen that says so."""


def _stdio(facts: ServerFacts) -> Answer:
    if facts.transport == "http":
        return False, "the server is audited over HTTP"
    return True, "the server was audited over stdio"


def _http(facts: ServerFacts) -> Answer:
    if facts.transport == "http":
        return True, "the server was audited over HTTP"
    return False, "the server was audited over stdio"


def _legacy_era(facts: ServerFacts) -> Answer:
    if facts.legacy:
        return True, f"the server answered initialize (protocol {facts.protocol_version or '?'})"
    if facts.answered:
        return False, "the server answered server/discover only, not initialize"
    return None, "the server did not complete the handshake"


def _modern_era(facts: ServerFacts) -> Answer:
    if facts.modern:
        return True, "the server answered a 2026-07-28 server/discover"
    # an unanswered server/discover does not show the server never serves 2026-07-28: one whose discovery is
    # broken may still serve that era's requests, and that is what TRN-018 fails; each probe asks for itself
    return None, "the preflight's server/discover was not answered with a result; the probe asks for itself"


def _pages_lists(facts: ServerFacts) -> Answer:
    if not facts.tools_listed:
        return None, "tools/list was not answered"
    if facts.paged:
        return True, "tools/list handed out a nextCursor"
    return False, f"tools/list returned all {len(facts.tools)} tool(s) on one page and handed out no cursor"


def _logging_capability(facts: ServerFacts) -> Answer:
    if not facts.answered:
        return None, "the server did not complete the handshake"
    opening = "initialize" if facts.legacy else "server/discover"
    if "logging" in facts.capabilities:
        return True, f"{opening} declared the logging capability"
    return False, f"{opening} declared no logging capability"


def _declares_output_schema(facts: ServerFacts) -> Answer:
    if not facts.tools_listed:
        return None, "tools/list was not answered"
    declaring = [str(t.get("name")) for t in facts.tools if "outputSchema" in t]
    if declaring:
        return True, f"{len(declaring)} tool(s) declare an outputSchema ({', '.join(declaring[:3])})"
    return False, f"none of the {len(facts.tools)} listed tool(s) declares an outputSchema"


CONDITION_CHECKS: dict[str, Callable[[ServerFacts], Answer]] = {
    "stdio": _stdio,
    "http": _http,
    "legacy-era": _legacy_era,
    "modern-era": _modern_era,
    "pages-lists": _pages_lists,
    "logging-capability": _logging_capability,
    "declares-output-schema": _declares_output_schema,
}
"""Condition keys the auditor can judge from the preflight; every other key is ``None`` (cannot tell)."""


def does_not_apply(rule: Rule, facts: ServerFacts) -> str | None:
    """Why the rule does not apply to this server (the first condition seen not to hold), or None."""
    for key in rule.conditions:
        check = CONDITION_CHECKS.get(key)
        holds, seen = check(facts) if check else (None, "")
        if holds is False:
            return f"does not apply: the rule is for servers where {CONDITIONS[key]}; {seen}"
    return None
