"""What every toolchain reader may know of the reference server without loading it: the tool seam, and how
the server is started to prove a rule."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Rule

TOOL_SEAM = "tool"
"""The seam that adds a tool: the snippet defines ``TOOL`` and ``handle``."""


def server_args(rule: Rule) -> list[str]:
    """The reference server's options for proving ``rule``. A rule that applies only to handshake-era
    servers (condition ``legacy-era``) is proved against one (``--legacy-only``): the dual-era server would
    answer ``server/discover`` itself, and a block written for a legacy server would prove nothing."""
    return ["--legacy-only"] if "legacy-era" in rule.conditions else []
