"""Reading HTTP/1.1 requests off a socket: the request line, the header fields, a Content-Length body.

Why not ``http.server``: its header parsing goes through the ``email`` package and
a buffered file per connection, which costs more per request than the whole MCP
call it carries. This reader does only what Streamable HTTP needs (RFC 9112
message syntax, no chunked request bodies) and bounds everything a client
controls: the head's size, each line's length, the number of fields, and how
long a request may take to arrive. A broken request raises :class:`HttpError`
with the status to answer; the connection is then closed, because the next
request's start can no longer be found.
"""
from __future__ import annotations

import re
import socket
import time

MAX_LINE_BYTES = 8192  # one request line or header field value (the size most servers and proxies allow)
MAX_HEAD_BYTES = 65536  # the request line and every header field together
MAX_HEADER_FIELDS = 100
WAIT_SECONDS = 10.0  # the longest one read or write waits on the socket; the deadlines below are checked after it
IDLE_SECONDS = 30.0  # a keep-alive connection with no new request for this long is closed
HEAD_SECONDS = 10.0  # the whole head must arrive within this long of its first byte
BODY_SECONDS = 30.0  # the whole body must arrive within this long of the head
RECV_BYTES = 65536

_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"  # RFC 9110 section 5.6.2
_REQUEST_LINE = re.compile(rf"({_TOKEN}) ([!-~]+) (HTTP/[0-9]\.[0-9])")  # a target is visible ASCII, no spaces
_METHOD_START = re.compile(rf"(?:{_TOKEN})?(?: |\Z)".encode())  # what a request's first bytes can be
_FIELD = re.compile(rf"^({_TOKEN}):[ \t]*((?:[^\n]{{0,{MAX_LINE_BYTES - 1}}}[^ \t\n])?)[ \t]*$", re.MULTILINE)
"""One header field line: its name and its value without the whitespace around it. A line that does not match
(no name, no colon, a space before the colon, a folded line, a value over the limit) is found by counting."""
SERVED_VERSIONS = ("HTTP/1.1", "HTTP/1.0")


class HttpError(Exception):
    """A request that cannot be served as sent: ``status`` to answer, ``text`` to say why."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.text = text


class ClientGone(Exception):
    """The client closed the connection in the middle of a request."""


class RequestHead:
    """A request line and its header fields: names lower-cased, a repeated field's values joined by ", "."""

    __slots__ = ("method", "target", "version", "headers", "repeated", "content_length", "keep_alive",
                 "expects_continue")

    def __init__(self, method: str, target: str, version: str, headers: dict[str, str],
                 repeated: set[str]) -> None:
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.repeated = repeated  # lower-cased names that appeared more than once
        self.content_length = _content_length(headers.get("content-length"))
        connection = headers.get("connection")
        if connection is None:
            self.keep_alive = version == "HTTP/1.1"
        else:  # RFC 9112 section 9.3: HTTP/1.1 keeps the connection unless told "close"; HTTP/1.0 only when asked
            options = {token.strip(" \t").lower() for token in connection.split(",")}
            self.keep_alive = "close" not in options if version == "HTTP/1.1" else "keep-alive" in options
        expect = headers.get("expect")
        self.expects_continue = False
        if expect is not None:
            if expect.lower() != "100-continue":
                raise HttpError(417, f"Expectation Failed: this server only understands Expect: 100-continue, "
                                     f"not {expect[:40]!r}")
            self.expects_continue = version == "HTTP/1.1"


def _content_length(value: str | None) -> int | None:
    """The body's length, or None; raises :class:`HttpError` (400) for anything but one number of bytes."""
    if value is None:
        return None
    if "," in value:  # the field came more than once: RFC 9112 section 6.3 accepts copies of one length only
        copies = {part.strip(" \t") for part in value.split(",")}
        if len(copies) != 1:
            raise HttpError(400, "Bad Request: Content-Length appears with different values")
        value = copies.pop()
    if not value.isdigit() or not value.isascii() or len(value) > 18:
        raise HttpError(400, f"Bad Request: Content-Length must be a number of bytes, not {value[:40]!r}")
    return int(value)


def _head_end(buffer: bytearray) -> tuple[int, int]:
    """Where the head ends in ``buffer`` (the index of its blank line, and the length of that line), or (-1, 0)."""
    crlf = buffer.find(b"\r\n\r\n")
    lf = buffer.find(b"\n\n")  # RFC 9112 section 2.2: a recipient MAY take a bare LF as a line end
    if lf >= 0 and (crlf < 0 or lf < crlf):
        return lf + 1, 1
    if crlf >= 0:
        return crlf + 2, 2
    return -1, 0


def _check_start(buffer: bytearray) -> None:
    """Raise :class:`HttpError` when the start of an unfinished head already shows it is no request (a TLS
    handshake sent to this plain-HTTP port, say), or its first line is complete and malformed."""
    line_end = buffer.find(b"\n")
    if line_end >= 0:
        request_line = bytes(buffer[:line_end]).rstrip(b"\r").decode("latin-1")
        if len(request_line) <= MAX_LINE_BYTES:
            _parse_request_line(request_line)
    elif not _METHOD_START.match(buffer):
        raise HttpError(400, f"Bad Request: this is not the start of an HTTP request: {bytes(buffer[:20])!r}")


def _parse_request_line(request_line: str) -> tuple[str, str, str]:
    """Method, target and version of a request line; raises :class:`HttpError` (400, 505)."""
    parts = _REQUEST_LINE.fullmatch(request_line)
    if parts is None:
        raise HttpError(400, f"Bad Request: the request line is not 'METHOD /path HTTP/1.1': {request_line[:80]!r}")
    method, target, version = parts.groups()
    if version not in SERVED_VERSIONS:
        raise HttpError(505, f"HTTP Version Not Supported: {version}; send HTTP/1.1")
    return method, target, version


