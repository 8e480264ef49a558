"""One server session shared by the probes that only read, so an audit does not start a server per listing.

Most of an audit's time on a real server is spent starting it: a Python SDK
server takes a second of CPU to answer ``initialize``, and every probe used to
start its own. A probe registered ``shares_session=True`` only reads (lists,
reads, pings), so it may run on one live server that other readers use too,
one probe at a time (the engine's shared lane).

The shared session is not trusted to the flag alone. What a probe gets is a
:class:`SessionView`, which forwards only reading requests (:data:`READS`) with
ids it handed out itself, answers ``initialize`` with the shared server's own
answer, and raises :class:`NotShared` for anything else (another protocol
version, a notification, a raw write, a signal, closing stdin, an extra
environment or descriptor, waiting for an exit): the engine then runs that
probe again on a server of its own, so a wrong flag costs time, never a
verdict. The shared server is retired (killed; the next reader gets a fresh
one in a fresh workspace) when a probe's request went unanswered, a probe was
stopped, or the workspace differs after a probe from what it was when the
server had started: the next probe never meets what the last one left.

A view shows the probe only its own part of the conversation (the opening
exchange, then what happened while it ran): its transcript, stdout, stderr and
canary sightings are those of a fresh server that answered the same requests.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from ..probes.support import LATEST_LEGACY, WireTimeout
from ..wire import JsonRpcClient, Line, Message, WireSession, with_request_meta
from .guard import ToolCallGuard, listed_prompts, listed_tools
from .shared_servers import LiveServer, SharedServers
from .target import AuditTarget

READS = frozenset({
    "ping", "tools/list", "prompts/list", "prompts/get", "resources/list", "resources/templates/list", "resources/read",
    "server/discover",
})
"""The protocol's requests a shared session forwards: they read, and a server answers each the same before and after
(``prompts/get`` renders a template; a prompt that looks like it runs commands or code is refused by the probe's own
guard, as on a server of its own).
Besides these it forwards a ``tools/call`` of a tool the preflight's listing says is ``readOnlyHint: true`` (or of a
tool nobody listed: there is nothing behind it), and a method the protocol does not define (the server can only
refuse it)."""

PROTOCOL_METHODS = frozenset({
    "initialize", "ping", "tools/list", "tools/call", "prompts/list", "prompts/get", "resources/list", "resources/read",
    "resources/templates/list", "resources/subscribe", "resources/unsubscribe", "logging/setLevel", "completion/complete",
    "sampling/createMessage", "elicitation/create", "roots/list", "tasks/get", "tasks/list", "tasks/cancel", "tasks/result",
    "server/discover",
})
"""Every request method the protocol defines (either era): those outside :data:`READS` may change the server."""


class NotShared(BaseException):  # noqa: N818 - not an error: a request to run the probe on a server of its own
    """A probe asked a shared session for something only a server of its own may do.

    A BaseException, so a probe's own ``except Exception`` cannot swallow it: it reaches the engine, which runs
    the probe again on a fresh server."""


@dataclass(slots=True)
class SharedTarget(AuditTarget):
    """The target of a probe run on the shared session: the host's workspace and environment, and views for
    sessions."""

    pool: SharedServers | None = None

    def start(self, *, pass_fds: Iterable[int] = (), extra_env: dict[str, str] | None = None) -> WireSession:
        if tuple(pass_fds) or extra_env:
            raise NotShared("the probe starts its server with extra descriptors or environment")
        assert self.pool is not None
        with self.lock:
            view = SessionView(self.pool, self.timeout, self.guard)
            self.sessions.append(view)  # type: ignore[arg-type]
        return view  # type: ignore[return-value]

    def kill(self) -> None:
        """A shared probe stopped at its deadline: the server it was using cannot be trusted by the next one."""
        with self.lock:
            self.closed = True
            views = list(self.sessions)
        for view in views:
            view.kill_group()


def shared_target(pool: SharedServers, name: str, *, wait: float, modern: bool) -> SharedTarget:
    """A probe's target on the shared server: the host's workspace, root, environment and guard."""
    host = pool.current_host()
    return SharedTarget(
        argv=host.argv, workspace=host.workspace, env=host.env, canary=host.canary, allow_tool_calls=host.allow_tool_calls,
        timeout=wait, root=host.root, transport=host.transport, url=host.url, http_headers=host.http_headers,
        modern=modern, guard=replace(host.guard, blocked=[]), pool=pool,
    )


class SessionView(JsonRpcClient):
    """A probe's window on the shared session: reading requests only (see the module docstring)."""

    def __init__(self, pool: SharedServers, timeout: float, guard: ToolCallGuard) -> None:
        self.pool = pool
        self.timeout = timeout
        self.guard = guard
        self.live: LiveServer | None = None
        self.since = 0.0
        """Seconds after the shared session's start when this view began: rows before it (after the opening) are
        other probes'."""
        self.until = float("inf")
        """Seconds after the shared session's start when this view was closed: rows from then on are other probes'."""
        self.ids: set[int | str] = set()
        self.pending: set[int | str] = set()
        self.request_meta: dict[str, Any] | None = None
        self.initialized = False
        self.spoiled = ""
        self.ended = False
        self.killed: list[Any] = []

    # -- what the probe may do -------------------------------------------------
    def new_id(self) -> int:
        return self.pool.new_id()

    def initialize(self, *, version: str = "2025-11-25", timeout: float = 5.0) -> dict[str, Any]:
        """The shared server's own answer to the ``initialize`` it was opened with (asking again is not allowed)."""
        self._alive()
        if self.live is not None or version != LATEST_LEGACY:
            raise NotShared(f"initialize with version {version} or on a session already opened")
        self._bind("handshake", timeout)
        assert self.live is not None and self.live.opening is not None
        self.initialized = True
        return copy.deepcopy(self.live.opening)

    def send(self, message: dict[str, Any]) -> bool:
        self._alive()
        method, rid = message.get("method"), message.get("id")
        if "id" not in message:
            if method == "notifications/initialized" and self.initialized:
                return True  # the shared server was told once, when it was opened
            raise NotShared(f"the probe sends the notification {method!r}")
        if not self._reads(message):
            raise NotShared(f"the probe sends {method!r}, which may change the server")
        with self.pool.lock:
            if rid in self.pool.used or isinstance(rid, bool) or not isinstance(rid, (int, str)):
                raise NotShared(f"the probe sends id {rid!r} again, or an id no fresh server would take the same way")
            self.pool.used.add(rid)
        self.ids.add(rid)
        if self.live is None:  # no initialize first: a 2026-07-28 request, which carries its own envelope
            if not _modern_request(message, self.request_meta):
                raise NotShared(f"the probe opens with {method!r} in neither era")
            self._bind("modern", self.timeout)
        assert self.live is not None
        message = with_request_meta(message, self.request_meta)
        if method in ("tools/call", "prompts/get"):  # this probe's own guard, as on a server of its own (GuardedSession)
            values = [m.value for m in self.stdout]
            self.guard.check(json.dumps(message).encode(), seen=listed_tools(values), prompts=listed_prompts(values))
        self.pending.add(rid)
        return self.live.session.send(message)

    def _reads(self, message: dict[str, Any]) -> bool:
        """Whether the request leaves the server as it was (see :data:`READS`)."""
        method = message.get("method")
        if method == "tools/call":
            params = message.get("params")
            name = params.get("name") if isinstance(params, dict) else None
            return self.pool.known.get(name, True) if isinstance(name, str) else True
        return method in READS or (isinstance(method, str) and method not in PROTOCOL_METHODS
                                   and not method.startswith("notifications/"))

    def wait_for_id(self, rid: Any, *, timeout: float = 5.0, garbage_grace: float = 0.3) -> dict[str, Any]:
        self._alive()
        if rid not in self.ids or self.live is None:
            raise NotShared(f"the probe waits for id {rid!r}, which it did not send")
        first = not self.live.answered
        try:
            answer = self.live.session.wait_for_id(rid, timeout=timeout * (self.pool.first_answer if first else 1.0),
                                                   garbage_grace=garbage_grace)
            self.live.answered = True
        except WireTimeout:
            self.spoiled = f"request {rid} went unanswered"
            raise
        self.pending.discard(rid)
        return answer

    def settle(self, timeout: float = 2.0, *, quiet: float = 0.05) -> bool:
        return self.live.session.settle(timeout, quiet=quiet) if self.live else True

    # -- what the probe and the engine may read ----------------------------------
    @property
    def proc(self) -> Any:
        return self._session().proc

    @property
    def pid(self) -> int:
        return self._session().pid

    @property
    def defect(self) -> str:
        return self.live.session.defect if self.live else ""

    @property
    def unreadable(self) -> str:
        return self.live.session.unreadable if self.live else ""

    @property
    def stdout_flooded(self) -> bool:
        """Asked when a call goes unanswered (:mod:`..probes.calls`): a reading, so a slow tool does not send the probe
        to a server of its own to wait for it all over again."""
        return self.live.session.stdout_flooded if self.live else False

    @property
    def stdout(self) -> list[Message]:
        return [m for m in self.live.session.stdout if self._mine(m.line)] if self.live else []

    @property
    def stderr_lines(self) -> list[Line]:
        return [ln for ln in self.live.session.stderr_lines if self._mine(ln)] if self.live else []

    @property
    def _sent(self) -> list[Line]:
        """What was written to the server's stdin in this view (the opening included), for the canary check."""
        if self.live is None:
            return []
        with self.live.session._lock:
            return [ln for ln in self.live.session._sent if self._mine(ln)]

    def transcript(self, *, limit: int = 60) -> list[str]:
        if self.live is None:
            return []
        return self.live.session.transcript(limit=limit, skip=self._skip(), until=self.until)

    # -- ending ------------------------------------------------------------------
    def close(self, *, grace: float = 2.0) -> int | None:
        """The probe is done with the session: the server stays for the next reader unless a request of this view
        went unanswered (its answer could land in the next probe's view, or the server is stuck)."""
        if self.ended:
            return None
        self.ended = True
        if self.live is not None and self.pending:
            deadline = time.monotonic() + min(grace, 1.0)
            for rid in list(self.pending):
                try:
                    self.live.session.wait_for_id(rid, timeout=max(deadline - time.monotonic(), 0.01))
                    self.pending.discard(rid)
                except WireTimeout:
                    self.spoiled = self.spoiled or f"request {rid} went unanswered"
                    break
        if self.live is not None and not self.spoiled:
            self.live.session.settle(min(grace, 1.0))  # its last stderr lines are this probe's, not the next one's
        if self.live is not None:
            self.until = time.monotonic() - self.live.session.started
        if self.spoiled or (self.live is not None and self.live.session.proc.poll() is not None):
            self.pool.retire(self.spoiled or "the shared server exited")
        return None

    def kill_group(self) -> None:
        """The probe was stopped: the shared server goes with it."""
        self.ended = True
        if self.live is not None:
            self.until = min(self.until, time.monotonic() - self.live.session.started)
            self.pool.retire("a probe on it was stopped")

    def __getattr__(self, name: str) -> Any:
        raise NotShared(f"the probe uses the session's {name!r}, which a shared session does not offer")

    # -- inside ------------------------------------------------------------------
    def _bind(self, era: str, timeout: float) -> None:
        self.live = self.pool.opened(era, timeout=timeout)
        self.since = time.monotonic() - self.live.session.started

    def _alive(self) -> None:
        if self.ended:
            raise WireTimeout("the shared session was closed for this probe")

    def _session(self) -> WireSession:
        if self.live is None:
            raise NotShared("the probe asks for the server process before opening a session")
        return self.live.session

    def _skip(self) -> tuple[float, float]:
        assert self.live is not None
        return (self.live.opened_at, self.since)

    def _mine(self, line: Line) -> bool:
        """A row of this view: the opening exchange, or seen while the view was open."""
        start, end = self._skip()
        return not start <= line.at < end and line.at < self.until


def _modern_request(message: dict[str, Any], meta: dict[str, Any] | None) -> bool:
    """A request of the 2026-07-28 era: ``server/discover``, or any request with ``params._meta`` (its own, or the
    session's envelope)."""
    params = message.get("params")
    return message.get("method") == "server/discover" or meta is not None or (isinstance(params, dict) and "_meta" in params)
