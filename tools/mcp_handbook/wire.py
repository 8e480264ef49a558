"""A raw stdio client for probing MCP servers: real pipes, timeouts, a transcript.

It speaks newline-delimited JSON-RPC by hand (no SDK), so that it can send
what a well-behaved client never would and record every byte the server
writes. It never waits without a deadline and never holds an unbounded line, and no output can kill its readers:
a line too long to keep is recorded cut, JSON nested too deep is refused (:mod:`.bounded_json`), a flood is drained
and dropped. What made the server's stdout unreadable is kept as the session's :attr:`WireSession.defect`, so every
wait ends at once with that cause instead of running out its own timeout.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import struct
import subprocess
import termios
import threading
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import procs
from .jsonrpc_client import JsonRpcClient, Line, Message, WireTimeout, with_request_meta
from .wire_reading import CHUNK, MAX_LINE_BYTES, Capture, StreamReading


INHERITED_IGNORES = (signal.SIGINT, signal.SIGQUIT)
"""Signals a shell ignores in the commands it runs in the background; a child inherits that, so a server started
from a background job (a CI step, ``cmd &``) would ignore Ctrl-C where a host's server would not."""


def _ignored_signals() -> bool:
    return any(signal.getsignal(s) == signal.SIG_IGN for s in INHERITED_IGNORES)


def _default_signals() -> None:
    """In the child, before exec: the default action for each signal a host's server starts with."""
    for s in INHERITED_IGNORES:
        signal.signal(s, signal.SIG_DFL)


