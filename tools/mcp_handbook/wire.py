"""A raw stdio client for probing MCP servers: real pipes, timeouts, a transcript.

It speaks newline-delimited JSON-RPC by hand (no SDK), so that it can send
what a well-behaved client never would and record every byte the server
writes. It never waits without a deadline and never holds an unbounded line.
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_LINE_BYTES = 8 * 1024 * 1024
"""Longest stdout line kept whole; longer lines are recorded truncated."""
MAX_CAPTURE_BYTES = 32 * 1024 * 1024
"""Total stdout kept; beyond it output is drained and dropped (a flood)."""
MAX_CAPTURE_LINES = 200_000
"""Lines kept per stream; beyond it output is drained and dropped (a flood of short or empty lines)."""
CHUNK = 65536


INHERITED_IGNORES = (signal.SIGINT, signal.SIGQUIT)
"""Signals a shell ignores in the commands it runs in the background; a child inherits that, so a server started
from a background job (a CI step, ``cmd &``) would ignore Ctrl-C where a host's server would not."""


def _ignored_signals() -> bool:
    return any(signal.getsignal(s) == signal.SIG_IGN for s in INHERITED_IGNORES)


def _default_signals() -> None:
    """In the child, before exec: the default action for each signal a host's server starts with."""
    for s in INHERITED_IGNORES:
        signal.signal(s, signal.SIG_DFL)


@dataclass(frozen=True, slots=True)
class Line:
    """One line seen on a stream."""

    stream: str
    """``stdin`` (sent), ``stdout`` or ``stderr``."""
    text: str
    """The line, decoded leniently; truncated when very long."""
    size: int
    """Its real size in bytes, before truncation."""
    at: float
    """Seconds since the session started."""
    terminated: bool = True
    """It ended with a newline (the last fragment before EOF may not)."""


@dataclass(frozen=True, slots=True)
class Message:
    """A stdout line and what it parsed to (None when it is not JSON)."""

    line: Line
    value: Any


def with_request_meta(message: dict[str, Any], meta: dict[str, Any] | None) -> dict[str, Any]:
    """``message`` with ``meta`` as its ``params._meta`` when it is a request that carries none (a 2026-07-28 session
    puts its envelope on every request); unchanged otherwise, so a probe can still send a request without it."""
    if meta is None or "id" not in message or not isinstance(message.get("method"), str):
        return message
    params = message.get("params", {})
    if not isinstance(params, dict) or "_meta" in params:
        return message
    return {**message, "params": {**params, "_meta": meta}}


class WireTimeout(Exception):
    """The server did not answer within the deadline."""


@dataclass(slots=True)
class _Capture:
    lines: list[Line] = field(default_factory=list)
    bytes_seen: int = 0
    flooded: bool = False


class JsonRpcClient:
    """What a JSON-RPC client session does on top of its own ``send`` and ``wait_for_id``: number its requests,
    send notifications, and send a request and wait for its answer. The stdio session and the Streamable HTTP
    session (:class:`~mcp_handbook.probes.http_session.HttpSession`) share it."""

    _next_id: int

    def send(self, message: dict[str, Any]) -> bool:
        raise NotImplementedError

    def wait_for_id(self, rid: Any, *, timeout: float = 5.0, garbage_grace: float = 0.3) -> dict[str, Any]:
        raise NotImplementedError

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def notify(self, method: str, params: dict[str, Any] | None = None) -> bool:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        return self.send(msg)

    def request(self, method: str, params: dict[str, Any] | None = None, *, timeout: float = 5.0) -> dict[str, Any]:
        """Send a request and wait for the response with its id; raise WireTimeout."""
        rid = self.new_id()
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.wait_for_id(rid, timeout=timeout)


