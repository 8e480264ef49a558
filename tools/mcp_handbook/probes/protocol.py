"""The protocol's revisions and the names a probe speaks with: the handshake era's versions, the 2026-07-28
revision and the ``_meta`` keys it puts on every request, and the client name every probe gives."""

from __future__ import annotations

from typing import Any

KNOWN_REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Revisions with the ``initialize`` handshake, oldest first."""
LATEST_LEGACY = KNOWN_REVISIONS[-1]
MODERN_REVISION = "2026-07-28"
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
PROBE_CLIENT = {"name": "mcp-handbook-probe", "version": "1"}
"""How every probe names itself as a client (``clientInfo``)."""


def modern_meta(*, drop: str = "", version: Any = MODERN_REVISION) -> dict[str, Any]:
    """The ``params._meta`` of a 2026-07-28 request: protocol version, client identity, client capabilities;
    ``drop`` leaves one key out (to see it refused)."""
    meta: dict[str, Any] = {PROTOCOL_VERSION: version, CLIENT_INFO: dict(PROBE_CLIENT), CLIENT_CAPABILITIES: {}}
    meta.pop(drop, None)
    return meta
