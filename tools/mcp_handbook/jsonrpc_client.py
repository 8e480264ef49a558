"""What every JSON-RPC client session of a probe shares, over stdio (:class:`~.wire.WireSession`) or Streamable
HTTP (:class:`~.probes.http_session.HttpSession`): the line and message records of a transcript, the timeout,
and numbering, notifying and requesting on top of a session's own ``send`` and ``wait_for_id``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
