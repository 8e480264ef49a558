"""One POST's reply on Streamable HTTP: a JSON body, or an SSE stream that ends with the answer.

Why "the first message decides": a request answered at once gets
``application/json``; one that produces notifications first (progress, log
messages) opens ``text/event-stream``, so they reach the client before its
answer on the stream of the request they belong to. Both revisions let the
server choose per request (2025-11-25 and 2026-07-28 basic/transports, Streamable
HTTP, *Sending Messages*: the server MUST return one or the other). Messages may
come from any thread (the handler's, a tool worker's); only the handler's thread
writes to the socket.
"""
from __future__ import annotations

import queue
import select
import socket
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol

    class Writer(Protocol):
        """What an exchange needs of the HTTP handler that owns the connection."""

        connection: socket.socket

        def write_json(self, status: int, message: dict[str, Any]) -> None: ...

        def start_stream(self) -> None: ...

        def write_chunk(self, data: bytes) -> None: ...

        def end_stream(self) -> None: ...

        def encode(self, message: dict[str, Any]) -> bytes: ...

KEEPALIVE_SECONDS = 15.0  # an SSE comment after this much silence keeps proxies from closing the stream
POLL_SECONDS = 0.25  # how often a waiting exchange checks that its client is still connected
LONGEST_ANSWER_SECONDS = 300.0  # bound on the wait for a request's answer (the slowest tool takes 30 s)
_ABANDONED = object()


def sse_event(line: bytes) -> bytes:
    """One SSE ``message`` event for a JSON-RPC message encoded as one line (JSON escapes every newline)."""
    return b"event: message\ndata: " + line.rstrip(b"\n") + b"\n\n"


class Exchange:
    """The reply channel of one HTTP request: ``send`` from any thread, ``deliver`` on the handler's."""

    def __init__(self, writer: Writer, request_id: Any, *, status_for: Callable[[dict[str, Any]], int],
                 on_disconnect: Callable[[], None] | None = None) -> None:
        self._writer = writer
        self._request_id = request_id
        self._status_for = status_for
        self._on_disconnect = on_disconnect
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._open = True
        self._streaming = False
        self.client_left = False

    def send(self, message: dict[str, Any]) -> None:
        """A notification for this request, or its answer; dropped once the exchange is over."""
        if self._open:
            self._queue.put(message)

    def abandon(self) -> None:
        """The request will get no answer (it was cancelled): end the reply without one."""
        self._queue.put(_ABANDONED)

    def deliver(self) -> None:
        """Write what the request produces until its answer, its abandonment, or the client leaving."""
        started = last_write = time.monotonic()
        try:
            while True:
                try:
                    item = self._queue.get(timeout=POLL_SECONDS)
                except queue.Empty:
                    now = time.monotonic()
                    if self._client_gone():
                        self._disconnected()
                        return
                    if now - started > LONGEST_ANSWER_SECONDS:
                        self._answer({"jsonrpc": "2.0", "id": self._request_id, "error": {
                            "code": -32603, "message": f"Internal error: no answer within {LONGEST_ANSWER_SECONDS:.0f} s"}})
                        return
                    if now - last_write >= KEEPALIVE_SECONDS:
                        self._stream(b": keep-alive\n\n")
                        last_write = now
                    continue
                if item is _ABANDONED:
                    if not self._streaming:
                        self._writer.start_stream()
                    self._writer.end_stream()  # an SSE stream that ends without an answer: nothing follows
                    return
                if "method" in item:
                    self._stream(sse_event(self._writer.encode(item)))
                    last_write = time.monotonic()
                    continue
                self._answer(item)
                return
        except OSError:  # the client went away while we wrote
            self._disconnected()
        finally:
            self._open = False

    def _answer(self, message: dict[str, Any]) -> None:
        if self._streaming:
            self._writer.write_chunk(sse_event(self._writer.encode(message)))
            self._writer.end_stream()
        else:
            self._writer.write_json(self._status_for(message), message)

    def _stream(self, data: bytes) -> None:
        if not self._streaming:
            self._writer.start_stream()
            self._streaming = True
        self._writer.write_chunk(data)

    def _client_gone(self) -> bool:
        """True when the client closed its end (a peek reads end-of-file); pipelined bytes are not a close."""
        sock = self._writer.connection
        try:
            readable, _, _ = select.select([sock], [], [], 0)
            return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def _disconnected(self) -> None:
        self._open = False
        self.client_left = True
        if self._on_disconnect is not None:
            self._on_disconnect()
