"""The HTTP handler of the reference server: what each request to ``/mcp`` gets, in order.

One handler serves one connection: it reads requests (``http_reader``) until the client closes,
stays idle, or a request breaks the framing. Every request first passes the DNS-rebinding checks
(``Origin``, then ``Host``) and the path; then POST carries one JSON-RPC message, DELETE ends a
handshake-era session, and GET is refused (405). A POST is served by the handshake era when it
belongs to a session (2025-11-25), by the 2026-07-28 era when it carries that revision's envelope
or has no session; its answer goes back as JSON or as an SSE stream (``http_exchange``).
"""
from __future__ import annotations

import io
import socket
import socketserver
import time
from functools import lru_cache
from http import HTTPStatus

from reference_server import HANDSHAKE_VERSIONS, MODERN_VERSIONS, __version__, seams
from reference_server.errors import (HEADER_MISMATCH, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST,
                                     METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY, PARSE_ERROR,
                                     UNSUPPORTED_PROTOCOL_VERSION)
from reference_server.http_exchange import Exchange
from reference_server.http_reader import ClientGone, HttpError, RequestHead, RequestReader
from reference_server.logs import enabled, format_exception, report_seam_error
from reference_server.modern import is_modern
from reference_server.route import Route
from reference_server.server import IGNORE, check_envelope
from reference_server.wire import decode_frame

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from reference_server.http_shared import McpHttpServer

ENDPOINT = "/mcp"
ROUTING_HEADERS = ("mcp-protocol-version", "mcp-method", "mcp-name")
MODERN_ERROR_STATUS = {PARSE_ERROR: 400, INVALID_REQUEST: 400, INVALID_PARAMS: 400, HEADER_MISMATCH: 400,
                       MISSING_REQUIRED_CLIENT_CAPABILITY: 400, UNSUPPORTED_PROTOCOL_VERSION: 400,
                       METHOD_NOT_FOUND: 404}
