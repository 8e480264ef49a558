"""Interoperability with the official Python SDK client (mcp 2.x), legacy and auto modes."""
from __future__ import annotations

import sys
import time

import pytest
from conftest import TOOLS_DIR

from mcp import ClientSession, StdioServerParameters, stdio_client


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _params(workspace) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "reference_server", "--workspace", str(workspace), "--test-tools"],
                                 env={"PYTHONPATH": str(TOOLS_DIR)}, cwd=str(workspace))


@pytest.mark.anyio
async def test_sdk_client_session(workspace):
    async with stdio_client(_params(workspace)) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "reference-server"
            assert init.protocol_version == "2025-11-25"
            tools = await session.list_tools()
            names = {tool.name for tool in tools.tools}
            assert {"read_file", "list_directory", "search_files", "append_note", "run_command"} <= names
            result = await session.call_tool("read_file", {"path": "hello.txt"})
            assert not result.is_error and result.content[0].text.startswith("hello world")
            found = await session.call_tool("search_files", {"query": "TODO"})
            assert found.structured_content["matches"][0]["path"] == "docs/guide.md"
            invalid = await session.call_tool("read_file", {"path": 3})
            assert invalid.is_error and "/path" in invalid.content[0].text
            await session.send_ping()


@pytest.mark.anyio
async def test_sdk_auto_mode_falls_back_quickly(workspace):
    from mcp import Client

    started = time.monotonic()
    async with Client(_params(workspace), mode="auto") as client:
        tools = await client.list_tools()
        assert any(tool.name == "append_note" for tool in tools.tools)
    assert time.monotonic() - started < 5  # server/discover answered -32601 at once: no 10 s probe timeout
