"""Shared fixtures: the project root and helpers that find the installed tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from handbook_testing import NODE_BIN, ROOT, require_tool

__all__ = ["NODE_BIN", "ROOT", "require_tool"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT
