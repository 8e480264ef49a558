"""The toolchain runs git only through ``mcp_handbook.git``: one timeout policy, one error, one place to read all it
asks of git. A new ``subprocess.run(["git", ...])`` elsewhere in tools/ fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from handbook_testing import ROOT

from mcp_handbook import git

TOOLS = ROOT / "tools"
GIT_MODULE = TOOLS / "mcp_handbook" / "git.py"


def _runs_git(tree: ast.AST) -> list[int]:
    """Lines of calls whose first argument is a list or tuple starting with the string "git"."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)):
            first = node.args[0].elts[:1]
            if first and isinstance(first[0], ast.Constant) and first[0].value == "git":
                found.append(node.lineno)
    return found


def test_only_the_git_module_starts_git() -> None:
    callers = [f"{path.relative_to(ROOT)}:{line}" for path in sorted(TOOLS.rglob("*.py")) if path != GIT_MODULE
               for line in _runs_git(ast.parse(path.read_text(encoding="utf-8")))]
    assert callers == [], "run git through mcp_handbook.git (read, text, succeeds, run)"
    assert _runs_git(ast.parse(GIT_MODULE.read_text(encoding="utf-8")))  # the scan sees the one call there is


def test_outside_a_checkout_git_cannot_tell_and_says_so(tmp_path: Path) -> None:
    assert git.text(tmp_path, "rev-parse", "HEAD") is None
    assert git.succeeds(tmp_path, "rev-parse", "--verify", "HEAD") is False
    with pytest.raises(git.GitError, match=r"(?i)not a git repository"):
        git.read(tmp_path, "rev-parse", "HEAD")


def test_in_the_checkout_it_reads_what_git_writes() -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (an sdist or a copied tree)")
    head = git.text(ROOT, "rev-parse", "HEAD")
    assert head is not None and len(head.strip()) == 40
    assert git.read(ROOT, "cat-file", "-t", head.strip()) == b"commit\n"
