"""SEC-007: descriptors the server inherits at start are closed before it does anything else.

A launcher can leave descriptors open across ``exec`` (a pipe to another process, a socket to a
privileged service); a server that keeps them passes them on to every child and gives a hijacked tool a
channel it was never meant to have. PEP 446 does not help: it covers descriptors Python opens, not the
ones a process starts with. The probe starts the server with a pipe at a low number and a socket at 600
or above, and after the handshake reads ``/proc/<pid>/fd``: neither object may still be open.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

from ..registry import probe
from ..support import Finding, Target, WireTimeout, failed, handshake, not_applicable, passed

_HIGH_FD_FLOOR = 600
"""The inherited socket is placed at or above this number, past any fixed small range a server might close."""


@probe("close_inherited_fds", "descriptors inherited at start are closed",
       reasons={"inherited_fd_open": "a descriptor inherited at start-up is still open after the handshake"})
def close_inherited_fds(target: Target) -> Finding:
    """Start the server holding an inherited pipe and a high-numbered socket; after the handshake neither is open."""
    if not Path("/proc/self/fd").is_dir():
        return not_applicable("/proc is not available on this system: descriptors cannot be inspected")
    import fcntl
    import resource

    read_end, write_end = os.pipe()
    left, right = socket.socketpair()
    high = None
    try:
        if resource.getrlimit(resource.RLIMIT_NOFILE)[0] > _HIGH_FD_FLOOR + 64:
            high = fcntl.fcntl(left.fileno(), getattr(fcntl, "F_DUPFD_CLOEXEC", fcntl.F_DUPFD), _HIGH_FD_FLOOR)
        passed_fds = {write_end: f"pipe:[{os.fstat(write_end).st_ino}]"}
        if high is not None:
            passed_fds[high] = f"socket:[{os.fstat(high).st_ino}]"
        session, _ = handshake(target, pass_fds=tuple(passed_fds))
    finally:
        for fd in (read_end, write_end, high):
            if fd is not None:
                os.close(fd)
        left.close()
        right.close()
    try:
        session.request("ping", timeout=target.timeout)
    except WireTimeout as exc:
        return failed("no_answer", f"the server did not answer ping after the handshake: {exc}",
                      *session.transcript(limit=8))
    evidence = [f"started with inherited descriptors {', '.join(f'{fd} ({kind})' for fd, kind in passed_fds.items())}"]
    try:
        names = os.listdir(f"/proc/{session.pid}/fd")
    except OSError as exc:
        return not_applicable(f"cannot list /proc/{session.pid}/fd: {exc}", *evidence)
    links = {}
    for name in names:
        try:
            links[int(name)] = os.readlink(f"/proc/{session.pid}/fd/{name}")
        except (OSError, ValueError):
            continue
    evidence.append("open after the handshake: " + ", ".join(f"{fd}->{link}" for fd, link in sorted(links.items())))
    wanted = set(passed_fds.values())
    still = [f"fd {fd} -> {link}" for fd, link in sorted(links.items()) if link in wanted]
    if still:
        return failed("inherited_fd_open", f"{len(still)} inherited descriptor(s) are still open after start-up: "
                      f"{'; '.join(still)}", *evidence)
    return passed(f"the {len(passed_fds)} inherited descriptor(s) were closed at start-up", *evidence)
