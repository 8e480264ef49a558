"""tools/list and tools/call: pagination, validation, scheduling, de-duplication, cancellation.

Why de-duplication: a client that times out and retries a non-idempotent call
(``idempotentHint`` false and ``readOnlyHint`` false) with the same request id
must not apply it twice; the cached response is replayed instead.
"""
from __future__ import annotations

import base64
import json
import threading
import time
from collections import OrderedDict

from reference_server import seams
from reference_server.errors import INVALID_PARAMS, INVALID_REQUEST, ProtocolError, ToolError
from reference_server.logs import enabled, report_seam_error
from reference_server.registry import Context
from reference_server.results import text_result
from reference_server.route import CURRENT, current, serving

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Protocol

    from reference_server.registry import ToolEntry
    from reference_server.route import Route

    class ServerSide(Protocol):
        """What the tool calls need of the server that owns them (``server.Server`` has it): imports go one way."""

        session_id: str
        workspace: Path

        def log(self, level: str, event: str, **fields: Any) -> None: ...

        def send(self, message: dict[str, Any]) -> None: ...

DEFERRED = object()  # a handler result meaning "a worker thread will send the response"
DEDUP_SIZE = 1024
DUPLICATE_WAIT_SECONDS = 60.0  # longest an HTTP retry waits for the first copy of a call (run_command: 30 s)


