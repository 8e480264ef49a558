"""Helpers for the audit tests: the CLI in a subprocess with a hard stop, hostile servers, fake rules.

Every process a test starts is stopped by its process group; the auditor is
expected to reap the servers it starts, and the tests check that it did.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from mcp_handbook.model import Corpus, Gate, Location, Rule
from mcp_handbook.probes.registry import Probe

HOSTILE = Path(__file__).resolve().parent / "hostile"
REFERENCE = [sys.executable, "-m", "reference_server", "--workspace", "{workspace}", "--test-tools", "--page-size", "4"]
"""Pages, as in proofs; serves the fresh folder each probe starts it in, named by {workspace} so the auditor knows."""
CORE_RULES = ("TRN-001", "TRN-002", "SEC-001")
"""The walking skeleton's rules: stable ids whose probes are fast, used to keep hostile audits short."""


@dataclass(frozen=True, slots=True)
class Run:
    code: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def text(self) -> str:
        return self.stdout + self.stderr


def run_cli(root: Path, *args: str, limit: float = 60.0, cwd: Path | None = None) -> Run:
    """``mcp-handbook --root ROOT ARGS`` in its own process group (in ``cwd``), killed (group and all) past ``limit``."""
    argv = [sys.executable, "-m", "mcp_handbook.cli", "--root", str(root), *args]
    started = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=cwd)
    try:
        out, err = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"the audit did not finish within {limit} s")
    return Run(proc.returncode, out, err, time.monotonic() - started)


def hostile(name: str, *args: str) -> list[str]:
    return [sys.executable, str(HOSTILE / f"{name}.py"), *args]


def still_running(pidfile: Path, *, grace: float = 2.0) -> list[int]:
    """Pids from ``pidfile`` that are alive and not zombies (a killed orphan waits for init to reap it)."""
    pids = [int(p) for p in pidfile.read_text().split()] if pidfile.exists() else []
    deadline = time.monotonic() + grace
    while True:
        alive = [p for p in pids if _running(p)]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


def fake_corpus(root: Path, probes: dict[str, str]) -> Corpus:
    """A corpus of one automated high rule per probe name (``{rule_id: probe}``), for engine tests."""
    rules = tuple(
        Rule(
            id=rule_id, title=f"rule proved by {probe}", scope="universal", basis="security", threats=("CWE-20",), severity="high", gate="testing",
            check="automated", location=Location(f"content/rules/testing/{rule_id.lower()}.md", 1), body="", body_line=1,
            probe=probe,
        )
        for rule_id, probe in probes.items()
    )
    return Corpus(root=root, version="0.1.0", rules=rules, gates=(Gate("testing", "Testing", 1),))


def probe(name: str, fn, *, calls_tools: bool = False) -> Probe:
    return Probe(name, fn, f"fake probe {name}", calls_tools=calls_tools)


QUIRKS = Path(__file__).resolve().parent / "quirks"
LISTENING = "listening on "


@contextlib.contextmanager
def serving_http(argv: list[str], *, cwd: Path, wait: float = 30.0) -> Iterator[str]:
    """Start an HTTP server that prints ``listening on URL`` on stderr; yield the URL; stop its process group.

    The wait for the line is bounded; stderr is read on a thread, so a chatty server never blocks on a full pipe."""
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    found: list[str] = []
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        for line in proc.stderr:
            lines.append(line.rstrip("\n"))
            if LISTENING in line and not found:
                found.append(line.split(LISTENING, 1)[1].split()[0])
                ready.set()
        ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        if not ready.wait(wait) or not found:
            pytest.fail(f"{argv[1:3]} printed no `listening on URL` line within {wait} s: {lines[-5:]}")
        yield found[0]
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        reader.join(timeout=2)
