"""The message loop: framing, envelope checks, both protocol eras, lifecycle methods, shutdown.

Why this shape: the reader thread does all parsing and answers fast methods
inline (no thread hand-off on the hot path); only tools registered as
blocking go to a worker, so the reader stays free for cancellations and
pings. Every concern is reached through the seam table. The same server
answers the handshake era (``initialize``, 2025-11-25 and earlier) and the
per-request era (2026-07-28) on one process, request by request; the HTTP
transport (``http_server``) reuses everything here but the stdio loop.
"""
from __future__ import annotations

import os
import threading

from reference_server import HANDSHAKE_VERSIONS, MODERN_VERSIONS, SERVER_NAME, SERVER_TITLE, __version__, seams
from reference_server.calls import DEFERRED, ToolCalls
from reference_server.errors import (INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
                                     ProtocolError)
from reference_server.logs import LEVELS, RANK, LogState, report_seam_error
from reference_server.modern import LOG_LEVEL, is_modern
from reference_server.route import Route, current, serving
from reference_server.wire import decode_frame

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path
    from typing import Any, BinaryIO

    from reference_server.registry import ToolEntry

SIGNAL_DRAIN_SECONDS = 15.0  # longest test tool (slow_echo) is 10 s
EOF_DRAIN_SECONDS = 2.0
IGNORE = object()  # check_envelope: drop the message without an answer (a client's response, say)
OPERATOR_ONLY_FIELDS = frozenset({"traceback", "workspace"})
"""Log fields written to stderr but never sent to the client in notifications/message."""
INSTRUCTIONS = ("Tools work only inside one workspace directory. Find files with list_directory or search_files, "
                "read them with read_file. append_note is the only tool with a side effect (it appends to notes.md).")


class _Shutdown(BaseException):
    """Raised by the signal handler to break a blocking read when nothing is in flight."""