class WireSession(StreamReading, JsonRpcClient):
    """A server process under test, spoken to over its real stdin/stdout."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: dict[str, str],
        pass_fds: Sequence[int] = (),
        marker: str | None = None,
    ) -> None:
        self.argv = list(argv)
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            self.argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            pass_fds=tuple(pass_fds),
            close_fds=True,
            preexec_fn=_default_signals if _ignored_signals() else None,
        )
        self.pid = self.proc.pid
        self._lock = threading.Condition()
        self._out = Capture()
        self._err = Capture()
        self._sent: list[Line] = []
        self._messages: deque[Message] = deque()
        self._all: list[Message] = []
        self._eof = {"stdout": False, "stderr": False}
        self._waiting = {"stdout": False, "stderr": False}
        """True while a reader is blocked in (or about to enter) ``read``: it holds no line it has not emitted."""
        self._garbage_at = 0.0
        self._garbage_why = ""
        self._last_out_at = 0.0
        self._garbage_run = (0, 0)
        """Non-JSON stdout lines and bytes since the last JSON value."""
        self._garbage_first = ""
        self.defect = ""
        """Why this session's stdout can no longer be read as protocol (a flood, JSON nested too deep, a reader that
        failed), in one sentence; "" while it can. Every wait on the session ends at once with it."""
        self.unreadable = ""
        """The first stdout line that could not be read at all (longer than MAX_LINE_BYTES); "" when none."""
        self.killed: list[procs.Proc] = []
        """Processes outside the server's process group that held its pipes and were killed when it closed."""
        self._pipes = procs.pipe_links(*(p.fileno() for p in (self.proc.stdin, self.proc.stdout, self.proc.stderr) if p))
        self.marker = marker
        """A string only this server's processes carry in their environment (the audit's canary), or None."""
        self._next_id = 0
        self.request_meta: dict[str, Any] | None = None
        """``params._meta`` added to every request that has none (the 2026-07-28 era); None in the handshake era."""
        self._readers = [
            threading.Thread(target=self._pump, args=(self.proc.stdout, "stdout", self._out), daemon=True),
            threading.Thread(target=self._pump, args=(self.proc.stderr, "stderr", self._err), daemon=True),
        ]
        for t in self._readers:
            t.start()

    # -- writing -----------------------------------------------------------
    def send_raw(self, data: bytes, *, timeout: float = 10.0) -> bool:
        """Write bytes to the server's stdin; False when the pipe is closed or the
        server stopped reading (a large write is done on a thread with a deadline,
        so a server that never reads cannot hang the caller)."""
        shown = data[:2000].decode("utf-8", errors="replace").rstrip("\n")
        if len(data) > 2000:
            shown += f" …[{len(data)} bytes]"
        with self._lock:
            self._sent.append(Line("stdin", shown, len(data), time.monotonic() - self.started))
        if len(data) <= CHUNK:
            return self._write(data)
        done: list[bool] = []
        writer = threading.Thread(target=lambda: done.append(self._write(data)), daemon=True)
        writer.start()
        writer.join(timeout)
        return bool(done and done[0])

    def _write(self, data: bytes) -> bool:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def send(self, message: dict[str, Any]) -> bool:
        message = with_request_meta(message, self.request_meta)
        return self.send_raw(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def wait_for_id(self, rid: Any, *, timeout: float = 5.0, garbage_grace: float = 0.3) -> dict[str, Any]:
        """Wait for the response with ``rid``.

        A server that has written non-JSON to stdout since the request was sent
        (the last line written to its stdin) and then gone quiet for
        ``garbage_grace`` seconds will not answer in a form a client can read:
        give up early rather than wait out the timeout. Counted from the send,
        not from the call: whether a fast server's garbage came before the wait
        began is a race, and the same server must read the same either way.
        """
        deadline = time.monotonic() + timeout
        with self._lock:
            began = min(time.monotonic() - self.started, self._sent[-1].at if self._sent else 0.0)
            while True:
                for msg in self._messages:
                    v = msg.value
                    if isinstance(v, dict) and v.get("id") == rid and ("result" in v or "error" in v):
                        self._messages.remove(msg)
                        return v
                if self.defect:
                    raise WireTimeout(f"no response to id {rid!r}: {self.defect}")
                if self._eof["stdout"] or self._out.flooded:
                    raise WireTimeout(f"no response to id {rid!r}: server {'flooded stdout' if self._out.flooded else 'closed stdout'}")
                now = time.monotonic()
                if self._garbage_at >= began and now - self.started - self._last_out_at >= garbage_grace:
                    raise WireTimeout(f"no parseable response to id {rid!r}: {self._garbage_why}")
                left = deadline - now
                if left <= 0:
                    raise WireTimeout(f"no response to id {rid!r} within {timeout:.1f}s")
                self._lock.wait(min(left, garbage_grace / 2))

    def wait_for(self, predicate: Any, *, timeout: float = 5.0) -> Message | None:
        """Wait for a stdout message matching predicate(value); None on timeout or EOF."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                for msg in self._messages:
                    if predicate(msg.value):
                        self._messages.remove(msg)
                        return msg
                left = deadline - time.monotonic()
                if left <= 0 or self._eof["stdout"] or self.defect:
                    return None
                self._lock.wait(left)

    def wait_stdout_lines(self, count: int, *, timeout: float) -> bool:
        """Wait until more than ``count`` stdout lines have been read, or stdout is closed or flooded; False on
        timeout. It wakes as soon as the line is in, where a poll would sleep out its interval."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while len(self._all) <= count and not self._eof["stdout"] and not self._out.flooded and not self.defect:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
        return True

    def initialize(self, *, version: str = "2025-11-25", timeout: float = 5.0) -> dict[str, Any]:
        """The legacy handshake: initialize, then notifications/initialized."""
        response = self.request(
            "initialize",
            {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "mcp-handbook-probe", "version": "1"}},
            timeout=timeout,
        )
        self.notify("notifications/initialized")
        return response

    # -- ending ------------------------------------------------------------
    def close(self, *, grace: float = 2.0) -> int | None:
        """Close stdin, wait, then SIGTERM, then SIGKILL the process group; return the exit code."""
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
        except OSError:
            pass
        code = self._wait(grace)
        if code is None:
            self.signal(signal.SIGTERM)
            code = self._wait(grace)
        if code is None:
            self.signal(signal.SIGKILL)
            code = self._wait(grace)
        self.kill_group()
        if not self.wait_eof(0.1, strict=True):  # a process outside the group holds the pipes: it would keep them open
            self.kill_holders()
        for t in self._readers:
            t.join(timeout=1.0)
        return code

    def kill_holders(self) -> list[procs.Proc]:
        """Kill every process that still holds this session's pipes once the server's group is gone (one that
        left the group: ``setsid``, a daemon), so the readers reach end of file and nothing outlives the session.
        A child of this process is killed only when it carries :attr:`marker` (another session's server being
        started holds copies of every pipe between its fork and its exec, and carries no marker yet)."""
        me = os.getpid()
        found = [p for p in procs.holding(self._pipes) if p.ppid != me or (self.marker and procs.marked(p, self.marker))]
        killed = procs.kill(found)
        with self._lock:
            self.killed += killed
        return killed

    def _wait(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def wait_exit(self, timeout: float) -> int | None:
        return self._wait(timeout)

    def signal(self, signum: int) -> None:
        try:
            os.kill(self.pid, signum)
        except ProcessLookupError:
            pass

    def kill_group(self) -> None:
        """Reap anything the server left behind in its process group."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def __enter__(self) -> WireSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(grace=0.5)

    # -- what was seen -----------------------------------------------------
    @property
    def stdout(self) -> list[Message]:
        with self._lock:
            return list(self._all)

    @property
    def stderr_lines(self) -> list[Line]:
        with self._lock:
            return list(self._err.lines)

    @property
    def stdout_flooded(self) -> bool:
        return self._out.flooded or self.defect.startswith("the server flooded stdout")

    def wait_stdout_eof(self, timeout: float) -> bool:
        return self.wait_eof(timeout, "stdout")

    def wait_eof(self, timeout: float, *streams: str, strict: bool = False) -> bool:
        """Wait until the named pipes (both when none is named) reach end of file, so every line the process
        wrote before it exited has been read: its exit does not mean its reader threads have caught up. Unless
        ``strict``, a pipe the exited server left to a process outside its group counts once all it holds is read."""
        names = streams or ("stdout", "stderr")
        deadline = time.monotonic() + timeout
        with self._lock:
            while not all(self._eof[name] for name in names):
                if not strict and self._drained(names):
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(min(left, 0.05))
        return True

    def _drained(self, names: Sequence[str]) -> bool:
        """The server has exited and its pipes hold nothing unread: whatever keeps them open is a process it left
        behind, not the server, so nothing more of the server's is coming (the lock is held)."""
        if self.proc.poll() is None:
            return False
        return all(self._eof[n] or (self._waiting[n] and self._unread(n) == 0) for n in names)

    def _unread(self, name: str) -> int:
        """Bytes written to the pipe that its reader has not taken yet (0 once it is closed)."""
        pipe = self.proc.stdout if name == "stdout" else self.proc.stderr
        if pipe is None:
            return 0
        try:
            return struct.unpack("i", fcntl.ioctl(pipe.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0]
        except (OSError, ValueError, AttributeError):
            return 0

    def settle(self, timeout: float = 2.0, *, quiet: float = 0.05) -> bool:
        """Wait until every line the server has written so far has been read: both pipes empty, both readers
        back in ``read``, and no new line for ``quiet`` seconds. A line's time is when it was read, not written,
        so a probe that splits stderr at a moment (before and after a signal) settles first. A server that is never
        quiet (a logger that writes without pause) has settled once six samples in a row found all it had written
        when the wait began read; a flooded stream is only drained, so it is settled too. False on timeout."""
        deadline = time.monotonic() + timeout
        streams = (("stdout", self._out), ("stderr", self._err))
        with self._lock:
            goal = {n: cap.bytes_seen + self._unread(n) for n, cap in streams}
        seen = None
        caught_in_a_row = 0
        while time.monotonic() < deadline:
            with self._lock:
                idle = {n: self._eof[n] or cap.flooded or (self._waiting[n] and self._unread(n) == 0) for n, cap in streams}
                caught = all(idle[n] or cap.bytes_seen >= goal[n] for n, cap in streams)
                count = (len(self._out.lines), len(self._err.lines))
            if all(idle.values()) and count == seen:
                return True
            caught_in_a_row = caught_in_a_row + 1 if caught else 0
            if caught_in_a_row >= 6:  # never quiet: what was written before the wait is read, the rest keeps coming
                return True
            seen = count if all(idle.values()) else None
            time.sleep(quiet)
        return False

    def transcript(self, *, limit: int = 60, skip: tuple[float, float] | None = None,
                   until: float = float("inf")) -> list[str]:
        """The last lines sent and received as ``>>>``/``<<<`` rows in time order, then the last stderr lines as
        ``err`` rows. stderr is a separate pipe whose lines race the protocol's, so it is not interleaved: the
        same exchange gives the same transcript every time. Its pipes are read to their end first (once the process
        has exited) or until they settle (while it runs). ``skip``: leave out the lines seen from ``skip[0]`` up to
        ``skip[1]`` seconds after the start, and ``until``: from then on (other probes' part of a shared session,
        :mod:`.audit.share`)."""
        if self.proc.poll() is not None:
            self.wait_eof(1.0)
        else:
            self.settle(1.0)
        gap = skip or (0.0, 0.0)
        keep = lambda ln: not gap[0] <= ln.at < gap[1] and ln.at < until  # noqa: E731
        with self._lock:
            protocol = sorted([ln for ln in [*self._sent, *self._out.lines] if keep(ln)], key=lambda ln: ln.at)[-limit:]
            err = [ln for ln in self._err.lines if keep(ln)][-max(limit // 3, 1):]
        marks = {"stdin": ">>>", "stdout": "<<<", "stderr": "err"}
        return [f"{marks[ln.stream]} {ln.text[:300]}{' …' if len(ln.text) > 300 else ''}" for ln in [*protocol, *err]]


__all__ = ["MAX_LINE_BYTES", "JsonRpcClient", "Line", "Message", "WireSession", "WireTimeout", "with_request_meta"]
"""What probes import from here: the session, and the records and limits it shares with the HTTP session."""
