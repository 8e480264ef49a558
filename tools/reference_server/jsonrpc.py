"""JSON-RPC 2.0 routing: envelopes, dispatch, version negotiation, request keys.

Why ``dispatch`` is a seam of its own: routing is where "every request gets
exactly one answer, no notification ever gets one" is decided, so a harness
must be able to swap in a subtly wrong router and watch the tests catch it.
"""
from __future__ import annotations

from reference_server.errors import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, ProtocolError

from reference_server.table import SEAMS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Mapping
    from typing import Any


def error_response(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    """A JSON-RPC 2.0 error envelope; ``data`` is omitted when ``None``."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def dispatch(message: dict[str, Any], handlers: Mapping[str, Callable[[dict[str, Any]], Any]]) -> dict[str, Any] | None:
    """Route one validated message; a handler receives the whole message and returns the ``result``."""
    is_request = "id" in message
    method = message["method"]
    handler = handlers.get(method)
    if handler is None:
        if not is_request:
            return None  # unknown notifications are ignored (JSON-RPC 2.0 §4.1)
        return SEAMS["error_response"](message["id"], METHOD_NOT_FOUND, f"Method not found: {method}")
    try:
        result = handler(message)
    except ProtocolError as exc:
        if not is_request:
            return None
        return SEAMS["error_response"](message["id"], exc.code, exc.message, exc.data)
    except Exception as exc:
        from reference_server.logs import format_exception, new_reference

        ref = new_reference()
        SEAMS["log"]("error", "handler_failed", method=method, ref=ref, traceback=format_exception(exc))
        if not is_request:
            return None
        return SEAMS["error_response"](message["id"], INTERNAL_ERROR, f"Internal error (reference {ref})")
    if not is_request:
        return None
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def negotiate_version(requested: Any, supported: tuple[str, ...]) -> str:
    """Echo ``requested`` when supported, else offer the latest supported revision."""
    if isinstance(requested, str) and requested in supported:
        return requested
    return max(supported)


def request_key(session_id: str, request_id: Any) -> Hashable:
    """De-duplication key: the id is type-tagged so ``1`` and ``"1"`` stay distinct."""
    return (session_id, type(request_id).__name__, request_id)


def decode_cursor(cursor: Any, *, nonce: str, count: int) -> int:
    """Seam: turn a tools/list cursor back into an offset, or refuse it with -32602.

    Cursors are opaque to clients; an unknown one is an error (2025-11-25,
    utilities/pagination), never a silent restart from the first page, which
    would send a paging client round in circles.
    """
    import base64

    try:
        got, _, offset = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("ascii").partition(":")
        if got == nonce and offset.isdigit() and 0 < int(offset) < count:
            return int(offset)
    except (AttributeError, ValueError, UnicodeError):
        pass
    raise ProtocolError(INVALID_PARAMS, "Invalid params: unknown cursor; pass nextCursor from the previous "
                                        "tools/list result unchanged, or omit it to start over")


def server_capabilities() -> dict[str, Any]:
    """Seam: the capabilities advertised in the initialize result: exactly what this server implements.

    Resources without ``subscribe``: this server sends no ``notifications/resources/updated``."""
    return {"tools": {"listChanged": False}, "logging": {}, "resources": {"listChanged": False},
            "prompts": {"listChanged": False}}
