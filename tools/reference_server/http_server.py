"""Streamable HTTP for the reference server: one endpoint, ``/mcp``, both protocol eras.

Why ``socketserver`` threads and a request reader of our own (``http_reader``): a
thread per connection is plenty for a reference server, costs no dependency, and
keeps every decision in view: the DNS-rebinding checks (``Origin``, then ``Host``),
the handshake era's sessions (2025-11-25), the 2026-07-28 header checks, and the
HTTP status of each outcome. ``http.server`` would do the reading too, but its
``email``-based header parsing costs more than the MCP call a request carries.
The security decisions are seams (``http_policy``); the protocol is the same
engine the stdio transport uses (``server.Server``).
"""
from __future__ import annotations

import threading

from reference_server import seams
from reference_server.http_handler import ENDPOINT, McpHandler
from reference_server.http_shared import McpHttpServer, allowed_names
from reference_server.logs import LogState, report_seam_error, stderr_line
from reference_server.server import SIGNAL_DRAIN_SECONDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from reference_server.server import Server

def serve_http(engine: Server, *, host: str, port: int, allow_remote: bool = False,
               extra_hosts: Iterable[str] = (), extra_origins: Iterable[str] = ()) -> int:
    """Listen on ``host:port`` until SIGTERM/SIGINT, then drain and return 0; 2 when it cannot listen."""
    try:
        address = seams.call("bind_address", host, allow_remote)
    except ValueError as exc:
        stderr_line(f"reference_server: refusing to listen on {host}: {exc}")
        return 2
    try:
        httpd = McpHttpServer((address, port), engine=engine, handler=McpHandler)
    except (OSError, TypeError, ValueError) as exc:
        stderr_line(f"reference_server: cannot listen on {address}:{port}: {getattr(exc, 'strerror', None) or exc}")
        return 2
    bound = int(httpd.server_address[1])
    httpd.allowed_hosts, httpd.allowed_origins = allowed_names(address, bound, extra_hosts, extra_origins)
    LogState.sink = engine.client_log  # each request's own level decides what its client gets
    stop = threading.Event()

    def on_signal(signum: int) -> None:
        engine.request_shutdown(signum)
        stop.set()

    try:
        seams.SEAMS["install_signal_handlers"](on_signal)
    except Exception as exc:
        report_seam_error("install_signal_handlers", exc)
    url = f"http://{'[' + address + ']' if ':' in address else address}:{bound}{ENDPOINT}"
    engine.log("info", "started", transport="http", url=url, workspace=str(engine.workspace),
               tools=len(engine.calls.tools))
    stderr_line(f"reference_server: listening on {url}")
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.1}, name="http-accept",
                     daemon=True).start()
    while not stop.wait(0.1):
        pass  # short waits: a signal the kernel gives another thread is handled here when the wait returns
    httpd.stopping = True
    httpd.shutdown()
    httpd.server_close()
    left = httpd.wait_idle(SIGNAL_DRAIN_SECONDS, engine.hurried)
    engine.finish("signal", left)
    return 0
