"""The HTTP handler of the reference server: what each request to ``/mcp`` gets, in order.

Every request first passes the DNS-rebinding checks (``Origin``, then ``Host``) and the path; then
POST carries one JSON-RPC message, DELETE ends a handshake-era session, and GET is refused (405).
A POST is served by the handshake era when it belongs to a session (2025-11-25), by the 2026-07-28
era when it carries that revision's envelope or has no session; its answer goes back as JSON or as an
SSE stream (``http_exchange``).
"""
from __future__ import annotations

import io
from http.server import BaseHTTPRequestHandler

from reference_server import HANDSHAKE_VERSIONS, MODERN_VERSIONS, __version__, seams
from reference_server.errors import (HEADER_MISMATCH, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST,
                                     METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY, PARSE_ERROR,
                                     UNSUPPORTED_PROTOCOL_VERSION)
from reference_server.http_exchange import Exchange
from reference_server.logs import format_exception, report_seam_error
from reference_server.modern import complete, is_modern
from reference_server.route import Route
from reference_server.server import IGNORE, check_envelope
from reference_server.wire import decode_frame

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from reference_server.http_server import McpHttpServer

ENDPOINT = "/mcp"
IDLE_CONNECTION_SECONDS = 30.0
ROUTING_HEADERS = ("mcp-protocol-version", "mcp-method", "mcp-name")
MODERN_ERROR_STATUS = {PARSE_ERROR: 400, INVALID_REQUEST: 400, INVALID_PARAMS: 400, HEADER_MISMATCH: 400,
                       MISSING_REQUIRED_CLIENT_CAPABILITY: 400, UNSUPPORTED_PROTOCOL_VERSION: 400,
                       METHOD_NOT_FOUND: 404}
"""2026-07-28 basic/transports/streamable-http: 400 for a missing envelope field, a header mismatch or an
unsupported version; 404 with -32601 for an unknown method (each a MUST). Other answers are 200."""


def modern_status(message: dict[str, Any]) -> int:
    error = message.get("error")
    return MODERN_ERROR_STATUS.get(error.get("code"), 200) if type(error) is dict else 200


def legacy_status(message: dict[str, Any]) -> int:
    return 200  # 2025-11-25 gives a JSON-RPC answer no status of its own: the error is in the body


