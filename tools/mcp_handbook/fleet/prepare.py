"""Install a package before its audit, with the network on, so the audit itself can run it with the network off.

npx and uvx both keep what they fetched in a cache and, told to stay offline (the sandbox tells them), run from it.
Preparing is running the same runner once on the same package spec with a command that exits at once instead of
the server: ``npx -y --package SPEC -- true`` fills the same ``_npx`` folder ``npx -y SPEC`` uses (its name is a
hash of the package list), and ``uvx --from SPEC python -c pass`` builds the same cached environment
``uvx SPEC`` starts from. The server is never started here, so nothing it does at start-up happens online.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import children
from .entry import Entry

STOP_GRACE = 5.0
"""Seconds an installer past its time gets after SIGTERM, before its group is killed."""


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


def prepare(entry: Entry, *, timeout: float, environ: Mapping[str, str]) -> str:
    """Cache ``entry``'s package: "" when it is ready to run offline, else why not (the installer's last line of
    error output, or the time it ran out of), for a "not audited" result. The installer runs in its own process
    group, stopped with that group if it outlives ``timeout``."""
    if entry.needs:
        return entry.needs
    command = install_command(entry)
    if command is None:
        return ""
    try:
        ended = children.run(command, timeout=timeout, grace=STOP_GRACE, env=environ)
    except OSError as e:
        return f"cannot start {command[0]}: {e.strerror or e}"
    if ended.returncode is None:
        return f"installing {entry.package} took longer than {timeout:g} s"
    if ended.returncode != 0:
        why = children.last_line(ended.err, noise=NOISE)
        return f"installing {entry.package} failed (exit {ended.returncode}): {why or 'no error output'}"
    return ""
