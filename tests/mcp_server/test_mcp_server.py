"""``mcp-handbook mcp`` through the official SDK client over stdio: what an agent lists, reads, gets and checks.

The known-bad tool definition is also served by a bare stdio server and audited, so the test shows the check and
an audit agree on the rule ids, not just that the check says something.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from handbook_server import ROOT, TOOLS_DIR, server_argv, server_env

from mcp_handbook import load_corpus
from mcp_handbook.mcp_server import frames

pytestmark = pytest.mark.slow  # the handbook's server on the official SDK (1.5 s a start), and one audit of it

BAD_TOOL = {"name": "run it!", "description": "Runs it.",
            "inputSchema": {"type": "object", "properties": {"command": {"type": "string"}}}}
"""Breaks names, descriptions, titles, annotations, closed and bounded schemas, and is a catch-all."""
BAD_TOOL_FAILS = {"TOOL-001", "TOOL-002", "TOOL-003", "TOOL-005", "TOOL-006", "TOOL-007", "TOOL-008", "TOOL-009",
                  "UX-002"}


def _params(*extra: str):
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=server_argv(*extra)[1:], env=server_env(), cwd=str(ROOT))


@pytest.mark.anyio
async def test_sdk_client_lists_reads_gets_and_checks():
    from mcp import Client

    async with Client(_params(), mode="legacy") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"find_rules", "check_tool_definition"}  # audit_server only with --allow-audit
        for tool in tools.values():
            assert tool.annotations.read_only_hint is True and tool.annotations.open_world_hint is False
            assert tool.input_schema["additionalProperties"] is False and tool.output_schema

        index = (await client.read_resource("handbook://rules")).contents[0].text
        assert "handbook://rules/SEC-001" in index
        rule = (await client.read_resource("handbook://rules/SEC-001")).contents[0].text
        assert rule.startswith("# SEC-001 · ") and "**CORRECT**" in rule and f"/{load_corpus(ROOT).version}/" in rule.split("Published page")[1][:80]
        assert "WRONG example omitted" in rule  # WRONG code is never handed to an agent to copy

        prompt = await client.get_prompt("review_server", {"how_it_runs": "python -m my_server --root ."})
        text = prompt.messages[0].content.text
        assert "python -m my_server --root ." in text and "handbook://rules/" in text and "baseline" in text

        checked = await client.call_tool("check_tool_definition", {"tool_json": json.dumps(BAD_TOOL)})
        assert not checked.is_error
        assert set(checked.structured_content["failed"]) == BAD_TOOL_FAILS

        from mcp.shared.exceptions import MCPError

        for name, arguments in (("no_such_prompt", {}), ("review_server", {}), ("review_server", {"how_it_runs": "x", "y": "z"})):
            with pytest.raises(MCPError) as refused:
                await client.get_prompt(name, arguments)
            assert refused.value.error.code == -32602, (name, arguments)

        broken = await client.call_tool("check_tool_definition", {"tool_json": '{"name": '})
        assert broken.is_error and "line 1, column 10" in broken.content[0].text and "Action:" in broken.content[0].text


@pytest.mark.anyio
async def test_find_rules_pages_and_refuses_a_foreign_cursor():
    from mcp import Client

    async with Client(_params(), mode="legacy") as client:
        first = (await client.call_tool("find_rules", {"gate": "security", "limit": 5})).structured_content
        assert len(first["rules"]) == 5 and first["total"] > 5 and first["next_cursor"]
        second = (await client.call_tool("find_rules", {"gate": "security", "limit": 5,
                                                        "cursor": first["next_cursor"]})).structured_content
        assert not {r["id"] for r in first["rules"]} & {r["id"] for r in second["rules"]}
        foreign = await client.call_tool("find_rules", {"gate": "errors", "cursor": first["next_cursor"]})
        assert foreign.is_error and "another query" in foreign.content[0].text
        cwe = (await client.call_tool("find_rules", {"threat": "cwe-22", "severity": "high"})).structured_content
        assert "SEC-001" in {r["id"] for r in cwe["rules"]}
        unknown = await client.call_tool("find_rules", {"gate": "nope"})
        assert unknown.is_error and "arguments.gate" in unknown.content[0].text


@pytest.mark.anyio
async def test_audit_tool_is_listed_only_when_the_operator_allows_it_and_audits(tmp_path):
    from mcp import Client

    server = _bad_tool_server(tmp_path)
    async with Client(_params("--allow-audit"), mode="legacy") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "audit_server" in tools
        assert tools["audit_server"].annotations.read_only_hint is False
        assert tools["audit_server"].annotations.destructive_hint is True
        done = await client.call_tool("audit_server", {"command": [sys.executable, str(server)], "gate": "full"})
        assert not done.is_error, done.content
        assert {f["rule"] for f in done.structured_content["failures"]} >= BAD_TOOL_FAILS
        missing = await client.call_tool("audit_server", {"command": [str(tmp_path / "no-such-program")]})
        assert missing.is_error and "no such program" in missing.content[0].text


def _bad_tool_server(folder: Path) -> Path:
    """A bare stdio server that lists :data:`BAD_TOOL` and nothing else."""
    server = folder / "bad_tool_server.py"
    server.write_text(textwrap.dedent(f"""
        import json, sys
        TOOL = {BAD_TOOL!r}
        for line in sys.stdin:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if not isinstance(msg, dict) or "id" not in msg or "method" not in msg:
                continue
            if msg["method"] == "initialize":
                result = {{"protocolVersion": "2025-11-25", "capabilities": {{"tools": {{}}}},
                          "serverInfo": {{"name": "bad", "version": "0"}}}}
            elif msg["method"] == "tools/list":
                result = {{"tools": [TOOL]}}
            else:
                result = {{}}
            print(json.dumps({{"jsonrpc": "2.0", "id": msg["id"], "result": result}}), flush=True)
    """))
    return server


def test_an_audit_of_a_server_serving_the_bad_tool_fails_the_same_rules(tmp_path):
    from mcp_handbook import load_corpus
    from mcp_handbook.audit.static_check import listing_only

    server = _bad_tool_server(tmp_path)
    corpus = load_corpus(ROOT)
    rules = [r.id for r in corpus.rules if listing_only(r)]
    out = tmp_path / "audit.json"
    subprocess.run([sys.executable, "-m", "mcp_handbook.cli", "--root", str(ROOT), "audit", "-o", str(out),
                    "--no-tool-calls", "--no-sdk-baseline", "--gate", "full", *(a for r in rules for a in ("--rule", r)),
                    "--", sys.executable, str(server)], env={"PYTHONPATH": str(TOOLS_DIR), "PATH": "/usr/bin:/bin"},
                   capture_output=True, text=True, timeout=120)
    items = json.loads(out.read_text())["items"]
    audited = {i["id"] for i in items if i["status"] == "Fail"}
    assert audited == BAD_TOOL_FAILS


@pytest.mark.parametrize("line, code, rid", [
    (b'{"jsonrpc": "2.0", "id": 41, "method": "pi', frames.PARSE_ERROR, None),
    (b"\xff\xfe", frames.PARSE_ERROR, None),
    (b"[" * 5000 + b"]" * 5000, frames.PARSE_ERROR, None),
    (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', frames.INVALID_REQUEST, None),
    (b'{"jsonrpc": "1.0", "id": "v1", "method": "ping"}', frames.INVALID_REQUEST, "v1"),
    (b'{"jsonrpc": "2.0", "id": "m"}', frames.INVALID_REQUEST, "m"),
    (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', frames.INVALID_REQUEST, None),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": NaN}}', frames.PARSE_ERROR, None),
], ids=["truncated", "not-utf8", "deep", "batch", "jsonrpc-1.0", "no-method", "boolean-id", "NaN"])
def test_frames_answer_each_bad_line_once_with_the_right_code(line, code, rid):
    text, answer = frames.judge(line)
    assert text is None and answer["error"]["code"] == code and answer["id"] == rid


def test_frames_pass_good_lines_unchanged_and_cap_long_ones(tmp_path):
    import io

    assert frames.judge(b'\xef\xbb\xbf{"jsonrpc":"2.0","id":"b","method":"ping"}') == (
        '{"jsonrpc":"2.0","id":"b","method":"ping"}', None)
    out = io.BytesIO()
    reader = frames.FrameReader(io.BytesIO(b"x" * 100 + b"\n" + b'{"a":1}\n'), frames.LineWriter(out), cap=50)
    assert reader._read_line() == b'{"a":1}'
    assert json.loads(out.getvalue())["error"]["code"] == frames.INVALID_REQUEST


def test_its_own_audit_has_no_high_failure(tmp_path):
    """The server follows its own doctrine: an audit of it over stdio (every probe, the full profile) fails no HIGH
    rule. About three minutes here: each probe starts a server on the SDK."""
    out = tmp_path / "audit.json"
    done = subprocess.run([sys.executable, "-m", "mcp_handbook.cli", "--root", str(ROOT), "audit", "-o", str(out),
                           "--gate", "full", "--no-sdk-baseline", "--",
                           "env", f"PYTHONPATH={TOOLS_DIR}", *server_argv()],
                          env={"PYTHONPATH": str(TOOLS_DIR), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
                          timeout=900)
    items = json.loads(out.read_text())["items"]
    high_fails = [i["id"] for i in items if i["status"] == "Fail" and i["severity"] == "high"]
    assert high_fails == [] and done.returncode == 0, done.stdout[-3000:]
