"""Promises of the transport gate's blocks that no probe proves: one stdout writer (TRN-010), authentication on
every request (TRN-005) and the Host/Origin guard shown as ASGI middleware (TRN-013).

Each check drives the block's own functions in this process: no server, no socket, no network.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from types import ModuleType
from typing import Any

from .registry import Broken, promise

WRITERS = 8
"""How many concurrent writers answer at once."""
PAUSE = 0.002
"""How long each write to the recorded stdout takes: a write to a full pipe blocks and hands the GIL to another
thread, which is when two writers interleave; the pause makes that happen on every write, not now and then."""


class _Recorded:
    """Stands in for stdout: keeps every write in order; ``buffer`` is its binary side (the same record)."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self._lock = threading.Lock()
        self.buffer = _Binary(self)

    def keep(self, data: bytes) -> None:
        with self._lock:
            self.chunks.append(data)
        time.sleep(PAUSE)

    def write(self, text: str) -> int:
        self.keep(text.encode("utf-8"))
        return len(text)

    def flush(self) -> None:
        time.sleep(PAUSE)

    def lines(self) -> list[bytes]:
        with self._lock:
            data = b"".join(self.chunks)
        return data.split(b"\n")


class _Binary:
    def __init__(self, record: _Recorded) -> None:
        self._record = record

    def write(self, data: bytes) -> int:
        self._record.keep(bytes(data))
        return len(data)

    def flush(self) -> None:
        self._record.flush()


def _redirect(block: ModuleType) -> _Recorded:
    """Point sys.stdout, and every reference the block took to it at import, at a recorder."""
    record = _Recorded()
    old, old_buffer = sys.stdout, getattr(sys.stdout, "buffer", None)
    for name, value in list(vars(block).items()):
        if value is old:
            setattr(block, name, record)
        elif old_buffer is not None and value is old_buffer:
            setattr(block, name, record.buffer)
    sys.stdout = record
    return record


def _judge(record: _Recorded, sent: int, seconds: float) -> None:
    """Every stdout line is one whole message, and each of the ``sent`` ids arrives once."""
    deadline = time.monotonic() + seconds
    while len(record.lines()) <= sent and time.monotonic() < deadline:  # n whole lines split into n + 1 parts
        time.sleep(0.02)
    lines = record.lines()
    if lines[-1]:
        raise Broken("torn_message", f"stdout ends inside a message: {lines[-1][:80]!r}")
    seen: list[Any] = []
    for line in lines[:-1]:
        try:
            message = json.loads(line)
        except ValueError:
            raise Broken("torn_message", f"a stdout line is not one JSON message ({len(line)} bytes): "
                                         f"{line[:80]!r}") from None
        if not isinstance(message, dict) or "id" not in message:
            raise Broken("torn_message", f"a stdout line is not one response: {line[:80]!r}")
        seen.append(message["id"])
    if sorted(seen) != list(range(sent)):
        raise Broken("message_lost", f"{sent} responses were sent from {WRITERS} writers; stdout held ids {sorted(seen)}")


def _result(n: int) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": f"result {n} " + "x" * 2000}]}


def _threads(block: ModuleType, record: _Recorded) -> None:
    start = threading.Barrier(WRITERS, timeout=10)

    def tool(arguments: dict[str, Any]) -> dict[str, Any]:
        start.wait()  # every worker answers at the same moment
        return _result(arguments["n"])

    for n in range(WRITERS):
        block.run_tool_in_background(n, tool, {"n": n})
    _judge(record, WRITERS, 10)


def _tasks(block: ModuleType, record: _Recorded) -> None:
    async def drive() -> None:
        writer = asyncio.create_task(block.writer())
        await asyncio.gather(*(block.answer(n, _result(n)) for n in range(WRITERS)))
        deadline = time.monotonic() + 10
        while len(record.lines()) <= WRITERS and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        writer.cancel()

    asyncio.run(drive())
    _judge(record, WRITERS, 1)


@promise("one_stdout_writer", f"{WRITERS} workers answering at once leave one whole message per stdout line",
         reasons={"torn_message": "a stdout line held part of a message, or parts of two",
                  "message_lost": "a response sent by a worker never reached stdout whole"}, seconds=30)
def one_stdout_writer(block: ModuleType) -> None:
    """Answer from many threads (``run_tool_in_background``) or tasks (``writer`` and ``answer``) at once."""
    record = _redirect(block)
    if hasattr(block, "run_tool_in_background"):
        _threads(block, record)
    else:
        _tasks(block, record)


# --- TRN-013: the Host/Origin guard -------------------------------------------------------------------------------

SERVED = "127.0.0.1:8000"
"""The address the rule's blocks serve; the guard is asked about it and about foreign names."""


