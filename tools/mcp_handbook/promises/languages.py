"""Checks for blocks that are not Python, each by the real tool for its language: a plain function
``(code) -> problem | None`` per fence language. A tool that is not installed is a problem, not a pass."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path

import yaml

TOOL_SECONDS = 60.0


def _tool(argv: list[str], code: str, suffix: str) -> str | None:
    if shutil.which(argv[0]) is None:
        return f"{argv[0]} is not installed (the test extras install it)"
    with tempfile.TemporaryDirectory(prefix="hb-block-") as folder:
        path = Path(folder) / f"block{suffix}"
        path.write_text(code, encoding="utf-8")
        try:
            done = subprocess.run([*argv, str(path)], capture_output=True, text=True, timeout=TOOL_SECONDS, check=False)
        except subprocess.TimeoutExpired:
            return f"{argv[0]} did not finish in {TOOL_SECONDS:g} s"
    if done.returncode != 0:
        said = (done.stdout + done.stderr).replace(str(path), "block")
        return f"{argv[0]} found problems:\n{said.strip()}"
    return None


def check_json(code: str) -> str | None:
    try:
        json.loads(code)
    except json.JSONDecodeError as exc:
        return f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
    return None


def is_workflow(document: object) -> bool:
    """A GitHub Actions workflow: a mapping with ``jobs`` and ``on`` (which YAML 1.1 reads as ``True``)."""
    return isinstance(document, dict) and "jobs" in document and ("on" in document or True in document)


def check_yaml(code: str) -> str | None:
    try:
        documents = list(yaml.safe_load_all(code))
    except yaml.YAMLError as exc:
        return f"not valid YAML: {exc}"
    if any(is_workflow(d) for d in documents):
        return _tool(["actionlint", "-no-color"], code, ".yml")
    return None


def check_toml(code: str) -> str | None:
    try:
        tomllib.loads(code)
    except tomllib.TOMLDecodeError as exc:
        return f"not valid TOML: {exc}"
    return None


def check_shell(code: str) -> str | None:
    syntax = _tool(["bash", "-n"], code, ".sh")
    return syntax or _tool(["shellcheck", "--shell=bash", "--severity=warning"], code, ".sh")


LANGUAGE_CHECKS: dict[str, Callable[[str], str | None]] = {
    "json": check_json,
    "yaml": check_yaml,
    "yml": check_yaml,
    "toml": check_toml,
    "sh": check_shell,
    "bash": check_shell,
    "shell": check_shell,
}
"""Fence language -> its check. ``python`` runs in :mod:`.child`; any other language needs ``norun="why"``."""
