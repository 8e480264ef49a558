"""A Streamable HTTP server started with the host a user would type listens on loopback only.

A server that listens on 0.0.0.0 or ``::`` answers every machine that can reach any of its host's interfaces:
the café Wi-Fi, the office network, a container's published port (2025-11-25 and 2026-07-28 basic/transports,
Streamable HTTP, security: servers running locally SHOULD bind only to localhost). The probe starts the server
over HTTP, waits for the URL it prints, then reads the TCP sockets its processes listen on from the kernel's
tables (Linux, /proc; ``/proc/PID/net`` shows that process's own network namespace, so this works when the
verifier runs the server in a private one). Every listening address must be a loopback one.

An audit by URL has no process to inspect, but a server on this machine is still in this machine's socket tables:
when the URL's host is a loopback one, the probe reads every TCP socket listening on the URL's port in
/proc/net/tcp and /proc/net/tcp6 (this network namespace, whoever holds the socket) and judges those. A server on
another host, or one this machine's tables do not show (it runs in another network namespace, behind a forwarded
port), is not checked.
"""

from __future__ import annotations

import ipaddress
import os

from ..http import NOT_HTTP, Endpoint, endpoint, parse_url
from ..registry import probe
from ..support import Finding, Target, failed, not_applicable, passed
from .no_listening_sockets import Listener, TableRow, listening, listening_on_port, session_pids

NOT_SEEN_BY_URL = ("not checked: the audit cannot see which address the server listens on; "
                   "run `ss -ltnp` on its host")
BEYOND = "every machine that reaches this host can call its tools"


def is_loopback(address: str) -> bool:
    """Whether ``ip:port`` (IPv6 in brackets, as the socket tables are read) is a loopback address; an IPv4
    address mapped into IPv6 (``::ffff:127.0.0.1``) is judged as the IPv4 one."""
    ip = ipaddress.ip_address(address.rpartition(":")[0].strip("[]"))
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def host_shown(address: str) -> str:
    """The host part of ``ip:port`` as a person writes it: ``0.0.0.0``, ``[::]``, ``[::1]``."""
    ip = ipaddress.ip_address(address.rpartition(":")[0].strip("[]"))
    return f"[{ip}]" if ip.version == 6 else str(ip)


def _shown(listener: Listener) -> str:
    """One evidence line without what changes on every run (the process id and the port)."""
    return f"listens on {listener.kind} {host_shown(listener.address)}:PORT"


@probe("http_listen_on_loopback", "the HTTP server listens on loopback addresses only",
       over_http=True, isolated_network=True, reasons={"listens_beyond_loopback": "the server listens on an address other than loopback "
                                           "(0.0.0.0, ::, or a real interface's address)"})
def http_listen_on_loopback(target: Target) -> Finding:
    """Start the server over HTTP; once it prints its URL, every TCP socket its processes listen on is loopback."""
    if target.transport != "http":
        return not_applicable(NOT_HTTP)
    if target.url is not None:
        return _by_url(parse_url(target.url))
    if not os.path.isdir("/proc/self/fd"):
        return not_applicable("not checked: this platform has no /proc, so listening sockets cannot be read")
    point = endpoint(target)
    printed = f"the server printed: listening on {point.url.replace(f':{point.port}', ':PORT')}"
    session = target.sessions[-1]
    assert session.pid is not None, "endpoint() starts the server on its pipes"
    pids = session_pids(session.pid)
    tcp = [x for x in listening(pids) if x.kind in ("tcp", "tcp6")]
    if not tcp:
        return not_applicable("not checked: the server printed its URL but no process of its session holds a "
                              "listening TCP socket", printed)
    beyond = [x for x in tcp if not is_loopback(x.address)]
    if beyond:
        return failed("listens_beyond_loopback",
                      f"the server listens on {len(beyond)} address(es) beyond loopback: {BEYOND}", printed, *[_shown(x) for x in tcp[:6]])
    return passed(f"all {len(tcp)} listening TCP socket(s) of the server are on loopback", printed,
                  *[_shown(x) for x in tcp[:6]])


def loopback_host(host: str) -> bool:
    """Whether a URL's host names this machine's loopback: ``localhost`` (or a name under it) or a loopback address."""
    if host.lower() == "localhost" or host.lower().endswith(".localhost"):
        return True
    try:
        return is_loopback(f"[{host}]:0" if ":" in host else f"{host}:0")
    except ValueError:  # a name other than localhost: it may resolve anywhere
        return False


def _table_row(row: TableRow, port: int) -> str:
    """One evidence line: the kernel's row (port written ``PORT``) and the address it means."""
    kernel = row.row.replace(f":{port:04X} ", ":PORT ", 1)
    return f"/proc/net/{row.table}: {kernel} (listens on {host_shown(row.address)}:PORT)"


def _by_url(point: Endpoint) -> Finding:
    """A server audited by URL: when the URL names this machine's loopback, judge the sockets listening on its port
    in this machine's tables; otherwise (or when the tables show none) say why it is not checked."""
    if not loopback_host(point.host):
        return not_applicable(f"{NOT_SEEN_BY_URL} (the URL's host {point.host} is not this machine's loopback)")
    if not os.path.isfile("/proc/net/tcp"):
        return not_applicable(f"{NOT_SEEN_BY_URL} (this platform has no /proc/net/tcp)")
    rows = listening_on_port(point.port)
    if not rows:
        return not_applicable(f"{NOT_SEEN_BY_URL} (no socket listens on the URL's port in this machine's "
                              "/proc/net/tcp or /proc/net/tcp6: the server may run in another network namespace)")
    shown = [_table_row(row, point.port) for row in rows[:6]]
    beyond = [row for row in rows if not is_loopback(row.address)]
    if beyond:
        return failed("listens_beyond_loopback", f"a socket listens on the server's port at {len(beyond)} address(es) "
                      f"beyond loopback ({', '.join(sorted({host_shown(r.address) for r in beyond}))}): "
                      f"{BEYOND}", *shown)
    return passed(f"all {len(rows)} socket(s) listening on the server's port are on loopback", *shown)
