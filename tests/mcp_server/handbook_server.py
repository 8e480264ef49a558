"""How the tests start the handbook's own MCP server (stdio) as the SDK client would. A module of its own, not
``conftest``: several test folders have a conftest, and only one of them can be imported by that name per run."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLS_DIR = ROOT / "tools"
if str(TOOLS_DIR) not in sys.path:
    sys.path.insert(0, str(TOOLS_DIR))


def server_argv(*extra: str) -> list[str]:
    """``mcp-handbook mcp`` from this checkout, on this interpreter."""
    return [sys.executable, "-m", "mcp_handbook.cli", "--root", str(ROOT), "mcp", *extra]


def server_env() -> dict[str, str]:
    return {"PYTHONPATH": str(TOOLS_DIR)}
