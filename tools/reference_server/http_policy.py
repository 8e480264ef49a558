"""The HTTP transport's security decisions, one seam each: where to listen, whom to answer, session ids.

Why seams: each is a rule a remote MCP server can get wrong while working
perfectly for its own client (listening on every interface, trusting any
``Origin`` or ``Host``, guessable session ids), so a harness must be able to
swap in the wrong decision and watch a probe catch it. Imports that cost start-up
time are made inside the functions: a stdio server never calls them.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection


def bind_address(host: str, allow_remote: bool) -> str:
    """Seam: the IP address to listen on for ``host``; raises ValueError for a non-loopback one unless allowed.

    2025-11-25 and 2026-07-28 basic/transports (Streamable HTTP, security): a server running
    locally SHOULD bind only to localhost. ``localhost`` means 127.0.0.1; any other name is
    resolved, and refused when it is not a loopback address.
    """
    import ipaddress
    import socket

    name = host.strip("[]")
    if name.lower() == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        try:
            infos = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise ValueError(f"cannot resolve {name!r}: {exc.strerror or exc}") from None
        address = ipaddress.ip_address(infos[0][4][0])
    if not address.is_loopback and not allow_remote:
        raise ValueError("it is not a loopback address, so other machines could reach the server. Listen on "
                         "127.0.0.1, or pass --allow-remote-bind (and put TLS and authentication in front)")
    return str(address)


def host_allowed(host: str | None, allowed: Collection[str]) -> bool:
    """Seam: whether a request's ``Host`` header names this server (the DNS-rebinding defence).

    A rebound page's requests carry the attacker's name in ``Host``, ``Origin`` or not; the
    specification does not name this check, the official Python SDK makes it (421).
    ``allowed`` holds lower-case ``name:port`` values.
    """
    return host is not None and host.lower() in allowed


def origin_allowed(origin: str | None, allowed: Collection[str]) -> bool:
    """Seam: whether a request's ``Origin`` header may use this server.

    2025-11-25 and 2026-07-28 basic/transports (Streamable HTTP, security): servers MUST validate
    ``Origin`` and answer 403 when it is present and invalid; a request without one (not sent
    by a browser) passes. ``allowed`` holds lower-case ``scheme://name:port`` values.
    """
    return origin is None or origin.lower() in allowed


def new_session_id() -> str:
    """Seam: a session id for a handshake-era HTTP session (2025-11-25 basic/transports#session-management).

    It SHOULD be globally unique and cryptographically secure, and MUST be visible ASCII:
    256 random bits, URL-safe Base64. It only finds the session's negotiated state; it
    authorizes nothing.
    """
    import secrets

    return secrets.token_urlsafe(32)
