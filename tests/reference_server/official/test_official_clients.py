"""The reference server as the official MCP tools see it: the Inspector CLI and the conformance suite.

Both run on Node 22 from `.tools/node` (installed by `.ci/install-tools`). The
Inspector reaches the server over stdio and over Streamable HTTP; the
conformance suite speaks Streamable HTTP only and reaches `--http` directly.
Each HTTP server is started on 127.0.0.1 port 0 by the `http_server` fixture
(tests/reference_server/conftest.py) and stopped by its PID after the test.
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from handbook_testing import NODE_BIN, require_tool

pytestmark = pytest.mark.slow  # the Node tools: `bash .ci/install-tools` puts them in .tools/
HERE = Path(__file__).parent
EXPECTED_FAILURES = HERE / "conformance-expected-failures.yml"
SERVER = [sys.executable, "-m", "reference_server"]

# Why each expected failure fails: the capability (a path in the capabilities object) the reference server
# deliberately lacks. A baseline entry not covered here has no reason, and the baseline test fails on it.
MISSING_CAPABILITY = {"completion-": ("completions",), "resources-subscribe": ("resources", "subscribe"),
                      "resources-unsubscribe": ("resources", "subscribe")}
# Scenarios that need the server to send requests to the client; the tools they call do not exist.
SERVER_TO_CLIENT_TOOLS = {
    "tools-call-sampling": "test_sampling",
    "tools-call-elicitation": "test_elicitation",
    "elicitation-sep1034-defaults": "test_elicitation_sep1034_defaults",
    "elicitation-sep1330-enums": "test_elicitation_sep1330_enums",
}


def node_env(home: Path) -> dict[str, str]:
    return {
        "PATH": f"{NODE_BIN}:/usr/bin:/bin",
        "HOME": str(home),  # the Inspector writes its catalog under ~/.mcp-inspector
        "NO_COLOR": "1",
        "PYTHONPATH": str(Path(__file__).resolve().parents[3] / "tools"),
    }


Inspector = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(params=["stdio", "http"])
def inspector(request: pytest.FixtureRequest, workspace: Path, tmp_path: Path) -> Inspector:
    """``inspector(*args)`` runs the Inspector CLI against the server with the test tools, over stdio or HTTP."""
    tool = require_tool(NODE_BIN / "mcp-inspector", "the MCP Inspector CLI")
    if request.param == "stdio":
        target = [*SERVER, "--workspace", str(workspace), "--test-tools"]
    else:
        server = request.getfixturevalue("http_server")("--test-tools")
        target = [server.url, "--transport", "http"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [str(tool), "--cli", *target, *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=60, env=node_env(tmp_path), check=False,
                              cwd=workspace)

    return run


def test_inspector_strict_lists_every_tool(inspector: Inspector) -> None:
    result = inspector("--method", "tools/list", "--strict")
    assert result.returncode == 0, result.stdout + result.stderr
    names = {t["name"] for t in json.loads(result.stdout)["tools"]}
    assert {"read_file", "list_directory", "search_files", "append_note", "run_command", "slow_echo"} <= names


def test_inspector_calls_a_tool(inspector: Inspector) -> None:
    result = inspector("--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=hello.txt")
    assert result.returncode == 0, result.stdout + result.stderr
    payload = json.loads(result.stdout)
    assert "hello world" in json.dumps(payload)  # the workspace fixture's hello.txt
    assert not payload.get("isError")


def test_inspector_exits_5_on_a_tool_error(inspector: Inspector) -> None:
    result = inspector("--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=../outside.txt")
    assert result.returncode == 5, result.stdout + result.stderr
    assert json.loads(result.stdout)["isError"] is True


def _listening(port: int) -> list[str]:
    """Local addresses in LISTEN state on ``port``, from /proc/net/tcp{,6}."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:
                found.append(address)
    return found


@pytest.fixture
def conformance_server(http_server):
    """The reference server with the conformance fixtures over Streamable HTTP, listening on 127.0.0.1 only."""
    server = http_server("--conformance-fixtures")
    assert _listening(server.port) == ["0100007F"], f"the server listens beyond 127.0.0.1: {_listening(server.port)}"
    return server


