"""A rule whose condition the preflight shows not to hold is N/A, *does not apply*; one the auditor
cannot judge from outside runs its probe, and that probe's N/A is *not checked*, never safe."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pathlib import Path

from audit_helpers import fake_corpus

from mcp_handbook.audit.applies import does_not_apply
from mcp_handbook.audit.preflight import ServerFacts

TALKED = ServerFacts(answered=True, legacy=True, protocol_version="2025-11-25", capabilities={"tools": {}}, tools=[{"name": "t"}],
                     tools_listed=True)
MODERN_ONLY = replace(TALKED, legacy=False, modern=True, protocol_version="2026-07-28")


def _rule(*conditions: str):
    (rule,) = fake_corpus(Path("."), {"X-001": "probe"}).rules
    return replace(rule, qualifiers=({"kind": "conditional", "applies_to": list(conditions)},))


@pytest.mark.parametrize(
    ("conditions", "facts", "verdict"),
    [
        ((), TALKED, None),
        (("stdio",), TALKED, None),
        (("pages-lists",), TALKED, "does not apply: the rule is for servers where the server pages list results (it hands out nextCursor); "
                                   "tools/list returned all 1 tool(s) on one page and handed out no cursor"),
        (("pages-lists",), replace(TALKED, paged=True), None),
        (("pages-lists",), replace(TALKED, tools_listed=False), None),  # cannot tell: the probe decides
        (("logging-capability",), TALKED, "does not apply: the rule is for servers where the server declares the logging capability; "
                                          "initialize declared no logging capability"),
        (("logging-capability",), replace(TALKED, capabilities={"logging": {}}), None),
        (("declares-output-schema",), TALKED, "does not apply: the rule is for servers where a tool declares an outputSchema; "
                                              "none of the 1 listed tool(s) declares an outputSchema"),
        (("declares-output-schema",), replace(TALKED, tools=[{"name": "t", "outputSchema": {"type": "object"}}]), None),
        (("takes-paths",), TALKED, None),  # not visible from outside: the probe decides, and its N/A is "not checked"
        (("stdio", "pages-lists"), TALKED, "does not apply: the rule is for servers where the server pages list results (it hands out nextCursor); "
                                           "tools/list returned all 1 tool(s) on one page and handed out no cursor"),
        (("modern-era",), replace(TALKED, modern=False), None),  # a broken discovery is the probe's to judge (TRN-018)
        (("modern-era",), TALKED, None),  # not asked: the probe decides
        (("modern-era",), MODERN_ONLY, None),
        (("legacy-era",), MODERN_ONLY, "does not apply: the rule is for servers where the server speaks a handshake-era revision "
                                       "(2025-11-25 or older); the server answered server/discover only, not initialize"),
        (("logging-capability",), MODERN_ONLY, "does not apply: the rule is for servers where the server declares the logging "
                                               "capability; server/discover declared no logging capability"),
    ],
    ids=["unconditional", "stdio", "one-page", "paged", "unlisted", "no-logging", "logging", "no-output-schema", "output-schema",
         "paths-unknowable", "all-must-hold", "handshake-only", "modern-unknown", "modern-only", "legacy-on-modern-only",
         "no-logging-discovered"],
)
def test_conditions_are_judged_from_the_preflight(conditions: tuple[str, ...], facts: ServerFacts, verdict: str | None) -> None:
    assert does_not_apply(_rule(*conditions), facts) == verdict
