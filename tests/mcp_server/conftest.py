"""Fixtures for the handbook's own MCP server: how to start it (stdio) as the SDK client would."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLS_DIR = ROOT / "tools"
if str(TOOLS_DIR) not in sys.path:
    sys.path.insert(0, str(TOOLS_DIR))


def server_argv(*extra: str) -> list[str]:
    """``mcp-handbook mcp`` from this checkout, on this interpreter."""
    return [sys.executable, "-m", "mcp_handbook.cli", "--root", str(ROOT), "mcp", *extra]


def server_env() -> dict[str, str]:
    return {"PYTHONPATH": str(TOOLS_DIR)}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
