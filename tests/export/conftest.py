"""Fixtures for the export and report tests (helpers live in export_helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from export_helpers import commit_all, git, write_handbook


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    """A five-rule handbook, not in git (so its stamp commit is 'unknown')."""
    return write_handbook(tmp_path / "hb")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The mini handbook as a git repository with one commit (doctrine 0.1.0)."""
    root = write_handbook(tmp_path / "repo")
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "doctrine 0.1.0")
    return root