def _through(middleware: Any, headers: list[tuple[bytes, bytes]], *,
             answer_headers: list[tuple[bytes, bytes]] | None = None) -> tuple[int, bool, dict[bytes, bytes]]:
    """Send one POST /mcp through ``middleware(app)``, the ASGI app it builds around a stand-in MCP app: (the
    status, whether the stand-in was reached, the response headers with names lower-cased)."""
    reached: list[bool] = []
    sent: list[dict[str, Any]] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        reached.append(True)
        await send({"type": "http.response.start", "status": 200, "headers": list(answer_headers or [])})
        await send({"type": "http.response.body", "body": b"{}"})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(event: dict[str, Any]) -> None:
        sent.append(event)

    scope = {"type": "http", "method": "POST", "path": "/mcp", "scheme": "https", "client": ("127.0.0.1", 50000),
             "server": ("127.0.0.1", 8000), "headers": [(b"content-type", b"application/json"), *headers]}
    asyncio.run(asyncio.wait_for(middleware(app)(scope, receive, send), 5))
    start = next((e for e in sent if e.get("type") == "http.response.start"), {})
    answered = {bytes(k).lower(): bytes(v) for k, v in start.get("headers", [])}
    return int(start.get("status", 0)), bool(reached), answered


def _ask(guard_class: type, host: str | None, origin: str | None) -> tuple[int, bool]:
    """Send one request through the Host/Origin guard: (its status, whether the app behind it was reached)."""
    headers: list[tuple[bytes, bytes]] = []
    if host is not None:
        headers.append((b"host", host.encode()))
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    status, reached, _ = _through(guard_class, headers)
    return status, reached


@promise("host_origin_guard", f"a guard for a server on {SERVED} refuses a foreign Host or Origin and passes its own",
         reasons={"foreign_host_served": "a request naming another Host reached the app",
                  "foreign_origin_served": "a request from another Origin reached the app",
                  "own_request_refused": "a request with the served Host and Origin was refused"}, seconds=20)
def host_origin_guard(block: ModuleType) -> None:
    """Drive ``HostOriginGuard`` with an ASGI app behind it."""
    guard = block.HostOriginGuard
    for host, origin in ((SERVED, None), (SERVED, f"http://{SERVED}")):
        status, reached = _ask(guard, host, origin)
        if not reached:
            raise Broken("own_request_refused", f"Host {host}, Origin {origin}: status {status}")
    for foreign in ("attacker.example:8000", None):
        status, reached = _ask(guard, foreign, None)
        if reached or not 400 <= status < 500:
            raise Broken("foreign_host_served", f"Host {foreign}: status {status}, app reached: {reached}")
    for origin in ("http://attacker.example", "null"):
        status, reached = _ask(guard, SERVED, origin)
        if reached or status != 403:
            raise Broken("foreign_origin_served", f"Origin {origin}: status {status}, app reached: {reached}")


# --- TRN-005: authentication on every request; a session id is not a credential ---------------------------------

GOOD_TOKEN = "hb-token-alice-7c1e"
"""The one bearer token the check's verifier accepts (as user ``alice``)."""
SESSION = b"hb-session-5b0d9e2f4a7c4e1f8d3a6b9c0e2f4a6b"
"""The session id the app behind the middleware hands out on the first authenticated request."""


def _verify_token(token: str) -> str | None:
    """The verifier the check passes to ``RequireAuth``: the user a token belongs to, or None."""
    return "alice" if token == GOOD_TOKEN else None


@promise("auth_every_request", "middleware authenticates every request; a known session id is no credential",
         reasons={"unauthenticated_served": "a request without credentials, or with a forged token, reached the app",
                  "no_challenge": "a request without credentials got no 401 with a WWW-Authenticate header",
                  "session_taken_as_auth": "a request with a valid Mcp-Session-Id and no credentials reached the app",
                  "own_request_refused": "a request with a valid bearer token was refused"}, seconds=20)
def auth_every_request(block: ModuleType) -> None:
    """Drive ``RequireAuth(app, verify_token)`` with an ASGI app behind it that opens a session."""
    def middleware(app: Any) -> Any:
        return block.RequireAuth(app, _verify_token)

    bearer = (b"authorization", f"Bearer {GOOD_TOKEN}".encode())
    opened = [(b"mcp-session-id", SESSION)]
    status, reached, _ = _through(middleware, [bearer], answer_headers=opened)  # initialize: the session opens
    if not reached:
        raise Broken("own_request_refused", f"a request with a valid bearer token got {status}")
    status, reached, _ = _through(middleware, [bearer, (b"mcp-session-id", SESSION)])
    if not reached:
        raise Broken("own_request_refused", f"a request with a valid bearer token and its session id got {status}")
    for what, headers in (("no Authorization header", []),
                          ("a forged bearer token", [(b"authorization", b"Bearer hb-token-forged-0000")])):
        status, reached, answered = _through(middleware, headers)
        if reached:
            raise Broken("unauthenticated_served", f"a request with {what} reached the app (status {status})")
        if status != 401 or not answered.get(b"www-authenticate", b"").strip():
            raise Broken("no_challenge", f"a request with {what} got {status}, "
                                         f"WWW-Authenticate {answered.get(b'www-authenticate')!r}; expected 401 with a challenge")
    status, reached, _ = _through(middleware, [(b"mcp-session-id", SESSION)])
    if reached:
        raise Broken("session_taken_as_auth", f"a request with the session id {SESSION.decode()} and no credentials "
                                              f"reached the app (status {status})")
    if status != 401:
        raise Broken("no_challenge", f"a request with a session id and no credentials got {status}, not 401")
