"""How the handbook's server runs: logs, inherited descriptors, signals, and the two transports.

Each function overrides one SDK default the handbook's own rules would fail (OPS-008: ``MCPServer`` logs free text
through ``rich``; SEC-007: nothing closes descriptors a parent left open; OPS-001: SIGTERM kills the process with
calls in flight; TRN-002 and ERR-007: see :mod:`.frames`; over HTTP, ``uvicorn``'s own text logs).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import resource
import signal
import sys
from typing import Any

import anyio

from .frames import FrameReader, LineWriter, claim_stdio

SHUTDOWN_GRACE_SECONDS = 10.0
"""How long calls in flight may run on after SIGTERM or SIGINT before the server exits anyway."""
LEVELS = {"DEBUG": "debug", "INFO": "info", "WARNING": "warning", "ERROR": "error", "CRITICAL": "critical"}


class JsonLines(logging.Formatter):
    """One JSON object a line: ``ts`` (ISO 8601, UTC), ``level`` (the protocol's lower-case name), ``event``, and
    the logger and any exception as fields, never as extra lines."""

    def format(self, record: logging.LogRecord) -> str:
        event: dict[str, Any] = {
            "ts": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": LEVELS.get(record.levelname, "info"), "event": record.getMessage(), "logger": record.name,
        }
        if record.exc_info:
            event["exception"] = self.formatException(record.exc_info)
        return json.dumps(event, ensure_ascii=False, default=str)


def configure_logging(level: str = "INFO") -> None:
    """JSON lines on stderr for every logger; called before ``MCPServer`` is built, whose ``basicConfig`` then finds a
    handler in place and adds none."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def close_inherited_descriptors() -> None:
    """Close every descriptor above 2 a parent left open, before this process opens one of its own (SEC-007)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    os.closerange(3, soft if 3 < soft < 1 << 20 else 1 << 16)


class InFlight:
    """Requests being answered, so a signal can wait for them to finish."""

    def __init__(self) -> None:
        self.count = 0
        self.idle = anyio.Event()

    async def middleware(self, ctx: Any, call_next: Any) -> Any:
        if getattr(ctx, "request_id", None) is None:
            return await call_next(ctx)
        self.count += 1
        try:
            return await call_next(ctx)
        finally:
            self.count -= 1
            if self.count == 0:
                self.idle.set()
                self.idle = anyio.Event()

    async def drained(self, seconds: float) -> None:
        with anyio.move_on_after(seconds):
            while self.count:
                await self.idle.wait()


async def _stop_on_signal(reader: FrameReader, inflight: InFlight, log: logging.Logger) -> None:
    """On SIGTERM or SIGINT: take no more requests, let those in flight finish (bounded), then end the input as EOF
    would, so the SDK's loop returns and the process exits 0."""
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for signum in signals:
            log.info("shutting down on %s; %d request(s) in flight", signal.Signals(signum).name, inflight.count)
            await inflight.drained(SHUTDOWN_GRACE_SECONDS)
            reader.stop()
            return


async def serve_stdio(server: Any, inflight: InFlight) -> None:
    """The SDK's stdio loop, fed by :class:`~.frames.FrameReader`, stopped in order by SIGTERM or SIGINT."""
    from mcp.server.stdio import stdio_server

    log = logging.getLogger("mcp_handbook.mcp")
    raw_in, raw_out = claim_stdio()
    writer = LineWriter(raw_out)
    reader = FrameReader(raw_in, writer)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_stop_on_signal, reader, inflight, log)
        async with stdio_server(stdin=reader, stdout=writer) as (read, write):  # type: ignore[arg-type]
            low = server._lowlevel_server  # the one private name used: MCPServer.run_stdio_async takes no streams
            await low.run(read, write, low.create_initialization_options())
        tasks.cancel_scope.cancel()  # EOF: stop waiting for a signal
    log.info("shut down")


async def serve_http(server: Any, inflight: InFlight, *, host: str, port: int) -> None:
    """The SDK's Streamable HTTP app under uvicorn, with uvicorn's logs as JSON lines too, stopped in order by a signal
    (uvicorn's own handling: it stops accepting, lets requests finish, then returns)."""
    import uvicorn

    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(app, host=host, port=port, log_config=None, log_level="info", access_log=False,
                            timeout_graceful_shutdown=int(SHUTDOWN_GRACE_SECONDS))
    for signum in (signal.SIGTERM, signal.SIGINT):  # uvicorn raises the signal again once it has stopped, to these
        signal.signal(signum, _exit_after_shutdown)
    await uvicorn.Server(config).serve()


def _exit_after_shutdown(signum: int, _frame: object) -> None:
    """The handler uvicorn's re-raised signal meets after an orderly stop: one line, exit 0 (the default action would
    end the process by the signal, which hosts report as a crash)."""
    logging.getLogger("mcp_handbook.mcp").info("shut down on %s", signal.Signals(signum).name)
    raise SystemExit(0)
