"""Shared fixtures: the project root and helpers that find the installed tools."""

from __future__ import annotations

import compileall
import sys
from pathlib import Path

import pytest

from handbook_testing import NODE_BIN, ROOT, require_tool

__all__ = ["NODE_BIN", "ROOT", "require_tool"]

# Compiled modules are cached for the run, whatever PYTHONDONTWRITEBYTECODE says (these machines set it): the
# test modules' rewritten asserts (about 2 s of every pytest process, each xdist worker included) and the
# toolchain's own modules, which the hundreds of CLI and server processes the tests start would otherwise each
# compile again. The caches go to __pycache__ folders, which git ignores.
sys.dont_write_bytecode = False
compileall.compile_dir(ROOT / "tools", quiet=2)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT
