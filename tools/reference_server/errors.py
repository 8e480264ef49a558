"""Exceptions that carry a deliberate, client-safe message.

Why two kinds: a :class:`ProtocolError` becomes a JSON-RPC error object (the
request itself was wrong); a :class:`ToolError` becomes a ``CallToolResult``
with ``isError: true`` whose text the model may read and act on (SEP-1303).
Any *other* exception is treated as a bug and its text is never shown.
"""
from __future__ import annotations

TYPE_CHECKING = False  # avoids importing typing at runtime (startup cost)
if TYPE_CHECKING:
    from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


class ProtocolError(Exception):
    """A JSON-RPC protocol fault raised by a method handler."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class ToolError(Exception):
    """A tool failure whose message is written for the model (safe to show)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

# Codes the 2026-07-28 revision defines in its reserved range (basic/index#error-codes).
HEADER_MISMATCH = -32020
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021  # never sent: no method here needs a client capability
UNSUPPORTED_PROTOCOL_VERSION = -32022
