"""The static checks of a tool definition give the rule ids, reasons and sentences an audit gives, with no server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mcp_handbook import load_corpus
from mcp_handbook.audit.engine import run_audit
from mcp_handbook.audit.plan import AuditOptions
from mcp_handbook.audit.static_check import NEEDS_SERVER, check_tool_definition, check_tool_listing, listing_only
from mcp_handbook.probes import PROBES
from mcp_handbook.probes.support import list_tools
from mcp_handbook.proving.verify import SERVER_PYTHON_FLAGS, minimal_env
from mcp_handbook.wire import WireSession

QUIRKS = Path(__file__).resolve().parent / "quirks"
BAD_TOOL = {
    "name": "Run Command", "description": "runs", "version": "1",
    "inputSchema": {"type": "object", "properties": {"command": {"type": "string"}, "opts": {}}},
}
"""A tool definition that breaks ten static rules at once."""
BAD_TOOL_FAILS = {
    "TOOL-001": "schema_open", "TOOL-002": "property_undescribed", "TOOL-003": "string_unbounded",
    "TOOL-005": "name_bad_characters", "TOOL-006": "name_not_snake_case", "TOOL-007": "description_restates_name",
    "TOOL-008": "title_missing", "TOOL-009": "annotations_missing", "TOOL-010": "unknown_tool_field",
    "UX-002": "free_form_selector",
}


def reference_tools(workspace: Path) -> list[dict]:
    """The reference server's own tools/list, read over its pipe."""
    argv = [sys.executable, *SERVER_PYTHON_FLAGS, "-m", "reference_server", "--workspace", str(workspace), "--test-tools"]
    with WireSession(argv, cwd=workspace, env=minimal_env()) as session:
        session.initialize(timeout=10)
        return list_tools(session, timeout=10)


def test_a_known_bad_tool_fails_the_rules_it_breaks_with_their_reasons(project_root: Path) -> None:
    findings = check_tool_definition(BAD_TOOL, load_corpus(project_root))
    assert {f.rule_id: f.reason for f in findings if f.status == "FAIL"} == BAD_TOOL_FAILS
    by_id = {f.rule_id: f for f in findings}
    assert by_id["TOOL-001"].summary == "1 of 1 tool(s) declare an open or untyped inputSchema"
    assert any("Run Command.inputSchema" in e for e in by_id["TOOL-001"].evidence)
    assert by_id["TOOL-001"].fix.startswith("Give each inputSchema")


def test_rules_whose_probe_calls_tools_are_not_guessed(project_root: Path) -> None:
    corpus = load_corpus(project_root)
    for finding in check_tool_definition(BAD_TOOL, corpus):
        calls = PROBES[finding.probe].calls_tools
        assert finding.static is not calls, finding.rule_id
        if calls:
            assert finding.status == "N/A" and finding.summary.startswith(NEEDS_SERVER), finding
    assert {f.rule_id for f in check_tool_definition(BAD_TOOL, corpus) if f.static} == {
        r.id for r in corpus.rules if listing_only(r)}


def test_the_reference_servers_own_tools_pass_every_static_rule(project_root: Path, tmp_path: Path) -> None:
    tools = reference_tools(tmp_path)
    assert len(tools) >= 3
    findings = check_tool_listing(tools, load_corpus(project_root))
    static = [f for f in findings if f.static]
    assert static and all(f.status == "PASS" for f in static), [(f.rule_id, f.summary) for f in static if f.status != "PASS"]


def test_a_tool_that_is_not_an_object_is_refused_saying_where() -> None:
    with pytest.raises(ValueError, match=r"a tool definition is a JSON object \(one entry of tools/list\), not str"):
        check_tool_definition("read_file")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"tools\[1\]: a tool definition is a JSON object, not int"):
        check_tool_listing([BAD_TOOL, 7])  # type: ignore[list-item]


def test_an_audit_of_a_server_serving_the_tool_gives_the_same_verdicts(project_root: Path, tmp_path: Path) -> None:
    corpus = load_corpus(project_root)
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(json.dumps([BAD_TOOL]))
    static = frozenset(r.id for r in corpus.rules if listing_only(r))
    command = [sys.executable, str(QUIRKS / "serves_tools_file.py"), "--tools", str(tools_file)]
    result = run_audit(corpus, command, options=AuditOptions(rules=static, sdk_baseline=False, timeout=120, jobs=2))
    audited = {f.rule.id: (f.finding.status, f.finding.reason, f.finding.summary) for f in result.findings}
    checked = {f.rule_id: (f.status, f.reason, f.summary) for f in check_tool_definition(BAD_TOOL, corpus) if f.static}
    assert audited == checked
