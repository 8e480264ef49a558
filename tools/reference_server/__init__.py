"""A reference MCP server built from replaceable seams, over stdio or Streamable HTTP.

Standard library plus ``jsonschema`` only (imported lazily), so that spawning
it costs little more than starting the interpreter. Every concern (framing,
logging, redaction, validation, path containment, child processes, routing,
the HTTP checks) is one small function in :data:`reference_server.seams.SEAMS`,
which a test harness can swap for a snippet with ``--seam NAME=PATH``.
"""
from __future__ import annotations

__version__ = "0.2.0"

SERVER_NAME = "reference-server"
SERVER_TITLE = "MCP Handbook reference server"
HANDSHAKE_VERSIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Revisions served through the ``initialize`` handshake (the "legacy" era, 2026-07-28 basic/versioning)."""
MODERN_VERSIONS: tuple[str, ...] = ("2026-07-28",)
"""Revisions served per request, each naming its version in ``params._meta`` (the "modern" era)."""
