"""Fixtures of the toolchain tests: the release, built once per session for the tests that install it."""

from __future__ import annotations

from pathlib import Path

import pytest
from release_build import build_release


@pytest.fixture(scope="session")
def release(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist and wheel ``python -m build`` makes from the tracked files (tests/toolchain/release_build.py)."""
    return build_release(tmp_path_factory.mktemp("release"))
