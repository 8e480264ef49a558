"""`threats:` ids are read against one table: the ten OWASP MCP Top 10 categories pinned to a list version.
`check` names an MCP id the table lacks at its line, with the list it was read against and the ids it has."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mcp_handbook import threats
from mcp_handbook.threats import CATEGORIES, OWASP_MCP_TOP10

RULE = """---
id: SEC-031
title: A rule whose threats are under test
scope: universal
basis: security
threats: [{threats}]
attack: A caller sends input that the rule under test is about.
severity: low
gate: security
check: manual
since: "1.2.0"
---

Text.

## Why it matters

x

## How it is verified

x

## References

- none
"""


def _check(tmp_path: Path, threat_ids: str) -> subprocess.CompletedProcess[str]:
    rules = tmp_path / "content" / "rules" / "security"
    rules.mkdir(parents=True, exist_ok=True)
    (tmp_path / "mkdocs.yml").write_text("site_name: t\ndocs_dir: content\n")
    (tmp_path / "content" / "handbook.yml").write_text('version: "1.2.0"\ngates: [{key: security, title: S}]\n')
    (rules / "r.md").write_text(RULE.format(threats=threat_ids))
    return subprocess.run([sys.executable, "-m", "mcp_handbook.cli", "check"], cwd=tmp_path, capture_output=True, text=True, timeout=120)


def test_an_mcp_id_the_pinned_list_lacks_is_named_at_its_line_with_the_ids_it_has(tmp_path: Path) -> None:
    result = _check(tmp_path, "CWE-22, MCP11, MCP05")
    assert result.returncode == 1
    (line,) = [x for x in result.stdout.splitlines() if "HB" in x]
    where, message = line.split(" HB012 ", 1)
    assert where == "content/rules/security/r.md:6:", "the threats field's own line"
    assert message.startswith(f"field 'threats' 'MCP11' is neither a CWE id (CWE-22) nor an OWASP MCP Top 10 id (MCP01 to MCP10): "
                              f"{OWASP_MCP_TOP10} has no MCP11 (hint: use one of MCP01 Token mismanagement and secret exposure; ")
    assert all(f"{c.id} {c.name}" in message for c in CATEGORIES)


def test_every_category_of_the_table_passes_check(tmp_path: Path) -> None:
    result = _check(tmp_path, ", ".join(c.id for c in CATEGORIES))
    assert (result.returncode, result.stdout) == (0, ""), result.stdout + result.stderr


def test_the_table_is_the_ten_categories_in_order_each_with_what_authors_cannot_address() -> None:
    assert [c.id for c in CATEGORIES] == [f"MCP{n:02d}" for n in range(1, 11)]
    for c in CATEGORIES:
        assert c.name and c.description.endswith(".") and c.beyond_server.endswith("."), c.id
        assert c.anchor == c.id.lower()
    assert f"OWASP MCP Top 10 ({threats.LIST_STATUS}, as read {threats.LIST_READ_ON})" == OWASP_MCP_TOP10


def test_the_names_are_the_lists_own_as_read_on_the_pinned_day() -> None:
    """The list's names on its project page as read on LIST_READ_ON: MCP06 is "Intent Flow Subversion" since
    2026-01-12 (it was "Prompt Injection via Contextual Payloads"); tool shadowing is a part of MCP03."""
    assert [c.name for c in CATEGORIES] == [
        "Token mismanagement and secret exposure",
        "Privilege escalation via scope creep",
        "Tool poisoning",
        "Software supply chain attacks and dependency tampering",
        "Command injection and execution",
        "Intent flow subversion",
        "Insufficient authentication and authorization",
        "Lack of audit and telemetry",
        "Shadow MCP servers",
        "Context injection and over-sharing",
    ]
    assert "shadowing" in threats.category("MCP03").description
    assert "prompt injection via" not in " ".join(c.name.lower() for c in CATEGORIES)
