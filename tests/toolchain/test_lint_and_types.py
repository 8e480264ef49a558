"""The linter and the type checker pyproject.toml configures pass on the code: ``ruff check tools tests benchmarks``
and ``mypy`` (its ``files`` are ``tools/``). CI runs them here, through the README's test command, so a finding fails
the build with the tool's own output; pre-commit runs the same two on a commit.

A developer machine without the tool skips with the reason; CI (``CI=true``), where the test extras install both,
fails instead."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest
from handbook_testing import ROOT

def require_module(name: str) -> None:
    """Skip (fail in CI) when ``python -m NAME`` cannot run: the test extras install it."""
    if importlib.util.find_spec(name) is not None:
        return
    message = f"{name} is not installed: `pip install -e '.[test]'` installs it"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def run_module(name: str, *args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", name, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, check=False)


def test_ruff_finds_nothing() -> None:
    require_module("ruff")
    done = run_module("ruff", "check", "--no-cache", "--output-format", "concise", "tools", "tests", "benchmarks",
                      timeout=120)
    assert done.returncode == 0, f"ruff check tools tests benchmarks:\n{done.stdout}{done.stderr}"


@pytest.mark.slow
def test_mypy_finds_nothing() -> None:
    require_module("mypy")
    done = run_module("mypy", timeout=600)
    assert done.returncode == 0, f"mypy (tools/, configured in pyproject.toml):\n{done.stdout}{done.stderr}"


def test_the_configuration_is_the_one_the_tools_read() -> None:
    """Both tools find their settings in pyproject.toml, so the command a contributor types and CI's are the same:
    a misspelt table would leave each on its defaults without a word."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    tool = config["tool"]
    assert {"E", "F", "B"} <= set(tool["ruff"]["lint"]["select"])  # not I: pyproject.toml says why
    assert tool["mypy"]["files"] == ["tools"] and tool["mypy"]["check_untyped_defs"] is True
    extras = " ".join(config["project"]["optional-dependencies"]["test"])
    assert "ruff" in extras and "mypy" in extras