def parse_head(head: bytes) -> RequestHead:
    """The request line and header fields of ``head`` (without its blank line); raises :class:`HttpError`."""
    if len(head) > MAX_HEAD_BYTES:
        raise HttpError(431, f"Request Header Fields Too Large: the head is longer than {MAX_HEAD_BYTES} bytes")
    text = head.decode("latin-1").replace("\r\n", "\n")  # RFC 9110 section 5.5: field values are octets
    if "\r" in text or "\0" in text:  # RFC 9112 section 2.2 and 5.5: reject a bare CR and a NUL
        raise HttpError(400, "Bad Request: the request head contains a bare CR or a NUL byte")
    request_line, _, block = text.partition("\n")
    if len(request_line) > MAX_LINE_BYTES:
        raise HttpError(414, f"URI Too Long: the request line is longer than {MAX_LINE_BYTES} bytes")
    method, target, version = _parse_request_line(request_line)
    if block.count("\n") >= MAX_HEADER_FIELDS:
        raise HttpError(431, f"Request Header Fields Too Large: more than {MAX_HEADER_FIELDS} header fields")
    fields = _FIELD.findall(block)
    if block and len(fields) != block.count("\n") + 1:
        raise _field_problem(block)
    headers: dict[str, str] = {}
    repeated: set[str] = set()
    for name, value in fields:
        key = name.lower()
        if key in headers:
            if key == "host":  # RFC 9112 section 3.2: more than one Host MUST get 400
                raise HttpError(400, "Bad Request: more than one Host header")
            headers[key] += ", " + value
            repeated.add(key)
        else:
            headers[key] = value
    if "transfer-encoding" in headers:
        # RFC 9112 section 6.1: a transfer coding the server does not understand SHOULD get 501
        raise HttpError(501, "Not Implemented: Transfer-Encoding request bodies are not supported; "
                             "send the body with a Content-Length header")
    return RequestHead(method, target, version, headers, repeated)


def _field_problem(block: str) -> HttpError:
    """What is wrong with the first bad header field line of ``block``."""
    for line in block.split("\n"):
        name, colon, _ = line.partition(":")
        if len(line) > MAX_LINE_BYTES + len(name) + 1:
            return HttpError(431, f"Request Header Fields Too Large: the value of {name[:40]!r} is longer "
                                  f"than {MAX_LINE_BYTES} bytes")
        if not colon or not re.fullmatch(_TOKEN, name):
            # also a folded line (it starts with a space) and a space before the colon (RFC 9112 section 5)
            return HttpError(400, f"Bad Request: not a header field 'Name: value': {line[:60]!r}")
    return HttpError(400, "Bad Request: malformed header fields")


class RequestReader:
    """The requests arriving on one connection, in order; bytes past the current request wait in a buffer."""

    def __init__(self, sock: socket.socket) -> None:
        sock.settimeout(WAIT_SECONDS)  # once: changing it costs system calls on every request
        self._sock = sock
        self._buffer = bytearray()

    def _receive(self) -> bool:
        """Append what the socket has; False at end of file. Raises TimeoutError after ``WAIT_SECONDS``."""
        data = self._sock.recv(RECV_BYTES)
        if not data:
            return False
        self._buffer += data
        return True

    def read_head(self) -> RequestHead | None:
        """The next request's head; None when the client closes or stays idle between requests."""
        buffer = self._buffer
        idle_until = time.monotonic() + IDLE_SECONDS
        head_until = None
        while True:
            if buffer[:1] in (b"\r", b"\n"):  # empty lines before a request line: RFC 9112 section 2.2, ignored
                del buffer[:len(buffer) - len(buffer.lstrip(b"\r\n"))]
            end, blank = _head_end(buffer)
            if end > 0:
                head = bytes(buffer[:end - 1 if buffer[end - 2:end] != b"\r\n" else end - 2])
                del buffer[:end + blank]
                return parse_head(head)
            if len(buffer) > MAX_HEAD_BYTES:
                raise HttpError(431, f"Request Header Fields Too Large: the head is longer than "
                                     f"{MAX_HEAD_BYTES} bytes")
            now = time.monotonic()
            if not buffer:
                if now > idle_until:
                    return None  # idle between requests: close quietly
            else:
                _check_start(buffer)  # a head still coming: refuse what cannot become a request now, not after a wait
                if head_until is None:
                    head_until = now + HEAD_SECONDS
                elif now > head_until:
                    raise HttpError(408, f"Request Timeout: the request head did not arrive within "
                                         f"{HEAD_SECONDS:.0f} s")
            try:
                received = self._receive()
            except TimeoutError:
                continue  # the deadlines above decide
            if not received:
                if buffer:
                    raise ClientGone("the client closed the connection inside a request head")
                return None

    def read_body(self, length: int) -> bytes:
        """Exactly ``length`` bytes of body; raises :class:`HttpError` (408) when they are too slow to come."""
        buffer = self._buffer
        deadline = time.monotonic() + BODY_SECONDS
        while len(buffer) < length:
            if time.monotonic() > deadline:
                raise HttpError(408, f"Request Timeout: the body did not arrive within {BODY_SECONDS:.0f} s")
            try:
                received = self._receive()
            except TimeoutError:
                continue
            if not received:
                raise ClientGone("the client closed the connection inside a request body")
        body = bytes(buffer[:length])
        del buffer[:length]
        return body
