"""What pyproject.toml cannot say statically: the version, and the doctrine the wheel carries.

One version: the package's version *is* the doctrine's (``version:`` in content/handbook.yml). A doctrine release
is the handbook's release (the tag ``vX.Y.Z``), and the tool's own changes ship in it: content/versioning.md
makes probe and code changes a patch release of the doctrine.

The doctrine is not copied in git: at build time ``content/`` and ``snippets/evidence.json`` are copied into the
wheel as ``mcp_handbook/doctrine/``, which the installed tool reads when it is run outside a checkout
(``mcp_handbook.cli.doctrine_root``). MANIFEST.in puts the same files in the sdist, so a wheel built from the
sdist carries them too. The commit they came from is recorded beside them (``doctrine/COMMIT``) for the
worksheet's stamp, since an installed copy is not a git checkout.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
DOCTRINE_FILES = ("content", "snippets/evidence.json")
"""What the installed tool reads outside a checkout, relative to the repository root."""
COMMIT_FILE = "DOCTRINE_COMMIT"
"""In an sdist: the commit it was made from (an sdist is not a git checkout)."""


def doctrine_version() -> str:
    text = (HERE / "content" / "handbook.yml").read_text(encoding="utf-8")
    found = re.search(r"""^version:\s*["']?(\d+\.\d+\.\d+)["']?\s*(#.*)?$""", text, re.M)
    if not found:
        raise SystemExit("content/handbook.yml: no `version: X.Y.Z` line to take the package version from")
    return found[1]


def source_commit() -> str:
    """HEAD, with ``-dirty`` when content/ differs from it; else what the sdist recorded; else ``unknown``."""
    try:
        head = subprocess.run(["git", "rev-parse", "--show-toplevel", "HEAD"], cwd=HERE, capture_output=True, text=True, check=True).stdout.split()
        if len(head) == 2 and Path(head[0]).resolve() == HERE:
            changed = subprocess.run(["git", "status", "--porcelain", "--", "content"], cwd=HERE, capture_output=True, text=True, check=True).stdout
            return head[1] + ("-dirty" if changed.strip() else "")
    except (OSError, subprocess.SubprocessError):
        pass
    recorded = HERE / COMMIT_FILE
    return recorded.read_text(encoding="utf-8").strip() if recorded.is_file() else "unknown"


class BuildWithDoctrine(build_py):
    """build_py, plus the doctrine copied into the built package (not in an editable install: the checkout is there)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "mcp_handbook" / "doctrine"
        shutil.rmtree(target, ignore_errors=True)
        for rel in DOCTRINE_FILES:
            source, dest = HERE / rel, target / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                shutil.copy2(source, dest)
        (target / "COMMIT").write_text(source_commit() + "\n", encoding="utf-8")


class SdistWithCommit(sdist):
    """sdist, plus the commit it was made from, for the wheel built from it."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        (Path(base_dir) / COMMIT_FILE).write_text(source_commit() + "\n", encoding="utf-8")


setup(version=doctrine_version(), cmdclass={"build_py": BuildWithDoctrine, "sdist": SdistWithCommit})
