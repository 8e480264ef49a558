"""The fetch tool's two seams: which URLs may be fetched (``check_url``) and fetching one (``fetch_url``).

Why two: the policy (scheme, where a name resolves, the operator's allow-list) is one decision, and the
fetch (connect to the checked address, check every redirect, stop at a size and a deadline) is another;
a snippet can get either one wrong on its own. Network modules are imported on first use, so a server
started without ``--fetch-tool`` pays nothing for them.
"""
from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket
    import threading
    from collections.abc import Callable, Collection

ALLOW_ENV = "HB_FETCH_ALLOW"
"""Comma-separated ``host:port`` pairs the operator lets the tool reach although they are not public (an
intranet service). Empty by default. The handbook's probes name their own loopback listener here, so the
behaviour after the first connection (redirects, size, time) can be observed offline."""
REDIRECTS = (301, 302, 303, 307, 308)


class FetchPolicy:
    """What one fetch may do (a plain class: ``dataclasses`` would cost the server's start-up 10 ms)."""

    __slots__ = ("check_url", "max_bytes", "seconds", "max_redirects")

    def __init__(self, check_url: Callable[[str], str], *, max_bytes: int = 262144, seconds: float = 10.0,
                 max_redirects: int = 3) -> None:
        self.check_url = check_url
        """The ``check_url`` seam with the operator's allow-list bound: the address to connect to, or PermissionError."""
        self.max_bytes = max_bytes
        """Body bytes read at most; reading stops there."""
        self.seconds = seconds
        """Overall deadline for the whole fetch, redirects included."""
        self.max_redirects = max_redirects


def allowed_destinations() -> frozenset[str]:
    """The operator's allow-list from :data:`ALLOW_ENV`, lower-cased."""
    return frozenset(e.strip().lower() for e in os.environ.get(ALLOW_ENV, "").split(",") if e.strip())


def is_public(address: str) -> bool:
    """True for a global unicast address; an IPv6 form of an IPv4 address is judged as that address too."""
    import ipaddress

    ip = ipaddress.ip_address(address.split("%")[0])
    if ip.version == 6:
        nat64 = ipaddress.ip_network("64:ff9b::/96")
        inner = ip.ipv4_mapped or ip.sixtofour or (ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF) if ip in nat64 else None)
        if inner is not None and not is_public(str(inner)):
            return False
    # is_global is False for loopback, RFC 1918 and fc00::/7, link-local (169.254.169.254, the cloud
    # metadata service), shared (100.64/10) and reserved ranges
    return ip.is_global and not ip.is_multicast


def check_url(url: str, allow: Collection[str]) -> str:
    """The address to connect to for ``url``; raises PermissionError unless it is an http(s) URL whose host
    resolves only to public addresses (or whose ``host:port`` the operator allowed)."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PermissionError("only http and https URLs with a host name are fetched")
    if parts.username is not None or parts.password is not None:
        raise PermissionError("URLs with a user name or password are not fetched")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise PermissionError("the port is not a number from 0 to 65535") from None
    try:
        answers = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise PermissionError(f"the host name {parts.hostname!r} does not resolve") from None
    addresses = [str(info[4][0]) for info in answers]  # a host string for AF_INET and AF_INET6
    if f"{parts.hostname}:{port}" in allow and addresses:
        return addresses[0]
    internal = [a for a in addresses if not is_public(a)]
    if internal or not addresses:
        raise PermissionError(f"{parts.hostname!r} resolves to {', '.join(internal) or 'nothing'}, "
                              "not a public address")
    return addresses[0]


def _watchdog(sock: socket.socket, deadline: float) -> tuple[threading.Timer, socket.socket]:
    """A timer that shuts ``sock``'s connection down at ``deadline`` (through a handle of its own, which TLS cannot
    take over), so any read waiting on it returns: the TLS handshake, the status line, the headers, the body. A
    timeout on each read would let a response sent a byte at a time run on for ever. Returns (timer, handle)."""
    import socket
    import threading
    import time

    handle = sock.dup()
    timer = threading.Timer(deadline - time.monotonic(), handle.shutdown, [socket.SHUT_RDWR])
    timer.daemon = True
    timer.start()
    return timer, handle


def fetch_url(url: str, policy: FetchPolicy) -> bytes:
    """GET ``url``: every hop checked by ``policy.check_url`` and connected to the checked address, at most
    ``policy.max_bytes`` of the body, the whole fetch (connection, TLS, headers, body, every hop) within
    ``policy.seconds``. Raises OSError (PermissionError for a refused destination, TimeoutError past the deadline,
    ConnectionError for a broken answer)."""
    import http.client
    import socket
    import ssl
    import time
    from urllib.parse import urljoin, urlsplit

    deadline = time.monotonic() + policy.seconds
    for _ in range(policy.max_redirects + 1):
        address = policy.check_url(url)
        parts = urlsplit(url)
        https = parts.scheme == "https"
        kind = http.client.HTTPSConnection if https else http.client.HTTPConnection
        assert parts.hostname is not None  # check_url resolved it
        connection = kind(parts.hostname, parts.port)  # the name stays for the Host header and the certificate
        sock = socket.create_connection((address, connection.port), max(deadline - time.monotonic(), 0.01))
        timer, handle = _watchdog(sock, deadline)
        try:
            connection.sock = ssl.create_default_context().wrap_socket(sock, server_hostname=parts.hostname) \
                if https else sock
            target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            connection.request("GET", target, headers={"Accept-Encoding": "identity"})
            response = connection.getresponse()
            location = response.getheader("Location")
            redirect = response.status in REDIRECTS and location
            body = b"" if redirect else response.read(policy.max_bytes)
        except (OSError, http.client.HTTPException) as exc:
            if time.monotonic() < deadline:
                raise ConnectionError(f"the fetch failed ({type(exc).__name__})") from None
        finally:
            timer.cancel()
            timer.join()  # a shutdown under way ends before its handle closes
            handle.close()
            connection.close()
        if time.monotonic() >= deadline:  # the watchdog cut the answer short: it is not the whole answer
            raise TimeoutError(f"the fetch took longer than {policy.seconds:g} s")
        if not redirect:
            return body
        url = urljoin(url, location)  # checked at the top of the loop, like the first URL
    raise PermissionError(f"more than {policy.max_redirects} redirects")
