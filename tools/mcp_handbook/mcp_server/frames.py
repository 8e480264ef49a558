"""The stdio frame layer the SDK's own reader lacks: a cap on each line, and an answer to every bad one.

``mcp.server.stdio.stdio_server`` reads lines of any length and drops a line it cannot parse without a word, so a
client with a serialiser bug waits for ever (ERR-007) and one huge line is held whole in memory (TRN-002). Its
``stdin``/``stdout`` parameters let a server supply both streams, so this module sits in front of it: it reads the
pipe itself, caps every line at :data:`MAX_FRAME_BYTES` (drained to its end, answered -32600), answers a line that is
not JSON with -32700 and JSON that is not a message with -32600 (with the message's own id when it has a valid
one, else null), and passes every good line on unchanged. Its answers and the SDK's go through one writer that
writes whole lines under a lock, so they never interleave.
"""

from __future__ import annotations

import json
import os
import queue
import threading
from typing import Any, BinaryIO

import anyio
import anyio.to_thread

MAX_FRAME_BYTES = 1024 * 1024
"""The largest line read: 1 MiB, far above any request this server takes (a tool definition to check)."""
MAX_ID_INT = 2**53 - 1
PARSE_ERROR, INVALID_REQUEST = -32700, -32600
_SIMPLE_ID = (str, int)


class LineWriter:
    """What the SDK's stdout writer calls (``await write(text)``, ``await flush()``), shared with :class:`FrameReader`:
    each line is written and flushed whole under one lock."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._lock = threading.Lock()

    def _write(self, text: str) -> None:
        with self._lock:
            self._out.write(text.encode("utf-8", errors="replace"))
            self._out.flush()

    async def write(self, text: str) -> None:
        await anyio.to_thread.run_sync(self._write, text)

    async def flush(self) -> None:
        """Every write is flushed already."""

    def send(self, message: dict[str, Any]) -> None:
        self._write(json.dumps(message, separators=(",", ":")) + "\n")


def _error(rid: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def _readable_id(value: Any) -> Any:
    """The message's id when a client could match it (a string, or an integer a double holds exactly), else None."""
    if isinstance(value, bool) or not isinstance(value, _SIMPLE_ID):
        return None
    if isinstance(value, int) and abs(value) > MAX_ID_INT:
        return None
    if isinstance(value, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        return None
    return value


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def judge(line: bytes) -> tuple[str | None, dict[str, Any] | None]:
    """``(text to pass on, None)`` for a line worth giving the SDK, else ``(None, the error answer)``."""
    if line.startswith(b"\xef\xbb\xbf"):
        line = line[3:]
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, _error(None, PARSE_ERROR, f"Parse error: the line is not UTF-8 (byte {exc.start})")
    try:
        message = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        return None, _error(None, PARSE_ERROR, f"Parse error: {str(exc)[:120]}")
    if not isinstance(message, dict):
        kind = "an array (batches are not accepted)" if isinstance(message, list) else type(message).__name__
        return None, _error(None, INVALID_REQUEST, f"Invalid Request: a message is a JSON object, not {kind}")
    rid = _readable_id(message.get("id"))
    if message.get("jsonrpc") != "2.0":
        return None, _error(rid, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    if "method" in message:
        if not isinstance(message["method"], str) or not message["method"]:
            return None, _error(rid, INVALID_REQUEST, 'Invalid Request: "method" must be a non-empty string')
        if "params" in message and not isinstance(message["params"], dict):
            return None, _error(rid, INVALID_REQUEST, 'Invalid Request: "params" must be an object')
        if "id" in message and rid is None:
            return None, _error(None, INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer')
    elif not ("result" in message or "error" in message):
        return None, _error(rid, INVALID_REQUEST, 'Invalid Request: a request needs "method"')
    return text, None


class FrameReader:
    """The SDK's stdin (``async for line in stdin``): good lines only, each bad one answered on ``writer``.

    The pipe is read on a daemon thread of its own, so a process that has finished is never kept alive by a read
    still waiting for input (anyio's worker threads are not daemons: a blocked ``readline`` on one of them would hold
    the exit). :meth:`stop` ends the stream as EOF would: the signal handler's way of taking no more requests."""

    def __init__(self, raw: BinaryIO, writer: LineWriter, cap: int = MAX_FRAME_BYTES) -> None:
        self._raw = raw
        self._writer = writer
        self._cap = cap
        self._lines: queue.Queue[str | None] = queue.Queue(maxsize=64)
        self._thread: threading.Thread | None = None

    def stop(self) -> None:
        self._lines.put(None)

    def _read_line(self) -> bytes | None:
        """The next non-blank line, or None at EOF. An over-cap line is drained and answered here."""
        while True:
            line = self._raw.readline(self._cap + 1)
            if not line:
                return None
            if len(line) > self._cap and not line.endswith(b"\n"):
                while True:  # drain the rest of the line without keeping it
                    rest = self._raw.readline(self._cap)
                    if not rest or rest.endswith(b"\n"):
                        break
                self._writer.send(_error(None, INVALID_REQUEST,
                                         f"Invalid Request: the line is over the {self._cap:,}-byte cap and was not read"))
                continue
            line = line.rstrip(b"\r\n")
            if line.strip():
                return line

    def _pump(self) -> None:
        try:
            while (line := self._read_line()) is not None:
                text, answer = judge(line)
                if answer is not None:
                    self._writer.send(answer)
                elif text is not None:  # judge() gives one of the two
                    self._lines.put(text + "\n")
        except (OSError, ValueError):
            pass  # the pipe went away: the same as EOF
        self._lines.put(None)

    def __aiter__(self) -> FrameReader:
        if self._thread is None:
            self._thread = threading.Thread(target=self._pump, name="stdin-frames", daemon=True)
            self._thread.start()
        return self

    async def __anext__(self) -> str:
        text = await anyio.to_thread.run_sync(self._lines.get)
        if text is None:
            self._lines.put(None)  # every later read sees EOF too
            raise StopAsyncIteration
        return text


def claim_stdio() -> tuple[BinaryIO, BinaryIO]:
    """Private copies of the pipe's two ends; fd 0 then reads the null device and fd 1 goes to stderr, so nothing
    else in the process (a stray print, a child) can read a request or write into the protocol stream. The SDK does
    the same when it opens the pipe itself; given streams, it leaves that to the server."""
    stdin = os.fdopen(os.dup(0), "rb")
    stdout = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return stdin, stdout
