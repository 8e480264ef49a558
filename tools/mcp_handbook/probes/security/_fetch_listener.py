"""The SSRF probes' own HTTP listener on 127.0.0.1: a thread on a random port that records what it was asked for
and serves a small page, a redirect, a body without end or one that trickles, stopped when the probe ends (or
after :data:`LISTENER_LIFETIME`). A tool that fetched from it is seen by what it received, never by a guess.

Apart from :mod:`.ssrf` (the probes, and how they find and call a tool that takes a URL)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REACHED = "hb-ssrf-reached"
"""Text of every page the listener serves: seeing it in a result means the tool fetched from the listener."""

SIZE_LIMIT = 16 * 1024 * 1024
"""A tool still reading one response after this many bytes has no size bound worth the name."""

LISTENER_LIFETIME = 60.0
"""Seconds after which the listener's handlers stop serving, even if a probe forgot to stop it."""

FILLER = b"hb endless filler line, nothing to see here\n" * 1500  # about 64 KiB


class Listener:
    """A tiny HTTP server on 127.0.0.1 that records what it was asked for. Paths:
    ``/hb-ssrf/TOKEN`` a small page; ``/hb-redirect/TOKEN`` a 302 to :attr:`redirect_to` ``/hb-ssrf/TOKEN``;
    ``/hb-endless`` a body without end (until :data:`SIZE_LIMIT` is passed, then silence); ``/hb-trickle`` one
    byte every 0.2 s; ``/hb-slow-headers`` the status line and a header without end, one byte every 0.2 s."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.sent = 0
        self.redirect_to = ""
        self.stopping = threading.Event()
        listener = self

        class Handler(BaseHTTPRequestHandler):
            timeout = 2.0  # a client that stops reading cannot hold a handler thread

            def do_GET(self) -> None:  # noqa: N802 (the http.server name)
                listener.seen.append(self.path)
                try:
                    listener.answer(self)
                except OSError:
                    pass  # the client went away: that is its choice

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the http.server name)
                pass  # nothing on the probe's stderr

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.timer = threading.Timer(LISTENER_LIFETIME, self.stopping.set)
        self.timer.daemon = True

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def reached(self, token: str, since: int = 0) -> bool:
        """Whether a request for ``token``'s path arrived, among the requests from number ``since`` on."""
        return any(p.endswith(f"/{token}") for p in self.seen[since:])

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        path = handler.path
        if path == "/hb-slow-headers":  # written by hand: http.server would send the head in one piece
            head = iter(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Hb-Slow: ")
            while not self.stopping.wait(0.2):  # ends when the probe does (or at LISTENER_LIFETIME)
                handler.wfile.write(bytes([next(head, 46)]))  # then "." for ever: the head never ends
                handler.wfile.flush()
            return
        if path.startswith("/hb-redirect/"):
            handler.send_response(302)
            handler.send_header("Location", self.redirect_to + "/hb-ssrf/" + path.rsplit("/", 1)[1])
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        endless, trickle = path == "/hb-endless", path == "/hb-trickle"
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain; charset=utf-8")
        if trickle:
            handler.send_header("Content-Length", "1000000")
        body = f"{REACHED} {path}\n".encode()
        if not (endless or trickle):
            handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
        while endless and self.sent <= SIZE_LIMIT and not self.stopping.is_set():
            handler.wfile.write(FILLER)
            self.sent += len(FILLER)
        while trickle and not self.stopping.wait(0.2):
            handler.wfile.write(b".")
            handler.wfile.flush()
        self.stopping.wait(LISTENER_LIFETIME if endless else 0)  # past the limit: hold the line, send nothing

    def scrub(self, text: str) -> str:
        """Evidence without the random port or random hex (a boundary, a reference). Ten or eleven hex digits are
        scrubbed only with a letter among them (2130706433 is an address in a URL); twelve or more always: a random
        boundary is all digits about one time in three hundred."""
        return re.sub(r"\b(?:(?=[0-9]*[a-f])[0-9a-f]{10,}|[0-9a-f]{12,})\b", "…",
                      text.replace(f":{self.port}", ":PORT"))


@contextmanager
def listening(count: int = 1) -> Iterator[list[Listener]]:
    """``count`` listeners, each serving on its own thread until the block ends (at most :data:`LISTENER_LIFETIME`)."""
    listeners: list[Listener] = []
    try:
        for _ in range(count):
            listeners.append(Listener())
            listeners[-1].thread.start()
            listeners[-1].timer.start()
        yield listeners
    finally:
        for each in listeners:
            each.stopping.set()
            each.timer.cancel()
            each.server.shutdown()
            each.server.server_close()
