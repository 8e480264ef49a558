"""The 2026-07-28 ("modern") era: the per-request envelope, its errors, and what every result carries.

Why per request: 2026-07-28 has no handshake (basic/index#statelessness). Every
request names its protocol version and client capabilities in ``params._meta``,
the server checks them on each one, and every result says what kind of result
it is (``resultType``). A dual-era server picks the era per request
(basic/versioning#backward-compatibility-with-initialization-based-versions):
``initialize`` opens the handshake era, a request carrying the modern envelope
is served by this revision's rules.
"""
from __future__ import annotations

from reference_server import HANDSHAKE_VERSIONS, MODERN_VERSIONS, SERVER_NAME, SERVER_TITLE, __version__
from reference_server.errors import HEADER_MISMATCH, INVALID_PARAMS, UNSUPPORTED_PROTOCOL_VERSION, ProtocolError
from reference_server.logs import LEVELS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
LOG_LEVEL = "io.modelcontextprotocol/logLevel"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"

ALL_VERSIONS: tuple[str, ...] = MODERN_VERSIONS + tuple(reversed(HANDSHAKE_VERSIONS))
"""Every revision served, newest first: ``data.supported`` of -32022, so a dual-era client can fall back."""
NAME_BEARING = {"tools/call": "name", "resources/read": "uri", "prompts/get": "name"}
"""Methods whose ``Mcp-Name`` header mirrors a body field (2026-07-28 streamable-http#standard-request-headers)."""
SERVER_IDENTITY = {"name": SERVER_NAME, "title": SERVER_TITLE, "version": __version__}
_BASE64_OPEN, _BASE64_CLOSE = "=?base64?", "?="
_ABSENT = object()


def is_modern(meta: Any) -> bool:
    """Whether ``params._meta`` asks for the modern era.

    The protocol-version key is the signal (its prefix is reserved, so handshake-era
    traffic never mints it); a half-built envelope with only the capabilities key also
    counts, so it is told what is missing. A version key naming a handshake revision is
    served by that revision's rules, where the key is just unknown metadata.
    """
    if type(meta) is not dict:
        return False
    version = meta.get(PROTOCOL_VERSION, _ABSENT)
    if version is _ABSENT:
        return CLIENT_CAPABILITIES in meta
    return version not in HANDSHAKE_VERSIONS


def _visible_ascii(value: str) -> bool:
    return all(" " <= c <= "~" or c == "\t" for c in value)


