"""What CONTRIBUTING.md, the pull-request template, CI and pre-commit tell a
contributor matches what the toolchain does."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

from mcp_handbook.cli import parser

DOCS_WITH_COMMANDS = ("CONTRIBUTING.md", "CHANGELOG.md", "content/versioning.md", ".github/pull_request_template.md")


def emitted_codes(root: Path) -> set[str]:
    source = "\n".join(p.read_text(encoding="utf-8") for p in (root / "tools" / "mcp_handbook").rglob("*.py"))
    return set(re.findall(r"(?<![`\w])HB\d{3}\b", source))  # ``HB101`` in a docstring is an example


def documented_codes(root: Path) -> set[str]:
    return set(re.findall(r"^\| (HB\d{3}) \|", (root / "CONTRIBUTING.md").read_text(encoding="utf-8"), re.M))


def test_every_diagnostic_code_is_documented_and_every_documented_code_exists(project_root: Path) -> None:
    emitted, documented = emitted_codes(project_root), documented_codes(project_root)
    assert emitted - documented == set(), "add these codes to the table in CONTRIBUTING.md"
    assert documented - emitted == set(), "CONTRIBUTING.md documents codes nothing emits"


def _fenced_commands(text: str) -> list[str]:
    commands, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif fenced and line.strip().startswith("mcp-handbook "):
            commands.append(line.strip())
    return commands


def _yaml_commands(root: Path) -> list[str]:
    workflow = yaml.safe_load((root / ".github" / "workflows" / "ci.yml").read_text())
    runs = [step.get("run", "") for job in workflow["jobs"].values() for step in job["steps"]]
    hooks = yaml.safe_load((root / ".pre-commit-config.yaml").read_text())
    entries = [hook["entry"] for repo in hooks["repos"] for hook in repo["hooks"]]
    return [ln.strip() for text in [*runs, *entries] for ln in text.splitlines() if ln.strip().startswith("mcp-handbook ")]


def documented_commands(root: Path) -> list[str]:
    found = [c for name in DOCS_WITH_COMMANDS for c in _fenced_commands((root / name).read_text(encoding="utf-8"))]
    return found + _yaml_commands(root)


def test_every_command_the_docs_ci_and_hooks_give_is_one_the_cli_accepts(project_root: Path) -> None:
    commands = documented_commands(project_root)
    assert any(c.startswith("mcp-handbook diff") for c in commands) and any(c.startswith("mcp-handbook check") for c in commands)
    for command in commands:
        words = shlex.split(command.split(" | ")[0], comments=True)
        try:
            parser().parse_args(words[1:])
        except SystemExit:
            pytest.fail(f"the CLI rejects a documented command: {command}")


def test_ci_runs_the_same_checks_as_ci_run_then_builds_and_uploads_the_site(project_root: Path) -> None:
    text = (project_root / ".github" / "workflows" / "ci.yml").read_text()
    steps = yaml.safe_load(text)["jobs"]["check"]["steps"]
    runs = [s.get("run", "").strip() for s in steps]
    assert "bash .ci/run" in runs
    build = next(i for i, r in enumerate(runs) if r.startswith("mcp-handbook build"))
    assert runs.index("bash .ci/run") < build
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["with"]["path"].rstrip("/") == "site" and steps.index(upload) > build
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0  # HB024 and diff read the history
    assert not re.findall(r"https?://", text)  # packages come through the ordinary clients, by name; no host is named


def test_pre_commit_runs_check_snippets_check_ruff_and_mypy_as_local_system_hooks(project_root: Path) -> None:
    config = yaml.safe_load((project_root / ".pre-commit-config.yaml").read_text())
    hooks = [h for repo in config["repos"] if repo["repo"] == "local" for h in repo["hooks"]]
    assert sorted(h["entry"] for h in hooks) == ["bash .ci/commit-subject", "mcp-handbook check",
                                                  "mcp-handbook snippets --check", "python3 -m mypy",
                                                  "python3 -m ruff check"]
    assert all(h["language"] == "system" for h in hooks)  # what pip install -e '.[test]' installed: nothing fetched
    # the whole-tree commands ignore the file names; ruff checks just the files the commit touches, and the
    # commit-msg hook reads the message file pre-commit hands it
    assert all(h["pass_filenames"] is False for h in hooks if h["id"] not in ("ruff", "commit-subject"))


def test_the_versioning_page_is_plain_markdown_not_a_macro_template(project_root: Path) -> None:
    text = (project_root / "content" / "versioning.md").read_text()
    front = yaml.safe_load(text.split("---", 2)[1])
    assert not front.get("render_macros") and "{{" not in text
