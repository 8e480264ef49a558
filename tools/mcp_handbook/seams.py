"""What every toolchain reader may know of the reference server without loading it: the tool seam, and how
the server is started to prove a rule."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Rule

TOOL_SEAM = "tool"
"""The seam that adds a tool: the snippet defines ``TOOL`` and ``handle``."""


HTTP_ARGS = ["--http", "127.0.0.1:0"]
"""How a rule about Streamable HTTP is proved: the server listens on a free loopback port and prints its URL."""


def server_args(rule: Rule) -> list[str]:
    """The reference server's options for proving ``rule``. A rule that applies only to handshake-era
    servers (condition ``legacy-era``) is proved against one (``--legacy-only``): the dual-era server would
    answer ``server/discover`` itself, and a block written for a legacy server would prove nothing. A rule
    for servers that speak Streamable HTTP (condition ``http``) is proved over HTTP, on loopback."""
    args = ["--legacy-only"] if "legacy-era" in rule.conditions else []
    if "http" in rule.conditions:
        args += HTTP_ARGS
    return args
