"""A Streamable HTTP server started with the host a user would type listens on loopback only.

A server that listens on 0.0.0.0 or ``::`` answers every machine that can reach any of its host's interfaces:
the café Wi-Fi, the office network, a container's published port (2025-11-25 and 2026-07-28 basic/transports,
Streamable HTTP, security: servers running locally SHOULD bind only to localhost). The probe starts the server
over HTTP, waits for the URL it prints, then reads the TCP sockets its processes listen on from the kernel's
tables (Linux, /proc; ``/proc/PID/net`` shows that process's own network namespace, so this works when the
verifier runs the server in a private one). Every listening address must be a loopback one.

An audit by URL has no process to inspect, so there the rule is not checked.
"""

from __future__ import annotations

import ipaddress
import os

from ..http import NOT_HTTP, endpoint
from ..registry import probe
from ..support import Finding, Target, failed, not_applicable, passed
from .listening_sockets import Listener, listening, session_pids

NOT_SEEN_BY_URL = ("not checked: the audit cannot see which address the server listens on; "
                   "run `ss -ltnp` on its host")


def is_loopback(address: str) -> bool:
    """Whether ``ip:port`` (IPv6 in brackets, as the socket tables are read) is a loopback address; an IPv4
    address mapped into IPv6 (``::ffff:127.0.0.1``) is judged as the IPv4 one."""
    ip = ipaddress.ip_address(address.rpartition(":")[0].strip("[]"))
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def _shown(listener: Listener) -> str:
    """One evidence line without what changes on every run (the process id and the port)."""
    return f"listens on {listener.kind} {listener.address.rpartition(':')[0]}:PORT"


@probe("http_loopback_bind", "the HTTP server listens on loopback addresses only",
       over_http=True, reasons={"listens_beyond_loopback": "the server listens on an address other than loopback "
                                           "(0.0.0.0, ::, or a real interface's address)"})
def http_loopback_bind(target: Target) -> Finding:
    """Start the server over HTTP; once it prints its URL, every TCP socket its processes listen on is loopback."""
    if target.transport != "http":
        return not_applicable(NOT_HTTP)
    if target.url is not None:
        return not_applicable(NOT_SEEN_BY_URL)
    if not os.path.isdir("/proc/self/fd"):
        return not_applicable("not checked: this platform has no /proc, so listening sockets cannot be read")
    point = endpoint(target)
    printed = f"the server printed: listening on {point.url.replace(f':{point.port}', ':PORT')}"
    session = target.sessions[-1]
    pids = session_pids(session.pid)
    tcp = [x for x in listening(pids) if x.kind in ("tcp", "tcp6")]
    if not tcp:
        return not_applicable("not checked: the server printed its URL but no process of its session holds a "
                              "listening TCP socket", printed)
    beyond = [x for x in tcp if not is_loopback(x.address)]
    if beyond:
        return failed("listens_beyond_loopback",
                      f"the server listens on {len(beyond)} address(es) beyond loopback: every machine that reaches "
                      "this host can call its tools", printed, *[_shown(x) for x in tcp[:6]])
    return passed(f"all {len(tcp)} listening TCP socket(s) of the server are on loopback", printed,
                  *[_shown(x) for x in tcp[:6]])
