"""The children a server starts, seen from outside in Linux ``/proc``: sampled while a call runs (:class:`ChildWatch`),
each with the program it ran and its environment, so a probe can tell what a server hands the programs it runs.
A child that is the server's own interpreter in a worker, or one of the probes' own shims, is not counted.

Apart from :mod:`._common` (calls and arguments several security probes share): only the child-process probes
read ``/proc``."""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ._shims import PathShims, ShimRecord

PROC = Path("/proc")
SAMPLE_EVERY = 0.03
"""Seconds between two looks at the server's processes while a call runs."""
MAX_SAMPLES = 400
"""Looks per call at most, whatever the wait (400 x 30 ms is 12 s)."""
_OWN_HELPERS = re.compile(r"multiprocessing|spawn_main|resource_tracker|forkserver")
"""A child running the server's own interpreter for these is the server's own code in a worker, not a program it
hands its environment to."""


@dataclass(frozen=True, slots=True)
class Child:
    """A process the server started during a call, as ``/proc`` showed it once it ran its own program."""

    pid: int
    argv: tuple[str, ...]
    environ: dict[str, str]
    during: str
    """The call it appeared during."""
    raw: bytes
    """Its whole environment block, to look for the canary in names and values alike."""
    seen_by: str = "/proc"
    """How it was seen: ``/proc`` (a look while it ran) or ``PATH stand-in`` (:mod:`._shims`, exact)."""


def proc_available() -> bool:
    """True where the environments of processes can be read from ``/proc/<pid>/environ`` (Linux)."""
    return (PROC / "self" / "environ").is_file()


def _stat(pid: str) -> tuple[int, int, int, str] | None:
    """``(ppid, process group, session, state)`` of a process; None when it is gone."""
    try:
        text = (PROC / pid / "stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[-1].split()
    try:
        return int(fields[1]), int(fields[2]), int(fields[3]), fields[0]
    except (IndexError, ValueError):
        return None


def descendants(root: int) -> dict[int, int]:
    """``pid -> ppid`` for every live process below ``root``: in its process group or session (the server is
    started in a session of its own), or with ``root`` up its parent chain (a child that started its own)."""
    parents: dict[int, int] = {}
    found: set[int] = set()
    try:
        entries = [e.name for e in os.scandir(PROC) if e.name.isdigit()]
    except OSError:
        return {}
    for name in entries:
        stat = _stat(name)
        if stat is None or stat[3] in ("Z", "X"):
            continue
        pid, (ppid, group, session, _) = int(name), stat
        parents[pid] = ppid
        if root in (group, session):
            found.add(pid)
    for pid, up in parents.items():
        for _ in range(64):  # a parent chain is short; the bound only guards against a cycle in a racing read
            if up == root:
                found.add(pid)
                break
            if up <= 1 or up not in parents:
                break
            up = parents[up]
    found.discard(root)
    return {pid: parents[pid] for pid in found}


def _read(pid: int, name: str) -> bytes:
    try:
        return (PROC / str(pid) / name).read_bytes()
    except OSError:
        return b""


def _program(pid: int) -> tuple[bytes, str]:
    try:
        exe = os.readlink(PROC / str(pid) / "exe")
    except OSError:
        exe = ""
    return _read(pid, "cmdline"), exe


def _shim(pid: int, shims: PathShims) -> bool:
    """True while ``pid`` still runs a stand-in (it records itself; once it runs the real program it is read)."""
    return str(shims.folder).encode() in _read(pid, "cmdline")


class ChildWatch:
    """The processes a server starts while calls run, with the environment each was given.

    Two ways of seeing, one record per pid: the stand-ins of :class:`~._shims.PathShims` (when given) record every
    program the server starts by name, however short-lived, with the exact environment it got; looks at ``/proc``
    every :data:`SAMPLE_EVERY` seconds also catch a program started by absolute path, if it runs long enough. Only
    processes that appear during a call count (a launcher such as ``npx`` or ``uv run`` and the server under
    it exist before, and their environments hold the canary by design). A process is read once it runs a program
    of its own: right after a fork, before its exec, it still shows its parent's environment and command line,
    and a fork that never execs (a worker of the server's own) is the server itself."""

    def __init__(self, shims: PathShims | None = None) -> None:
        self.children: dict[int, Child] = {}
        self.calls = 0
        self.shims = shims

    @contextlib.contextmanager
    def during(self, root: int, label: str, *, limit: float) -> Iterator[None]:
        """Look at ``root``'s new descendants until the block ends (at most ``limit`` seconds of looking), and take
        what the stand-ins recorded meanwhile."""
        mark = self.shims.mark() if self.shims else 0
        try:
            with self._looking(root, label, limit=limit):
                yield
        finally:
            if self.shims:
                self._recorded(self.shims.since(mark), label)

    def _recorded(self, records: list[ShimRecord], label: str) -> None:
        """What the stand-ins saw replaces what ``/proc`` showed of the same pid (it saw the start itself)."""
        for record in records:
            raw = b"\0".join(f"{k}={v}".encode("utf-8", "surrogateescape") for k, v in record.environ.items())
            self.children[record.pid] = Child(record.pid, record.argv, record.environ, label, raw, "PATH stand-in")

    @contextlib.contextmanager
    def _looking(self, root: int, label: str, *, limit: float) -> Iterator[None]:
        if not proc_available():
            self.calls += 1
            yield
            return
        before = set(descendants(root))
        stop = threading.Event()

        def look() -> None:
            for _ in range(min(MAX_SAMPLES, int(limit / SAMPLE_EVERY) + 1)):
                self._sample(root, before, label)
                if stop.wait(SAMPLE_EVERY):
                    return

        watcher = threading.Thread(target=look, daemon=True)
        watcher.start()
        self.calls += 1
        try:
            yield
        finally:
            stop.set()
            watcher.join(timeout=2.0)
            self._sample(root, before, label)

    def _sample(self, root: int, before: set[int], label: str) -> None:
        for pid, ppid in descendants(root).items():
            if pid in before or pid in self.children or (self.shims and _shim(pid, self.shims)):
                continue
            cmdline, exe = _program(pid)
            if not cmdline or (cmdline, exe) == _program(ppid):
                continue  # not yet exec'd (or a fork of its parent's own program): look again next time
            argv = tuple(part.decode("utf-8", "replace") for part in cmdline.rstrip(b"\0").split(b"\0"))
            if _OWN_HELPERS.search(" ".join(argv)) and exe == _program(ppid)[1]:
                continue
            raw = _read(pid, "environ")
            if not raw:
                continue  # gone, or not ours to read
            environ: dict[str, str] = {}
            for entry in raw.split(b"\0"):
                name, sep, value = entry.decode("utf-8", "replace").partition("=")
                if sep:
                    environ.setdefault(name, value)
            self.children[pid] = Child(pid, argv, environ, label, raw)