class WireSession(JsonRpcClient):
    """A server process under test, spoken to over its real stdin/stdout."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: dict[str, str],
        pass_fds: Sequence[int] = (),
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
        self._out = _Capture()
        self._err = _Capture()
        self._sent: list[Line] = []
        self._messages: deque[Message] = deque()
        self._all: list[Message] = []
        self._eof = {"stdout": False, "stderr": False}
        self._waiting = {"stdout": False, "stderr": False}
        """True while a reader is blocked in (or about to enter) ``read``: it holds no line it has not emitted."""
        self._garbage_at = 0.0
        self._last_out_at = 0.0
        self._next_id = 0
        self.request_meta: dict[str, Any] | None = None
        """``params._meta`` added to every request that has none (the 2026-07-28 era); None in the handshake era."""
        self._readers = [
            threading.Thread(target=self._pump, args=(self.proc.stdout, "stdout", self._out), daemon=True),
            threading.Thread(target=self._pump, args=(self.proc.stderr, "stderr", self._err), daemon=True),
        ]
        for t in self._readers:
            t.start()

    # -- reading -----------------------------------------------------------
    def _pump(self, pipe: Any, name: str, cap: _Capture) -> None:
        fd = pipe.fileno()
        pending = bytearray()
        pending_size = 0
        while True:
            with self._lock:
                self._waiting[name] = True
            try:
                chunk = os.read(fd, CHUNK)
            except OSError:
                chunk = b""
            with self._lock:
                self._waiting[name] = False
            if not chunk:
                break
            start = 0
            while True:
                nl = chunk.find(b"\n", start)
                piece = chunk[start:] if nl < 0 else chunk[start:nl]
                pending_size += len(piece)
                room = MAX_LINE_BYTES - len(pending)
                if room > 0:
                    pending += piece[:room]
                if nl < 0:
                    break
                self._emit(name, cap, bytes(pending), pending_size, terminated=True)
                pending.clear()
                pending_size = 0
                start = nl + 1
        if pending_size:
            self._emit(name, cap, bytes(pending), pending_size, terminated=False)
        with self._lock:
            self._eof[name] = True
            self._lock.notify_all()

    def _emit(self, name: str, cap: _Capture, data: bytes, size: int, *, terminated: bool) -> None:
        at = time.monotonic() - self.started
        with self._lock:
            cap.bytes_seen += size + 1  # the newline counts: a flood of empty lines is still a flood
            if cap.bytes_seen > MAX_CAPTURE_BYTES or len(cap.lines) >= MAX_CAPTURE_LINES:
                cap.flooded = True
                self._lock.notify_all()
                return
            text = data.decode("utf-8", errors="replace")
            line = Line(name, text if size <= MAX_LINE_BYTES else text + " …[truncated]", size, at, terminated)
            cap.lines.append(line)
            if name == "stdout":
                try:
                    value = json.loads(data) if size <= MAX_LINE_BYTES else None
                except ValueError:
                    value = None
                msg = Message(line, value)
                self._last_out_at = at
                if value is None:
                    self._garbage_at = at
                self._messages.append(msg)
                self._all.append(msg)
            self._lock.notify_all()

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

        A server that has written non-JSON to stdout since the wait began and
        then gone quiet for ``garbage_grace`` seconds will not answer in a form
        a client can read: give up early rather than wait out the timeout.
        """
        began = time.monotonic() - self.started
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                for msg in self._messages:
                    v = msg.value
                    if isinstance(v, dict) and v.get("id") == rid and ("result" in v or "error" in v):
                        self._messages.remove(msg)
                        return v
                if self._eof["stdout"] or self._out.flooded:
                    raise WireTimeout(f"no response to id {rid!r}: server {'flooded stdout' if self._out.flooded else 'closed stdout'}")
                now = time.monotonic()
                if self._garbage_at >= began and now - self.started - self._last_out_at >= garbage_grace:
                    raise WireTimeout(f"no parseable response to id {rid!r}: the server wrote non-JSON to stdout")
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
                if left <= 0 or self._eof["stdout"]:
                    return None
                self._lock.wait(left)

    def wait_stdout_lines(self, count: int, *, timeout: float) -> bool:
        """Wait until more than ``count`` stdout lines have been read, or stdout is closed or flooded; False on
        timeout. It wakes as soon as the line is in, where a poll would sleep out its interval."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while len(self._all) <= count and not self._eof["stdout"] and not self._out.flooded:
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
        for t in self._readers:
            t.join(timeout=1.0)
        return code

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
        return self._out.flooded

    def wait_stdout_eof(self, timeout: float) -> bool:
        return self.wait_eof(timeout, "stdout")

    def wait_eof(self, timeout: float, *streams: str) -> bool:
        """Wait until the named pipes (both when none is named) reach end of file, so every line the process
        wrote before it exited has been read: its exit does not mean its reader threads have caught up."""
        names = streams or ("stdout", "stderr")
        deadline = time.monotonic() + timeout
        with self._lock:
            while not all(self._eof[name] for name in names):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
        return True

    def _unread(self, name: str) -> int:
        """Bytes written to the pipe that its reader has not taken yet (0 once it is closed)."""
        pipe = self.proc.stdout if name == "stdout" else self.proc.stderr
        try:
            return struct.unpack("i", fcntl.ioctl(pipe.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0]
        except (OSError, ValueError, AttributeError):
            return 0

    def settle(self, timeout: float = 2.0, *, quiet: float = 0.05) -> bool:
        """Wait until every line the server has written so far has been read: both pipes empty, both readers
        back in ``read``, and no new line for ``quiet`` seconds. A line's time is when it was read, not written,
        so a probe that splits stderr at a moment (before and after a signal) settles first. False on timeout."""
        deadline = time.monotonic() + timeout
        seen = None
        while time.monotonic() < deadline:
            with self._lock:
                idle = all(self._eof[n] or (self._waiting[n] and self._unread(n) == 0) for n in ("stdout", "stderr"))
                count = (len(self._out.lines), len(self._err.lines))
            if idle and count == seen:
                return True
            seen = count if idle else None
            time.sleep(quiet)
        return False

    def transcript(self, *, limit: int = 60) -> list[str]:
        """The last lines sent and received as ``>>>``/``<<<`` rows in time order, then the last stderr lines as
        ``err`` rows. stderr is a separate pipe whose lines race the protocol's, so it is not interleaved: the
        same exchange gives the same transcript every time. Its pipes are read to their end first (once the process
        has exited) or until they settle (while it runs)."""
        if self.proc.poll() is not None:
            self.wait_eof(1.0)
        else:
            self.settle(1.0)
        with self._lock:
            protocol = sorted([*self._sent, *self._out.lines], key=lambda ln: ln.at)[-limit:]
            err = list(self._err.lines)[-max(limit // 3, 1):]
        marks = {"stdin": ">>>", "stdout": "<<<", "stderr": "err"}
        return [f"{marks[ln.stream]} {ln.text[:300]}{' …' if len(ln.text) > 300 else ''}" for ln in [*protocol, *err]]
