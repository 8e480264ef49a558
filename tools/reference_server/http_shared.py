"""What every Streamable HTTP connection of the reference server shares: the listening server object (the engine
it feeds, the names it answers, the requests in flight) and the handshake era's sessions.

Apart from ``http_server`` (which starts it) and ``http_handler`` (one connection): a handler reads its server's
state, and the server is made with the handler's class, so with both in one module or each importing the other
they would import themselves."""

from __future__ import annotations

import itertools
import socket
import socketserver
import sys
import threading
import time
from collections import OrderedDict

from reference_server import seams
from reference_server.logs import format_exception
from reference_server.route import Session

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from reference_server.server import Server

MAX_SESSIONS = 1000  # the oldest idle session is ended beyond this; its client gets 404 and initializes again
def allowed_names(address: str, port: int, extra_hosts: Iterable[str], extra_origins: Iterable[str]) -> tuple[
        frozenset[str], frozenset[str]]:
    """The ``Host`` and ``Origin`` values this server answers: its own address, the loopback names, and the extras."""
    names = {f"[{address}]" if ":" in address else address}
    if address.startswith("127.") or address in ("::1", "0.0.0.0", "::"):
        names |= {"127.0.0.1", "localhost", "[::1]"}
    hosts = {f"{name}:{port}" for name in names} | (names if port == 80 else set())
    origins = {f"http://{host}" for host in hosts}
    return (frozenset(hosts | {h.lower() for h in extra_hosts}),
            frozenset(origins | {o.lower().rstrip("/") for o in extra_origins}))


class Sessions:
    """The handshake era's sessions, by id, bounded: the least recently used is ended past ``limit``."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self._limit = limit
        self._by_id: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def new(self) -> Session:
        """A session with a fresh id from the ``new_session_id`` seam (not yet open); raises ValueError for a bad id."""
        session_id = seams.call("new_session_id")
        if type(session_id) is not str or not session_id or not all("!" <= c <= "~" for c in session_id):
            raise ValueError("new_session_id must return visible ASCII (2025-11-25 session management)")
        with self._lock:
            if session_id in self._by_id:
                raise ValueError("new_session_id returned an id already in use")
        return Session(session_id)

    def open(self, session: Session) -> None:
        with self._lock:
            self._by_id[session.id] = session
            while len(self._by_id) > self._limit:
                self._by_id.popitem(last=False)

    def get(self, session_id: str) -> Session | None:
        with self._lock:
            session = self._by_id.get(session_id)
            if session is not None:
                self._by_id.move_to_end(session_id)
            return session

    def close(self, session_id: str) -> bool:
        with self._lock:
            return self._by_id.pop(session_id, None) is not None


class McpHttpServer(socketserver.ThreadingTCPServer):
    """The listening socket, the engine it feeds, and what every connection shares (a thread each)."""

    daemon_threads = True  # an idle keep-alive connection does not hold the process at exit
    allow_reuse_address = True  # a restart can listen again on the port at once
    request_queue_size = 64  # connections the kernel holds while the accept thread is busy

    def __init__(self, address: tuple[str, int], *, engine: Server, handler: type[socketserver.BaseRequestHandler]) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.engine = engine
        self.sessions = Sessions()
        self.allowed_hosts: frozenset[str] = frozenset()
        self.allowed_origins: frozenset[str] = frozenset()
        self.stopping = False
        self._active = 0  # requests being answered
        self._active_lock = threading.Lock()
        self._scopes = itertools.count(1)
        super().__init__(address, handler)

    def handle_error(self, request: object, client_address: object) -> None:
        """A connection's handler failed: one log record instead of ``socketserver``'s traceback on stderr."""
        exc = sys.exception()
        assert exc is not None  # socketserver calls this from its except clause
        self.engine.log("error", "http_connection_failed", traceback=format_exception(exc))

    def new_scope(self) -> str:
        """A scope for one 2026-07-28 request's id: ids are unique only among one client's requests in flight."""
        return f"http-{next(self._scopes)}"

    def begin(self) -> None:
        with self._active_lock:
            self._active += 1

    def end(self) -> None:
        with self._active_lock:
            self._active -= 1

    def wait_idle(self, timeout: float, hurry: Callable[[], bool]) -> float:
        """Wait (bounded, looking every 50 ms) until no request is being answered; return the time left of
        ``timeout``. Polling keeps ``begin`` and ``end`` cheap: they run on every request."""
        deadline = time.monotonic() + timeout
        while self._active and not hurry() and time.monotonic() < deadline:
            time.sleep(0.05)
        return max(deadline - time.monotonic(), 0.0)
