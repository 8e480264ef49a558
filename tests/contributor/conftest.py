"""A contributor's checkout in a temporary git repository: the real doctrine,
copied, committed and tagged ``base``; the project's own repository is never touched.

Only the seed rules are copied, not all of ``content/rules``: the scenario is about
one contributor's rule, the copy stays fast, and rules others are writing at this
moment cannot make it flaky."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from mcp_handbook.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
COPIED = ("mkdocs.yml", "content", "snippets", "CHANGELOG.md")
SEED_RULES = ("security/no-shell.md", "transport/frame-size-cap.md", "transport/stdout-jsonrpc-only.md")
"""Not path-containment.md: the contributor's rule takes its place, proved by the probe named after that file
(a rule reusing another rule's probe under another name needs a reason in ``naming.NAMED_APART``, HB039)."""
EPOCH = "1798761600"  # 2027-01-01, so drafted changelog entries carry a known date


@dataclass
class Checkout:
    """A temporary handbook repository and the commands a contributor runs in it."""

    path: Path

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", *args], cwd=self.path, capture_output=True, text=True, timeout=60, check=True)
        return done.stdout

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``mcp-handbook ARGS`` run in this process (fast); see ``cli_process`` for the real thing."""
        out, err = io.StringIO(), io.StringIO()
        saved = os.environ.get("SOURCE_DATE_EPOCH")
        os.environ["SOURCE_DATE_EPOCH"] = EPOCH
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(["--root", str(self.path), *args])
        finally:
            os.environ.pop("SOURCE_DATE_EPOCH") if saved is None else os.environ.__setitem__("SOURCE_DATE_EPOCH", saved)
        return subprocess.CompletedProcess(["mcp-handbook", *args], code, out.getvalue(), err.getvalue())

    def cli_process(self, *args: str) -> subprocess.CompletedProcess[str]:
        """The installed ``mcp-handbook`` console script, in its own process, from the checkout."""
        env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH}
        command = shutil.which("mcp-handbook") or sys.executable
        argv = [command, *args] if command != sys.executable else [command, "-m", "mcp_handbook.cli", *args]
        return subprocess.run(argv, cwd=self.path, env=env, capture_output=True, text=True, timeout=120)

    def check_lines(self) -> set[str]:
        return set(self.cli("check").stdout.splitlines())

    def write(self, rel: str, text: str) -> Path:
        path = self.path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def commit(self, message: str) -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)


def make_checkout(dest: Path, project_root: Path) -> Checkout:
    dest.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        source = project_root / name
        if source.is_dir():
            shutil.copytree(source, dest / name, dirs_exist_ok=True, ignore=shutil.ignore_patterns("rules"))
        else:
            shutil.copy(source, dest / name)
    for rule in SEED_RULES:
        if (project_root / "content" / "rules" / rule).is_file():
            (dest / "content" / "rules" / rule).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(project_root / "content" / "rules" / rule, dest / "content" / "rules" / rule)
    handbook = dest / "content" / "handbook.yml"  # the real retirements name rules the seed does not copy
    handbook.write_text(handbook.read_text(encoding="utf-8").split("\nretired:", 1)[0] + "\nretired: []\n", encoding="utf-8")
    repo = Checkout(dest)
    repo.cli("snippets")  # others may be mid-edit in the real tree: start from fresh snippets
    repo.git("init", "-q", "-b", "main")
    repo.git("config", "user.name", "Contributor")
    repo.git("config", "user.email", "contributor@example.invalid")
    repo.git("config", "commit.gpgsign", "false")
    repo.commit("base")
    repo.git("tag", "base")
    return repo


@pytest.fixture
def checkout(tmp_path: Path, project_root: Path) -> Checkout:
    return make_checkout(tmp_path / "handbook", project_root)


@pytest.fixture
def new_rule() -> str:
    return (FIXTURES / "new-rule.md").read_text(encoding="utf-8")


NEW_RULE_PATH = "content/rules/security/path-containment.md"