def conformance(url: str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    tool = require_tool(NODE_BIN / "conformance", "the official conformance suite")
    return subprocess.run([str(tool), "server", "--url", url, *args], capture_output=True, text=True, timeout=300,
                          env=node_env(home), check=False)


def test_conformance_suite_passes_all_but_the_documented_scenarios(conformance_server, tmp_path: Path) -> None:
    result = conformance(conformance_server.url, tmp_path, "--expected-failures", str(EXPECTED_FAILURES))
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    for scenario in ("server-initialize", "ping", "tools-list", "tools-call-simple-text", "tools-call-error",
                     "tools-call-image", "tools-call-audio", "tools-call-mixed-content", "tools-call-with-logging",
                     "tools-call-with-progress", "tools-call-embedded-resource", "logging-set-level",
                     "server-sse-multiple-streams", "dns-rebinding-protection", "resources-list",
                     "resources-read-text", "resources-read-binary", "resources-templates-read", "prompts-list",
                     "prompts-get-simple", "prompts-get-with-args", "prompts-get-embedded-resource",
                     "prompts-get-with-image"):
        assert f"✓ {scenario}:" in out, f"{scenario} did not pass:\n{out}"
    assert "Stale baseline" not in out and "Unexpected failures" not in out


def test_conformance_pending_scenarios_pass(conformance_server, tmp_path: Path) -> None:
    """json-schema-2020-12 and server-sse-polling are not in the active suite yet; they pass already."""
    result = conformance(conformance_server.url, tmp_path, "--suite", "pending")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "✓ json-schema-2020-12:" in result.stdout and "0 failed" in result.stdout


def _post(server, body: dict[str, Any], session: str | None = None) -> tuple[dict[str, Any] | None, str | None]:
    """One JSON-RPC message over HTTP; returns the answer (JSON or the last SSE data line) and the session id."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session:
        headers["Mcp-Session-Id"] = session
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request("POST", "/mcp", body=json.dumps(body), headers=headers)
        response = connection.getresponse()
        text = response.read().decode()
        assert response.status in (200, 202), (response.status, text)
        session_id = response.headers.get("Mcp-Session-Id") or session
    finally:
        connection.close()
    if not text:
        return None, session_id
    if response.headers.get("Content-Type") == "text/event-stream":
        text = [line[len("data: "):] for line in text.splitlines() if line.startswith("data: ")][-1]
    return json.loads(text), session_id


def test_every_expected_failure_is_a_capability_the_server_lacks(conformance_server) -> None:
    """Each baseline entry names a capability the server does not advertise, or a server-to-client request
    it never sends (its tool is absent); anything else in the baseline is a regression hidden as expected."""
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "pytest", "version": "0"}}
    answer, session = _post(conformance_server, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    capabilities = answer["result"]["capabilities"]
    _post(conformance_server, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    listed, _ = _post(conformance_server, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)
    tools = {tool["name"] for tool in listed["result"]["tools"]}

    baseline = yaml.safe_load(EXPECTED_FAILURES.read_text())
    assert set(baseline) == {"server"}, "the baseline lists server scenarios only"
    for scenario in baseline["server"]:
        capability = next((cap for prefix, cap in MISSING_CAPABILITY.items() if scenario.startswith(prefix)), None)
        if capability:
            advertised = capabilities
            for key in capability:
                advertised = advertised.get(key) if isinstance(advertised, dict) else None
            assert not advertised, f"{scenario}: the server now advertises '{'.'.join(capability)}'"
        else:
            assert scenario in SERVER_TO_CLIENT_TOOLS, f"{scenario}: no reason known for this expected failure"
            assert SERVER_TO_CLIENT_TOOLS[scenario] not in tools, f"{scenario}: its tool now exists"


def test_inspector_lists_and_reads_resources(inspector: Inspector) -> None:
    listed = inspector("--method", "resources/list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "file:///hello.txt" in {r["uri"] for r in json.loads(listed.stdout)["resources"]}
    templates = inspector("--method", "resources/templates/list")
    assert templates.returncode == 0, templates.stdout + templates.stderr
    assert json.loads(templates.stdout)["resourceTemplates"][0]["uriTemplate"] == "file:///{path}"
    read = inspector("--method", "resources/read", "--uri", "file:///hello.txt")
    assert read.returncode == 0, read.stdout + read.stderr
    assert json.loads(read.stdout)["contents"][0]["text"].startswith("hello world")


def test_inspector_lists_and_gets_prompts(inspector: Inspector) -> None:
    listed = inspector("--method", "prompts/list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert {p["name"] for p in json.loads(listed.stdout)["prompts"]} == {"find_in_workspace", "review_file"}
    got = inspector("--method", "prompts/get", "--prompt-name", "find_in_workspace", "--prompt-args", "query=TODO")
    assert got.returncode == 0, got.stdout + got.stderr
    assert "TODO" in json.loads(got.stdout)["messages"][0]["content"]["text"]
