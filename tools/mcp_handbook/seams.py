"""The seam every toolchain reader may name without loading the reference server."""

from __future__ import annotations

TOOL_SEAM = "tool"
"""The seam that adds a tool: the snippet defines ``TOOL`` and ``handle``."""
