"""Every git command the toolchain runs goes through here: the history of the doctrine (``check``'s retired ids,
``changes``), the worksheet's commit stamp, the site's change lists and worksheet versions, ``report``'s doctrine
versions and ``publish``.

One place, so a reader sees all the toolchain asks of git, and every call has a timeout and the same answer when
git cannot tell (it is not installed, the folder is not a checkout, the ref does not exist): :class:`GitError`
from :func:`read`, ``None`` from :func:`text`. No caller needs to know about ``subprocess``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


class GitError(Exception):
    """git could not run, took too long, or refused; the message is git's own when it has one."""


def run(root: Path | None, *args: str, timeout: float = 60, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """``git ARGS`` in ``root`` (the current folder when None), whatever its exit status: for a caller that reads
    the status itself. Raises GitError only when git cannot be run or outlives ``timeout``."""
    try:
        return subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, timeout=timeout, check=False)
    except OSError as exc:
        raise GitError(f"git is not available: {exc}") from exc
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git {' '.join(args)} took longer than {timeout:g} s") from exc


def read(root: Path | None, *args: str, timeout: float = 60, stdin: bytes | None = None) -> bytes:
    """What ``git ARGS`` writes to stdout; GitError with git's message when it fails."""
    done = run(root, *args, timeout=timeout, stdin=stdin)
    if done.returncode != 0:
        raise GitError(done.stderr.decode(errors="replace").strip() or f"git {' '.join(args)} failed")
    return done.stdout


def text(root: Path | None, *args: str, timeout: float = 10) -> str | None:
    """``git ARGS``'s stdout as text, or None when git cannot tell: for the stamps and lists that read "unknown"
    rather than stop a build."""
    try:
        return read(root, *args, timeout=timeout).decode("utf-8", errors="replace")
    except GitError:
        return None


def succeeds(root: Path | None, *args: str, timeout: float = 30) -> bool:
    """Whether ``git ARGS`` exits 0 (``diff --quiet``, ``rev-parse --verify``); False when git cannot run."""
    try:
        return run(root, *args, timeout=timeout).returncode == 0
    except GitError:
        return False
