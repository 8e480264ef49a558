"""A JSON-RPC session over Streamable HTTP that a protocol-level probe uses as it uses a stdio session.

Why a second session class: most probes judge only what a server answers (its tool listing, its errors, its ids),
not how its process behaves. :class:`HttpSession` gives them the part of
:class:`~mcp_handbook.wire.WireSession` they use (``send``, ``request``, ``wait_for_id``, ``initialize``,
``transcript``, ``close``), so the same probe runs against a server reached by URL. Each message is one POST;
what its reply carries (a JSON body, or the events of an SSE stream up to the answer) becomes the session's
``stdout``, in order. A probe that needs the process (stderr, signals, stdin, the environment, file descriptors)
is not registered ``over_http`` and never gets one of these.

The headers follow the era of each message: after a handshake-era ``initialize`` the session id and the
negotiated ``MCP-Protocol-Version`` go on every request (2025-11-25 basic/transports, session management); a
2026-07-28 request, one whose ``params._meta`` names its protocol version, carries ``MCP-Protocol-Version``,
``Mcp-Method`` and, for the methods that name something, ``Mcp-Name`` mirrored from the body (2026-07-28
basic/transports/streamable-http, standard request headers).
"""

from __future__ import annotations

import base64
import http.client
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from ..bounded_json import loads as bounded_loads
from ..jsonrpc_client import JsonRpcClient, Line, Message, WireTimeout, with_request_meta
from .http_body import over_limit, parse_url, read_body, reply_messages
from .protocol import LATEST_LEGACY, PROBE_CLIENT, PROTOCOL_VERSION

NAME_BEARING = {"tools/call": "name", "resources/read": "uri", "prompts/get": "name"}
"""2026-07-28 methods whose ``Mcp-Name`` header mirrors a body field."""
SHOWN_CHARS = 2000
"""The most of one sent or received message a transcript row keeps."""


def header_value(value: str) -> str:
    """A body value as a header carries it: plain when it is visible ASCII, else the ``=?base64?...?=`` form."""
    if all(" " <= c <= "~" for c in value):
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def era_headers(message: Any, session_version: str | None = None) -> dict[str, str]:
    """The 2026-07-28 headers a request mirrors from its body; none for a message of another era. A session of
    that era (``session_version``) sends them even when a probe left the version out of the body on purpose, as a
    client of that era would: the body's fault is then what the server judges, not a missing header."""
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return {}
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(PROTOCOL_VERSION) if isinstance(meta, dict) else None
    if not isinstance(version, str):
        version = session_version
    if version is None:
        return {}
    headers = {"MCP-Protocol-Version": version, "Mcp-Method": message["method"]}
    field = NAME_BEARING.get(message["method"])
    named = params.get(field) if field and isinstance(params, dict) else None
    if isinstance(named, str):
        headers["Mcp-Name"] = header_value(named)
    return headers


