"""Reading Streamable HTTP without a target: an endpoint's URL taken apart, a response body read within a size and
a deadline, and the JSON-RPC messages in it (a JSON body or an event stream). Both the raw requests of
:mod:`~.http` and the client sessions of :mod:`~.http_session` read answers this way."""

from __future__ import annotations

import http.client
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..bounded_json import TooDeep
from ..bounded_json import loads as bounded_loads
from ..wire_reading import MAX_LINE_BYTES

MAX_BODY_BYTES = MAX_LINE_BYTES
"""The most of a response body a probe reads: as much as one stdio message (an honest server lists 74 tools in
109 KB; an event stream may go on, and the verdicts need its start)."""
READ_CHUNK = 65536


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where the MCP endpoint is: ``scheme://host:port/path``."""

    url: str
    scheme: str
    host: str
    port: int
    path: str

    @property
    def authority(self) -> str:
        """``host:port`` as a client writes it in ``Host`` (IPv6 in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def origin(self) -> str:
        return f"{self.scheme}://{self.authority}"


def parse_url(url: str) -> Endpoint:
    """The endpoint of an ``http://`` or ``https://`` URL; ValueError names what is wrong."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"{url!r} is not an http:// or https:// URL")
    if not parts.hostname:
        raise ValueError(f"{url!r} names no host")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise ValueError(f"{url!r} has a port that is not a number from 0 to 65535") from None
    return Endpoint(url, parts.scheme, parts.hostname, port, parts.path or "/")


def reply_messages(content_type: str, body: bytes, problems: list[str] | None = None) -> list[Any]:
    """The JSON-RPC messages in one HTTP reply: the JSON body, or every ``data:`` of an event stream. A message nested
    too deep to read is left out and, when ``problems`` is given, named there."""
    text = body.decode("utf-8", "replace")
    if content_type.startswith("text/event-stream"):
        chunks = [ln[5:].strip() for ln in text.splitlines() if ln.startswith("data:")]
    else:
        chunks = [text] if text.strip() else []
    values: list[Any] = []
    for chunk in chunks:
        try:
            value = bounded_loads(chunk)
        except TooDeep as exc:
            if problems is not None:
                problems.append(f"the server sent {exc} (a {len(chunk.encode()):,}-byte message), deeper than the "
                                "auditor reads as one message")
            continue
        except ValueError:  # what a hostile server wrote: not a message
            continue
        values.extend(value if isinstance(value, list) else [value])
    return values


def read_body(response: http.client.HTTPResponse, *, seconds: float, limit: int = MAX_BODY_BYTES) -> tuple[bytes, str]:
    """Up to ``limit`` bytes of a response body, read for at most about ``seconds`` (a byte at a time, an event
    stream that stays open, a reply of hundreds of megabytes: none holds the reader longer). Returns the bytes and
    why reading stopped before the end: ``""`` (it ended), ``"open"`` (still open at the deadline) or ``"over"``
    (longer than ``limit``)."""
    deadline = time.monotonic() + seconds
    parts: list[bytes] = []
    size = 0
    while True:
        if response.length == 0:  # all of a sized body is in: read() marks it done, so the connection can be reused
            response.read()
            return b"".join(parts), ""
        if time.monotonic() > deadline:
            return b"".join(parts), "open"
        try:
            chunk = response.read1(min(READ_CHUNK, limit + 1 - size))
        except TimeoutError:
            return b"".join(parts), "open"
        if not chunk:
            return b"".join(parts), ""
        parts.append(chunk)
        size += len(chunk)
        if size > limit:
            return b"".join(parts)[:limit], "over"


def over_limit(limit: int = MAX_BODY_BYTES) -> str:
    return f"the server sent an HTTP reply longer than the {limit:,} bytes the auditor reads as one message"
