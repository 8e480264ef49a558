"""Fixtures of the toolchain tests: the release, built once per session for the tests that install it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from release_build import build_release, built_dist


@pytest.fixture(scope="session")
def release(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist and wheel ``python -m build`` makes from the tracked files (tests/toolchain/release_build.py), or,
    when ``HB_RELEASE_DIST`` names a folder, the ones already there: the release workflow tests what it publishes."""
    given = os.environ.get("HB_RELEASE_DIST")
    return built_dist(Path(given)) if given else build_release(tmp_path_factory.mktemp("release"))
