"""The wrapper that isolates a server a fleet audits: bubblewrap when it is installed and works, nothing otherwise.

A fleet runs code it has never read, so each server gets a read-only view of the machine, a fresh ``/tmp``, its
own ``/dev`` and ``/proc``, and no network unless its entry declares it needs one. What it may still write are the
package caches its runner keeps (``npx`` and ``uvx`` write to them on every start, and refuse to run read-only) and
the folder the worker runs it in.

The wrapper must not change a verdict. The auditor stops a server by signalling its process group and finds what
it left behind through ``/proc``, and several probes judge how the server handles SIGTERM or a closed stdin. So:

- no ``--unshare-pid``: in a PID namespace the server runs as a child of a bubblewrap "init" that dies of a
  SIGTERM without passing it on, so a server that would have shut down cleanly is reported killed, and the
  auditor's ``/proc`` reading would meet PIDs it cannot match;
- no ``--new-session``: the server stays in the process group the auditor made for it, so signalling the group
  reaches it directly;
- no ``--die-with-parent``: it sets the parent-death signal, which Linux sends when the *thread* that started
  bubblewrap ends, and the auditor starts servers from short-lived threads: measured on mcp-server-time and
  mcp-server-memory, six verdicts turned to FAIL with "server closed stdout" when it was set. The auditor's own
  group kill and subreaper already end what a server leaves.

One verdict still moves when only the server is wrapped: SEC-007 reads ``/proc/PID/fd`` of the process the auditor
started, which is then bubblewrap (it closes what it inherited; the server inside keeps it), so a FAIL reads PASS.
Wrapping the whole audit instead (``wrap(["mcp-handbook", "audit", ...], workdir=...)``: the server is then the
auditor's own child again) kept every verdict. Measured on mcp-server-time and mcp-server-memory, 133 items each,
against an unwrapped audit: server wrapped, 1 difference (SEC-007); audit wrapped, none.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

KINDS = ("bubblewrap", "none")

OFFLINE = (("npm_config_offline", "true"), ("UV_OFFLINE", "1"), ("PIP_NO_INDEX", "1"))
"""Set inside a sandbox without network, so a runner uses what :mod:`.prepare` cached instead of asking the
registry first (npx waits on it for a minute per start, uvx fails)."""

CACHES = ("~/.npm", "~/.cache/uv", "~/.local/share/uv", "~/.cache/pip", "~/.local/pipx", "~/.cache/pipx")
"""Where npx, uvx and pipx keep the packages :mod:`.prepare` installed: writable, because every runner takes a
lock or writes a record there on each start even when nothing is downloaded."""


def available(which: Callable[[str], str | None] = shutil.which) -> str:
    """``"bubblewrap"`` when ``bwrap`` is installed and can make a sandbox here (a container or a kernel that
    forbids unprivileged user namespaces has it installed yet failing), else ``"none"``."""
    path = which("bwrap")
    if not path:
        return "none"
    try:
        trial = subprocess.run([path, *_isolation(network=False), "--", "true"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "none"
    return "bubblewrap" if trial.returncode == 0 else "none"


def why_none(which: Callable[[str], str | None] = shutil.which) -> str:
    return "bubblewrap is not installed" if not which("bwrap") else "bubblewrap cannot make a sandbox here"


def _writable(home: Path) -> list[str]:
    binds: list[str] = []
    for cache in CACHES:
        path = Path(cache.replace("~", str(home), 1))
        if path.is_dir():
            binds += ["--bind", str(path), str(path)]
    return binds


def runner_env(*, network: bool) -> list[tuple[str, str]]:
    """What a server's runner needs in its environment to start offline from what :mod:`.prepare` cached. The
    auditor gives a server a clean environment (``HOME`` its workspace, ``PATH`` the system's), where npx and uvx
    would neither be found nor find their caches: the worker prefixes the server's command with these (``env``).
    Nothing secret."""
    pairs = _runner_env(Path(os.path.expanduser("~")))
    return pairs if network else [*pairs, *OFFLINE]


def _runner_env(home: Path) -> list[tuple[str, str]]:
    pairs = [("npm_config_cache", home / ".npm"), ("UV_CACHE_DIR", home / ".cache/uv"),
             ("UV_TOOL_DIR", home / ".local/share/uv/tools"), ("UV_PYTHON_INSTALL_DIR", home / ".local/share/uv/python")]
    found = [(name, str(path)) for name, path in pairs if path.parent.is_dir()]
    for name in ("PATH", "PYENV_ROOT"):
        if os.environ.get(name):
            found.append((name, os.environ[name]))
    return found


def _isolation(*, network: bool, workdir: Path | None = None, readable: Sequence[Path] = ()) -> list[str]:
    home = Path(os.path.expanduser("~"))
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", *_writable(home)]
    for path in readable:  # what the fresh /tmp would hide: a handbook checked out under /tmp, say
        if path.exists():
            args += ["--ro-bind", str(path.resolve()), str(path.resolve())]
    if workdir is not None and workdir.is_dir() and workdir.resolve() != Path("/"):
        args += ["--bind", str(workdir.resolve()), str(workdir.resolve()), "--chdir", str(workdir.resolve())]
    args += [word for name, value in _runner_env(home) for word in ("--setenv", name, value)]
    if not network:  # and the runners told so: npx otherwise retries the registry for a minute before it starts
        args += ["--unshare-net", *(word for name, value in OFFLINE for word in ("--setenv", name, value))]
    return args


def wrap(command: Sequence[str], *, network: bool, kind: str, workdir: Path | None = None,
         readable: Sequence[Path] = ()) -> tuple[list[str], str]:
    """``command`` inside the sandbox ``kind`` names (from :func:`available`), and one line that says what it is:
    ``"bubblewrap, network off"``. ``workdir`` (the worker's folder for this server) stays writable and is where
    the server starts; ``readable`` folders stay readable (the handbook the worker reads its rules from). With
    kind ``"none"`` the command runs as it is."""
    if kind not in KINDS:
        raise ValueError(f"unknown sandbox {kind!r}: one of {', '.join(KINDS)}")
    if kind == "none":
        return list(command), describe(kind, network=network)
    bwrap = shutil.which("bwrap") or "bwrap"
    wrapped = [bwrap, *_isolation(network=network, workdir=workdir, readable=readable), "--", *command]
    return wrapped, describe(kind, network=network)


def describe(kind: str, *, network: bool) -> str:
    """The sandbox in a few words, as a result records it."""
    return f"bubblewrap, network {'on' if network else 'off'}" if kind == "bubblewrap" else f"none: {why_none()}"
