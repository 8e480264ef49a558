"""The audit finds which eras a server speaks and speaks to it in one of them, over stdio and over HTTP alike.

A server that answers only ``server/discover`` (2026-07-28) is audited in that era: the probes that speak only
JSON-RPC run with the 2026-07-28 envelope on every request, the rules about the handshake era do not apply, and
the probes that need the handshake (and ``ping``, which that era removed) say they could not check. ``--era``
audits a dual-era server in the era asked for. Over HTTP, a probe's session is an :class:`HttpSession`, whose
headers follow the era of each message and whose tool calls pass the auditor's guard like a pipe's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from audit_helpers import QUIRKS, run_cli, serving_http
from mcp_handbook.audit.guard import BlockedToolCall, ToolCallGuard
from mcp_handbook.audit.target import AuditTarget
from mcp_handbook.probes import PROBES
from mcp_handbook.probes.http import reply_messages
from mcp_handbook.probes.http_session import HttpSession, era_headers
from mcp_handbook.probes.support import MODERN_REVISION, modern_meta
from mcp_handbook.proving.verify import minimal_env

MODERN_ONLY = [sys.executable, str(QUIRKS / "modern_only.py")]


def _items(path: Path) -> dict[str, dict]:
    return {item["id"]: item for item in json.loads(path.read_text())["items"]}


def test_a_modern_request_mirrors_its_envelope_in_headers_and_a_handshake_one_does_not() -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "résumé", "_meta": modern_meta()}}
    assert era_headers(call) == {"MCP-Protocol-Version": MODERN_REVISION, "Mcp-Method": "tools/call",
                                 "Mcp-Name": "=?base64?csOpc3Vtw6k=?="}
    assert era_headers({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}) == {}
    # a 2026-07-28 session sends the headers even for a body whose envelope a probe broke on purpose
    broken = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": modern_meta(drop="x")}}
    del broken["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
    assert era_headers(broken, MODERN_REVISION) == {"MCP-Protocol-Version": MODERN_REVISION, "Mcp-Method": "tools/list"}
    # params that are not an object (a probe's malformed request) name nothing, and are sent as they are
    malformed = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": ["x"]}
    assert era_headers(malformed, MODERN_REVISION) == {"MCP-Protocol-Version": MODERN_REVISION, "Mcp-Method": "tools/call"}


def test_a_reply_is_read_as_json_or_as_every_event_of_a_stream() -> None:
    stream = b'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message"}\n\n' \
             b'event: message\ndata: {"jsonrpc":"2.0","id":3,"result":{}}\n\n'
    assert [m.get("id") for m in reply_messages("text/event-stream", stream)] == [None, 3]
    assert reply_messages("application/json", b'{"jsonrpc":"2.0","id":1,"result":{}}') == [
        {"jsonrpc": "2.0", "id": 1, "result": {}}]
    assert reply_messages("application/json", b"[" * 100_000) == []  # a hostile body is no message, not a crash


def test_a_tool_call_by_url_passes_the_guard_before_anything_is_sent(tmp_path: Path) -> None:
    """No server listens on the URL: a refused call must be refused before a connection is tried."""
    guard = ToolCallGuard.for_tools([{"name": "wipe", "annotations": {"destructiveHint": True}}], allow=frozenset())
    target = AuditTarget(argv=[], workspace=tmp_path, env=minimal_env(home=tmp_path), canary="c", guard=guard,
                         transport="http", url="http://127.0.0.1:9/mcp")
    session = target.start()
    assert isinstance(session, HttpSession)
    with pytest.raises(BlockedToolCall):
        session.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "wipe", "arguments": {}}})
    assert guard.blocked == ["wipe"] and session.stdout == []


def test_an_http_session_keeps_the_handshake_session_and_ends_it(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "reference_server", "--workspace", str(tmp_path), "--http", "127.0.0.1:0"]
    with serving_http(argv, cwd=tmp_path) as url:
        session = HttpSession(url, timeout=5.0)
        assert "result" in session.initialize()
        assert session.session_id and session.protocol_version == "2025-11-25"
        names = [t["name"] for t in session.request("tools/list", {})["result"]["tools"]]
        assert "read_file" in names
        ended = session.session_id
        session.close()
        stale = HttpSession(url, timeout=5.0)
        stale.session_id = ended  # DELETE ended it: the server no longer knows the id
        stale.send({"jsonrpc": "2.0", "id": 9, "method": "tools/list"})
        assert stale.stdout[-1].line.text.startswith("HTTP 404"), stale.transcript()
        stale.close()


def test_probes_that_speak_only_json_rpc_are_marked_and_those_that_need_the_process_are_not() -> None:
    over_http = {name for name, p in PROBES.items() if p.over_http}
    assert {"tool_names", "echo_request_ids", "modern_check_request_meta", "http_refuse_foreign_origin"} <= over_http
    assert not over_http & {"stdout_jsonrpc_only", "structured_stderr_logs", "graceful_signal_shutdown", "child_env_allowlist",
                            "malformed_message_errors", "answer_server_discover"}


@pytest.mark.slow  # a whole audit
def test_a_server_that_speaks_only_2026_07_28_is_audited_in_that_era(project_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit.json"
    run = run_cli(project_root, "audit", "-o", str(out), "--", *MODERN_ONLY, limit=120)
    assert run.code == 0, run.text
    assert "  transport: stdio; answered: 2026-07-28 (server/discover)" in run.stdout, run.stdout
    assert "modern-only 1.0" in run.stdout
    items = _items(out)
    assert items["TRN-006"]["evidence"].startswith("does not apply: "), items["TRN-006"]  # the handshake era's
    assert items["TRN-001"]["evidence"].startswith("not checked: handshake-era probe"), items["TRN-001"]
    for rule_id in ("TOOL-013", "TRN-015", "TRN-018", "ERR-001", "ERR-008"):
        assert items[rule_id]["status"] == "Pass", items[rule_id]
    assert '"method":"server/discover"' in items["ERR-001"]["evidence"]  # the requests were of that era


@pytest.mark.slow  # a whole audit
def test_era_2026_07_28_audits_the_dual_era_reference_server_in_that_era(project_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit.json"
    run = run_cli(project_root, "audit", "--era", "2026-07-28", "-o", str(out), "--",
                  sys.executable, "-m", "reference_server", limit=180)
    assert run.code == 0, run.text
    items = _items(out)
    assert not [i["id"] for i in items.values() if i["status"] == "Fail"], run.stdout
    assert '"method":"server/discover"' in items["ERR-001"]["evidence"]
    assert items["TRN-008"]["evidence"].startswith("does not apply: in 2026-07-28"), items["TRN-008"]


def test_an_era_the_server_does_not_speak_is_refused_in_plain_words(project_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit.json"
    run = run_cli(project_root, "audit", "--era", "2026-07-28", "-o", str(out), "--",
                  sys.executable, "-m", "reference_server", "--legacy-only", limit=60)
    assert run.code == 1, run.text
    assert "--era 2026-07-28: the server did not answer server/discover (it answered: 2025-11-25 (initialize))" \
        in run.stdout, run.stdout
