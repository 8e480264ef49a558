"""Shared fixtures: the project root and helpers that find the installed tools."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NODE_BIN = ROOT / ".tools" / "node" / "node_modules" / ".bin"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT


def require_tool(path: Path | str, why: str) -> Path:
    """A tool the test needs: skip when it is absent on a developer machine,
    fail in CI (CI=true), where `.ci/run` must have installed it."""
    found = Path(path) if Path(path).exists() else (shutil.which(str(path)) and Path(shutil.which(str(path))))
    if found:
        return Path(found)
    message = f"{path} is not installed ({why}); `.ci/run` installs it"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)