class HttpSession(JsonRpcClient):
    """One client of a Streamable HTTP endpoint, with the stdio session's interface for protocol-level probes."""

    def __init__(self, url: str, *, headers: tuple[tuple[str, str], ...] = (), timeout: float = 5.0,
                 before_send: Callable[[bytes, list[Message]], None] | None = None) -> None:
        self.point = parse_url(url)
        self.headers = dict(headers)
        self.timeout = timeout
        self.before_send = before_send
        """Called with each body before it is sent and what the session has received; raises to refuse it (the
        auditor's tool-call guard)."""
        self.request_meta: dict[str, Any] | None = None
        """``params._meta`` added to every request that has none (the 2026-07-28 era); None in the handshake era."""
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self.started = time.monotonic()
        self.pid = None
        self._sent: list[Line] = []
        self._received: list[Message] = []
        self._pending: list[Message] = []
        self._next_id = 0
        self._lock = threading.Lock()
        self._connection: http.client.HTTPConnection | None = None
        self.defect = ""
        """Why this session's replies can no longer be read as protocol (a message nested too deep), or ""."""
        self.unreadable = ""
        """The first reply that could not be read whole (longer than the auditor reads), or ""."""
        self._cut = False

    # -- writing -----------------------------------------------------------
    def _connect(self) -> http.client.HTTPConnection:
        if self._connection is None:
            kind = http.client.HTTPSConnection if self.point.scheme == "https" else http.client.HTTPConnection
            self._connection = kind(self.point.host, self.point.port, timeout=self.timeout)
        return self._connection

    def _line(self, stream: str, text: str, size: int) -> Line:
        shown = text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + f" …[{size} bytes]"
        return Line(stream, shown, size, time.monotonic() - self.started)

    def _post(self, method: str, body: bytes | None, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        """One HTTP exchange on the kept connection, made again once if the server closed it between requests."""
        for attempt in (1, 2):
            connection = self._connect()
            try:
                connection.request(method, self.point.path, body=body, headers=headers)
                response = connection.getresponse()
                data, stopped = read_body(response, seconds=self.timeout)  # a stream that stays open: what came
                if response.will_close or stopped:
                    self._drop_connection()
                self._cut = stopped == "over"
                if self._cut:
                    self.unreadable = self.unreadable or over_limit()
                return response.status, {k.lower(): v for k, v in response.getheaders()}, data
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as exc:
                self._drop_connection()
                if attempt == 2:
                    raise WireTimeout(f"{method} {self.point.path}: the server closed the connection ({exc})") from None
            except (OSError, http.client.HTTPException) as exc:
                self._drop_connection()
                raise WireTimeout(f"{method} {self.point.path} got no HTTP answer: {type(exc).__name__}: {exc}") from None
        raise AssertionError("unreachable")

    def _drop_connection(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def send_raw(self, data: bytes, *, timeout: float = 10.0) -> bool:
        """POST ``data`` as one message and keep what the reply carries; False when no HTTP answer came."""
        try:
            message = bounded_loads(data)
        except ValueError:  # a probe may send what no parser should accept (TooDeep is a ValueError too)
            message = None
        if self.before_send is not None:
            self.before_send(data, self.stdout)
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **self.headers}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        if self.protocol_version:
            headers["MCP-Protocol-Version"] = self.protocol_version
        session_version = self.request_meta.get(PROTOCOL_VERSION) if self.request_meta else None
        if message is None and isinstance(session_version, str):  # bytes no parser reads: the era still shows
            headers["MCP-Protocol-Version"] = session_version
        headers.update(era_headers(message, session_version))
        text = data.decode("utf-8", "replace").rstrip("\n")
        with self._lock:
            self._sent.append(self._line("stdin", text, len(data)))
        try:
            status, reply_headers, body = self._post("POST", data, headers)
        except WireTimeout as exc:
            with self._lock:
                self._received.append(Message(self._line("stdout", f"(no HTTP answer: {exc})", 0), None))
            return False
        if self.session_id is None and reply_headers.get("mcp-session-id"):
            self.session_id = reply_headers["mcp-session-id"]
        problems: list[str] = []
        values = reply_messages(reply_headers.get("content-type", ""), body, problems)
        with self._lock:
            if problems and not self.defect:
                self.defect = problems[0]  # a message nested too deep: a client's reader dies on it
            if self._cut:
                problems.append(over_limit())
            for problem in problems:
                self._received.append(Message(self._line("stdout", f"({problem})", len(body)), None))
            if not values and not 200 <= status < 300:
                shown = body.decode("utf-8", "replace").strip()[:200]
                self._received.append(Message(self._line("stdout", f"HTTP {status} {shown}".rstrip(), len(body)), None))
            status_shown = "" if 200 <= status < 300 else f"HTTP {status}: "  # a refusal shows how it was made
            for value in values:
                encoded = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
                size = len(encoded.encode("utf-8", "surrogatepass"))
                seen = Message(self._line("stdout", status_shown + encoded, size), value)
                self._received.append(seen)
                self._pending.append(seen)
        return True

    def send(self, message: dict[str, Any]) -> bool:
        return self.send_raw(json.dumps(with_request_meta(message, self.request_meta), separators=(",", ":")).encode())

    # -- reading -----------------------------------------------------------
    def wait_for_id(self, rid: Any, *, timeout: float = 5.0, garbage_grace: float = 0.3) -> dict[str, Any]:
        """The response with ``rid`` among the replies so far. A POST's reply is complete when it returns, so
        there is nothing to wait for: absent now is never (``timeout`` is the interface's, spent in the POST)."""
        with self._lock:
            for seen in self._pending:
                value = seen.value
                if isinstance(value, dict) and value.get("id") == rid and ("result" in value or "error" in value):
                    self._pending.remove(seen)
                    return value
        cause = self.defect or self.unreadable
        raise WireTimeout(f"no response to id {rid!r} in the HTTP reply" + (f": {cause}" if cause else ""))

    def wait_for(self, predicate: Any, *, timeout: float = 5.0) -> Message | None:
        with self._lock:
            for seen in self._pending:
                if predicate(seen.value):
                    self._pending.remove(seen)
                    return seen
        return None

    def initialize(self, *, version: str = LATEST_LEGACY, timeout: float = 5.0) -> dict[str, Any]:
        """The handshake era's ``initialize`` and ``notifications/initialized``; afterwards every request carries
        the session id the server issued and the version it chose."""
        response = self.request("initialize", {"protocolVersion": version, "capabilities": {},
                                               "clientInfo": dict(PROBE_CLIENT)}, timeout=timeout)
        result = response.get("result")
        if isinstance(result, dict) and isinstance(result.get("protocolVersion"), str):
            self.protocol_version = result["protocolVersion"]
        self.notify("notifications/initialized")
        return response

    # -- what was seen -----------------------------------------------------
    @property
    def stdout(self) -> list[Message]:
        with self._lock:
            return list(self._received)

    @property
    def stderr_lines(self) -> list[Line]:
        return []

    stdout_flooded = False

    def settle(self, timeout: float = 2.0, *, quiet: float = 0.05) -> bool:
        return True

    def transcript(self, *, limit: int = 60) -> list[str]:
        """``>>>`` the bodies sent, ``<<<`` the messages (or HTTP statuses) received, in order."""
        with self._lock:
            rows = sorted([*self._sent, *self._received_lines()], key=lambda ln: ln.at)[-limit:]
        marks = {"stdin": ">>>", "stdout": "<<<"}
        return [f"{marks[ln.stream]} {ln.text[:300]}{' …' if len(ln.text) > 300 else ''}" for ln in rows]

    def _received_lines(self) -> list[Line]:
        return [m.line for m in self._received]

    # -- ending ------------------------------------------------------------
    def close(self, *, grace: float = 2.0) -> int | None:
        """End the handshake-era session (DELETE) when there is one, and close the connection."""
        if self.session_id:
            try:
                self._post("DELETE", None, {"Mcp-Session-Id": self.session_id, **self.headers})
            except WireTimeout:
                pass
            self.session_id = None
        self._drop_connection()
        return None

    def kill_group(self) -> None:
        """Stop at once (a deadline): drop the connection, and send no DELETE that could wait."""
        self.session_id = None
        self._drop_connection()

    def __enter__(self) -> HttpSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
