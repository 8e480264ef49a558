"""The audit as SARIF 2.1.0, for code scanning: each failed rule one result where a server's authors already look.

What goes in, and why:

- **FAIL** is a result (``kind: fail``), its level from the rule's severity (high ``error``, medium ``warning``,
  low ``note``), its message the probe's summary, and a fingerprint of rule and location, so the same failure on
  the next run is the same alert and a fixed one closes.
- **N/A, not checked** is not a result: a probe that could not see has found nothing to fix, and an alert for it
  would be dismissed, and with it (same rule, same place, same fingerprint) a real failure found later. It is a
  tool-execution notification instead (``warning`` for a security rule, which is never reported as safe), and the
  worksheet and the job summary list it too. **PASS** and **does not apply** are not written.
- A server that never completed the handshake, or whose stdout stopped being readable, is an unsuccessful
  invocation with an ``error`` notification: there is nothing to show as alerts, and the exit code fails the job.

Every rule the audit checked is in ``tool.driver.rules``: its claim (the title) and summary as help, its page in
this doctrine version's published site as ``helpUri``. The location is the file ``--location`` names (the
server's manifest or entry file, relative to the repository root), else the repository root itself.
"""

from __future__ import annotations

import json

from .. import __version__
from ..fields import FINDING_KIND
from ..model import Corpus, Rule
from .plan import NOT_CHECKED, AuditResult, RuleFinding
from .server_text import audit_stamp, clean

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {"high": "error", "medium": "warning", "low": "note"}
"""SARIF level by rule severity."""
SECURITY_SEVERITY = {"high": "8.0", "medium": "5.0", "low": "2.0"}
"""GitHub's ``security-severity`` (CVSS-like, 0 to 10) for rules whose basis is security: high, medium, low there too."""
REPOSITORY_ROOT = "."
"""The location when none is given: the repository root, relative to ``%SRCROOT%`` (the checkout)."""
FINGERPRINT = "mcpHandbookRule/v1"
MAX_MESSAGE = 1000


def _rule_descriptor(corpus: Corpus, rule: Rule) -> dict:
    page = corpus.page_url(rule)
    kind = FINDING_KIND.get(rule.basis, "recommendation")
    text = f"{rule.title}\n\n{rule.summary}".strip()
    link = f"\n\n[{rule.id} in the handbook, doctrine {corpus.version}]({page})" if page else ""
    tags = list(dict.fromkeys(tag for tag in (rule.gate, rule.scope, rule.basis, kind, *rule.threats) if tag))
    properties: dict[str, object] = {"tags": tags, "precision": "high"}
    if rule.basis == "security":
        properties["security-severity"] = SECURITY_SEVERITY.get(rule.severity, "5.0")
    descriptor = {
        "id": rule.id,
        "name": rule.id.replace("-", ""),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.summary or rule.title},
        "help": {"text": text, "markdown": f"**{rule.title}**\n\n{rule.summary}{link}".strip()},
        "defaultConfiguration": {"level": LEVELS.get(rule.severity, "warning")},
        "properties": properties,
    }
    if page:
        descriptor["helpUri"] = page
    return descriptor


def _location(location: str | None) -> dict:
    physical: dict[str, object] = {"artifactLocation": {"uri": location or REPOSITORY_ROOT, "uriBaseId": "%SRCROOT%"}}
    if location:
        physical["region"] = {"startLine": 1}
    return {"physicalLocation": physical}


def _message(found: RuleFinding) -> str:
    text = clean(found.finding.summary) or "the probe found the rule broken"
    clause = found.rule.clause_of(found.finding.reason)
    if clause:
        text = f"{text} (breaks: {clause['says']})"
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + " …"


def _result(found: RuleFinding, index: int, location: str | None) -> dict:
    return {
        "ruleId": found.rule.id,
        "ruleIndex": index,
        "kind": "fail",
        "level": LEVELS.get(found.rule.severity, "warning"),
        "message": {"text": _message(found)},
        "locations": [_location(location)],
        "partialFingerprints": {FINGERPRINT: f"{found.rule.id}:{location or REPOSITORY_ROOT}"},
        "properties": {"severity": found.rule.severity, "basis": found.rule.basis, "probe": found.probe},
    }


def _notification(found: RuleFinding, index: int) -> dict:
    said = found.finding.summary.removeprefix("not checked: ")
    return {
        "descriptor": {"id": found.rule.id, "index": index},
        "level": "warning" if found.rule.basis == "security" else "note",
        "message": {"text": clean(f"{found.rule.id} not checked: {said}")[:MAX_MESSAGE]},
    }


def _invocation(result: AuditResult, rule_index: dict[str, int]) -> dict:
    notes = [_notification(f, rule_index[f.rule.id]) for f in result.findings if f.na == NOT_CHECKED]
    problem = ""
    if not result.facts.answered:
        problem = f"the server could not be audited: {result.facts.describe()}"
    elif result.stopped:
        problem = f"the audit stopped judging the server: {result.stopped}"
    if problem:
        notes.insert(0, {"level": "error", "message": {"text": clean(problem)[:MAX_MESSAGE]}})
    invocation: dict[str, object] = {"executionSuccessful": not problem, "exitCode": result.exit_code}
    if notes:
        invocation["toolExecutionNotifications"] = notes
    return invocation


def to_sarif(corpus: Corpus, result: AuditResult, *, location: str | None = None) -> str:
    """The SARIF log of one audit, as text (UTF-8 JSON, keys in a fixed order)."""
    rules = [f.rule for f in result.findings]
    rule_index = {rule.id: i for i, rule in enumerate(rules)}
    stamp = audit_stamp(corpus, result)
    information = f"{corpus.site}{corpus.version}/" if corpus.site else "https://modelcontextprotocol.io"
    run = {
        "tool": {"driver": {
            "name": "mcp-handbook",
            "fullName": "The MCP Server Authoring Handbook's auditor",
            "version": __version__,
            "informationUri": information,
            "rules": [_rule_descriptor(corpus, rule) for rule in rules],
        }},
        "invocations": [_invocation(result, rule_index)],
        "results": [_result(f, rule_index[f.rule.id], location) for f in result.failures()],
        "columnKind": "unicodeCodePoints",
        "properties": {
            "doctrineVersion": corpus.version, "commit": stamp.commit, "gate": result.options.gate,
            "serverName": stamp.server_name, "serverVersion": stamp.server_version, "transport": stamp.server_transport,
        },
    }
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False) + "\n"
