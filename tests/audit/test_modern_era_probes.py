"""The 2026-07-28 rules (TRN-015 to TRN-018) against servers that do and do not speak that revision.

A handshake-era server is not wrong for lacking the modern envelope: its audit must read N/A, *does not
apply*, never FAIL. The dual-era reference server is the control: the same probes PASS against it, so
the N/A is about the era, not a probe that cannot run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from audit_helpers import HOSTILE, REFERENCE

from mcp_handbook import load_corpus
from mcp_handbook.audit import run_audit
from mcp_handbook.audit.applies import does_not_apply
from mcp_handbook.audit.plan import DOES_NOT_APPLY, AuditOptions
from mcp_handbook.audit.preflight import ServerFacts
from mcp_handbook.audit.sheet import audit_rows

MODERN_RULES = frozenset({"TRN-015", "TRN-016", "TRN-017", "TRN-018"})
NOT_MODERN = "does not apply: the server does not speak 2026-07-28"
LEGACY_SERVERS = {
    "reference --legacy-only": [*REFERENCE, "--legacy-only"],
    "tiny (server/discover is -32601)": [sys.executable, str(HOSTILE / "tiny.py")],
}


@pytest.fixture(scope="module")
def corpus(project_root: Path):
    return load_corpus(project_root)


def _audit(corpus, command: list[str]):
    result = run_audit(corpus, command, options=AuditOptions(rules=MODERN_RULES, wait=3, tool_calls=False))
    assert {f.rule.id for f in result.findings} == MODERN_RULES
    return result


@pytest.mark.parametrize("command", LEGACY_SERVERS.values(), ids=LEGACY_SERVERS.keys())
def test_a_handshake_era_server_gets_does_not_apply_never_fail(corpus, command: list[str]) -> None:
    result = _audit(corpus, command)
    for found in result.findings:
        assert found.finding.status == "N/A", (found.rule.id, found.finding)
        assert found.na == DOES_NOT_APPLY, (found.rule.id, found.na, found.finding.summary)
        # the preflight saw server/discover go unanswered, or the probe did: either way the rule does not apply
        assert found.finding.summary.startswith(("does not apply: the rule is for servers where the server speaks the "
                                                 "2026-07-28 revision", NOT_MODERN)), (found.rule.id, found.finding.summary)
    rows = {row["id"]: row for row in audit_rows(corpus, result) if row["id"] in MODERN_RULES}
    for rule_id, row in rows.items():  # the worksheet says it too, not "not checked"
        assert row["evidence"].startswith("does not apply: "), (rule_id, row["evidence"])


def test_the_dual_era_reference_server_passes_them(corpus) -> None:
    result = _audit(corpus, REFERENCE)
    assert {f.rule.id: f.finding.status for f in result.findings} == dict.fromkeys(MODERN_RULES, "PASS"), \
        [(f.rule.id, f.finding.summary) for f in result.findings]


@pytest.mark.parametrize(("facts", "applies"), [
    (ServerFacts(answered=True, legacy=True, modern=False, transport="http"), True),  # discovery unanswered: the probe asks
    (ServerFacts(answered=True, legacy=True, modern=True, transport="http"), True),
    (ServerFacts(answered=True, legacy=True, modern=False, transport="stdio"), True),
    (ServerFacts(answered=True, legacy=True, transport="stdio", protocol_version="2025-11-25"), True),  # not asked: the probe asks
], ids=["http-legacy-only", "http-dual-era", "stdio-legacy-only", "stdio-unknown"])
def test_the_modern_era_condition_holds_when_discovery_answers_and_is_left_to_the_probe_otherwise(
        corpus, facts: ServerFacts, applies: bool) -> None:
    rule = next(r for r in corpus.rules if r.id == "TRN-015")
    why = does_not_apply(rule, facts)
    if applies:
        assert why is None
    else:
        assert why is not None and why.startswith("does not apply: the rule is for servers where the server speaks "
                                                  "the 2026-07-28 revision"), why