class ToolCalls:
    """The tool registry of one server instance plus its in-flight and de-dup bookkeeping."""

    def __init__(self, server: ServerSide, *, page_size: int) -> None:
        self.server = server
        self.page_size = page_size
        self.tools: dict[str, ToolEntry] = {}
        self._listing: list[dict[str, Any]] | None = None
        self._nonce = server.session_id[:8]  # cursors from another server instance are rejected
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._inflight: dict[Any, list[Any]] = {}  # key -> [Context, cancelled?]
        self._running: set[Any] = set()  # keys of non-idempotent calls under way (claimed, not yet remembered)
        self._dedup: OrderedDict[Any, tuple[Any, dict[str, Any]]] = OrderedDict()

    def add(self, entry: ToolEntry) -> None:
        self.tools[entry.name] = entry  # same name: the later tool replaces the earlier
        self._listing = None

    # -- tools/list -------------------------------------------------------------------------------------
    def list_tools(self, message: dict[str, Any]) -> dict[str, Any]:
        if self._listing is None:
            self._listing = [self.tools[name].definition for name in sorted(self.tools)]
        cursor = (message.get("params") or {}).get("cursor")
        offset = 0 if cursor is None else self._decode_cursor(cursor)
        end = offset + self.page_size
        result: dict[str, Any] = {"tools": self._listing[offset:end]}
        if end < len(self._listing):
            result["nextCursor"] = base64.urlsafe_b64encode(f"{self._nonce}:{end}".encode()).decode()
        return result

    def _decode_cursor(self, cursor: Any) -> int:
        return seams.call("decode_cursor", cursor, nonce=self._nonce, count=len(self._listing or ()))

    # -- tools/call -------------------------------------------------------------------------------------
    def call_tool(self, message: dict[str, Any]) -> Any:
        if "id" not in message:
            self.server.log("warning", "tools_call_without_id")
            return None  # a request sent as a notification is not executed: nobody could see the result
        params = message.get("params") or {}
        name = params.get("name")
        if type(name) is not str:
            raise ProtocolError(INVALID_PARAMS, "Invalid params: tools/call needs params.name, "
                                                "a string naming a tool from tools/list")
        entry = self.tools.get(name)
        if entry is None:
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {name[:100]!r}; call tools/list for the tools")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        elif type(arguments) is not dict:
            raise ProtocolError(INVALID_PARAMS, "Invalid params: params.arguments must be an object")
        request_id = message["id"]
        route = CURRENT.route  # route.current(), inlined: the hot path
        if enabled("debug"):
            self.server.log("debug", "tools_call", tool=name, arguments=arguments)
        key = fingerprint = None
        if entry.non_idempotent or entry.blocking:
            key = seams.call("request_key", self.server.session_id if route is None else route.scope_id, request_id)
        # De-duplication by id belongs to the handshake era (2025-11-25 basic#requests: an id is never reused in a
        # session); 2026-07-28 lets a client reuse an id once it has had its answer (basic/index#requests).
        if entry.non_idempotent and (route is None or not route.modern):
            fingerprint = (name, json.dumps(arguments, sort_keys=True, default=str))
            answer = self._claim(key, fingerprint, name, route)
            if answer is not None:
                return answer
        try:
            result = self._validate(entry, arguments)
            if result is None:
                meta = params.get("_meta")
                token = meta.get("progressToken") if type(meta) is dict else None
                ctx = Context(self.server.workspace, request_id, token, self.server.send if route is None else route.send)
                if entry.blocking:
                    self._start_worker(key, request_id, entry, arguments, ctx, fingerprint, route)
                    return DEFERRED
                result = self.run(entry, arguments, ctx)
        except BaseException:
            if fingerprint is not None:
                self._release(key)
            raise
        if fingerprint is not None:
            self._remember(key, fingerprint, result)
        return result

    def _claim(self, key: Any, fingerprint: Any, name: str, route: Route | None) -> Any:
        """None when this call may run (it now holds ``key``); else the answer: a replayed result, or DEFERRED."""
        with self._idle:
            cached = self._dedup.get(key)
            if cached is None and key not in self._running:
                self._running.add(key)
                return None
            if cached is None and route is not None and route.separate_replies:
                # each copy has its own reply channel (HTTP): wait for the first copy, then replay its answer
                deadline = time.monotonic() + DUPLICATE_WAIT_SECONDS
                while key not in self._dedup and key in self._running and time.monotonic() < deadline:
                    self._idle.wait(min(deadline - time.monotonic(), 0.5))
                cached = self._dedup.get(key)
                if cached is None:
                    raise ProtocolError(INVALID_REQUEST, "Invalid Request: a call with this request id is still "
                                                         "running in this session; use a new id")
        if cached is None:
            return DEFERRED  # the first copy is still running and will answer on the shared pipe
        if cached[0] != fingerprint:
            raise ProtocolError(INVALID_REQUEST, "Invalid Request: this request id was already used for a "
                                                 "different tools/call in this session; use a new id")
        self.server.log("info", "duplicate_call_replayed", tool=name)
        return cached[1]

    def _validate(self, entry: ToolEntry, arguments: dict[str, Any]) -> dict[str, Any] | None:
        """None when valid, else the isError result listing what to fix (SEP-1303)."""
        try:
            problems = seams.SEAMS["validate_arguments"](entry.definition, arguments)
        except Exception as exc:  # fail closed: never run a handler on unvalidated input
            report_seam_error("validate_arguments", exc)
            return text_result(f"Arguments for tool '{entry.name}' could not be validated. "
                               "Action: check them against the tool's inputSchema and retry.", is_error=True)
        if not problems:
            return None
        self.server.log("info", "invalid_arguments", tool=entry.name, arguments=arguments, problems=problems)
        return seams.call("invalid_arguments_result", entry.name, problems)

    def run(self, entry: ToolEntry, arguments: dict[str, Any], ctx: Context) -> dict[str, Any]:
        """Run a handler; a ToolError becomes its own message, anything else the safe ``tool_error_result``."""
        try:
            result = entry.handler(arguments, ctx)
            if type(result) is not dict:
                raise TypeError(f"tool handler returned {type(result).__name__}, not a CallToolResult dict")
            return result
        except ToolError as exc:
            return text_result(exc.message, is_error=True)
        except Exception as exc:
            try:
                return seams.SEAMS["tool_error_result"](entry.name, exc)
            except Exception as seam_exc:
                report_seam_error("tool_error_result", seam_exc)
                return text_result(f"Tool '{entry.name}' failed. Action: retry later.", is_error=True)

    def _remember(self, key: Any, fingerprint: Any, result: dict[str, Any]) -> None:
        with self._idle:
            self._dedup[key] = (fingerprint, result)
            if len(self._dedup) > DEDUP_SIZE:
                self._dedup.popitem(last=False)
            self._running.discard(key)
            self._idle.notify_all()

    def _release(self, key: Any) -> None:
        with self._idle:
            self._running.discard(key)
            self._idle.notify_all()

    # -- workers, cancellation, drain -----------------------------------------------------------------
    def _start_worker(self, key: Any, request_id: Any, entry: ToolEntry, arguments: dict[str, Any],
                      ctx: Context, fingerprint: Any, route: Route | None) -> None:
        with self._lock:
            self._inflight[key] = [ctx, False]
        threading.Thread(target=self._work, args=(key, request_id, entry, arguments, ctx, fingerprint, route),
                         name=f"tool-{entry.name}", daemon=True).start()

    def _work(self, key: Any, request_id: Any, entry: ToolEntry, arguments: dict[str, Any], ctx: Context,
              fingerprint: Any, route: Route | None) -> None:
        try:
            if route is None:
                result = self.run(entry, arguments, ctx)
            else:
                with serving(route):  # its log records and progress go where the request's answer goes
                    result = self.run(entry, arguments, ctx)
            if fingerprint is not None:
                self._remember(key, fingerprint, result)
            with self._lock:
                cancelled = self._inflight[key][1]
            send = self.server.send if route is None else route.send
            if not cancelled:
                send({"jsonrpc": "2.0", "id": request_id, "result": result})
                return
            answer = seams.call("answer_cancelled_call", request_id, result)  # None: the cancelled call gets nothing
            if answer is not None:
                send(answer)
                return
            self.server.log("info", "cancelled_call_dropped", tool=entry.name)
            if route is not None:
                route.abandon()
        finally:
            with self._idle:
                self._inflight.pop(key, None)
                self._idle.notify_all()

    def cancelled(self, message: dict[str, Any]) -> None:
        """notifications/cancelled: the in-flight call is told to stop and will get no response."""
        request_id = (message.get("params") or {}).get("requestId")
        route = current()
        key = seams.call("request_key", self.server.session_id if route is None else route.scope_id, request_id)
        found = self.cancel(key)
        self.server.log("info", "cancel_requested", found=found)

    def cancel(self, key: Any) -> bool:
        """Tell the in-flight call under ``key`` to stop; its answer will not be sent. False if none runs."""
        with self._lock:
            record = self._inflight.get(key)
            if record is not None:
                record[1] = True
                record[0].cancelled.set()
        return record is not None

    def drain(self, timeout: float, hurry: Any) -> int:
        """Wait for in-flight calls (their responses get written); cancel what is left. Returns that count."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._inflight and not hurry():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._idle.wait(min(remaining, 0.1))
            for record in self._inflight.values():
                record[1] = True
                record[0].cancelled.set()
            return len(self._inflight)
