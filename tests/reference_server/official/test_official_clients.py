"""The reference server as the official MCP tools see it: the Inspector CLI and the conformance suite.

Both run on Node 22 from `.tools/node` (installed by `.ci/install-tools`). The
conformance suite speaks Streamable HTTP only, so the server is reached through
a stdio-to-HTTP bridge; the bridge has no host option, so a preload forces it
onto 127.0.0.1 and the test checks that nothing else is listening for it.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from handbook_testing import NODE_BIN, require_tool

pytestmark = pytest.mark.slow  # the Node tools: `bash .ci/install-tools` puts them in .tools/
HERE = Path(__file__).parent
LOOPBACK_PRELOAD = HERE / "node_loopback.cjs"
EXPECTED_FAILURES = HERE / "conformance-expected-failures.yml"
SERVER = [sys.executable, "-m", "reference_server"]


def node_env() -> dict[str, str]:
    return {
        "PATH": f"{NODE_BIN}:/usr/bin:/bin",
        "HOME": os.environ.get("HOME", "/tmp"),
        "NODE_OPTIONS": f"--require {LOOPBACK_PRELOAD}",
        "NO_COLOR": "1",
        "PYTHONPATH": str(Path(__file__).resolve().parents[3] / "tools"),
    }


def inspector(workspace: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    tool = require_tool(NODE_BIN / "mcp-inspector", "the MCP Inspector CLI")
    command = [str(tool), "--cli", *SERVER, "--workspace", str(workspace), "--test-tools", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=node_env(), cwd=workspace)


def test_inspector_strict_lists_every_tool(tmp_path: Path) -> None:
    result = inspector(tmp_path, "--method", "tools/list", "--strict")
    assert result.returncode == 0, result.stdout + result.stderr
    names = {t["name"] for t in json.loads(result.stdout)["tools"]}
    assert {"read_file", "list_directory", "search_files", "append_note", "run_command"} <= names


def test_inspector_calls_a_tool(tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("hello from the workspace\n")
    result = inspector(tmp_path, "--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=hello.txt")
    assert result.returncode == 0, result.stdout + result.stderr
    payload = json.loads(result.stdout)
    assert "hello from the workspace" in json.dumps(payload)
    assert not payload.get("isError")


def test_inspector_exits_5_on_a_tool_error(tmp_path: Path) -> None:
    result = inspector(tmp_path, "--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=../outside.txt")
    assert result.returncode == 5, result.stdout + result.stderr
    assert json.loads(result.stdout)["isError"] is True


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
def bridge(tmp_path: Path) -> Iterator[str]:
    """The reference server (with the conformance fixtures) behind a Streamable HTTP bridge on 127.0.0.1."""
    gateway = require_tool(NODE_BIN / "supergateway", "the stdio-to-HTTP bridge")
    port = _free_port()
    stdio = " ".join([*SERVER, "--workspace", str(tmp_path), "--conformance-fixtures"])
    log = (tmp_path / "bridge.log").open("w")
    proc = subprocess.Popen(
        [str(gateway), "--stdio", stdio, "--outputTransport", "streamableHttp", "--stateful", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT, env=node_env(), cwd=tmp_path, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not _listening(port):
            assert proc.poll() is None, (tmp_path / "bridge.log").read_text()
            assert time.monotonic() < deadline, "the bridge did not start listening within 30 s"
            time.sleep(0.1)
        assert set(_listening(port)) == {"0100007F"}, f"the bridge listens beyond 127.0.0.1: {_listening(port)}"
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the bridge and the server it started
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)
        log.close()


def conformance(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    tool = require_tool(NODE_BIN / "conformance", "the official conformance suite")
    return subprocess.run([str(tool), "server", "--url", url, *args], capture_output=True, text=True, timeout=300, env=node_env())


def test_conformance_suite_passes_all_but_the_documented_scenarios(bridge: str) -> None:
    result = conformance(bridge, "--expected-failures", str(EXPECTED_FAILURES))
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    for scenario in ("server-initialize", "ping", "tools-list", "tools-call-simple-text", "tools-call-error",
                     "tools-call-image", "tools-call-audio", "tools-call-mixed-content", "tools-call-with-logging",
                     "tools-call-with-progress", "tools-call-embedded-resource", "logging-set-level"):
        assert f"✓ {scenario}:" in out, f"{scenario} did not pass:\n{out}"
    assert "Stale baseline" not in out and "Unexpected failures" not in out


def test_conformance_json_schema_2020_12(bridge: str) -> None:
    result = conformance(bridge, "--scenario", "json-schema-2020-12")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 failed" in result.stdout
