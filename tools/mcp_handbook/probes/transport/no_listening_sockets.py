"""A stdio server holds no listening socket.

A server spoken to over stdio needs no network endpoint; one it opens anyway (a metrics port, a debug
server, a control socket) is reachable by every local process, and often by more, without any of the
client's authorisation in front of it. After an ordinary handshake the probe finds every process in the
server's session and matches their socket descriptors against the kernel's socket tables (Linux, /proc).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..registry import probe
from ..support import Finding, Target, failed, not_applicable, passed, session_with_tools


@dataclass(frozen=True, slots=True)
class Listener:
    pid: int
    kind: str
    address: str

    def __str__(self) -> str:
        return f"pid {self.pid} listens on {self.kind} {self.address}"


def session_pids(sid: int) -> list[int]:
    """The server and every process it started (they share its session: it was started with a new one)."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            continue
        if len(fields) > 3 and fields[3] == str(sid):  # state, ppid, pgrp, session
            pids.append(int(name))
    return sorted(pids)


def _socket_inodes(pid: int) -> set[str]:
    inodes: set[str] = set()
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return inodes
    for fd in names:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    return inodes


def _ip_port(hexaddr: str) -> str:
    host, _, port = hexaddr.partition(":")
    if len(host) == 8:
        ip = ".".join(str(b) for b in reversed(bytes.fromhex(host)))
    else:
        words = [bytes.fromhex(host[i:i + 8])[::-1].hex() for i in range(0, 32, 8)]
        ip = "[" + ":".join(w[j:j + 4] for w in words for j in (0, 4)) + "]"
    return f"{ip}:{int(port, 16)}"


@dataclass(frozen=True, slots=True)
class TableRow:
    """One listening TCP socket as the kernel's table shows it: which table, the address read from it, the row."""

    table: str
    """``tcp`` or ``tcp6``."""
    address: str
    """``ip:port`` as :func:`_ip_port` reads it (IPv6 in brackets)."""
    row: str
    """The row's local address, remote address and state as the kernel wrote them (hex)."""


def listening_on_port(port: int, *, net: str = "/proc/net") -> list[TableRow]:
    """Every TCP socket of this machine's network namespace listening on ``port`` (state ``0A``, LISTEN), whoever
    holds it: what a client of ``127.0.0.1:port`` on this machine reaches, read without knowing the process."""
    found: list[TableRow] = []
    for table in ("tcp", "tcp6"):
        try:
            with open(f"{net}/{table}") as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            if len(cols) >= 4 and cols[3] == "0A" and int(cols[1].rpartition(":")[2], 16) == port:
                found.append(TableRow(table, _ip_port(cols[1]), " ".join(cols[1:4])))
    return found


def listening(pids: list[int]) -> list[Listener]:
    """Listening TCP sockets, bound unconnected UDP sockets and listening Unix sockets held by ``pids``."""
    found: list[Listener] = []
    for pid in pids:
        inodes = _socket_inodes(pid)
        if not inodes:
            continue
        for table in ("tcp", "tcp6", "udp", "udp6", "unix"):
            try:
                with open(f"/proc/{pid}/net/{table}") as f:
                    rows = f.read().splitlines()[1:]
            except OSError:
                continue
            for row in rows:
                cols = row.split()
                if table == "unix":
                    if len(cols) >= 7 and cols[6] in inodes and int(cols[3], 16) & 0x10000:  # __SO_ACCEPTCON
                        found.append(Listener(pid, "unix", cols[7] if len(cols) > 7 else "(unnamed)"))
                elif len(cols) >= 10 and cols[9] in inodes:
                    listening = (cols[3] == "0A" if table.startswith("tcp")
                                 else cols[2].endswith(":0000") and not cols[1].endswith(":0000"))
                    if listening:
                        found.append(Listener(pid, table, _ip_port(cols[1])))
    return found


@probe("no_listening_sockets", "the stdio server holds no listening socket",
       reasons={"listening_socket": "a process of the server's session listens on a TCP, UDP or Unix socket"},
       shares_session=True)
def no_listening_sockets(target: Target) -> Finding:
    """After the handshake, no process of the server's session may hold a listening socket."""
    if not os.path.isdir("/proc/self/fd"):
        return not_applicable("this platform has no /proc: listening sockets cannot be inspected")
    session, _init, _tools = session_with_tools(target)
    session.request("ping", timeout=target.timeout)
    pids = session_pids(session.pid)
    listeners = listening(pids)
    if listeners:
        return failed("listening_socket", f"the server listens on {len(listeners)} socket(s): a stdio server needs none",
                      *[str(x) for x in listeners[:6]], *session.transcript(limit=6))
    return passed(f"no listening TCP, UDP or Unix socket in {len(pids)} process(es) of the server's session",
                  f"processes inspected: {', '.join(map(str, pids))}")