"""2026-07-28 basic/transports/streamable-http: 400 for a missing envelope field, a header mismatch or an
unsupported version; 404 with -32601 for an unknown method (each a MUST). Other answers are 200."""
SERVED_METHODS = ("POST", "GET", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD")
"""Methods that pass the Origin and Host checks and then get an answer (405 for all but POST, GET, DELETE);
any other method is 501 (RFC 9110 section 9.1: a method the server does not recognise)."""
STATUS_LINES = {status.value: f"HTTP/1.1 {status.value} {status.phrase}\r\n".encode() for status in HTTPStatus}
SERVER_FIELD = f"Server: reference-server/{__version__}\r\n".encode()
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_date_field = (0, b"")


def date_field() -> bytes:
    """The ``Date`` header line (RFC 9110 section 6.6.1: an origin server with a clock MUST send it), made once a second."""
    global _date_field
    now = int(time.time())
    second, line = _date_field
    if second != now:
        t = time.gmtime(now)
        line = (f"Date: {_DAYS[t.tm_wday]}, {t.tm_mday:02d} {_MONTHS[t.tm_mon - 1]} {t.tm_year} "
                f"{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d} GMT\r\n").encode()
        _date_field = (now, line)
    return line


@lru_cache(maxsize=256)
def accepts_json_and_events(accept: str) -> bool:
    """2025-11-25 and 2026-07-28: the client MUST list both types in Accept (wildcards count)."""
    types = {part.partition(";")[0].strip().lower() for part in accept.split(",")}
    return bool(types & {"application/json", "application/*", "*/*"}) and bool(
        types & {"text/event-stream", "text/*", "*/*"})


def modern_status(message: dict[str, Any]) -> int:
    error = message.get("error")
    code = error.get("code") if type(error) is dict else None
    return MODERN_ERROR_STATUS.get(code, 200) if isinstance(code, int) else 200


def legacy_status(message: dict[str, Any]) -> int:
    return 200  # 2025-11-25 gives a JSON-RPC answer no status of its own: the error is in the body


class McpHandler(socketserver.BaseRequestHandler):
    """One connection: its requests in order, each checked (Origin, Host, path) before its method runs."""

    server: McpHttpServer
    request: socket.socket

    def setup(self) -> None:
        self.connection = self.request
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # an answer leaves at once
        self.reader = RequestReader(self.connection)
        self.close_connection = False
        self._start_request(None)

    def _start_request(self, head: RequestHead | None) -> None:
        self.head = head
        self.command = head.method if head else ""
        self.path = head.target if head else ""
        self.request_version = head.version if head else "HTTP/1.1"
        self.headers: dict[str, str] = head.headers if head else {}
        self.close_connection = not head.keep_alive if head else True
        self._body_read = not (head and head.content_length)  # nothing to read is as good as read
        self._chunked = False
        self._responded = False

    def handle(self) -> None:
        """Serve requests until the client closes or idles, a request breaks the framing, or one asks to close."""
        try:
            while True:
                try:
                    head = self.reader.read_head()
                except HttpError as exc:
                    self._start_request(None)
                    self._bad_request(exc)
                    return
                if head is None:
                    return
                self._start_request(head)
                if head.method not in SERVED_METHODS:
                    self._refuse(501, f"Not Implemented: this server does not know the method {head.method[:40]}")
                else:
                    self._guarded(getattr(self, "_" + head.method.lower()))
                if self.close_connection:
                    return
        except (ClientGone, OSError):
            return  # the client went away, or stopped reading our answer

    def _bad_request(self, exc: HttpError) -> None:
        """A request whose framing is broken: say why, then close (its end cannot be found)."""
        self.server.engine.log("warning", "http_error", status=exc.status, detail=exc.text[:300])
        self.write_json(exc.status, seams.SEAMS["error_response"](None, INVALID_REQUEST, exc.text))

    def _get(self) -> None:
        # 2025-11-25 allows 405 when the server offers no stream (this one sends nothing unprompted);
        # 2026-07-28 removed the GET stream and says 405 (streamable-http#backward-compatibility).
        self._refuse(405, "Method Not Allowed: this server offers no GET stream; POST JSON-RPC messages",
                     allow="POST, DELETE")

    def _not_allowed(self) -> None:
        self._refuse(405, f"Method Not Allowed: {self.command}", allow="POST, DELETE")

    _put = _patch = _options = _head = _not_allowed

    # -- checks every request passes ------------------------------------------------------------------
    def _guarded(self, action: Callable[[], None]) -> None:
        origin, host = self.headers.get("origin"), self.headers.get("host")
        if not self._allows("origin_allowed", origin, self.server.allowed_origins):
            # 2025-11-25 and 2026-07-28 Streamable HTTP, security: a present, invalid Origin MUST get 403
            self._refuse(403, f"Forbidden: Origin {origin!r} may not use this server")
        elif not self._allows("host_allowed", host, self.server.allowed_hosts):
            # the DNS-rebinding defence for requests without Origin; 421 as the official Python SDK answers
            self._refuse(421, f"Misdirected Request: this server is not served under the name {host!r}")
        elif self.path.partition("?")[0] != ENDPOINT:
            self._refuse(404, f"Not Found: the MCP endpoint is {ENDPOINT}")
        elif self.server.stopping:
            self.close_connection = True
            self._refuse(503, "Service Unavailable: the server is shutting down")
        else:
            self.server.begin()
            try:
                action()
            except (ClientGone, OSError):
                self.close_connection = True  # the client went away
            except Exception as exc:
                self.server.engine.log("error", "http_handler_failed", traceback=format_exception(exc))
                self.close_connection = True
                if not self._responded:
                    self.write_json(500, seams.SEAMS["error_response"](None, INTERNAL_ERROR, "Internal error"))
            finally:
                self.server.end()

    def _allows(self, seam: str, value: str | None, allowed: frozenset[str]) -> bool:
        try:
            return bool(seams.call(seam, value, allowed))
        except Exception:
            return False  # a broken check refuses

    # -- POST: one JSON-RPC message ---------------------------------------------------------------------
    def _post(self) -> None:
        assert self.head is not None  # handle() serves a request once its head is read
        if self.headers.get("content-type", "").partition(";")[0].strip().lower() != "application/json":
            return self._refuse(415, "Unsupported Media Type: send Content-Type: application/json")
        if not accepts_json_and_events(self.headers.get("accept", "")):
            return self._refuse(406, "Not Acceptable: list both application/json and text/event-stream in Accept")
        length = self.head.content_length
        if length is None:  # a body sent without a length may follow: it must not be read as the next request
            self.close_connection = True
            return self._refuse(411, "Length Required: send the body with a Content-Length header")
        limit = self.server.engine.max_frame_bytes
        if length > limit:
            return self._refuse(413, f"Invalid Request: message exceeds {limit} bytes")
        if self.head.expects_continue:  # the client waits for this before it sends a large body (curl does)
            self.connection.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        try:
            body = self.reader.read_body(length)
        except HttpError as exc:
            return self._refuse(exc.status, exc.text)
        self._body_read = True
        try:
            msg = decode_frame(body.decode("utf-8"))
        except (ValueError, RecursionError) as exc:
            return self.write_json(400, seams.SEAMS["error_response"](None, PARSE_ERROR, f"Parse error: {str(exc)[:200]}"))
        problem = check_envelope(msg)
        if problem is IGNORE:
            return self._accepted()  # a response from the client, or a notification with bad params: ignored
        if problem is not None:
            return self.write_json(400, problem)
        if "id" not in msg:
            return self._notification(msg)
        if msg["method"] == "initialize":
            return self._initialize(msg)
        if self._is_modern(msg):
            return self._serve_modern(msg)
        return self._serve_legacy(msg)


    def _is_modern(self, msg: dict[str, Any]) -> bool:
        """2026-07-28 rules when the body carries the envelope, the version header names a modern revision, or
        there is no session to serve it in (the envelope check then says what is missing)."""
        if not self.server.engine.modern:
            return False
        return (is_modern((msg.get("params") or {}).get("_meta"))
                or self.headers.get("mcp-protocol-version") in MODERN_VERSIONS
                or self.headers.get("mcp-session-id") is None)

    def _notification(self, msg: dict[str, Any]) -> None:
        session_id = self.headers.get("mcp-session-id")
        if session_id is None:
            # 2026-07-28 defines no client notifications over HTTP (cancelling is closing the stream): acknowledged
            return self._accepted()
        session = self.server.sessions.get(session_id)
        if session is None:
            return self._unknown_session()
        self.server.engine.serve_legacy(msg, Route(_drop, scope_id=session.id, session=session, separate_replies=True))
        self._accepted()

    def _initialize(self, msg: dict[str, Any]) -> None:
        """Open a handshake-era session: its id goes back in Mcp-Session-Id, with a successful result only."""
        try:
            session = self.server.sessions.new()
        except ValueError as exc:
            report_seam_error("new_session_id", exc)
            return self.write_json(200, seams.SEAMS["error_response"](msg["id"], INTERNAL_ERROR,
                                                                      "Internal error: no session could be opened"))
        replies: list[dict[str, Any]] = []
        self.server.engine.serve_legacy(msg, Route(replies.append, scope_id=session.id, session=session,
                                                   separate_replies=True))
        answer = next((m for m in replies if "id" in m), None) or seams.SEAMS["error_response"](
            msg["id"], INTERNAL_ERROR, "Internal error: no response")
        headers = {}
        if "result" in answer:
            self.server.sessions.open(session)
            headers["Mcp-Session-Id"] = session.id
        self.write_json(200, answer, headers)

    def _serve_legacy(self, msg: dict[str, Any]) -> None:
        session_id = self.headers.get("mcp-session-id")
        if session_id is None:
            return self._refuse(400, "Bad Request: no Mcp-Session-Id header; send initialize first")
        session = self.server.sessions.get(session_id)
        if session is None:
            return self._unknown_session()
        version = self.headers.get("mcp-protocol-version")
        if version is not None and version not in HANDSHAKE_VERSIONS:
            # 2025-11-25 basic/transports#protocol-version-header: an unsupported version MUST get 400
            return self._refuse(400, f"Bad Request: unsupported MCP-Protocol-Version {version[:40]!r}")
        exchange = Exchange(self, msg["id"], status_for=legacy_status)
        route = Route(exchange.send, scope_id=session.id, session=session, separate_replies=True,
                      abandon=exchange.abandon)
        self.server.engine.serve_legacy(msg, route)
        self._deliver(exchange)

    def _serve_modern(self, msg: dict[str, Any]) -> None:
        assert self.head is not None  # handle() serves a request once its head is read
        duplicated = next((name for name in ROUTING_HEADERS if name in self.head.repeated), None)
        if duplicated is not None:  # a router reading the first copy and one reading the last would disagree
            return self.write_json(400, seams.SEAMS["error_response"](
                msg["id"], HEADER_MISMATCH, f"Header mismatch: the {duplicated} header appears more than once"))
        engine, scope = self.server.engine, self.server.new_scope()

        def cancel() -> None:  # 2026-07-28 streamable-http#cancellation: a closed stream MUST cancel the request
            engine.calls.cancel(seams.call("request_key", scope, msg["id"]))

        exchange = Exchange(self, msg["id"], status_for=modern_status, on_disconnect=cancel)
        route = Route(lambda message: exchange.send(seams.call("complete_result", message)), scope_id=scope, modern=True,
                      separate_replies=True, abandon=exchange.abandon)
        engine.serve_modern(msg, route, self.headers)  # names are lower-cased already
        self._deliver(exchange)

    def _deliver(self, exchange: Exchange) -> None:
        exchange.deliver()
        if exchange.client_left:
            self.close_connection = True

    # -- DELETE: end a handshake-era session (2025-11-25 session management) ----------------------------
    def _delete(self) -> None:
        session_id = self.headers.get("mcp-session-id")
        if session_id is None:
            return self._refuse(400, "Bad Request: DELETE ends a session; send its Mcp-Session-Id")
        if not self.server.sessions.close(session_id):
            return self._unknown_session()
        self.send_head(204, ())

    # -- writing ------------------------------------------------------------------------------------------
    def encode(self, message: dict[str, Any]) -> bytes:
        """One compact JSON line, through the same ``write_message`` seam as stdio."""
        buffer = io.BytesIO()
        seams.SEAMS["write_message"](buffer, message)
        return buffer.getvalue()

    def _head_bytes(self, status: int, fields: Iterable[tuple[str, str]]) -> bytes:
        """A response's status line and header fields. A request whose body is still unread closes the
        connection: its body would be taken for the next request."""
        if not self._body_read:
            self.close_connection = True
        self._responded = True
        lines = [STATUS_LINES[status], SERVER_FIELD, date_field()]
        lines += [f"{name}: {value}\r\n".encode("latin-1") for name, value in fields]
        if self.close_connection:
            lines.append(b"Connection: close\r\n")
        elif self.request_version == "HTTP/1.0":
            lines.append(b"Connection: keep-alive\r\n")
        lines.append(b"\r\n")
        return b"".join(lines)

    def send_head(self, status: int, fields: Iterable[tuple[str, str]]) -> None:
        self.connection.sendall(self._head_bytes(status, fields))
        self.log_request(status)

    def write_json(self, status: int, message: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        try:
            body = self.encode(message)
        except Exception as exc:
            report_seam_error("write_message", exc)
            status, body = 500, b""
        head = self._head_bytes(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                                         *(headers or {}).items()])
        # one segment: no wait for a delayed ACK; HEAD gets the fields a GET would get, no body (RFC 9110 9.3.2)
        self.connection.sendall(head if self.command == "HEAD" else head + body)
        self.log_request(status)

    def start_stream(self) -> None:
        """An SSE response: chunked on HTTP/1.1; on HTTP/1.0 the stream ends when the connection does."""
        self._chunked = self.request_version == "HTTP/1.1"
        if not self._chunked:
            self.close_connection = True
        self.send_head(200, [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"),
                             ("X-Accel-Buffering", "no"),  # 2026-07-28: servers SHOULD send it on SSE streams
                             *([("Transfer-Encoding", "chunked")] if self._chunked else [])])

    def write_chunk(self, data: bytes) -> None:
        self.connection.sendall(b"%x\r\n%s\r\n" % (len(data), data) if self._chunked else data)

    def end_stream(self) -> None:
        if self._chunked:
            self.connection.sendall(b"0\r\n\r\n")

    def _accepted(self) -> None:
        self.send_head(202, [("Content-Length", "0")])

    def _unknown_session(self) -> None:
        # 2025-11-25 session management: a request with an id of a session that ended MUST get 404
        self._refuse(404, "Not Found: no session has this Mcp-Session-Id (it ended, or the server restarted); "
                          "send initialize to open a new one")

    def _refuse(self, status: int, text: str, *, allow: str | None = None) -> None:
        """An HTTP-level refusal: a JSON-RPC error without an id in the body."""
        self.write_json(status, seams.SEAMS["error_response"](None, INVALID_REQUEST, text),
                        {"Allow": allow} if allow else None)

    def log_request(self, code: int) -> None:
        if enabled("debug"):
            self.server.engine.log("debug", "http_request", method=self.command, path=self.path[:200], status=code)


def _drop(_message: dict[str, Any]) -> None:
    return None


