"""The live servers a shared lane reads from: one per era, started in a host target's workspace when a reader
first needs it, opened once (``initialize``, or the 2026-07-28 envelope), and retired (killed; the next reader
gets a fresh one in a fresh workspace) when a probe's request went unanswered, a probe was stopped, or the
workspace differs from what it was when the server started.

Apart from :mod:`.share`, whose :class:`~.share.SessionView` is a probe's window on these servers and decides
what a probe may send to them."""

from __future__ import annotations

import hashlib
import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..probes.support import LATEST_LEGACY, WireTimeout
from ..wire import WireSession
from .target import AuditTarget

SNAPSHOT_LIMIT = 5000
"""Entries of the workspace compared after each shared probe; a larger tree is not compared (and not shared)."""


HASHED_UP_TO = 1 << 20
"""Files up to this size are compared by content, larger ones by modification time."""
HASH_BUDGET = 32 << 20
"""Bytes read for one snapshot at most: past them, files are compared by modification time, so a server that
fills its workspace costs the audit a bounded read after each shared probe (the same tree reads the same files)."""

Entry = tuple[str, str, int]
"""(path, what it is, size): ``what`` is a regular file's content digest (or modification time when it is large), a
link's target, ``dir`` for a folder (its entries are entries of their own)."""


def snapshot(folder: Path) -> frozenset[Entry] | None:
    """Every path under ``folder`` with what it holds, or None when there are too many. A file rewritten with the
    same bytes is unchanged (``git status`` rewrites ``.git/index`` unchanged, and a folder's time moves when a lock
    file comes and goes): what a probe can meet is the tree's content, not its times."""
    seen: set[Entry] = set()
    budget = [HASH_BUDGET]
    for base, dirs, files in os.walk(folder):
        dirs.sort()
        for name in [*dirs, *sorted(files)]:
            path = os.path.join(base, name)
            try:
                seen.add((os.path.relpath(path, folder), *_held(path, budget)))
            except OSError:
                continue
            if len(seen) > SNAPSHOT_LIMIT:
                return None
    return frozenset(seen)


def _held(path: str, budget: list[int]) -> tuple[str, int]:
    """What ``path`` holds; ``budget`` is what is left of the bytes this snapshot may read."""
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return "link:" + os.readlink(path), 0
    if stat.S_ISDIR(st.st_mode):
        return "dir", 0
    if not stat.S_ISREG(st.st_mode) or st.st_size > min(HASHED_UP_TO, budget[0]):
        return f"mtime:{st.st_mtime_ns}:{st.st_mode:o}", st.st_size
    budget[0] -= st.st_size
    with open(path, "rb", opener=lambda p, flags: os.open(p, flags | os.O_NONBLOCK | os.O_NOFOLLOW)) as f:
        return "sha256:" + hashlib.sha256(f.read(HASHED_UP_TO + 1)).hexdigest(), st.st_size


@dataclass(slots=True)
class LiveServer:
    """One shared server of one era and what a view needs of it."""

    session: WireSession
    era: str
    """``handshake`` (opened with ``initialize``) or ``modern`` (every request carries its own ``_meta``)."""
    version: str = ""
    opening: dict[str, Any] | None = None
    """The answer to the shared ``initialize`` (the handshake era), once it came."""
    opened_at: float = 0.0
    """Seconds after the session's start when the opening exchange was over: what came before is every view's."""
    answered: bool = False
    """It has answered once (its start-up is over): a first answer gets :attr:`SharedServers.first_answer` waits."""


@dataclass(slots=True)
class SharedServers:
    """The live shared servers of an audit (one per era, started when a reader first needs it) and their host
    target, whose workspace every shared probe is given."""

    make_host: Callable[[], AuditTarget]
    """A fresh target (its own workspace) to start a shared server in; the engine's, so the sweep sees it."""
    host: AuditTarget | None = None
    live: dict[str, LiveServer] = field(default_factory=dict)
    baseline: frozenset[Entry] | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)
    known: dict[str, bool] = field(default_factory=dict)
    """The preflight's listing: tool name -> read-only (:func:`~.guard.listed_tools`)."""
    next_id: int = 1
    used: set[Any] = field(default_factory=set)
    """Every request id sent on the shared servers: an id is never sent twice, so no answer is taken for another's."""
    first_answer: float = 1.0
    """How many waits a shared server gets to answer for the first time (the engine's ``FIRST_ANSWER``)."""
    retired: list[str] = field(default_factory=list)
    """Why each shared server was retired, for the benchmark and the curious."""

    def current_host(self) -> AuditTarget:
        with self.lock:
            if self.host is None:
                self.host = self.make_host()
            return self.host

    def new_id(self) -> int:
        with self.lock:
            self.next_id += 1
            return self.next_id

    def open_before(self, era: str, *, timeout: float) -> None:
        """Open the era's shared server, and note the workspace it started with, before a reader's own code runs: a
        reader that plants a file and then opens its session must not have its plant taken for the start-up's. A
        server that does not answer is retired here; the reader then meets a fresh one, as it would have."""
        try:
            self.opened(era, timeout=timeout)
        except WireTimeout:
            pass

    def start_ahead(self) -> None:
        """Start the handshake-era server and send its ``initialize`` now, while other probes run."""
        self._server("handshake")

    def _server(self, era: str) -> LiveServer:
        with self.lock:
            live = self.live.get(era)
            if live is not None:
                return live
            host = self.current_host()
            session = host.start()
            live = LiveServer(session, era)
            if era == "handshake":
                live.version = LATEST_LEGACY
                session.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": LATEST_LEGACY, "capabilities": {},
                    "clientInfo": {"name": "mcp-handbook-probe", "version": "1"}}})
            else:
                live.opened_at = 0.0  # nothing is sent before the first view's own server/discover
            self.live[era] = live
            self.used.add(1)
            return live

    def opened(self, era: str, *, timeout: float) -> LiveServer:
        """The era's shared server, its opening answered (raise WireTimeout, and retire it, when it is not)."""
        live = self._server(era)
        if era != "handshake":
            self._note_baseline()
            return live
        if live.opening is None:
            try:
                response = live.session.wait_for_id(1, timeout=timeout * self.first_answer)
            except WireTimeout:
                self.retire("it did not answer initialize")
                raise
            with self.lock:
                if live.opening is None:
                    live.session.notify("notifications/initialized")
                    live.opening, live.answered = response, True
                    live.opened_at = time.monotonic() - live.session.started
        self._note_baseline()
        return live

    def _note_baseline(self) -> None:
        with self.lock:
            if self.baseline is None and self.host is not None:
                self.baseline = snapshot(self.host.workspace)

    def check_workspace(self) -> None:
        """After a shared probe: a workspace that is not as it was when the server had started means the probe (or
        the server answering it) changed something the next probe could meet; retire the server."""
        with self.lock:
            if self.host is None or self.baseline is None:
                return
            now = snapshot(self.host.workspace)
            if now is None or now != self.baseline:
                self.retire("the workspace changed during a shared probe")

    def retire(self, why: str) -> None:
        """Kill the shared servers; the next reader starts a fresh one in a fresh workspace."""
        with self.lock:
            host, self.host, self.live, self.baseline, self.used = self.host, None, {}, None, set()
            if host is not None:
                self.retired.append(why)
        if host is not None:
            host.kill()

    def close(self) -> None:
        """The end of the audit: wind the shared servers down as a probe's would be."""
        with self.lock:
            host, self.host, self.live = self.host, None, {}
        if host is not None:
            host.wind_down()
