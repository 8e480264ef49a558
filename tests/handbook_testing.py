"""Helpers shared by the test folders: where the installed tools live, and how a
test asks for one. Importable as ``handbook_testing`` (pytest puts tests/ on
sys.path for tests/conftest.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NODE_BIN = ROOT / ".tools" / "node" / "node_modules" / ".bin"


def require_tool(path: Path | str, why: str) -> Path:
    """A tool the test needs: skip when it is absent on a developer machine,
    fail in CI (CI=true), where `.ci/run` must have installed it."""
    if Path(path).exists():
        return Path(path)
    found = shutil.which(str(path))
    if found:
        return Path(found)
    message = f"{path} is not installed ({why}); `.ci/install-tools` installs it"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)
