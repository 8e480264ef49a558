"""The folder a probe works in: the root the server serves, and what a probe plants there (a sample file, a git
repository, a FIFO), each removed or left harmless when the probe is done."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from .findings import ROOT_UNKNOWN, ProbeAbort, not_applicable

if TYPE_CHECKING:
    from .target import Target


def served_root(target: Target) -> Path:
    """The folder the server serves; a probe that cannot judge without it is N/A, not checked (never a guess)."""
    if target.root is None:
        raise ProbeAbort(not_applicable(ROOT_UNKNOWN))
    return target.root


SAMPLE_FILE = "hb-probe-notes.txt"
"""A plain file the probes plant in a folder they prepare, for parameters that take a file."""
_GIT_SETUP = (["init", "-q"], ["add", SAMPLE_FILE], ["commit", "-q", "-m", "hb probe: first commit"])


def init_git_repository(folder: Path, path: str) -> bool:
    """Make ``folder`` a git repository with one commit (of :data:`SAMPLE_FILE`), with the ``git`` found on
    ``path``, when it is not one already: a git server refuses a folder that is not a repository, at start or
    before it runs anything. The commands get an environment of their own (no secret of the audit's), under a
    deadline. False when ``git`` is missing or a step failed."""
    git = shutil.which("git", path=path)
    if git is None:
        return False
    if (folder / ".git").exists():
        return True
    (folder / SAMPLE_FILE).write_text("notes the audit planted\n")
    env = {"PATH": path, "HOME": str(folder), "LANG": "C.UTF-8", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "hb", "GIT_AUTHOR_EMAIL": "hb@example.invalid",
           "GIT_COMMITTER_NAME": "hb", "GIT_COMMITTER_EMAIL": "hb@example.invalid"}
    for step in _GIT_SETUP:
        try:
            done = subprocess.run([git, "-c", "init.defaultBranch=main", *step], cwd=folder, env=env, timeout=10,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            return False
        if done.returncode != 0:
            return False
    return True


@contextlib.contextmanager
def planted_fifo(workspace: Path, suffix: str = "") -> Iterator[str]:
    """A FIFO in the workspace for the duration of the block, yielding its name (ending in ``suffix``, so a tool that
    opens only ``.xlsx`` files does not refuse it for its name); afterwards any reader still blocked on it is
    released (a non-blocking open for writing) and it is removed, so nothing outlives the probe."""
    name = f"hb-fifo-{secrets.token_hex(5)}{suffix}"
    fifo = workspace / name
    os.mkfifo(fifo)
    try:
        yield name
    finally:
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        try:
            fifo.unlink()
        except OSError:
            pass


@contextlib.contextmanager
def planted(*paths: Path) -> Iterator[None]:
    """What a probe puts in the workspace, removed when the block ends (a file, or a folder and what is in it): a
    reader on the shared session (``shares_session``) leaves the workspace as it found it, so the server it used
    stays for the next reader instead of being retired (:mod:`mcp_handbook.audit.shared_servers`)."""
    try:
        yield
    finally:
        for path in paths:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    path.unlink()
