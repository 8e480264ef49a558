"""Fixtures for the handbook's own MCP server (how to start it: ``handbook_server.py``)."""
from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