def new_process_id() -> str:
    """A random (version 4) UUID string, without importing ``uuid`` (it pulls in ``platform``: ~4 ms)."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _valid_id(value: Any) -> bool:
    kind = type(value)
    # a float that overflowed to inf (e.g. 1e400) or NaN could never be written back as JSON
    return kind is str or kind is int or (kind is float and value == value and abs(value) != float("inf"))


def check_envelope(msg: Any) -> Any:
    """None if ``msg`` is a well-formed request/notification; ``IGNORE`` for a client response; else an error."""
    if type(msg) is not dict:
        if type(msg) is list:
            text = "Invalid Request: batches are not supported (removed in 2025-06-18); send one message per line"
        else:
            text = "Invalid Request: expected a JSON-RPC object"
        return seams.SEAMS["error_response"](None, INVALID_REQUEST, text)
    has_id = "id" in msg
    echo = msg["id"] if has_id and _valid_id(msg["id"]) else None
    if msg.get("jsonrpc") != "2.0":
        return seams.SEAMS["error_response"](echo, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    if "method" not in msg:
        if has_id and ("result" in msg or "error" in msg):
            return IGNORE  # a response from the client: this server sends no requests, nothing to match
        return seams.SEAMS["error_response"](echo, INVALID_REQUEST, 'Invalid Request: missing "method"')
    if type(msg["method"]) is not str:
        return seams.SEAMS["error_response"](echo, INVALID_REQUEST, 'Invalid Request: "method" must be a string')
    if has_id and echo is None:
        return seams.SEAMS["error_response"](None, INVALID_REQUEST,
                                             'Invalid Request: "id" must be a string or a finite number (not null)')
    params = msg.get("params")
    if params is not None and type(params) is not dict:
        if not has_id:
            return IGNORE
        return seams.SEAMS["error_response"](echo, INVALID_PARAMS, 'Invalid params: "params" must be an object')
    return None


class Server:
    """The protocol engine of one process, and its stdio loop: reads frames until EOF or a signal, then drains.

    ``modern=False`` makes it a handshake-era server only (``--legacy-only``): ``server/discover``
    is then answered -32601, as a server of 2025-11-25 or earlier does.
    """

    def __init__(self, *, workspace: Path, stdin: BinaryIO | None, stdout: BinaryIO | None, page_size: int = 50,
                 max_frame_bytes: int = 1048576, modern: bool = True) -> None:
        self.workspace = workspace
        self.stdin, self.stdout = stdin, stdout
        self.max_frame_bytes = max_frame_bytes
        self.modern = modern
        self.session_id = new_process_id()
        self.protocol_version: str | None = None
        self._write_lock = threading.RLock()
        self._local = threading.local()
        self._stop = self._reading = self._hurry = False
        self._signum: int | None = None
        self.calls = ToolCalls(self, page_size=page_size)
        self.handlers: dict[str, Callable[[dict[str, Any]], Any]] = {
            "initialize": self._initialize, "ping": lambda _m: {},
            "notifications/initialized": lambda _m: None, "logging/setLevel": self._set_level,
            "tools/list": self.calls.list_tools, "tools/call": self.calls.call_tool,
            "notifications/cancelled": self.calls.cancelled,
        }
        """The handshake era's methods (2025-11-25). A legacy-only server does not know ``server/discover``:
        the dispatch seam answers it as any unknown method (-32601), so TRN-007's blocks are what answers."""
        if modern:
            self.handlers["server/discover"] = self._discover_without_envelope
        self.modern_handlers: dict[str, Callable[[dict[str, Any]], Any]] = {
            "server/discover": self._discover, "tools/list": self._list_tools_cacheable,
            "tools/call": self.calls.call_tool, "ping": self._removed, "logging/setLevel": self._removed,
        }
        """The 2026-07-28 era's methods: no handshake, no ping, no logging/setLevel (changelog, major change 5)."""

    def add_tool(self, entry: ToolEntry) -> None:
        self.calls.add(entry)

    # -- output -----------------------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        """Write one message to stdout; the lock keeps lines from worker threads whole."""
        if self.stdout is None:
            return  # served over HTTP: every request has its own route
        with self._write_lock:
            try:
                seams.SEAMS["write_message"](self.stdout, message)
            except BrokenPipeError:
                self._stop = True  # the client is gone
            except Exception as exc:
                report_seam_error("write_message", exc)

    def send_modern(self, message: dict[str, Any]) -> None:
        """Write a 2026-07-28 request's message to stdout, its result stamped with resultType and serverInfo."""
        self.send(seams.call("complete_result", message))

    def log(self, level: str, event: str, **fields: Any) -> None:
        try:
            seams.SEAMS["log"](level, event, **fields)
        except Exception as exc:
            report_seam_error("log", exc)

    def client_log(self, level: str, event: str, fields: dict[str, Any]) -> None:
        """The log sink: forward an (already redacted) record as notifications/message to the serving request."""
        route = current()
        if getattr(self._local, "in_sink", False) or self._stop or (route is None and self.stdout is None):
            return
        self._local.in_sink = True
        # operator-only detail (tracebacks, file-system layout) stays on stderr (2025-11-25 logging, security)
        safe = {k: v for k, v in fields.items() if k not in OPERATOR_ONLY_FIELDS}
        try:
            (self.send if route is None else route.send)(
                {"jsonrpc": "2.0", "method": "notifications/message",
                 "params": {"level": level, "logger": SERVER_NAME, "data": {"event": event, **safe}}})
        finally:
            self._local.in_sink = False

    # -- lifecycle handlers ---------------------------------------------------------------------------
    def _initialize(self, message: dict[str, Any]) -> dict[str, Any]:
        params = message.get("params") or {}
        version = seams.call("negotiate_version", params.get("protocolVersion"), HANDSHAKE_VERSIONS)
        route = current()
        if route is not None and route.session is not None:
            route.session.protocol_version = version
        else:
            self.protocol_version = version
        self.log("info", "initialize", requested=params.get("protocolVersion"), negotiated=version,
                 client=params.get("clientInfo"))
        return {"protocolVersion": version,
                "capabilities": seams.call("server_capabilities"),
                "serverInfo": {"name": SERVER_NAME, "version": __version__, "title": SERVER_TITLE},
                "instructions": INSTRUCTIONS}

    def _discover(self, message: dict[str, Any]) -> dict[str, Any]:
        """server/discover (2026-07-28 server/discover: servers MUST implement it); a cacheable result."""
        return {"supportedVersions": list(MODERN_VERSIONS), "capabilities": seams.call("server_capabilities"),
                "instructions": INSTRUCTIONS, **seams.call("cache_hints", "server/discover")}

    def _discover_without_envelope(self, message: dict[str, Any]) -> None:
        raise ProtocolError(INVALID_PARAMS, "Invalid params: server/discover is a 2026-07-28 request; put "
                            "io.modelcontextprotocol/protocolVersion 2026-07-28 and io.modelcontextprotocol/"
                            "clientCapabilities in params._meta (a client of 2025-11-25 or earlier sends initialize)")

    def _list_tools_cacheable(self, message: dict[str, Any]) -> dict[str, Any]:
        """tools/list with ttlMs and cacheScope (2026-07-28 server/utilities/caching: MUST); sorted by name."""
        return {**self.calls.list_tools(message), **seams.call("cache_hints", "tools/list")}

    def _removed(self, message: dict[str, Any]) -> None:
        hint = ("send server/discover to check the server answers" if message["method"] == "ping"
                else "set io.modelcontextprotocol/logLevel in each request's params._meta")
        raise ProtocolError(METHOD_NOT_FOUND, f"Method not found: {message['method']} (removed in 2026-07-28; {hint})")

    def _set_level(self, message: dict[str, Any]) -> dict[str, Any]:
        level = (message.get("params") or {}).get("level")
        if type(level) is not str or level not in RANK:
            raise ProtocolError(INVALID_PARAMS, f"Invalid params: level must be one of {', '.join(LEVELS)}")
        route = current()
        if route is not None and route.session is not None:
            route.session.log_rank = RANK[level]  # an HTTP session's own level
        else:
            LogState.client_rank = RANK[level]
        LogState.sink = self.client_log
        return {}

    # -- input ----------------------------------------------------------------------------------------
    def handle_frame(self, frame: bytes | None) -> None:
        """Answer one frame: parse, check the envelope, dispatch, write at most one response."""
        if frame is None:
            self.send(seams.SEAMS["error_response"](
                None, INVALID_REQUEST, f"Invalid Request: message exceeds {self.max_frame_bytes} bytes"))
            return
        if not frame or frame.isspace():
            return  # blank line between messages: not a message
        try:
            msg = decode_frame(frame.decode("utf-8"))
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            self.send(seams.SEAMS["error_response"](None, PARSE_ERROR, f"Parse error: {str(exc)[:200]}"))
            return
        problem = check_envelope(msg)
        if problem is not None:
            if problem is not IGNORE:
                self.send(problem)
            return
        params = msg.get("params")
        if params and "_meta" in params and self.modern and "id" in msg and msg["method"] != "initialize" \
                and is_modern(params["_meta"]):
            # a request in the 2026-07-28 envelope, on the pipe a handshake-era client may share: served by its rules
            self.serve_modern(msg, Route(self.send_modern, scope_id=self.session_id, modern=True))
            return
        # what ``deliver`` does, written out: this is the hot path of the stdio transport
        try:
            response = seams.SEAMS["dispatch"](msg, self.handlers)
        except Exception as exc:
            report_seam_error("dispatch", exc)
            response = None
        if "id" not in msg:
            if response is not None:  # the dispatch seam owns this rule (ERR-001): what it returns is sent
                self.send(response)
            return
        if response is None:
            response = seams.SEAMS["error_response"](msg["id"], INTERNAL_ERROR, "Internal error: no response")
        elif response.get("result") is DEFERRED:
            return  # a worker thread will answer
        self.send(response)

    def deliver(self, msg: dict[str, Any], handlers: Mapping[str, Callable[[dict[str, Any]], Any]],
                send: Callable[[dict[str, Any]], None]) -> None:
        """Dispatch one checked message with ``handlers`` and send at most one response through ``send``."""
        try:
            response = seams.SEAMS["dispatch"](msg, handlers)
        except Exception as exc:
            report_seam_error("dispatch", exc)
            response = None
        if "id" not in msg:
            if response is not None:  # the dispatch seam owns this rule (ERR-001): what it returns is sent
                send(response)
            return
        if response is None:
            response = seams.SEAMS["error_response"](msg["id"], INTERNAL_ERROR, "Internal error: no response")
        elif response.get("result") is DEFERRED:
            return  # a worker thread will answer
        send(response)

    def serve_legacy(self, msg: dict[str, Any], route: Route) -> None:
        """Answer a handshake-era message through ``route`` (an HTTP session's request or notification)."""
        with serving(route):
            self.deliver(msg, self.handlers, route.send)

    def serve_modern(self, msg: dict[str, Any], route: Route, headers: Mapping[str, str] | None = None) -> None:
        """Answer a 2026-07-28 request through ``route``: check its envelope (and HTTP headers), then dispatch."""
        try:
            seams.call("check_request_meta", msg, headers)
        except ProtocolError as exc:
            route.send(seams.SEAMS["error_response"](msg["id"], exc.code, exc.message, exc.data))
            return
        except Exception:  # a broken check fails closed
            route.send(seams.SEAMS["error_response"](msg["id"], INTERNAL_ERROR, "Internal error: the request could "
                                                     "not be checked"))
            return
        meta = (msg.get("params") or {}).get("_meta")
        level = meta.get(LOG_LEVEL) if type(meta) is dict else None
        if type(level) is str and level in RANK:  # the client asked for notifications/message on this request only
            route.log_rank = RANK[level]
            LogState.sink = self.client_log
        with serving(route):
            self.deliver(msg, self.modern_handlers, route.send)

    def hurried(self) -> bool:
        """True once a second signal asked to cut the drain short."""
        return self._hurry

    def request_shutdown(self, signum: int) -> None:
        """Signal handler body: stop reading; break a blocking read only when nothing runs inline."""
        self._hurry = self._signum is not None  # a second signal cuts the drain short
        self._signum = signum
        self._stop = True
        if self._reading:
            raise _Shutdown

    def serve(self) -> int:
        """Run until stdin EOF or SIGTERM/SIGINT; exit 0 after an orderly drain (1 if the reader broke)."""
        try:
            seams.SEAMS["install_signal_handlers"](self.request_shutdown)
        except Exception as exc:
            report_seam_error("install_signal_handlers", exc)
        self.log("info", "started", session=self.session_id, workspace=str(self.workspace),
                 tools=len(self.calls.tools))
        reason = "eof"
        try:
            frames = iter(seams.SEAMS["read_frames"](self.stdin, self.max_frame_bytes))
            while not self._stop:
                self._reading = True
                try:
                    if self._stop:
                        break
                    frame = next(frames)
                finally:
                    self._reading = False
                self.handle_frame(frame)
        except StopIteration:
            pass
        except _Shutdown:
            pass
        except Exception as exc:
            report_seam_error("read_frames", exc)
            reason = "reader-error"
        if self._signum is not None:
            reason = "signal"
        timeout = SIGNAL_DRAIN_SECONDS if self._signum is not None else EOF_DRAIN_SECONDS
        self.finish(reason, timeout)
        return 1 if reason == "reader-error" else 0

    def finish(self, reason: str, timeout: float) -> None:
        """Drain in-flight calls (a second signal cuts it short), flush, and log the one shutdown line."""
        abandoned = self.calls.drain(timeout, lambda: self._hurry)
        if self.stdout is not None:
            with self._write_lock:
                try:
                    self.stdout.flush()
                except OSError:
                    pass
        LogState.sink = None  # the shutdown line goes to stderr only
        self.log("notice", "shutdown", reason=reason, signal=self._signum, abandoned_calls=abandoned)
