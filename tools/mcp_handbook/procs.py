"""Find and kill what a server under test left running, wherever it went (Linux ``/proc``; elsewhere nothing is found).

Killing a server's process group stops what stayed in the group. A process that left it (``setsid``, a daemon's
double fork) lives on, and if it still holds the server's stdout the reader waits for an end of file that never
comes. Such a process is known by what it carries from the server: one of the session's pipes among its open files,
or the audit's canary secret in its environment (every process a server starts inherits it unless it clears it).
And once the auditor is a *child subreaper* (:func:`become_subreaper`), every orphan of a server is re-parented to the
auditor instead of to init, so a dedicated auditor can also claim any child it did not start itself.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from dataclasses import dataclass

PR_SET_CHILD_SUBREAPER = 36
_subreaper = False


def become_subreaper() -> bool:
    """Make this process the reaper of every orphan among its descendants (Linux ``prctl``); False where it cannot."""
    global _subreaper
    if _subreaper:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        _subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        _subreaper = False
    return _subreaper


def is_subreaper() -> bool:
    return _subreaper


@dataclass(frozen=True, slots=True)
class Proc:
    """One process, as ``/proc/PID/stat`` shows it."""

    pid: int
    ppid: int
    pgid: int
    sid: int
    start: int
    """Start time in clock ticks since boot: with the pid, an identity that pid reuse cannot fake."""
    state: str
    command: str

    def describe(self) -> str:
        where = "in a session of its own" if self.sid == self.pid else f"in process group {self.pgid}"
        return f"pid {self.pid} ({self.command[:80]}), {where}"


def read(pid: int) -> Proc | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    name_end = stat.rfind(")")
    fields = stat[name_end + 2:].split()
    if len(fields) < 20:
        return None
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            command = f.read(4096).replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        command = ""
    command = command or stat[stat.find("(") + 1:name_end]
    return Proc(pid, int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19]), fields[0], command)


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def alive(proc: Proc) -> bool:
    now = read(proc.pid)
    return now is not None and now.start == proc.start and now.state not in ("Z", "X")


def pipe_links(*fds: int) -> frozenset[str]:
    """``pipe:[INODE]`` for each of this process's pipe fds, the form ``/proc/PID/fd/N`` links show."""
    links = set()
    for fd in fds:
        try:
            link = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if link.startswith("pipe:"):
            links.add(link)
    return frozenset(links)


def holding(links: frozenset[str]) -> list[Proc]:
    """Processes other than this one with any of these pipes open."""
    me = os.getpid()
    found: list[Proc] = []
    if not links:
        return found
    for pid in _pids():
        if pid == me:
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") in links:
                    proc = read(pid)
                    if proc is not None:
                        found.append(proc)
                    break
            except OSError:
                continue
    return found


def carrying(marker: str) -> list[Proc]:
    """Processes other than this one whose environment holds ``marker`` (the audit's canary secret)."""
    me, needle = os.getpid(), marker.encode()
    found: list[Proc] = []
    if not marker:
        return found
    for pid in _pids():
        if pid == me:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read(1 << 20)
        except OSError:
            continue
        if needle in env:
            proc = read(pid)
            if proc is not None and proc.state not in ("Z", "X"):
                found.append(proc)
    return found


def children() -> list[Proc]:
    """This process's children (with :func:`become_subreaper`, the orphans re-parented to it too)."""
    me = os.getpid()
    return [p for pid in _pids() if (p := read(pid)) is not None and p.ppid == me]


def marked(proc: Proc, marker: str) -> bool:
    try:
        with open(f"/proc/{proc.pid}/environ", "rb") as f:
            return marker.encode() in f.read(1 << 20)
    except OSError:
        return False


def kill(found: list[Proc], *, wait: float = 1.0) -> list[Proc]:
    """SIGKILL each process that is still the one found (same pid and start time), reap those that are this process's
    children, and return the ones that were killed."""
    killed = []
    for proc in found:
        if proc.pid == os.getpid() or not alive(proc):
            continue
        try:
            os.kill(proc.pid, signal.SIGKILL)
            killed.append(proc)
        except (ProcessLookupError, PermissionError):
            continue
    reap([p for p in killed if p.ppid == os.getpid() or is_subreaper()], wait=wait)
    return killed


def reap(found: list[Proc], *, wait: float = 1.0) -> None:
    """Collect the exit status of each of these processes that is this process's child, so none stays a zombie
    (those that are not its children are init's to reap)."""
    deadline = time.monotonic() + wait
    pending = list(found)
    while pending and time.monotonic() < deadline:
        for proc in list(pending):
            try:
                done, _status = os.waitpid(proc.pid, os.WNOHANG)
            except ChildProcessError:  # not this process's child (or already reaped): init reaps it
                done = proc.pid
            if done:
                pending.remove(proc)
        if pending:
            time.sleep(0.01)
