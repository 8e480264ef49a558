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

NETWORK_ISOLATED_PROBES = frozenset({"http_loopback_bind"})
"""Probes whose WRONG blocks listen beyond loopback: their proofs run in a private network namespace."""
NETWORK_ISOLATION = ["unshare", "--net", "--"]
"""The command that runs the server in a new network namespace that has only a loopback interface, and that one
down: an address such as 0.0.0.0 bound there reaches nothing, on this machine or any other."""
DEFAULT_HOST_ARGS = ["--http", "localhost:0"]
"""How a rule about where the server listens is proved: with the host a user would type, ``localhost``."""
PROGRESS_TOOL_PROBES = frozenset({"progress_notifications", "cancellation_stops_work"})
"""Probes that need a tool reporting progress step by step: their proofs start the server with ``--progress-tool``."""


def server_args(rule: Rule) -> list[str]:
    """The reference server's options for proving ``rule``. A rule that applies only to handshake-era
    servers (condition ``legacy-era``) is proved against one (``--legacy-only``): the dual-era server would
    answer ``server/discover`` itself, and a block written for a legacy server would prove nothing. A rule
    for servers that speak Streamable HTTP (condition ``http``) is proved over HTTP, on loopback. A rule about
    progress or cancellation gets the tool that reports progress (``--progress-tool``); a rule for servers that
    fetch URLs (condition ``fetches-urls``) gets the reference server's URL fetcher (``--fetch-tool``)."""
    args = ["--legacy-only"] if "legacy-era" in rule.conditions else []
    if "http" in rule.conditions:
        args += DEFAULT_HOST_ARGS if rule.probe in NETWORK_ISOLATED_PROBES else HTTP_ARGS
    if rule.probe in PROGRESS_TOOL_PROBES:
        args.append("--progress-tool")
    if "fetches-urls" in rule.conditions:
        args.append("--fetch-tool")
    return args


def server_prefix(rule: Rule) -> list[str]:
    """The command the reference server is started under to prove ``rule``: a private network namespace for a
    probe in :data:`NETWORK_ISOLATED_PROBES` (its WRONG blocks listen on every interface), else nothing."""
    return list(NETWORK_ISOLATION) if rule.probe in NETWORK_ISOLATED_PROBES else []
