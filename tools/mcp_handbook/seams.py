"""The seam names the toolchain knows, read from the reference server's own table."""

from __future__ import annotations

TOOL_SEAM = "tool"
"""The seam that adds a tool: the snippet defines ``TOOL`` and ``handle``."""


def _names() -> frozenset[str]:
    from reference_server.seams import SEAMS

    return frozenset(SEAMS) | {TOOL_SEAM}


SEAM_NAMES: frozenset[str] = _names()
