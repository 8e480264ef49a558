"""Reading a server's stdout and stderr without ever being stopped by them: one thread per stream reads lines to
the end, keeps a line too long to keep cut (:data:`MAX_LINE_BYTES`), parses stdout with a depth bound, and once
a stream floods, drains and drops the rest. What made stdout unreadable as protocol becomes the session's
``defect``; one line too long to read, its ``unreadable``.

Apart from :mod:`.wire` (starting, writing to, waiting on and stopping the server): :class:`StreamReading` is
the reading half of :class:`~.wire.WireSession`, which holds the state these methods fill."""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from .bounded_json import MAX_DEPTH, TooDeep
from .bounded_json import loads as bounded_loads
from .jsonrpc_client import Line, Message

MAX_LINE_BYTES = 8 * 1024 * 1024
"""Longest stdout line kept whole; longer lines are recorded truncated."""

MAX_CAPTURE_BYTES = 32 * 1024 * 1024
"""Bytes kept per stream (a line cut at MAX_LINE_BYTES counts what was kept); beyond it output is drained and
dropped (a flood)."""

MAX_CAPTURE_LINES = 200_000
"""Lines kept per stream; beyond it output is drained and dropped (a flood of short or empty lines)."""

FLOOD_LINES = 1000
"""Non-JSON stdout lines in a row, with no message between them, that make a flood rather than a banner or a log
line per request: past it nothing the server writes can be read as an answer."""

FLOOD_BYTES = 4 * 1024 * 1024
"""Non-JSON stdout bytes in a row that make a flood, whatever the lines' length."""

CHUNK = 65536

DRAIN_CHUNK = 1024 * 1024
"""Read size once a stream is flooded: what follows is only counted, so fewer, larger reads."""


@dataclass(slots=True)
class Capture:
    lines: list[Line] = field(default_factory=list)
    bytes_seen: int = 0
    """Every byte read, kept or not."""
    kept: int = 0
    """Bytes kept in ``lines``."""
    flooded: bool = False


NON_JSON = "the server wrote non-JSON to stdout"


def oversize_text(size: int) -> str:
    return (f"the server wrote a {size:,}-byte line, longer than the {MAX_LINE_BYTES:,} bytes the auditor reads as one "
            "message")


class StreamReading:
    """The readers of a session's two output streams; the session sets the state below before it starts them."""

    started: float
    _lock: threading.Condition
    _messages: deque[Message]
    _all: list[Message]
    _eof: dict[str, bool]
    _waiting: dict[str, bool]
    _garbage_at: float
    _garbage_why: str
    _last_out_at: float
    _garbage_run: tuple[int, int]
    _garbage_first: str
    defect: str
    unreadable: str

    def _pump(self, pipe: Any, name: str, cap: Capture) -> None:
        """Read one stream to its end. Nothing the server writes may end this thread early: a reader that died would
        leave the pipe full, the server blocked and every later wait to run out its timeout."""
        fd = pipe.fileno()
        try:
            self._read_lines(fd, name, cap)
        except BaseException as exc:  # noqa: BLE001 - a bug here must become a finding, not a silent dead thread
            with self._lock:
                if name == "stdout" and not self.defect:
                    self.defect = f"the auditor's reader of its stdout failed: {type(exc).__name__}: {exc}"
                self._lock.notify_all()
            self._drain(fd, name, cap)
        finally:
            with self._lock:
                self._eof[name] = True
                self._lock.notify_all()

    def _read_chunk(self, fd: int, name: str, size: int) -> bytes:
        """One read of the stream, marked as waiting while it blocks (what :meth:`settle` asks); b"" at its end."""
        with self._lock:
            self._waiting[name] = True
        try:
            return os.read(fd, size)
        except OSError:
            return b""
        finally:
            with self._lock:
                self._waiting[name] = False

    def _read_lines(self, fd: int, name: str, cap: Capture) -> None:
        pending = bytearray()
        pending_size = 0
        while not cap.flooded:
            chunk = self._read_chunk(fd, name, CHUNK)
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
        else:  # flooded: what follows is counted and dropped, never split into lines
            self._drain(fd, name, cap)
            return
        if pending_size:
            self._emit(name, cap, bytes(pending), pending_size, terminated=False)

    def _drain(self, fd: int, name: str, cap: Capture) -> None:
        """Read to the end and keep nothing, so a flooding server is never blocked on a full pipe (it would then
        hold whatever else it was doing) and the pipe closes when it exits."""
        while True:
            chunk = self._read_chunk(fd, name, DRAIN_CHUNK)
            with self._lock:
                cap.bytes_seen += len(chunk)
            if not chunk:
                return

    def _parse(self, data: bytes, size: int) -> tuple[Any, str]:
        """A stdout line's value and, when it has none, why: not JSON, too long to keep, or nested too deep."""
        if size > MAX_LINE_BYTES:
            return None, oversize_text(size)
        try:
            return bounded_loads(data), ""
        except TooDeep:
            return None, (f"the server wrote a JSON message nested more than {MAX_DEPTH} levels deep (a {size:,}-byte "
                          "line), deeper than the auditor reads as one message")
        except ValueError:
            return None, NON_JSON

    def _emit(self, name: str, cap: Capture, data: bytes, size: int, *, terminated: bool) -> None:
        at = time.monotonic() - self.started
        value, why = self._parse(data, size) if name == "stdout" else (None, "")  # outside the lock: a big line takes time
        with self._lock:
            cap.bytes_seen += size + 1  # the newline counts: a flood of empty lines is still a flood
            kept = min(size, MAX_LINE_BYTES) + 1
            if cap.kept + kept > MAX_CAPTURE_BYTES or len(cap.lines) >= MAX_CAPTURE_LINES:
                cap.flooded = True
                if name == "stdout" and not self.defect:
                    self.defect = (f"the server flooded stdout: more than {MAX_CAPTURE_BYTES // 2**20} MiB or "
                                   f"{MAX_CAPTURE_LINES:,} lines")
                self._lock.notify_all()
                return
            cap.kept += kept
            text = data.decode("utf-8", errors="replace")
            line = Line(name, text if size <= MAX_LINE_BYTES else text + " …[truncated]", size, at, terminated)
            cap.lines.append(line)
            if name == "stdout":
                msg = Message(line, value)
                self._last_out_at = at
                if why:
                    self._garbage_at, self._garbage_why = at, why
                    self._note_unreadable(why, text, size, terminated)
                else:
                    self._garbage_run = (0, 0)
                self._messages.append(msg)
                self._all.append(msg)
            self._lock.notify_all()

    def _note_unreadable(self, why: str, text: str, size: int, terminated: bool = True) -> None:
        """Keep what a stdout line that is not a message says about the session (the lock is held)."""
        if why != NON_JSON:
            if size > MAX_LINE_BYTES:
                self.unreadable = self.unreadable or why  # one line lost; the session reads on
            elif not self.defect:
                self.defect = why  # nested too deep: a client's reader dies on it
            return
        lines, size_run = self._garbage_run
        lines, size_run = lines + 1, size_run + size + 1
        self._garbage_run = (lines, size_run)
        if lines == 1:
            self._garbage_first = text[:80]
        # one long line is not a flood: a large answer cut short when its server was stopped mid-write (its last,
        # unterminated line) must not make every verdict of the session not believed
        if not self.defect and terminated and (lines > FLOOD_LINES or (lines > 1 and size_run > FLOOD_BYTES)):
            self.defect = (f"the server flooded stdout with non-JSON: {lines:,} lines ({size_run:,} bytes) in a row "
                           f"with no message between them (first: {self._garbage_first!r})")
