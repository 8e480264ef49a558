"""How the reference server is started to prove a rule: the options its conditions call for and those its probe
declares in ``@probe(...)``, and the command it runs under. Apart from :mod:`mcp_handbook.seams` so that linting and
the site, which need only the seam names, never load the probes."""

from __future__ import annotations

from ..model import Rule
from ..probes import PROBES
from ..probes.registry import Probe

HTTP_ARGS = ["--http", "127.0.0.1:0"]
"""How a rule about Streamable HTTP is proved: the server listens on a free loopback port and prints its URL."""

NETWORK_ISOLATION = ["unshare", "--net", "--"]
"""The command that runs the server in a new network namespace that has only a loopback interface, and that one
down: an address such as 0.0.0.0 bound there reaches nothing, on this machine or any other."""
DEFAULT_HOST_ARGS = ["--http", "localhost:0"]
"""How a rule about where the server listens is proved: with the host a user would type, ``localhost``."""


def _declared(rule: Rule) -> Probe | None:
    """The probe that proves ``rule``, whose ``@probe(...)`` declares what its proofs need of the server; None for a
    manual rule or an unknown name (``check`` says HB031, a proof says broken)."""
    return PROBES.get(rule.probe) if rule.probe else None


def server_args(rule: Rule) -> list[str]:
    """The reference server's options for proving ``rule``: what its conditions call for, then what its probe
    declares. A rule that applies only to handshake-era servers (condition ``legacy-era``) is proved against one
    (``--legacy-only``): the dual-era server would answer ``server/discover`` itself, and a block written for a
    legacy server would prove nothing. A rule for servers that speak Streamable HTTP (condition ``http``) is proved
    over HTTP, on loopback (at ``localhost`` when its probe declares ``isolated_network``). A rule for servers that
    fetch URLs (condition ``fetches-urls``) gets the reference server's URL fetcher (``--fetch-tool``). Anything
    else a probe needs, such as a tool that reports progress, it declares in ``@probe(server_options=...)``."""
    probe = _declared(rule)
    args = ["--legacy-only"] if "legacy-era" in rule.conditions else []
    if "http" in rule.conditions:
        args += DEFAULT_HOST_ARGS if probe is not None and probe.isolated_network else HTTP_ARGS
    if probe is not None:
        args += probe.server_options
    if "fetches-urls" in rule.conditions:
        args.append("--fetch-tool")
    return args


def server_prefix(rule: Rule) -> list[str]:
    """The command the reference server is started under to prove ``rule``: a private network namespace when its
    probe declares ``isolated_network`` (its WRONG blocks listen on every interface), else nothing."""
    probe = _declared(rule)
    return list(NETWORK_ISOLATION) if probe is not None and probe.isolated_network else []
