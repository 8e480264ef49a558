"""Interoperability with the official Python SDK client (mcp 2.x): every connect mode, over stdio and over HTTP.

The SDK's ``Client`` modes (mcp/client/client.py): ``"legacy"`` sends initialize, ``"auto"`` probes
server/discover and falls back to initialize, ``"2026-07-28"`` adopts that revision without a probe. The
SDK validates each result against the revision it negotiated, so a 2026-07-28 result without
``resultType`` or the cache hints fails here.
"""
from __future__ import annotations

import base64
import sys
import time
from typing import TYPE_CHECKING

import pytest
from conftest import TOOLS_DIR

if TYPE_CHECKING:
    from mcp import StdioServerParameters

# The SDK is imported by the tests that use it, not at collection: importing it costs about a second of CPU,
# which every pytest-xdist worker would otherwise pay whether or not it runs one of these tests.

MODES = {"legacy": "2025-11-25", "auto": "2026-07-28", "2026-07-28": "2026-07-28"}
"""Each connect mode and the revision it must end up speaking with this dual-era server."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _params(workspace, *extra: str) -> StdioServerParameters:
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "reference_server", "--workspace", str(workspace), "--test-tools", *extra],
                                 env={"PYTHONPATH": str(TOOLS_DIR)}, cwd=str(workspace))


@pytest.mark.anyio
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_sdk_client_lists_and_calls_tools(workspace, http_server, transport, mode):
    from mcp import Client

    target = _params(workspace) if transport == "stdio" else http_server("--test-tools").url
    async with Client(target, mode=mode) as client:
        assert client.protocol_version == MODES[mode]
        tools = await client.list_tools()
        names = {tool.name for tool in tools.tools}
        assert {"read_file", "list_directory", "search_files", "append_note", "run_command"} <= names
        result = await client.call_tool("read_file", {"path": "hello.txt"})
        assert not result.is_error and result.content[0].text.startswith("hello world")
        found = await client.call_tool("search_files", {"query": "TODO"})
        assert found.structured_content["matches"][0]["path"] == "docs/guide.md"
        invalid = await client.call_tool("read_file", {"path": 3})
        assert invalid.is_error and "/path" in invalid.content[0].text
        slow = await client.call_tool("slow_echo", {"text": "on a worker", "seconds": 0})
        assert slow.content[0].text == "on a worker"


@pytest.mark.anyio
async def test_sdk_client_session(workspace):
    from mcp import ClientSession, stdio_client

    async with stdio_client(_params(workspace)) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        assert init.server_info.name == "reference-server"
        assert init.protocol_version == "2025-11-25"
        tools = await session.list_tools()
        assert any(tool.name == "append_note" for tool in tools.tools)
        await session.send_ping()


@pytest.mark.anyio
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_sdk_auto_mode_falls_back_quickly_from_a_legacy_only_server(workspace, http_server, transport):
    from mcp import Client

    target = _params(workspace, "--legacy-only") if transport == "stdio" else http_server("--legacy-only").url
    started = time.monotonic()
    async with Client(target, mode="auto") as client:
        assert client.protocol_version == "2025-11-25"
        tools = await client.list_tools()
        assert any(tool.name == "append_note" for tool in tools.tools)
    assert time.monotonic() - started < 5  # server/discover refused at once: no 10 s probe timeout


@pytest.mark.anyio
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_sdk_client_reads_resources_and_gets_prompts(workspace, http_server, transport, mode):
    from mcp import Client

    (workspace / "pixel.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    target = _params(workspace) if transport == "stdio" else http_server("--test-tools").url
    async with Client(target, mode=mode) as client:
        assert client.protocol_version == MODES[mode]
        listed = await client.list_resources()
        assert [str(r.uri) for r in listed.resources] == ["file:///docs/guide.md", "file:///hello.txt",
                                                          "file:///pixel.png"]
        templates = await client.list_resource_templates()
        assert templates.resource_templates[0].uri_template == "file:///{path}"
        text = await client.read_resource("file:///hello.txt")
        assert text.contents[0].text.startswith("hello world") and text.contents[0].mime_type == "text/plain"
        binary = await client.read_resource("file:///pixel.png")
        assert base64.b64decode(binary.contents[0].blob) == b"\x89PNG\r\n\x1a\n\x00\xff"
        prompts = await client.list_prompts()
        assert [p.name for p in prompts.prompts] == ["find_in_workspace", "review_file"]
        got = await client.get_prompt("review_file", {"path": "docs/guide.md"})
        assert got.messages[1].content.resource.text.startswith("# Guide")
        with pytest.raises(Exception) as refused:
            await client.get_prompt("review_file", {})
        assert "missing required argument(s) 'path'" in str(refused.value)