class McpHandler(BaseHTTPRequestHandler):
    """One connection: each request is checked (Origin, Host, path) before its method runs."""

    server: McpHttpServer
    protocol_version = "HTTP/1.1"  # keep-alive: many requests on one connection
    server_version = f"reference-server/{__version__}"
    timeout = IDLE_CONNECTION_SECONDS
    wbufsize = 64 * 1024  # headers and body leave in one segment when flushed (no Nagle / delayed-ACK stall)
    disable_nagle_algorithm = True

    def version_string(self) -> str:
        return self.server_version

    def handle_expect_100(self) -> bool:
        """Send ``100 Continue`` at once (curl asks before a large body); the buffered writer would hold it."""
        answer = super().handle_expect_100()
        self.wfile.flush()
        return answer

    def do_POST(self) -> None:
        self._guarded(self._post)

    def do_GET(self) -> None:
        # 2025-11-25 allows 405 when the server offers no stream (this one sends nothing unprompted);
        # 2026-07-28 removed the GET stream and says 405 (streamable-http#backward-compatibility).
        self._guarded(lambda: self._refuse(405, "Method Not Allowed: this server offers no GET stream; POST "
                                                "JSON-RPC messages", allow="POST, DELETE"))

    def do_DELETE(self) -> None:
        self._guarded(self._delete)

    def _not_allowed(self) -> None:
        self._guarded(lambda: self._refuse(405, f"Method Not Allowed: {self.command}", allow="POST, DELETE"))

    do_PUT = do_PATCH = do_OPTIONS = _not_allowed

    # -- checks every request passes ------------------------------------------------------------------
    def _guarded(self, action: Callable[[], None]) -> None:
        self._body_read = False
        origin, host = self.headers.get("Origin"), self.headers.get("Host")
        if not self._allows("origin_allowed", origin, self.server.allowed_origins):
            # 2025-11-25 and 2026-07-28 Streamable HTTP, security: a present, invalid Origin MUST get 403
            self._refuse(403, f"Forbidden: Origin {origin!r} may not use this server")
        elif not self._allows("host_allowed", host, self.server.allowed_hosts):
            # the DNS-rebinding defence for requests without Origin; 421 as the official Python SDK answers
            self._refuse(421, f"Misdirected Request: this server is not served under the name {host!r}")
        elif self.path.partition("?")[0] != ENDPOINT:
            self._refuse(404, f"Not Found: the MCP endpoint is {ENDPOINT}")
        elif self.server.stopping:
            self._refuse(503, "Service Unavailable: the server is shutting down")
        else:
            self.server.begin()
            try:
                action()
            except OSError:
                self.close_connection = True  # the client went away
            except Exception as exc:
                self.server.engine.log("error", "http_handler_failed", traceback=format_exception(exc))
                self.close_connection = True
            finally:
                self.server.end()

    def _allows(self, seam: str, value: str | None, allowed: frozenset[str]) -> bool:
        try:
            return bool(seams.call(seam, value, allowed))
        except Exception:
            return False  # a broken check refuses

    # -- POST: one JSON-RPC message ---------------------------------------------------------------------
    def _post(self) -> None:
        if (self.headers.get("Content-Type") or "").partition(";")[0].strip().lower() != "application/json":
            return self._refuse(415, "Unsupported Media Type: send Content-Type: application/json")
        if not self._accepts_json_and_events():
            return self._refuse(406, "Not Acceptable: list both application/json and text/event-stream in Accept")
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            return self._refuse(411, "Length Required: send the body with a Content-Length header")
        limit = self.server.engine.max_frame_bytes
        if int(length) > limit:
            return self._refuse(413, f"Invalid Request: message exceeds {limit} bytes")
        body = self.rfile.read(int(length))
        self._body_read = True
        if len(body) < int(length):
            self.close_connection = True
            return
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

    def _accepts_json_and_events(self) -> bool:
        """2025-11-25 and 2026-07-28: the client MUST list both types in Accept (wildcards count)."""
        types = {part.partition(";")[0].strip().lower()
                 for part in ",".join(self.headers.get_all("Accept") or []).split(",")}
        return bool(types & {"application/json", "application/*", "*/*"}) and bool(
            types & {"text/event-stream", "text/*", "*/*"})

    def _is_modern(self, msg: dict[str, Any]) -> bool:
        """2026-07-28 rules when the body carries the envelope, the version header names a modern revision, or
        there is no session to serve it in (the envelope check then says what is missing)."""
        if not self.server.engine.modern:
            return False
        return (is_modern((msg.get("params") or {}).get("_meta"))
                or self.headers.get("MCP-Protocol-Version") in MODERN_VERSIONS
                or self.headers.get("Mcp-Session-Id") is None)

    def _notification(self, msg: dict[str, Any]) -> None:
        session_id = self.headers.get("Mcp-Session-Id")
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
        session_id = self.headers.get("Mcp-Session-Id")
        if session_id is None:
            return self._refuse(400, "Bad Request: no Mcp-Session-Id header; send initialize first", body_read=True)
        session = self.server.sessions.get(session_id)
        if session is None:
            return self._unknown_session()
        version = self.headers.get("MCP-Protocol-Version")
        if version is not None and version not in HANDSHAKE_VERSIONS:
            # 2025-11-25 basic/transports#protocol-version-header: an unsupported version MUST get 400
            return self._refuse(400, f"Bad Request: unsupported MCP-Protocol-Version {version[:40]!r}", body_read=True)
        exchange = Exchange(self, msg["id"], status_for=legacy_status)
        route = Route(exchange.send, scope_id=session.id, session=session, separate_replies=True,
                      abandon=exchange.abandon)
        self.server.engine.serve_legacy(msg, route)
        self._deliver(exchange)

    def _serve_modern(self, msg: dict[str, Any]) -> None:
        duplicated = next((name for name in ROUTING_HEADERS if len(self.headers.get_all(name) or ()) > 1), None)
        if duplicated is not None:  # a router reading the first copy and one reading the last would disagree
            return self.write_json(400, seams.SEAMS["error_response"](
                msg["id"], HEADER_MISMATCH, f"Header mismatch: the {duplicated} header appears more than once"))
        engine, scope = self.server.engine, self.server.new_scope()

        def cancel() -> None:  # 2026-07-28 streamable-http#cancellation: a closed stream MUST cancel the request
            engine.calls.cancel(seams.call("request_key", scope, msg["id"]))

        exchange = Exchange(self, msg["id"], status_for=modern_status, on_disconnect=cancel)
        route = Route(lambda message: exchange.send(complete(message)), scope_id=scope, modern=True,
                      separate_replies=True, abandon=exchange.abandon)
        engine.serve_modern(msg, route, {name.lower(): value for name, value in self.headers.items()})
        self._deliver(exchange)

    def _deliver(self, exchange: Exchange) -> None:
        exchange.deliver()
        if exchange.client_left:
            self.close_connection = True

    # -- DELETE: end a handshake-era session (2025-11-25 session management) ----------------------------
    def _delete(self) -> None:
        session_id = self.headers.get("Mcp-Session-Id")
        if session_id is None:
            return self._refuse(400, "Bad Request: DELETE ends a session; send its Mcp-Session-Id")
        if not self.server.sessions.close(session_id):
            return self._unknown_session()
        self.send_response(204)
        self.end_headers()

    # -- writing ------------------------------------------------------------------------------------------
    def encode(self, message: dict[str, Any]) -> bytes:
        """One compact JSON line, through the same ``write_message`` seam as stdio."""
        buffer = io.BytesIO()
        seams.SEAMS["write_message"](buffer, message)
        return buffer.getvalue()

    def write_json(self, status: int, message: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        try:
            body = self.encode(message)
        except Exception as exc:
            report_seam_error("write_message", exc)
            status, body = 500, b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Accel-Buffering", "no")  # 2026-07-28: servers SHOULD send it on SSE streams
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _accepted(self) -> None:
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _unknown_session(self) -> None:
        # 2025-11-25 session management: a request with an id of a session that ended MUST get 404
        self._refuse(404, "Not Found: no session has this Mcp-Session-Id (it ended, or the server restarted); "
                          "send initialize to open a new one", body_read=True)

    def _refuse(self, status: int, text: str, *, allow: str | None = None, body_read: bool = False) -> None:
        """An HTTP-level refusal: a JSON-RPC error without an id in the body; the connection closes when
        a request body was left unread."""
        if not (body_read or self._body_read) and (self.headers.get("Content-Length", "0") != "0"
                                                   or "Transfer-Encoding" in self.headers):
            self.close_connection = True  # the unread body would be taken for the next request
        self.write_json(status, seams.SEAMS["error_response"](None, INVALID_REQUEST, text),
                        {"Allow": allow} if allow else None)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        self.server.engine.log("debug", "http_request", method=self.command, path=self.path[:200], status=code)

    def log_error(self, format: str, *args: Any) -> None:
        self.server.engine.log("warning", "http_error", detail=(format % args)[:300])


def _drop(_message: dict[str, Any]) -> None:
    return None


