"""Install a package before its audit, with the network on, so the audit itself can run it with the network off.

npx and uvx both keep what they fetched in a cache and, told to stay offline (the sandbox tells them), run from it.
Preparing is running the same runner once on the same package spec with a command that exits at once instead of
the server: ``npx -y --package SPEC -- true`` fills the same ``_npx`` folder ``npx -y SPEC`` uses (its name is a
hash of the package list), and ``uvx --from SPEC python -c pass`` builds the same cached environment
``uvx SPEC`` starts from. The server is never started here, so nothing it does at start-up happens online.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping

from .entry import Entry

MAX_OUTPUT = 200_000


def install_command(entry: Entry) -> list[str] | None:
    """The command that caches ``entry``'s package, or None when it has nothing to install (a remote, a command)."""
    command = list(entry.command)
    if entry.how == "npm" and command[:2] == ["npx", "-y"]:
        spec = entry.package.split(":", 1)[1].split(" (", 1)[0]
        return ["npx", "-y", "--package", spec, "--", "true"]
    if entry.how == "pypi" and command:
        spec = entry.package.split(":", 1)[1].split(" (", 1)[0]
        if command[0] == "uvx":
            return ["uvx", "--from", spec, "python", "-c", "pass"]
        if command[:2] == ["pipx", "run"]:
            return ["pipx", "run", "--spec", spec, "python", "-c", "pass"]
    if entry.how == "oci" and command:
        return [command[0], "pull", entry.package.split(":", 1)[1]]
    return None


NOISE = ("complete log of this run", "npm notice", "npm warn")
"""Lines an installer writes that never say why it failed (npm ends every failure with where its log went)."""


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip() and not any(n in line.lower() for n in NOISE)]
    return lines[-1][:300] if lines else ""


def prepare(entry: Entry, *, timeout: float, environ: Mapping[str, str]) -> str:
    """Cache ``entry``'s package: "" when it is ready to run offline, else why not (the installer's last line of
    error output, or the time it ran out of), for a "not audited" result. The installer runs in its own process
    group, killed by its PID's group if it outlives ``timeout``."""
    if entry.needs:
        return entry.needs
    command = install_command(entry)
    if command is None:
        return ""
    try:
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=dict(environ), start_new_session=True)
    except OSError as e:
        return f"cannot start {command[0]}: {e.strerror or e}"
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        return f"installing {entry.package} took longer than {timeout:g} s"
    if proc.returncode != 0:
        why = _last_line(err[-MAX_OUTPUT:].decode("utf-8", "replace"))
        return f"installing {entry.package} failed (exit {proc.returncode}): {why or 'no error output'}"
    return ""
