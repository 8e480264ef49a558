"""One entry audited, in the worker process (already inside the sandbox, its package already installed): the
result, whatever became of the server.

In order: what the entry says it needs and this machine lacks (``not audited``); a secret it requires that the
worker's environment lacks; a remote that is not on loopback without ``--allow-remote``; then the audit of the
command, or of a local HTTP server started here on a free loopback port. The command runs with what its runner
needs to start offline from its cache (:func:`.sandbox.runner_env`) and the entry's own variables; secrets reach
the server through a 0600 file (:mod:`.with_env`), never the command line or the result.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .. import __version__
from ..addresses import is_loopback
from ..audit.engine import AuditError, run_audit
from ..audit.plan import AuditOptions
from ..model import Corpus
from . import result
from .entry import Entry
from .sandbox import runner_env

START_WAIT = 60.0
"""Seconds a local HTTP server has to start listening."""


def audit_one(corpus: Corpus, entry: Entry, *, options: AuditOptions, sandbox_said: str, allow_remote: bool,
              environ: Mapping[str, str]) -> dict[str, Any]:
    began = time.monotonic()

    def skipped(why: str, state: str = "not audited") -> dict[str, Any]:
        return result.not_run(entry, corpus, state=state, why=why, tool_version=__version__, sandbox=sandbox_said,
                              seconds=time.monotonic() - began)

    if entry.needs:
        return skipped(entry.needs)
    if entry.how == "remote":
        host = urlsplit(entry.url).hostname or ""
        if not (allow_remote or is_loopback(host)):
            return skipped(f"needs --allow-remote: {host} is not this machine, and an audit sends hostile requests")
        try:
            audit = run_audit(corpus, [], options=replace(options, url=entry.url))
        except AuditError as exc:
            return skipped(str(exc), state="auditor failed")
        return result.from_audit(entry, corpus, audit, tool_version=__version__, sandbox=sandbox_said)
    with tempfile.TemporaryDirectory(prefix="hb-fleet-env-") as tmp:
        command = _with_environment(entry, Path(tmp), environ)
        try:
            if entry.url:
                with _serving(command, entry, Path(tmp)) as (url, port):
                    audit = run_audit(corpus, [], options=replace(options, url=url))
                said = f"{sandbox_said} (served over HTTP on port {port})"
            else:
                audit, said = run_audit(corpus, command, options=options), sandbox_said
        except (AuditError, OSError) as exc:
            return skipped(str(exc), state="auditor failed")
    return result.from_audit(entry, corpus, audit, tool_version=__version__, sandbox=said)


def _with_environment(entry: Entry, folder: Path, environ: Mapping[str, str]) -> list[str]:
    """The entry's command with its variables: plain values as ``env NAME=value`` (seen in the worksheet, as a
    reader should see them), secrets through a private file."""
    command = list(entry.resolved or entry.command)
    if entry.how in ("npm", "pypi") and not entry.resolved:  # the runner itself: it must find its cache, offline
        command = ["env", *(f"{n}={v}" for n, v in runner_env(network=entry.network)), *command]
    if entry.secrets:
        secret_file = folder / "secrets.env"
        fd = os.open(secret_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.writelines(f"{name}={environ[name]}\n" for name in entry.secrets)
        command = [sys.executable, "-m", "mcp_handbook.fleet.with_env", str(secret_file), "--", *command]
    if entry.env:
        command = ["env", *(f"{name}={value}" for name, value in entry.env), *command]
    return command


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def _serving(command: Sequence[str], entry: Entry, home: Path) -> Iterator[tuple[str, str]]:
    """A local HTTP server started on a free loopback port (``{port}`` or ``{PORT}`` in its command and URL, and
    ``PORT`` in its environment), stopped by its PID's process group afterwards. It shares the worker's sandbox,
    so it is on the auditor's loopback even with the network off."""
    port = str(_free_port())
    argv = [a.replace("{port}", port).replace("{PORT}", port) for a in command]
    url = entry.url.replace("{port}", port).replace("{PORT}", port)
    endpoint = urlsplit(url)
    if not is_loopback(endpoint.hostname or ""):
        raise AuditError(f"the package serves at {url}, not on loopback: refused")
    # nothing inherited, as the audit starts a stdio server: the worker's own secrets stay with the worker
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home), "LANG": "C.UTF-8", "PORT": port}
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=env, start_new_session=True)
    try:
        _wait_listening(proc, endpoint.hostname or "127.0.0.1", endpoint.port or 80)
        yield url, port
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _wait_listening(proc: subprocess.Popen[bytes], host: str, port: int) -> None:
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AuditError(f"the HTTP server exited with code {proc.returncode} before it listened on port {port}")
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=1):
            return
        time.sleep(0.2)
    raise AuditError(f"the HTTP server did not listen on {host}:{port} within {START_WAIT:g} s")