def decode_header_value(value: str) -> str:
    """A header value as the body would hold it: the ``=?base64?...?=`` sentinel decoded; raises ValueError."""
    if not _visible_ascii(value):
        raise ValueError("contains characters outside visible ASCII")
    if value.startswith(_BASE64_OPEN) and value.endswith(_BASE64_CLOSE) and len(value) >= 11:
        import base64
        import binascii

        try:
            return base64.b64decode(value[len(_BASE64_OPEN):-len(_BASE64_CLOSE)], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise ValueError("is not valid Base64 of UTF-8 text") from None
    return value


def _mismatch(message: str) -> ProtocolError:
    return ProtocolError(HEADER_MISMATCH, f"Header mismatch: {message}")


def _check_headers(message: dict[str, Any], version: Any, headers: Mapping[str, str]) -> None:
    """2026-07-28 streamable-http#server-validation: the mirrored headers are present and match the body."""
    header = headers.get("mcp-protocol-version")
    if header is None:
        raise _mismatch("the MCP-Protocol-Version header is missing; send the version named in params._meta")
    if header != version:
        raise _mismatch(f"MCP-Protocol-Version header {header[:40]!r} does not match params._meta ({str(version)[:40]!r})")
    method = headers.get("mcp-method")
    if method is None:
        raise _mismatch("the Mcp-Method header is missing; send the request's method in it")
    if method != message["method"]:
        raise _mismatch(f"Mcp-Method header {method[:60]!r} does not match the body's method {message['method'][:60]!r}")
    field = NAME_BEARING.get(message["method"])
    body_value = (message.get("params") or {}).get(field) if field else None
    if field is None or body_value is None:
        return
    raw = headers.get("mcp-name")
    if raw is None:
        raise _mismatch(f"the Mcp-Name header is missing; send params.{field} in it")
    try:
        name = decode_header_value(raw)
    except ValueError as exc:
        raise _mismatch(f"the Mcp-Name header {exc}") from None
    if name != body_value:
        raise _mismatch(f"Mcp-Name header {name[:60]!r} does not match params.{field} {str(body_value)[:60]!r}")


def check_request_meta(message: dict[str, Any], headers: Mapping[str, str] | None = None) -> str:
    """Seam: the 2026-07-28 checks on one request, in order; return its protocol version or raise ProtocolError.

    1. ``params._meta`` carries the protocol version and the client capabilities
       (2026-07-28 basic/index#meta: a request missing either MUST get -32602);
    2. over HTTP (``headers`` given, names lower-cased), ``MCP-Protocol-Version``,
       ``Mcp-Method`` and ``Mcp-Name`` are present and match the body
       (basic/transports/streamable-http#server-validation: MUST, -32020);
    3. the version is one this server serves per request (basic/versioning: MUST,
       -32022 with ``data.supported`` and ``data.requested``), and a ``logLevel``, if
       sent, is a syslog level (server/utilities/logging#error-handling: SHOULD, -32602).
    """
    params = message.get("params") or {}
    meta = params.get("_meta")
    if type(meta) is not dict:
        raise ProtocolError(INVALID_PARAMS, f"Invalid params: params._meta must carry {PROTOCOL_VERSION} and "
                            f"{CLIENT_CAPABILITIES} (2026-07-28); a client of 2025-11-25 or earlier sends initialize first")
    missing = [key for key in (PROTOCOL_VERSION, CLIENT_CAPABILITIES) if key not in meta]
    if missing:
        raise ProtocolError(INVALID_PARAMS, f"Invalid params: params._meta is missing {' and '.join(missing)}, "
                            "required on every 2026-07-28 request")
    version = meta[PROTOCOL_VERSION]
    if headers is not None:
        _check_headers(message, version, headers)
    if type(version) is not str:
        raise ProtocolError(INVALID_PARAMS, f"Invalid params: {PROTOCOL_VERSION} must be a string such as "
                            f"{MODERN_VERSIONS[-1]!r}")
    if version not in MODERN_VERSIONS:
        raise ProtocolError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                            {"supported": list(ALL_VERSIONS), "requested": version})
    if type(meta[CLIENT_CAPABILITIES]) is not dict:
        raise ProtocolError(INVALID_PARAMS, f"Invalid params: {CLIENT_CAPABILITIES} must be an object ({{}} for none)")
    level = meta.get(LOG_LEVEL)
    if level is not None and level not in LEVELS:
        raise ProtocolError(INVALID_PARAMS, f"Invalid params: {LOG_LEVEL} must be one of {', '.join(LEVELS)}")
    return version


def cache_hints(method: str) -> dict[str, Any]:
    """Seam: ``ttlMs`` and ``cacheScope`` for a cacheable result (2026-07-28 server/utilities/caching: MUST).

    The tool list and the discovery result are the same for every caller and fixed
    for the life of the process, so any cache may keep them for five minutes; so are
    the prompt list and the resource templates. The resource list and a resource's
    contents are the workspace's files: they change at any time and are the user's
    own, so they are stale at once and never shared across authorization contexts.
    """
    if method in ("resources/list", "resources/read"):
        return {"ttlMs": 0, "cacheScope": "private"}
    return {"ttlMs": 300_000, "cacheScope": "public"}


def complete(message: dict[str, Any]) -> dict[str, Any]:
    """A response with ``resultType`` (2026-07-28 basic/index#resulttype: MUST) and the server's identity in
    ``_meta`` (SHOULD) added to its result; errors and notifications pass unchanged. Never mutates ``message``."""
    result = message.get("result")
    if type(result) is not dict:
        return message
    meta = result.get("_meta")
    stamped = {"resultType": "complete", **result,
               "_meta": {**(meta if type(meta) is dict else {}), SERVER_INFO: SERVER_IDENTITY}}
    return {**message, "result": stamped}
