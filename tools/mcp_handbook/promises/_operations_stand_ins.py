"""The stand-ins the operations gate's checks drive a block with: a thread with a deadline for the block's own
function, a fake HTTP upstream answering a list of statuses, a daemon on a Unix socket, and the session and file
watcher a subscription block is given. Servers listen on 127.0.0.1 or in the block's temporary folder, and are
stopped before the check returns."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def result_text(result: Any) -> str:
    """The text of a CallToolResult's content, joined; '' for anything else."""
    if not isinstance(result, dict):
        return ""
    return " ".join(str(c.get("text", "")) for c in result.get("content") or [] if isinstance(c, dict))


def in_thread(function: Callable[[], Any], seconds: float,
               enough: Callable[[], bool] = lambda: False) -> tuple[bool, Any, BaseException | None]:
    """Run ``function`` on a daemon thread for at most ``seconds``, or until ``enough()`` says the outcome is
    known: (finished, returned, raised). A thread still running is left to the block's process, which ends
    once the check returns."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = function()
        except BaseException as exc:  # noqa: BLE001 - what the block raised is the outcome
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    stop = time.monotonic() + seconds
    while worker.is_alive() and time.monotonic() < stop and not enough():
        worker.join(0.05)
    return not worker.is_alive(), box.get("value"), box.get("error")


@contextmanager
def fake_upstream(statuses: list[int], retry_after: str = "") -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A fake HTTP upstream on 127.0.0.1 answering each request with the next status (the last one repeats);
    yields its URL and the list of requests it received (time, method, Idempotency-Key)."""
    import http.server

    seen: list[dict[str, Any]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            seen.append({"at": time.monotonic(), "method": self.command, "key": self.headers.get("Idempotency-Key")})
            status = statuses[min(len(seen), len(statuses)) - 1]
            body = b'{"id": "T-1"}' if status < 300 else b'{"error": "try later"}'
            self.send_response(status)
            if retry_after and status in (429, 503):
                self.send_header("Retry-After", retry_after)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PUT = _answer

        def log_message(self, *args: Any) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}/tickets", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextmanager
def unix_daemon(path: str, answer: dict[str, Any]) -> Iterator[list[Any]]:
    """A one-connection-at-a-time daemon on the Unix socket ``path``: it records each request line and answers
    ``answer``. On the way out it stops listening but leaves the socket file, as a crashed daemon does."""
    received: list[Any] = []
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(4)
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except (TimeoutError, OSError):
                continue
            with conn:
                conn.settimeout(2)
                received.append(json.loads(conn.makefile("rb").readline(1 << 16)))
                conn.sendall(json.dumps(answer).encode() + b"\n")

    worker = threading.Thread(target=serve, daemon=True)
    worker.start()
    try:
        yield received
    finally:
        stop.set()
        worker.join(2)
        server.close()


class RecordingSession:
    def __init__(self) -> None:
        self.subscriptions: dict[str, Any] = {}
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.sent.append((method, params))


class FileWatcher:
    """Records each watch; :meth:`change` calls the callbacks of the live watches on a path."""

    class Watch:
        def __init__(self, path: Path, callback: Callable[[], None]) -> None:
            self.path, self.callback, self.live = path, callback, True

        def cancel(self) -> None:
            self.live = False

    def __init__(self) -> None:
        self.watches: list[FileWatcher.Watch] = []

    def watch(self, path: Path, callback: Callable[[], None]) -> FileWatcher.Watch:
        self.watches.append(self.Watch(Path(path), callback))
        return self.watches[-1]

    def change(self, path: Path) -> None:
        for w in self.watches:
            if w.live and w.path == path:
                w.callback()
